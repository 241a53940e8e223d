"""n-ply evaluation, move ranking and money cube decisions (with a small numpy evaluator)."""

import numpy as np
import pytest

import gammon.engine.search.analysis as analysis
from gammon.engine.cube.money import cube_efficiency, cubeful_equity, money_cube_decision
from gammon.engine.cube.state import Cube
from gammon.engine.rules.board import flip, pip_counts, starting_board
from gammon.engine.rules.dice import ROLL_WEIGHTS, ROLLS
from gammon.engine.rules.notation import format_move, legal_plays
from gammon.engine.rules.outcomes import cubeless_equity, result_points, swap_sides
from gammon.engine.rules.variants import HYPERGAMMON, STANDARD
from gammon.engine.search.analysis import MOVE_FILTERS, position_probs, rank_moves
from gammon.engine.search.evaluator import afterstate_equity


class PipEvaluator:
    """A deterministic stand-in for a network: P(win) from the pip race, a few gammons."""

    name = "pips"
    variant = STANDARD

    def probabilities(self, boards):
        pips = pip_counts(np.asarray(boards)).astype(float)
        win = 1 / (1 + np.exp(-(pips[:, 1] - pips[:, 0] + 8) / 12))
        return np.stack([win, 0.2 * win, 0.01 * win, 0.2 * (1 - win), 0.01 * (1 - win)], axis=1)

    def score_afterstates(self, boards):
        return afterstate_equity(self, boards)


def brute_force_one_ply(evaluator, board):
    """1-ply by hand: for each roll the 0-ply best play, averaged over the 36 rolls."""
    total = np.zeros(5)
    for roll, weight in zip(ROLLS, ROLL_WEIGHTS):
        best = None
        for play in legal_plays(board, roll):
            won = result_points(play.board[None], 15)[0]
            if won:
                probs = np.array([1, won >= 2, won >= 3, 0, 0], dtype=float)
            else:
                probs = swap_sides(evaluator.probabilities(flip(play.board)[None])[0])
            if best is None or cubeless_equity(probs) > cubeless_equity(best):
                best = probs
        total += weight * best
    return total


def test_swap_sides_is_an_involution_and_negates_equity():
    p = np.array([0.6, 0.2, 0.01, 0.1, 0.005])
    assert np.allclose(swap_sides(swap_sides(p)), p)
    assert cubeless_equity(swap_sides(p)) == pytest.approx(-cubeless_equity(p))


def test_one_ply_is_the_roll_average_of_the_best_plays():
    evaluator = PipEvaluator()
    board = starting_board()
    board[6], board[4] = 4, 1  # not the symmetric opening
    assert np.allclose(position_probs(evaluator, board[None], 1)[0], brute_force_one_ply(evaluator, board))
    assert ROLL_WEIGHTS.sum() == pytest.approx(1.0)


def test_deeper_plies_run_batched_and_stay_probabilities():
    boards = np.stack([starting_board(), flip(starting_board())])
    for plies in (0, 1, 2):
        p = position_probs(PipEvaluator(), boards, plies)
        assert p.shape == (2, 5) and (p >= 0).all() and (p[:, 0] <= 1).all()


def test_a_search_over_many_positions_goes_in_chunks_with_the_same_answers(monkeypatch):

    rng = np.random.default_rng(5)
    boards = np.stack([starting_board()] * 5)
    for board in boards[1:]:
        board[6], board[int(rng.integers(1, 6))] = 4, 1  # five different positions, fifteen checkers each
    whole = position_probs(PipEvaluator(), boards, 1)
    monkeypatch.setattr(analysis, "SEARCH_CHUNK", 2)
    assert np.allclose(position_probs(PipEvaluator(), boards, 1), whole)
    assert np.allclose(position_probs(PipEvaluator(), boards, 2)[3], position_probs(PipEvaluator(), boards[3:4], 2)[0])


class CountingEvaluator(PipEvaluator):
    """PipEvaluator that counts the boards it is asked about."""

    judged = 0

    def probabilities(self, boards):
        self.judged += len(boards)
        return super().probabilities(boards)


@pytest.mark.parametrize("plies", [1, 2])
def test_a_position_met_twice_is_searched_once_with_one_answer(plies):
    first, second = starting_board(), starting_board()
    second[6], second[4] = 4, 1
    repeated, once = CountingEvaluator(), CountingEvaluator()
    probs = position_probs(repeated, np.stack([first, second, first, first, second]), plies)
    alone = position_probs(once, np.stack([first, second]), plies)
    assert repeated.judged == once.judged
    assert np.allclose(probs, alone[[0, 1, 0, 0, 1]], atol=1e-12)


def test_janowski_dead_and_live_extremes():
    p = np.array([0.7, 0.2, 0.0, 0.05, 0.0])
    assert float(cubeful_equity(p, Cube(), 0.0)) == pytest.approx(float(cubeless_equity(p)))
    # With a live cube and no gammons: take point 20%, cash point 80% (W = L = 1).
    plain = lambda win: np.array([win, 0, 0, 0, 0])  # noqa: E731
    assert float(cubeful_equity(plain(0.2), Cube(), 1.0)) == pytest.approx(-1.0)
    assert float(cubeful_equity(plain(0.8), Cube(), 1.0)) == pytest.approx(1.0)
    assert float(cubeful_equity(plain(0.5), Cube(owner="me"), 1.0)) > float(cubeful_equity(plain(0.5), Cube(), 1.0))
    assert float(cubeful_equity(plain(0.5), Cube(value=4), 0.5)) == pytest.approx(
        4 * float(cubeful_equity(plain(0.5), Cube(), 0.5)))


@pytest.mark.parametrize(
    "probs, owner, verdict",
    [
        ([0.50, 0.0, 0.0, 0.0, 0.0], "centered", "No double, take"),
        ([0.72, 0.0, 0.0, 0.0, 0.0], "centered", "Double, take"),
        ([0.90, 0.0, 0.0, 0.0, 0.0], "centered", "Double, pass"),
        ([0.88, 0.70, 0.05, 0.0, 0.0], "centered", "Too good to double, pass"),
        ([0.90, 0.0, 0.0, 0.0, 0.0], "me", "Redouble, pass"),
        ([0.55, 0.0, 0.0, 0.0, 0.0], "me", "No redouble, take"),
    ],
)
def test_cube_verdicts(probs, owner, verdict):
    decision = money_cube_decision(np.array(probs), Cube(owner=owner), 0.68)
    assert decision.verdict == verdict
    assert decision.action == ("double" if verdict.startswith(("Double", "Redouble")) else "no_double")


def test_no_cube_action_when_the_opponent_owns_the_cube():
    with pytest.raises(ValueError, match="owns the cube"):
        money_cube_decision(np.array([0.9, 0, 0, 0, 0]), Cube(owner="opponent", value=2), 0.68)


def test_beaver_when_the_double_is_wrong_and_beavers_are_allowed():
    decision = money_cube_decision(np.array([0.3, 0, 0, 0, 0]), Cube(beavers=True), 0.68)
    assert decision.response == "beaver" and decision.verdict == "No double, beaver"


def test_cube_efficiency_contact_and_race():
    race = np.zeros(26, dtype=np.int8)
    race[1:7] = 2
    race[19:25] = -2
    assert cube_efficiency(starting_board())[0] == pytest.approx(0.68)
    assert 0.6 <= cube_efficiency(race)[0] <= 0.7


def test_rank_moves_orders_by_cubeful_equity_and_filters_deeper_plies():
    evaluator = PipEvaluator()
    board = starting_board()
    ranked = rank_moves(evaluator, board, (6, 5), plies=1)
    assert len(ranked) == len(legal_plays(board, (6, 5)))
    searched = [m for m in ranked if m.plies == 1]
    assert 1 <= len(searched) <= 8 and ranked[: len(searched)] == searched  # the searched moves first
    for group in (searched, ranked[len(searched):]):
        cubeful = [m.cubeful for m in group]
        assert cubeful == sorted(cubeful, reverse=True)
    assert format_move(board, ranked[0].steps) in {p.notation for p in legal_plays(board, (6, 5))}


def test_filter_leaders_keeps_each_groups_best_few():
    from gammon.engine.search.analysis import FILTER_MOVES, filter_leaders

    equity = np.array([0.1, 0.5, 0.45, -0.3] + list(np.linspace(0, 0.2, 12)))
    offsets = np.array([0, 4, 16])
    kept = filter_leaders(equity, offsets)
    assert {1, 2} <= set(kept) and 3 not in set(kept) and 0 not in set(kept)  # 0.1 is 0.4 behind the best
    assert sum(k >= 4 for k in kept) == FILTER_MOVES


def test_ply_policy_chooses_one_legal_afterstate_per_game():
    from gammon.engine.rules.movegen import generate
    from gammon.engine.search.analysis import ply_policy

    boards = np.stack([starting_board()] * 3)
    afterstates = generate(boards, np.array([[6, 5], [3, 1], [2, 2]]))
    for plies in (0, 1):
        choice = ply_policy(PipEvaluator(), plies)(afterstates)
        assert ((choice >= afterstates.offsets[:-1]) & (choice < afterstates.offsets[1:])).all()


def test_a_move_the_filter_pruned_never_beats_the_searched_leader():
    """The strength issue's example: at 2-ply, 14/8 11/8 (left at 0-ply by the filter, -1.33)
    was ranked above 14/5 (searched, -1.47). The choice is made among the searched moves."""
    from gammon.engine.records.formats import parse_position
    from gammon.models.players import load_analyst

    board, _ = parse_position("DwAAYLdzEAEAAA:cAkPAAAAAAAE")
    ranked = rank_moves(load_analyst("default"), board, (6, 3), plies=2)
    depths = [m.plies for m in ranked]
    assert depths == sorted(depths, reverse=True) and depths[0] == 2
    assert format_move(board, ranked[0].steps) == "14/5"


def test_hypergammon_search_leaves_score_the_gammon_a_three_checker_game_gives():
    """Our last checker is on the 1-point; the opponent's three are still in its home, none off.

    Every roll bears it off and wins a gammon (not a backgammon: none of theirs is in our
    home). Judged with 15 checkers a side the loser would seem to have 12 off: a single.
    """
    board = np.zeros(26, dtype=np.int8)
    board[1], board[24], board[23] = 1, -2, -1
    evaluator = PipEvaluator()
    evaluator.variant = HYPERGAMMON
    for plies in (1, 2):
        assert np.allclose(position_probs(evaluator, board[None], plies)[0], [1, 1, 0, 0, 0])
    assert rank_moves(evaluator, board, (2, 1))[0].equity == 2.0


def test_move_filters_say_how_many_candidates_go_deeper():
    from gammon.models.players import load_analyst

    net = load_analyst("default")
    one = rank_moves(net, starting_board(), (3, 1), plies=2, filters={0: (1, 0.0)})
    assert [m.plies for m in one].count(2) == 1 and one[0].plies == 2
    every = rank_moves(net, starting_board(), (3, 1), plies=1, filters={})
    assert all(m.plies == 1 for m in every)  # no filter: every play searched
    three = rank_moves(net, starting_board(), (6, 4), plies=3)  # 8 within 0.16, 5 within 0.10, 2 within 0.04
    depths = [m.plies for m in three]
    assert 1 <= depths.count(3) <= 2 and depths.count(3) + depths.count(2) <= 5 and depths[0] == 3
    assert depths.count(1) > 0 and sum(depths.count(p) for p in (1, 2, 3)) <= 8
    gnubgs = [m.plies for m in rank_moves(net, starting_board(), (6, 4), plies=3, filters=MOVE_FILTERS)]
    assert gnubgs.count(1) == 0 and gnubgs.count(3) + gnubgs.count(2) > depths.count(3) + depths.count(2)


def test_a_three_ply_search_of_a_bear_off_keeps_the_databases_exact_answer():
    """Both sides have borne off checkers and hold at most 6: the two-sided database knows P(win) exactly,
    and a search that averages the exact answers of the next rolls must give it back."""
    from gammon.models.players import load_analyst

    net = load_analyst("default")
    board = np.zeros(26, dtype=np.int8)
    board[[1, 2, 4, 6]] = [1, 1, 2, 1]  # mine: 5 checkers
    board[[24, 22, 20]] = [-2, -1, -2]  # the opponent's: 5 on his 1, 3 and 5 points
    deep = rank_moves(net, board, (5, 2), plies=3)
    shallow = {m.board.tobytes(): m for m in rank_moves(net, board, (5, 2), plies=0)}
    best = max(shallow.values(), key=lambda m: m.equity)
    assert deep[0].plies == 3 and deep[0].board.tobytes() == best.board.tobytes()
    for move in deep:
        assert move.probs[1:].max() == 0  # nobody can be gammoned
        assert abs(move.probs[0] - shallow[move.board.tobytes()].probs[0]) < 1e-9
