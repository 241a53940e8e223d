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

Every line with something on it gets exactly one reply, an empty one when the line cannot be
read (docs/gnubg.md, "Replies"); blank lines get none (see :meth:`_Handler._take`).
"""

from __future__ import annotations

import logging
import socketserver
import threading
from collections.abc import Callable

import numpy as np

from gammon.engine.cube.met import DEFAULT_MET, using_met
from gammon.engine.cube.state import Cube
from gammon.engine.errors import GammonError
from gammon.engine.records.fibs import (  # noqa: F401 - ProtocolError: what bad lines raise
    BOT,
    MAX_LINE,
    OPPONENT,
    FibsBoard,
    ProtocolError,
    parse_fibs_board,
)
from gammon.engine.rules.board import flip
from gammon.engine.rules.notation import format_move, legal_plays
from gammon.engine.search.analysis import cube_advice, rank_moves

log = logging.getLogger("gammon.external")


class Bot:
    """Answers board strings with an evaluator: moves at ``plies``; the cube by Janowski's model (money)
    or the MET (matches)."""

    def __init__(self, evaluator, plies: int = 0, met: str = DEFAULT_MET):
        self.evaluator = evaluator
        self.plies = plies
        self.met = met  # the match equity table of its match decisions (each connection has a thread of its own)
        self.lock = threading.Lock()  # evaluators are not assumed thread-safe

    def reply(self, line: str) -> str:
        """One reply line (without newline) for one board line; never raises, logs each fault in one line.

        A line that cannot be read (not a board, too long, out-of-range numbers, an impossible
        position, roll, cube or score) gets an empty reply: the protocol's only error reply,
        ``Error:``, stalls gnubg's game (docs/gnubg.md, "Replies"). If reading worked but the
        analysis failed (a bug, a failing evaluator), the reply is a fallback that needs no
        analysis but is still a valid answer of the kind asked for (``take``, ``roll`` or the
        first legal move), never a word gnubg would misread.
        """
        try:
            fibs = parse_fibs_board(line)
        except Exception as exc:  # ProtocolError, or a parser bug: either way gnubg must get its line
            log.warning("cannot read %r: %s", line[:120], _one_line(exc))
            return ""
        try:
            with self.lock, using_met(self.met):
                return self._decide(fibs)
        except Exception as exc:  # a bad position or a failing evaluator must not cost the game
            answer = _safe_reply(fibs)
            log.warning("cannot analyse %r: %s; fallback answer %r", line[:120], _one_line(exc), answer)
            return answer

    def _decide(self, fibs: FibsBoard) -> str:
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
        cube = Cube.from_fibs(fibs, BOT)
        best = rank_moves(self.evaluator, fibs.board, fibs.dice, plies=self.plies, cube=cube)[0]
        return format_move(fibs.board, best.steps)

    def _cube(self, board_on_roll: np.ndarray, cube):
        """The doubler's cube decision for ``board_on_roll`` (the doubler on roll): money, or the MET in a match."""
        return cube_advice(self.evaluator, board_on_roll, cube, max(self.plies, 1)).decision


def _safe_reply(fibs: FibsBoard) -> str:
    """An answer of the kind gnubg asked for that needs no evaluator: take, roll, or the first legal move."""
    if fibs.doubled:
        return "take"
    if fibs.dice == (0, 0):
        return "roll"
    try:
        return legal_plays(fibs.board, fibs.dice)[0].notation
    except Exception:  # cannot happen for a board and roll the parser accepted; an empty move still answers
        return ""


def _one_line(exc: BaseException) -> str:
    """An exception as one log line: its type and the first line of its message."""
    lines = str(exc).splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


class _Handler(socketserver.StreamRequestHandler):
    """One gnubg connection: a reply line for each board line, within the server's limits."""

    def setup(self):
        self.timeout = self.server.idle_timeout  # StreamRequestHandler.setup sets it on the socket
        super().setup()

    def handle(self):
        peer = "{}:{}".format(*self.client_address[:2])
        log.info("gnubg connected from %s", peer)
        try:
            # readline's limit keeps an endless line from being held whole: _take drops the rest.
            while raw := self.rfile.readline(self.server.max_line + 1):
                self._take(raw, peer)
        except TimeoutError:  # socket.timeout: nothing arrived within idle_timeout
            log.warning("%s idle for %s s: connection dropped", peer, self.timeout)
        except (ConnectionResetError, BrokenPipeError, ConnectionAbortedError) as exc:
            log.warning("%s closed the connection abruptly (%s)", peer, type(exc).__name__)
        else:
            log.info("gnubg disconnected from %s", peer)

    def _take(self, raw: bytes, peer: str) -> None:
        """Answer one line, of which ``raw`` is the first max_line + 1 bytes at most."""
        limit = self.server.max_line
        if len(raw) > limit and not raw.endswith(b"\n"):
            size = len(raw) + self._skip_to_newline(limit)
            log.warning("%s sent a line of %d bytes or more (limit %d): answered with an empty line",
                        peer, size, limit)
            self._send("")  # like any line that cannot be read: its sender waits for a reply
            return
        line = raw.decode("ascii", errors="replace").replace("\0", "").strip()
        if line:
            self._answer(line)
        elif raw.endswith(b"\n"):
            # A blank line asks nothing, so it gets no reply: gnubg sends one board line per
            # decision and reads one reply up to its first newline, so a reply to a blank line
            # would be read as the answer to gnubg's next board, and every answer after it too.
            log.warning("%s sent a blank line: skipped, no reply", peer)
        # Else the NUL that ends gnubg's last board line, read alone as gnubg closes: nothing to say.

    def _skip_to_newline(self, chunk: int) -> int:
        """Read and drop the rest of the current line; the number of bytes dropped."""
        dropped = 0
        while raw := self.rfile.readline(chunk):
            dropped += len(raw)
            if raw.endswith(b"\n"):
                break
        return dropped

    def _answer(self, line: str) -> None:
        answer = self.server.bot.reply(line)
        if self.server.on_reply:
            self.server.on_reply(line, answer)
        self._send(answer)

    def _send(self, answer: str) -> None:
        self.wfile.write((answer + "\n").encode("ascii", errors="replace"))
        self.wfile.flush()


class ExternalPlayerServer(socketserver.ThreadingTCPServer):
    """A threaded TCP server (one thread per gnubg connection) around a :class:`Bot`.

    Limits, so that no client can starve it: a line over ``max_line`` bytes is answered with
    an empty line without being held (gnubg's are about 200), a connection silent for
    ``idle_timeout`` seconds is closed, and connections beyond ``max_connections`` are refused
    at once. gnubg keeps its connection open while its own player thinks, which may be a
    person, hence the long default timeout.
    """

    daemon_threads = True
    block_on_close = False  # closing (Ctrl-C) must not wait for clients, which may idle for idle_timeout
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], bot: Bot, on_reply: Callable[[str, str], None] | None = None, *,
                 max_line: int = MAX_LINE, idle_timeout: float | None = 3600.0, max_connections: int = 16):
        if max_line < 1 or max_connections < 1 or (idle_timeout is not None and idle_timeout <= 0):
            raise GammonError(f"server limits must be positive; got max_line={max_line}, "
                             f"idle_timeout={idle_timeout}, max_connections={max_connections}")
        self.bot = bot
        self.on_reply = on_reply
        self.max_line = max_line
        self.idle_timeout = idle_timeout
        self.max_connections = max_connections
        self._slots = threading.BoundedSemaphore(max_connections)
        super().__init__(address, _Handler)

    def process_request(self, request, client_address):
        if not self._slots.acquire(blocking=False):
            log.warning("refused %s:%s: already %d connections open", *client_address[:2], self.max_connections)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()  # the thread that would have released it never started
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request, client_address):
        log.exception("connection from %s:%s failed", *client_address[:2])
