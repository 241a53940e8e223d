"""Games with the cube: access, passes, redoubles, beavers, Jacoby, automatic doubles, matches, Crawford."""

import numpy as np
import pytest

from gammon.engine.cube.state import BEAVER, PASS, TAKE
from gammon.engine.play.duel import duel
from gammon.engine.play.game import Rules, opening_rolls, play, random_policy
from gammon.engine.play.players import EvaluatorPlayer, Player
from gammon.models.baselines import HeuristicEvaluator


class Scripted(Player):
    """A player that doubles whenever asked while the cube is below ``up_to`` (or never), and always
    answers the same; it records what it was asked."""

    doubling = True

    def __init__(self, double: bool, answer: int, seed: int = 0, up_to: int = 2**10):
        self.policy = random_policy(np.random.default_rng(seed))
        self.double, self.answer, self.up_to = double, answer, up_to
        self.asked = []

    def doubles(self, boards, cubes):
        self.asked += [(c.value, c.owner == "me", c.away) for c in cubes]
        return self.double & (np.array([c.value for c in cubes]) < self.up_to)

    def answers(self, boards, cubes):
        return np.full(len(boards), self.answer)


def test_a_pass_pays_the_value_before_the_offer():
    result = play((Scripted(True, PASS), Scripted(True, PASS, 1)), 200, seed=1)
    assert set(np.abs(result.points)) == {1} and result.passes == 200


def test_only_a_player_with_access_is_asked_and_redoubles_have_no_limit():
    a, b = Scripted(True, TAKE), Scripted(True, TAKE, 1)
    result = play((a, b), 50, seed=2)
    for asked in (a.asked, b.asked):
        centered = [cube for cube, owned, _ in asked if not owned]
        assert set(centered) == {1}  # an un-owned cube is asked about only while centered at 1
    assert max(cube for cube, _, _ in a.asked + b.asked) == 2**10  # every turn redoubles, up to the script's limit
    assert all(points % 2 == 0 for points in np.abs(result.points))
    with pytest.raises(OverflowError, match="no limit"):
        play((Scripted(True, TAKE, up_to=2**62), Scripted(True, TAKE, 1, up_to=2**62)), 20, seed=2)


def test_a_beaver_turns_the_cube_twice_and_the_beaverer_keeps_it():
    doubler, beaverer = Scripted(True, TAKE), Scripted(False, BEAVER, 1)
    result = play((doubler, beaverer), 100, seed=3, rules=Rules(beavers=True))
    assert set(np.abs(result.points)) <= {4, 8, 12}  # the doubler doubles at its first turn, then 4x
    assert all(cube == 1 and not owned for cube, owned, _ in doubler.asked)  # never asked again after it
    no_beavers = play((Scripted(True, TAKE), Scripted(False, BEAVER, 1)), 100, seed=3)
    assert set(np.abs(no_beavers.points)) <= {2, 4, 6}  # without the rule a beaver is a plain take
    shy = Scripted(True, TAKE)
    shy.accepts_beaver = lambda boards, cubes: np.zeros(len(boards), dtype=bool)
    passed = play((shy, Scripted(False, BEAVER, 1)), 100, seed=3, rules=Rules(beavers=True))
    assert set(passed.points) <= {2, -2} and passed.passes == 100  # a passed beaver pays the doubled cube


def test_each_turn_rolls_its_own_dice(monkeypatch):
    import gammon.engine.play.game as game

    rolls = []
    real = game.generate

    def spy(boards, dice, **kwargs):
        rolls.extend(map(tuple, np.asarray(dice).tolist()))
        return real(boards, dice, **kwargs)

    monkeypatch.setattr(game, "generate", spy)
    play((Scripted(False, TAKE), Scripted(False, TAKE, 1)), 1, seed=9)
    repeats = sum(a == b for a, b in zip(rolls, rolls[1:]))
    assert len(rolls) > 20 and repeats < len(rolls) / 6  # about 1 in 18 by chance, never every other roll


def test_jacoby_counts_gammons_single_while_the_cube_is_centered():
    never = (Scripted(False, TAKE), Scripted(False, TAKE, 1))
    plain = play(never, 300, seed=4)
    jacoby = play(never, 300, seed=4, rules=Rules(jacoby=True))
    assert set(np.abs(plain.points)) > {1} and set(np.abs(jacoby.points)) == {1}


def test_automatic_doubles_respect_their_limit():
    rng = np.random.default_rng(5)
    dice, cube = opening_rolls(rng, 20_000, automatic=1)
    assert (dice[:, 0] != dice[:, 1]).all() and set(cube) == {1, 2}
    assert 0.12 < (cube == 2).mean() < 0.21  # one roll in six is a tie
    _, cube = opening_rolls(rng, 20_000, automatic=0)
    assert set(cube) == {1}


def test_matches_end_at_the_length_and_the_crawford_game_has_no_cube():
    a, b = Scripted(True, PASS), Scripted(True, PASS, 1)
    result = play((a, b), 100, seed=6, rules=Rules(match_length=3))
    assert (result.scores.max(axis=1) >= 3).all() and (result.scores.min(axis=1) < 3).all()
    assert np.array_equal(result.winner, (result.scores[:, 1] > result.scores[:, 0]).astype(int))
    # Every game but the Crawford game ends on the first double, which is passed.
    assert result.games.sum() - result.passes == 100
    one_point = play((Scripted(True, PASS), Scripted(True, PASS, 1)), 30, seed=7, rules=Rules(match_length=1))
    assert one_point.passes == 0 and (one_point.games == 1).all()


def test_a_duel_with_the_cube_reports_a_confidence_interval():
    heuristic = EvaluatorPlayer(HeuristicEvaluator())
    scripted = Scripted(False, TAKE)
    money = duel(heuristic, scripted, 100, seed=8, chunk=500).as_dict()
    assert money["ci95"][0] <= money["ppg"] <= money["ci95"][1] and money["ppg"] > 0.5
    assert money["win_rate"] is None  # a win's points count the cube: no gammon rates
    matches = duel(heuristic, scripted, 20, seed=8, rules=Rules(match_length=3), chunk=4).as_dict()
    assert 0.5 < matches["match_win_rate"] <= 1.0 and matches["games"] >= 20 and "ppg" not in matches
    with pytest.raises(ValueError, match="even"):
        duel(heuristic, scripted, 3)
