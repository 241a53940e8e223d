"""The one cube type: views, conversions from a table, Match IDs and FIBS boards, and the double/take rule."""

import numpy as np
import pytest

from gammon.engine.cube.money import cube_efficiency
from gammon.engine.cube.state import BEAVER, PASS, TAKE, Cube, cube_actions, verdict
from gammon.engine.errors import GammonError
from gammon.engine.records.fibs import FibsBoard
from gammon.engine.rules.board import starting_board


def test_a_table_cube_seen_by_each_player_and_swapped():
    # a 7-point match at 2-5, the cube on 2 owned by player 1
    for_0 = Cube.seen_by(0, 2, 1, length=7, score=(2, 5))
    for_1 = Cube.seen_by(1, 2, 1, length=7, score=(2, 5))
    assert for_0 == Cube(2, "opponent", (5, 2)) and for_1 == Cube(2, "me", (2, 5))
    assert for_0.swapped() == for_1 and for_1.swapped().swapped() == for_1
    assert for_0.owner_index(0) == 1 and for_1.owner_index(1) == 1 and Cube().owner_index(0) == -1
    assert Cube.seen_by(0, 4, -1, jacoby=True, beavers=True) == Cube(4, "centered", jacoby=True, beavers=True)


def test_views_money_match_crawford_and_doubled():
    assert Cube().money and not Cube(away=(3, 3)).money
    assert Cube(away=(1, 4), crawford=True).post_crawford is False
    assert Cube(away=(1, 4)).post_crawford and not Cube(away=(2, 4)).post_crawford
    assert Cube(1, "centered", (3, 3)).doubled() == Cube(2, "opponent", (3, 3))
    assert Cube(4, "me", (3, 3)).for_money() == Cube(4, "me")


@pytest.mark.parametrize("bad, words", [
    (dict(value=3), "power of two"),
    (dict(owner="bot"), "cube owner"),
    (dict(away=(0, 3)), "1- to 25-away"),
    (dict(away=(3, 4), crawford=True), "needs a player 1-away"),
    (dict(crawford=True), "money cube has no score"),
    (dict(away=(3, 4), jacoby=True), "money rules"),
])
def test_impossible_cubes_are_refused_with_the_reason(bad, words):
    with pytest.raises(GammonError, match=words):
        Cube(**bad)


def fibs(**fields) -> FibsBoard:
    base = dict(board=np.zeros(26, dtype=np.int64), match_length=5, score=(1, 3), bot_on_turn=True, dice=(0, 0),
                cube=2, bot_may_double=True, opponent_may_double=False, doubled=False, crawford=False)
    return FibsBoard(**{**base, **fields})


def test_a_fibs_board_gives_the_cube_by_its_may_double_flags():
    assert Cube.from_fibs(fibs(), 0) == Cube(2, "me", (4, 2))
    assert Cube.from_fibs(fibs(), 1) == Cube(2, "opponent", (2, 4))
    assert Cube.from_fibs(fibs(opponent_may_double=True, cube=1), 0) == Cube(1, "centered", (4, 2))
    assert Cube.from_fibs(fibs(match_length=0, cube=0, bot_may_double=False), 0) == Cube(1, "opponent")


def test_the_double_take_rule_batched_and_in_words():
    # no double / double-take / double-pass for the doubler
    nd = np.array([0.2, 0.5, 1.2, 0.6])
    dt = np.array([0.4, -0.2, 1.5, 0.5])
    doubles, answer = cube_actions(nd, dt, 1.0, beavers=True)
    assert doubles.tolist() == [True, False, False, False]
    assert answer.tolist() == [TAKE, BEAVER, PASS, TAKE]
    assert cube_actions(nd, dt, 1.0)[1].tolist() == [TAKE, TAKE, PASS, TAKE]  # no beavers without the rule
    assert verdict(0.2, 0.4, 1.0, Cube()) == ("double", "take", "Double, take")
    assert verdict(0.7, 1.3, 1.0, Cube()) == ("double", "pass", "Double, pass")
    assert verdict(0.5, 0.4, 1.0, Cube()) == ("no_double", "take", "No double, take")
    assert verdict(1.2, 1.5, 1.0, Cube(2, "me")) == ("no_double", "pass", "Too good to redouble, pass")
    assert verdict(0.5, -0.2, 1.0, Cube(beavers=True)) == ("no_double", "beaver", "No double, beaver")


def backgammon_board(mover: dict, opponent: dict) -> np.ndarray:
    """A board from {mover's point: checkers} and {opponent's own point: checkers} (the mover's 25 - point)."""
    b = np.zeros(26, dtype=np.int8)
    for point, n in mover.items():
        b[point] = n
    for point, n in opponent.items():
        b[25 - point] = -n
    return b


@pytest.mark.parametrize("board, x", [
    (starting_board(), 0.68),
    (backgammon_board({8: 5, 7: 5, 6: 5}, {6: 5, 5: 5, 4: 5}), 0.55 + 0.00125 * 105),  # a race, the mover outside
    (backgammon_board({12: 15}, {12: 15}), 0.7),  # a long race: 180 pips, kept at 0.7
    (backgammon_board({5: 5, 4: 5, 3: 5}, {6: 5, 5: 5, 4: 5}), 0.6),  # both bearing off
    (backgammon_board({13: 1, 5: 14}, {13: 1, 6: 14}), 0.68),  # the two 13-points: still contact
])
def test_backgammon_cube_efficiency_is_gnubgs_formula(board, x):
    assert cube_efficiency(board)[0] == x
