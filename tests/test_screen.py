"""The pruning net inside searches (engine.search.evaluator.zero_ply_choice) and its training (training/prune.py)."""

import shutil
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.rules.board import flip, starting_board
from gammon.engine.rules.dice import ROLL_WEIGHTS, ROLLS
from gammon.engine.rules.groups import best_in_groups
from gammon.engine.rules.movegen import generate
from gammon.engine.rules.outcomes import RESULT_POINTS
from gammon.engine.search.analysis import DEEP_SEARCH, best_play_of_every_roll, position_probs, searched_afterstates
from gammon.engine.search.evaluator import SCREEN_KEEP, afterstate_equity
from gammon.models.features import escape_table
from gammon.models.inference import load_screen, native_screen, native_screen_choices, pruning_path
from gammon.models.players import load_analyst

MODELS = Path(__file__).resolve().parents[1] / "models"


@pytest.fixture(scope="module")
def analyst():
    return load_analyst("default")


@pytest.fixture(scope="module")
def middle_game():
    """A few positions a couple of moves into a game, both sides in contact."""
    boards = []
    rng = np.random.default_rng(5)
    board = starting_board()
    for _ in range(6):
        after = generate(board[None], ROLLS[rng.integers(len(ROLLS))][None]).boards
        board = flip(after[rng.integers(len(after))])
        boards.append(board)
    return np.stack(boards)


def searched(analyst, boards, screen, plies=1, depth=None):
    kept = analyst.evaluator.screen
    analyst.evaluator.screen = screen
    try:
        return position_probs(analyst, boards, plies, depth=depth)
    finally:
        analyst.evaluator.screen = kept


def test_the_shipped_model_searches_with_its_pruning_net(analyst):
    assert analyst.screen is not None


def test_a_screen_that_ranks_as_the_net_does_changes_nothing(analyst, middle_game):
    def exact(boards):
        return afterstate_equity(analyst.evaluator, boards)

    np.testing.assert_allclose(searched(analyst, middle_game, exact), searched(analyst, middle_game, None), atol=1e-6)


def test_a_screen_that_ranks_backwards_is_obeyed(analyst, middle_game):
    def backwards(boards):
        return -afterstate_equity(analyst.evaluator, boards)

    worse = searched(analyst, middle_game, backwards)
    full = searched(analyst, middle_game, None)
    # at 1-ply the side on roll plays each roll: judging only its worst plays costs it
    assert (full[:, 0] - worse[:, 0]).mean() > 0.02


def test_the_deepest_ply_of_a_deep_search_plays_the_screens_first_choice(analyst, middle_game):
    """From DEEP_SEARCH plies deep on, each roll at the deepest ply is played by the play the screen ranks first,
    however many it would otherwise judge in full: with a screen ranking backwards, the net's worst play."""
    def backwards(boards):
        return -afterstate_equity(analyst.evaluator, boards)

    after = generate(np.repeat(middle_game, len(ROLLS), axis=0), np.tile(ROLLS, (len(middle_game), 1)))
    worst = best_in_groups(-afterstate_equity(analyst.evaluator, after.boards), after.offsets)
    expected = np.einsum("nrk,r->nk", searched_afterstates(analyst, after.boards[worst], 0).reshape(-1, len(ROLLS), 5),
                         ROLL_WEIGHTS)
    np.testing.assert_allclose(searched(analyst, middle_game, backwards, depth=DEEP_SEARCH), expected, atol=1e-9)
    # a shallower search judges the screen's best few in full and plays the best of them
    assert (searched(analyst, middle_game, backwards, depth=DEEP_SEARCH - 1)[:, 0] - expected[:, 0]).mean() > 0.02


@pytest.mark.skipif(native_screen is None, reason="models/_native.c was not built (no C compiler)")
def test_the_compiled_screen_answers_as_the_numpy_one(analyst, middle_game, instruction_set):
    """NaN for the same afterstates (games over, races), the same equities to float rounding."""
    screen = analyst.evaluator.screen
    assert screen._compiled
    rolls = np.repeat(ROLLS, len(middle_game), axis=0)
    boards = np.concatenate([generate(np.tile(middle_game, (len(ROLLS), 1)), rolls).boards,
                             generate(np.tile(_race_and_bear_off(), (len(ROLLS), 1)),
                                      np.repeat(ROLLS, 2, axis=0)).boards])
    compiled = screen(boards)
    screen._compiled = False
    try:
        numpy = screen(boards)
    finally:
        screen._compiled = True
    assert np.array_equal(np.isnan(compiled), np.isnan(numpy)) and np.isnan(numpy).any() and not np.isnan(numpy).all()
    judged = ~np.isnan(numpy)
    # float32 sums in another order: at most 9.4e-7 apart over 328,070 afterstates of the test families
    np.testing.assert_allclose(compiled[judged], numpy[judged], atol=2e-6)


@pytest.mark.skipif(native_screen is None, reason="models/_native.c was not built (no C compiler)")
def test_the_screen_of_plays_from_their_starting_boards_answers_as_the_plain_one(analyst, middle_game,
                                                                                 instruction_set):
    """Screen.played, each afterstate summed from the board its play started from plus the inputs it changed: the
    plain screen's NaN and equities to float rounding, also for hits, entries from the bar, bearing off in contact and
    plays that leave a race, whichever order the afterstates come in."""
    starts = np.concatenate([middle_game, _race_and_bear_off(), _bars_and_bear_off_in_contact()])
    origins = np.repeat(starts, len(ROLLS), axis=0)
    after = generate(origins, np.tile(ROLLS, (len(starts), 1)))
    screen = analyst.evaluator.screen
    assert screen._compiled
    plain = screen(after.boards)
    played = screen.played(after.boards, origins, after.parent)
    assert np.array_equal(np.isnan(played), np.isnan(plain)) and np.isnan(plain).any() and not np.isnan(plain).all()
    judged = ~np.isnan(plain)
    np.testing.assert_allclose(played[judged], plain[judged], atol=2e-6)
    shuffled = np.random.default_rng(1).permutation(len(after.boards))
    np.testing.assert_allclose(screen.played(after.boards[shuffled], origins, after.parent[shuffled]), played[shuffled],
                               atol=1e-12)
    # a search through it gives the plain screen's probabilities
    np.testing.assert_allclose(searched(analyst, starts, screen, plies=2),
                               searched(analyst, starts, lambda boards: screen(boards), plies=2), atol=1e-6)


@pytest.mark.skipif(native_screen is None, reason="models/_native.c was not built (no C compiler)")
def test_the_compiled_screen_refuses_starting_boards_it_cannot_index(analyst):
    screen = analyst.evaluator.screen
    boards = generate(starting_board()[None], np.array([[3, 1]])).boards
    args = (boards, *screen._weights, escape_table(), RESULT_POINTS, np.empty(len(boards)))
    for extra in [(starting_board()[None],), (starting_board()[None], np.full(len(boards), 1)),
                  (starting_board()[None], np.full(len(boards) + 1, 0))]:
        with pytest.raises(ValueError, match="origins"):
            native_screen(*args, *extra)


def _bars_and_bear_off_in_contact():
    """Both sides on the bar; and the mover bearing off past an opponent's anchor on its 3-point."""
    bars, anchor = np.zeros((2, 26), dtype=np.int8)
    bars[[25, 6, 8, 13, 24, 0, 1, 12, 17, 19]] = [1, 5, 3, 4, 2, 1, -2, -5, -3, -4]
    anchor[[1, 2, 4, 5, 3, 20]] = [3, 3, 2, 2, -2, -13]
    return np.stack([bars, anchor])


def _race_and_bear_off():
    """A race, and a bear-off that one roll can finish."""
    race, last = np.zeros((2, 26), dtype=np.int8)
    race[[3, 5, 20, 22]] = [8, 7, -8, -7]
    last[[1, 20]] = [1, -15]
    return np.stack([race, last])



@pytest.mark.skipif(native_screen_choices is None, reason="models/_native.c was not built (no C compiler)")
@pytest.mark.parametrize("keep", [1, SCREEN_KEEP])
def test_a_search_s_choices_found_in_one_compiled_pass_are_the_numpy_path_s(analyst, middle_game, keep,
                                                                            instruction_set):
    """Screen.choices (the plays generated, screened from their board and picked in C) hands the search the plays
    the numpy path judges in full: each roll's unscreened plays and the screen's best ``keep``, all plays of a roll
    with ``keep`` or fewer; with hits, both bars, bearing off in contact, races and games that end. The search's
    choices and probabilities are then the numpy path's."""
    starts = np.concatenate([middle_game, _race_and_bear_off(), _bars_and_bear_off_in_contact()])
    screen = analyst.evaluator.screen
    rows, group = screen.choices(starts, ROLLS, keep)
    assert (np.diff(group) >= 0).all() and set(group) == set(range(len(starts) * len(ROLLS)))
    after = generate(np.repeat(starts, len(ROLLS), axis=0), np.tile(ROLLS, (len(starts), 1)))
    scores = screen.played(after.boards, after.origins, after.parent)
    for g in range(len(starts) * len(ROLLS)):
        plays = after.boards[after.offsets[g]:after.offsets[g + 1]]
        values = scores[after.offsets[g]:after.offsets[g + 1]]
        expected = np.ones(len(plays), dtype=bool)
        if len(plays) > keep:
            ranked = np.where(np.isnan(values), np.inf, values)
            expected = np.isnan(values) | np.isin(np.arange(len(plays)), np.argsort(-ranked, kind="stable")[
                np.isnan(values).sum():np.isnan(values).sum() + keep])
        np.testing.assert_array_equal(rows[group == g], plays[expected])
    assert len(rows) < len(after.boards) // 2 or keep > 1
    screen._choosing = False  # the numpy path: every play generated, screened and chosen in numpy
    try:
        numpy = best_play_of_every_roll(analyst.evaluator, starts, keep)
    finally:
        screen._choosing = True
    compiled = best_play_of_every_roll(analyst.evaluator, starts, keep)
    np.testing.assert_array_equal(compiled[0], numpy[0])
    np.testing.assert_array_equal(compiled[1], numpy[1])
    np.testing.assert_allclose(compiled[2], numpy[2], atol=1e-12)
    assert [a.shape for a in best_play_of_every_roll(analyst.evaluator, starts[:0], keep)] == [(0, 21, 26), (0, 21),
                                                                                              (0, 21, 5)]


@pytest.mark.skipif(native_screen_choices is None, reason="models/_native.c was not built (no C compiler)")
def test_the_compiled_choices_refuse_what_they_cannot_play(analyst):
    screen = analyst.evaluator.screen
    board = np.ascontiguousarray(starting_board()[None], dtype=np.int8)
    rest = (*screen._weights, escape_table(), RESULT_POINTS)
    with pytest.raises(ValueError, match="keep >= 1"):
        native_screen_choices(board, np.array([[3, 1]], dtype=np.int8), 0, *rest)
    with pytest.raises(ValueError, match="dice 1-6"):
        native_screen_choices(board, np.array([[7, 1]], dtype=np.int8), 1, *rest)
    assert screen.choices(board[:, :25], ROLLS, 1) is None  # not a board of this layout: the numpy path


def test_unjudged_plays_are_always_judged_in_full(analyst, middle_game):
    np.testing.assert_allclose(searched(analyst, middle_game, lambda b: np.full(len(b), np.nan)),
                               searched(analyst, middle_game, None), atol=1e-6)


@pytest.mark.parametrize("side", ["first", "second"])
def test_the_pruning_net_keeps_the_best_opening_play_of_every_roll(analyst, side):
    board = starting_board()
    if side == "second":  # the reply: the opponent has played 3-1 (8/5 6/5)
        after = generate(board[None], np.array([[3, 1]])).boards
        board = flip(after[np.argmax(afterstate_equity(analyst, after))])
    for dice in ROLLS:
        after = generate(board[None], dice[None]).boards
        best = np.argmax(afterstate_equity(analyst, after))
        scores = analyst.screen(after)
        assert (scores > scores[best]).sum() < SCREEN_KEEP, f"{dice}: the best play ranks below {SCREEN_KEEP}"


def test_a_pruning_net_taught_by_other_weights_is_ignored(tmp_path):
    weights = tmp_path / "net.pt"
    shutil.copy(MODELS / "default.pt", weights)
    for suffix in (".pt", ".npz"):
        shutil.copy(MODELS / f"default-prune{suffix}", tmp_path / f"net-prune{suffix}")
    assert pruning_path(weights).is_file()
    assert load_screen(weights, analyst_variant()) is not None
    weights.write_bytes(weights.read_bytes() + b"\0")
    assert load_screen(weights, analyst_variant()) is None


def analyst_variant():
    from gammon.engine.rules.variants import STANDARD

    return STANDARD


def test_a_tiny_pruning_run_writes_a_net_that_ranks_better_than_chance(tmp_path):
    from gammon.training.prune import PruneConfig, train_prune

    config = PruneConfig(positions=600, rolls=2, epochs=4, hidden=8, batch=256, holdout=0.3)
    weights = train_prune(MODELS / "default.pt", tmp_path, config, progress=False)
    assert weights.is_file()
    from gammon.models.network import load_weights

    meta = load_weights(weights).meta["pruning"]
    assert meta["teacher_sha256"] and meta["rolls"] == config.rolls  # the settings, not overwritten by the report
    # a random ranking keeps the best play with the share of plays kept; the fitted net clearly more often
    assert meta["best_kept_at_5"] > meta["best_kept_at_5_by_chance"] + 0.15


def test_a_generation_with_screen_labels_through_its_teachers_pruning_net(tmp_path):
    """--screen: refused until the teacher's pruning net is taught; then the labels are the screened search's,
    the same on worker processes, and not the unscreened search's; a net taught by other weights is refused."""
    from gammon.engine.errors import GammonError
    from gammon.engine.search.bearoff import WithBearoff
    from gammon.models.network import evaluator_from_payload, load_payload, screen_from_payload
    from gammon.training.distill import DistillConfig, generation, result_labels, teacher_screen
    from gammon.training.prune import PruneConfig, screen_for

    model = tmp_path / "net.pt"
    shutil.copy(MODELS / "default.pt", model)
    out = tmp_path / "gen"
    config = DistillConfig(positions=150, epochs=1, chunk=50, seed=3, nets="contact", screen=True)
    with pytest.raises(GammonError, match="gammon.training.prune"):
        generation(model, out, config, progress=False)
    prune = screen_for(model, out, PruneConfig(positions=300, rolls=2, epochs=2, hidden=8, batch=256), progress=False)
    assert "prune" in (out / "log.jsonl").read_text()
    generation(model, out, config, progress=False, workers=2)

    boards, labels = np.load(out / "positions.npy"), np.load(out / "labels.npy")
    plain = evaluator_from_payload(load_payload(model))
    unscreened = result_labels(position_probs(WithBearoff(plain), boards, 1))
    plain.screen = screen_from_payload(load_payload(prune))
    np.testing.assert_allclose(labels, result_labels(position_probs(WithBearoff(plain), boards, 1)), atol=1e-6)
    assert np.abs(labels - unscreened).max() > 1e-4  # a tiny pruning net misses some best replies

    model.write_bytes(model.read_bytes() + b"\0")
    with pytest.raises(GammonError, match="other weights"):
        teacher_screen(out, model)
