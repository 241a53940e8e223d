"""The doubling cube and the score, as the player on roll sees them: one type for money and match play.

A :class:`Cube` holds everything a cube decision or a cubeful equity depends on besides
the position: the cube's value and who owns it, and either the money options (Jacoby,
beavers) or the match score (points each player still needs, the Crawford game). Games
keep their cube as arrays indexed by player (:mod:`engine.play.players`); :meth:`Cube.seen_by`
is the one conversion from that table view to a player's view. Automatic doubles
are a rule of how a money game starts (``engine.play.players.Rules``), not part of a decision.

:func:`cube_actions` is the one rule that turns the doubler's three cubeful equities
(no double, double/take, double/pass) into a double and an answer; :func:`verdict`
says it in the usual words.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from gammon.engine.cube.met import MAX_AWAY, TABLE_AWAY, match_equity
from gammon.engine.errors import GammonError

OWNERS = ("centered", "me", "opponent")  # "me" is the player on roll
PASS, TAKE, BEAVER = 0, 1, 2  # answers to a double
RESPONSES = ("pass", "take", "beaver")


@dataclass(frozen=True)
class Cube:
    """The cube as the player on roll sees it; ``away`` None is money play."""

    value: int = 1
    owner: str = "centered"  # "centered", "me" (the player on roll) or "opponent"
    away: tuple[int, int] | None = None  # match: points the player on roll / the opponent still need
    crawford: bool = False  # match: this game is the Crawford game (no doubling)
    jacoby: bool = False  # money: gammons count single while the cube is centered
    beavers: bool = False  # money: the doubled player may beaver

    def __post_init__(self):
        if self.owner not in OWNERS:
            raise GammonError(f"cube owner is 'centered', 'me' or 'opponent'; got {self.owner!r}")
        if self.value < 1 or self.value & (self.value - 1):
            raise GammonError(f"the cube value is a power of two; got {self.value}")
        if self.away is None:
            if self.crawford:
                raise GammonError("the Crawford game is a match rule; a money cube has no score")
            return
        my_away, opp_away = self.away
        if not (1 <= my_away <= MAX_AWAY and 1 <= opp_away <= MAX_AWAY):
            raise GammonError(f"each player is 1- to {MAX_AWAY}-away (Kazaross-XG2's 1- to {TABLE_AWAY}-away, "
                             f"extended); got {my_away} and {opp_away}")
        if self.crawford and 1 not in (my_away, opp_away):  # both 1-away: a 1-point match, its cube dead from the start
            raise GammonError("the Crawford game needs a player 1-away")
        if self.jacoby or self.beavers:
            raise GammonError("Jacoby and beavers are money rules; a match cube has neither")

    # -- constructors ----------------------------------------------------------------------
    @classmethod
    def seen_by(cls, player: int, value: int, owner: int, length: int = 0, score=(0, 0), crawford: bool = False,
                jacoby: bool = False, beavers: bool = False) -> Cube:
        """``player``'s view of a table's cube: ``owner`` is a player index (-1 centered), ``score`` by player.

        ``length`` 0 is money play (``score`` and ``crawford`` unused); otherwise Jacoby
        and beavers do not apply.
        """
        word = "centered" if owner < 0 else "me" if owner == player else "opponent"
        if not length:
            return cls(int(value), word, jacoby=jacoby, beavers=beavers)
        away = (int(length - score[player]), int(length - score[1 - player]))
        return cls(int(value), word, away, bool(crawford))

    @classmethod
    def from_state(cls, state) -> Cube:
        """The cube of a parsed position (:class:`engine.records.formats.MatchState`; None: a centered 1-cube)."""
        if state is None:
            return cls()
        return cls.seen_by(state.on_roll, state.cube, state.cube_owner, state.match_length, state.score,
                           state.crawford, jacoby=state.jacoby, beavers=state.beavers)

    @classmethod
    def from_fibs(cls, fibs, player: int) -> Cube:
        """The cube of a FIBS board (:class:`engine.records.fibs.FibsBoard`) seen by ``player``: 0 the bot,
        1 its opponent.

        The may-double flags tell who holds the cube (before any pending double): both,
        centered; only one, that player.
        """
        owner = -1 if fibs.bot_may_double and fibs.opponent_may_double else 0 if fibs.bot_may_double else 1
        return cls.seen_by(player, max(fibs.cube, 1), owner, fibs.match_length, fibs.score, fibs.crawford)

    # -- views -----------------------------------------------------------------------------
    @property
    def money(self) -> bool:
        return self.away is None

    @property
    def my_away(self) -> int:
        return self.away[0]

    @property
    def opp_away(self) -> int:
        return self.away[1]

    @property
    def post_crawford(self) -> bool:
        """A match game after the Crawford game: someone is 1-away and this is not the Crawford game."""
        return not self.money and not self.crawford and 1 in self.away

    def owner_index(self, player: int) -> int:
        """The owner as a table numbers players (-1 centered), this cube being ``player``'s view."""
        return {"centered": -1, "me": player, "opponent": 1 - player}[self.owner]

    def swapped(self) -> Cube:
        """The same cube seen by the other player."""
        owner = {"me": "opponent", "opponent": "me"}.get(self.owner, "centered")
        return replace(self, owner=owner, away=None if self.money else (self.opp_away, self.my_away))

    def doubled(self) -> Cube:
        """The cube after I double and the opponent takes (theirs now, at twice the value)."""
        return replace(self, value=2 * self.value, owner="opponent")

    def for_money(self) -> Cube:
        """The same cube valued as in money play (the score dropped): eval's cubeful column and money rollouts."""
        return replace(self, away=None, crawford=False)

    def after(self, points: int) -> float:
        """Match play: my MWC once this game ends with ``points`` won by me (negative: won by the opponent).

        Once a player is 1-away, the Crawford game has come (this one) or gone, so every
        later game is post-Crawford.
        """
        done = self.crawford or 1 in self.away
        if points > 0:
            return match_equity(max(self.my_away - points, 0), self.opp_away, done)
        return match_equity(self.my_away, max(self.opp_away + points, 0), done)


@dataclass(frozen=True)
class CubeDecision:
    """Cubeful equities (per unit of the current cube) and the verdict in the usual words."""

    no_double: float
    double_take: float
    double_pass: float
    action: str  # "double" or "no_double"
    response: str  # "take", "pass" or "beaver"
    verdict: str
    take_point: float  # the taker's cubeless winning chance needed to take


# -- the double/take rule ------------------------------------------------------------------


def cube_actions(no_double, double_take, double_pass, beavers=False) -> tuple[np.ndarray, np.ndarray]:
    """The doubler's three cubeful equities -> (doubles, answer: PASS, TAKE or BEAVER), batched.

    The doubler doubles when both answers leave him better off than not doubling. The
    taker passes when taking is worse for him than paying (double/take above
    double/pass for the doubler), beavers when taking is good for him and beavers are
    allowed, and otherwise takes.
    """
    nd, dt, dp = (np.asarray(v, dtype=np.float64) for v in (no_double, double_take, double_pass))
    doubles = np.minimum(dt, dp) > nd
    answer = np.where(dt > dp, PASS, np.where(np.asarray(beavers) & (dt < 0.0), BEAVER, TAKE))
    return doubles, answer


def best_cube_value(no_double, double_take, double_pass):
    """What the position is worth to the player on roll when he and the taker both choose best (:func:`cube_actions`):
    max(no double, min(double/take, double/pass)); numbers or arrays."""
    return np.maximum(no_double, np.minimum(double_take, double_pass))


def best_cube_words(no_double: float, double_take: float, double_pass: float) -> tuple[str, str]:
    """The best doubling decision and answer by :func:`cube_actions`, in the words analyses compare:
    ("double" or "no double", "take" or "pass")."""
    doubles, answer = cube_actions(no_double, double_take, double_pass)
    return "double" if doubles else "no double", "pass" if answer == PASS else "take"


def verdict(no_double: float, double_take: float, double_pass: float, cube: Cube) -> tuple[str, str, str]:
    """(action "double"/"no_double", response "take"/"pass"/"beaver", the verdict in gnubg's words)."""
    doubles, answer = cube_actions(no_double, double_take, double_pass, cube.beavers)
    response = RESPONSES[int(answer)]
    word = "redouble" if cube.owner == "me" else "double"
    if doubles:
        return "double", response, f"{word.capitalize()}, {response}"
    if no_double > double_pass:
        return "no_double", response, f"Too good to {word}, {response}"
    return "no_double", response, f"No {word}, {response}"
