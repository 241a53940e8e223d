"""The race counts players use at the board, and the effective pip count from the one-sided database.

Every function takes a batch: boards ``(N, 26)`` in the one layout (engine/rules/board.py) or
their pip counts ``(N, 2)``, mover first; each is meant for races (:func:`require_race`).
A count method reads as a :class:`RaceCount`: the two sides' counts as the method compares
them, its own figure, its winning chance where one is published, and its money-game cube
advice by the thresholds its author published. The comparisons are made in whole numbers
(tenths, thirds, hundredths) so that a position on a threshold falls on the side its
author wrote, not on the side a float's rounding picks.

Where the sources part ways, the original author's version is used where it could be found,
and each docstring says which one and why; the published worked examples are checked in
tests/test_race_counts.py.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from gammon.engine.errors import BoardError
from gammon.engine.rules.board import is_race, mover_counts, opponent_counts, pip_counts, pips_of
from gammon.engine.search.bearoff import POINTS, OneSided, default_databases, position_index

PIPS_PER_ROLL = 49 / 6  # the average roll, doubles moving four times: 294 pips / 36 rolls = 8.1667
CROSSOVERS = np.arange(25) // 6  # quarters still to cross by a checker on own point i + 1 (the bar: 4)


class RaceCount(NamedTuple):
    """One method's reading of a batch of races; each field an array over the boards, None where the method
    has no such figure."""

    counts: np.ndarray | None  # (N, 2) mover's and opponent's counts as compared: the mover's after its on-roll step
    value: np.ndarray | None  # (N,) the method's own figure: Kleinman's K, the 8-9-12 rule's lead
    win: np.ndarray | None  # (N,) the method's cubeless winning chance for the mover
    double: np.ndarray  # (N,) bool: the mover should double a centered cube
    redouble: np.ndarray  # (N,) bool: the mover should redouble a cube he owns
    take: np.ndarray  # (N,) bool: the opponent should take


def require_race(boards) -> None:
    """Refuse, in one line, boards that are not races with checkers left on both sides."""
    b = np.asarray(boards).reshape(-1, np.shape(boards)[-1])
    if not is_race(b).all():
        raise BoardError("race counts apply to races only: the two sides still meet (contact)")
    if (pip_counts(b) == 0).any():
        raise BoardError("the game is over: a side has borne off every checker")


def _sides(boards) -> np.ndarray:
    """(N, 2, 25) checkers of the mover and of the opponent, each in his own numbering ([..., 24] the bar)."""
    b = np.asarray(boards)
    return np.stack([mover_counts(b), opponent_counts(b)], axis=-2).astype(np.int64)


def _excess(counts: np.ndarray) -> np.ndarray:
    """How far each side's figure exceeds the other side's, 0 where it does not: (N, 2) -> (N, 2)."""
    return np.maximum(counts - counts[:, ::-1], 0)


# -- the counts -------------------------------------------------------------------------------


def keith_counts(boards) -> np.ndarray:
    """(N, 2) Keith counts, before the on-roll step: each side's pip count plus 2 for each checker more
    than 1 on its 1-point, 1 for each more than 1 on its 2-point, 1 for each more than 3 on its
    3-point, and 1 for each empty 4-, 5- and 6-point (Tom Keith, bkgm.com glossary, "Keith Count")."""
    sides = _sides(boards)
    stacks = (2 * np.maximum(sides[..., 0] - 1, 0) + np.maximum(sides[..., 1] - 1, 0)
              + np.maximum(sides[..., 2] - 3, 0))
    return pips_of(sides) + stacks + (sides[..., 3:POINTS] == 0).sum(-1)


def keith(boards) -> RaceCount:
    """Tom Keith's count (:func:`keith_counts`): the player on roll adds one seventh of his count, rounded
    down; he doubles if his count exceeds the opponent's by no more than 4, redoubles by no more than 3, and
    the opponent takes if the doubler's count exceeds his own by at least 2 (Keith's thresholds, as the
    bkgm.com glossary and bgonline.org/keith.html give them)."""
    counts = keith_counts(boards)
    counts[:, 0] += counts[:, 0] // 7
    excess = counts[:, 0] - counts[:, 1]
    return RaceCount(counts, None, None, excess <= 4, excess <= 3, excess >= 2)


def thorp_counts(boards) -> np.ndarray:
    """(N, 2) Thorp counts, before the on-roll step: each side's pip count plus 2 for each checker left,
    plus 1 for each checker on its 1-point, minus 1 for each home-board point it holds (Edward O. Thorp,
    as Bill Robertie's Advanced Backgammon and the bkgm.com glossary give it)."""
    sides = _sides(boards)
    return (pips_of(sides) + 2 * sides.sum(-1) + sides[..., 0] - (sides[..., :POINTS] > 0).sum(-1))


def thorp(boards) -> RaceCount:
    """Thorp's count (:func:`thorp_counts`): the player on roll adds 10% to his count L if it is more than
    30; with T the opponent's, he doubles if L <= T + 2, redoubles if L <= T + 1, and the opponent takes if
    T <= L + 2. Thorp's own text (The Mathematics of Gambling) was not at hand: these are the lines the
    bkgm.com glossary gives as "Thorp advises", which Chuck Bower's write-up of Robertie's (1997) matches;
    Simon Woodhead's 1991 post draws the first two strictly and gnubg the take line so, and some round the
    10% down, which Bower advises against (1999): it is not rounded here. The winning chance is Bower's
    interpolation, 74% + 2% for each point of T - L (rec.games.backgammon, 1997 and 1998)."""
    raw = thorp_counts(boards)
    leader_tenths = np.where(raw[:, 0] > 30, 11, 10) * raw[:, 0]
    trailer_tenths = 10 * raw[:, 1]
    counts = np.stack([leader_tenths / 10, raw[:, 1]], axis=-1)
    win = np.clip(0.74 + 0.02 * (trailer_tenths - leader_tenths) / 10, 0.0, 1.0)
    return RaceCount(counts, None, win, leader_tenths <= trailer_tenths + 20, leader_tenths <= trailer_tenths + 10,
                     trailer_tenths <= leader_tenths + 20)


def isight_counts(boards) -> np.ndarray:
    """(N, 2) Isight counts: each side's pip count plus 1 for each checker it has left more than the other
    side, 2 for each checker more than 2 on its 1-point, 1 for each more than 2 on its 2-point, 1 for each
    more than 3 on its 3-point, 1 for each empty 4-, 5- or 6-point where the other side holds its own, and
    1 for each crossover it needs more than the other side (Axel Reichert, "Improved Cube Handling in
    Races: Insights with Isight", 2014, p. 28; the same as gnubg's IsightCount)."""
    sides = _sides(boards)
    stacks = (2 * np.maximum(sides[..., 0] - 2, 0) + np.maximum(sides[..., 1] - 2, 0)
              + np.maximum(sides[..., 2] - 3, 0))
    gaps = ((sides[..., 3:POINTS] == 0) & (sides[:, ::-1, 3:POINTS] > 0)).sum(-1)
    return (pips_of(sides) + _excess(sides.sum(-1)) + stacks + gaps + _excess(sides @ CROSSOVERS))


def isight(boards) -> RaceCount:
    """Reichert's Isight (:func:`isight_counts`): with L the count of the player on roll and T the
    opponent's, the metric P = 80 - L/3 + 2 (T - L) estimates the winning chance in percent (the chance is P
    held to 0..100); he doubles if P >= 68, redoubles if P >= 70, and the opponent takes if P <= 76
    (Reichert, p. 28)."""
    counts = isight_counts(boards)
    leader, trailer = counts[:, 0], counts[:, 1]
    p_thirds = 240 - leader + 6 * (trailer - leader)  # 3 P, in whole numbers
    return RaceCount(counts, None, np.clip(p_thirds / 300, 0.0, 1.0), p_thirds >= 204, p_thirds >= 210, p_thirds <= 228)


def kleinman(pips) -> RaceCount:
    """Danny Kleinman's count from the pip counts ``(N, 2)``: D = the opponent's count - the mover's + 4,
    S = the sum of the counts - 4 (the 4 pips are the worth of being on roll), K = D^2 / S; the race is
    taken as normal, so the mover wins with chance (1 + erf(D / (2 sqrt S))) / 2 (gnubg's KleinmanCount;
    Oystein Johansen's regressions of Kleinman's table, rec.games.backgammon 2001, agree within 0.3%).
    Kleinman's own cube criteria were not at hand; by the key values of his table as Johansen gives them,
    the mover doubles at K >= 0.5, redoubles at K >= 0.7, and K = 1.2 is the last take, only while D > 0
    (the mover the favourite). A pip sum of 4 or less (D > 0 there) is the formula's limit: K infinite,
    the race won."""
    pips = np.asarray(pips, dtype=np.int64)
    lead = pips[:, 1] - pips[:, 0] + 4
    spread = pips.sum(-1) - 4
    z = np.where(spread > 0, lead / (2 * np.sqrt(np.maximum(spread, 1))), np.inf)
    win = (1 + np.vectorize(math.erf, otypes=[float])(z)) / 2
    ahead = lead > 0
    return RaceCount(None, 4 * z * z, win, ahead & (2 * lead**2 >= spread), ahead & (10 * lead**2 >= 7 * spread),
                     ~ahead | (5 * lead**2 <= 6 * spread))


def eight_nine_twelve(pips) -> RaceCount:
    """The 8-9-12 rule from the pip counts ``(N, 2)``: with the mover's lead as a share of his own count,
    he doubles at 8% or more, redoubles at 9% or more, and the opponent takes at 12% or less (Simon Woodhead,
    rec.games.backgammon 1991, and the nextgammon glossary, which name no author; the pass above 12% is Bill
    Robertie's, Advanced Backgammon). The winning chance is Chuck Bower's conversion, 54% + twice the lead
    (rec.games.backgammon, 1998)."""
    pips = np.asarray(pips, dtype=np.int64)
    mine, theirs = pips[:, 0], pips[:, 1]
    percent_lead = 100 * (theirs - mine)  # in hundredths of the mover's count, to compare exactly
    lead = (theirs - mine) / mine
    return RaceCount(None, lead, np.clip(0.54 + 2 * lead, 0.0, 1.0), percent_lead >= 8 * mine,
                     percent_lead >= 9 * mine, percent_lead <= 12 * mine)


def race_counts(boards) -> dict[str, RaceCount]:
    """Every count of races ``(N, 26)``, by name, in the order a table shows them."""
    pips = pip_counts(boards)
    return {"Keith": keith(boards), "Thorp": thorp(boards), "Isight": isight(boards),
            "Kleinman": kleinman(pips), "8-9-12": eight_nine_twelve(pips)}


# -- effective pip count ---------------------------------------------------------------------


def effective_pip_counts(boards, one: OneSided | None = None) -> np.ndarray:
    """(N, 2) effective pip counts of the mover and the opponent: the expected rolls to bear off, each
    roll played to minimise it, times the average roll of 49/6 pips (Walter Trice's definition, gnubg's
    8.167), exact from the one-sided database ``one`` (default: the cached 15-checker one). A side with a
    checker outside its home board lies beyond the database: NaN (the estimates there would be a net's)."""
    sides = _sides(boards)
    home = sides[..., POINTS:].sum(-1) == 0
    if not home.any():  # a long race: the databases need not even be loaded
        return np.full(home.shape, np.nan)
    one = one if one is not None else default_databases().one
    rolls = one.mean_rolls[position_index(np.where(home[..., None], sides[..., :POINTS], 0))]
    return np.where(home, rolls * PIPS_PER_ROLL, np.nan)
