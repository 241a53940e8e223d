"""``gammon play``: a person against the bot in the terminal (or a program over a pipe).

The person is X and plays from the bottom of the drawing (points numbered from their
side). Before rolling, with access to the cube, the prompt is ``roll>``: ``roll`` (or an
empty line), ``double``, ``hint`` (cube advice), ``pip``, ``resign [single|gammon|backgammon]``,
``save FILE``, ``quit``. With dice the prompt is ``move>``: a move in gnubg notation
(``24/18 13/11``, ``bar/22``, ``6/off``, ``8/5(2)``), or ``hint``, ``pip``, ``board``,
``resign``, ``save FILE``, ``quit``; an illegal move is refused with the reason. When the
bot doubles the prompt is ``take or pass>``. Every prompt ends with ``> `` and is
flushed, so a program can drive the game line by line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.analysis import cube_efficiency, position_probs, rank_moves
from engine.board import flip, pip_counts, render, starting_board
from engine.cube import PASS, Cube
from engine.cubeful import EvaluatorPlayer
from engine.errors import GammonError
from engine.game import opening_rolls, result_points
from engine.match import cube_decision
from engine.met import MAX_AWAY
from engine.notation import MoveError, find_play, format_move, legal_plays
from engine.probability import cubeless_equity

RESIGN_POINTS = {"single": 1, "gammon": 2, "backgammon": 3}
MAX_MOVE_CHARS = 200  # the longest move in notation, "bar/22* 22/16* 16/10* 10/4*", is 27 characters
YOU, BOT = 0, 1


def _shortened(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters, so that an echo of garbage stays one short line."""
    return text if len(text) <= limit else text[:limit] + "..."


class Quit(Exception):
    """The person ended the session."""


class GameOver(Exception):
    """The game ended before the checkers did: a pass or an accepted resignation."""

    def __init__(self, winner: int, points: int):
        self.winner, self.points = winner, points


class TerminalGame:
    def __init__(self, evaluator, length: int = 0, seed: int | None = None, read=input, write=print, record_path=None):
        if not hasattr(evaluator, "probabilities"):
            raise GammonError(f"the bot needs probability estimates (a network or gnubg); "
                             f"{getattr(evaluator, 'name', evaluator)!r} only scores moves")
        if not 0 <= length <= MAX_AWAY:
            raise GammonError(f"match length must be 1..{MAX_AWAY}, or 0 for money games; got {length}")
        self.evaluator = evaluator
        self.bot = EvaluatorPlayer(evaluator)
        self.rng = np.random.default_rng(seed)
        self.read, self.write = read, write
        self.length = length
        self.score = [0, 0]
        self.crawford_done = False
        self.crawford = False  # this game is the Crawford game
        self.record: list[str] = []
        self.record_path = record_path
        if record_path and not Path(record_path).resolve().parent.is_dir():
            # Say so now, not after a whole session has been played.
            raise GammonError(f"--record {record_path}: the folder {Path(record_path).parent} does not exist")
        self.cube, self.owner = 1, -1

    # -- input and output ------------------------------------------------------------------
    def ask(self, prompt: str) -> str:
        self.write(prompt, end="", flush=True)
        try:
            line = self.read()
        except EOFError:
            raise Quit from None
        if line is None:
            raise Quit
        return line.strip()

    def log(self, line: str) -> None:
        self.record.append(line)
        self.write(line)

    def show(self, board_you: np.ndarray) -> None:
        """The board from the person's side, with the cube and the score."""
        self.write(render(board_you, names=("X (you)", "O (bot)")))
        holder = "centered" if self.owner < 0 else "yours" if self.owner == YOU else "the bot's"
        score = ("money" if not self.length
                 else f"match to {self.length}, score you {self.score[0]} - bot {self.score[1]}")
        self.write(f"cube {self.cube} ({holder}); {score}")

    def write_record(self, path) -> None:
        """Write the game record to ``path``; a path that cannot be written is a GammonError naming it."""
        try:
            Path(path).write_text("\n".join(self.record) + "\n")
        except (OSError, ValueError) as exc:  # no such folder, no permission, a NUL in the name, a full disk
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise GammonError(f"cannot save the game record to {path}: {reason}") from None

    def save(self, path) -> None:
        """The ``save FILE`` command: a path that cannot be written is refused in one line; the session goes on."""
        try:
            self.write_record(path)
        except GammonError as exc:
            self.write(str(exc))
            return
        self.write(f"game record saved to {path}")

    # -- a session -------------------------------------------------------------------------
    def run(self) -> int:
        try:
            while True:
                self.play_game()
                if not self.length or max(self.score) >= self.length:
                    break
            if self.length:
                self.log(f"{'You win' if self.score[YOU] >= self.length else 'The bot wins'} the match "
                         f"{self.score[YOU]}-{self.score[BOT]}.")
        except Quit:
            self.log("Session ended.")
        if self.record_path:
            self.write_record(self.record_path)  # unusable after all: one line and exit code 2, from the CLI
            self.write(f"game record saved to {self.record_path}")
        return 0

    def play_game(self) -> None:
        self.crawford = bool(self.length) and not self.crawford_done and max(self.score) == self.length - 1
        self.crawford_done |= self.crawford
        self.cube, self.owner = 1, -1
        opening, _ = opening_rolls(self.rng, 1)
        dice = (int(opening[0, 0]), int(opening[0, 1]))
        turn = YOU if dice[0] > dice[1] else BOT  # you hold die 0
        board = starting_board()  # always from the side on roll
        self.log(f"New game{' (the Crawford game: no cube)' if self.crawford else ''}. "
                 f"Opening roll: you {dice[0]}, bot {dice[1]}.")
        try:
            while True:
                if dice is None:
                    if not self.crawford and self.owner in (-1, turn):
                        self.cube_turn(turn, board)
                    dice = (int(self.rng.integers(1, 7)), int(self.rng.integers(1, 7)))
                after = self.move_turn(turn, board, dice)
                won = int(result_points(after[None], self.evaluator.checkers)[0])
                if won:
                    raise GameOver(turn, won * self.cube)
                board, turn, dice = flip(after), 1 - turn, None
        except GameOver as over:
            self.score[over.winner] += over.points
            self.log(f"{'You win' if over.winner == YOU else 'The bot wins'} {over.points} point"
                     f"{'s' if over.points != 1 else ''}. Score: you {self.score[YOU]}, bot {self.score[BOT]}.")

    # -- the cube --------------------------------------------------------------------------
    def cube_for(self, player: int) -> Cube:
        """The cube and the score as ``player`` sees them."""
        return Cube.seen_by(player, self.cube, self.owner, self.length, self.score, self.crawford)

    def cube_turn(self, turn: int, board: np.ndarray) -> None:
        """Before rolling, the player on roll (``board`` from its side) may double."""
        if turn == BOT:
            if not self.bot.doubles(board[None], [self.cube_for(BOT)])[0]:
                return
            self.log(f"The bot doubles to {self.cube * 2}.")
            while True:
                answer = self.ask("take or pass> ").lower()
                if answer in ("take", "t", "accept"):
                    self.log("You take.")
                    self.cube, self.owner = self.cube * 2, YOU
                    return
                if answer in ("pass", "p", "drop"):
                    self.log("You pass.")
                    raise GameOver(BOT, self.cube)
                if answer == "hint":
                    self.write(self.cube_advice(board, BOT))
                elif answer == "quit":
                    raise Quit
                else:
                    self.write("answer take or pass (or hint)")
        while True:
            self.show(board)
            if self.before_roll(self.ask("roll> "), board):
                return

    def before_roll(self, command: str, board: np.ndarray) -> bool:
        """One answer to the ``roll>`` prompt; True when the turn moves on to the roll."""
        lowered = command.lower()
        if lowered in ("", "roll", "r"):
            return True
        if lowered in ("double", "d"):
            taken = self.bot.answers(board[None], [self.cube_for(YOU)])[0] != PASS
            self.log(f"You double to {self.cube * 2}. The bot {'takes' if taken else 'passes'}.")
            if not taken:
                raise GameOver(YOU, self.cube)
            self.cube, self.owner = self.cube * 2, BOT
            return True
        if lowered == "hint":
            self.write(self.cube_advice(board, YOU))
        elif not self.common(command, board):
            self.write(f"unknown command {_shortened(command)!r}: roll, double, hint, pip, resign, save FILE, quit")
        return False

    def cube_advice(self, board: np.ndarray, doubler: int) -> str:
        """The bot's cube analysis for ``doubler``, on roll in ``board`` (money model, or the MET in a match)."""
        probs = position_probs(self.evaluator, board[None], 1)[0]
        decision = cube_decision(probs, self.cube_for(doubler), float(cube_efficiency(board)[0]))
        return (f"advice: {decision.verdict} (no double {decision.no_double:+.3f}, "
                f"double/take {decision.double_take:+.3f}, double/pass +1.000)")

    # -- moves -----------------------------------------------------------------------------
    def move_turn(self, turn: int, board: np.ndarray, dice) -> np.ndarray:
        """One move; returns the afterstate from the mover's side."""
        if turn == BOT:
            best = rank_moves(self.evaluator, board, dice, plies=0, cube=self.cube_for(BOT))[0]
            move = format_move(board, best.steps) or "(no legal move)"
            self.log(f"The bot rolls {dice[0]}-{dice[1]} and plays {move}.")
            return best.board
        plays = legal_plays(board, dice)
        self.show(board)
        if len(plays) == 1 and not plays[0].notation:
            self.log(f"You roll {dice[0]}-{dice[1]}: no legal move.")
            return plays[0].board
        self.write(f"You roll {dice[0]}-{dice[1]}.")
        while True:
            after = self.move_command(self.ask("move> "), board, dice)
            if after is not None:
                return after

    def move_command(self, command: str, board: np.ndarray, dice) -> np.ndarray | None:
        """One answer to the ``move> `` prompt: the afterstate of a legal move, else None (refused or a command)."""
        lowered = command.lower()
        if lowered == "hint":
            ranked = rank_moves(self.evaluator, board, dice, plies=0, cube=self.cube_for(YOU))
            for i, m in enumerate(ranked[:5], 1):
                self.write(f"  {i}. {format_move(board, m.steps):<24} equity {m.cubeful:+.3f}")
        elif lowered == "board":
            self.show(board)
        elif not self.common(command, board):
            if len(command) > MAX_MOVE_CHARS:  # no move is this long; don't hand the parser a novel
                self.write(f"illegal: a move is at most {MAX_MOVE_CHARS} characters; got {len(command)}")
                return None
            try:
                play = find_play(board, dice, command)
            except (MoveError, ValueError) as exc:  # ValueError too: any refusal of the text, never an ended session
                self.write(f"illegal: {exc}")
                return None
            self.log(f"You roll {dice[0]}-{dice[1]} and play {play.notation}.")
            return play.board
        return None

    def common(self, command: str, board: np.ndarray) -> bool:
        """pip, save FILE, resign [kind], quit; True when the command was one of them."""
        words = command.split()
        if not words:
            return False
        verb = words[0].lower()  # the command word is case-insensitive; a file name keeps its case
        if verb == "pip":
            you, bot = pip_counts(board)
            self.write(f"pips: you {you}, bot {bot}")
        elif verb == "save" and len(words) == 2:
            self.save(words[1])
        elif verb == "quit":
            raise Quit
        elif verb == "resign":
            kind = words[1].lower() if len(words) > 1 else "single"
            if kind not in RESIGN_POINTS:
                self.write("resign single, gammon or backgammon")
                return True
            # The bot accepts when the offer is at least what it expects to win (cubeless, 0-ply).
            expected = -cubeless_equity(position_probs(self.evaluator, board[None], 0)[0])
            if RESIGN_POINTS[kind] >= expected:
                self.log(f"You resign a {kind}; the bot accepts.")
                raise GameOver(BOT, RESIGN_POINTS[kind] * self.cube)
            self.write(f"The bot declines your resignation of a {kind}.")
        else:
            return False
        return True
