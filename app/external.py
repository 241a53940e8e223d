"""GNU Backgammon's external-player protocol: gnubg connects, sends FIBS boards, we answer.

gnubg 1.07 (``set player 1 external 127.0.0.1:PORT``) is the TCP client. Each time the
bot must act it sends one line ``board:...`` (followed by a NUL byte) in FIBS's
"boardstyle 3" layout, as gnubg's ``FIBSBoard`` fills it, and waits for one line:

- a move in gnubg notation when the dice are given (an empty line when none is legal);
- ``roll`` or ``double`` when the dice fields are 0 (the bot may double);
- ``take`` or ``drop`` when a double is pending (field 40 set).

The bot is gnubg's player 1, the *positive* side of the board string: on its own turn
the positive checkers are its own and move 24 -> 1, which is exactly our board layout
with the bot as the mover (cell 0 holds minus the opponent's bar, cell 25 our bar).
"""

from __future__ import annotations

import logging
import socketserver
import threading
from collections.abc import Callable

import numpy as np

from engine.board import flip
from engine.cube import Cube
from engine.fibs import FibsBoard, ProtocolError, parse_fibs_board  # noqa: F401 - ProtocolError: what bad lines raise

log = logging.getLogger("gammon.external")
BOT, OPPONENT = 0, 1  # players as Cube.from_fibs numbers them


class Bot:
    """Answers board strings with an evaluator: moves at ``plies``; the cube by Janowski's model (money)
    or the MET (matches)."""

    def __init__(self, evaluator, plies: int = 0):
        self.evaluator = evaluator
        self.plies = plies
        self.lock = threading.Lock()  # evaluators are not assumed thread-safe

    def reply(self, line: str) -> str:
        """One reply line (without newline) for one board line; never raises.

        A line that cannot be read gets an empty reply. If reading worked but the
        analysis failed, the reply is still a valid answer of the kind asked for
        (``roll``, ``take`` or the first legal move), never a word gnubg would misread.
        """
        try:
            fibs = parse_fibs_board(line)
        except Exception as exc:
            log.warning("cannot read %r: %s", line[:120], exc)
            return ""
        try:
            with self.lock:
                return self._decide(fibs)
        except Exception as exc:  # a bad position or a failing evaluator must not cost the game
            log.warning("cannot analyse %r: %s", line[:120], exc)
            if fibs.doubled:
                return "take"
            if fibs.dice == (0, 0):
                return "roll"
            from engine.notation import legal_plays

            return legal_plays(fibs.board, fibs.dice)[0].notation

    def _decide(self, fibs: FibsBoard) -> str:
        from engine.analysis import rank_moves
        from engine.notation import format_move

        if fibs.doubled and fibs.bot_on_turn:
            # Our own double was beavered (the bot is still on roll): keep playing for twice the
            # stake unless that is worse than paying the doubled cube now.
            return "take" if self._cube(fibs.board, Cube.from_fibs(fibs, BOT)).double_take >= -1.0 else "drop"
        if fibs.doubled:  # the opponent doubled: it is on roll
            return "take" if self._cube(flip(fibs.board), Cube.from_fibs(fibs, OPPONENT)).response != "pass" else "drop"
        if fibs.dice == (0, 0):
            if not fibs.bot_may_double or fibs.crawford:
                return "roll"
            return "double" if self._cube(fibs.board, Cube.from_fibs(fibs, BOT)).action == "double" else "roll"
        cube = Cube.from_fibs(fibs, BOT).for_money()
        best = rank_moves(self.evaluator, fibs.board, fibs.dice, plies=self.plies, cube=cube)[0]
        return format_move(fibs.board, best.steps)

    def _cube(self, board_on_roll: np.ndarray, cube):
        """The doubler's cube decision for ``board_on_roll`` (the doubler on roll): money, or the MET in a match."""
        from engine.analysis import cube_efficiency, position_probs
        from engine.match import cube_decision

        probs = position_probs(self.evaluator, board_on_roll[None], max(self.plies, 1))[0]
        return cube_decision(probs, cube, float(cube_efficiency(board_on_roll)[0]))


class _Handler(socketserver.StreamRequestHandler):
    def handle(self):
        log.info("gnubg connected from %s:%s", *self.client_address[:2])
        for raw in self.rfile:
            line = raw.decode("ascii", errors="replace").replace("\0", "").strip()
            if not line:
                continue
            answer = self.server.bot.reply(line)
            if self.server.on_reply:
                self.server.on_reply(line, answer)
            self.wfile.write((answer + "\n").encode("ascii"))
            self.wfile.flush()
        log.info("gnubg disconnected")


class ExternalPlayerServer(socketserver.ThreadingTCPServer):
    """A threaded TCP server (one thread per gnubg connection) around a :class:`Bot`."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], bot: Bot, on_reply: Callable[[str, str], None] | None = None):
        self.bot = bot
        self.on_reply = on_reply
        super().__init__(address, _Handler)
