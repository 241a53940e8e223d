"""Acey-Deucey: the vectorized generator against the plain reference, each rule by hand,
scoring, the text form, and full games with the extra roll after a 1-2 played in full."""

import os

import numpy as np
import pytest
from acey_reference import legal_afterstates  # tests/ is on sys.path under pytest

import gammon.engine.rules.movegen as movegen
from gammon.engine.cube.state import TAKE
from gammon.engine.errors import BoardError
from gammon.engine.play.game import Rules, play, play_games, random_policy
from gammon.engine.play.players import Player
from gammon.engine.records.formats import (
    FormatError,
    MatchState,
    acey_deucey_id,
    gnubgid,
    parse_acey_deucey_id,
    parse_position,
    position_id,
    xgid,
)
from gammon.engine.rules.board import checkers_off, pip_counts, render
from gammon.engine.rules.movegen import generate
from gammon.engine.rules.notation import MoveError, find_play, legal_plays
from gammon.engine.rules.outcomes import result_points
from gammon.engine.rules.variants import ACEY_DEUCEY, MIRRORED

ACEY = ACEY_DEUCEY
# 1 position in 400 is checked with the 1-2 instead of its own roll. A 1-2 turn often has over
# 10,000 afterstates in the middle game, which the reference takes about 0.15 s to list, so
# the natural 1 in 18 takes minutes (GAMMON_ACEY_WILD_SHARE=18 runs it so); the games
# themselves are played without 1-2 (any position they reach is reachable) so that
# sampling stays fast too.
WILD_SHARE = int(os.environ.get("GAMMON_ACEY_WILD_SHARE", "400"))


def reachable_positions(n: int, seed: int, games: int = 40):
    """``n`` (board, roll) pairs from games played with a fixed seed, every turn of every game.

    Each game's players move in one of four styles, so that every rule comes up often: at
    random; lazily entering (the play with the most checkers home, which leaves checkers
    off the board while others gather home, where they cannot bear off yet); racing (the
    fewest pips, so games reach the bear-off); hitting (the most opposing checkers on the
    bar, so hit checkers must enter while others wait to).
    """
    rng = np.random.default_rng(seed)
    start = ACEY.starting_board()
    boards = np.repeat(start[None], games, axis=0)
    style = rng.integers(0, 4, games)
    seen, rolls = [], []
    while sum(map(len, seen)) < n:
        dice = rng.integers(1, 7, size=(games, 2))
        while (wild := ACEY.is_wild(dice)).any():
            dice[wild] = rng.integers(1, 7, size=(int(wild.sum()), 2))
        seen.append(boards)
        rolls.append(dice)
        after = generate(boards, dice, variant=ACEY, check=False)
        b = after.boards.astype(np.int64)
        game = np.repeat(np.arange(games), after.counts())
        home = np.maximum(b[:, 1:7], 0).sum(1)
        pips = pip_counts(b)[:, 0]
        value = np.stack([np.zeros(len(b)), home, -pips, b[:, 0]], axis=1)[np.arange(len(b)), style[game]]
        pick = np.lexsort((-(value + rng.random(len(b))), game))[after.offsets[:-1]]
        chosen = after.boards[pick]
        over = result_points(chosen, 15) > 0
        boards = ACEY.geometry.flip(chosen)
        boards[over] = start
        style[over] = rng.integers(0, 4, int(over.sum()))
    boards, dice = np.concatenate(seen)[:n], np.concatenate(rolls)[:n]
    wild = np.arange(n) % WILD_SHARE == WILD_SHARE - 1
    dice[wild] = np.where(rng.random((int(wild.sum()), 1)) < 0.5, [1, 2], [2, 1])
    return boards, dice


def as_sets(afterstates, n: int) -> list[set]:
    """Each input's choices: (position, whether the mover rolls again)."""
    again = afterstates.extra_roll.tolist()
    return [set(zip(map(tuple, afterstates.of(i).tolist()), again[afterstates.offsets[i]:afterstates.offsets[i + 1]]))
            for i in range(n)]


def test_the_generator_agrees_with_the_reference_on_20000_reachable_positions():
    boards, dice = reachable_positions(20_000, seed=11)
    result = generate(boards, dice, variant=ACEY)
    ours = as_sets(result, len(boards))
    assert list(map(len, ours)) == result.counts().tolist()  # no choice listed twice
    wrong = [i for i in range(len(boards)) if ours[i] != legal_afterstates(boards[i], dice[i])]
    assert wrong == [], f"{len(wrong)} of {len(boards)} differ, first {boards[wrong[0]].tolist()} {dice[wrong[0]]}"
    # The positions exercise every rule.
    on_bar, to_enter = boards[:, 25] > 0, boards[:, 26] > 0
    all_in_home = np.maximum(boards[:, 7:26], 0).sum(1) == 0
    assert ACEY.is_wild(dice).sum() == len(boards) // WILD_SHARE
    assert (on_bar & to_enter).sum() > 1000  # a hit checker enters before those still off the board
    assert (all_in_home & to_enter).sum() > 100  # home, but no bearing off: checkers still to enter
    assert (all_in_home & ~to_enter).sum() > 300  # bearing off
    assert (to_enter & ~on_bar & (np.maximum(boards[:, 1:25], 0).sum(1) > 0)).sum() > 3000  # entering is optional


def test_hash_collisions_fall_back_to_exact_comparison(monkeypatch):
    boards, dice = reachable_positions(300, seed=5)
    dice[::100] = [1, 2]
    expected = generate(boards, dice, variant=ACEY)
    for weights in ("_WEIGHTS", "_UNENTERED_WEIGHTS", "_CELL_WEIGHTS"):  # every board of an input collides
        monkeypatch.setattr(movegen, weights, np.zeros_like(getattr(movegen, weights)))
    result = generate(boards, dice, variant=ACEY)
    assert np.array_equal(result.counts(), expected.counts())
    assert as_sets(result, len(boards)) == as_sets(expected, len(boards))


def position(mover: dict, opponent: dict, to_enter: int = 0, opponent_to_enter: int = 0, bar: int = 0) -> np.ndarray:
    """An Acey-Deucey board from {mover point: checkers} and {mover point: opposing checkers}."""
    b = np.zeros(28, dtype=np.int8)
    for p, n in mover.items():
        b[p] = n
    for p, n in opponent.items():
        b[p] = -n
    b[25], b[26], b[27] = bar, to_enter, opponent_to_enter
    return b


def moved(board: np.ndarray, *steps: tuple[int, int]) -> tuple:
    """``board`` after moving a checker for each (from, to); 26 enters one still off the
    board, to 0 bears off, a lone opposing checker on the landing point is hit."""
    b = board.copy()
    for source, target in steps:
        b[source] -= 1
        if target and b[target] == -1:
            b[target], b[0] = 0, b[0] + 1
        if target:
            b[target] += 1
    return tuple(b.tolist())


def plays(board, dice) -> tuple[set, int]:
    result = generate(board, np.array(dice), variant=ACEY)
    return set(map(tuple, result.boards.tolist())), int(result.dice_used[0])


def test_the_game_starts_with_every_checker_off_the_board():
    start = ACEY.starting_board()
    assert start.tolist() == [0] * 26 + [15, 15]
    assert checkers_off(start).tolist() == [0, 0] and pip_counts(start).tolist() == [375, 375]
    assert result_points(start, 15) == 0  # nothing on the board is not a win: all 15 are still to enter
    assert plays(start, (6, 4)) == ({moved(start, (26, 19), (26, 21)), moved(start, (26, 19), (19, 15))}, 2)
    assert "to enter X 15, O 15" in render(start)


def test_entering_is_optional_while_other_checkers_can_move():
    # 12 checkers frozen on the 1-point (no bearing off while one is still to enter), two free ones.
    board = position({1: 12, 10: 1, 9: 1}, {24: 15}, to_enter=1)
    assert plays(board, (6, 5)) == ({
        moved(board, (10, 4), (9, 4)), moved(board, (9, 3), (10, 5)),  # none enters
        moved(board, (26, 19), (10, 5)), moved(board, (26, 19), (9, 4)),
        moved(board, (26, 20), (10, 4)), moved(board, (26, 20), (9, 3)),
        moved(board, (26, 19), (19, 14)),  # entering and running on: the same as 26/20/14
    }, 2)


def test_a_hit_checker_enters_before_anything_else_moves():
    # On the bar and still to enter: the 19-point (the opponent's 6) is made, so only the 5 enters.
    board = position({1: 12, 10: 1}, {19: 2, 24: 13}, to_enter=1, bar=1)
    assert plays(board, (6, 5)) == ({moved(board, (25, 20), (20, 14)), moved(board, (25, 20), (10, 4))}, 2)
    # Both entry points made: the bar checker cannot enter, so nothing moves, not even 10/4.
    closed = position({1: 12, 10: 1}, {19: 2, 20: 2, 24: 11}, to_enter=1, bar=1)
    assert plays(closed, (6, 5)) == ({tuple(closed.tolist())}, 0)
    # Once it is in, the other die may enter one from off the board.
    open_ = position({1: 12, 10: 1}, {24: 15}, to_enter=1, bar=1)
    assert moved(open_, (25, 20), (26, 19)) in plays(open_, (6, 5))[0]


def test_no_bearing_off_while_a_checker_is_still_to_enter():
    board = position({3: 14}, {24: 15}, to_enter=1)
    # 6-6: the sixes cannot bear off from the 3-point; the last checker enters and runs home.
    assert plays(board, (6, 6)) == ({moved(board, (26, 19), (19, 13), (13, 7), (7, 1))}, 4)
    # The same board with that checker borne off instead: 6-6 bears off four.
    done = position({3: 14}, {24: 15})
    assert plays(done, (6, 6)) == ({moved(done, (3, 0), (3, 0), (3, 0), (3, 0))}, 4)


def test_the_1_2_then_any_double_played_as_far_as_it_goes_and_in_full_for_the_extra_roll():
    # After 12/11/9 or 12/10/9 (the only 1-2), the double: 1-1 9/5 or 9/6 1/off; 2-2 9/5, then
    # 5/3 is blocked (only half of it); 3-3 9/6 (one of four); 4-4 9/1 and two off; 5-5 9/4/off
    # and two off; 6-6 9/3 is blocked: nothing, the position after the 1-2 stays a choice.
    # Only a double played in full (all four steps) brings the extra roll.
    board = position({1: 14, 12: 1}, {3: 2, 24: 13})
    nine = moved(board, (12, 9))
    step = np.array(nine, dtype=np.int8)
    expected = {
        (moved(step, (9, 5)), True), (moved(step, (9, 6), (1, 0)), True), (moved(step, (9, 1), (1, 0), (1, 0)), True),
        (moved(step, (9, 0), (1, 0), (1, 0)), True),  # 1-1, 4-4 and 5-5 in full
        (moved(step, (9, 5)), False), (moved(step, (9, 6)), False), (nine, False),  # 2-2, 3-3, 6-6 in part
    }
    result = generate(board, np.array([2, 1]), variant=ACEY)
    assert as_sets(result, 1) == [expected] and len(result) == len(expected)
    assert result.dice_used.tolist() == [6]
    steps = {(int(s), int(t)) for s, t in result.steps[result.boards.tolist().index(list(nine))] if s > 0}
    assert steps in ({(12, 11), (11, 9)}, {(12, 10), (10, 9)})  # the 1-2 alone: the double chosen is lost


def test_a_1_2_not_played_in_full_brings_no_double_and_no_extra_roll():
    # The published example: nothing of the 1-2 can move, so the turn ends (formerly any double followed).
    board, _ = parse_position("/wcAbAAA/v8AAA-0-0", "acey-deucey")
    result = generate(board, np.array([2, 1]), variant=ACEY)
    assert as_sets(result, 1) == [{(tuple(board.tolist()), False)}] and result.dice_used.tolist() == [0]
    assert result.steps.tolist() == [[[-1, -1]] * 6]
    # Only the 1 can be played (10/9; 9/7 and 10/8 are blocked, the 1-point cannot bear off): 10/9 and no double.
    one = position({1: 14, 10: 1}, {8: 2, 7: 2, 24: 11})
    result = generate(one, np.array([1, 2]), variant=ACEY)
    assert as_sets(result, 1) == [{(moved(one, (10, 9)), False)}] and result.dice_used.tolist() == [1]
    assert legal_plays(one, (1, 2), ACEY)[0].notation == "10/9 then no double"


def test_the_same_position_with_and_without_the_extra_roll_is_two_choices():
    # 9/5 after the 1-2: by 1-1 in full (he rolls again) or by half of 2-2 (he does not).
    board = position({1: 14, 12: 1}, {3: 2, 24: 13})
    nine_five = [p for p in legal_plays(board, (2, 1), ACEY) if p.board.tolist() == list(moved(board, (12, 5)))]
    assert sorted((p.rolls_again, p.notation.split(" then ")[1]) for p in nine_five) == [
        (False, "2-2: 9/5"), (True, "1-1: 9/5")]
    with pytest.raises(MoveError, match="ambiguous .* and the double"):
        find_play(board, (2, 1), "12/9 9/5", ACEY)
    for written in nine_five:  # the double written decides
        assert find_play(board, (2, 1), written.notation, ACEY).rolls_again == written.rolls_again


def test_a_checker_entered_with_the_1_2_may_bear_off_with_the_double():
    board = position({3: 14}, {24: 15}, to_enter=1)
    after, used = plays(board, (1, 2))
    assert used == 6
    # bar/23/22 (the 1-2), then 6-6: 22/16/10/4, and now all home: 4/off.
    assert moved(board, (26, 23), (23, 22), (22, 16), (16, 10), (10, 4), (4, 0)) in after


def test_only_the_1_2_is_wild():
    board = position({3: 14}, {24: 15}, to_enter=1)
    for dice in ((1, 3), (2, 2), (1, 1), (6, 5)):
        result = generate(board, np.array(dice), variant=ACEY)
        assert result.extra_roll.shape == (len(result),) and not result.extra_roll.any()
        assert result.steps.shape[1:] == (6, 2)
    assert generate(board, np.array([2, 1]), variant=ACEY).extra_roll.any()


def test_scoring_counts_checkers_still_to_enter_as_backgammoned():
    won = position({}, {20: 14})
    assert result_points(won, 15) == 1  # the loser bore one off
    assert result_points(position({}, {20: 15}), 15) == 2  # gammon
    assert result_points(position({}, {20: 13}, opponent_to_enter=2), 15) == 3  # never entered: a backgammon
    assert result_points(position({}, {20: 15}), 15, backgammons=False) == 2
    assert result_points(position({3: 1}, {20: 15}), 15) == 0  # the mover still has a checker
    assert result_points(position({}, {20: 14}, to_enter=1), 15) == 0  # ... or one still to enter


def test_a_board_of_the_wrong_size_or_an_impossible_count_is_refused():
    with pytest.raises(BoardError, match=r"shape \(N, 28\)"):
        generate(np.zeros(26, dtype=np.int8), np.array([3, 1]), variant=ACEY)
    with pytest.raises(BoardError, match="checkers to enter and others borne off"):
        generate(position({3: 13}, {24: 15}, to_enter=1), np.array([3, 1]), variant=ACEY)
    with pytest.raises(BoardError, match="checkers to enter must be >= 0"):
        generate(position({3: 15}, {24: 15}, opponent_to_enter=-1), np.array([3, 1]), variant=ACEY)


def test_the_text_form_round_trips():
    assert acey_deucey_id(ACEY.starting_board()) == "AAAAAAAAAAAAAA-15-15"
    boards, _ = reachable_positions(2_000, seed=3)
    for board in boards:
        text = acey_deucey_id(board)
        assert np.array_equal(parse_acey_deucey_id(text), board), text
    assert len({acey_deucey_id(b) for b in boards}) == len({tuple(b) for b in boards.tolist()})
    thirteen = acey_deucey_id(position({3: 13}, {24: 15}))[:-4]  # 13 on the board, 2 borne off
    for bad, fault in (("AAAAAAAAAAAAAA-15", "'PositionID-A-B'"), ("AAAAAAAAAAAAAA+15+15", "'PositionID-A-B'"),
                       ("4HPwATDgc/ABMA-1-0", "16 checkers"), ("AAAAAAAAAAAAAA-16-15", "16 checkers"),
                       (f"{thirteen}-1-0", "checkers to enter and others borne off")):
        with pytest.raises(FormatError, match=fault):
            parse_acey_deucey_id(bad)


def test_the_variant_aware_formats_use_the_text_form():
    board = position({3: 10, 20: 1}, {5: 2, 22: 3}, to_enter=4, opponent_to_enter=10)
    text = acey_deucey_id(board)
    assert position_id(board, "acey-deucey") == text
    assert np.array_equal(parse_position(text, "acey-deucey")[0], board)
    state = MatchState(on_roll=1, turn=1, dice=(2, 1))
    read, read_state = parse_position(gnubgid(board, state, "acey-deucey"), "acey-deucey")
    assert np.array_equal(read, board) and read_state == state
    with pytest.raises(FormatError, match="XGID cannot hold the checkers still to enter"):
        xgid(board, state, "acey-deucey")


def test_flipping_swaps_the_checkers_still_to_enter():
    board = position({3: 10, 20: 1}, {5: 2, 22: 3}, to_enter=4, opponent_to_enter=10)
    turned = MIRRORED.flip(board)
    assert turned[26] == 10 and turned[27] == 4 and turned[5] == -1 and turned[20] == 2
    assert np.array_equal(MIRRORED.flip(turned), board)


def test_full_games_play_legally_with_an_extra_roll_after_each_1_2_played_in_full():
    result = play_games((random_policy(np.random.default_rng(3)),) * 2, 6, seed=8, variant="acey-deucey",
                        record=True)
    assert set(np.abs(result.points)) <= {1, 2, 3} and (result.points != 0).all()
    before, rolls, after, wild_turns, rolled_again = [], [], [], 0, 0
    for record in result.records:
        assert record.turns[0][1] == record.opening and record.opening[0] != record.opening[1]
        for (player, dice, board, _), (next_player, _, next_board, _) in zip(record.turns, record.turns[1:]):
            again = next_player == player
            assert sorted(dice) == [1, 2] or not again  # only a 1-2 rolls again
            wild_turns += sorted(dice) == [1, 2]
            rolled_again += again
            before.append(board), rolls.append(dice)
            after.append((tuple((next_board if again else MIRRORED.flip(next_board)).tolist()), again))
        (_, dice, board, _) = record.turns[-1]
        assert (result_points(generate(board, np.array(dice), variant=ACEY).boards, 15) > 0).any()
    assert 10 < rolled_again < wild_turns  # a random double is often one that cannot be played in full
    legal = as_sets(generate(np.array(before), np.array(rolls), variant=ACEY), len(before))
    assert all(a in legal[i] for i, a in enumerate(after))


class _Doubler(Player):
    """Doubles half the time it may (at random), takes every double, plays at random."""

    doubling = True

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.policy = random_policy(self.rng)

    def doubles(self, boards, cubes):
        return (self.rng.random(len(boards)) < 0.5) & np.array([c.value < 2**30 for c in cubes])

    def answers(self, boards, cubes):
        return np.full(len(boards), TAKE)


def test_nobody_doubles_before_the_extra_roll():
    events = []
    play((_Doubler(1), _Doubler(2)), 8, seed=5, rules=Rules(variant="acey-deucey"), watch=events.append)
    last_mover = {}
    doubles_before_own_roll = wild_moves = 0
    for e in events:
        if e.kind == "double" and e.slot in last_mover:
            doubles_before_own_roll += e.player == last_mover[e.slot]  # he moved last: his extra roll is next
        if e.kind == "move":
            last_mover[e.slot] = e.player
            wild_moves += sorted(e.dice) == [1, 2]
        if e.kind == "end":
            last_mover.pop(e.slot, None)
    assert wild_moves > 20 and doubles_before_own_roll == 0
    assert sum(e.kind == "double" for e in events) > 100


def test_no_extra_roll_once_the_1_2_has_won():
    board = position({1: 1, 2: 1}, {20: 15})  # 1/off, then the 2 bears off the last checker
    result = play_games((random_policy(np.random.default_rng(0)),) * 2, 1, variant="acey-deucey", start=board,
                        first_dice=np.array([[1, 2]]))
    assert result.points.tolist() == [2] and result.turns.tolist() == [1]
    assert result.on_roll.tolist() == [1]  # the game is over: the loser would be on roll, not the winner again


def test_turn_limits_still_end_games():
    result = play_games((random_policy(np.random.default_rng(4)),) * 2, 8, seed=2, variant="acey-deucey",
                        stop_after=30)
    assert (result.turns == 30).all() and (result.points == 0).all()
    with pytest.raises(RuntimeError, match="still playing after 20 passes"):
        play_games((random_policy(np.random.default_rng(4)),) * 2, 8, seed=2, variant="acey-deucey", max_turns=20)
