"""GNU Backgammon's network as an evaluator (0-ply and its own n-ply), and the game loop of benchmarks/selfplay.py.

The greedy choice of :class:`models.gnubg.GnubgEvaluator` over our afterstates must be
gnubg's own ``bestmove`` at 0-ply: measured on 300 random-play positions with more than
one legal afterstate, 98.7% pick the same afterstate, on 200 positions of
gnubg-vs-pubeval games 96%, on this test's 100 positions 100%; every disagreement was an exact tie in equity (two
different afterstates gnubg scores the same, and the first one wins on our side).
"""

from __future__ import annotations

import random
import sys

import numpy as np
import pytest

gnubg_nn = pytest.importorskip("gnubg_nn")

from gammon.benchmarks.selfplay import NO_SIDE, apply_pubeval_move, check_gnubg_games, illegal_plies, play_gnubg_game
from gammon.engine.rules.board import flip, starting_board
from gammon.engine.rules.movegen import generate
from gammon.engine.search.analysis import position_probs
from gammon.engine.search.bearoff import WithBearoff
from gammon.engine.search.evaluator import evaluator_policy
from gammon.models.gnubg import GnubgEvaluator, from_gnubg, to_gnubg

try:  # tests/ is on sys.path under pytest's default import mode
    import positions
except ImportError:  # pragma: no cover
    from tests import positions

MIN_AGREEMENT = 0.9  # measured 0.96-0.99; the rest are exact ties
AGREEMENT_POSITIONS = 100


@pytest.fixture(scope="module")
def evaluator():
    return GnubgEvaluator()


@pytest.fixture(scope="module")
def choice_positions():
    """Random-play positions (board, dice) with more than one legal afterstate."""
    boards, dice = positions.random_play("standard", games=4, seed=3)
    several = generate(boards, dice).counts() > 1
    return boards[several][:AGREEMENT_POSITIONS], dice[several][:AGREEMENT_POSITIONS]


def test_missing_gnubg_nn_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)  # makes `import gnubg_nn` fail
    with pytest.raises(ImportError, match="pip install gnubg-nn"):
        GnubgEvaluator()


def test_board_conversion_round_trips(choice_positions):
    boards, _ = choice_positions
    assert np.array_equal(from_gnubg(to_gnubg(boards)), boards)


def test_probabilities_shape_and_order(evaluator, choice_positions):
    boards, _ = choice_positions
    p = evaluator.probabilities(boards)
    assert p.shape == (len(boards), 5)
    win, win_g, win_bg, lose_g, lose_bg = p.T
    tol = 1e-6
    assert np.all((0 <= win_bg) & (win_bg <= win_g + tol) & (win_g <= win + tol) & (win <= 1 + tol))
    assert np.all((0 <= lose_bg) & (lose_bg <= lose_g + tol) & (lose_g <= 1 - win + tol))


def test_probabilities_belong_to_the_player_on_roll(evaluator):
    start = evaluator.probabilities(starting_board()[None])[0]
    assert start[0] == pytest.approx(0.52, abs=0.02)  # the roller's small edge at the opening
    assert start[1] == pytest.approx(start[3], abs=0.05)  # gammons nearly symmetric
    race = np.zeros(26, dtype=np.int8)
    race[1], race[19] = 15, -15  # mover needs 15 pips, the opponent 90
    assert evaluator.probabilities(race[None])[0, 0] > 0.99
    assert evaluator.probabilities(flip(race)[None])[0, 0] < 0.01


def test_greedy_choice_is_gnubg_bestmove(evaluator, choice_positions):
    boards, dice = choice_positions
    assert len(boards) >= 50
    afterstates = generate(boards, dice)
    ours = afterstates.boards[evaluator_policy(evaluator)(afterstates)]
    gnubg_boards = to_gnubg(boards).tolist()
    keys = [gnubg_nn.bestmove(g, d1, d2, 0, NO_SIDE, 1)[1] for g, (d1, d2) in zip(gnubg_boards, dice.tolist())]
    # gnubg's key board is turned to the next player: slot 0 is the side that moved
    theirs = from_gnubg([gnubg_nn.boardfromkey(k)[::-1] for k in keys])
    same = np.all(ours == theirs, axis=1)
    assert same.mean() >= MIN_AGREEMENT
    differ = np.flatnonzero(~same)
    if len(differ):
        equities = evaluator.score_afterstates(np.concatenate([ours[differ], theirs[differ]])).reshape(2, -1)
        np.testing.assert_allclose(equities[0], equities[1], atol=1e-6)  # only ties differ


def test_a_search_of_gnubg_is_gnubgs_own(evaluator, choice_positions):
    """Our n-ply asked of gnubg runs gnubg's own n-ply search (``searched``), the databases still answering
    bear-offs when it is wrapped as an analyst."""
    boards = choice_positions[0][:6]
    own = [gnubg_nn.probabilities(g, 1) for g in to_gnubg(boards).tolist()]
    np.testing.assert_allclose(position_probs(evaluator, boards, 1), own, atol=1e-6)
    bear_off = np.zeros(26, dtype=np.int8)
    bear_off[[1, 2, 23]] = (2, 1, -2)  # both sides bearing off: the databases answer exactly
    analyst = WithBearoff(evaluator)
    np.testing.assert_array_equal(position_probs(analyst, bear_off[None], 1), analyst.probabilities(bear_off[None]))
    np.testing.assert_allclose(position_probs(analyst, boards, 1), own, atol=1e-6)


def test_pubeval_move_hits_and_bears_off():
    board = to_gnubg(starting_board())[0].tolist()
    board[0][5] -= 1
    board[0][3] = 1  # an opponent blot on its point 4, our point 21
    after = apply_pubeval_move(board, [23, 20])  # 24/21*
    mover, opponent = after  # turned to the next player: the side that moved comes first
    assert mover[23] == 1 and mover[20] == 1
    assert opponent[3] == 0 and opponent[24] == 1
    last = [[0] * 25, [1] + [0] * 24]
    assert apply_pubeval_move(last, [0, -1])[0] == [0] * 25  # 1/off


def test_gnubg_loop_plays_legal_complete_games():
    report = check_gnubg_games(gnubg_nn, 3, seed=5)  # raises on an illegal ply
    assert report["games"] == 3 and all(p in (-3, -2, -1, 1, 2, 3) for p in report["points"])
    trace = []
    points, plies = play_gnubg_game(gnubg_nn, random.Random(2), trace)
    assert plies == len(trace) and not illegal_plies(trace)
    assert not any(trace[-1][2][0]) and all(any(after[0]) for _, _, after in trace[:-1])  # ends at the last checker
    board, dice, after = trace[5]
    wrong = [list(after[0]), list(after[1])]
    source = next(i for i in range(24) if wrong[0][i])
    wrong[0][source] -= 1
    wrong[0][(source + 1) % 24] += 1  # a checker one pip backwards: never legal
    assert illegal_plies(trace[:5] + [(board, dice, wrong)]) == [5]
