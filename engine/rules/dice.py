"""The dice: every table of rolls the engine, the nets and the trainers read, in one place.

A roll is two dice. Of the 36 ordered rolls, the 21 distinct ones weigh 1/36 (a double)
or 2/36 (the two orders of any other roll). An opening roll is one die per player,
re-rolled while they are equal (docs/rules.md), so it is never a double: 30 ordered rolls,
15 distinct, equally likely.
"""

from __future__ import annotations

import numpy as np

# The 21 distinct rolls, low die first, and their chances out of 36.
ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.int8)
ROLL_WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0, 2.0) / 36.0

# _ROLL_INDEX[a - 1, b - 1]: where the roll a-b, in either order, stands in ROLLS.
_ROLL_INDEX = np.zeros((6, 6), dtype=np.int64)
_ROLL_INDEX[ROLLS[:, 0] - 1, ROLLS[:, 1] - 1] = _ROLL_INDEX[ROLLS[:, 1] - 1, ROLLS[:, 0] - 1] = np.arange(len(ROLLS))


def roll_index(dice) -> np.ndarray:
    """(N,) the index in ROLLS of each roll of ``dice`` (N, 2), its dice in either order."""
    dice = np.asarray(dice)
    return _ROLL_INDEX[dice[:, 0] - 1, dice[:, 1] - 1]


# The 36 ordered rolls (die 0, die 1), each weighing 1/36: stratified first rolls of rollouts.
ORDERED_ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, 7)], dtype=np.int64)

# The 15 distinct opening rolls, and the 30 ordered ones (player 0's die first).
OPENING_ROLLS = ROLLS[ROLLS[:, 0] != ROLLS[:, 1]]
ORDERED_OPENING_ROLLS = ORDERED_ROLLS[ORDERED_ROLLS[:, 0] != ORDERED_ROLLS[:, 1]]
