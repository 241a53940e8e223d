"""Rollouts: exact on decided positions, reproducible, stratified first roll, truncation, many positions at once."""

import numpy as np
import pytest
from test_analysis import PipEvaluator  # tests/ is on sys.path under pytest

import gammon.engine.play.rollout as rollout_module
from gammon.engine.errors import GammonError
from gammon.engine.play.rollout import SETTLE_TURNS, cubeful_rollout, rollout, rollout_positions
from gammon.engine.rules.board import starting_board
from gammon.engine.rules.dice import ORDERED_ROLLS
from gammon.engine.rules.variants import VARIANTS
from gammon.engine.search.bearoff import WithBearoff
from gammon.engine.search.evaluator import afterstate_equity


def test_a_certain_gammon_rolls_out_to_exactly_two_points():
    board = np.zeros(26, dtype=np.int8)
    board[1] = 1  # our last checker on the 1-point: any roll bears it off
    board[19:25] = [-3, -3, -3, -2, -2, -2]  # opponent all home, nothing borne off
    result = rollout(PipEvaluator(), board, games=72, seed=1)
    assert result.equity == 2.0 and result.std_error == 0.0
    assert result.probs.tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]


def test_same_seed_same_rollout_and_other_seeds_differ():
    a = rollout(PipEvaluator(), starting_board(), games=72, seed=3)
    b = rollout(PipEvaluator(), starting_board(), games=72, seed=3)
    c = rollout(PipEvaluator(), starting_board(), games=72, seed=4)
    assert a.equity == b.equity and np.array_equal(a.probs, b.probs)
    assert a.equity != c.equity
    assert a.ci95[0] < a.equity < a.ci95[1]


def test_the_first_roll_is_stratified_over_the_36_rolls(monkeypatch):
    seen = []
    real = rollout_module.play

    def spy(*args, **kwargs):
        seen.append(np.asarray(kwargs["first_dice"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(rollout_module, "play", spy)
    rollout(PipEvaluator(), starting_board(), games=108, seed=0)
    first = np.concatenate(seen)
    counts = {tuple(r): int(((first[:, 0] == r[0]) & (first[:, 1] == r[1])).sum()) for r in ORDERED_ROLLS}
    assert set(counts.values()) == {3}


def test_truncated_games_are_scored_by_the_evaluator():
    result = rollout(PipEvaluator(), starting_board(), games=72, seed=2, truncate=2)
    assert result.truncated == 72
    assert 0 < result.probs[0] < 1
    with pytest.raises(ValueError, match="at least 2 games"):
        rollout(PipEvaluator(), starting_board(), games=1)


def test_cubeful_rollouts_play_on_when_too_good_and_are_reproducible():
    board = np.zeros(26, dtype=np.int8)
    board[1] = 1
    board[19:25] = [-3, -3, -3, -2, -2, -2]
    sure_gammon = cubeful_rollout(PipEvaluator(), board, games=72, seed=1)
    assert sure_gammon.equity == 2.0 and sure_gammon.doubles == 0  # too good to double: play for the gammon
    a = cubeful_rollout(PipEvaluator(), starting_board(), games=72, seed=5)
    b = cubeful_rollout(PipEvaluator(), starting_board(), games=72, seed=5)
    assert a.equity == b.equity and a.ci95[0] <= a.equity <= a.ci95[1]


def test_rollouts_play_and_score_by_the_evaluators_variant():
    board = np.zeros(26, dtype=np.int8)
    board[1] = 1  # our last checker comes off at once, all fifteen of theirs in our home board
    board[2:7] = -3
    fevga = PipEvaluator()
    fevga.variant = VARIANTS["fevga"]  # where nothing is hit there are no backgammons
    assert rollout(PipEvaluator(), board, games=36).equity == 3.0
    assert rollout(fevga, board, games=36).probs.tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert cubeful_rollout(PipEvaluator(), board, games=36).equity == 3.0
    assert cubeful_rollout(fevga, board, games=36).equity == 2.0


def test_many_positions_roll_out_at_once_each_for_its_player_on_roll():
    winning = np.zeros(26, dtype=np.int8)
    winning[1] = 1  # our last checker comes off at once, theirs all home with none off: a gammon
    winning[19:25] = [-3, -3, -3, -2, -2, -2]
    losing = np.zeros(26, dtype=np.int8)
    losing[13] = 15  # ours all on the midpoint; their last checker comes off next: we lose a gammon
    losing[24] = -1
    probs = rollout_positions(PipEvaluator(), np.stack([winning, losing, starting_board()]), games=72, seed=3)
    assert probs[:2].tolist() == [[1.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0]]
    assert 0 < probs[2, 0] < 1
    # One board plays rollout()'s games: game i starts with the (i mod 36)-th roll, the dice from the seed.
    alone = rollout_positions(PipEvaluator(), starting_board()[None], games=72, seed=3)
    assert np.array_equal(alone[0], rollout(PipEvaluator(), starting_board(), games=72, seed=3).probs)
    with pytest.raises(ValueError, match="at least 1 game"):
        rollout_positions(PipEvaluator(), winning[None], games=0)


def test_settled_games_stop_and_score_the_evaluators_answer():
    everything = rollout_positions(PipEvaluator(), starting_board()[None], games=72, seed=5,
                                   settled=lambda boards: np.ones(len(boards), dtype=bool))
    truncated = rollout(PipEvaluator(), starting_board(), games=72, seed=5, truncate=SETTLE_TURNS)
    assert np.array_equal(everything[0], truncated.probs)
    # A bear-off the databases hold is settled; the opening is not.
    bearoff = np.zeros(26, dtype=np.int8)
    bearoff[1:4], bearoff[22:25] = 2, -2
    assert WithBearoff(PipEvaluator()).settled(np.stack([bearoff, starting_board()])).tolist() == [True, False]


def _small_bearoff() -> np.ndarray:
    """Two checkers a side, all home: the two-sided database's exact answer, at most 5 plays a roll (none
    pruned by a screen)."""
    board = np.zeros(26, dtype=np.int8)
    board[[2, 5]] = 1
    board[[20, 23]] = -1  # the opponent's 5- and 2-points
    return board


def test_variance_reduction_with_an_exact_evaluator_leaves_no_variance_and_the_exact_value():
    """Each game's result less the luck of its rolls telescopes to the position's value when the evaluator is
    exact (the bear-off databases): every game says it, with no noise."""
    evaluator = WithBearoff(PipEvaluator())
    exact = float(np.asarray(evaluator.probabilities(_small_bearoff()[None]))[0, 0]) * 2 - 1  # no gammons here
    result = rollout(evaluator, _small_bearoff(), games=72, seed=5, reduce_variance=True)
    assert result.equity == pytest.approx(exact, abs=1e-9) and result.std_error < 1e-9
    plain = rollout(evaluator, _small_bearoff(), games=72, seed=5)
    assert plain.std_error > 0.05


class Skewed:
    """The exact bear-off evaluator with every P(win) shrunk: the same choices (the order is kept), a wrong
    judge of luck."""

    name, screen = "skewed", None

    def __init__(self):
        self.exact = WithBearoff(PipEvaluator())
        self.variant = self.exact.variant

    def probabilities(self, boards):
        probs = np.array(self.exact.probabilities(boards), dtype=np.float64)
        probs[:, 0] = 0.2 + 0.6 * probs[:, 0]
        return probs

    def score_afterstates(self, boards):
        return afterstate_equity(self, boards)


def test_variance_reduction_keeps_the_mean_whatever_judges_the_luck():
    exact = WithBearoff(PipEvaluator())
    value = float(np.asarray(exact.probabilities(_small_bearoff()[None]))[0, 0]) * 2 - 1
    result = rollout(Skewed(), _small_bearoff(), games=1296, seed=6, reduce_variance=True)
    assert result.std_error > 1e-3  # the skewed judge leaves noise in
    assert abs(result.equity - value) < 4 * result.std_error
    plain = rollout(Skewed(), _small_bearoff(), games=1296, seed=6)
    assert result.std_error < plain.std_error / 2


def test_variance_reduced_rollouts_repeat_and_truncate():
    a = rollout(PipEvaluator(), starting_board(), games=36, seed=3, truncate=3, reduce_variance=True)
    b = rollout(PipEvaluator(), starting_board(), games=36, seed=3, truncate=3, reduce_variance=True)
    assert a.equity == b.equity and a.truncated == 36 and a.ci95[0] < a.equity < a.ci95[1]


def test_the_plays_of_a_roll_roll_out_to_their_exact_values_and_a_winning_play_to_its_result():
    from gammon.engine.play.rollout import rollout_plays
    from gammon.engine.rules.board import flip
    from gammon.engine.rules.notation import legal_plays

    evaluator = WithBearoff(PipEvaluator())
    plays = legal_plays(_small_bearoff(), (2, 1))
    afterstates = np.stack([p.board for p in plays])
    exact = 1 - 2 * np.asarray(evaluator.probabilities(flip(afterstates)))[:, 0]  # the opponent rolls next
    rolled = rollout_plays(evaluator, afterstates, np.zeros(len(plays), dtype=bool), games=72, seed=2,
                           reduce_variance=True)
    assert [r.equity for r in rolled] == pytest.approx(exact.tolist(), abs=1e-9)
    assert max(r.diff for r in rolled) == 0.0 and all(r.diff_ci95[1] - r.diff_ci95[0] < 1e-9 for r in rolled)
    (won,) = rollout_plays(evaluator, np.stack([p.board for p in legal_plays(_small_bearoff(), (6, 5))]),
                           np.zeros(1, dtype=bool), games=36)
    assert won.equity == 1.0 and won.ci95 == (1.0, 1.0)


def test_a_cube_rollout_of_a_sure_gammon_is_too_good_to_double():
    from gammon.engine.cube.state import Cube
    from gammon.engine.play.rollout import cube_rollout

    board = np.zeros(26, dtype=np.int8)
    board[1] = 1  # any roll bears our last checker off; the opponent has borne off none
    board[19:25] = [-3, -3, -3, -2, -2, -2]
    result = cube_rollout(PipEvaluator(), board, Cube(), games=36, seed=1)
    assert (result.no_double, result.double_take, result.double_pass) == (2.0, 4.0, 1.0)
    assert result.verdict == "Too good to double, pass" and result.take_less_no_double_ci95 == (2.0, 2.0)
    with pytest.raises(ValueError, match="no cube action"):
        cube_rollout(PipEvaluator(), board, Cube(2, "opponent"), games=36)


def test_no_double_in_a_cube_rollout_keeps_the_cube_for_the_first_roll():
    """A double/pass by the bot: a cubeful rollout of the position doubles at once and wins 1 in every game, while
    the cube rollout's no double plays the first roll without doubling (and may then lose)."""
    from gammon.engine.cube.state import Cube
    from gammon.engine.play.rollout import cube_rollout

    evaluator = WithBearoff(PipEvaluator())
    board = np.zeros(26, dtype=np.int8)
    board[[2, 3]] = 1
    board[[19, 22]] = -1  # the opponent's 6- and 3-points: he needs two rolls, we one unless 2-1
    as_is = cubeful_rollout(evaluator, board, Cube(), games=72, seed=1)
    assert as_is.equity == 1.0 and as_is.doubles == as_is.passes == 72
    actions = cube_rollout(evaluator, board, Cube(), games=72, seed=1)
    assert actions.no_double < 1.0 < actions.double_take and actions.verdict == "Double, pass"


def test_cubeful_rollouts_at_a_match_score_value_the_match():
    """Issue 30: the cube at a match score. A sure gammon at 3-away/5-away: no double wins 2 points (to 1-away),
    double/take 4 (the match); too good to double. In the Crawford game nobody doubles."""
    from gammon.engine.cube.match import to_emg
    from gammon.engine.cube.state import Cube
    from gammon.engine.play.rollout import cube_rollout, cubeful_rollout

    board = np.zeros(26, dtype=np.int8)
    board[1] = 1
    board[19:25] = [-3, -3, -3, -2, -2, -2]
    cube = Cube(1, "centered", (3, 5))
    result = cube_rollout(PipEvaluator(), board, cube, games=36, seed=1)
    assert result.no_double == pytest.approx(float(to_emg(cube.after(2), cube)))
    assert result.double_take == pytest.approx(float(to_emg(1.0, cube))) and result.double_pass == 1.0
    assert result.no_double > 1.0 and result.verdict == "Too good to double, pass"
    crawford = Cube(1, "centered", (1, 4), crawford=True)
    with pytest.raises(ValueError, match="the Crawford game"):
        cube_rollout(PipEvaluator(), starting_board(), crawford, games=36)
    played = cubeful_rollout(PipEvaluator(), starting_board(), crawford, games=72, seed=2)
    assert played.doubles == 0 and -1.0 <= played.ci95[0] < played.equity < played.ci95[1] <= 2.0


def test_cubeful_variance_reduction_with_an_exact_evaluator_gives_the_exact_match_equity():
    """The Crawford game (nobody doubles) of a bear-off the databases hold: the match equity of the exact
    chances, and every game less the luck of its rolls says exactly that."""
    from gammon.engine.cube.match import to_emg
    from gammon.engine.cube.state import Cube

    evaluator = WithBearoff(PipEvaluator())
    score = Cube(1, "centered", (1, 3), crawford=True)
    win = float(np.asarray(evaluator.probabilities(_small_bearoff()[None]))[0, 0])  # no gammons here
    exact = float(to_emg(win * score.after(1) + (1 - win) * score.after(-1), score))
    result = cubeful_rollout(evaluator, _small_bearoff(), score, games=72, seed=5, reduce_variance=True)
    assert result.equity == pytest.approx(exact, abs=1e-9) and result.std_error < 1e-9
    plain = cubeful_rollout(evaluator, _small_bearoff(), score, games=72, seed=5)
    assert plain.std_error > 0.05


@pytest.mark.parametrize("cube", [{}, {"away": (2, 4)}], ids=["money", "match"])
def test_cubeful_variance_reduction_keeps_the_mean_whatever_judges_the_luck(cube):
    """A live cube (both sides double, take and pass inside the games) and a wrong judge of luck: the
    variance-reduced mean agrees with a plain rollout's, and its interval is narrower."""
    from gammon.engine.cube.state import Cube
    from gammon.engine.play.rollout import cube_rollout

    board = _small_bearoff()
    reduced = cubeful_rollout(Skewed(), board, Cube(**cube), games=1296, seed=6, reduce_variance=True)
    plain = cubeful_rollout(Skewed(), board, Cube(**cube), games=1296, seed=7)
    assert reduced.doubles > 0 and reduced.std_error > 1e-3  # the cube was used; the skewed judge leaves noise
    assert abs(reduced.equity - plain.equity) < 4 * np.hypot(reduced.std_error, plain.std_error)
    assert reduced.std_error < plain.std_error / 2
    actions = cube_rollout(Skewed(), board, Cube(**cube), games=144, seed=6, reduce_variance=True)
    assert actions.take_less_no_double_ci95 != cube_rollout(Skewed(), board, Cube(**cube), games=144,
                                                            seed=6).take_less_no_double_ci95


@pytest.mark.parametrize("cube", [{}, {"away": (2, 4)}, {"away": (3, 4)}], ids=["money", "2-away", "3-away"])
def test_a_cubeful_rollout_truncated_after_one_roll_telescopes_to_one_value(cube):
    """Player 0 doubles and player 1 takes, then one roll: a game stopped there is scored as the luck judged
    the roll (the same cubeful value at the cube of 2, turned to player 0), so variance reduction leaves every
    game the same number, in money and match play alike; a game the roll ends scores its points."""
    from gammon.engine.cube.state import Cube
    from gammon.engine.search.analysis import cube_actions_at

    evaluator = WithBearoff(PipEvaluator())
    board = np.zeros(26, dtype=np.int8)
    board[[5, 6]] = 1
    board[[19, 21]] = -1  # the opponent's 6- and 4-points
    doubles, answer, _ = cube_actions_at(evaluator, board[None], [Cube(**cube)], 0)
    assert doubles[0] and answer[0] == 1  # double, take
    reduced = cubeful_rollout(evaluator, board, Cube(**cube), games=72, seed=1, reduce_variance=True, truncate=1)
    assert reduced.doubles == 72 and 0 < reduced.truncated < 72 and reduced.std_error < 1e-12
    plain = cubeful_rollout(evaluator, board, Cube(**cube), games=72, seed=1, truncate=1)
    assert plain.truncated == reduced.truncated and plain.std_error > 0.05
    assert plain.equity == pytest.approx(reduced.equity, abs=4 * plain.std_error)


def test_variance_reduced_games_take_every_pair_of_first_two_rolls_once_in_1296(monkeypatch):
    seen = []
    real = rollout_module._reduced_games

    def spy(evaluator, board, stratified, rng, *rest):
        seen.append(np.concatenate(stratified, axis=1))
        return real(evaluator, board, stratified, rng, *rest)

    monkeypatch.setattr(rollout_module, "_reduced_games", spy)
    rollout(PipEvaluator(), _small_bearoff(), games=1296, seed=0, reduce_variance=True, truncate=1)
    pairs = np.concatenate(seen)
    assert len(np.unique(pairs, axis=0)) == 1296
    # a Latin square: every 36 games hold every second roll too, so short rollouts (the levels) are not skewed
    assert all(len(np.unique(block[:, 2:], axis=0)) == 36 for block in pairs.reshape(36, 36, 4))


def test_later_rolls_of_variance_reduced_games_are_rotated_through_the_36_rolls():
    """Issue 30, quasi-random dice: at every later turn each 36 games in a row take the 36 ordered rolls once each,
    in an order drawn afresh each turn."""
    rng = np.random.default_rng(0)
    turns = [rollout_module._rotated_rolls(rng, 90) for _ in range(3)]
    for rolls in turns:
        assert rolls.shape == (90, 2)
        assert all(len(np.unique(block, axis=0)) == 36 for block in (rolls[:36], rolls[36:72]))
        assert {tuple(r) for r in rolls[72:]} <= {tuple(r) for r in ORDERED_ROLLS}
    assert not np.array_equal(turns[0], turns[1]) and not np.array_equal(turns[0][:36], turns[0][36:72])


def test_variance_reduced_cubeful_games_draw_rotated_rolls_and_plain_ones_uniform_rolls(monkeypatch):
    from gammon.engine.cube.state import Cube

    drawn = []
    real = rollout_module._rotated_rolls

    def spy(rng, n):
        drawn.append(real(rng, n))
        return drawn[-1]

    monkeypatch.setattr(rollout_module, "_rotated_rolls", spy)
    cubeful_rollout(PipEvaluator(), starting_board(), Cube(), games=72, seed=1, truncate=4)
    assert not drawn
    cubeful_rollout(PipEvaluator(), starting_board(), Cube(), games=72, seed=1, truncate=4, reduce_variance=True)
    assert drawn and all(len(np.unique(rolls[:36], axis=0)) == 36 for rolls in drawn)


def test_rollout_settings_are_checked_in_the_engine_too():
    for settings, fault in (({"truncate": 0}, "1 turn or more"), ({"search": (3, 2)}, "1- or 2-ply"),
                            ({"search": (1, 0)}, "1- or 2-ply")):
        with pytest.raises(ValueError, match=fault):
            rollout(PipEvaluator(), starting_board(), games=36, **settings)


def test_a_rollout_can_search_deeper_on_its_first_turns():
    """Issue 30: search inside the rollout, the first turns at 1-ply, then 0-ply; truncation counts all turns."""
    a = rollout(PipEvaluator(), starting_board(), games=36, seed=3, truncate=3, search=(1, 2))
    b = rollout(PipEvaluator(), starting_board(), games=36, seed=3, truncate=3, search=(1, 2))
    plain = rollout(PipEvaluator(), starting_board(), games=36, seed=3, truncate=3)
    assert a.equity == b.equity and a.truncated == 36 and a.equity != plain.equity
    board = np.zeros(26, dtype=np.int8)
    board[1] = 1
    board[19:25] = [-3, -3, -3, -2, -2, -2]
    assert rollout(PipEvaluator(), board, games=36, search=(1, 3)).equity == 2.0


def _plies_asked(monkeypatch, module) -> list[int]:
    """The plies of every search policy ``module`` makes from now on (engine.search.analysis.ply_policy)."""
    asked = []
    real = module.ply_policy

    def spy(evaluator, plies):
        asked.append(plies)
        return real(evaluator, plies)

    monkeypatch.setattr(module, "ply_policy", spy)
    return asked


def test_variance_reduction_with_a_search_on_the_first_turns_keeps_the_exact_value(monkeypatch):
    """Issue 30: a deeper search with variance reduction. The first turns are played by the 1-ply search (asked
    once a turn), the luck still judged at 0-ply; with an exact judge every game still gives the exact value."""
    asked = _plies_asked(monkeypatch, rollout_module)
    exact = WithBearoff(PipEvaluator())
    board = _small_bearoff()
    truth = float(np.asarray(exact.probabilities(board[None]))[0, 0]) * 2 - 1  # no gammons here
    result = rollout(exact, board, games=36, seed=1, reduce_variance=True, search=(1, 2))
    assert asked == [1, 1] and result.equity == pytest.approx(truth, abs=1e-9)
    a = rollout(PipEvaluator(), starting_board(), games=36, seed=3, truncate=3, reduce_variance=True, search=(1, 2))
    plain = rollout(PipEvaluator(), starting_board(), games=36, seed=3, truncate=3, reduce_variance=True)
    assert a.equity != plain.equity


def test_cubeful_rollouts_search_their_first_turns_deeper_with_the_same_dice(monkeypatch):
    """Issue 30: search inside cubeful rollouts. The first turns by the 1-ply search (asked for each player),
    the luck still judged at 0-ply: with an exact judge in a Crawford bear-off every game still gives the exact
    match equity; from the opening the same seed's games play other moves and so end otherwise."""
    import gammon.engine.play.players as players_module
    from gammon.engine.cube.match import to_emg
    from gammon.engine.cube.state import Cube

    asked = _plies_asked(monkeypatch, players_module)
    exact = WithBearoff(PipEvaluator())
    score = Cube(1, "centered", (1, 3), crawford=True)
    win = float(np.asarray(exact.probabilities(_small_bearoff()[None]))[0, 0])
    truth = float(to_emg(win * score.after(1) + (1 - win) * score.after(-1), score))
    result = cubeful_rollout(exact, _small_bearoff(), score, games=36, seed=1, reduce_variance=True, search=(1, 2))
    assert asked == [1] and result.equity == pytest.approx(truth, abs=1e-9) and result.std_error < 1e-9
    searched = cubeful_rollout(PipEvaluator(), starting_board(), games=36, seed=3, truncate=3, search=(1, 2))
    plain = cubeful_rollout(PipEvaluator(), starting_board(), games=36, seed=3, truncate=3)
    assert searched.equity != plain.equity and searched.truncated > 0
    with pytest.raises(GammonError, match="1- or 2-ply"):
        cubeful_rollout(PipEvaluator(), starting_board(), games=36, search=(3, 1))


def test_variance_reduction_is_refused_where_a_roll_has_thousands_of_plays():
    from gammon.models.players import load_analyst

    acey = load_analyst("default", variant="acey-deucey")
    with pytest.raises(ValueError, match="not in this variant"):
        rollout(acey, acey.variant.starting_board(), games=36, reduce_variance=True)


class Killed(Exception):
    """Stands for a kill: raised by the progress callback after some chunks of games."""


def _killed_after(chunks: int):
    seen = []

    def progress(n):
        seen.append(n)
        if len(seen) == chunks:
            raise Killed

    return progress


@pytest.mark.parametrize("how", [dict(), dict(reduce_variance=True, truncate=2), dict(until=0.1, truncate=3)])
def test_a_killed_rollout_resumes_from_its_store_to_the_numbers_of_an_unbroken_run(tmp_path, monkeypatch, how):
    from gammon.engine.play.shards import ChunkStore

    monkeypatch.setattr(rollout_module, "CHUNK", 36)
    monkeypatch.setattr(rollout_module, "STOP_CHECK", 36)
    games = 36 * 4 if how.get("reduce_variance") else 36 * 8
    unbroken = rollout(PipEvaluator(), starting_board(), games=games, seed=4, **how)
    store = ChunkStore(tmp_path / "r.store", {"seed": 4})
    with pytest.raises(Killed):
        rollout(PipEvaluator(), starting_board(), games=games, seed=4, progress=_killed_after(2), store=store, **how)
    store.close()
    again = ChunkStore(tmp_path / "r.store", {"seed": 4})
    assert sorted(again.done) == [0, 36]  # the two chunks finished before the kill
    played = []
    resumed = rollout(PipEvaluator(), starting_board(), games=games, seed=4, store=again, **how,
                      progress=played.append)
    assert resumed.games == unbroken.games and resumed.equity == unbroken.equity
    assert np.array_equal(resumed.probs, unbroken.probs) and resumed.std_error == unbroken.std_error
    assert resumed.truncated == unbroken.truncated


def test_a_killed_cubeful_rollout_resumes_to_the_same_numbers(tmp_path, monkeypatch):
    from gammon.engine.play.shards import ChunkStore

    monkeypatch.setattr(rollout_module, "CHUNK", 36)
    unbroken = cubeful_rollout(PipEvaluator(), starting_board(), games=144, seed=5)
    store = ChunkStore(tmp_path / "c.store", {})
    with pytest.raises(Killed):
        cubeful_rollout(PipEvaluator(), starting_board(), games=144, seed=5, progress=_killed_after(3), store=store)
    store.close()
    resumed = cubeful_rollout(PipEvaluator(), starting_board(), games=144, seed=5,
                              store=ChunkStore(tmp_path / "c.store", {}))
    assert (resumed.equity, resumed.std_error, resumed.doubles, resumed.passes) == \
        (unbroken.equity, unbroken.std_error, unbroken.doubles, unbroken.passes)


def test_a_rollout_store_of_other_options_or_damaged_is_refused_in_one_line(tmp_path):
    from gammon.engine.play.shards import ChunkStore, StoreError

    ChunkStore(tmp_path / "r.store", {"seed": 1, "games": 72}).close()
    with pytest.raises(StoreError, match=r"other options \(seed\)") as error:
        ChunkStore(tmp_path / "r.store", {"seed": 2, "games": 72})
    assert "\n" not in str(error.value)
    with open(tmp_path / "r.store", "a") as f:
        f.write('{"first": "x"}\n')
    with pytest.raises(StoreError, match="line 2 .* not a finished piece"):
        ChunkStore(tmp_path / "r.store", {"seed": 1, "games": 72})


def test_cube_decisions_inside_cubeful_rollouts_are_searched_at_the_ply_asked(monkeypatch):
    """Issue 30: the cube at a chosen ply inside the rollout. Every cube decision of the games goes to the search
    at cube_plies; the games repeat with the same seed."""
    import gammon.engine.play.players as players

    asked = []
    real = players.cube_actions_at

    def spy(evaluator, boards, cubes, plies):
        asked.append(plies)
        return real(evaluator, boards, cubes, plies)

    monkeypatch.setattr(players, "cube_actions_at", spy)
    a = cubeful_rollout(PipEvaluator(), starting_board(), games=36, seed=2, cube_plies=1)
    assert asked and set(asked) == {1}
    assert cubeful_rollout(PipEvaluator(), starting_board(), games=36, seed=2, cube_plies=1).equity == a.equity
    with pytest.raises(GammonError, match="0, 1 or 2 plies"):
        cubeful_rollout(PipEvaluator(), starting_board(), games=36, cube_plies=3)


@pytest.mark.parametrize("reduce_variance", [False, True])
def test_truncated_games_are_scored_by_the_search_at_the_ply_asked(monkeypatch, reduce_variance):
    """Issue 30: truncation with the position scored at a chosen ply. A game stopped by the truncation is worth
    what the search at that depth says of it; 0-ply is the evaluator alone."""
    asked = []
    real = rollout_module.position_probs

    def spy(evaluator, boards, plies):
        asked.append((len(boards), plies))
        return real(evaluator, boards, plies)

    monkeypatch.setattr(rollout_module, "position_probs", spy)
    deep = rollout(PipEvaluator(), starting_board(), games=36, seed=2, truncate=2, truncate_plies=1,
                   reduce_variance=reduce_variance)
    assert [plies for _, plies in asked] == [1] and asked[0][0] == deep.truncated == 36
    shallow = rollout(PipEvaluator(), starting_board(), games=36, seed=2, truncate=2, reduce_variance=reduce_variance)
    assert len(asked) == 1 and shallow.equity != deep.equity
    with pytest.raises(GammonError, match="without truncation"):
        rollout(PipEvaluator(), starting_board(), games=36, truncate_plies=1)
    cubeful = cubeful_rollout(PipEvaluator(), starting_board(), games=36, seed=2, truncate=2, truncate_plies=1,
                              reduce_variance=reduce_variance)
    assert [plies for _, plies in asked[1:]] == [1] and asked[1][0] == cubeful.truncated > 0
    with pytest.raises(GammonError, match="without truncation"):
        cubeful_rollout(PipEvaluator(), starting_board(), games=36, truncate_plies=1)


def test_a_cubeful_rollout_stops_once_its_interval_is_narrow_enough():
    wide = cubeful_rollout(PipEvaluator(), starting_board(), games=432, seed=1, until=10.0)
    assert wide.games == 144  # the first look, after 144 games
    narrow = cubeful_rollout(PipEvaluator(), starting_board(), games=432, seed=1, until=1e-6)
    assert narrow.games == 432
