"""Match play: the Kazaross-XG2 table and cube decisions at a match score."""

import numpy as np
import pytest

from gammon.engine.cube.decisions import cube_decision
from gammon.engine.cube.match import (
    can_double,
    cubeful_mwc,
    match_cube_decision,
    match_equity_of_probs,
    to_emg,
)
from gammon.engine.cube.met import MAX_AWAY, match_equity
from gammon.engine.cube.money import cubeful_equity, money_cube_decision
from gammon.engine.cube.state import Cube
from gammon.engine.records.formats import MatchState

X = 0.68  # gnubg's contact cube efficiency
# gnubg 2-ply, opening position, money (docs/gnubg.md, "Reference: opening position, money, 2-ply")
OPENING = np.array([0.52534, 0.14928, 0.00683, 0.12566, 0.00534])
NO_DOUBLE = OPENING
DOUBLE_TAKE = np.array([0.70, 0.20, 0.01, 0.05, 0.002])
DOUBLE_PASS = np.array([0.82, 0.10, 0.0, 0.01, 0.0])
TOO_GOOD = np.array([0.90, 0.60, 0.05, 0.02, 0.0])
RACE = np.array([0.78, 0.0, 0.0, 0.0, 0.0])


def no_gammons(win):
    return np.array([win, 0.0, 0.0, 0.0, 0.0])


# -- the table ----------------------------------------------------------------------------


def test_table_is_symmetric():
    for a in range(1, MAX_AWAY + 1):
        for b in range(1, MAX_AWAY + 1):
            assert match_equity(a, b) + match_equity(b, a) == pytest.approx(1.0, abs=1e-5)
            assert match_equity(a, b, True) + match_equity(b, a, True) == pytest.approx(1.0, abs=1e-5)


def test_published_entries():
    assert match_equity(1, 1) == match_equity(1, 1, True) == 0.5
    assert match_equity(1, 2) == pytest.approx(0.67736)  # the Crawford game at 1-away/2-away
    assert match_equity(2, 4) == pytest.approx(0.66870)
    assert match_equity(7, 5) == pytest.approx(0.37362)
    assert match_equity(15, 15) == 0.5
    assert match_equity(25, 1) == pytest.approx(0.00095)
    assert match_equity(0, 3) == 1.0 and match_equity(3, 0) == 0.0


def test_crawford_and_post_crawford_differ_only_at_one_away():
    assert match_equity(2, 1, crawford_done=True) == pytest.approx(0.48803)  # the trailer's post-Crawford value
    assert match_equity(1, 2, crawford_done=True) == pytest.approx(0.51197)  # the leader's free drop is worth ~1.2%
    assert match_equity(1, 2, crawford_done=False) == pytest.approx(0.67736)
    assert match_equity(4, 1, True) == pytest.approx(0.31002)
    assert match_equity(5, 7, True) == match_equity(5, 7, False)


def test_needing_fewer_points_is_better():
    for b in range(1, MAX_AWAY + 1):
        column = [match_equity(a, b) for a in range(MAX_AWAY + 1)]
        assert all(x > y for x, y in zip(column, column[1:]))
    trailer = [match_equity(a, 1, True) for a in range(1, MAX_AWAY + 1)]
    assert all(x > y for x, y in zip(trailer, trailer[1:]))


@pytest.mark.parametrize("away", [(0, 0), (-1, 3), (3, MAX_AWAY + 1)])
def test_scores_outside_the_table_are_refused(away):
    with pytest.raises(ValueError):
        match_equity(*away)


def test_score_from_a_match_state():
    state = MatchState(match_length=7, score=(3, 6), on_roll=1, crawford=True)
    assert Cube.from_state(state) == Cube(away=(1, 4), crawford=True)
    owned = MatchState(match_length=5, score=(1, 2), on_roll=0, cube=2, cube_owner=1)
    assert Cube.from_state(owned) == Cube(2, "opponent", (4, 3))
    assert Cube.from_state(MatchState()).money
    with pytest.raises(ValueError):
        Cube(away=(3, 4), crawford=True)  # the Crawford game needs a 1-away player


# -- cubeless match winning chances ------------------------------------------------------


def test_cubeless_mwc_weights_each_result_by_the_score_it_reaches():
    score = Cube(away=(3, 5))
    win1, win2, win3 = match_equity(2, 5), match_equity(1, 5), 1.0
    lose1, lose2, lose3 = match_equity(3, 4), match_equity(3, 3), match_equity(3, 2)
    p = OPENING
    expected = (p[0] - p[1]) * win1 + (p[1] - p[2]) * win2 + p[2] * win3
    expected += (1 - p[0] - p[3]) * lose1 + (p[3] - p[4]) * lose2 + p[4] * lose3
    assert match_equity_of_probs(p, score) == pytest.approx(expected)


# -- cube decisions -----------------------------------------------------------------------


def test_crawford_game_has_no_cube():
    """docs/gnubg.md, "Reference cube decisions (2-ply)": 7-point match, score (3, 6), Crawford,
    player 1 (the leader) on roll: (-0.0814, -0.0814, -0.8389, 1.0, 13, 'Never double, take (dead cube)').
    gnubg's figures come from probabilities evaluated at that score; the money 2-ply ones land within 0.005."""
    d = match_cube_decision(OPENING, Cube(away=(1, 4), crawford=True), X)
    assert d.verdict == "Never double, take (dead cube)" and d.action == "no_double"
    assert d.no_double == pytest.approx(-0.0814, abs=0.005)
    assert d.double_take == pytest.approx(-0.8389, abs=0.005)
    assert d.double_pass == 1.0
    trailer = match_cube_decision(DOUBLE_PASS, Cube(away=(4, 1), crawford=True), X)
    assert trailer.verdict == "Never double, take (dead cube)"
    # no cube: the equity is the cubeless one
    assert trailer.mwc_no_double == pytest.approx(match_equity_of_probs(DOUBLE_PASS, Cube(away=(4, 1), crawford=True)))


def test_double_match_point_cube_is_dead():
    for p in (OPENING, DOUBLE_PASS, TOO_GOOD):
        d = match_cube_decision(p, Cube(away=(1, 1)), X)
        assert d.verdict == "Never double, take (dead cube)"
        assert d.mwc_no_double == d.mwc_double_take == pytest.approx(p[0])  # gammons and cube count for nothing


def test_post_crawford_leader_never_doubles_and_the_trailer_always_does():
    assert not can_double(Cube(away=(1, 3)))
    assert match_cube_decision(DOUBLE_PASS, Cube(away=(1, 3)), X).verdict == "Never double, take (dead cube)"
    # the trailer 2-away doubles at once: the leader passes when the trailer is the favourite (free drop)
    assert match_cube_decision(no_gammons(0.30), Cube(away=(2, 1)), X).verdict == "Double, take"
    assert match_cube_decision(no_gammons(0.60), Cube(away=(2, 1)), X).verdict == "Double, pass"
    assert match_cube_decision(no_gammons(0.60), Cube(away=(2, 1)), X).take_point == pytest.approx(0.5)
    # ... unless a gammon, which wins the match at once, is likely enough to play on for
    assert match_cube_decision(TOO_GOOD, Cube(away=(2, 1)), X).verdict == "Too good to double, pass"


def test_redouble_wording_and_the_opponents_cube():
    assert match_cube_decision(DOUBLE_TAKE, Cube(2, "me", (9, 9)), X).verdict.startswith("Redouble")
    with pytest.raises(ValueError):
        match_cube_decision(DOUBLE_TAKE, Cube(2, "opponent", (9, 9)), X)


@pytest.mark.parametrize(
    "probs, verdict",
    [
        (NO_DOUBLE, "No double, take"),
        (DOUBLE_TAKE, "Double, take"),
        (DOUBLE_PASS, "Double, pass"),
        (TOO_GOOD, "Too good to double, pass"),
    ],
)
def test_seven_point_match_at_zero_zero(probs, verdict):
    d = match_cube_decision(probs, Cube(away=(7, 7)), X)
    assert d.verdict == verdict
    assert d.double_pass == 1.0
    assert to_emg(d.mwc_no_double, Cube(away=(7, 7))) == pytest.approx(d.no_double)


@pytest.mark.parametrize("probs", [NO_DOUBLE, DOUBLE_TAKE, DOUBLE_PASS, TOO_GOOD, RACE])
def test_a_long_match_at_zero_zero_plays_like_money(probs):
    money = money_cube_decision(probs, Cube(), X)
    assert cube_decision(probs, Cube(), X) == money
    match = match_cube_decision(probs, Cube(away=(25, 25)), X)
    assert match.verdict == money.verdict
    assert match.no_double == pytest.approx(money.no_double, abs=0.01)
    assert match.double_take == pytest.approx(money.double_take, abs=0.05)  # a doubled cube doubles the gaps
    assert match.take_point == pytest.approx(money.take_point, abs=0.005)


@pytest.mark.parametrize("cube, owner", [(1, "centered"), (2, "me"), (2, "opponent")])
def test_long_match_cubeful_equity_is_close_to_money(cube, owner):
    probs = np.stack([OPENING, DOUBLE_TAKE, no_gammons(0.3)])
    score = Cube(cube, owner, (25, 25))
    money = cubeful_equity(probs, Cube(cube, owner), X) / cube
    assert to_emg(cubeful_mwc(probs, score, X), score) == pytest.approx(money, abs=0.005)
    # batches give the rows' own values
    assert cubeful_mwc(probs, score, X) == pytest.approx([float(cubeful_mwc(p, score, X)) for p in probs])


def test_take_points_from_the_table():
    """Gammonless take points where the doubled cube is dead: pass/take/lose MWCs from the MET."""
    # the trailer 4-away doubles the leader 2-away: a taken cube wins the leader the match
    leader = (match_equity(2, 3) - match_equity(2, 2)) / (1.0 - match_equity(2, 2))
    assert leader == pytest.approx(0.19894, abs=1e-5)
    assert match_cube_decision(no_gammons(0.7), Cube(away=(4, 2)), X).take_point == pytest.approx(leader)
    # 2-away/2-away: the taker, passing, is left 2-away against the Crawford game
    assert match_cube_decision(no_gammons(0.7), Cube(away=(2, 2)), X).take_point == pytest.approx(0.32264)
    # the doubler's gammons, which win the match on the doubled cube, raise the take point
    assert match_cube_decision(OPENING, Cube(away=(4, 2)), X).take_point > leader + 0.1
