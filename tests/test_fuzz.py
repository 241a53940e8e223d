"""Fuzzing every text parser and the board check: each either returns a valid result or raises its own
GammonError subclass, never anything else.

The inputs are random text and, more usefully, near-valid ones: a valid ID with one character
changed, added or removed, a FIBS line with one field replaced, huge integers. Bounded so the
whole file runs in well under a minute.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from test_external import Even  # tests/ is on sys.path under pytest

from gammon.app.external import Bot
from gammon.engine.records.fibs import FIELDS, FibsBoard, ProtocolError, parse_fibs_board
from gammon.engine.records.formats import (
    FormatError,
    MatchState,
    board_from_position_id,
    match_state_from_id,
    parse_gnubgid,
    parse_position,
    parse_xgid,
    position_id,
)
from gammon.engine.rules.board import (
    MAX_CHECKERS,
    BoardError,
    flip,
    mover_counts,
    opponent_counts,
    starting_board,
    validate,
)
from gammon.engine.rules.notation import LegalPlay, MoveError, find_play, legal_plays

# The bot's opening 6-3, as gnubg sends it (tests/test_external.py).
OPENING = ("board:gnubg:bot:0:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:3:6:3:1:1:1:0:1:-1:0:25"
           ":0:0:0:0:0:0:0:1")
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
POSITION_IDS = ["4HPwATDgc/ABMA", "sGfwATDgc/ABMA", "AAAAAAAAAAAAAA", "/wAAAAAAAAAAAA", "4HPhASLgc/ABMA"]
MATCH_IDS = ["cAkAAAAAAAAA", "cAkgAAAAAAAA", "MIEFAAAAAAAA", "QYkqASAAIAAA"]
XGIDS = ["XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
         "XGID=-b----E-C---eE---c-e----B-:1:1:-1:31:2:1:1:7:10",
         "XGID=aBBBBBB-----------------b-:0:0:1:D:0:0:3:0:10"]
EDGES = [-(2**63), 2**63 - 1, -(2**63) - 1, 2**64, 2**31, -(2**31), 2**31 - 1]
BIG = st.one_of(st.integers(-20, 20), st.integers(-(2**70), 2**70), st.sampled_from(EDGES))


def mutated(valid: list[str], alphabet: str = B64):
    """A valid string with one character replaced, inserted or deleted (or left alone)."""

    @st.composite
    def build(draw):
        text = draw(st.sampled_from(valid))
        at = draw(st.integers(0, len(text)))
        char = draw(st.one_of(st.sampled_from(alphabet), st.characters()))
        edit = draw(st.sampled_from(["replace", "insert", "delete", "none"]))
        if edit == "replace" and at < len(text):
            return text[:at] + char + text[at + 1:]
        if edit == "insert":
            return text[:at] + char + text[at:]
        if edit == "delete" and at < len(text):
            return text[:at] + text[at + 1:]
        return text

    return build()


def with_field_replaced(line: str, index: int, value: str) -> str:
    """``line`` ("prefix:a:b:...") with its ``index``-th ':'-separated field set to ``value``."""
    parts = line.split(":")
    parts[index] = value
    return ":".join(parts)


@st.composite
def near_valid_xgids(draw):
    text = draw(st.sampled_from(XGIDS))
    index = draw(st.integers(0, text.count(":")))
    value = draw(st.one_of(BIG.map(str), st.text(max_size=6), st.sampled_from(["D", "B", "00", "66", "70", "-"])))
    return with_field_replaced(text, index, value)


def assert_valid_board(board: np.ndarray) -> None:
    assert board.shape == (26,) and board.dtype == np.int8
    assert mover_counts(board).sum() <= MAX_CHECKERS and opponent_counts(board).sum() <= MAX_CHECKERS
    assert board[0] >= 0 and board[25] >= 0


# ---------------------------------------------------------------------------------------
# Position ID, Match ID, GNUbgID, XGID
# ---------------------------------------------------------------------------------------


@FUZZ
@given(st.one_of(mutated(POSITION_IDS), st.text(max_size=20), st.text(B64, min_size=14, max_size=14)))
def test_position_ids(text):
    try:
        board = board_from_position_id(text)
    except FormatError:
        event("rejected")
        return
    assert_valid_board(board)
    assert position_id(board) == text  # a Position ID has one spelling


@FUZZ
@given(st.one_of(mutated(MATCH_IDS), st.text(max_size=16), st.text(B64, min_size=12, max_size=12)))
def test_match_ids(text):
    try:
        state = match_state_from_id(text)
    except FormatError:
        event("rejected")
        return
    assert isinstance(state, MatchState)


@FUZZ
@given(st.one_of(
    st.builds(lambda p, m: f"{p}:{m}", st.one_of(mutated(POSITION_IDS), st.sampled_from(POSITION_IDS)),
              st.one_of(mutated(MATCH_IDS), st.sampled_from(MATCH_IDS))),
    mutated([f"{p}:{m}" for p in POSITION_IDS for m in MATCH_IDS], B64 + ":"),
    st.text(max_size=30),
))
def test_gnubgids(text):
    try:
        board, state = parse_gnubgid(text)
    except FormatError:
        event("rejected")
        return
    assert_valid_board(board)
    assert isinstance(state, MatchState)


@FUZZ
@given(st.one_of(near_valid_xgids(), mutated(XGIDS, "-abcdefghijklmnoABCDEFGHIJKLMNO0123456789:D"),
                 st.text(max_size=60)))
def test_xgids(text):
    for parse in (parse_xgid, parse_position):
        try:
            board, state = parse(text)
        except FormatError:
            continue
        assert_valid_board(board)
        assert isinstance(state, MatchState)


@FUZZ
@given(st.one_of(st.text(max_size=60), mutated(POSITION_IDS + XGIDS + [f"{POSITION_IDS[0]}:{MATCH_IDS[0]}"]),
                 near_valid_xgids()))
def test_parse_position_takes_any_text(text):
    try:
        board, state = parse_position(text)
    except FormatError:
        event("rejected")
        return
    assert_valid_board(board)
    assert state is None or isinstance(state, MatchState)


# ---------------------------------------------------------------------------------------
# moves
# ---------------------------------------------------------------------------------------

def on_the_bar() -> np.ndarray:
    board = starting_board()
    board[24], board[25] = 1, 1  # a back checker was hit
    return board


# Various shapes: the start, both sides of it, a bear-off, a bar entry, a crowded board.
POSITIONS = [on_the_bar(), starting_board(), flip(starting_board()), np.array([0, 2, 2, 3, 0, 3, 0, 0, 0, 0, 0, 0, 0,
                                                                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -15, 0], np.int8),
             np.array([2, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 0, 2], np.int8),
             board_from_position_id("sGfwATDgc/ABMA")]
MOVE_TEXT = st.one_of(
    st.text(max_size=30),
    st.text("0123456789/*() ,barofBAROF", max_size=30),
    st.lists(st.builds(lambda a, b: f"{a}/{b}", st.integers(-2, 30), st.integers(-2, 30)), max_size=5).map(" ".join),
    st.builds(lambda n: "8/5(" + "9" * n + ")", st.sampled_from([1, 3, 7, 4301, 6000])),  # int() stops at 4,300
    st.builds(lambda n: "1" * n + "/5", st.sampled_from([1, 3, 7, 4301, 6000])),
)


ROLLS = st.one_of(st.tuples(st.integers(1, 6), st.integers(1, 6)), st.tuples(st.integers(-1, 8), st.integers(-1, 8)))


@st.composite
def near_legal_moves(draw):
    """A position, a real roll, and one of its legal plays, as written or with one character changed."""
    which = draw(st.integers(0, len(POSITIONS) - 1))
    dice = draw(st.tuples(st.integers(1, 6), st.integers(1, 6)))
    plays = [p.notation for p in legal_plays(POSITIONS[which], dice)]
    return which, dice, draw(st.one_of(st.sampled_from(plays), mutated(plays, "0123456789/*() bo")))


@FUZZ
@given(st.one_of(near_legal_moves(),
                 st.tuples(st.integers(0, len(POSITIONS) - 1), ROLLS, MOVE_TEXT)))
def test_moves(case):
    which, dice, text = case
    try:
        play = find_play(POSITIONS[which], dice, text)
    except (MoveError, BoardError):  # BoardError: dice that are not two dice 1..6
        event("rejected")
        return
    assert isinstance(play, LegalPlay)
    plays = {p.notation for p in legal_plays(POSITIONS[which], dice)}
    assert play.notation in plays
    assert text not in plays or play.notation == text  # a play written as gnubg writes it is that play


# ---------------------------------------------------------------------------------------
# FIBS boards and the bot that answers them
# ---------------------------------------------------------------------------------------


@st.composite
def near_valid_fibs_lines(draw):
    """The opening line with one to three fields replaced by numbers, huge numbers or text."""
    line = OPENING
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(1, FIELDS))
        value = draw(st.one_of(BIG.map(str), st.text(max_size=5), st.sampled_from(["", "-0", "+1", "1_0", "٥"])))
        line = with_field_replaced(line, index, value)
    return line


FIBS_LINES = st.one_of(near_valid_fibs_lines(), st.text(max_size=80), st.builds(lambda t: "board:" + t, st.text()),
                       mutated([OPENING], "0123456789-:"))


@FUZZ
@given(FIBS_LINES)
def test_fibs_boards(line):
    try:
        fibs = parse_fibs_board(line)
    except ProtocolError:
        event("rejected")
        return
    assert isinstance(fibs, FibsBoard)
    assert_valid_board(fibs.board)
    assert fibs.dice == (0, 0) or all(1 <= d <= 6 for d in fibs.dice)


BOT = Bot(Even())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FIBS_LINES)
def test_the_bot_answers_every_line_with_a_word_gnubg_reads(line):
    answer = BOT.reply(line)
    try:
        fibs = parse_fibs_board(line)
    except ProtocolError:
        event("unreadable")
        assert answer == ""
        return
    if fibs.doubled:
        assert answer in {"take", "drop"}
    elif fibs.dice == (0, 0):
        assert answer in {"roll", "double"}
    else:
        assert answer in {p.notation for p in legal_plays(fibs.board, fibs.dice)}


# ---------------------------------------------------------------------------------------
# the board check
# ---------------------------------------------------------------------------------------


@FUZZ
@given(st.one_of(
    arrays(np.int64, 26, elements=st.integers(-(2**63), 2**63 - 1)),
    arrays(np.int64, 26, elements=st.one_of(st.integers(-16, 16), st.sampled_from([-(2**63), 2**63 - 1]))),
    arrays(np.uint64, 26, elements=st.one_of(st.integers(0, 16), st.just(2**64 - 1))),
    arrays(np.float64, 26, elements=st.one_of(st.integers(-16, 16).map(float), st.floats()))),
)
def test_validate(cells):
    try:
        board = validate(cells)
    except BoardError:
        event("rejected")
        return
    assert_valid_board(board)
    assert np.array_equal(board.astype(np.float64), cells.astype(np.float64))  # nothing wrapped or vanished
