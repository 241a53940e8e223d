"""The odds tables (engine/rules/odds.py, gammon odds): counted with the move generator, checked against the
standard tables and against hand counts of the rolls."""

import json

import pytest

from gammon.app.cli import main
from gammon.engine.rules.odds import OddsError, entering_table, hit_chances

# The standard shot table: rolls out of 36 that hit a blot d pips away, nothing in between.
SHOTS = {1: 11, 2: 12, 3: 14, 4: 15, 5: 15, 6: 17, 7: 6, 8: 6, 9: 5, 10: 3, 11: 2, 12: 3,
         13: 0, 14: 0, 15: 1, 16: 1, 17: 0, 18: 1, 19: 0, 20: 1, 21: 0, 22: 0, 23: 0, 24: 1}


def test_shots_at_every_distance_match_the_standard_table():
    rows = hit_chances()
    assert {row["distance"]: row["rolls"] for row in rows} == SHOTS
    assert all(row["probability"] == row["rolls"] / 36 for row in rows)


def test_the_rolls_that_hit_are_named_high_die_first():
    (eight,) = hit_chances([8])
    assert eight["dice"] == ["62", "53", "44", "22"]  # 6+2 and 5+3 either way round, 4-4 twice, 2-2 four times


def test_a_point_made_three_pips_away_takes_only_3_3_from_a_six_shot():
    """Hand count: any 6 (11), 5-1 and 4-2 (4), 2-2 (2+2+2) = 16; 3-3 would land on the made 3-point."""
    (six,) = hit_chances([6], blocked=[3])
    assert six["dice"] == ["66", "65", "64", "63", "62", "61", "51", "42", "22"]
    assert six["rolls"] == 16


def test_a_blocked_point_stops_combinations_through_it_but_not_the_other_order():
    """8 pips with the 3- and 5-points made: 5-3 is gone both ways, 6-2, 4-4 and 2-2 still hit."""
    (eight,) = hit_chances([8], blocked=[3, 5])
    assert eight["dice"] == ["62", "44", "22"] and eight["rolls"] == 4


def test_a_blocked_distance_holds_a_made_point_not_a_blot():
    assert hit_chances([3], blocked=[3]) == [{"distance": 3, "rolls": None, "probability": None, "dice": None}]


def test_a_six_prime_in_front_stops_every_shot():
    rows = hit_chances(blocked=range(1, 7))
    assert all(row["rolls"] == 0 for row in rows if row["distance"] > 6)


def test_one_checker_enters_on_all_rolls_but_those_with_both_dice_closed():
    rows = entering_table()
    assert [row["open_points"] for row in rows] == list(range(7))
    assert [row["one"]["rolls"] for row in rows] == [0, 11, 20, 27, 32, 35, 36]
    for k, row in enumerate(rows):
        assert row["one"] == {"rolls": 36 - (6 - k) ** 2, "probability": (36 - (6 - k) ** 2) / 36}


def test_two_checkers_both_enter_only_when_both_dice_are_open():
    """Hand count with k open points: k(k-1) ordered non-doubles with two open numbers, plus k open doubles."""
    for k, row in enumerate(entering_table()):
        assert row["two_both"]["rolls"] == k * (k - 1) + k
        assert row["two_at_least_one"] == row["one"]  # one of the two enters where a lone checker would


@pytest.mark.parametrize("call", [
    lambda: hit_chances([0]),
    lambda: hit_chances([25]),
    lambda: hit_chances(blocked=[2.5]),
    lambda: hit_chances(blocked=range(1, 9)),
])
def test_questions_off_the_board_are_odds_errors(call):
    with pytest.raises(OddsError):
        call()


def test_gammon_odds_json_holds_both_tables(capsys):
    assert main(["odds", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["blocked"] == []
    assert {row["distance"]: row["rolls"] for row in result["hit"]} == SHOTS
    assert [row["two_both"]["rolls"] for row in result["enter"]] == [0, 1, 4, 9, 16, 25, 36]


def test_gammon_odds_prints_the_tables_with_blocked_points(capsys):
    assert main(["odds", "--blocked", "3,5", "--rolls"]) == 0
    out = capsys.readouterr().out
    assert "points made at 3, 5 pips" in out and "   6  16/36  44.4%  66 65 64 63 62 61 51 42 22" in out
    assert "   3  (a made point, not a blot)" in out
    assert "   3  27/36  75.0%     9/36  25.0%     27/36  75.0%" in out


@pytest.mark.parametrize("value, fragment", [("0", "got 0"), ("25", "got 25"), ("x", "like 3,5; got 'x'")])
def test_a_bad_blocked_value_gives_one_clear_line_and_exit_code_2(capsys, value, fragment):
    assert main(["odds", "--blocked", value]) == 2
    err = capsys.readouterr().err
    assert fragment in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
