"""Luck of a roll, and results with the luck taken out (engine/play/luck.py)."""

import numpy as np
import pytest

from gammon.engine.play.duel import duel
from gammon.engine.play.luck import roll_luck
from gammon.engine.play.players import Cubeless
from gammon.engine.rules.board import MOVER_BAR, starting_board
from gammon.engine.rules.dice import OPENING_ROLLS, ROLL_WEIGHTS, ROLLS
from gammon.engine.search.evaluator import evaluator_policy
from gammon.models.players import load_analyst, load_player

NET = load_analyst("default")
TOLERANCE = 1e-6  # a board's probabilities may differ by 1e-7 between batch sizes (torch's kernels)
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def entering_against_five_points() -> np.ndarray:
    """Mover: one checker on the bar, the rest home; the opponent's board made but for its 6 point (our 19)."""
    board = np.zeros(26, dtype=np.int8)
    board[MOVER_BAR] = 1
    board[[1, 2, 3, 4, 5]] = [3, 3, 3, 3, 2]
    board[[20, 21, 22, 23, 24]] = -2
    board[[12, 13]] = -2, -3  # 15 opposing checkers
    return board


def test_a_rolls_luck_averages_zero_over_the_rolls_that_could_come():
    for board in (entering_against_five_points(), starting_board()):
        luck, _ = roll_luck(NET, np.repeat(board[None], len(ROLLS), axis=0), ROLLS)
        assert abs(float(luck @ ROLL_WEIGHTS)) < TOLERANCE


def test_an_opening_rolls_luck_averages_zero_over_the_fifteen_openings():
    k = len(OPENING_ROLLS)
    luck, _ = roll_luck(NET, np.repeat(starting_board()[None], k, axis=0), OPENING_ROLLS, np.ones(k, dtype=bool))
    assert k == 15 and abs(float(luck.mean())) < TOLERANCE
    assert luck[[tuple(r) for r in OPENING_ROLLS.tolist()].index((1, 3))] > 0  # 3-1 makes the 5 point


def test_entering_is_lucky_and_dancing_unlucky():
    board = entering_against_five_points()
    luck, _ = roll_luck(NET, np.stack([board, board]), np.array([[6, 6], [1, 2]]))
    assert luck[0] > 0 > luck[1]  # 6-6 enters (on the open 6 point); 1-2 dances


def test_luck_adjusted_results_agree_with_the_results_and_are_narrower():
    net, pubeval = (Cubeless(evaluator_policy(load_player(p))) for p in ("default", "pubeval"))
    stats = duel(net, pubeval, 24, seed=3, luck=NET)
    low, high = stats.ci95
    adjusted_low, adjusted_high = stats.luck_adjusted_ci95
    assert adjusted_high - adjusted_low < (high - low) * 0.75
    # raw = luck-adjusted + the dice's luck, which is as wide as the raw interval: so the adjusted mean must lie
    # in the raw interval, but the raw mean need not lie in the (narrower) adjusted one
    assert low < stats.luck_adjusted_ppg < high
    assert adjusted_low > 0  # the net beats pubeval, which the raw interval cannot tell from 12 pairs
    assert stats.as_dict()["luck_adjusted_ci95"] == [adjusted_low, adjusted_high]


def test_the_same_player_in_both_seats_has_no_luck_left_over():
    player = Cubeless(evaluator_policy(load_player("heuristic")))
    stats = duel(player, player, 8, seed=4, luck=NET)
    assert stats.ppg == 0 and abs(stats.luck_adjusted_ppg) < TOLERANCE
