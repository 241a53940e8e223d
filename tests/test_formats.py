"""Position ID, Match ID, GNUbgID and XGID: reference vectors, round trips, bad input."""

from __future__ import annotations

import base64
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.engine.records.formats import (
    FormatError,
    MatchState,
    board_from_position_id,
    describe_state,
    gnubgid,
    match_id,
    match_state_from_id,
    parse_gnubgid,
    parse_position,
    parse_xgid,
    position_id,
    xgid,
)
from gammon.engine.rules.board import flip, starting_board

DATA = Path(__file__).parent / "data"
EXAMPLES = settings(max_examples=200, deadline=None)
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def _lines(name: str) -> list[dict]:
    with open(DATA / name) as f:
        return [json.loads(line) for line in f]


# ---------------------------------------------------------------------------------------
# reference data
# ---------------------------------------------------------------------------------------


def test_all_position_id_vectors_both_ways():
    rows = _lines("position_ids.jsonl")
    assert len(rows) == 3000
    for row in rows:
        board = board_from_position_id(row["position_id"])
        assert board.dtype == np.int8 and board.shape == (26,)
        assert board.tolist() == row["board"], row["position_id"]
        assert position_id(row["board"]) == row["position_id"]


def test_all_dev_gnubgids_decode_to_their_fields_and_reencode():
    rows = _lines("dev_positions.jsonl")
    assert len(rows) == 1000
    owners = {"centered": -1, 0: 0, 1: 1}
    for row in rows:
        board, state = parse_gnubgid(row["gnubgid"])
        assert position_id(board) == row["position_id"]
        # gnubg writes the larger die first, so only the roll's values survive.
        assert state.dice == tuple(sorted(row["dice"], reverse=True))
        assert state.cube == row["cube"]
        assert state.cube_owner == owners[row["cube_owner"]]
        assert state.match_length == row["match_length"]
        assert state.score == tuple(row["score"])
        assert state.game_state == 1 and state.turn == state.on_roll and not state.doubled
        assert gnubgid(board, state) == row["gnubgid"]


# ---------------------------------------------------------------------------------------
# hand-checked cases
# ---------------------------------------------------------------------------------------


def test_starting_position_id():
    assert position_id(starting_board()) == "4HPwATDgc/ABMA"
    assert np.array_equal(board_from_position_id("4HPwATDgc/ABMA"), starting_board())


def test_starting_gnubgid_money_centered_player_1_on_roll():
    board, state = parse_gnubgid("4HPwATDgc/ABMA:cAkAAAAAAAAA")
    assert np.array_equal(board, starting_board())
    assert state == MatchState(
        cube=1, cube_owner=-1, on_roll=1, turn=1, game_state=1, dice=(0, 0), match_length=0, score=(0, 0), jacoby=True
    )
    assert gnubgid(board, state) == "4HPwATDgc/ABMA:cAkAAAAAAAAA"


def test_jacoby_is_gnubg_67th_bit_inverted():
    # gnubg's matchid.c sets bit 66 when the Jacoby rule is off (the dev file's 'E' ending).
    assert match_id(MatchState(on_roll=1, turn=1, jacoby=False)) == "cAkAAAAAAAAE"
    assert match_id(MatchState(on_roll=1, turn=1, jacoby=True)) == "cAkAAAAAAAAA"


def _manual_match_id(bits: list[tuple[int, int]]) -> str:
    """Match ID built straight from the manual's table: fields LSB first, bytes, base64."""
    bitstring = "".join(format(value, f"0{width}b")[::-1] for value, width in bits)
    bitstring = bitstring.ljust(72, "0")
    key = bytes(int(bitstring[i : i + 8][::-1], 2) for i in range(0, 72, 8))
    return base64.b64encode(key).decode()


_MID_FIELDS = (  # (name, width, default): the manual's table plus gnubg's 67th bit
    ("cube_log2", 4, 0), ("cube_owner", 2, 3), ("on_roll", 1, 1), ("crawford", 1, 0), ("game_state", 3, 1),
    ("turn", 1, 1), ("doubled", 1, 0), ("resignation", 2, 0), ("die0", 3, 0), ("die1", 3, 0),
    ("match_length", 15, 0), ("score0", 15, 0), ("score1", 15, 0), ("not_jacoby", 1, 1), ("extra", 5, 0),
)


def _mid(**fields) -> str:
    """A Match ID from raw field values (defaults: money, centered, player 1 to roll)."""
    return _manual_match_id([(fields.get(name, default), width) for name, width, default in _MID_FIELDS])


def test_match_id_matches_the_manual_layout():
    assert _mid() == "cAkAAAAAAAAE"  # the helper itself agrees with gnubg's IDs
    state = MatchState(
        cube=4, cube_owner=0, on_roll=1, crawford=False, game_state=1, turn=0, doubled=True,
        resignation=0, dice=(0, 0), match_length=7, score=(2, 4), jacoby=False,
    )
    expected = _manual_match_id(
        [(2, 4), (0, 2), (1, 1), (0, 1), (1, 3), (0, 1), (1, 1), (0, 2), (0, 3), (0, 3),
         (7, 15), (2, 15), (4, 15), (1, 1)]
    )
    assert match_id(state) == expected
    assert match_state_from_id(expected) == state

    crawford = MatchState(cube=1, on_roll=0, turn=0, crawford=True, dice=(5, 2), match_length=5, score=(4, 1),
                          resignation=2, jacoby=True)
    expected = _manual_match_id(
        [(0, 4), (3, 2), (0, 1), (1, 1), (1, 3), (0, 1), (0, 1), (2, 2), (5, 3), (2, 3),
         (5, 15), (4, 15), (1, 15), (0, 1)]
    )
    assert match_id(crawford) == expected
    assert match_state_from_id(expected) == crawford


def test_starting_xgid_is_the_starting_position_bottom_on_roll():
    board, state = parse_xgid(START_XGID)
    assert np.array_equal(board, starting_board())
    assert state == MatchState(on_roll=1, turn=1, cube=1, cube_owner=-1, match_length=0, max_cube=1024)
    assert xgid(board, state) == START_XGID
    # The same state as a GNUbgID: bottom player = gnubg player 1, Jacoby off.
    assert gnubgid(board, state) == "4HPwATDgc/ABMA:cAkAAAAAAAAE"


def test_xgid_top_player_on_roll_is_flipped_to_the_mover():
    board, state = parse_xgid("XGID=-b----E-C---eE---c-e----B-:1:1:-1:52:3:1:0:7:10")
    assert np.array_equal(board, starting_board())  # symmetric, seen from the top player
    assert (state.on_roll, state.turn, state.dice) == (0, 0, (5, 2))
    assert (state.cube, state.cube_owner) == (2, 1)  # cube position 1 = bottom = player 1
    assert state.score == (1, 3)  # (player 0 = top, player 1 = bottom)
    assert state.match_length == 7 and not state.crawford


def test_xgid_from_published_examples():
    # Public XGID samples (from third-party code); the boards were worked out by hand from the rules
    # "uppercase = bottom player, string written from the bottom player's side".
    board, state = parse_xgid("XGID=-A-CCD-----a---a------dfc-:4:1:-1:33:1:0:0:9:10")
    # top (player 0) on roll with 33: its checkers on its 1, 2, 3, 10 and 14 points.
    expected = np.zeros(26, dtype=np.int8)
    expected[[1, 2, 3, 10, 14]] = [3, 6, 4, 1, 1]
    expected[[20, 21, 22, 24]] = [-4, -3, -3, -1]
    assert np.array_equal(board, expected)
    assert state == MatchState(cube=16, cube_owner=1, on_roll=0, turn=0, dice=(3, 3), match_length=9, score=(0, 1))

    board, state = parse_xgid("XGID=a--aB-BBA--acDa-Ab-db---BA:0:0:1:64:2:0:0:13:10")
    expected = np.array([1, 0, 0, -1, 2, 0, 2, 2, 1, 0, 0, -1, -3, 4, -1, 0, 1, -2, 0, -4, -2, 0, 0, 0, 2, 1])
    assert board.tolist() == expected.tolist()
    assert (state.on_roll, state.dice, state.score, state.match_length) == (1, (6, 4), (0, 2), 13)


def test_xgid_double_offered_and_money_rules():
    s = "XGID=-b----E-C---eE---c-e----B-:1:1:1:D:0:0:3:0:8"
    board, state = parse_xgid(s)
    assert state.doubled and state.on_roll == 1 and state.turn == 0 and state.dice == (0, 0)
    assert state.cube == 2 and state.cube_owner == 1
    assert state.jacoby and state.beavers and state.max_cube == 256
    assert xgid(board, state) == s
    _, gstate = parse_gnubgid(gnubgid(board, state))
    assert dataclasses.replace(gstate, beavers=True, max_cube=256) == state


def test_prefix_is_optional_when_parsing():
    assert parse_xgid(START_XGID[len("XGID="):])[1] == parse_xgid(START_XGID)[1]


# ---------------------------------------------------------------------------------------
# errors that must be named
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "func, text, words",
    [
        (board_from_position_id, "4HPwATDgc/ABM", "14 characters"),
        (board_from_position_id, "4HPwATDgc/AB!A", "'!' at position 12"),
        (board_from_position_id, "4HPwATDgc/ABMB", "trailing bits"),
        (board_from_position_id, "////////////AA", "too many checkers"),
        (board_from_position_id, "//8AAAAAAAAAAA", "16"),  # 16 ones, then zeros: one side too many
        (board_from_position_id, "AAAAAAAAAAAAQA", "trailing bits"),  # a one after the 50th zero
        (match_state_from_id, "cAkAAAAAAAA", "12 characters"),
        (match_state_from_id, "cAkAAAAAAA-A", "'-' at position 10"),
        (match_state_from_id, "cAkAAAAAAAAI", "trailing bits"),
        (match_state_from_id, _mid(die0=7, die1=1), "dice[0] must be in 0..6"),
        (match_state_from_id, _mid(die0=3), "one die is zero"),
        (match_state_from_id, _mid(game_state=5), "unknown game state 5"),
        (match_state_from_id, _mid(cube_owner=2), "cube owner"),
        (match_state_from_id, _mid(crawford=1), "Crawford"),
        (match_state_from_id, _mid(match_length=1, score0=1), "match length"),
        (match_state_from_id, _mid(match_length=3, score1=4, game_state=2), "above the match length"),
        (match_state_from_id, _mid(extra=1), "trailing bits"),
        (parse_gnubgid, "4HPwATDgc/ABMA", "one ':'"),
        (parse_gnubgid, "4HPwATDgc/ABMA:cAkAAAAAAAAA:", "one ':'"),
        (parse_xgid, "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0", "10 ':'-separated fields"),
        (parse_xgid, "XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10", "26 characters"),
        (parse_xgid, "XGID=-b----E-C---eE---c-e--*-B-:0:0:1:00:0:0:0:0:10", "'*' at position 22"),
        (parse_xgid, "XGID=Ab----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "top player's bar"),
        (parse_xgid, "XGID=-b----E-C---eE---c-e----Ba:0:0:1:00:0:0:0:0:10", "bottom player's bar"),
        (parse_xgid, "XGID=-b----E-C---eE---c-e----P-:0:0:1:00:0:0:0:0:10", "16 checkers"),
        (parse_xgid, "XGID=-b----E-C---eE---c-e----BB:0:0:1:00:0:0:0:0:10", "17 checkers"),
        (parse_xgid, "XGID=-b----E-C---eE---c-e----B-:0:0:0:00:0:0:0:0:10", "turn"),
        (parse_xgid, "XGID=-b----E-C---eE---c-e----B-:0:0:1:70:0:0:0:0:10", "dice"),
        (parse_xgid, "XGID=-b----E-C---eE---c-e----B-:0:0:1:50:0:0:0:0:10", "one die is zero"),
        (parse_xgid, "XGID=-b----E-C---eE---c-e----B-:0:0:1:B:0:0:0:0:10", "beaver"),
        (parse_xgid, "XGID=-b----E-C---eE---c-e----B-:0:2:1:00:0:0:0:0:10", "cube position"),
        (parse_xgid, "XGID=-b----E-C---eE---c-e----B-:16:0:1:00:0:0:0:0:10", "cube exponent"),
        (parse_xgid, "XGID=-b----E-C---eE---c-e----B-:x:0:1:00:0:0:0:0:10", "cube exponent"),
        (parse_xgid, "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:7:0:0:7:10", "match length"),
        (parse_xgid, "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:7:10", "Crawford"),
        (parse_xgid, "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:1:0:99999999999", "max cube"),
    ],
)
def test_bad_input_names_the_fault(func, text, words):
    with pytest.raises(FormatError) as info:
        func(text)
    assert words.lower() in str(info.value).lower(), str(info.value)


def test_position_id_can_encode_both_sides_on_one_point_but_a_board_cannot():
    # Opponent on its own 1 point (our 24) and the mover on its 24 point: one bit each.
    key = 1 | (1 << (25 + 1 + 23))  # slot 0 point 1; slot 1 point 24 (after 25 + 23 zeros)
    pid = base64.b64encode(key.to_bytes(10, "little")).decode()[:14]
    with pytest.raises(FormatError, match="both sides have checkers on point 24"):
        board_from_position_id(pid)


def test_bad_boards_and_states_are_format_errors():
    too_many = starting_board()
    too_many[6] = 6
    with pytest.raises(FormatError, match="16 checkers"):
        position_id(too_many)
    with pytest.raises(FormatError):
        position_id([0] * 25)
    with pytest.raises(FormatError, match="power of two"):
        MatchState(cube=3)
    with pytest.raises(FormatError, match="cube"):
        MatchState(cube=1 << 16)
    with pytest.raises(FormatError, match="turn"):
        MatchState(doubled=True, on_roll=0, turn=0)
    with pytest.raises(FormatError, match="one die is zero"):
        MatchState(dice=(0, 3))
    with pytest.raises(FormatError, match="not over"):
        MatchState(match_length=5, score=(5, 0))
    assert MatchState(match_length=5, score=(5, 0), game_state=2).score == (5, 0)
    with pytest.raises(FormatError, match="resignation"):
        xgid(starting_board(), MatchState(resignation=1, turn=1))
    with pytest.raises(FormatError):
        match_id("cAkAAAAAAAAA")


@pytest.mark.parametrize("value", [None, 12, b"4HPwATDgc/ABMA", ["4HPwATDgc/ABMA"]])
@pytest.mark.parametrize("func", [board_from_position_id, match_state_from_id, parse_gnubgid, parse_xgid])
def test_non_strings_are_format_errors(func, value):
    with pytest.raises(FormatError, match="string"):
        func(value)


# ---------------------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------------------


@st.composite
def boards(draw):
    """A legal board: up to 15 checkers a side, anywhere on points or bars, no shared point."""
    board = np.zeros(26, dtype=np.int8)
    for slot in draw(st.lists(st.integers(1, 25), max_size=15)):  # 25 = own bar
        board[slot] += 1
    free = [p for p in range(1, 25) if board[p] == 0] + [0]  # 0 = opponent bar
    for slot in draw(st.lists(st.sampled_from(free), max_size=15)):
        board[slot] += 1 if slot == 0 else -1
    return board


@st.composite
def match_states(draw, xgid_only: bool = False):
    """A consistent MatchState; with xgid_only, one an XGID can carry."""
    length = draw(st.sampled_from([0, 0, 1, 3, 7, 25, 99]))  # 99: the longest match the engine plays
    game_state = 1 if xgid_only else draw(st.integers(0, 4))
    if length == 0:
        score = draw(st.tuples(st.integers(0, (1 << 15) - 1), st.integers(0, (1 << 15) - 1)))
    else:
        top = length if game_state >= 2 else length - 1
        score = draw(st.tuples(st.integers(0, top), st.integers(0, top)))
    on_roll = draw(st.integers(0, 1))
    doubled = draw(st.booleans())
    if doubled:
        turn, dice = 1 - on_roll, (0, 0)
    else:
        turn = on_roll if xgid_only else draw(st.integers(0, 1))
        dice = draw(st.sampled_from([(0, 0)] + [(a, b) for a in range(1, 7) for b in range(1, 7)]))
    money_rules = length == 0 or not xgid_only
    cube = 1 << draw(st.integers(0, 15))
    return MatchState(
        cube=cube,
        cube_owner=draw(st.integers(-1, 1)) if cube > 1 else -1,  # a cube of 1 is centered
        on_roll=on_roll,
        crawford=length - 1 in score and draw(st.booleans()),  # the Crawford game: a player 1-away
        game_state=game_state,
        turn=turn,
        doubled=doubled,
        resignation=0 if xgid_only else draw(st.integers(0, 3)),
        dice=dice,
        match_length=length,
        score=score,
        jacoby=money_rules and draw(st.booleans()),
        beavers=xgid_only and length == 0 and draw(st.booleans()),
        max_cube=1 << draw(st.integers(0, 15)) if xgid_only else 1 << 10,
    )


@EXAMPLES
@given(boards())
def test_position_id_round_trip(board):
    pid = position_id(board)
    assert len(pid) == 14
    assert np.array_equal(board_from_position_id(pid), board)


@EXAMPLES
@given(match_states())
def test_match_id_round_trip(state):
    mid = match_id(state)
    assert len(mid) == 12
    # The ID keeps the dice larger first, as gnubg writes them.
    assert match_state_from_id(mid) == dataclasses.replace(state, dice=tuple(sorted(state.dice, reverse=True)))


@EXAMPLES
@given(boards(), match_states(xgid_only=True))
def test_xgid_round_trip(board, state):
    s = xgid(board, state)
    back_board, back_state = parse_xgid(s)
    assert np.array_equal(back_board, board)
    assert back_state == state
    assert xgid(back_board, back_state) == s


@EXAMPLES
@given(boards(), match_states(xgid_only=True))
def test_xgid_and_gnubgid_agree(board, state):
    """Both formats, read back, give the same board and the same gnubg fields."""
    x_board, x_state = parse_xgid(xgid(board, state))
    g_board, g_state = parse_gnubgid(gnubgid(board, state))
    assert np.array_equal(x_board, g_board)
    same = dataclasses.replace(x_state, dice=tuple(sorted(x_state.dice, reverse=True)), beavers=False,
                               max_cube=1 << 10)
    assert g_state == same


@EXAMPLES
@given(boards())
def test_xgid_position_is_written_from_the_bottom_player(board):
    bottom = xgid(board, MatchState(on_roll=1, turn=1)).split(":")[0]
    top = xgid(flip(board), MatchState(on_roll=0, turn=0)).split(":")[0]
    assert bottom == top


_B64ISH = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=:-!é ")
_XGIDISH = st.text(alphabet="-abcopqABCOPQ0123456789:D=XGI ")


def _raises_only_format_error(func, text):
    try:
        func(text)
    except FormatError:
        pass


@EXAMPLES
@given(st.one_of(st.text(), _B64ISH, _B64ISH.map(lambda s: (s * 14)[:14]), _B64ISH.map(lambda s: (s * 12)[:12])))
def test_garbage_position_and_match_ids_raise_only_format_error(text):
    _raises_only_format_error(board_from_position_id, text)
    _raises_only_format_error(match_state_from_id, text)
    _raises_only_format_error(parse_gnubgid, text)


@EXAMPLES
@given(st.one_of(st.text(), _XGIDISH, st.lists(_XGIDISH, min_size=10, max_size=10).map(":".join)))
def test_garbage_xgids_raise_only_format_error(text):
    _raises_only_format_error(parse_xgid, "XGID=" + text)
    _raises_only_format_error(parse_xgid, text)


@EXAMPLES
@given(boards(), match_states(xgid_only=True), st.data())
def test_mutated_xgids_raise_only_format_error(board, state, data):
    s = xgid(board, state)
    i = data.draw(st.integers(5, len(s) - 1))
    ch = data.draw(st.characters())
    _raises_only_format_error(parse_xgid, s[:i] + ch + s[i + 1 :])


# ---------------------------------------------------------------------------------------
# Fevga and Moultezim: the same IDs, each side in its own numbering (docs/rules.md)
# ---------------------------------------------------------------------------------------


def greek_positions(variant: str, games: int = 40) -> np.ndarray:
    """Every position (seen from the player on roll) of ``games`` random games of ``variant``."""
    from gammon.engine.play.game import play_games, random_policy

    rng = np.random.default_rng(5)
    records = play_games((random_policy(rng), random_policy(rng)), games, seed=7, variant=variant,
                         record=True).records
    return np.array([before for record in records for _, _, before, _ in record.turns])


@pytest.mark.parametrize("variant", ["fevga", "moultezim"])
def test_positions_of_random_greek_games_round_trip_through_every_id(variant):
    positions = greek_positions(variant)
    assert len(positions) > 1000
    state = MatchState(on_roll=1, turn=1, dice=(5, 2))  # player 1 on roll: XGID turns the board round
    for board in positions:
        pid = position_id(board, variant)
        assert np.array_equal(board_from_position_id(pid, variant), board)
        assert np.array_equal(parse_gnubgid(gnubgid(board, state, variant), variant)[0], board)
        assert np.array_equal(parse_xgid(xgid(board, state, variant), variant)[0], board)


def test_a_greek_position_id_writes_each_side_in_its_own_numbering():
    from gammon.engine.rules.board import starting_board as start

    # Both sides on their own 24-point: the same ID as backgammon's board with both there.
    both_on_24 = np.zeros(26, dtype=np.int8)
    both_on_24[24], both_on_24[1] = 15, -15  # mirrored: the opponent's 24 is the mover's 1
    assert position_id(start("fevga"), "fevga") == position_id(both_on_24)
    assert np.array_equal(board_from_position_id(position_id(both_on_24), "moultezim"), start("moultezim"))


def test_a_greek_board_with_a_checker_on_a_bar_is_refused_both_ways():
    board = np.zeros(26, dtype=np.int8)
    board[24], board[0] = 14, 1
    with pytest.raises(FormatError, match="fevga has no bar"):
        position_id(board, "fevga")
    with pytest.raises(FormatError, match="moultezim has no bar"):
        board_from_position_id(position_id(board), "moultezim")


@pytest.mark.parametrize("text, fault", [
    ("4HPwATDgc/ABMA:QAkAAAAAAAAE", "a cube of 1 is centered"),
    ("4HPwATDgc/ABMA:8AmgABAACAAE", "the Crawford flag is set at 1-1"),
])
def test_impossible_match_ids_are_refused_when_read(text, fault):
    """Issue 32 row 10: `show` and the web board read these, `eval` refused some later, by other words."""
    with pytest.raises(FormatError, match=fault):
        parse_position(text)


def test_a_match_longer_than_the_engine_plays_is_refused_when_read():
    for length in (100, (1 << 15) - 1):  # the Match ID's field holds up to 32,767
        with pytest.raises(FormatError, match="1 to 99 points"):
            MatchState(match_length=length)
    assert MatchState(match_length=99).match_length == 99


@pytest.mark.parametrize("text", ["AAAAAAAAAAAAAA", "AAAAAAAAAAAAAA:cAkAAAAAAAAA"])
def test_an_empty_board_is_refused_when_read(text):
    """Issue 32 row 10: the empty board was evaluated (P(win) 1.0000000000020002)."""
    with pytest.raises(FormatError, match="no checkers left: the game is over"):
        parse_position(text)


def test_a_side_with_no_checkers_is_read_when_the_match_id_says_the_game_is_over():
    board = np.zeros(26, dtype=np.int8)
    board[1] = 2  # the player on roll has two checkers left, the opponent none
    over = MatchState(game_state=2)
    text = f"{position_id(board)}:{match_id(over)}"
    assert parse_position(text)[1].game_state == 2
    with pytest.raises(FormatError, match="the opponent has no checkers left"):
        parse_position(position_id(board))


@pytest.mark.parametrize("state, words", [
    (None, ["X on roll", "cube 1, centered", "Jacoby off, beavers off", "a Position ID alone"]),
    (MatchState(on_roll=1, turn=1, cube=2, cube_owner=0, jacoby=True, dice=(3, 1)),
     ["X is player 1, on roll; O is player 0", "cube 2, owned by O", "money: Jacoby on, beavers off",
      "X rolled 3-1"]),
    (MatchState(on_roll=0, turn=1, cube=2, cube_owner=1, doubled=True, match_length=7, score=(2, 5)),
     ["X is player 0", "owned by O", "7-point match, X 2 - O 5 (X 5-away, O 2-away)", "X doubles to 4: O to take"]),
    (MatchState(on_roll=0, turn=0, match_length=5, score=(4, 1), crawford=True),
     ["X 1-away, O 4-away), Crawford game"]),
    (MatchState(on_roll=1, turn=0, match_length=5, score=(4, 1)), ["post-Crawford"]),
    (MatchState(on_roll=1, turn=0, resignation=2), ["X offers to resign a gammon: O to accept or reject"]),
    (MatchState(on_roll=1, turn=1, game_state=3), ["the game is over: resigned"]),
])
def test_the_situation_line_says_who_is_who_the_cube_the_rules_and_what_is_pending(state, words):
    line = describe_state(state)
    assert all(w in line for w in words), line
    assert "Jacoby" not in line or not (state and state.match_length)  # Jacoby is a money rule
