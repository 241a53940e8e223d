"""The race counts (engine/search/race_counts.py) on the positions their published descriptions work through,
each method's thresholds on both sides of every line, and ``gammon race`` (app/race.py)."""

import json

import numpy as np
import pytest
from test_cube import backgammon_board  # tests/ is on sys.path under pytest

from gammon.app.arguments import position_in_variant
from gammon.app.cli import main
from gammon.engine.errors import BoardError
from gammon.engine.records.formats import position_id
from gammon.engine.rules.board import pip_counts, starting_board
from gammon.engine.search.race_counts import (
    PIPS_PER_ROLL,
    effective_pip_counts,
    eight_nine_twelve,
    isight,
    keith,
    keith_counts,
    kleinman,
    require_race,
    thorp,
    thorp_counts,
)


def advice(count) -> tuple[bool, bool, bool]:
    return bool(count.double[0]), bool(count.redouble[0]), bool(count.take[0])


# Chuck Bower, "Re: Is this a take?", rec.games.backgammon, 25 March 1998 (bkgm.com archive, "Cube Handling in
# Races"), answering Dan Scoones: X on roll leads 84 to 96. Published there: the lead is "just over 14%" of X's
# count, a pass by Robertie's 12% (the 8-9-12 rule); the Thorp counts are level ("the trailer's adjusted count
# minus the leader's adjusted count is exactly 0, which indicates a take"); Bower's conversions give 82.5%
# (percentage method) and 74% (Thorp); Kleinman's K = 1.45. The checkers are transcribed from the post's diagram.
BOWER_X = {2: 2, 3: 2, 5: 2, 6: 3, 7: 2, 8: 4}
BOWER_O = {2: 2, 3: 2, 4: 1, 5: 2, 6: 3, 7: 1, 9: 1, 11: 2, 16: 1}
BOWER = backgammon_board(BOWER_X, BOWER_O)

# Stick (bgonline.org forums, "Keith count fails this cube hard", 9 December 2014), from his Keith count lesson:
# Blue on roll, 102 to 112 pips; "the Keith straight up we get 117 to 112 for a difference of 5 making it a
# no double".
STICK = "XGID=-----CFACA-Aaaa-abaeba----:0:0:1:00:0:0:3:0:10"


def stick_board(pips_saved: int = 0) -> np.ndarray:
    """Stick's position with Blue's checker on his 11-point moved ``pips_saved`` pips on: nothing but his pip
    count changes (his 4-point stays empty, no new stack)."""
    board, _ = position_in_variant(STICK)
    board = board.copy()
    board[11] -= 1
    board[11 - pips_saved] += 1
    return board


def test_the_published_positions_read_as_published():
    assert pip_counts(BOWER).tolist() == [84, 96]
    assert pip_counts(stick_board()).tolist() == [102, 112]


# -- Keith -----------------------------------------------------------------------------------------


def test_keith_on_sticks_lesson_position():
    count = keith(stick_board()[None])
    assert count.counts[0].tolist() == [117, 112]  # 102 + 1 (empty 4-point) = 103, + 103 // 7 = 117
    assert advice(count) == (False, False, True)  # exceeds by 5: no double


@pytest.mark.parametrize("saved, excess, expected", [
    (1, 4, (True, False, True)),  # "double if your count exceeds your opponent's by no more than 4"
    (2, 3, (True, True, True)),  # "redouble ... by no more than 3"
    (3, 2, (True, True, True)),  # "take if doubler's count exceeds your count by at least 2"
    (4, 1, (True, True, False)),
])
def test_keith_thresholds(saved, excess, expected):
    count = keith(stick_board(saved)[None])
    assert count.counts[0, 0] - count.counts[0, 1] == excess
    assert advice(count) == expected


def test_keith_adjustments_as_the_glossary_lists_them():
    # 3 on the 1-point (+4), 3 on the 2-point (+2), 5 on the 3-point (+2), nothing on the 4- and 5-points (+2)
    side = {1: 3, 2: 3, 3: 5, 6: 4}
    board = backgammon_board(side, side)
    pips = 3 + 6 + 15 + 24
    assert keith_counts(board[None])[0].tolist() == [pips + 10, pips + 10]
    assert keith(board[None]).counts[0].tolist() == [(pips + 10) * 8 // 7, pips + 10]  # one seventh, rounded down


# -- Thorp -----------------------------------------------------------------------------------------


def test_thorp_on_bowers_position():
    assert thorp_counts(BOWER[None])[0].tolist() == [110, 121]  # 84 + 30 - 4 points held; 96 + 30 - 5
    count = thorp(BOWER[None])
    assert count.counts[0].tolist() == pytest.approx([121, 121])  # X's 110 + 10%: "exactly 0"
    assert advice(count) == (True, True, True)
    assert count.win[0] == pytest.approx(0.74)  # Bower: 74%


@pytest.mark.parametrize("straggler, expected", [
    (13, (False, False, True)),  # T = 118 < L - 2 = 119
    (14, (True, False, True)),  # T = 119: "double any time your count does not exceed the opponent's by more than 2"
    (15, (True, True, True)),  # T = 120: "redouble ... by more than 1"
])
def test_thorp_doubling_lines(straggler, expected):
    board = backgammon_board(BOWER_X, {**BOWER_O, 16: 0, straggler: 1})
    assert advice(thorp(board[None])) == expected


@pytest.mark.parametrize("x_pips_saved, expected_take", [(1, True), (2, False)])
def test_thorp_take_line_with_the_unrounded_ten_percent(x_pips_saved, expected_take):
    # X's count 109 -> 119.9: T = 121 does not exceed it by more than 2, a take; 108 -> 118.8: a pass
    # (rounding the 10% down, as some write it, would make both 118 and 119, and both a take)
    board = backgammon_board({**BOWER_X, 8: 3, 8 - x_pips_saved: BOWER_X[8 - x_pips_saved] + 1}, BOWER_O)
    assert advice(thorp(board[None]))[2] is expected_take


# -- 8-9-12 ----------------------------------------------------------------------------------------


def test_eight_nine_twelve_on_bowers_position():
    count = eight_nine_twelve(pip_counts(BOWER[None]))
    assert 0.14 < count.value[0] < 0.145  # "just over 14%"
    assert advice(count) == (True, True, False)  # Robertie: a pass beyond 12%
    assert count.win[0] == pytest.approx(0.825, abs=0.001)  # Bower: 54% + 2 x 1/7 = 82.5%


@pytest.mark.parametrize("pips, expected", [
    ((100, 107), (False, False, True)),
    ((100, 108), (True, False, True)),  # 8%: a double
    ((100, 109), (True, True, True)),  # 9%: a redouble
    ((100, 112), (True, True, True)),  # 12%: still a take
    ((100, 113), (True, True, False)),
    ((75, 81), (True, False, True)),  # 6/75 is 8% exactly; as a float it could fall either side
    ((50, 56), (True, True, True)),  # 12% exactly
])
def test_eight_nine_twelve_lines(pips, expected):
    assert advice(eight_nine_twelve(np.array([pips]))) == expected


# -- Kleinman --------------------------------------------------------------------------------------


def test_kleinman_on_johansens_examples_and_bowers_position():
    # Oystein Johansen, "Re: Kleinman Count", rec.games.backgammon, 22 February 2001: on roll with 100 pips
    # against 113, K = 1.383 and 79.7%; against 106, K = 0.495 and 68.8% (his regressions of Kleinman's table).
    count = kleinman(np.array([[100, 113], [100, 106], [84, 96]]))
    assert count.value.tolist() == pytest.approx([17**2 / 209, 10**2 / 202, 16**2 / 176])
    assert count.value[:2].round(3).tolist() == [1.383, 0.495]
    assert count.value[2] == pytest.approx(1.45, abs=0.005)  # Bower: "K = 1.45"
    assert count.win[:2].tolist() == pytest.approx([0.797, 0.688], abs=0.003)


@pytest.mark.parametrize("pips, expected", [
    ((99, 104), (False, False, True)),  # K = 81/199
    ((99, 105), (True, False, True)),  # K = 0.5: a double
    ((137, 147), (True, True, True)),  # K = 0.7: a redouble
    ((58, 66), (True, True, True)),  # K = 1.2: the last take
    ((58, 67), (True, True, False)),
    ((110, 100), (False, False, True)),  # the mover behind: D < 0, however large K
])
def test_kleinman_lines(pips, expected):
    assert advice(kleinman(np.array([pips]))) == expected


def test_kleinman_at_four_pips_or_less_takes_the_formulas_limit():
    count = kleinman(np.array([[1, 2]]))
    assert count.value[0] == np.inf and count.win[0] == 1.0 and advice(count) == (True, True, False)


# -- Isight ----------------------------------------------------------------------------------------
# No worked Isight example was found in its published descriptions (Reichert's paper, Taper_Mike's summary of
# its page 28 on bgonline.org, 10 December 2014): the values below are those rules worked by hand.


def test_isight_on_bowers_and_sticks_positions():
    count = isight(np.stack([BOWER, stick_board()]))
    # Bower: X 84 + 1 (empty 4-point where O holds his); O 96; crossovers 6 each
    # Stick: Blue 102 + 1 (empty 4-point); O 112 + 2 (8 crossovers to Blue's 6)
    assert count.counts.tolist() == [[85, 96], [103, 114]]
    assert count.win.tolist() == pytest.approx([(80 - 85 / 3 + 22) / 100, (80 - 103 / 3 + 22) / 100])
    assert count.double.tolist() == [True, False]  # P = 73.7; P = 67.7 < 68
    assert count.take.tolist() == [True, True]


def test_isight_rules_are_relative_to_the_other_side():
    # X: 14 checkers, 3 on his 1-point (+2), 3 on his 2-point (+1), 4 on his 3-point (+1), his 4-point empty
    # where O holds his (+1), no crossover; O: 15 checkers (+1 more), one in his outer board (+1 crossover)
    x = {1: 3, 2: 3, 3: 4, 5: 2, 6: 2}
    o = {4: 2, 5: 5, 6: 7, 7: 1}
    counts = isight(backgammon_board(x, o)[None]).counts[0]
    assert counts.tolist() == [sum(p * n for p, n in x.items()) + 5, sum(p * n for p, n in o.items()) + 2]


@pytest.mark.parametrize("x_changes, o_changes, expected", [
    ({}, {}, (True, True, True)),  # P = 73.7
    ({8: 3, 7: 3}, {}, (True, True, True)),  # L = 84, T = 96: P = 76 exactly, still a take
    ({8: 3, 7: 3}, {16: 0, 17: 1}, (True, True, False)),  # T = 97: P = 78
])
def test_isight_take_line(x_changes, o_changes, expected):
    board = backgammon_board({**BOWER_X, **x_changes}, {**BOWER_O, **o_changes})
    assert advice(isight(board[None])) == expected


def test_isight_redouble_line():
    count = isight(stick_board(1)[None])  # L = 102, T = 114: P = 70 exactly
    assert count.win[0] == pytest.approx(0.70) and advice(count) == (True, True, True)


# -- effective pip count ---------------------------------------------------------------------------


def test_effective_pip_counts_from_the_database():
    # Stick, "An Introduction to the Effective Pip Count" (bgonline.org/epc.html): 15 checkers on the ace point
    # take about 7 rolls, "the product is almost exactly 57". One checker anywhere at home: one roll, 49/6.
    fifteen, _ = position_in_variant("XGID=-O-----------------aaa----:1:1:1:00:0:0:3:0:10")
    one = backgammon_board({1: 1}, {1: 1})
    epc = effective_pip_counts(np.stack([fifteen, one]))
    assert epc[0, 0] == pytest.approx(57.0, abs=0.01)
    assert epc[1].tolist() == pytest.approx([PIPS_PER_ROLL, PIPS_PER_ROLL])


def test_a_side_outside_its_home_board_has_no_effective_pip_count():
    epc = effective_pip_counts(np.stack([backgammon_board({6: 14, 7: 1}, {6: 15}), BOWER]))
    assert np.isnan(epc[0, 0]) and np.isfinite(epc[0, 1])
    assert np.isnan(epc[1]).all()


def test_only_races_are_counted():
    with pytest.raises(BoardError, match="races only"):
        require_race(starting_board())
    with pytest.raises(BoardError, match="game is over"):
        require_race(backgammon_board({}, {1: 1}))


# -- gammon race -----------------------------------------------------------------------------------


def test_race_json_gives_every_count_and_our_evaluation(capsys):
    assert main(["race", position_id(BOWER), "--ply", "0", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pips"] == [84, 96] and report["epc"] == [None, None] and report["wastage"] == [None, None]
    counts = report["counts"]
    assert list(counts) == ["Keith", "Thorp", "Isight", "Kleinman", "8-9-12"]
    assert counts["Thorp"]["counts"] == pytest.approx([121, 121]) and counts["Thorp"]["advice"] == "Double, take"
    assert counts["8-9-12"]["advice"] == "Double, pass" and counts["Kleinman"]["counts"] is None
    evaluation = report["evaluation"]
    assert evaluation["plies"] == 0 and len(evaluation["probs"]) == 5 and evaluation["action"] in ("double",
                                                                                                  "no_double")


def test_race_prints_a_table(capsys):
    assert main(["race", "XGID=-O-----------------aaa----:1:1:1:00:0:0:3:0:10", "--ply", "0"]) == 0
    out = capsys.readouterr().out
    assert "\nEPC             57.0    20.3\n" in out
    for row in ("Keith", "Thorp", "Isight", "Kleinman", "8-9-12", "our net"):
        assert f"\n{row}" in out
    assert "No redouble, take" in out  # X owns the cube


def test_race_without_a_cube_decision_gives_no_advice(capsys):
    # the opponent owns the cube: the counts are shown, their advice is not
    assert main(["race", "XGID=-O-----------------aaa----:1:-1:1:00:0:0:3:0:10", "--ply", "0", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {row["advice"] for row in report["counts"].values()} == {None}


def test_race_refuses_contact_in_one_line(capsys):
    assert main(["race", "4HPwATDgc/ABMA"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "races only" in err
