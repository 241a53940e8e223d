"""``gammon play``: a person against the bot in the terminal (or a program over a pipe).

The person is X and plays from the bottom of the drawing (points numbered from their
side). Before rolling, with access to the cube, the prompt is ``roll>``: ``roll`` (or an
empty line), ``double``, ``hint`` (cube advice), ``pip``, ``resign [single|gammon|backgammon]``,
``save FILE``, ``quit``. With dice the prompt is ``move>``: a move in gnubg notation
(``24/18 13/11``, ``bar/22``, ``6/off``, ``8/5(2)``), or ``hint``, ``pip``, ``board``,
``resign``, ``save FILE``, ``quit``; an illegal move is refused with the reason. When the
bot doubles the prompt is ``take or pass>``. With the tutor on (``--tutor``), a checker play or a cube
action (double, roll without doubling, take, pass) that loses more than its threshold against the best,
judged as ``hint`` judges it, is named in one line with the better one and both equities, and the prompt
``keep it? (y/n)>`` asks: ``y`` commits it, ``n`` takes it back to the prompt it was answered at (the same
roll). Every prompt ends with ``> `` and is flushed, so a program can drive the game line by line. In
Acey-Deucey a 1-2 is typed with the double the person names (``13/11 6/5 then 4-4: 24/20(2) 13/9(2)``,
engine/rules/notation.py), and the ``move>`` prompt of the extra roll follows at once (no cube in between).

The games are :func:`engine.play.game.play`, the one game loop: the person is player 0, a
player whose decisions are prompts, the bot is player 1, and the loop's events are what
the session prints and records. A resignation offered at ``roll>`` is made once the dice
are rolled (the loop asks for resignations after the roll); one the bot declines leaves
the person to play the roll.

:class:`Person` is the person as a player: the prompts, without a session around them
(``gammon chouette`` seats several persons at one terminal with it, app/chouette.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from gammon.app.arguments import check_record_variant, counted, draw
from gammon.engine.cube.met import MAX_AWAY
from gammon.engine.cube.state import PASS, TAKE, Cube
from gammon.engine.errors import GammonError
from gammon.engine.files import atomic_file
from gammon.engine.play.game import GameEvent, Rules, play
from gammon.engine.play.players import EvaluatorPlayer, Player
from gammon.engine.records.match_files import MATCH_SUFFIXES, save_match
from gammon.engine.records.matchlog import Recorder
from gammon.engine.review.advice import Choice, cube_choice, play_choice
from gammon.engine.rules.board import pip_counts
from gammon.engine.rules.notation import LegalPlay, MoveError, find_play, format_move, legal_plays
from gammon.engine.rules.variants import variant_named
from gammon.engine.search.analysis import cube_advice, rank_moves

# What the game loop asks the person, and the prompt each question is asked at.
PROMPTS = {"roll": "roll> ", "move": "move> ", "answer": "take or pass> ", "keep": "keep it? (y/n)> "}
ROLL_ACTIONS = {"roll": "no double", "double": "double"}  # the roll> prompt's answers as cube actions
ANSWERS = {"take": "take", "t": "take", "accept": "take", "pass": "pass", "p": "pass", "drop": "pass"}
# The depths of the hints, and so of the tutor's judgement: what the person can ask is what he is judged by.
MOVE_HINT_PLIES, CUBE_HINT_PLIES = 0, 1
RESIGN_POINTS = {"single": 1, "gammon": 2, "backgammon": 3}
MAX_MOVE_CHARS = 200  # the longest move in notation, "bar/22* 22/16* 16/10* 10/4*", is 27 characters
YOU, BOT = 0, 1


def _shortened(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters, so that an echo of garbage stays one short line."""
    return text if len(text) <= limit else text[:limit] + "..."


class Quit(Exception):
    """The person ended the session."""


COMMON_HELP = ("pip (the pip counts), resign [single|gammon|backgammon], save FILE (.mat or .sgf: the match; "
               "else the printed record), quit")
ROLL_HELP = f"roll (or an empty line), double, hint (cube advice), {COMMON_HELP}"
MOVE_HELP = (f"a move in gnubg notation (24/18 13/11, bar/22, 6/off, 8/5(2)), hint (the best moves), board, "
             f"{COMMON_HELP}")


class Person(Player):
    """A person at the terminal as a player of the game loop: prompts decide the cube, the answers to
    doubles and the moves, one game at a time (one row). A subclass draws the board (``show(board)``)
    and keeps the session the person plays in (``save(path)``, the ``save FILE`` command)."""

    doubling = resigning = True  # the prompts decide the cube and may resign

    def __init__(self, evaluator, read=input, write=print, variant: str = "standard", warn: float | None = None):
        if not hasattr(evaluator, "probabilities"):
            raise GammonError(f"the bot needs probability estimates (a network or gnubg); "
                             f"{getattr(evaluator, 'name', evaluator)!r} only scores moves")
        self.evaluator = evaluator  # for hints
        self.read, self.write = read, write
        self.variant = variant
        self.cube = Cube()  # as the person saw it at the last prompt
        self.offer = 0  # points per cube unit the person offers to resign (made after the roll)
        self.offer_made = 0  # the offer the loop was last given
        self.chosen: LegalPlay | None = None  # the move typed at the last move prompt
        self.position: tuple[np.ndarray, tuple[int, int]] | None = None  # board and dice of the move to play
        self.warn = warn  # the tutor's threshold, a loss per unit of the cube; None: no tutor
        self.warning: Choice | None = None  # the tutor's warning while keep it? waits
        self.warned_at: str | None = None  # the prompt whose answer the warning is about

    # -- input -----------------------------------------------------------------------------
    def prompt(self, question: str) -> str:
        return PROMPTS[question]

    def ask(self, question: str) -> str:
        """The person's answer to ``question`` (a key of PROMPTS), at its prompt."""
        self.write(self.prompt(question), end="", flush=True)
        try:
            line = self.read()
        except EOFError:
            raise Quit from None
        if line is None:
            raise Quit
        return line.strip()

    # -- the person as a player of the game loop (one game at a time: one row) --------------
    def doubles(self, boards: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        """Before rolling, with access to the cube: the ``roll>`` prompt."""
        self.cube = cubes[0]
        while True:
            self.show(boards[0])
            action = self.before_roll(self.ask("roll"), boards[0])
            if action is None:
                continue
            # A resignation offered is made after the roll: no cube action to judge.
            if self.offer or self.keeps_cube_action(boards[0], self.cube, ROLL_ACTIONS[action]):
                return np.array([action == "double"])

    def answers(self, boards: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        """The bot doubled (``boards`` and ``cubes`` from its side): the ``take or pass>`` prompt."""
        while True:
            answer = self.ask("answer").lower()
            action = ANSWERS.get(answer)
            if action is not None:
                if self.keeps_cube_action(boards[0], cubes[0], action):
                    return np.array([TAKE if action == "take" else PASS])
            elif answer == "hint":
                self.write(self.cube_advice(boards[0], cubes[0]))
            elif answer == "quit":
                raise Quit
            else:
                self.write("answer take or pass (or hint)")

    def resigns(self, boards: np.ndarray, cubes: list[Cube], dice: np.ndarray) -> np.ndarray:
        """After the roll: a resignation offered at ``roll>``, else the ``move>`` prompt."""
        board, roll = boards[0], (int(dice[0, 0]), int(dice[0, 1]))
        self.cube, self.position, self.chosen = cubes[0], (board, roll), None
        offer, self.offer = self.offer, 0
        if offer:
            self.offer_made = offer
            return np.array([offer])
        self.rolled(board, roll)
        offer, self.offer = self.offer, 0
        self.offer_made = offer
        return np.array([offer])

    def rolled(self, board: np.ndarray, roll: tuple[int, int]) -> None:
        """The person rolled ``roll`` in ``board``: the ``move>`` prompt, unless there is no choice."""
        self.position, self.chosen = (board, roll), None
        plays = legal_plays(board, roll, self.variant)
        if len(plays) == 1 and not plays[0].notation:
            self.chosen = plays[0]
            return
        self.show(board)
        self.write(f"You roll {roll[0]}-{roll[1]}.")
        if variant_named(self.variant).is_wild(np.array(roll)):
            self.write(f"Play the {roll[0]}-{roll[1]}, then, if you could play both dice, any double you name, e.g. "
                       "'13/11 6/5 then 4-4: 24/20(2) 13/9(2)'; all four of it played, you roll again.")
        self.chosen = self.read_move()

    def policy(self, afterstates) -> np.ndarray:
        """The move typed at the prompt (asked for again after a declined resignation)."""
        while self.chosen is None:
            self.chosen = self.read_move()
            if self.offer:
                self.offer = 0
                self.write("The bot has just declined a resignation: play this roll.")
        mine = slice(afterstates.offsets[0], afterstates.offsets[1])
        # The same position may be left with and without an extra roll (a 1-2's double in full or in part).
        same = (afterstates.boards[mine] == self.chosen.board).all(axis=1) & (
            afterstates.extra_roll[mine] == self.chosen.rolls_again)
        return np.array([afterstates.offsets[0] + int(np.flatnonzero(same)[0])])

    def read_move(self) -> LegalPlay | None:
        """``move>`` until a legal move or a resignation (None, ``self.offer`` set)."""
        board, dice = self.position
        while True:
            after = self.move_command(self.ask("move"), board, dice)
            if self.offer:
                return None
            if after is not None and self.keeps_play(board, dice, after):
                return after

    # -- the tutor -------------------------------------------------------------------------
    def keeps_play(self, board: np.ndarray, dice, play: LegalPlay) -> bool:
        """Whether the checker play stands: see :meth:`keeps`."""
        return self.warn is None or self.keeps(
            "move", play_choice(self.evaluator, board, dice, self.cube, play, MOVE_HINT_PLIES))

    def keeps_cube_action(self, board: np.ndarray, cube: Cube, action: str) -> bool:
        """Whether the cube action stands (double, no double; take, pass with the doubler's board and cube)."""
        question = "answer" if action in ("take", "pass") else "roll"
        return self.warn is None or self.keeps(
            question, cube_choice(self.evaluator, board, cube, action, CUBE_HINT_PLIES))

    def keeps(self, question: str, choice: Choice | None) -> bool:
        """Whether the answer to ``question`` stands: at once within the tutor's threshold, else as the person
        says at the ``keep it? (y/n)>`` prompt, told what it loses against the best."""
        if choice is None or choice.loss <= self.warn:
            return True
        self.write(f"tutor: {choice.chosen} loses {choice.loss:.3f}; better {choice.best}, equity "
                   f"{choice.best_equity:+.3f} against {choice.chosen_equity:+.3f}")
        self.warning, self.warned_at = choice, question
        try:
            while True:
                answer = self.ask("keep").lower()
                if answer in ("y", "yes"):
                    return True
                if answer in ("n", "no"):
                    return False
                if answer == "quit":
                    raise Quit
                self.write("answer y to keep it or n to take it back")
        finally:
            self.warning = self.warned_at = None

    # -- the prompts -----------------------------------------------------------------------
    def before_roll(self, command: str, board: np.ndarray) -> str | None:
        """One answer to the ``roll>`` prompt: "roll", "double", or None to ask again."""
        lowered = command.lower()
        if lowered in ("", "roll", "r"):
            return "roll"
        if lowered in ("double", "d"):
            return "double"
        if lowered == "hint":
            self.write(self.cube_advice(board, self.cube))
        elif lowered == "help":
            self.write(ROLL_HELP)
        elif not self.common(command, board):
            self.write(f"unknown command {_shortened(command)!r}; help lists the commands")
        return "roll" if self.offer else None

    def cube_advice(self, board: np.ndarray, cube: Cube) -> str:
        """The bot's cube analysis for the player on roll in ``board``, holding ``cube`` (money, or the MET)."""
        decision = cube_advice(self.evaluator, board, cube, CUBE_HINT_PLIES).decision
        return (f"advice: {decision.verdict} (no double {decision.no_double:+.3f}, "
                f"double/take {decision.double_take:+.3f}, double/pass +1.000)")

    def move_command(self, command: str, board: np.ndarray, dice) -> LegalPlay | None:
        """One answer to the ``move> `` prompt: a legal move, else None (refused or a command)."""
        lowered = command.lower()
        if lowered == "hint":
            ranked = rank_moves(self.evaluator, board, dice, plies=MOVE_HINT_PLIES, cube=self.cube)
            wild = bool(variant_named(self.variant).is_wild(np.array(dice)))  # written in its two parts
            for i, m in enumerate(ranked[:5], 1):
                self.write(f"  {i}. {format_move(board, m.steps, wild):<24} equity {m.cubeful:+.3f}")
        elif lowered == "board":
            self.show(board)
        elif lowered == "help":
            self.write(MOVE_HELP)
        elif not self.common(command, board):
            if len(command) > MAX_MOVE_CHARS:  # no move is this long; don't hand the parser a novel
                self.write(f"illegal: a move is at most {MAX_MOVE_CHARS} characters; got {len(command)}")
                return None
            try:
                return find_play(board, dice, command, self.variant)
            except (MoveError, ValueError) as exc:  # ValueError too: any refusal of the text, never an ended session
                self.write(f"illegal: {exc}")
        return None

    def common(self, command: str, board: np.ndarray) -> bool:
        """pip, save FILE, resign [kind], quit; True when the command was one of them."""
        words = command.split()
        if not words:
            return False
        verb = words[0].lower()  # the command word is case-insensitive; a file name keeps its case
        if verb == "pip":
            you, bot = pip_counts(board, variant_named(self.variant).geometry)
            self.write(f"pips: you {you}, bot {bot}")
        elif verb == "save" and len(words) == 2:
            self.save(words[1])
        elif verb == "save":
            self.write("save takes one file name: save FILE (.mat or .sgf for a match file, else the printed record)")
        elif verb == "quit":
            raise Quit
        elif verb == "resign":
            kind = words[1].lower() if len(words) > 1 else "single"
            if kind not in RESIGN_POINTS:
                self.write("resign single, gammon or backgammon")
            else:
                self.offer = RESIGN_POINTS[kind]
        else:
            return False
        return True


class TerminalGame(Person):
    """A session of the person (player 0, X) against the bot (player 1, O): one money game, or a match."""

    def __init__(self, evaluator, length: int = 0, seed: int | None = None, read=input, write=print, record_path=None,
                 variant: str = "standard", warn: float | None = None):
        super().__init__(evaluator, read, write, variant, warn)
        if not 0 <= length <= MAX_AWAY:
            raise GammonError(f"match length must be 1..{MAX_AWAY}, or 0 for money games; got {length}")
        self.bot = EvaluatorPlayer(evaluator)
        self.seed = seed
        self.length = length
        self.score = [0, 0]
        self.record: list[str] = []
        self.record_path = record_path
        check_record_variant(record_path, variant)
        if record_path and not Path(record_path).resolve().parent.is_dir():
            # Say so now, not after a whole session has been played.
            raise GammonError(f"--record {record_path}: the folder {Path(record_path).parent} does not exist")
        self.match = Recorder(("you", "bot"), length, variant=variant)  # the session as a match file (.mat, .sgf)

    # -- output ----------------------------------------------------------------------------
    def log(self, line: str) -> None:
        self.record.append(line)
        self.write(line)

    def show(self, board_you: np.ndarray) -> None:
        """The board from the person's side, with the cube and the score."""
        self.write(draw(board_you, self.variant, names=("X (you)", "O (bot)")))
        holder = {"centered": "centered", "me": "yours", "opponent": "the bot's"}[self.cube.owner]
        score = ("money" if not self.length
                 else f"match to {self.length}, score you {self.score[YOU]} - bot {self.score[BOT]}")
        self.write(f"cube {self.cube.value} ({holder}); {score}")

    def write_record(self, path) -> None:
        """Write the session to ``path``: a match file for .mat and .sgf, else the transcript; a path that
        cannot be written is a GammonError naming it."""
        try:
            if Path(path).suffix.lower() in MATCH_SUFFIXES:
                save_match(self.match.log, path)
            else:
                with atomic_file(path, "w", make_folders=False) as f:  # a mistyped folder is refused, not made
                    f.write("\n".join(self.record) + "\n")
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
            rules = Rules(match_length=self.length, variant=self.variant)
            result = play((self, self.bot), 1, seed=self.seed, rules=rules, watch=self.hear)
            if self.length:
                you, bot = (int(v) for v in result.scores[0])
                self.log(f"{'You win' if you >= self.length else 'The bot wins'} the match {you}-{bot}.")
        except Quit:
            self.log("Session ended.")
        if self.record_path:
            self.write_record(self.record_path)  # unusable after all: one line and exit code 2, from the CLI
            self.write(f"game record saved to {self.record_path}")
        return 0

    def hear(self, event: GameEvent) -> None:
        """The game loop's events, told to the person and kept in the record."""
        self.match(event)
        you = event.player == YOU
        who, does = ("You", "") if you else ("The bot", "s")
        if event.kind == "start":
            self.cube = Cube()
            crawford = " (the Crawford game: no cube)" if event.crawford else ""
            self.log(f"New game{crawford}. Opening roll: you {event.dice[0]}, bot {event.dice[1]}.")
        elif event.kind == "move":
            roll = f"{event.dice[0]}-{event.dice[1]}"
            if you and not event.move:
                self.log(f"You roll {roll}: no legal move.")
            else:
                self.log(f"{who} roll{does} {roll} and play{does} {event.move or '(no legal move)'}.")
        elif event.kind == "double":
            self.log(f"{who} double{does} to {event.value}.")
        elif event.kind in ("take", "pass"):
            self.log(f"You {event.kind}." if you else f"The bot {event.kind}s.".replace("passs", "passes"))
        elif event.kind == "resign":
            kind = {v: k for k, v in RESIGN_POINTS.items()}[self.offer_made]
            self.log(f"You resign a {kind}; the bot accepts." if event.accepted
                     else f"The bot declines your resignation of a {kind}.")
        elif event.kind == "end":
            if event.scores is None:
                self.score[event.player] += event.value
            else:
                self.score = list(event.scores)
            self.log(f"{who} win{does} {counted(event.value, 'point')}. "
                     f"Score: you {self.score[YOU]}, bot {self.score[BOT]}.")


def stdin_reader():
    """The person's lines from standard input, one per call; EOFError at the end of the input."""
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")  # bytes that are not UTF-8 are a typo to refuse, not a crash

    def read() -> str:
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line

    return read
