"""The held-out cube benchmark (benchmarks/cube_errors.py): its positions file and how it scores a call."""

import json

import numpy as np
import pytest

from gammon.benchmarks import cube_errors
from gammon.benchmarks.cube_errors import POSITIONS, gnubg_losses, main, rollout_judged
from gammon.engine.records.formats import position_id


def item(nd, dt, dp, calls):
    return {"position_id": "4HPwATDgc/ABMA", "pre_roll_2ply": {"nd": nd, "dt": dt, "dp": dp}, "gnubg_0ply": calls}


def test_the_shipped_positions_are_distinct_money_positions_with_both_sets_of_figures():
    rows = [json.loads(line) for line in POSITIONS.read_text().splitlines()]
    assert len(rows) == 4000 and len({r["position_id"] for r in rows}) == 4000
    assert all(r["pre_roll_2ply"]["dp"] == 1.0 and r["gnubg_0ply"][2] == 1.0 for r in rows)  # a pass costs one cube


def test_a_call_that_agrees_with_the_judge_costs_nothing():
    judged = [item(0.5, 0.7, 1.0, [0.5, 0.7, 1.0]), item(0.2, 0.1, 1.0, [0.2, 0.1, 1.0]),
              item(0.9, 1.3, 1.0, [0.9, 1.3, 1.0])]
    calls = gnubg_losses(judged)
    assert not calls.double_loss.any() and not calls.take_loss.any()
    assert not calls.double_wrong.any() and not calls.take_wrong.any()


@pytest.mark.parametrize("judge, calls, expected", [
    ((0.5, 0.7, 1.0), (0.5, 0.4, 1.0), (200.0, 0.0)),  # double/take missed: the doubler loses DT - ND
    ((0.2, 0.1, 1.0), (0.2, 0.3, 1.0), (100.0, 0.0)),  # a premature double: ND - DT
    ((0.9, 1.3, 1.0), (0.9, 0.95, 1.0), (0.0, 300.0)),  # a take that should be a pass: DT - DP for the taker
    ((0.9, 0.95, 1.0), (0.9, 1.3, 1.0), (0.0, 50.0)),  # a pass that should be a take: DP - DT
])
def test_a_wrong_call_costs_the_judges_difference(judge, calls, expected):
    judged = gnubg_losses([item(*judge, list(calls))])
    np.testing.assert_allclose([judged.double_loss[0], judged.take_loss[0]], expected)
    assert [judged.double_wrong[0], judged.take_wrong[0]] == [expected[0] > 0, expected[1] > 0]


def test_a_call_against_the_judge_where_the_actions_tie_is_wrong_but_costs_nothing():
    judged = gnubg_losses([item(1.0, 1.4, 1.0, [0.9, 1.5, 1.0])])  # no double and double/pass both 1.0: too good
    assert judged.double_wrong[0] and judged.double_loss[0] == 0.0


def test_the_benchmark_reports_the_shipped_model_beside_gnubg(capsys):
    assert main(["--limit", "40", "--plies", "0", "--json", "--cube-model-alone"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["positions"] == 40
    for row in (report["gnubg_0ply"], report["models"]["default"]["0"], report["our_cube_model_on_gnubg_nn_0ply"]):
        assert row["double"]["n"] == row["take"]["n"] == 40 and row["double"]["mean"] >= 0 <= row["take"]["mean"]


class RolledOut:
    """A stand-in for cube_rollout's result: each position's figures set by the test."""

    figures = {}

    def __init__(self, pid):
        self.no_double, self.double_take = self.figures[pid]


@pytest.fixture
def rollouts(monkeypatch, tmp_path):
    """Rollouts that answer from RolledOut.figures and count their calls, cached under tmp_path."""
    asked = []

    def fake_rollout(evaluator, board, cube, **settings):
        pid = position_id(board)
        asked.append(pid)
        return RolledOut(pid)

    monkeypatch.setenv("GAMMON_CACHE", str(tmp_path))
    monkeypatch.setattr(cube_errors, "cube_rollout", fake_rollout)
    real = cube_errors.load_analyst
    monkeypatch.setattr(cube_errors, "load_analyst", lambda name: None if name == "judge" else real(name))
    monkeypatch.setattr(cube_errors, "judge_identity", lambda name: name)
    return asked


def calls_of(doubles, takes):
    return np.array(doubles, dtype=bool), np.array(takes, dtype=bool)


def test_a_rollout_judge_rolls_out_only_where_the_calls_differ_and_scores_the_difference(rollouts):
    items = [json.loads(line) for line in POSITIONS.read_text().splitlines()][:3]
    ids = [item["position_id"] for item in items]
    # the rollouts: the first position double/take (ND 0.5, DT 0.7), the third a pass (DT 1.3)
    RolledOut.figures = {ids[0]: (0.5, 0.7), ids[2]: (0.9, 1.3)}
    calls = {"gnubg 0-ply": calls_of([False, True, True], [True, True, True]),
             "ours": calls_of([True, True, True], [True, True, False])}
    report = rollout_judged(items, calls, "judge", games=36, progress=False)
    assert sorted(rollouts) == sorted([ids[0], ids[2]]) and report["rolled_out"] == 2
    by_rollouts = report["minus_gnubg_0ply"]["ours"]["rollouts"]
    # ours doubled the first where gnubg missed 200 mp; ours passed the third where gnubg's take lost 300 mp
    assert by_rollouts["double"]["mean"] == pytest.approx(-200 / 3)
    assert by_rollouts["take"]["mean"] == pytest.approx(-300 / 3)

    rollouts.clear()  # again: every figure comes from the cache
    assert rollout_judged(items, calls, "judge", games=36, progress=False) == report and not rollouts


def test_players_that_agree_need_no_rollouts_and_differ_by_nothing(rollouts):
    items = [json.loads(line) for line in POSITIONS.read_text().splitlines()][:5]
    same = calls_of([True, False, False, True, False], [True] * 5)
    report = rollout_judged(items, {"gnubg 0-ply": same, "ours": same}, "judge", games=36, progress=False)
    assert not rollouts and report["rolled_out"] == 0
    assert all(d["mean"] == 0 for d in report["minus_gnubg_0ply"]["ours"]["rollouts"].values())


def test_the_benchmark_prints_the_rollout_judges_differences(rollouts, capsys):
    items = [json.loads(line) for line in POSITIONS.read_text().splitlines()][:100]
    RolledOut.figures = {item["position_id"]: (0.5, 0.7) for item in items}  # every one a double/take
    assert main(["--limit", "100", "--plies", "0", "--rollout-judge", "judge", "--judge-games", "36"]) == 0
    out = capsys.readouterr().out
    assert "judged by 36 cubeful rollout games an action of judge's play" in out
    assert "default 0-ply minus gnubg 0-ply, judged by rollouts" in out
    assert rollouts and len(rollouts) == int(out.split(" positions where the calls differ")[0].split()[-1])
