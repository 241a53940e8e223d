"""benchmarks/race_accuracy.py: the race study that tells two race nets apart on positions of our own."""

import json

import numpy as np
import pytest

import gammon.benchmarks.race_accuracy as race_accuracy
from gammon.engine.rules.board import RACE, position_class
from gammon.training.distill import DistillConfig, held_out_rows

try:  # tests/ is on sys.path under pytest's default import mode
    import positions
except ImportError:  # pragma: no cover
    from tests import positions

pytest.importorskip("gnubg_nn")


def test_the_race_study_scores_each_model_on_the_held_out_races(tmp_path, capsys):
    boards, _ = positions.few_checkers(900)
    np.save(tmp_path / "positions.npy", boards)
    races = ((position_class(boards) == RACE) & held_out_rows(boards, DistillConfig(split="hash"))).sum()
    assert races >= 10
    argv = ["--positions", str(tmp_path / "positions.npy"), "--no-progress", "--models"]
    assert race_accuracy.main(argv + ["default,models/default.pt"]) == 0
    same = json.loads(capsys.readouterr().out)
    assert same["positions"] == races and same["differences"]["models/default.pt"]["mean"] == 0.0  # one choice a roll
    assert race_accuracy.main(argv + ["default,gnubg", "--limit", "5"]) == 0
    other = json.loads(capsys.readouterr().out)
    assert other["positions"] == 5 and all(model["mean"] >= 0 for model in other["models"].values())
