"""The match equity table past 25-away: Kazaross-XG2 continued by Zadeh's recursion (engine/cube/met.py)."""

import json

import numpy as np
import pytest

from gammon.engine.cube import met
from gammon.engine.cube.match import match_cube_decision
from gammon.engine.cube.met import MAX_AWAY, TABLE_AWAY, match_equity
from gammon.engine.cube.state import Cube
from gammon.engine.errors import GammonError
from gammon.engine.play.game import Rules, play
from gammon.engine.play.players import EvaluatorPlayer
from gammon.engine.rules.variants import STANDARD

KAZAROSS = json.loads(met.METS["kazaross-xg2"].read_text())
TABLE = np.array(KAZAROSS["pre_crawford"])
TABLE_POST = np.array(KAZAROSS["post_crawford"])
LONG = range(1, MAX_AWAY + 1)


def table_mwc(a: int, b: int) -> float:
    """Kazaross-XG2 alone, with won and lost matches at 0-away or less."""
    return 1.0 if a <= 0 else 0.0 if b <= 0 else TABLE[a - 1, b - 1]


def post_crawford(n: int) -> float:
    """The post-Crawford trailer's MWC n-away in the table, 1 for a won match."""
    return 1.0 if n <= 0 else TABLE_POST[n - 1]


class ConstantEvaluator:
    """A cheap stand-in for a network: the same probabilities everywhere, moves picked by a seeded rng.

    Each side thinks itself the favourite on roll, so cubes are turned and taken at long-match scores."""

    name = "constant"
    variant = STANDARD

    def __init__(self):
        self.rng = np.random.default_rng(0)

    def probabilities(self, boards):
        return np.tile([0.65, 0.15, 0.01, 0.15, 0.01], (len(boards), 1))

    def score_afterstates(self, boards):
        return self.rng.random(len(boards))


def test_the_table_is_served_unchanged_to_25_away():
    for a in range(1, TABLE_AWAY + 1):
        for b in range(1, TABLE_AWAY + 1):
            assert match_equity(a, b) == TABLE[a - 1, b - 1]
        assert match_equity(a, 1, crawford_done=True) == TABLE_POST[a - 1]


def test_the_extension_holds_the_table_in_its_corner():
    pre, post = met._extended()
    assert pre.shape == (MAX_AWAY, MAX_AWAY) and post.shape == (MAX_AWAY,)
    assert np.array_equal(pre[:TABLE_AWAY, :TABLE_AWAY], TABLE) and np.array_equal(post[:TABLE_AWAY], TABLE_POST)


def test_my_chances_and_my_opponents_add_up_to_one_at_every_score():
    for a in LONG:
        for b in LONG:
            for done in (False, True):
                assert match_equity(a, b, done) + match_equity(b, a, done) == pytest.approx(1.0, abs=1e-12)


def test_needing_more_points_never_raises_your_chances():
    for b in LONG:
        column = [match_equity(a, b) for a in range(MAX_AWAY + 1)]
        assert all(x > y for x, y in zip(column, column[1:]))
        row = [match_equity(b, a) for a in range(MAX_AWAY + 1)]
        assert all(x < y for x, y in zip(row, row[1:]))
    trailer = [match_equity(a, 1, crawford_done=True) for a in LONG]
    assert all(x > y for x, y in zip(trailer, trailer[1:]))


def test_the_recursion_rebuilds_each_table_entry_from_its_neighbours_within_a_thousandth():
    # every score with a player 10- to 25-away; the largest miss is 0.00099 (12-away vs 6-away)
    misses = [abs(met._zadeh(table_mwc, a, b) - table_mwc(a, b))
              for a in range(2, TABLE_AWAY + 1) for b in range(2, TABLE_AWAY + 1) if max(a, b) >= 10]
    assert max(misses) < 0.001
    g = met.TRAILER_GAMMONS
    post = [abs(0.5 * (g * post_crawford(n - 4) + (1 - g) * post_crawford(n - 2)) - post_crawford(n))
            for n in range(10, TABLE_AWAY + 1)]
    crawford = [abs(0.5 * (g * post_crawford(n - 2) + (1 - g) * post_crawford(n - 1)) - table_mwc(n, 1))
                for n in range(10, TABLE_AWAY + 1)]
    assert max(post) < 0.0005 and max(crawford) < 0.0005


def test_run_from_the_table_cut_at_9_away_it_finds_the_rest_of_the_table_within_0_004():
    pre, post = met._extend(TABLE[:9, :9], TABLE_POST[:9], TABLE_AWAY)
    assert np.abs(pre - TABLE).max() < 0.004
    assert np.abs(post - TABLE_POST).max() < 0.0005


def test_26_away_continues_the_table_without_a_step():
    for b in range(1, TABLE_AWAY + 2):
        extrapolated = 2 * match_equity(25, b) - match_equity(24, b)
        assert match_equity(26, b) == pytest.approx(extrapolated, abs=0.003)
        assert match_equity(26, b) < match_equity(25, b)
    assert match_equity(26, 26) == 0.5
    # post-Crawford the trailer's chances shrink by about 0.6 every two points, in the table and past it
    table_decay = [post_crawford(n) / post_crawford(n - 2) for n in range(15, TABLE_AWAY + 1)]
    for n in (26, 27, 28):
        decay = match_equity(n, 1, True) / match_equity(n - 2, 1, True)
        assert min(table_decay) - 0.01 < decay < max(table_decay) + 0.01


def test_scores_past_the_cap_are_refused_in_one_line():
    with pytest.raises(GammonError, match=f"computed to {MAX_AWAY}-away") as refused:
        match_equity(MAX_AWAY + 1, 3)
    assert "\n" not in str(refused.value)
    with pytest.raises(GammonError, match=f"1..{MAX_AWAY}"):
        Rules(match_length=MAX_AWAY + 1)
    with pytest.raises(GammonError, match=f"1- to {MAX_AWAY}-away"):
        Cube(away=(3, MAX_AWAY + 1))
    assert Rules(match_length=MAX_AWAY).match_length == MAX_AWAY


def test_a_31_point_match_plays_to_the_end():
    player = EvaluatorPlayer(ConstantEvaluator())
    results = play((player, player), 2, seed=1, rules=Rules(match_length=31))
    assert all(max(score) >= 31 for score in results.scores)
    assert results.cube_turns > 0


def test_a_cube_at_30_away_against_27_away_gets_a_decision():
    cube = Cube(away=(30, 27))
    decision = match_cube_decision(np.array([0.7, 0.2, 0.01, 0.1, 0.005]), cube, 0.68)
    assert decision.action in ("double", "no_double") and decision.response in ("take", "pass")
    assert 0 < decision.mwc_no_double < 1 and decision.mwc_double_pass == match_equity(29, 27)
