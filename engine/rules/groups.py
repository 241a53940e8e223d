"""Choosing inside groups of a flat batch: the generator's afterstates come grouped by input
(``Afterstates.offsets``), and players, searches and trainers pick the best of each group.

Every group holds at least one value, as every input has at least one play, and no value is NaN. The best of each
group is found in one pass over the batch (``reduceat``), the best few in a pass each, not by sorting
the whole batch: a search asks for them some hundred thousand values at a time.
"""

from __future__ import annotations

import numpy as np

try:  # distinct int8 rows in C (engine/rules/_native.c); an install without a C compiler finds them below
    from gammon.engine.rules._native import distinct as compiled_distinct
except ImportError:
    compiled_distinct = None


def best_in_groups(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Flat index of the largest value in each group ``values[offsets[i]:offsets[i+1]]`` (first on ties)."""
    return _first_best(np.asarray(values), np.asarray(offsets))


def _first_best(values: np.ndarray, offsets: np.ndarray, taken: np.ndarray | None = None) -> np.ndarray:
    """Each group's first index of its largest value among those not ``taken`` (len(values) where none is left)."""
    starts, sizes = offsets[:-1], np.diff(offsets)
    left = values if taken is None else np.where(taken, -np.inf, values)
    at_top = left == np.repeat(np.maximum.reduceat(left, starts), sizes)
    if taken is not None:
        at_top &= ~taken
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
        pick = pick[pick < len(values)]
        if len(pick) == 0:  # every group taken whole
            break
        taken[pick] = True
    if order is None:
        return taken
    chosen[order] = taken
    return chosen


# -- distinct rows ---------------------------------------------------------------------------------------

# Odd multipliers for the rounds of the hash table in :func:`representatives` (Fibonacci hashing).
# Each round settles most rows still pending (about 9 in 10), so 16 rounds see any batch through.
_TABLE_MULTIPLIERS = [np.uint64((0x9E3779B97F4A7C15 * (2 * r + 1)) % 2**64) for r in range(16)]


def representatives(keys: np.ndarray) -> np.ndarray | None:
    """For each row, the index of one row of the same hash, the same for all of them; None where 16 rounds
    left some row unsettled (pathological).

    An open hash table built by scatter: every row writes its index into the slot of its
    hash and reads back the slot's last writer. A row whose hash equals its writer's has found its
    representative (rows of one hash share a slot, so they settle together); rows that met a
    different hash retry in a fresh table with another multiplier. No sort, O(rows).
    """
    representative = np.arange(len(keys))
    pending = representative.copy()
    for multiplier in _TABLE_MULTIPLIERS:
        if len(pending) == 0:
            return representative
        bits = max(4, (4 * len(pending) - 1).bit_length())
        slot = ((keys[pending] * multiplier) >> np.uint64(64 - bits)).astype(np.intp)
        table = np.empty(1 << bits, dtype=np.intp)
        table[slot] = pending
        writer = table[slot]
        settled = keys[writer] == keys[pending]
        representative[pending[settled]] = writer[settled]
        pending = pending[~settled]
    return representative if len(pending) == 0 else None


# Random odd weights of a row's cells: a row's hash is the sum of its cells times their weights (mod 2**64).
_ROW_WEIGHTS = np.random.default_rng(0x6A6E).integers(0, 2**63, size=64, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)`` of a batch of rows of small integers (boards, one side's counts): the index of one
    row of each distinct row (its first), and each row's distinct row (``rows[first][inverse]`` is ``rows``);
    the distinct rows come in the order they first appear.

    A search's batches repeat afterstates (one play reached by several rolls, one position
    under different plays of the roll before): each is evaluated once. Rows are hashed and
    grouped by :func:`representatives`, every row then checked against its representative;
    a collision (or a row wider than 64) falls back to sorting. int8 rows go to the same table in C
    (``engine/rules/_native.c``) where the install built it: the same answer.
    """
    r = np.ascontiguousarray(rows)
    if compiled_distinct is not None and r.dtype == np.int8 and r.ndim == 2 and r.shape[1] > 0:
        first, inverse = compiled_distinct(r, r.shape[1])
        return tuple(np.frombuffer(part, dtype=np.int64).astype(np.intp) for part in (first, inverse))
    representative = None
    if r.shape[1] <= len(_ROW_WEIGHTS):
        keys = r.astype(np.int64).view(np.uint64) @ _ROW_WEIGHTS[: r.shape[1]]
        # the last writer of the reversed rows: each row's first copy, so that the distinct rows come in the
        # order they first appear and a batch holding the same rows is evaluated as the same batch
        backwards = representatives(keys[::-1])
        representative = None if backwards is None else len(r) - 1 - backwards[::-1]
    if representative is None or not np.array_equal(r[representative], r):  # a collision: sort instead
        _, first, inverse = np.unique(r.view(f"V{r.shape[1] * r.itemsize}").ravel(), return_index=True,
                                      return_inverse=True)
        representative = first[inverse.ravel()]
    first = np.flatnonzero(representative == np.arange(len(r)))
    where = np.empty(len(r), dtype=np.intp)
    where[first] = np.arange(len(first))
    return first, where[representative]
