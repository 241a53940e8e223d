"""Fevga and Moultezim: the vectorized generator against the plain reference, each rule by hand, full games,
and the cube's efficiency read on their board."""

import json
from dataclasses import replace

import numpy as np
import pytest
import torch
from greek_reference import legal_afterstates  # tests/ is on sys.path under pytest

from gammon.app.cli import main
from gammon.engine.cube.decisions import cube_decision
from gammon.engine.cube.money import cube_efficiency
from gammon.engine.cube.state import Cube
from gammon.engine.errors import BoardError
from gammon.engine.play.game import Rules, play_games, random_policy
from gammon.engine.records.formats import parse_position, position_id
from gammon.engine.rules.board import pip_counts, starting_board
from gammon.engine.rules.movegen import generate
from gammon.engine.rules.notation import legal_plays
from gammon.engine.rules.outcomes import result_points
from gammon.engine.rules.variants import FEVGA, MIRRORED, MOULTEZIM, ROTATED, VARIANTS
from gammon.models.network import build_model, save_weights

GREEK = ("fevga", "moultezim")


def reachable_positions(variant: str, n: int, seed: int, games: int = 100):
    """``n`` (board, dice) pairs from games played with a fixed seed, every turn of every game.

    Each move is a random legal play, or, half the time, the play that holds the most points:
    spreading out makes primes and full quadrants, so the rules against them come up often.
    """
    v = VARIANTS[variant]
    rng = np.random.default_rng(seed)
    boards = np.repeat(v.starting_board()[None], games, axis=0)
    seen, rolls = [], []
    while sum(map(len, seen)) < n:
        dice = rng.integers(1, 7, size=(games, 2))
        seen.append(boards)
        rolls.append(dice)
        after = generate(boards, dice, variant=v, check=False)
        spread = (after.boards[:, 1:25] > 0).sum(1) + rng.random(len(after))
        game = np.repeat(np.arange(games), after.counts())
        widest = np.lexsort((-spread, game))[after.offsets[:-1]]
        anyone = after.offsets[:-1] + (rng.random(games) * after.counts()).astype(np.int64)
        chosen = after.boards[np.where(rng.random(games) < 0.5, widest, anyone)]
        over = np.maximum(chosen[:, 1:25], 0).sum(1) == 0
        boards = v.geometry.flip(chosen)
        boards[over] = v.starting_board()
    return np.concatenate(seen)[:n], np.concatenate(rolls)[:n]


def as_sets(afterstates, n: int) -> list[set]:
    return [set(map(tuple, afterstates.of(i).tolist())) for i in range(n)]


@pytest.mark.parametrize("variant", GREEK)
def test_the_generator_agrees_with_the_reference_on_20000_reachable_positions(variant):
    boards, dice = reachable_positions(variant, 20_000, seed=11)
    ours = as_sets(generate(boards, dice, variant=variant), len(boards))
    wrong = [i for i in range(len(boards)) if ours[i] != legal_afterstates(boards[i], dice[i], variant)]
    assert wrong == [], f"{len(wrong)} of {len(boards)} differ, first {boards[wrong[0]].tolist()} {dice[wrong[0]]}"
    # The positions exercise every rule: without it, the legal plays of many positions would differ.
    rules = VARIANTS[variant].restrictions
    for rule in rules:
        loose = replace(VARIANTS[variant], restrictions=tuple(r for r in rules if r is not rule))
        looser = as_sets(generate(boards, dice, variant=loose), len(boards))
        assert sum(a != b for a, b in zip(ours, looser)) >= 100, rule.__name__


def position(mover: dict, opponent: dict) -> np.ndarray:
    """A board from {mover point: checkers} and {mover point: opposing checkers}."""
    b = np.zeros(26, dtype=np.int8)
    for p, n in mover.items():
        b[p] = n
    for p, n in opponent.items():
        b[p] = -n
    return b


def moved(board: np.ndarray, *steps: tuple[int, int]) -> tuple:
    """``board`` after moving a checker for each (from, to); to 0 bears off."""
    b = board.copy()
    for source, target in steps:
        b[source] -= 1
        if target:
            b[target] += 1
    return tuple(b.tolist())


def plays(board, dice, variant) -> tuple[set, int]:
    result = generate(board, np.array(dice), variant=variant)
    return set(map(tuple, result.boards.tolist())), int(result.dice_used[0])


@pytest.mark.parametrize("variant", GREEK)
def test_the_first_checker_moves_alone_from_the_start(variant):
    start = starting_board(variant)
    assert plays(start, (6, 5), variant) == ({moved(start, (24, 13))}, 2)  # never 24/18 24/19
    # 6-6: 18/12 is the opponent's starting point and the others may not leave yet: one six.
    assert plays(start, (6, 6), variant) == ({moved(start, (24, 18))}, 1)


def test_moultezim_frees_the_others_after_12_pips_fevga_only_past_the_opponents_start():
    board = position({24: 14, 15: 1}, {2: 15})
    assert plays(board, (3, 1), "moultezim") == ({moved(board, (15, 11)), moved(board, (15, 12), (24, 23))}, 2)
    assert plays(board, (3, 1), "fevga") == ({moved(board, (15, 11))}, 2)


def test_a_restriction_can_force_the_smaller_die():
    # Fevga: 13/7 is blocked and 24/18 waits for the first checker to pass the 12-point; 13/12
    # does not pass it, so only the 1 can be played. In Moultezim 13/12 makes 12 pips and frees 24/18.
    board = position({24: 14, 13: 1}, {7: 8, 6: 7})
    assert plays(board, (6, 1), "fevga") == ({moved(board, (13, 12))}, 1)
    assert plays(board, (6, 1), "moultezim") == ({moved(board, (13, 12), (24, 18))}, 2)


def test_moultezim_first_quadrant_never_full_even_for_one_step():
    board = position({24: 2, 22: 1, 21: 1, 20: 1, 19: 1, 10: 1, 5: 8}, {14: 15})
    after, used = plays(board, (6, 1), "moultezim")
    assert used == 2
    assert moved(board, (24, 18), (24, 23)) in after  # legal with the 6 first: 24 is empty when 23 fills
    assert moved(board, (10, 4), (24, 23)) not in after  # 24/23 fills 19..24 whichever die goes first
    assert all(not (np.array(b)[19:25] > 0).all() for b in after)
    assert moved(board, (10, 4), (24, 23)) in plays(board, (6, 1), replace(MOULTEZIM, restrictions=()))[0]


def test_fevga_never_all_six_points_of_the_players_own_starting_quadrant():
    # The published rule: the mover's 19..24, as in Moultezim. 20 is the one point of them still
    # empty: 24/20 may fill it only after a checker has left 19, 22 or 23 alone there.
    board, _ = parse_position("CKBSSz4IkkqlOg", "fevga")
    legal = legal_plays(board, (5, 4), "fevga")
    written = {p.notation for p in legal}
    assert "24/20 24/19" not in written  # 19..24 full whichever die goes first
    assert {"24/20 19/14", "24/20 22/17", "24/20 23/18", "24/15", "13/4"} <= written and len(legal) == 52
    assert all(not (p.board[19:25] > 0).all() for p in legal)
    assert "24/20 24/19" in {p.notation for p in legal_plays(board, (5, 4), replace(FEVGA, restrictions=()))}
    # The opponent's starting quadrant, the mover's 7..12, may be filled.
    other = position({12: 1, 11: 1, 10: 1, 9: 1, 8: 1, 13: 2, 5: 8}, {20: 15})
    assert moved(other, (13, 7), (5, 4)) in plays(other, (6, 1), "fevga")[0]


@pytest.mark.parametrize("variant", GREEK)
def test_a_step_that_would_fill_the_starting_quadrant_is_lost_like_any_forbidden_step(variant):
    # 5-5: every five but 24/19 is blocked, and 24/19 fills 19..24: nothing can be played.
    board = position({24: 2, 23: 1, 22: 1, 21: 1, 20: 1, 1: 9}, {18: 1, 17: 1, 16: 1, 15: 1, 10: 11})
    assert plays(board, (5, 5), variant) == ({tuple(board.tolist())}, 0)
    assert plays(board, (5, 5), replace(VARIANTS[variant], restrictions=()))[1] == 4  # 24/19 itself is open
    # 5-1: the 1 first (20/19 empties the 20-point), then 24/19 is legal; never 24/19 first.
    assert moved(board, (20, 19), (24, 19)) in plays(board, (5, 1), variant)[0]


def test_fevga_no_prime_in_front_of_every_opposing_checker():
    board = position({24: 3, 18: 1, 17: 1, 16: 1, 15: 1, 14: 1, 10: 1, 5: 6}, {20: 15})
    # 24/19 would close the opponent's 7..2 (our 19..14) in front of all his checkers (his 8-point).
    assert moved(board, (24, 19), (10, 9)) not in plays(board, (5, 1), "fevga")[0]
    assert moved(board, (24, 19), (10, 9)) in plays(board, (5, 1), "moultezim")[0]
    # With one opposing checker past it (our 13, his 1-point), the prime is allowed.
    passed = position({24: 3, 18: 1, 17: 1, 16: 1, 15: 1, 14: 1, 10: 1, 5: 6}, {20: 14, 13: 1})
    assert moved(passed, (24, 19), (10, 9)) in plays(passed, (5, 1), "fevga")[0]


@pytest.mark.parametrize("variant", GREEK)
def test_a_lone_checker_holds_its_point_and_nothing_is_hit(variant):
    board = position({13: 1, 5: 14}, {7: 1, 2: 1, 20: 13})
    # 13/7 lands on a lone checker (blocked), 13/8/2 too; only the 5 can be played.
    assert plays(board, (6, 5), variant) == ({moved(board, (13, 8))}, 1)
    # Passing over a lone checker is allowed.
    over = position({13: 1, 5: 14}, {10: 1, 20: 14})
    assert moved(over, (13, 7), (7, 4)) in plays(over, (6, 3), variant)[0]


@pytest.mark.parametrize("variant", GREEK)
def test_bearing_off_as_in_backgammon(variant):
    far = position({3: 1, 2: 1}, {20: 15})
    assert plays(far, (6, 5), variant) == ({moved(far, (3, 0), (2, 0))}, 2)  # higher dice bear off the highest
    high = position({6: 1, 3: 1}, {20: 15})
    assert plays(high, (5, 4), variant)[0] == {moved(high, (6, 1), (3, 0)), moved(high, (6, 2), (3, 0))}
    # 5-5 with the 6-point's checkers: 6/1 is held by a lone checker, and a 5 may not bear off
    # while a checker stands higher: nothing can be played.
    blocked = position({6: 2}, {1: 1, 20: 14})
    assert plays(blocked, (5, 5), variant) == ({tuple(blocked.tolist())}, 0)
    # No bearing off until every checker is home; checked again before each die.
    outside = position({7: 1, 3: 1}, {20: 15})
    assert plays(outside, (4, 3), variant) == ({moved(outside, (7, 3), (3, 0))}, 2)


def test_geometry_rotates_by_12_and_is_its_own_inverse():
    start = starting_board("fevga")
    assert start[24] == 15 and start[12] == -15 and np.count_nonzero(start) == 2
    assert np.array_equal(ROTATED.flip(start), start)
    board = position({24: 5, 13: 3, 3: 7}, {12: 4, 1: 6, 18: 5})
    turned = ROTATED.flip(board)
    assert turned[12] == -5 and turned[1] == -3 and turned[15] == -7  # mover's p is the opponent's p -+ 12
    assert turned[24] == 4 and turned[13] == 6 and turned[6] == 5
    assert np.array_equal(ROTATED.flip(turned), board)
    standard = starting_board()
    assert np.array_equal(MIRRORED.flip(MIRRORED.flip(standard)), standard)


def test_no_bar_in_the_greek_variants():
    board = position({24: 14}, {12: 15})
    board[25] = 1
    with pytest.raises(BoardError, match="fevga has no bar"):
        generate(board, np.array([3, 1]), variant="fevga")
    with pytest.raises(BoardError, match="unknown variant 'plakoto'"):
        Rules(variant="plakoto")


def test_scoring_has_gammons_but_no_backgammons():
    won = position({}, {3: 15})  # the loser bore off nothing and sits in the winner's home board
    assert result_points(won[None], 15, FEVGA.backgammons)[0] == 2
    assert result_points(won[None], 15)[0] == 3  # backgammon's own rule
    assert result_points(position({}, {3: 14})[None], 15, MOULTEZIM.backgammons)[0] == 1


@pytest.mark.parametrize("variant", GREEK)
def test_full_games_play_legally_to_the_end(variant):
    v = VARIANTS[variant]
    result = play_games((random_policy(np.random.default_rng(3)),) * 2, 40, seed=8, variant=variant, record=True)
    assert set(np.abs(result.points)) <= {1, 2} and (result.points != 0).all()
    for record in result.records:
        turns = record.turns
        for (_, dice, before, _), (_, _, next_before, _) in zip(turns, turns[1:]):
            after = v.geometry.flip(next_before)
            assert tuple(after.tolist()) in plays(before, dice, variant)[0]
        (_, dice, before, _) = turns[-1]
        assert any(np.maximum(np.array(b)[1:25], 0).sum() == 0 for b in plays(before, dice, variant)[0])


# -- the cube: Janowski's x on the same-direction board (docs/rules.md, "Fevga and Moultezim") --------------


def race_x(mover_pips: int) -> float:
    """gnubg's x in a race before both sides are bearing off, from the pip count of the player on roll."""
    return float(np.clip(0.55 + 0.00125 * mover_pips, 0.6, 0.7))


def test_both_sides_in_their_last_halves_is_a_race_with_x_from_the_own_track_pips():
    # the opponent on the mover's 24, 15, 14 and 13: his own 12, 3, 2 and 1-points
    board = position({12: 2, 5: 5, 4: 4, 3: 4}, {24: 3, 15: 4, 14: 4, 13: 4})
    assert pip_counts(board, ROTATED).tolist() == [77, 60]
    assert cube_efficiency(board, geometry=ROTATED)[0] == race_x(77)


@pytest.mark.parametrize("mover, opponent", [
    ({3: 5, 2: 5, 1: 5}, {5: 1, 16: 4, 17: 5, 18: 5}),  # one of his checkers on his 17-point, his first half
    ({13: 1, 3: 14}, {14: 15}),  # one of the mover's on his own 13-point
])
def test_a_checker_in_its_own_first_half_is_contact(mover, opponent):
    board = position(mover, opponent)
    assert cube_efficiency(board, geometry=ROTATED)[0] == 0.68
    assert cube_efficiency(board)[0] < 0.68  # read as backgammon's board, the sides have passed each other


def test_a_moultezim_bear_off_is_both_sides_home_in_their_own_numbering():
    both_home = position({6: 5, 5: 5, 4: 5}, {16: 5, 17: 5, 18: 5})  # his 4, 5 and 6-points
    assert cube_efficiency(both_home, geometry=MOULTEZIM.geometry)[0] == 0.6
    assert cube_efficiency(both_home)[0] == race_x(75)  # backgammon's reading puts him on his 7..9
    him_outside = position({6: 5, 5: 5, 4: 5}, {19: 5, 20: 5, 21: 5})  # his 7, 8 and 9-points
    assert cube_efficiency(him_outside, geometry=MOULTEZIM.geometry)[0] == race_x(75)


def test_gammon_cube_on_a_fevga_race_uses_the_rotated_x(capsys, tmp_path):
    net = tmp_path / "fevga.pt"
    torch.manual_seed(0)
    save_weights(str(net), build_model("all=tesauro198", (8,)), config={"variant": "fevga"})
    board = position({6: 5, 5: 5, 4: 5}, {19: 5, 20: 5, 21: 5})  # he is not home yet: x 0.64375, not 0.6
    argv = ["cube", position_id(board, "fevga"), "--variant", "fevga", "--model", str(net), "--ply", "0", "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    rotated, mirrored = (cube_decision(np.array(report["probs"]), Cube(), x) for x in (race_x(75), 0.6))
    assert report["no_double"] == pytest.approx(rotated.no_double)
    assert report["double_take"] == pytest.approx(rotated.double_take)
    assert rotated.no_double != pytest.approx(mirrored.no_double)
