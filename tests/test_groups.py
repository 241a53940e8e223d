"""The group choosers (engine/rules/groups.py) against a plain loop over each group, on random batches."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.engine.rules import groups
from gammon.engine.rules.groups import best_in_groups, best_k_in_groups, distinct_rows

values = st.sampled_from([-np.inf, -1.0, 0.0, 0.5, 2.0])  # few distinct values: ties everywhere


@st.composite
def batches(draw):
    sizes = draw(st.lists(st.integers(1, 9), min_size=1, max_size=12))
    flat = np.array(draw(st.lists(values, min_size=sum(sizes), max_size=sum(sizes))))
    return flat, np.concatenate([[0], np.cumsum(sizes)])


def first_best(flat, indices):
    return min(indices, key=lambda i: (-flat[i], i))


@given(batches())
@settings(max_examples=200, deadline=None)
def test_best_in_groups_is_each_groups_first_largest(batch):
    flat, offsets = batch
    expected = [first_best(flat, range(a, b)) for a, b in zip(offsets[:-1], offsets[1:])]
    assert best_in_groups(flat, offsets).tolist() == expected


@given(batches(), st.integers(1, 6), st.randoms(use_true_random=False))
@settings(max_examples=200, deadline=None)
def test_best_k_in_groups_keeps_each_groups_first_largest_k(batch, keep, rng):
    flat, offsets = batch
    labels = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    shuffled = labels.copy()
    rng.shuffle(shuffled)  # labels need not come in order
    for group in (labels, shuffled):
        expected = np.zeros(len(flat), dtype=bool)
        for label in np.unique(group):
            members = sorted(np.flatnonzero(group == label), key=lambda i: (-flat[i], i))
            expected[members[:keep]] = True
        assert best_k_in_groups(flat, group, keep).tolist() == expected.tolist()


def both_ways(rows):
    """distinct_rows of ``rows`` by the compiled table (engine/rules/_native.c, where built), then by numpy's."""
    compiled = distinct_rows(rows)
    kept, groups.compiled_distinct = groups.compiled_distinct, None
    try:
        return compiled, distinct_rows(rows)
    finally:
        groups.compiled_distinct = kept


@given(st.lists(st.lists(st.integers(-3, 3), min_size=5, max_size=5), min_size=0, max_size=40))
@settings(max_examples=200, deadline=None)
def test_distinct_rows_names_each_distinct_row_once(lists):
    rows = np.array(lists, dtype=np.int8).reshape(-1, 5)
    for first, inverse in both_ways(rows):
        assert np.array_equal(rows[first][inverse], rows)
        assert len(first) == len({tuple(r) for r in rows.tolist()})


def test_distinct_rows_survives_a_hash_that_collides(monkeypatch):
    # every row hashing alike, the check against the representative finds it out and sorting takes over
    monkeypatch.setattr(groups, "_ROW_WEIGHTS", np.zeros(64, dtype=np.uint64))
    monkeypatch.setattr(groups, "compiled_distinct", None)  # numpy's table
    rows = np.array([[1, 2], [2, 1], [1, 2], [0, 0]], dtype=np.int8)
    first, inverse = distinct_rows(rows)
    assert first.tolist() == [0, 1, 3] and inverse.tolist() == [0, 1, 0, 2]


def test_distinct_rows_come_in_the_order_they_first_appear():
    rows = np.array([[3], [1], [3], [2], [1]], dtype=np.int8)
    for first, inverse in both_ways(rows):
        assert first.tolist() == [0, 1, 3] and inverse.tolist() == [0, 1, 0, 2, 1]


def test_the_compiled_table_finds_what_numpys_finds_on_a_searchs_boards():
    rng = np.random.default_rng(4)
    boards = rng.integers(-2, 3, size=(5000, 26)).astype(np.int8)
    boards = boards[rng.integers(0, len(boards), 20_000)]  # each board several times, in any order
    compiled, numpy = both_ways(boards)
    assert np.array_equal(compiled[0], numpy[0]) and np.array_equal(compiled[1], numpy[1])
