"""The batched game runner: opening roll, scoring, reproducibility, records."""

import numpy as np
import pytest

from gammon.engine.play.duel import duel
from gammon.engine.play.game import Rules, opening_rolls, play, play_games, random_policy
from gammon.engine.play.players import Cubeless
from gammon.engine.rules.board import checkers_off, validate
from gammon.engine.rules.notation import find_play
from gammon.engine.rules.outcomes import result_points
from gammon.engine.search.evaluator import evaluator_policy
from gammon.models.baselines import HeuristicEvaluator


def finished(opponent: dict, opponent_bar: int = 0) -> np.ndarray:
    """An afterstate where the mover has borne off everything; {mover point: opponent count}."""
    b = np.zeros(26, dtype=np.int8)
    for p, n in opponent.items():
        b[p] = -n
    b[0] = opponent_bar
    return b


def test_scoring_single_gammon_backgammon():
    assert result_points(finished({20: 14}), 15) == 1  # the loser bore one off
    assert result_points(finished({20: 15}), 15) == 2  # gammon
    assert result_points(finished({20: 14, 3: 1}), 15) == 3  # a checker in the winner's home board
    assert result_points(finished({20: 14}, opponent_bar=1), 15) == 3  # a checker on the bar
    not_over = finished({20: 15})
    not_over[5] = 1
    assert result_points(not_over, 15) == 0
    assert result_points(finished({22: 3}), 3) == 2  # hypergammon counts its own 3 checkers


def test_opening_roll_is_never_a_double_and_the_higher_die_starts():
    rolls, _ = opening_rolls(np.random.default_rng(3), 5000)
    assert (rolls[:, 0] != rolls[:, 1]).all()
    result = play_games((random_policy(np.random.default_rng(1)),) * 2, 200, seed=4, record=True)
    for record in result.records:
        first_player, first_dice = record.turns[0][0], record.turns[0][1]
        assert first_dice == record.opening
        assert first_player == (0 if record.opening[0] > record.opening[1] else 1)


def test_same_seed_same_games_and_every_game_ends():
    def run(seed):
        heuristic = evaluator_policy(HeuristicEvaluator())
        return play_games((heuristic, random_policy(np.random.default_rng(9))), 300, seed=seed)

    a, b, c = run(11), run(11), run(12)
    assert np.array_equal(a.points, b.points) and np.array_equal(a.turns, b.turns)
    assert not np.array_equal(a.turns, c.turns)
    assert set(np.abs(a.points)) <= {1, 2, 3} and (a.points != 0).all()


def test_heuristic_beats_random_by_a_wide_margin():
    result = play_games((evaluator_policy(HeuristicEvaluator()), random_policy(np.random.default_rng(2))), 400, seed=2)
    assert result.points.mean() > 1.0 and (result.points > 0).mean() > 0.85


def test_a_duplicate_duel_reports_every_finished_game_to_its_progress_bar():
    finished_games = []
    heuristic = evaluator_policy(HeuristicEvaluator())
    stats = duel(Cubeless(heuristic), Cubeless(random_policy(np.random.default_rng(1))), 60, seed=5,
                 progress=finished_games.append)
    assert sum(finished_games) == stats.games == 60 and len(finished_games) > 2


@pytest.mark.parametrize("variant, checkers", [("standard", 15), ("nackgammon", 15), ("hypergammon", 3)])
def test_recorded_games_are_legal_turn_by_turn(variant, checkers):
    result = play_games((random_policy(np.random.default_rng(5)),) * 2, 20, seed=6, variant=variant, record=True)
    for record in result.records:
        for _, dice, before, move in record.turns:
            validate(before, checkers)
            assert (checkers_off(before, checkers) >= 0).all()
            find_play(before, dice, move)  # raises if the recorded move were not legal


def test_a_policy_choosing_outside_its_game_is_an_error():
    def cheat(afterstates):
        return afterstates.offsets[1:] % max(len(afterstates), 1)  # the next game's first afterstate

    with pytest.raises(ValueError, match="outside its range"):
        play_games((cheat, cheat), 4, seed=1)


class Resigner(Cubeless):
    """Plays at random and offers ``points`` (per cube unit) after every roll."""

    resigning = True

    def __init__(self, points: int, seed: int = 1):
        super().__init__(random_policy(np.random.default_rng(seed)))
        self.points = points

    def resigns(self, boards, cubes, dice):
        assert len(boards) == len(cubes) == len(dice) and dice.shape[1] == 2
        return np.full(len(boards), self.points)


class Judge(Cubeless):
    def __init__(self, accept: bool):
        super().__init__(random_policy(np.random.default_rng(2)))
        self.accept, self.offers = accept, []

    def accepts_resignation(self, boards, cubes, offered):
        self.offers.extend(int(k) for k in offered)
        return np.full(len(boards), self.accept)


def test_an_accepted_resignation_ends_the_game_for_the_points_offered():
    events = []
    result = play((Resigner(2), Judge(True)), 50, seed=4, watch=events.append)
    assert (result.points == -2).all() and (result.turns <= 2).all()  # at its first roll at the latest
    resigned = [e for e in events if e.kind == "resign"]
    assert len(resigned) == 50 and all(e.accepted and e.player == 0 and e.value == 2 for e in resigned)
    assert [e.kind for e in events if e.slot == 0][-2:] == ["resign", "end"]


def test_a_declined_resignation_plays_the_roll_and_the_game_goes_on():
    judge, events = Judge(False), []
    result = play((Resigner(1), judge), 30, seed=5, watch=events.append)
    assert (result.points != 0).all() and (result.turns > 2).any()  # played out, whoever won
    moves_by_0 = sum(1 for e in events if e.kind == "move" and e.player == 0)
    assert len(judge.offers) == moves_by_0 and set(judge.offers) == {1}
    assert not any(e.accepted for e in events if e.kind == "resign")


def test_resignations_in_a_match_reach_the_crawford_game_and_the_end():
    events = []
    result = play((Resigner(1), Judge(True)), 1, seed=6, rules=Rules(match_length=3), watch=events.append)
    assert result.scores.tolist() == [[0, 3]] and result.games.tolist() == [3]
    assert [e.crawford for e in events if e.kind == "start"] == [False, False, True]
    assert [e.scores for e in events if e.kind == "end"] == [(0, 1), (0, 2), (0, 3)]
