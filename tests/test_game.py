"""The batched game runner: opening roll, scoring, reproducibility, records."""

import numpy as np
import pytest

from engine.board import checkers_off, validate
from engine.game import greedy_policy, opening_rolls, play_games, random_policy, result_points
from engine.notation import find_play
from models.heuristic import heuristic_value


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
        return play_games((greedy_policy(heuristic_value), random_policy(np.random.default_rng(9))), 300, seed=seed)

    a, b, c = run(11), run(11), run(12)
    assert np.array_equal(a.points, b.points) and np.array_equal(a.turns, b.turns)
    assert not np.array_equal(a.turns, c.turns)
    assert set(np.abs(a.points)) <= {1, 2, 3} and (a.points != 0).all()


def test_heuristic_beats_random_by_a_wide_margin():
    result = play_games((greedy_policy(heuristic_value), random_policy(np.random.default_rng(2))), 400, seed=2)
    assert result.points.mean() > 1.0 and (result.points > 0).mean() > 0.85


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
