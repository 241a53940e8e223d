"""The held-out cube benchmark (benchmarks/cube_errors.py): its positions file and how it scores a call."""

import json

import numpy as np
import pytest

from gammon.benchmarks.cube_errors import POSITIONS, gnubg_losses, main


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
