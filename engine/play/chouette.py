"""Chouette: one player, the box, against a team whose captain rolls and moves; each member has his own cube.

The rules are in docs/rules.md ("Chouette"). What follows a game is pure data:
:func:`next_lineup` (who is box and captain next), :func:`board_result` and :func:`settle`
(what each player wins or pays) and :class:`Sheet` (the running score sheet, saved as
JSON). :class:`ChouetteGame` plays one game. It is a driver of its own because
:func:`engine.play.game.play` carries one cube a game and a chouette game carries one per team
member; the dice, the legal moves and the scoring come from the same helpers
(``opening_rolls``, ``generate``, ``result_points``), and the players are the same objects:
a move ``policy`` and ``doubles``/``answers`` as in :mod:`engine.play.players`, always asked
about one member's cube per row.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from gammon.engine.cube.state import PASS, Cube
from gammon.engine.errors import GammonError
from gammon.engine.play.game import opening_rolls
from gammon.engine.rules.board import flip, starting_board, variant_checkers
from gammon.engine.rules.movegen import generate
from gammon.engine.rules.notation import format_move
from gammon.engine.rules.outcomes import result_points

BOX, MEMBER = 0, 1  # the two players of one member's cube (engine.cube.state.Cube.seen_by numbers them)
BOT = "bot"  # a seat given as this word is played by the bot
NAME = re.compile(r"[A-Za-z0-9_.-]{1,20}", re.ASCII)  # no blanks: a name is one word at the prompts
SHEET_FORMAT, SHEET_VERSION = "gammon chouette sheet", 1
CHECKERS = variant_checkers("standard")


class ChouetteError(GammonError):
    """A chouette that cannot be set up or resumed (says why in one line)."""


# -- who plays where ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Lineup:
    """The box, and the team in its line order: ``team[0]`` is the captain."""

    box: str
    team: tuple[str, ...]

    @property
    def captain(self) -> str:
        return self.team[0]

    @property
    def order(self) -> tuple[str, ...]:
        return (self.box, *self.team)


def next_lineup(lineup: Lineup, captain_won: bool) -> Lineup:
    """The next game's lineup: a captain who won takes the box and the old box goes to the end of the line;
    a captain who lost goes to the end of the line and the next member captains."""
    rest = lineup.team[1:]
    if captain_won:
        return Lineup(lineup.captain, (*rest, lineup.box))
    return Lineup(lineup.box, (*rest, lineup.captain))


def seat_names(entries: Sequence[str]) -> tuple[tuple[str, ...], frozenset[str]]:
    """``--players`` entries -> (the names in seat order, the bots' names): each ``bot`` becomes bot1, bot2, ..."""
    if len(entries) < 3:
        raise ChouetteError(f"a chouette needs at least 3 players (a box and a team of two); got {len(entries)}")
    names, bots = [], set()
    for entry in entries:
        if entry.lower() == BOT:
            entry = f"{BOT}{len(bots) + 1}"
            bots.add(entry)
        elif not NAME.fullmatch(entry):
            raise ChouetteError(f"a player's name is 1 to 20 letters, digits, '_', '.' or '-'; got {entry!r}")
        names.append(entry)
    seen: set[str] = set()
    for name in names:
        if name.lower() in seen:
            raise ChouetteError(f"two players are named {name!r}: each name must be different")
        seen.add(name.lower())
    return tuple(names), frozenset(bots)


# -- results and the score sheet -----------------------------------------------------------------


@dataclass(frozen=True)
class GameResult:
    """One chouette game: its lineup and each member's own result against the box (positive: he won)."""

    lineup: Lineup
    points: Mapping[str, int]

    @property
    def captain_won(self) -> bool:
        """The rotation follows the starting captain's own game, however it ended (docs/rules.md)."""
        return self.points[self.lineup.captain] > 0

    def gains(self) -> dict[str, int]:
        return settle(self.lineup.box, self.points)


def settle(box: str, points: Mapping[str, int]) -> dict[str, int]:
    """Each player's gain from one game: every member's own result against the box, and the box the
    opposite of their sum, so that the gains add up to zero."""
    return {**points, box: -sum(points.values())}


def board_result(won: int, team_won: bool, cubes: Mapping[str, int]) -> dict[str, int]:
    """What each member still in the game wins (negative: pays) when a side bears off: the result
    ``won`` (1 single, 2 gammon, 3 backgammon) times his own cube's value in ``cubes``."""
    sign = 1 if team_won else -1
    return {name: sign * won * value for name, value in cubes.items()}


@dataclass(frozen=True)
class Sheet:
    """The running score sheet of a chouette session: players (seat order), the lineup of the next game,
    each player's total and the games played. Totals always add up to zero."""

    players: tuple[str, ...]
    bots: frozenset[str]
    lineup: Lineup
    scores: Mapping[str, int]
    games: int = 0

    @classmethod
    def new(cls, entries: Sequence[str]) -> Sheet:
        """A fresh session: the first player is the box, the second the captain, the rest the line in order."""
        names, bots = seat_names(entries)
        return cls(names, bots, Lineup(names[0], names[1:]), dict.fromkeys(names, 0))

    def after(self, result: GameResult) -> Sheet:
        """The sheet once ``result`` (a game of this sheet's lineup) is settled and the seats rotated."""
        if result.lineup != self.lineup:
            raise ValueError(f"the game was played by {result.lineup}, not by the sheet's lineup {self.lineup}")
        gains = result.gains()
        return replace(self, lineup=next_lineup(self.lineup, result.captain_won), games=self.games + 1,
                       scores={name: self.scores[name] + gains.get(name, 0) for name in self.players})

    def to_json(self) -> str:
        return json.dumps({"format": SHEET_FORMAT, "version": SHEET_VERSION,
                           "players": [{"name": name, "bot": name in self.bots} for name in self.players],
                           "box": self.lineup.box, "team": list(self.lineup.team),
                           "scores": dict(self.scores), "games": self.games}, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str, source: str) -> Sheet:
        """A saved sheet; anything else (not JSON, another file's JSON, totals that do not add up) is a
        ChouetteError naming ``source``."""
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ChouetteError(f"{source}: not a chouette score sheet (not JSON: {exc})") from None
        if not isinstance(data, dict) or data.get("format") != SHEET_FORMAT:
            raise ChouetteError(f"{source}: not a chouette score sheet (no \"format\": \"{SHEET_FORMAT}\")")
        if data.get("version") != SHEET_VERSION:
            raise ChouetteError(f"{source}: chouette score sheet version {data.get('version')!r}; "
                                f"this gammon reads version {SHEET_VERSION}")
        try:
            return cls._checked(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise ChouetteError(f"{source}: a damaged chouette score sheet ({_reason(exc)})") from None

    @classmethod
    def _checked(cls, data: dict) -> Sheet:
        players = tuple(_text(p["name"]) for p in data["players"])
        bots = frozenset(_text(p["name"]) for p in data["players"] if _flag(p["bot"]))
        named, _ = seat_names([BOT if name in bots else name for name in players])
        if named != players:
            raise ValueError("the bots' names are not bot1, bot2, ... in seat order")
        lineup = Lineup(_text(data["box"]), tuple(_text(name) for name in data["team"]))
        if sorted(lineup.order) != sorted(players):
            raise ValueError("box and team are not the players, each once")
        scores = data["scores"]
        if not isinstance(scores, dict) or sorted(scores) != sorted(players):
            raise ValueError("the scores are not one total per player")
        totals = {name: _whole(scores[name]) for name in players}
        if sum(totals.values()) != 0:
            raise ValueError(f"the totals add up to {sum(totals.values())}, not 0")
        games = _whole(data["games"])
        if games < 0:
            raise ValueError(f"{games} games played")
        return cls(players, bots, lineup, totals, games)


def _reason(exc: Exception) -> str:
    return f"no {exc}" if isinstance(exc, KeyError) else str(exc)


def _text(value) -> str:
    if not isinstance(value, str):
        raise TypeError(f"a name is text; got {value!r}")
    return value


def _flag(value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"'bot' is true or false; got {value!r}")
    return value


def _whole(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"a score or a game count is a whole number; got {value!r}")
    return value


# -- one game ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChouetteEvent:
    """One thing that happened in a chouette game, for the driver's ``watch``.

    ``start``: ``who`` (the box) and ``other`` (the captain) rolled ``dice`` (the box's die first);
    ``move``: ``who`` rolled ``dice`` and played ``move`` ("" when it could not move) from
    ``board`` (seen from it); ``double``: ``who`` turns his cube against ``other`` to ``value``;
    ``take``/``pass``: ``who`` answers ``other``'s double (a pass pays ``value``, the cube before the
    offer); ``captain``: ``who`` captains the team from now on; ``end``: ``who`` (the box or the
    captain) bore off his last checker and won ``value`` points per unit of each cube still in play.
    """

    kind: str
    who: str
    other: str = ""
    dice: tuple[int, int] | None = None
    board: np.ndarray | None = None
    move: str = ""
    value: int = 0


@dataclass
class MemberCube:
    """One member's cube against the box: its value and owner (-1 centred, BOX or MEMBER)."""

    value: int = 1
    owner: int = -1

    def seen_by(self, side: int) -> Cube:
        return Cube.seen_by(side, self.value, self.owner)

    def open_to(self, side: int) -> bool:
        return self.owner in (-1, side)


@dataclass
class ChouetteGame:
    """One chouette game of ``lineup``; ``players`` maps every name to its player (see the module's doc).

    A player may also have ``facing(names)``, told before each ``doubles``/``answers`` call whom its
    rows are against, and ``rolled(board, dice)``, told its roll before ``policy`` is asked (the
    terminal's prompts need both). ``cubes`` and ``in_play`` (the members whose game goes on, in
    line order: the first captains) are the table as it stands, for whoever draws it.
    """

    lineup: Lineup
    players: Mapping[str, object]
    rng: np.random.Generator
    watch: Callable[[ChouetteEvent], None] = lambda event: None
    cubes: dict[str, MemberCube] = field(init=False)
    in_play: list[str] = field(init=False)
    points: dict[str, int] = field(init=False, default_factory=dict)

    def __post_init__(self):
        self.cubes = {name: MemberCube() for name in self.lineup.team}
        self.in_play = list(self.lineup.team)

    @property
    def captain(self) -> str:
        return self.in_play[0]

    def play(self) -> GameResult:
        box = self.lineup.box
        opening, _ = opening_rolls(self.rng, 1)
        box_die, captain_die = (int(d) for d in opening[0])
        self.watch(ChouetteEvent("start", box, self.captain, (box_die, captain_die)))
        team_on_roll = captain_die > box_die
        board, roll = starting_board(), (box_die, captain_die)
        while True:
            mover = self.captain if team_on_roll else box
            after = self._move(mover, board, roll)
            won = int(result_points(after[None], CHECKERS)[0])
            if won:
                self.watch(ChouetteEvent("end", mover, value=won))
                self.points.update(board_result(won, team_on_roll, {name: self.cubes[name].value
                                                                     for name in self.in_play}))
                return GameResult(self.lineup, dict(self.points))
            board, team_on_roll = flip(after), not team_on_roll
            self._team_doubles(board) if team_on_roll else self._box_doubles(board)
            if not self.in_play:
                return GameResult(self.lineup, dict(self.points))
            roll = tuple(int(d) for d in self.rng.integers(1, 7, size=2))

    def _move(self, mover: str, board: np.ndarray, roll: tuple[int, int]) -> np.ndarray:
        """``mover`` plays ``roll`` in ``board`` (seen from him); the afterstate he chose."""
        player = self.players[mover]
        if hasattr(player, "rolled"):
            player.rolled(board, roll)
        afterstates = generate(board[None], np.array([roll]), check=False)
        choice = int(np.asarray(player.policy(afterstates))[0])
        if not 0 <= choice < len(afterstates):
            raise ValueError(f"{mover}'s policy chose afterstate {choice} of {len(afterstates)}")
        self.watch(ChouetteEvent("move", mover, dice=roll, board=board.copy(),
                                 move=format_move(board, afterstates.steps[choice])))
        return afterstates.boards[choice]

    def _ask(self, name: str, question: str, against: list[str], board: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        """``name``'s ``doubles`` or ``answers`` for one row per opponent in ``against``, ``board`` the
        doubler's view and ``cubes`` as the doubler sees them."""
        player = self.players[name]
        if hasattr(player, "facing"):
            player.facing(against)
        return np.asarray(getattr(player, question)(np.repeat(board[None], len(against), axis=0), cubes))

    def _box_doubles(self, board: np.ndarray) -> None:
        """The box on roll: he may double each member whose cube he can turn; each member answers alone."""
        box = self.lineup.box
        open_to_box = [name for name in self.in_play if self.cubes[name].open_to(BOX)]
        if not open_to_box:
            return
        cubes = [self.cubes[name].seen_by(BOX) for name in open_to_box]
        doubled = self._ask(box, "doubles", open_to_box, board, cubes).astype(bool)
        for name, cube, doubles in zip(open_to_box, cubes, doubled):
            if doubles:
                self.watch(ChouetteEvent("double", box, name, value=2 * cube.value))
                answer = self._ask(name, "answers", [box], board, [cube])[0]
                self._answered(name, BOX, answer)

    def _team_doubles(self, board: np.ndarray) -> None:
        """The team on roll: each member with access to his cube may double; the box answers each double."""
        box = self.lineup.box
        doubling = []
        for name in [name for name in self.in_play if self.cubes[name].open_to(MEMBER)]:
            if self._ask(name, "doubles", [box], board, [self.cubes[name].seen_by(MEMBER)])[0]:
                self.watch(ChouetteEvent("double", name, box, value=2 * self.cubes[name].value))
                doubling.append(name)
        if doubling:
            cubes = [self.cubes[name].seen_by(MEMBER) for name in doubling]
            answers = self._ask(box, "answers", doubling, board, cubes)
            for name, answer in zip(doubling, answers):
                self._answered(name, MEMBER, answer)

    def _answered(self, member: str, doubler: int, answer) -> None:
        """The answer to a double of ``member``'s cube by ``doubler`` (BOX or MEMBER); no beavers: any other
        answer than a pass is a take."""
        cube = self.cubes[member]
        taker = self.lineup.box if doubler == MEMBER else member
        asker = member if doubler == MEMBER else self.lineup.box
        if answer == PASS:
            self.watch(ChouetteEvent("pass", taker, asker, value=cube.value))
            self._drop_out(member, cube.value if doubler == MEMBER else -cube.value)
        else:
            cube.value, cube.owner = 2 * cube.value, 1 - doubler
            self.watch(ChouetteEvent("take", taker, asker, value=cube.value))

    def _drop_out(self, member: str, points: int) -> None:
        """A pass ends ``member``'s game with ``points`` won from the box; a captain's place passes down the line."""
        was_captain = self.captain == member
        self.points[member] = points
        self.in_play.remove(member)
        if was_captain and self.in_play:
            self.watch(ChouetteEvent("captain", self.captain))
