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
from dataclasses import dataclass

import numpy as np

from engine.board import BoardError, flip, validate
from engine.errors import GammonError

log = logging.getLogger("gammon.external")


class ProtocolError(GammonError):
    """A board string that is not a well-formed FIBS board (says what is wrong)."""


@dataclass(frozen=True)
class FibsBoard:
    """The fields of a FIBS board string that a player needs, from the bot's side."""

    board: np.ndarray  # our layout, the bot as the mover (positive side)
    match_length: int
    score: tuple[int, int]  # (bot, opponent)
    bot_on_turn: bool  # the turn field is 1: the bot moves or may double
    dice: tuple[int, int]  # (0, 0) when the bot may double before rolling
    cube: int
    bot_may_double: bool
    opponent_may_double: bool
    doubled: bool  # a double is pending: the bot must take or drop
    crawford: bool  # this is the Crawford game (no cube)


FIELDS = 52  # after "board:"


def parse_fibs_board(line: str) -> FibsBoard:
    """Read gnubg's board line; ProtocolError names the first problem."""
    text = line.replace("\0", "").strip()
    if not text.startswith("board:"):
        raise ProtocolError(f"expected 'board:...', got {text[:40]!r}")
    fields = text[len("board:") :].split(":")
    if len(fields) < FIELDS:
        raise ProtocolError(f"a FIBS board has {FIELDS} fields after 'board:'; got {len(fields)}")
    try:
        numbers = [int(f) for f in fields[2:FIELDS]]
    except ValueError as exc:
        raise ProtocolError(f"non-numeric board field: {exc}") from None
    field = {i + 3: v for i, v in enumerate(numbers)}  # 1-based field numbers as in GNUBG.md
    cells = [field[k] for k in range(6, 32)]
    board = np.array([-cells[0], *cells[1:25], cells[25]], dtype=np.int64)
    try:
        board = validate(board)
    except BoardError as exc:
        raise ProtocolError(f"impossible position: {exc}") from None
    turn = field[32]
    # Scores come paired with the names: the bot's own score is field 5 on its turn, field 4 when doubled.
    bot_score, opp_score = (field[5], field[4]) if turn == 1 else (field[4], field[5])
    return FibsBoard(
        board=board,
        match_length=field[3],
        score=(bot_score, opp_score),
        bot_on_turn=turn == 1,
        dice=(field[33], field[34]),
        cube=field[37],
        bot_may_double=field[38] == 1,
        opponent_may_double=field[39] == 1,
        doubled=field[40] != 0,
        crawford=field[52] == 0,  # gnubg writes !fCrawford in the "redoubles" field
    )


class Bot:
    """Answers board strings with an evaluator: moves at ``plies``; the cube by Janowski's model (money) or the MET (matches)."""

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
        from engine.analysis import Cube, rank_moves
        from engine.notation import format_move

        # The may-double flags tell who holds the cube (before any pending double).
        owner = "centered" if fibs.bot_may_double and fibs.opponent_may_double else "me" if fibs.bot_may_double else "opponent"
        if fibs.doubled and fibs.bot_on_turn:
            # Our own double was beavered (the bot is still on roll): keep playing for twice the
            # stake unless that is worse than paying the doubled cube now.
            return "take" if self._cube(fibs.board, fibs, owner).double_take >= -1.0 else "drop"
        if fibs.doubled:  # the opponent doubled: it is on roll, and owned the cube unless it was centered
            doubler_owner = "centered" if owner == "centered" else "me"
            return "take" if self._cube(flip(fibs.board), fibs, doubler_owner).response != "pass" else "drop"
        if fibs.dice == (0, 0):
            if not fibs.bot_may_double or fibs.crawford:
                return "roll"
            return "double" if self._cube(fibs.board, fibs, owner).action == "double" else "roll"
        cube = Cube(max(fibs.cube, 1), owner)
        best = rank_moves(self.evaluator, fibs.board, fibs.dice, plies=self.plies, cube=cube)[0]
        return format_move(fibs.board, best.steps)

    def _cube(self, board_on_roll: np.ndarray, fibs: FibsBoard, owner: str):
        """The doubler's cube decision for ``board_on_roll`` (the doubler on roll): money, or the MET in a match."""
        from engine.analysis import cube_efficiency, position_probs
        from engine.match import cube_action

        probs = position_probs(self.evaluator, board_on_roll[None], max(self.plies, 1))[0]
        away = None
        if fibs.match_length:
            bot, opp = (fibs.match_length - fibs.score[0], fibs.match_length - fibs.score[1])
            away = (bot, opp) if fibs.bot_on_turn else (opp, bot)  # from the doubler's side
        return cube_action(probs, float(cube_efficiency(board_on_roll)[0]), max(fibs.cube, 1), owner, away)


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
