"""A played match or money session, action by action: what .mat and .sgf files hold.

:class:`MatchLog` is the one type the file formats read into and write from
(:mod:`engine.records.matfile`, :mod:`engine.records.sgf`; either by its suffix:
:mod:`engine.records.match_files`), that recorded games become (:class:`Recorder`, a ``watch``
of :func:`engine.play.game.play`) and that match analysis replays (:mod:`engine.review.replay`).
It keeps the text of each move as the file has it (gnubg notation, points numbered from the
mover's side: ``24/18 13/11``, ``bar/22``, ``6/off``); :mod:`engine.review.replay` checks every
move against the dice and the position.

Players are 0 and 1: player 0 is the first named (the left column of a .mat file,
gnubg's player 0), and is X in our boards.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gammon.engine.errors import GammonError
from gammon.engine.play.game import GameEvent

ACTIONS = ("move", "double", "take", "drop", "beaver", "resign", "accept", "reject")
RESIGN_NAMES = {1: "single", 2: "gammon", 3: "backgammon"}


class MatchFileError(GammonError):
    """A match file that cannot be read: names the file, the game and the line (``unit``: the record of a
    binary file such as eXtreme Gammon's)."""

    def __init__(self, reason: str, file: str = "", game: int | None = None, line: int | None = None,
                 unit: str = "line"):
        reason = reason.replace("\r", "\\r").replace("\n", "\\n")  # a quoted piece of the file stays on one line
        where = ", ".join(filter(None, [file, f"game {game}" if game else "", f"{unit} {line}" if line else ""]))
        super().__init__(f"{where}: {reason}" if where else reason)
        self.reason, self.file, self.game, self.line, self.unit = reason, file, game, line, unit


@dataclass
class Verdict:
    """Another program's analysis of one decision, as its file keeps it (eXtreme Gammon's, in a .xg file).

    ``best`` is its best play (our notation) or cube action ("double", "no double", "take", "pass");
    ``loss`` what the action taken cost by its reckoning, per unit of the cube (its equity: EMG in a
    match); ``level`` how deep it looked ("4-ply", "XG Roller++", "rollout"); ``choices`` its
    candidates and their equities, in its order (best first).
    """

    engine: str
    level: str
    best: str
    loss: float
    choices: list[tuple[str, float]] = field(default_factory=list)


@dataclass
class Action:
    """One thing a player did.

    ``kind`` is one of :data:`ACTIONS`. ``move``: ``dice`` rolled and ``move`` played
    ("" when the roll could not be played). ``double``: the cube offered at ``value``.
    ``take``, ``drop``: the answer to a double; ``beaver``: taken and redoubled at once
    to ``value``. ``resign``: ``value`` points per cube unit offered (1 single, 2 gammon,
    3 backgammon); ``accept``, ``reject``: the answer to it. ``line`` is where the action
    was read (0 when it was not read from a file). ``analysis`` holds what the file's own
    analysis said of the decisions the action made (:class:`Verdict`, by the kind of
    :class:`engine.review.replay.Decision`: a move's ``move`` and the ``cube`` decision not to
    double before it, a double's ``cube``, an answer's ``take``).
    """

    player: int
    kind: str
    dice: tuple[int, int] | None = None
    move: str = ""
    value: int = 0
    line: int = 0
    comment: str = ""
    analysis: dict[str, Verdict] = field(default_factory=dict)  # by the kind of decision: move, cube, take

    def __post_init__(self):
        if self.kind not in ACTIONS:
            raise GammonError(f"an action is one of {', '.join(ACTIONS)}; got {self.kind!r}")
        if self.player not in (0, 1):
            raise GammonError(f"a player is 0 or 1; got {self.player!r}")


@dataclass
class GameLog:
    """One game: the score before it, its actions in order, and its result as recorded.

    ``winner`` is None when the record stops before the game ends. ``points`` is what
    the winner scored (cube included). ``crawford`` is True for the Crawford game.
    """

    number: int  # 1-based, as in the file
    score: tuple[int, int] = (0, 0)  # before the game, player 0 first
    actions: list[Action] = field(default_factory=list)
    winner: int | None = None
    points: int = 0
    crawford: bool = False
    line: int = 0  # where the game starts in its file
    cube: int = 1  # the cube when the game starts (above 1 after automatic doubles)


@dataclass
class MatchLog:
    """A match to ``length`` points (0: a money session) between ``players``."""

    players: tuple[str, str] = ("player 0", "player 1")
    length: int = 0
    games: list[GameLog] = field(default_factory=list)
    event: str = ""
    date: str = ""  # as the file gives it (.sgf: YYYY-MM-DD)
    place: str = ""
    comment: str = ""
    jacoby: bool = False  # money only
    beavers: bool = False  # money only
    crawford: bool = True  # matches: the Crawford rule is in force
    variant: str = "standard"
    file: str = ""  # the path it was read from, for messages
    unit: str = "line"  # what Action.line and GameLog.line count: the file's lines, or (.xg) its records

    @property
    def final_score(self) -> tuple[int, int]:
        """The score after the last game (its recorded result added)."""
        if not self.games:
            return (0, 0)
        last = self.games[-1]
        score = list(last.score)
        if last.winner is not None:
            score[last.winner] += last.points
        return (score[0], score[1])


class Recorder:
    """A ``watch`` for :func:`engine.play.game.play` that writes what happens in slot ``slot`` as a :class:`MatchLog`.

    Moves are recorded from the events' notation; a pass becomes ``drop``, and an accepted
    or declined resignation ``resign`` followed by ``accept`` or ``reject``.
    """

    def __init__(self, players: tuple[str, str], length: int = 0, slot: int = 0, **details):
        self.log = MatchLog(players=players, length=length, **details)
        self.slot = slot
        self.score = [0, 0]

    def __call__(self, event: GameEvent) -> None:
        if event.slot != self.slot:
            return
        games = self.log.games
        if event.kind == "start":
            games.append(GameLog(len(games) + 1, (self.score[0], self.score[1]), crawford=event.crawford,
                                 cube=max(event.value, 1)))
            return
        game = games[-1]
        if event.kind == "move":
            game.actions.append(Action(event.player, "move", event.dice, event.move))
        elif event.kind == "double":
            game.actions.append(Action(event.player, "double", value=event.value))
        elif event.kind in ("take", "beaver"):
            game.actions.append(Action(event.player, event.kind, value=event.value))
        elif event.kind == "pass":
            game.actions.append(Action(event.player, "drop"))
        elif event.kind == "resign":
            cube = self.cube_value(game)
            game.actions.append(Action(event.player, "resign", value=event.value // cube))
            game.actions.append(Action(1 - event.player, "accept" if event.accepted else "reject"))
        elif event.kind == "end":
            game.winner, game.points = event.player, event.value
            self.score[event.player] += event.value

    @staticmethod
    def cube_value(game: GameLog) -> int:
        """The cube's value at the end of ``game``'s actions so far."""
        value = game.cube
        for action in game.actions:
            if action.kind in ("take", "beaver"):
                value = action.value
        return value
