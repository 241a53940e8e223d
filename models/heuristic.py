"""A hand-written pip-count and safety evaluator (numpy only): the simplest non-random baseline.

``heuristic_value(boards)`` scores afterstates from the side that just moved (the
layout of :mod:`engine.rules.board`, that side as the mover). Higher is better. Terms, in
pips so they add up sensibly:

- race: opponent's pip count minus ours;
- safety: each of our blots costs 4 pips per opponent checker within 12 pips behind
  it (or on the bar, for blots in the opponent's entry zone), capped at 6 shooters;
- blocking: each made point (2+ checkers) in front of opponent checkers is worth
  4 pips, home-board points 6 (the home board is where the opponent enters);
- hitting: each opponent checker on the bar is worth 10 pips.

It is not meant to be strong; it plays recognisable backgammon and beats a random
player by a wide margin, which makes it a useful yardstick and demo opponent.

On Acey-Deucey's boards (28 cells) a checker still to enter counts as one on the bar,
behind everything: 25 pips in the race, and the opponent's are shooters at the blots of
his entry zone and are still to pass every point made; only hit checkers earn the
hitting bonus.

Those terms assume backgammon's mirrored board (blots, shooters, the bar) and lose to a
random player in Fevga and Moultezim, where nothing is hit. ``same_direction_value`` is
the heuristic of those games: hold as many points as possible (a lone checker holds
one, and every point held is one the opponent cannot land on), then race.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.rules.board import BOARD_SIZE, pip_counts
from gammon.engine.rules.variants import OPPONENT_UNENTERED, ROTATED

_POINTS = np.arange(1, 25)


def heuristic_value(boards: np.ndarray) -> np.ndarray:
    """(M, 26) afterstates (or (M, 28) of Acey-Deucey) -> (M,) values for the side that just moved."""
    b = np.asarray(boards, dtype=np.int64)
    pips = pip_counts(b)
    race = pips[:, 1] - pips[:, 0]
    to_enter = b[:, OPPONENT_UNENTERED:] if b.shape[1] > BOARD_SIZE else np.zeros((len(b), 1), dtype=np.int64)
    entering = b[:, [0]] + to_enter  # the opponent's checkers that enter on our 1..6: hit, or never entered yet

    points = b[:, 1:25]
    mine = np.maximum(points, 0)
    theirs = np.maximum(-points, 0)  # opponent checkers; they move towards our higher points
    # Opponent checkers at our points q < p within 12 pips threaten a blot on p.
    cum = np.concatenate([np.zeros((len(b), 1), dtype=np.int64), np.cumsum(theirs, axis=1)], axis=1)
    lo = np.maximum(_POINTS - 12, 1)
    shooters = cum[:, _POINTS - 1] - cum[:, lo - 1]
    shooters = shooters + np.where(_POINTS <= 12, entering, 0)  # they enter on our 1..6 and go on
    blots = mine == 1
    exposure = (np.minimum(shooters, 6) * blots).sum(axis=1)

    made = mine >= 2
    # some opponent checker at or below this point (or still to enter) still has to pass
    behind = (np.cumsum(theirs, axis=1) + to_enter) > 0
    block = (made & behind).sum(axis=1) + (made[:, :6]).sum(axis=1) * 0.5

    return race - 4.0 * exposure + 4.0 * block + 10.0 * b[:, 0]


# A point held outweighs any pip difference one roll can make (at most 24, with 6-6), so
# points come first and the race breaks ties.
POINT_HELD = 25.0


def same_direction_value(boards: np.ndarray) -> np.ndarray:
    """(M, 26) afterstates of Fevga or Moultezim -> (M,) values for the side that just moved:
    points held, then the race (pip counts along each side's own track)."""
    b = np.asarray(boards, dtype=np.int64)
    held = (b[:, 1:25] > 0).sum(axis=1)
    pips = pip_counts(b, ROTATED)
    return POINT_HELD * held + pips[:, 1] - pips[:, 0]
