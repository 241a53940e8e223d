"""Games against the bot for the web page: ``gammon play``'s session with its prompts answered over HTTP.

A game is :class:`app.terminal.TerminalGame`, so :func:`engine.play.game.play` (the one game
loop) runs it; the loop's questions to the person (roll, move, answer) are the page's prompts,
and the commands are the words ``gammon play`` reads (``roll``, ``double``,
``take``, ``pass``, a move like ``24/18 13/11``, ``resign gammon``, ``hint``). The loop runs
in a thread of its own and stops at each prompt until the page sends a command; a request
hands over one command and returns at the next prompt, so the bot's replies are played by
then. The board, the cube and the score the page draws follow the loop's events, turned
round by the variant's geometry. Like every board and GNUbgID, they are seen from the player on
roll, X: you, except while the bot's double waits for your answer, when the bot is on roll. With the
tutor on, a costly decision is held at the prompt ``keep`` (``y`` keeps it, ``n`` takes it back) and the
snapshot's ``warning`` says what it loses, the board still the one it was made on. The table keeps a
few games in memory; a game left alone for ``IDLE_SECONDS`` ends.
"""

from __future__ import annotations

import queue
import secrets
import threading
import time
from dataclasses import asdict

import numpy as np

from gammon.app.terminal import BOT, YOU, Quit, TerminalGame
from gammon.engine.errors import GammonError
from gammon.engine.play.game import GameEvent
from gammon.engine.records.formats import MatchState, describe_state, gnubgid
from gammon.engine.records.svg import board_svg
from gammon.engine.rules.board import starting_board
from gammon.engine.rules.notation import legal_plays
from gammon.engine.rules.variants import Variant, variant_named

IDLE_SECONDS = 1800  # a game nobody has answered for this long ends, and its thread with it
REPLY_SECONDS = 120  # the longest a request waits for the bot to reach the next prompt
MAX_GAMES = 16


def board_picture(board: np.ndarray, state: MatchState | None, variant: str | Variant, **labels) -> str:
    """The SVG of ``board`` in ``variant``: its checkers per side, and its geometry for the opponent's pips
    (``labels``: ``title``, ``names``, as :func:`engine.records.svg.board_svg` takes them)."""
    rules = variant_named(variant)
    return board_svg(board, state, rules.checkers, geometry=rules.geometry, **labels)


class NoSuchGame(GammonError):
    """A game id the table does not hold (never made, ended and dropped, or the server restarted)."""


class WebGame(TerminalGame):
    """One session of the person (player 0) against the bot, driven by :meth:`send` from any thread."""

    def __init__(self, evaluator, length: int = 0, variant: str = "standard", seed: int | None = None,
                 warn: float | None = None):
        super().__init__(evaluator, length=length, seed=seed, write=self._note, variant=variant, warn=warn)
        self.id = secrets.token_urlsafe(12)
        self.lines: list[str] = []  # the transcript
        self.question: str | None = None  # roll, move, answer or keep while the loop waits for the person
        self.view = starting_board(variant)  # the board from the person's side
        self.cube_value, self.cube_owner, self.crawford = 1, -1, False  # owner -1 centered, else a player
        self.over = False
        self.failure: BaseException | None = None  # a bug in the loop, raised in the request that waits
        self.used = time.monotonic()
        self._commands: queue.Queue[str] = queue.Queue()
        self._changed = threading.Condition()
        self._one_at_a_time = threading.Lock()
        self._thread = threading.Thread(target=self._play, name=f"gammon-web-game-{self.id}", daemon=True)

    # -- driving the loop from requests ---------------------------------------------------
    def start(self) -> dict:
        """Start the loop; the snapshot at the person's first prompt (the bot may have moved first)."""
        self._thread.start()
        return self._next_prompt(0)

    def send(self, command: str) -> dict:
        """Answer the prompt with ``command``; the snapshot at the next prompt, or at the end."""
        with self._one_at_a_time:
            if self.over:
                raise GammonError("this game is over: start a new one")
            self.used = time.monotonic()
            said = len(self.lines)
            with self._changed:
                self.question = None
                self._commands.put(command)
            return self._next_prompt(said)

    def current(self) -> dict:
        """The snapshot as things stand (after the command in flight, if any)."""
        with self._one_at_a_time:
            return {**self.snapshot(), "said": []}

    def end(self) -> None:
        """End the session at its next prompt, without waiting for it."""
        self._commands.put("quit")

    def _next_prompt(self, said: int) -> dict:
        with self._changed:
            if not self._changed.wait_for(lambda: self.question is not None or self.over, REPLY_SECONDS):
                raise TimeoutError(f"the bot took over {REPLY_SECONDS} s to reach the next prompt")
        if self.failure is not None:
            raise self.failure
        return {**self.snapshot(), "said": self.lines[said:]}

    def _play(self) -> None:
        try:
            self.run()
        except BaseException as exc:  # a bug: the waiting request raises it, the server answers 500
            self.failure = exc
        finally:
            with self._changed:
                self.over, self.question = True, None
                self._changed.notify_all()

    # -- TerminalGame's input and output, for the page ------------------------------------
    def ask(self, question: str) -> str:
        with self._changed:
            self.question = question
            self._changed.notify_all()
        try:
            return self._commands.get(timeout=IDLE_SECONDS).strip()
        except queue.Empty:
            raise Quit from None

    def _note(self, text: str = "") -> None:
        self.lines.extend(str(text).splitlines())

    def show(self, board_you: np.ndarray) -> None:
        """Nothing to write: the page draws ``self.view`` with every snapshot."""

    def save(self, path) -> None:
        self.write("save is for gammon play: the web board writes no files on the server")

    def hear(self, event: GameEvent) -> None:
        super().hear(event)
        if event.kind == "start":
            self.view = starting_board(self.variant)
            self.cube_value, self.cube_owner, self.crawford = event.value, -1, event.crawford
        elif event.kind == "move":
            plays = legal_plays(event.board, event.dice, self.variant)
            after = next(p.board for p in plays if p.notation == event.move)  # from the mover's side
            self.view = after if event.player == YOU else variant_named(self.variant).geometry.flip(after)
        elif event.kind == "take":
            self.cube_value, self.cube_owner = event.value, event.player

    # -- what the page shows --------------------------------------------------------------
    def snapshot(self) -> dict:
        """The game as the person sees it: the board (SVG and GNUbgID) and its situation in words, the prompt,
        the legal moves, the transcript, the tutor's warning."""
        dice = self.position[1] if self.deciding() == "move" else None
        board, state, names = self.seen(dice or (0, 0))
        typing = self.question == "move"  # a move the tutor holds is not typed again: no legal moves offered
        legal = [p.notation for p in legal_plays(self.position[0], dice, self.variant)] if typing else []
        return {"id": self.id, "prompt": self.question, "over": self.over, "variant": self.variant,
                "length": self.length, "score": list(self.score), "dice": list(dice) if dice else None,
                "legal": legal, "position": gnubgid(board, state, self.variant), "situation": describe_state(state),
                "log": list(self.lines), "svg": board_picture(board, state, self.variant, names=names),
                "warning": self.warning_shown()}

    def warning_shown(self) -> dict | None:
        """The tutor's warning while it waits at ``keep``: the choice, the better one, both equities, the loss."""
        if self.question != "keep":
            return None
        return {**asdict(self.warning), "loss": self.warning.loss}

    def deciding(self) -> str | None:
        """The prompt whose decision is pending: the question, or while the tutor asks to keep it, the one before."""
        return self.warned_at if self.question == "keep" else self.question

    def seen(self, dice: tuple[int, int]) -> tuple[np.ndarray, MatchState, tuple[str, str]]:
        """``(board, state, names)`` from the player on roll, X: you, or the bot while its double waits for your
        answer (the board is then turned round, for a board is drawn from the side on roll)."""
        answering = self.deciding() == "answer"
        on_roll = BOT if answering else YOU
        state = MatchState(cube=self.cube_value, cube_owner=self.cube_owner, on_roll=on_roll, turn=YOU,
                           doubled=answering, crawford=self.crawford, game_state=2 if self.over else 1, dice=dice,
                           match_length=self.length, score=tuple(self.score))
        if answering:
            return variant_named(self.variant).geometry.flip(self.view), state, ("X: bot", "O: you")
        return self.view, state, ("X: you", "O: bot")


class GameTable:
    """The games in progress by id: at most ``limit``; a new game past that ends the one idle longest."""

    def __init__(self, limit: int = MAX_GAMES):
        self.limit = limit
        self._games: dict[str, WebGame] = {}
        self._lock = threading.Lock()

    def new(self, evaluator, length: int = 0, variant: str = "standard", seed: int | None = None,
            warn: float | None = None) -> dict:
        game = WebGame(evaluator, length, variant, seed, warn)
        with self._lock:
            for finished in [g for g in self._games.values() if g.over]:
                del self._games[finished.id]
            if len(self._games) >= self.limit:
                idle = min(self._games.values(), key=lambda g: g.used)
                idle.end()
                del self._games[idle.id]
            self._games[game.id] = game
        return game.start()

    def get(self, game_id: str) -> WebGame:
        with self._lock:
            game = self._games.get(game_id)
        if game is None:
            raise NoSuchGame(f"no game {game_id[:40]!r} here: it ended or the server restarted; start a new one")
        return game

    def end(self, game_id: str) -> None:
        game = self.get(game_id)
        game.end()
        with self._lock:
            self._games.pop(game_id, None)

    def end_all(self) -> None:
        with self._lock:
            for game in self._games.values():
                game.end()
            self._games.clear()
