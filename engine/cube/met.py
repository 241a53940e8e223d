"""The match equity table: Kazaross-XG2 to 25-away, extended to 99-away by Zadeh's recursion.

Match winning chances (MWC) before a game, pre-Crawford (a square table) and
post-Crawford (the trailer's chances against a 1-away leader).

To 25-away every entry is Kazaross-XG2 as GNU Backgammon ships it (``data/kazaross_xg2.json``),
or another published table chosen by name (:data:`METS`, :func:`using_met`: Rockwell-Kazaross,
``data/rockwell_kazaross.json``, also as gnubg ships it).
Beyond it, up to ``MAX_AWAY``, entries come from recursions seeded with that table, so each
new entry is built from its neighbours the way the model builds a whole table (docs/rules.md,
"Match equity beyond 25 points"):

* Post-Crawford, the trailer doubles at once, so a game is worth 2 points, or 4 with a
  gammon: ``P(n) = 1/2 [g P(n - 4) + (1 - g) P(n - 2)]`` (P at 0-away or less is 1), with
  the trailer's gammon rate ``g = TRAILER_GAMMONS``.
* The Crawford game (one player 1-away, no cube): ``E(n, 1) = 1/2 [g P(n - 2) + (1 - g) P(n - 1)]``.
* Every other score uses N. Zadeh's model (Management Science 23, 986, 1977), the one gnubg
  uses to generate whole tables: a game is a race between the two players' cash points,
  so ``E(a, b)`` is a weighted mean of winning one point, ``E(a - 1, b)``, and losing one,
  ``E(a, b - 1)``. The weights come from each side's cash point, found from the MWCs a
  pass, a won take and a lost take lead to, with gammon rates ``DOUBLER_GAMMONS`` for the
  side doubling and ``TAKER_GAMMONS`` for the side taking. Where the cube can come back, a
  dead-cube cash point x becomes ``1 - (y + DELTA)(1 - x)``, y the other side's cash point one
  cube level up; both are then widened by ``DELTA_BAR``. Those four are Zadeh's values, gnubg's
  defaults.

Recomputed from the table's own neighbours, the recursions reproduce Kazaross-XG2 within
0.00099 MWC over every score 10- to 25-away (0.00040 post-Crawford, 0.00032 for the Crawford
game); run from the table cut at 9-away alone out to 25-away, within 0.0039 (tests/test_met.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path

import numpy as np

from gammon.engine.errors import GammonError

DATA = Path(__file__).with_name("data")
METS = {"kazaross-xg2": DATA / "kazaross_xg2.json", "rockwell-kazaross": DATA / "rockwell_kazaross.json"}
DEFAULT_MET = "kazaross-xg2"
# The table in use: a setting of the analysis, as in gnubg and XG; a context variable, so that each
# command, thread or web request that picks one keeps it to itself.
_MET: ContextVar[str] = ContextVar("met", default=DEFAULT_MET)
TABLE_AWAY = 25  # the shipped tables' size
# The longest match served: MWC(99, 1) is already 6e-12, and by about 140-away such MWCs fall
# below float64's resolution next to 1, where one more point needed could no longer be told apart.
MAX_AWAY = 99


def check_match_length(length: int, error: type[GammonError] = GammonError) -> None:
    """Refuse a match longer than the engine plays: 1 to MAX_AWAY points (its match equity table's reach);
    0 is money play."""
    if length > MAX_AWAY:
        raise error(f"a {length}-point match: matches are 1 to {MAX_AWAY} points long here")


TRAILER_GAMMONS = 0.30  # fitted: the table's own post-Crawford steps imply 0.29 to 0.32 from 10- to 25-away
DOUBLER_GAMMONS = 0.25
TAKER_GAMMONS = 0.15
DELTA = 0.08
DELTA_BAR = 0.06

Lookup = Callable[[int, int], float]


def met_in_use() -> str:
    """The name of the match equity table in use (:data:`METS`)."""
    return _MET.get()


@contextmanager
def using_met(name: str):
    """Match equities come from the table ``name`` (a key of :data:`METS`) inside the ``with`` block."""
    if name not in METS:
        raise GammonError(f"unknown match equity table {name!r}; known: {', '.join(METS)}")
    token = _MET.set(name)
    try:
        yield
    finally:
        _MET.reset(token)


@lru_cache(maxsize=len(METS))
def _tables(name: str = DEFAULT_MET) -> tuple[np.ndarray, np.ndarray]:
    """The table ``name``'s pre-Crawford (TABLE_AWAY, TABLE_AWAY) and post-Crawford (TABLE_AWAY,) entries."""
    path = METS[name]
    doc = json.loads(path.read_text())
    pre = np.array(doc["pre_crawford"], dtype=np.float64)
    post = np.array(doc["post_crawford"], dtype=np.float64)
    if pre.shape != (TABLE_AWAY, TABLE_AWAY) or post.shape != (TABLE_AWAY,):
        raise ValueError(f"{path}: expected {TABLE_AWAY}x{TABLE_AWAY} and {TABLE_AWAY} entries")
    return pre, post


def _cash_point(mwc: Lookup, a: int, b: int, cube: int) -> float:
    """The game-winning chance at which the player ``a``-away doubles the one ``b``-away out, the cube
    at ``cube`` and dead after the take: the taker is indifferent between passing and taking."""
    # When any win of the doubled cube wins the doubler the match and not the taker, the taker
    # redoubles at once, having nothing to lose: the take is played for twice as much.
    stake = 2 * cube if a <= 2 * cube < b else cube
    passed = mwc(a - cube, b)
    take_won = DOUBLER_GAMMONS * mwc(a - 4 * stake, b) + (1 - DOUBLER_GAMMONS) * mwc(a - 2 * stake, b)
    take_lost = TAKER_GAMMONS * mwc(a, b - 4 * stake) + (1 - TAKER_GAMMONS) * mwc(a, b - 2 * stake)
    return (passed - take_lost) / (take_won - take_lost)


def _zadeh(mwc: Lookup, a: int, b: int) -> float:
    """Zadeh's MWC at ``a``-away vs ``b``-away (both 2 or more) from ``mwc`` at the scores a game can lead to."""
    cube = 1
    while 2 * cube < min(a, b):
        cube *= 2
    # Start at the first cube level whose redouble one player could not use (needing no more than twice
    # the cube): dead cash points there. Below it the recube is alive, worth the other side's cash point
    # one level up, so each cash point is moved by that.
    mine, theirs = _cash_point(mwc, a, b, cube), _cash_point(mwc, b, a, cube)
    while cube > 1:
        cube //= 2
        mine, theirs = (1 + (theirs + DELTA) * (_cash_point(mwc, a, b, cube) - 1),
                        1 + (mine + DELTA) * (_cash_point(mwc, b, a, cube) - 1))
    win, lose = theirs + DELTA_BAR - 0.5, mine + DELTA_BAR - 0.5
    return (win * mwc(a - 1, b) + lose * mwc(a, b - 1)) / (win + lose)


def _extend(pre: np.ndarray, post: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``pre`` (n, n) and ``post`` (n,), n >= 4, continued to ``size``-away by the module docstring's recursions."""
    n = len(post)
    p = np.zeros(size + 1)  # p[k]: post-Crawford trailer k-away, 1-based like e
    p[1:n + 1] = post
    for k in range(n + 1, size + 1):
        p[k] = 0.5 * (TRAILER_GAMMONS * p[k - 4] + (1 - TRAILER_GAMMONS) * p[k - 2])
    e = np.zeros((size + 1, size + 1))  # e[a, b], 1-based; row and column 0 are never read
    e[1:n + 1, 1:n + 1] = pre

    def mwc(x: int, y: int) -> float:
        return 1.0 if x <= 0 else 0.0 if y <= 0 else e[x, y]

    # Only scores with smaller totals enter an entry, and each is computed from the trailer's side
    # and mirrored, so MWC(a, b) + MWC(b, a) = 1 holds exactly.
    for a in range(n + 1, size + 1):
        for b in range(1, a + 1):
            if b == 1:
                e[a, 1] = 0.5 * (TRAILER_GAMMONS * p[a - 2] + (1 - TRAILER_GAMMONS) * p[a - 1])
            else:
                e[a, b] = _zadeh(mwc, a, b)
            e[b, a] = 1.0 - e[a, b]
    return e[1:, 1:], p[1:]


@lru_cache(maxsize=len(METS))
def _extended(name: str = DEFAULT_MET) -> tuple[np.ndarray, np.ndarray]:
    """The pre-Crawford (MAX_AWAY, MAX_AWAY) and post-Crawford (MAX_AWAY,) tables, the table ``name`` extended."""
    return _extend(*_tables(name), MAX_AWAY)


def match_equity(my_away: int, opp_away: int, crawford_done: bool = False) -> float:
    """My match winning chance needing ``my_away`` points against ``opp_away``, before a game.

    0-away means the match is won. ``crawford_done`` matters only when a player is
    1-away: False means the next game is the Crawford game, True that it has been played
    (the game is post-Crawford). Scores to 25-away read the table itself; longer ones, to
    ``MAX_AWAY``, its extension (computed once, on first use).
    """
    if min(my_away, opp_away) < 0 or my_away == opp_away == 0:
        raise GammonError(f"no match score is {my_away}-away vs {opp_away}-away")
    if my_away == 0:
        return 1.0
    if opp_away == 0:
        return 0.0
    if max(my_away, opp_away) > MAX_AWAY:
        raise GammonError(f"match equity is computed to {MAX_AWAY}-away; got {my_away} vs {opp_away}")
    pre, post = (_tables if max(my_away, opp_away) <= TABLE_AWAY else _extended)(_MET.get())
    if crawford_done and my_away == 1:
        return float(1.0 - post[opp_away - 1])
    if crawford_done and opp_away == 1:
        return float(post[my_away - 1])
    return float(pre[my_away - 1, opp_away - 1])
