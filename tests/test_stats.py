"""The 95% intervals (engine/play/stats.py): a mean's, and Wilson's for a share of matches won."""

import pytest

from gammon.engine.play.duel import duel
from gammon.engine.play.game import Rules
from gammon.engine.play.players import EvaluatorPlayer
from gammon.engine.play.stats import mean_ci95, share_ci95
from gammon.models.baselines import HeuristicEvaluator, RandomEvaluator


def test_wilson_interval_matches_its_formula_worked_by_hand():
    # 3 of 4: centre (0.75 + 1.9208/4) / 1.9604 = 0.6276, half-width 1.96 * sqrt(0.046875 + 0.060025) / 1.9604 = 0.3268
    low, high = share_ci95(3, 4)
    assert low == pytest.approx(0.3006, abs=1e-4) and high == pytest.approx(0.9544, abs=1e-4)


@pytest.mark.parametrize("wins", [0, 4])
def test_all_or_nothing_stays_inside_zero_to_one_and_is_not_a_point(wins):
    low, high = share_ci95(wins, 4)
    assert 0.0 <= low < high <= 1.0 and high - low > 0.4
    assert mean_ci95([wins / 4] * 4)[1][0] == mean_ci95([wins / 4] * 4)[1][1]  # what the normal interval gave


def test_a_series_of_matches_reports_a_wilson_interval():
    players = EvaluatorPlayer(HeuristicEvaluator()), EvaluatorPlayer(RandomEvaluator(1))
    stats = duel(*players, 4, seed=3, rules=Rules(match_length=1))
    assert stats.ci95 == share_ci95(stats.mean * 4, 4)
    low, high = stats.ci95
    assert 0.0 <= low <= stats.mean <= high <= 1.0 and low < high
