"""Choosing inside groups of a flat batch: the generator's afterstates come grouped by input
(``Afterstates.offsets``), and players, searches and trainers pick the best of each group."""

from __future__ import annotations

import numpy as np


def best_in_groups(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Flat index of the largest value in each group ``values[offsets[i]:offsets[i+1]]`` (first on ties)."""
    return ranked_in_groups(values, offsets)[offsets[:-1]]


def ranked_in_groups(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Flat indices in group order, best value first within each group (first on ties)."""
    group = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    return np.lexsort((-values, group))


def best_k_in_groups(values: np.ndarray, group: np.ndarray, keep: int) -> np.ndarray:
    """(M,) bool: the ``keep`` largest values of each group (``group``: (M,) labels; first ones on ties)."""
    order = np.lexsort((-values, group))
    labels = group[order]
    rank = np.arange(len(order)) - np.searchsorted(labels, labels)
    chosen = np.zeros(len(values), dtype=bool)
    chosen[order[rank < keep]] = True
    return chosen
