"""Each network input feature on hand-made positions whose values are worked out by hand."""

import json
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.records.formats import board_from_position_id
from gammon.engine.rules.board import CLASS_NAMES, CONTACT, CRASHED, RACE, flip, position_class, starting_board
from gammon.engine.rules.movegen import generate
from gammon.models import features as f
from gammon.models.encoding import contact_v1, encoder, extends, race_v1

DATA = Path(__file__).parent / "data" / "dev_positions.jsonl"


def board(mine: dict[int, int], theirs: dict[int, int] | None = None, my_bar: int = 0,
          their_bar: int = 0) -> np.ndarray:
    """One board (batch of 1) from {mover point: count} for each side, both in the mover's numbering."""
    theirs = theirs or {}
    b = np.zeros((1, 26), dtype=np.int8)
    for p, n in mine.items():
        b[0, p] = n
    for p, n in theirs.items():
        b[0, p] = -n
    b[0, 25], b[0, 0] = my_bar, their_bar
    return b


def chances(count: int) -> float:
    return pytest.approx(count / 36)


# -- blots and shots -------------------------------------------------------------------------


def test_hit_chance_counts_direct_and_combination_shots():
    # Opponent checker on our 1-point, our blot 5 pips away on the 6-point: every 5 (11 rolls), 4-1 and 3-2.
    assert f.hit_chance(board({6: 1}, {1: 1}))[0] == chances(15)
    # Our points on 2 and 5 block both ways of playing 4-1; 3-2 still goes through 3 or 4.
    assert f.hit_chance(board({6: 1, 2: 2, 5: 2}, {1: 1}))[0] == chances(13)
    # 8 pips away: 6-2, 5-3, 4-4 and 2-2.
    assert f.hit_chance(board({9: 1}, {1: 1}))[0] == chances(6)
    # No blot, no shot; a blot behind every opposing checker cannot be hit.
    assert f.hit_chance(board({6: 2}, {1: 1}))[0] == 0
    assert f.hit_chance(board({3: 1}, {10: 2}))[0] == 0


def test_hit_chance_from_the_bar_enters_first():
    # The opponent on the bar enters on our point `die`: a blot on our 3-point is hit by any 3, 2-1 and 1-1.
    assert f.hit_chance(board({3: 1}, {}, their_bar=1))[0] == chances(14)
    # Its other checkers do not hit while it is on the bar: 4 pips from the checker on 10, but no
    # roll carries the entering checker 14 pips.
    assert f.hit_chance(board({14: 1}, {10: 1}, their_bar=1))[0] == 0


def dev_boards(count: int) -> np.ndarray:
    rows = [json.loads(line) for line in DATA.read_text().splitlines()[:count]]
    return np.stack([board_from_position_id(r["position_id"]) for r in rows])


def hits_by_every_play(boards: np.ndarray, at_least: int) -> np.ndarray:
    """Chance that some legal play of the opponent's next roll sends ``at_least`` mover checkers to the bar."""
    opponent = flip(boards)
    chance = np.zeros(len(boards))
    for a in range(1, 7):
        for b in range(a, 7):
            moves = generate(opponent, np.tile([a, b], (len(boards), 1)))
            most = np.zeros(len(boards), dtype=np.int64)
            np.maximum.at(most, moves.parent, moves.boards[:, 0].astype(np.int64) - opponent[moves.parent, 0])
            chance += (most >= at_least) * (1 if a == b else 2) / 36
    return chance


def test_hit_chance_matches_the_move_generator_when_nobody_is_on_the_bar():
    boards = dev_boards(300)
    boards = boards[boards[:, 0] == 0]
    exact = hits_by_every_play(boards, 1)
    approx = f.hit_chance(boards)
    # Legal-move rules the feature ignores (bearing off, using both dice) change a few positions only.
    assert np.mean(np.isclose(approx, exact)) > 0.97


def test_pip_loss_takes_the_costliest_blot_each_roll_can_hit():
    # A blot on our 6-point, 5 pips from an opposing checker: 15 rolls hit it, each costing us 25 - 6 = 19 pips.
    assert f.pip_loss(board({6: 1}, {1: 1}))[0] == pytest.approx(15 * 19 / (36 * 25))
    # A second blot on 9 (8 pips away) adds the rolls that hit it alone, 6-2, 4-4 and 2-2, at 16 pips each;
    # a roll that hits both (5-3) costs the 19 of the deeper one.
    assert f.pip_loss(board({6: 1, 9: 1}, {1: 1}))[0] == pytest.approx((15 * 19 + 4 * 16) / (36 * 25))
    assert f.pip_loss(board({6: 2}, {1: 1}))[0] == 0


def test_double_hit_chance_by_hand():
    # Blots on 6 and 9, one opposing checker on 1: only 5-3 hits both (the 5 hits, the same checker goes on).
    assert f.double_hit_chance(board({6: 1, 9: 1}, {1: 1}))[0] == chances(2)
    # Blots on 5 and 9: 4-4 (1 -> 5 -> 9) and 2-2 (1 -> 3 -> 5 -> 7 -> 9) hit both on the way.
    assert f.double_hit_chance(board({5: 1, 9: 1}, {1: 1}))[0] == chances(2)
    # Two hitters, on 1 and 4, blots on 3 and 9: 5-2 hits one with each die, 6-2 hits 3 and goes on to 9, 2-2
    # hits 3 and goes on 3 -> 5 -> 7 -> 9; 1-1 hits 3 in two steps, but the checker on 4 needs five to reach 9.
    assert f.double_hit_chance(board({3: 1, 9: 1}, {1: 1, 4: 1}))[0] == chances(5)
    assert f.double_hit_chance(board({6: 1}, {1: 1}))[0] == 0


def test_double_hit_chance_matches_the_move_generator_on_most_positions():
    boards = dev_boards(300)
    boards = np.concatenate([boards, generate(boards, np.tile([3, 1], (len(boards), 1))).boards[::5]])
    boards = boards[boards[:, 0] == 0]
    exact = hits_by_every_play(boards, 2)
    approx = f.double_hit_chance(boards)
    assert exact.max() > 0.3  # positions with real double shots are among them
    # Only its stated overcount (one opposing checker asked to hit with each die) and moves the legal-move
    # rules forbid set it apart.
    assert np.mean(np.isclose(approx, exact)) > 0.95 and np.all(approx >= exact - 1e-9)


# -- escapes and containment -----------------------------------------------------------------


def test_escape_table_by_hand():
    table = f.escape_table()
    assert table[0] == 36  # nothing ahead
    assert table[0xFFF] == 0  # twelve points blocked
    # Only the point 6 ahead blocked: the 9 non-doubles adding to 7 or more, 4-4 and 5-5.
    assert table[1 << 5] == 20
    # A full prime on the six points ahead: nothing gets past.
    assert table[0b111111] == 0


def test_rear_escape_and_containment():
    assert f.rear_escape(board({24: 1}, {18: 2}))[0] == pytest.approx(20 / 36)
    assert f.rear_escape(starting_board()[None])[0] == 0  # 24 -> past 19, 17 and 12 needs 13+ pips
    assert f.rear_escape(board({5: 3}, {}))[0] == 1  # nothing in front of it
    prime = board({24: 1}, {p: 2 for p in range(13, 19)})
    assert f.containment(prime)[0] == 1
    assert f.containment(board({24: 1}, {}))[0] == 0


def test_outfield_escapes_and_back_moment():
    assert f.outfield_escapes(board({13: 1}))[0] == pytest.approx(7 / 100)  # every roll escapes, 7 pips from home
    # Behind a six-prime on 13..18 a checker on 20 never escapes; one on 12 in front of it always does.
    assert f.outfield_escapes(board({20: 1, 12: 1}, {p: 2 for p in range(13, 19)}))[0] == pytest.approx(6 / 100)
    assert f.outfield_escapes(board({1: 5, 6: 2}))[0] == 0  # all home
    # Fourteen checkers on our 1-point and one on the bar: mean point 2.6, the one above it 22.4 pips out.
    assert f.back_moment(board({1: 14}, my_bar=1))[0] == pytest.approx(22.4**2 / 400)
    assert f.back_moment(board({8: 15}))[0] == 0


def test_active_containment_counts_only_the_blocks_in_front_of_the_rearmost_checker():
    prime = {p: 2 for p in range(13, 19)}
    assert f.active_containment(board({24: 1}, prime))[0] == 1  # nothing gets past a six-prime
    # One block 6 pips ahead: the rearmost checker escapes with 20 rolls (rear_escape's case).
    assert f.active_containment(board({24: 1}, {18: 2}))[0] == pytest.approx(16 / 36)
    # Past the opponent's prime already: the prime still contains points 15..24, but no checker of ours is there.
    passed = board({14: 1, 3: 2}, {p: 2 for p in range(5, 11)})
    assert f.containment(passed)[0] == 1 and f.active_containment(passed)[0] == 0
    # On the bar against a closed board: no roll enters.
    assert f.active_containment(board({6: 2}, {p: 2 for p in range(19, 25)}, my_bar=1))[0] == 1


def test_free_pips_count_the_checkers_past_every_opposing_one():
    assert f.free_pips(board({3: 2, 12: 1}, {10: 2}))[0] == pytest.approx(6 / 100)  # the 12 is still in contact
    assert f.free_pips(board({3: 2}, {}, their_bar=1))[0] == 0  # its checker on the bar must come round
    assert f.free_pips(board({3: 2, 20: 1}))[0] == pytest.approx(26 / 100)  # nothing of the opponent's left


def test_back_game_and_one_point_holding_game():
    assert f.back_game(board({20: 2, 22: 3}, my_bar=1))[0].tolist() == pytest.approx([0.75, 0])  # (6 - 3) / 4
    assert f.back_game(board({24: 2, 21: 1}))[0].tolist() == pytest.approx([0, 3 / 8])
    assert f.back_game(board({13: 5}))[0].tolist() == [0, 0]


def test_backbone_by_the_distance_of_the_other_points():
    # Rearmost point 24: the 20-point 4 pips in front supports it fully (11), the 13-point 11 pips in front 2.
    assert f.backbone(board({24: 2, 20: 2, 13: 2}))[0] == pytest.approx(1 - 6.5 / 11)
    assert f.backbone(board({20: 2, 18: 3}))[0] == 0  # close together
    assert f.backbone(board({24: 2, 6: 2}))[0] == 1  # 18 pips apart: no support
    assert f.backbone(board({24: 1, 6: 2}))[0] == 0  # one point held: nothing to back up
    assert f.backbone(board({}))[0] == 0


# -- structure -------------------------------------------------------------------------------


def test_primes_anchors_and_home_points():
    six_prime = board({p: 2 for p in range(4, 10)}, {2: 2})
    assert f.primes(six_prime)[0].tolist() == pytest.approx([1.0, 1.0])
    passed = board({p: 2 for p in range(4, 10)}, {10: 2})  # the opponent is already past our prime
    assert f.primes(passed)[0].tolist() == pytest.approx([1.0, 0.0])
    assert f.anchors(board({20: 2, 24: 2}))[0].tolist() == pytest.approx([2 / 3, 5 / 6])
    assert f.anchors(board({13: 2}))[0].tolist() == [0, 0]
    assert f.home_points(board({1: 2, 4: 3, 6: 1}))[0] == pytest.approx(2 / 6)
    assert f.back_count(board({20: 2, 24: 1}, my_bar=1))[0] == pytest.approx(4 / 15)


def test_mobility_timing_break_contact_and_entry():
    assert f.mobility(board({13: 1}))[0] == pytest.approx(6 / 90)
    assert f.mobility(board({13: 1}, {7: 2}))[0] == pytest.approx(5 / 90)  # the 6 is blocked
    assert f.timing(board({13: 2}))[0] == pytest.approx(0.14)
    assert f.timing(board({}, my_bar=1))[0] == pytest.approx(0.19)
    assert f.break_contact(board({12: 2, 5: 1}, {10: 2}))[0] == pytest.approx(0.06)
    assert f.break_contact(board({5: 2}, {10: 2}))[0] == 0
    assert f.entry(board({}, {19: 2, 20: 2, 21: 2, 22: 3}))[0].tolist() == pytest.approx([4 / 6, 16 / 36])


def test_mobility_counts_every_checker_and_die_on_real_positions():
    rows = [json.loads(line) for line in DATA.read_text().splitlines()[:200]]
    boards = np.stack([board_from_position_id(r["position_id"]) for r in rows])
    for b, value in zip(boards, f.mobility(boards)):
        mine = {p: max(int(b[p]), 0) for p in range(1, 26)}  # 25 = our bar
        count = sum(n for p, n in mine.items() for d in range(1, 7) if p - d >= 1 and b[p - d] > -2)
        assert value == pytest.approx(count / 90)


def test_race_features():
    assert f.crossovers(board({24: 1, 7: 1}, my_bar=1))[0] == pytest.approx(8 / 30)
    assert f.home_distribution(board({1: 2, 3: 1, 5: 4}))[0].tolist() == pytest.approx([3 / 15, 2 / 3])


def test_encodings_describe_both_sides_and_extend_the_tesauro_inputs():
    start = starting_board()[None]
    x = contact_v1(start)[0]
    assert x.shape == (232,) and np.array_equal(x[204:218], x[218:232])  # the opening is symmetric
    assert np.array_equal(x[:204], encoder("tesauro198+race")[0](start)[0])
    assert race_v1(start).shape == (1, 210)
    assert extends("contact-v1", "tesauro198") and extends("race-v1", "race-v1")
    assert not extends("race-v1", "contact-v1")
    assert len(f.CONTACT_NAMES) == f.contact_features(start).shape[1]
    assert len(f.CONTACT_EXTRA_NAMES) == f.contact_extra_features(start).shape[1]


def test_contact_v2_extends_contact_v1_with_both_sides_extra_features():
    boards = dev_boards(100)
    x = encoder("contact-v2")[0](boards)
    assert x.shape == (100, 240) and extends("contact-v2", "contact-v1")
    assert np.array_equal(x[:, :232], contact_v1(boards))
    assert np.array_equal(x[:, 232:236], f.contact_extra_features(boards))
    assert np.array_equal(x[:, 236:240], f.contact_extra_features(flip(boards)))


def test_contact_v3_extends_contact_v2_with_both_sides_v3_features():
    boards = dev_boards(100)
    x = encoder("contact-v3")[0](boards)
    assert x.shape == (100, 250) and extends("contact-v3", "contact-v1")
    assert np.array_equal(x[:, :240], encoder("contact-v2")[0](boards))
    assert np.array_equal(x[:, 240:245], f.contact_v3_features(boards))
    assert np.array_equal(x[:, 245:250], f.contact_v3_features(flip(boards)))
    assert len(f.CONTACT_V3_NAMES) == f.contact_v3_features(boards).shape[1]


# -- classes ---------------------------------------------------------------------------------


def test_position_class_by_hand():
    assert position_class(starting_board())[()] == CONTACT
    assert position_class(board({1: 5, 2: 5, 3: 5}, {24: 15}))[0] == RACE
    # Contact, but we have only five checkers left in play (ten borne off): crashed.
    assert position_class(board({1: 2, 2: 2, 20: 1}, {19: 2, 10: 13}))[0] == CRASHED
    # Ten checkers piled on our 1-point leave five in play: crashed as well.
    assert position_class(board({1: 10, 8: 3, 20: 2}, {19: 2, 10: 13}))[0] == CRASHED


def test_the_compiled_position_classes_are_numpys(monkeypatch):
    """engine/rules/_native.c's classes against the numpy definition, on random play and the corner families (bars,
    piles, bear-offs) of backgammon's board, every class among them."""
    from positions import all_families  # tests/ is on sys.path under pytest

    import gammon.engine.rules.board as board_module

    if board_module.compiled_classes is None:
        pytest.skip("the compiled rules were not built")
    boards = np.concatenate([b for b, _ in all_families(7).values() if b.shape[1] == 26] + [dev_boards(1000)])
    boards = boards.astype(np.int8)
    compiled = position_class(boards)
    monkeypatch.setattr(board_module, "compiled_classes", None)
    assert np.array_equal(compiled, position_class(boards)) and set(compiled.tolist()) == {CONTACT, CRASHED, RACE}


def test_position_class_agrees_with_gnubg_on_the_dev_positions():
    rows = [json.loads(line) for line in DATA.read_text().splitlines()]
    classes = position_class(np.stack([board_from_position_id(r["position_id"]) for r in rows]))
    gnubg = [{"bearoff": "race"}.get(r["class"], r["class"]) for r in rows]  # bear-offs are races to us
    assert [CLASS_NAMES[c] for c in classes] == gnubg
