"""pubeval (models/pubeval.py): GNU Backgammon agreement, hand-computed scores, race switch, play."""

from __future__ import annotations

import numpy as np
import pytest
from positions import bar_entry, bearoff_high_dice, last_checkers_hit, random_play  # tests/ is on sys.path under pytest

from gammon.engine.play.game import play_games, random_policy
from gammon.engine.rules.board import mover_counts, opponent_counts, starting_board
from gammon.engine.rules.movegen import generate
from gammon.engine.search.evaluator import evaluator_policy
from gammon.models.pubeval import WC, WIN_SCORE, WR, PubevalEvaluator, is_race, pubeval_inputs, pubeval_scores


def board(mover: dict[int, int], opp: dict[int, int], opp_bar: int = 0) -> np.ndarray:
    """A board from {mover point: count} and {mover point: opponent count}; the rest is borne off."""
    b = np.zeros(26, dtype=np.int64)
    for point, n in mover.items():
        b[point] = n
    for point, n in opp.items():
        b[point] = -n
    b[0] = opp_bar
    return b


@pytest.fixture(scope="module")
def afterstates() -> np.ndarray:
    """About 3,000 unfinished afterstates: random play (as many races as contact positions)
    and every afterstate of bar-entry, bear-off and hit-while-bearing-off corner cases."""
    rng = np.random.default_rng(7)
    play = generate(*random_play("standard", games=16, seed=1), check=False).boards
    race = is_race(play)
    picked = [play[rng.choice(np.flatnonzero(kind), size=700, replace=False)] for kind in (race, ~race)]
    for boards, dice in (bar_entry(300, seed=1), bearoff_high_dice(300, seed=1), last_checkers_hit(300, seed=1)):
        picked.append(generate(boards, dice, check=False).boards)
    after = np.concatenate(picked)
    return after[mover_counts(after).sum(-1) > 0]  # finished games are tested on their own


def gnubg_score(gnubg_nn, b: np.ndarray) -> float:
    """gnubg's pubeval of afterstate ``b``: the side that just moved goes in slot 0."""
    return gnubg_nn.pub_eval_score([mover_counts(b).tolist(), opponent_counts(b).tolist()])


def test_agrees_with_gnubg(afterstates):
    gnubg_nn = pytest.importorskip("gnubg_nn")
    race = is_race(afterstates)
    # The sample must cover every branch of the encoding and both weight sets.
    assert race.sum() > 300 and (~race).sum() > 300
    assert (afterstates[:, 0] > 0).sum() > 100  # opponent on the bar
    assert (afterstates[:, 25] > 0).sum() > 100  # mover still on the bar
    assert (mover_counts(afterstates)[:, 6:].sum(-1) == 0).sum() > 300  # mover bearing off
    assert (afterstates[:, 1:25] >= 4).any(axis=1).sum() > 300  # the (n - 3) / 2 input
    expected = np.array([gnubg_score(gnubg_nn, b) for b in afterstates])
    np.testing.assert_allclose(pubeval_scores(afterstates), expected, rtol=0, atol=1e-4)


def test_finished_game_scores_best():
    b = board({}, {19: 5, 20: 10})
    assert pubeval_scores(b[None])[0] == WIN_SCORE
    gnubg_nn = pytest.importorskip("gnubg_nn")
    assert gnubg_score(gnubg_nn, b) == pytest.approx(WIN_SCORE, rel=1e-7)


def test_hand_computed_contact():
    # Starting position: contact weights; 2 on 24, 5 on 13, 3 on 8, 5 on 6 (blocks 0, 11, 16, 18);
    # opponent points of two or more are not inputs, nothing on the bar or off.
    expected = (
        WC[0 * 5 + 2]
        + WC[11 * 5 + 2] + WC[11 * 5 + 4] * (5 - 3) / 2
        + WC[16 * 5 + 2] + WC[16 * 5 + 3]
        + WC[18 * 5 + 2] + WC[18 * 5 + 4] * (5 - 3) / 2
    )
    assert expected == pytest.approx(6.84055, abs=1e-9)
    assert pubeval_scores(starting_board()[None])[0] == pytest.approx(expected, abs=1e-12)


def test_hand_computed_race_and_contact_extras():
    # Race: 2 mover checkers on point 1 (block 23), 13 off; opponent blot on 20 (block 4).
    b = board({1: 2}, {20: 1, 22: 14})
    assert is_race(b[None])[0]
    expected = WR[23 * 5 + 2] + WR[4 * 5 + 0] + WR[121] * 13 / 15
    assert pubeval_scores(b[None])[0] == pytest.approx(expected, abs=1e-12)
    # Contact: opponent's two checkers on the bar count 2 / 2; the mover's own bar is no input.
    c = board({24: 1, 6: 10}, {3: 13}, opp_bar=2)
    c[25] = 4
    expected = WC[0 * 5 + 1] + WC[18 * 5 + 2] + WC[18 * 5 + 4] * (10 - 3) / 2 + WC[120] * 2 / 2
    assert pubeval_scores(c[None])[0] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    "mover, opp, race",
    [
        ({13: 15}, {12: 15}, False),  # mover must still pass the opponent's checkers on 12
        ({13: 15}, {14: 15}, True),  # every checker has passed
        ({6: 14, 25: 1}, {24: 15}, False),  # a mover checker on the bar is behind everything
        ({6: 15}, {0: 1, 19: 14}, False),  # an opponent checker on the bar still has to pass
    ],
)
def test_race_contact_switch(mover, opp, race):
    b = board({p: n for p, n in mover.items() if p != 25}, {p: n for p, n in opp.items() if p != 0},
              opp_bar=opp.get(0, 0))
    b[25] = mover.get(25, 0)
    assert is_race(b[None])[0] == race
    x = pubeval_inputs(b[None])[0]
    assert pubeval_scores(b[None])[0] == pytest.approx(x @ (WR if race else WC), abs=1e-12)


def test_batch_equals_one_by_one(afterstates):
    sample = afterstates[::40]
    batch = pubeval_scores(sample)
    assert batch.dtype == np.float64 and batch.shape == (len(sample),)
    single = np.array([pubeval_scores(b[None])[0] for b in sample])
    np.testing.assert_array_equal(batch, single)
    np.testing.assert_array_equal(PubevalEvaluator().score_afterstates(sample), batch)


def test_greedy_pubeval_beats_random():
    pubeval = evaluator_policy(PubevalEvaluator())
    random = random_policy(np.random.default_rng(5))
    n = 200
    first = play_games((pubeval, random), n // 2, seed=11)
    second = play_games((random, pubeval), n // 2, seed=12)
    points = np.concatenate([first.points, -second.points])
    assert (points > 0).mean() > 0.9
    assert points.mean() > 1.2
