"""The move generator: the shared 20,000-item workload, rule corner cases, bad input."""

import json
from pathlib import Path

import numpy as np
import pytest

import gammon.engine.rules.movegen as movegen
from gammon.benchmarks.movegen import afterstate_hash, load_workload
from gammon.engine.rules.board import BoardError, flip, starting_board
from gammon.engine.rules.movegen import generate
from gammon.engine.rules.notation import legal_plays
from gammon.engine.rules.variants import VARIANTS

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def workload():
    boards, dice, hashes = load_workload(DATA / "movegen_workload.jsonl")
    used = [json.loads(line)["dice_used"] for line in open(DATA / "movegen_workload.jsonl")]
    return boards, dice, hashes, np.array(used)


@pytest.fixture(params=["compiled", "numpy"])
def generator(request, monkeypatch):
    """Backgammon's plays by engine/rules/_native.c, then by this module's numpy alone."""
    if request.param == "numpy":
        monkeypatch.setattr(movegen, "compiled_plays", None)
    elif movegen.compiled_plays is None:
        pytest.skip("engine/rules/_native.c was not built (no C compiler)")
    return request.param


def test_every_workload_item_matches_its_afterstate_hash(workload, generator):
    boards, dice, hashes, used = workload
    result = generate(boards, dice)
    assert len(hashes) == 20_000
    wrong = [i for i, h in enumerate(hashes) if afterstate_hash(result.of(i)) != h]
    assert wrong == [], f"{len(wrong)} mismatches, first {wrong[:5]}"
    assert np.array_equal(result.dice_used, used)


def test_batches_of_any_size_agree(workload):
    boards, dice, _, _ = workload
    pick = np.random.default_rng(7).choice(len(boards), 300, replace=False)
    whole = generate(boards[pick], dice[pick])
    for i, j in enumerate(pick[:40]):
        alone = generate(boards[j], dice[j])
        assert sorted(map(tuple, alone.boards.tolist())) == sorted(map(tuple, whole.of(i).tolist()))
    # Reversing the batch only reverses the groups.
    reverse = generate(boards[pick[::-1]], dice[pick[::-1]])
    assert np.array_equal(reverse.counts(), whole.counts()[::-1])


def test_hash_collisions_fall_back_to_exact_comparison(workload, monkeypatch):
    boards, dice, hashes, _ = workload
    monkeypatch.setattr(movegen, "compiled_plays", None)  # the numpy generator's hash table
    monkeypatch.setattr(movegen, "_WEIGHTS", np.zeros_like(movegen._WEIGHTS))  # every board collides
    result = generate(boards[:500], dice[:500])
    assert all(afterstate_hash(result.of(i)) == hashes[i] for i in range(500))


@pytest.mark.skipif(movegen.compiled_plays is None, reason="engine/rules/_native.c was not built (no C compiler)")
@pytest.mark.parametrize("variant", ["standard", "nackgammon", "hypergammon"])
def test_the_compiled_generator_gives_the_same_afterstates_in_the_same_order(workload, variant, monkeypatch):
    """Boards, plays, groups and dice used, element for element: searches break ties by this order."""
    boards, dice, _, _ = workload
    rolls = np.array([(a, b) for a in range(1, 7) for b in range(1, 7)])
    start = np.repeat(starting_board(variant)[None], len(rolls), axis=0)
    if variant == "standard":
        boards, dice = np.concatenate([boards, start]), np.concatenate([dice, rolls])
    else:  # the plain variants' own boards: their starts and the positions a few random plays lead to
        played, rng = [start], np.random.default_rng(3)
        for _ in range(12):
            after = generate(played[-1], rolls, variant=variant)
            pick = after.offsets[:-1] + (rng.random(len(rolls)) * after.counts()).astype(int)
            played.append(flip(after.boards[pick]))
        boards, dice = np.concatenate(played), np.tile(rolls[rng.permutation(len(rolls))], (len(played), 1))
    assert movegen.plain(movegen.variant_named(variant))
    compiled = generate(boards, dice, variant=variant)
    monkeypatch.setattr(movegen, "compiled_plays", None)
    reference = generate(boards, dice, variant=variant)
    for field in ("boards", "parent", "offsets", "plays", "dice_used", "extra_roll"):
        assert np.array_equal(getattr(compiled, field), getattr(reference, field)), field


def test_only_backgammons_own_rules_of_movement_are_compiled():
    plain = {name for name in VARIANTS if movegen.plain(movegen.variant_named(name))}
    assert plain == {"standard", "nackgammon", "hypergammon"}


def replayed(board: np.ndarray, steps) -> list[int]:
    """``board`` after the (from, to) steps of a play, a blot hit on the way sent to the bar."""
    board = board.astype(int).copy()
    for source, target in steps:
        if source < 0:
            break
        board[source] -= 1
        if target > 0:
            if board[target] == -1:
                board[target] = 0
                board[0] += 1
            board[target] += 1
    return board.tolist()


def test_recorded_steps_replay_to_the_afterstate(workload):
    boards, dice, _, _ = workload
    result = generate(boards[:2000], dice[:2000])
    for k in range(0, len(result), 7):
        assert replayed(boards[result.parent[k]], result.steps[k]) == result.boards[k].tolist()


def board_with(mover: dict, opponent: dict, mover_bar: int = 0, opponent_bar: int = 0) -> np.ndarray:
    """A board from {mover point: count} and {mover point: opponent count}."""
    b = np.zeros(26, dtype=np.int8)
    for p, n in mover.items():
        b[p] = n
    for p, n in opponent.items():
        b[p] = -n
    b[25], b[0] = mover_bar, opponent_bar
    return b


def moves(board, dice) -> set[str]:
    return {p.notation for p in legal_plays(board, dice)}


def test_opening_moves():
    assert moves(starting_board(), (3, 1)) >= {"8/5 6/5", "24/23 24/21", "13/10 6/5", "24/20"}
    assert len(legal_plays(starting_board(), (6, 4))) == 14


def test_larger_die_must_be_played_when_only_one_die_can():
    # One checker on 13; 13-11 = 2 is blocked, so 6 and 5 cannot both be played.
    board = board_with({13: 1}, {2: 2, 24: 13})
    assert moves(board, (6, 5)) == {"13/7"}
    assert generate(board, np.array([6, 5])).dice_used[0] == 1


def test_smaller_die_when_the_larger_cannot_be_played():
    board = board_with({13: 1}, {7: 2, 2: 2, 24: 11})
    assert moves(board, (6, 5)) == {"13/8"}


def test_bar_partial_entry_loses_the_rest_of_the_roll():
    # Two on the bar, only the 5-point entry (our 20) open.
    board = board_with({6: 5, 8: 3, 13: 5}, {19: 2, 21: 2, 22: 2, 23: 2, 24: 2}, mover_bar=2)
    assert moves(board, (6, 5)) == {"bar/20"}


def test_closed_board_forfeits_the_turn():
    board = board_with({6: 5, 8: 3, 13: 6}, {p: 2 for p in range(19, 25)}, mover_bar=1)
    result = generate(board, np.array([6, 6]))
    assert len(result) == 1 and result.dice_used[0] == 0
    assert np.array_equal(result.boards[0], board)
    assert moves(board, (6, 6)) == {""}


def test_entering_then_playing_the_other_die():
    board = board_with({6: 5}, {24: 2, 23: 2, 22: 2, 21: 2, 20: 2}, mover_bar=1)
    assert moves(board, (6, 2)) == {"bar/19 6/4", "bar/17"}


def test_bear_off_with_higher_dice():
    assert moves(board_with({3: 1, 2: 1}, {24: 15}), (6, 5)) == {"3/off 2/off"}


def test_higher_die_moves_a_checker_from_a_higher_point_first():
    # No checker on 5 or 4 and one on 6: the dice must move the 6, not bear off the 3.
    assert moves(board_with({6: 1, 3: 1}, {24: 15}), (5, 4)) == {"6/1 3/off", "6/2 3/off"}


def test_last_checker_must_hit_on_the_way_off_when_both_dice_can_be_used():
    board = board_with({3: 1}, {2: 1, 24: 14})
    assert moves(board, (6, 1)) == {"3/2*/off"}


def test_double_played_as_far_as_possible():
    board = board_with({10: 1}, {1: 2, 24: 13})  # 10/7/4 then 1 is blocked
    result = generate(board, np.array([3, 3]))
    assert moves(board, (3, 3)) == {"10/4"} and result.dice_used[0] == 2


def test_hypergammon_start():
    # Three checkers on 24, 23, 22; plays reaching the same position are one afterstate.
    assert moves(starting_board("hypergammon"), (2, 1)) == {
        "24/21", "23/20", "22/19", "24/22 23/22", "23/21 22/21", "24/23 22/20",
    }


def test_bad_input_is_rejected_with_a_clear_message():
    board = starting_board()
    too_many = board.copy()
    too_many[13] = 6
    with pytest.raises(BoardError, match="16 checkers"):
        generate(too_many, np.array([6, 4]))
    with pytest.raises(BoardError, match="dice must be 1..6"):
        generate(board, np.array([7, 1]))
    with pytest.raises(BoardError, match="shape"):
        generate(board[:20], np.array([6, 1]))
    with pytest.raises(BoardError, match="bar counts"):
        negative_bar = board.copy()
        negative_bar[25] = -1
        generate(negative_bar, np.array([6, 1]))
