"""Calibrating a model to its own play (training/calibrate.py): only the dense nets' output biases move, and
they move so that the net's mean probabilities on the fitted positions are the rollouts'."""

from pathlib import Path

import numpy as np
import pytest
import torch

from gammon.engine.rules.outcomes import cumulative_probs
from gammon.models.network import load_payload, model_from_payload
from gammon.training.calibrate import CalibrateConfig, calibrate, dense_rows, main
from gammon.training.distill import DistillConfig, held_out_rows

SHIPPED = Path(__file__).resolve().parents[1] / "models" / "default.pt"
CONFIG = CalibrateConfig(positions=60, games=36, holdout=0.25, chunk=20, seed=3)
GAMMONISH = 0.7  # added to the contact net's gammon and backgammon logits: a model that expects far too many


@pytest.fixture(scope="module")
def miscalibrated(tmp_path_factory):
    """The shipped model with its contact net's gammons made too likely."""
    payload = load_payload(SHIPPED)
    state = payload["nets"]["contact"]["state_dict"]
    state[last_bias(payload)][[1, 2, 4, 5]] += GAMMONISH
    path = tmp_path_factory.mktemp("miscalibrated") / "net.pt"
    torch.save(payload, path)
    return path


@pytest.fixture(scope="module")
def run(miscalibrated, tmp_path_factory):
    out = tmp_path_factory.mktemp("calibrate")
    return out, calibrate(miscalibrated, out, CONFIG, progress=False)


def last_bias(payload):
    return f"layers.{2 * len(payload['nets']['contact']['hidden'])}.bias"


def mean_probs(net, boards):
    with torch.no_grad():
        return cumulative_probs(torch.softmax(net.logits(boards), dim=1).double().numpy()).mean(axis=0)


def test_only_the_contact_nets_output_biases_change(miscalibrated, run):
    _, weights = run
    before, after = load_payload(miscalibrated), load_payload(weights)
    assert before["nets"].keys() == after["nets"].keys()
    changed = {(name, key) for name, net in before["nets"].items() for key, tensor in net["state_dict"].items()
               if not torch.equal(tensor, after["nets"][name]["state_dict"][key])}
    assert changed == {("contact", last_bias(before))}
    assert after["meta"]["calibration"]["earlier"] == before["meta"]["calibration"]  # the shipped model's own record


def test_calibration_undoes_a_known_bias_and_matches_the_rollouts_means(miscalibrated, run):
    out, weights = run
    boards, labels = np.load(out / "positions.npy"), np.load(out / "labels.npy").astype(np.float64)
    rows = dense_rows(load_payload(miscalibrated), boards)["contact"]
    fitted = rows[~held_out_rows(boards[rows], DistillConfig(holdout=CONFIG.holdout, split="hash"))]
    rollouts = cumulative_probs(labels[fitted] / labels[fitted].sum(1, keepdims=True)).mean(axis=0)
    biased = model_from_payload(load_payload(miscalibrated)).nets["contact"]
    calibrated = model_from_payload(load_payload(weights)).nets["contact"]
    assert (mean_probs(biased, boards[fitted])[[1, 3]] - rollouts[[1, 3]] > 0.03).all()  # gammons far too likely
    np.testing.assert_allclose(mean_probs(calibrated, boards[fitted]), rollouts, atol=2e-4)
    shift = np.array(load_payload(weights)["meta"]["calibration"]["nets"]["contact"]["bias_shift"])
    assert (shift[[1, 4]] - shift[[0, 3]] < -GAMMONISH / 2).all()  # gammons pulled back against single games


def test_a_stopped_run_reuses_its_rollouts_and_a_finished_one_is_left_alone(miscalibrated, run, capsys):
    out, weights = run
    first = load_payload(weights)["nets"]["contact"]["state_dict"]
    stamp = (out / "labels.npy").stat().st_mtime_ns
    weights.unlink()  # as a kill before the fit leaves the stage: its positions and rollouts kept
    (out / "model.npz").unlink()
    assert main(["--model", str(miscalibrated), "--out", str(out), "--positions", "60", "--holdout", "0.25",
                 "--chunk", "20", "--seed", "3", "--no-progress"]) == 0
    assert (out / "labels.npy").stat().st_mtime_ns == stamp
    again = load_payload(weights)["nets"]["contact"]["state_dict"]
    assert all(torch.equal(first[key], again[key]) for key in first)
    assert '"held_out_error_after"' in capsys.readouterr().out
    written = weights.stat().st_mtime_ns
    assert calibrate(miscalibrated, out, CONFIG, progress=False) == weights  # done: nothing redone
    assert weights.stat().st_mtime_ns == written
