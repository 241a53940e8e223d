"""The group choosers (engine/rules/groups.py) against a plain loop over each group, on random batches."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.engine.rules.groups import best_in_groups, best_k_in_groups

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
