"""benchmarks/calibration.py: a model's 0-ply probabilities beside rollouts of its own play."""

import json

import numpy as np
import pytest

import gammon.benchmarks.calibration as calibration
from gammon.benchmarks.race_accuracy import held_out_positions
from gammon.engine.play.rollout import rollout
from gammon.engine.rules.board import CONTACT
from gammon.engine.search.analysis import position_probs
from gammon.models.players import load_analyst

try:  # tests/ is on sys.path under pytest's default import mode
    import positions
except ImportError:  # pragma: no cover
    from tests import positions


def test_errors_are_the_estimates_less_the_reference_with_their_interval_and_rms():
    reference = np.array([[0.5, 0.1, 0.0, 0.1, 0.0], [0.6, 0.2, 0.0, 0.1, 0.0]])
    estimates = reference + np.array([[0.02, 0.01, 0, 0, 0], [0.04, 0.03, 0, 0, 0]])
    row = calibration.errors(estimates, reference)
    assert row["win"]["mean"] == pytest.approx(0.03) and row["win"]["rms"] == pytest.approx(np.sqrt(0.001))
    assert row["win"]["ci95"][0] < 0.03 < row["win"]["ci95"][1]
    assert row["lose_gammon"] == {"mean": 0.0, "ci95": [0.0, 0.0], "rms": 0.0}
    # equity = 2 P(win) - 1 + gammons won - gammons lost: off by 0.05 and 0.11
    assert row["equity_rms"] == pytest.approx(np.sqrt((0.05**2 + 0.11**2) / 2))


def test_the_report_sets_the_model_beside_its_own_rollouts(tmp_path, capsys):
    boards, _ = positions.random_play(games=8, seed=3)
    np.save(tmp_path / "positions.npy", boards)
    chosen, _ = held_out_positions(tmp_path / "positions.npy", 2, 0, CONTACT)
    assert len(chosen) == 2
    argv = ["--positions", str(tmp_path / "positions.npy"), "--limit", "2", "--games", "36", "--no-gnubg", "--json"]
    assert calibration.main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    net = load_analyst("default")
    rolled = np.array([rollout(net, b, games=36, seed=31, reduce_variance=True).probs for b in chosen])
    ours = position_probs(net, chosen, 0)
    assert report["positions"] == 2 and "gnubg_2ply" not in report
    assert report["rollout_means"]["win"] == pytest.approx(rolled[:, 0].mean())
    assert report["ours_0ply"]["win_gammon"]["mean"] == pytest.approx((ours[:, 1] - rolled[:, 1]).mean())
