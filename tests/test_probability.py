"""The two layouts of result probabilities, their conversions, and scoring finished afterstates."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from gammon.engine.rules.board import starting_board
from gammon.engine.rules.outcomes import (
    RESULT_POINTS,
    afterstate_probs,
    cubeless_equity,
    cumulative_probs,
    exclusive_results,
    outcome_probs,
    swap_sides,
)
from gammon.engine.rules.variants import HYPERGAMMON, STANDARD

results = st.lists(st.floats(0.0, 1.0), min_size=6, max_size=6).filter(lambda r: sum(r) > 1e-3).map(
    lambda r: np.array(r) / sum(r))


@given(results)
def test_the_two_layouts_convert_both_ways_and_agree_on_equity_and_swaps(r):
    probs = cumulative_probs(r)
    assert np.allclose(exclusive_results(probs), r)
    assert np.isclose(cubeless_equity(probs), r @ RESULT_POINTS)
    assert np.allclose(swap_sides(probs), cumulative_probs(r[..., [3, 4, 5, 0, 1, 2]]))  # my win 1 is their lose 1
    assert np.allclose(swap_sides(swap_sides(probs)), probs)


def test_outcome_probs_of_won_and_lost_games():
    assert outcome_probs(np.array([1, 2, 3, -1, -2, -3])).tolist() == [
        [1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0],
        [0, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 1, 1],
    ]


def test_afterstate_probs_scores_finished_games_by_the_checker_count_and_swaps_the_rest():
    finished = np.zeros(26, dtype=np.int8)
    finished[24] = -3  # we are off; their three checkers sit in their home board, none off
    asked = []

    def evaluate_on_roll(boards):
        asked.append(boards)
        return np.tile([0.6, 0.2, 0.0, 0.1, 0.0], (len(boards), 1))

    boards = np.stack([finished, starting_board()])
    assert afterstate_probs(evaluate_on_roll, boards, HYPERGAMMON)[0].tolist() == [1, 1, 0, 0, 0]  # a gammon
    assert afterstate_probs(evaluate_on_roll, boards, STANDARD)[0].tolist() == [1, 0, 0, 0, 0]  # 12 off: a single
    on_roll = [0.6, 0.2, 0.0, 0.1, 0.0]
    assert afterstate_probs(evaluate_on_roll, boards, STANDARD)[1].tolist() == swap_sides(on_roll).tolist()
    assert all(len(b) == 1 for b in asked)  # the finished game never reached the evaluator
