"""Choosing inside groups of a flat batch: the generator's afterstates come grouped by input
(``Afterstates.offsets``), and players, searches and trainers pick the best of each group.

Every group holds at least one value, as every input has at least one play, and no value is NaN. The best of each
group is found in one pass (``reduceat``), not by sorting the whole batch: a search asks for it
some hundred thousand values at a time.
"""

from __future__ import annotations

import numpy as np


def best_in_groups(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Flat index of the largest value in each group ``values[offsets[i]:offsets[i+1]]`` (first on ties)."""
    return _first_best(np.asarray(values), np.asarray(offsets), np.zeros(len(values), dtype=bool))


def _first_best(values: np.ndarray, offsets: np.ndarray, taken: np.ndarray) -> np.ndarray:
    """Each group's first index of its largest value among those not ``taken`` (len(values) where none is left)."""
    starts, sizes = offsets[:-1], np.diff(offsets)
    left = np.where(taken, -np.inf, values)
    at_top = (left == np.repeat(np.maximum.reduceat(left, starts), sizes)) & ~taken
    return np.minimum.reduceat(np.where(at_top, np.arange(len(values)), len(values)), starts)


def ranked_in_groups(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Flat indices in group order, best value first within each group (first on ties)."""
    group = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    return np.lexsort((-values, group))


def best_k_in_groups(values: np.ndarray, group: np.ndarray, keep: int) -> np.ndarray:
    """(M,) bool: the ``keep`` largest values of each group (``group``: (M,) labels; first ones on ties)."""
    values, group = np.asarray(values), np.asarray(group)
    chosen = np.zeros(len(values), dtype=bool)
    if len(values) == 0:
        return chosen
    order = None
    if (np.diff(group) < 0).any():  # labels out of order: gather each group together, keeping its order
        order = np.argsort(group, kind="stable")
        values, group = values[order], group[order]
    offsets = np.concatenate([[0], np.flatnonzero(np.diff(group)) + 1, [len(group)]])
    taken = np.zeros(len(values), dtype=bool)
    for _ in range(keep):  # a few passes, each taking every group's best of the rest
        pick = _first_best(values, offsets, taken)
        taken[pick[pick < len(values)]] = True
    if order is None:
        return taken
    chosen[order] = taken
    return chosen
