"""``gammon chouette``: a chouette session at one terminal; persons and bots in any seats (docs/rules.md).

The games are :class:`engine.play.chouette.ChouetteGame`; a person is a :class:`Seat`, the
prompts of ``gammon play`` (:class:`app.terminal.Person`) with the seat's name and role in
front (``bob (captain) move> ``), so one terminal serves several persons in turn. The
box's ``roll>`` prompt takes ``double`` (every cube he can turn) or ``double NAME ...``
(those members only); a member's ``roll>`` prompt asks whether he doubles the box with
his own cube (``roll`` or ``no``: he does not). The bots share one cube-aware player,
the one ``gammon play`` uses. The score sheet is written (whole or not at all) when the
session starts and after every game; ``quit`` or the end of input leaves the game in
progress unscored.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from gammon.app.arguments import counted
from gammon.app.terminal import Person, Quit, stdin_reader
from gammon.engine.cube.state import Cube
from gammon.engine.files import atomic_text
from gammon.engine.play.chouette import BOX, MEMBER, ChouetteError, ChouetteEvent, ChouetteGame, Sheet
from gammon.engine.play.players import EvaluatorPlayer
from gammon.engine.rules.board import pip_counts, render
from gammon.options import at_least, model_option

RESULT_NAMES = {1: "a single game", 2: "a gammon", 3: "a backgammon"}


def _signed(points: int) -> str:
    return f"{points:+d}" if points else "0"


class Seat(Person):
    """A person in one seat of the chouette: the terminal's prompts, told whom each cube question is about."""

    def __init__(self, name: str, session: ChouetteSession, evaluator, read, write):
        super().__init__(evaluator, read, write)
        self.name = name
        self.session = session
        self.against: list[str] = []  # the opponents of the rows of the next cube question
        self.context = ""  # what the next prompt is about, when more than the seat's role

    # -- what the person sees ----------------------------------------------------------------
    def role(self) -> str:
        game = self.session.game
        return "box" if game.lineup.box == self.name else "captain" if game.captain == self.name else "team"

    def prompt(self, question: str) -> str:
        return f"{self.context or f'{self.name} ({self.role()})'} {super().prompt(question)}"

    def show(self, board: np.ndarray) -> None:
        """The board from this seat's side of the table, every cube, the score sheet."""
        game = self.session.game
        team = f"team, captain {game.captain}"
        sides = (f"X ({self.name}, box)", f"O ({team})") if self.role() == "box" else (
            f"X ({team})", f"O ({game.lineup.box}, box)")
        self.write(render(board, names=sides))
        for line in self.session.table():
            self.write(line)

    # -- the game's questions ----------------------------------------------------------------
    def facing(self, names: list[str]) -> None:
        self.against = list(names)

    def doubles(self, boards: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        """The ``roll>`` prompt: the box chooses among the members he may double, a member doubles the box or not."""
        self.cube = cubes[0]
        while True:
            self.show(boards[0])
            if self.role() == "box":
                self.write(f"you may double: {', '.join(self.against)} ('double' for all, or 'double NAME ...')")
            command = self.ask("roll")
            words = command.split()
            if command.lower() in ("no", "n"):
                return np.zeros(len(cubes), dtype=bool)
            if len(words) > 1 and words[0].lower() in ("double", "d") and self.role() == "box":
                chosen = self.chosen_members(words[1:])
                if chosen is not None:
                    return np.array([name in chosen for name in self.against])
                continue
            action = self.before_roll(command, boards[0])
            if action is not None:
                return np.full(len(cubes), action == "double")

    def chosen_members(self, words: list[str]) -> set[str] | None:
        """The members named in ``double NAME ...`` (any case); None, said why, if one cannot be doubled."""
        known = {name.lower(): name for name in self.against}
        unknown = [word for word in words if word.lower() not in known]
        if unknown:
            self.write(f"you cannot double {unknown[0]!r} now; you may double {', '.join(self.against)}")
            return None
        return {known[word.lower()] for word in words}

    def answers(self, boards: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        """One ``take or pass>`` prompt per double offered to this seat (the box may face several)."""
        answers = []
        try:
            for row, doubler in enumerate(self.against):
                self.context = f"{self.name}: {doubler} doubles you to {2 * cubes[row].value};"
                answers.append(super().answers(boards[row:row + 1], cubes[row:row + 1])[0])
        finally:
            self.context = ""
        return np.array(answers)

    def rolled(self, board: np.ndarray, roll: tuple[int, int]) -> None:
        """The move prompt; hints rank the moves by the cube of the captain's own game."""
        cube = self.session.game.cubes[self.session.game.captain]
        self.cube = cube.seen_by(BOX if self.role() == "box" else MEMBER)
        super().rolled(board, roll)

    def common(self, command: str, board: np.ndarray) -> bool:
        """pip, quit, and what a chouette does instead of ``gammon play``'s resign and save."""
        words = command.lower().split()
        verb = words[0] if words else ""
        if verb == "pip":
            mine, theirs = pip_counts(board)
            other = "the team" if self.role() == "box" else "the box"
            self.write(f"pips: you {mine}, {other} {theirs}")
        elif verb == "resign":
            self.write("a chouette has no resignations: pass a double to end your game")
        elif verb == "save":
            self.write(f"the score sheet is saved to {self.session.sheet_path} after every game")
        else:
            return super().common(command, board)
        return True


class ChouetteSession:
    """Games of the chouette on ``sheet``, told at the terminal, the sheet saved to ``sheet_path`` after each."""

    def __init__(self, sheet: Sheet, sheet_path, evaluator, read=input, write=print, seed: int | None = None):
        self.sheet, self.sheet_path = sheet, Path(sheet_path)
        self.write = write
        self.seed = seed
        bot = EvaluatorPlayer(evaluator)
        self.players = {name: bot if name in sheet.bots else Seat(name, self, evaluator, read, write)
                        for name in sheet.players}
        self.game: ChouetteGame | None = None

    def run(self, games: int | None = None) -> int:
        """Play ``games`` games (None: until quit or the end of input)."""
        self.save()
        self.write(f"Chouette of {', '.join(self.sheet.players)}; {counted(self.sheet.games, 'game')} played. "
                   f"The score sheet is {self.sheet_path}.")
        try:
            for _ in itertools.count() if games is None else range(games):
                self.play_game()
        except Quit:
            self.write("Session ended; the game in progress is not scored.")
        return 0

    def play_game(self) -> None:
        lineup = self.sheet.lineup
        line = ", then ".join(lineup.team[1:])
        self.write(f"Game {self.sheet.games + 1}: {lineup.box} is the box, {lineup.captain} the captain"
                   + (f", then {line}." if line else "."))
        rng = np.random.default_rng(None if self.seed is None else [self.seed, self.sheet.games])
        self.game = ChouetteGame(lineup, self.players, rng, watch=self.hear)
        result = self.game.play()
        self.sheet = self.sheet.after(result)
        self.save()
        gains = result.gains()
        self.write("Settlement: " + ", ".join(f"{name} {_signed(gains[name])}" for name in lineup.order) + ".")
        self.write(f"Score sheet after {counted(self.sheet.games, 'game')}: "
                   + ", ".join(f"{name} {_signed(self.sheet.scores[name])}" for name in self.sheet.players) + ".")

    def save(self) -> None:
        atomic_text(self.sheet_path, self.sheet.to_json())

    # -- what everyone sees --------------------------------------------------------------------
    def table(self) -> list[str]:
        """The cubes of the game in progress and the running scores."""
        game = self.game
        holder = {-1: "centred", BOX: f"{game.lineup.box}'s", MEMBER: "his own"}
        cubes = [f"{name} {game.cubes[name].value} ({holder[game.cubes[name].owner]})" for name in game.in_play]
        out = [f"{name} {_signed(points)}" for name, points in game.points.items()]
        scores = [f"{name} {_signed(self.sheet.scores[name])}" for name in self.sheet.players]
        return [f"cubes against the box: {', '.join(cubes)}" + (f"; out of this game: {', '.join(out)}" if out else ""),
                f"score sheet: {', '.join(scores)}"]

    def hear(self, event: ChouetteEvent) -> None:
        """The game's events, in words."""
        who, other = event.who, event.other
        if event.kind == "start":
            self.write(f"New game. Opening roll: {who} (box) {event.dice[0]}, {other} (captain) {event.dice[1]}.")
        elif event.kind == "move":
            roll = f"{event.dice[0]}-{event.dice[1]}"
            self.write(f"{who} rolls {roll} and plays {event.move}." if event.move
                       else f"{who} rolls {roll}: no legal move.")
        elif event.kind == "double":
            self.write(f"{who} doubles {other} to {event.value}.")
        elif event.kind == "take":
            self.write(f"{who} takes {other}'s double: that cube is at {event.value}.")
        elif event.kind == "pass":
            self.write(f"{who} passes {other}'s double and pays {event.value}.")
        elif event.kind == "captain":
            self.write(f"{who} captains the team from now on.")
        elif event.kind == "end":
            self.write(f"{who} bears off the last checker: {RESULT_NAMES[event.value]}, "
                       f"times each cube still in the game.")


def load_sheet(path: Path, players: str | None) -> Sheet:
    """A new sheet for ``--players``, or the one saved at ``path``; a clash or a bad file in one line."""
    if players is not None:
        if path.exists():
            raise ChouetteError(f"{path} already holds a chouette: drop --players to resume it, or give another "
                                f"--sheet")
        return Sheet.new(players.split(","))
    if not path.exists():
        raise ChouetteError(f"no chouette to resume at {path}: start one with --players NAME,NAME,bot,...")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ChouetteError(f"{path}: not a chouette score sheet (not UTF-8 text)") from None
    return Sheet.from_json(text, str(path))


def cmd_chouette(args) -> int:
    from gammon.models.players import load_analyst

    sheet = load_sheet(Path(args.sheet), args.players)
    if set(sheet.players) <= sheet.bots and args.games is None:
        raise ChouetteError("every seat is a bot: say how many games with --games N")
    read = stdin_reader()
    session = ChouetteSession(sheet, args.sheet, load_analyst(args.model, estimates=False), read=read, seed=args.seed)
    return session.run(args.games)


def register(sub) -> None:
    """Add ``chouette`` to the ``gammon`` parser's ``sub``."""
    chouette = sub.add_parser("chouette", help="three or more players: the box against a team, one cube per member")
    chouette.add_argument("--players", metavar="NAME,NAME,bot,...",
                          help="at least 3 seats in line order: the box, the captain, the rest of the team; "
                               "'bot' seats the bot (omit to resume the session saved in --sheet)")
    chouette.add_argument("--sheet", default="chouette.json",
                          help="the score sheet, saved after every game (default: chouette.json)")
    chouette.add_argument("--games", type=at_least(1), default=None,
                          help="stop after this many games (default: until quit; required when all seats are bots)")
    chouette.add_argument("--seed", type=at_least(0), default=None, help="dice seed, for a reproducible session")
    model_option(chouette)
    chouette.set_defaults(run=cmd_chouette)
