"""gnubg move notation: our strings equal gnubg's, and every legal play's string reads back to it."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.benchmarks.movegen import load_workload
from gammon.engine.records.formats import board_from_position_id, position_id
from gammon.engine.rules.board import flip, starting_board
from gammon.engine.rules.notation import MoveError, find_play, format_move, legal_plays, parse_move

DATA = Path(__file__).parent / "data"


def test_our_notation_is_gnubgs_on_3481_of_its_moves():
    checked = 0
    for line in open(DATA / "dev_positions.jsonl"):
        item = json.loads(line)
        board = board_from_position_id(item["position_id"])
        by_result = {position_id(flip(p.board)): p for p in legal_plays(board, item["dice"])}
        for move in item["moves_2ply"]:
            play = by_result[move["result_id"]]
            assert play.notation == move["move"], (item["position_id"], item["dice"])
            assert position_id(flip(find_play(board, item["dice"], move["move"]).board)) == move["result_id"]
            checked += 1
    assert checked == 3481


def test_every_legal_play_reads_back_from_its_notation():
    boards, dice, _ = load_workload(DATA / "movegen_workload.jsonl")
    for i in range(0, len(boards), 50):
        for play in legal_plays(boards[i], dice[i]):
            assert np.array_equal(find_play(boards[i], dice[i], play.notation).board, play.board)


def test_format_joins_steps_of_one_checker_and_counts_repeats():
    board = starting_board()
    assert format_move(board, [(24, 18), (18, 14)]) == "24/14"
    assert format_move(board, [(8, 5), (8, 5), (6, 3), (6, 3)]) == "8/5(2) 6/3(2)"
    hit = board.copy()
    hit[18] = -1
    hit[19] = -4
    assert format_move(hit, [(24, 18), (18, 14)]) == "24/18*/14"
    assert format_move(board, [(25, 22)]) == "bar/22"
    assert format_move(board, [(6, 0), (5, 0)]) == "6/off 5/off"


def test_parse_accepts_what_people_type():
    assert parse_move("24/18 13/11") == [(24, 18), (13, 11)]
    assert parse_move("bar/22* 6/off") == [(25, 22), (6, 0)]
    assert parse_move("8/5(2)") == [(8, 5), (8, 5)]
    assert parse_move("24/18*/13") == [(24, 18), (18, 13)]
    assert parse_move("B/20 5/O") == [(25, 20), (5, 0)]
    assert parse_move("  ") == []
    assert find_play(starting_board(), (3, 1), "6/5, 8/5").notation == "8/5 6/5"


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("24/18/", "ends with '/'"),
        ("/24", "between two points"),
        ("26/20", "does not exist"),
        ("13/20", "backwards"),
        ("8/5(9)", "1 to 4 times"),
        ("hello", "cannot read"),
        ("24", "no destination"),
        ("\u0668/\u0665 \u0666/\u0665", "cannot read"),  # Arabic-Indic digits are not point numbers
    ],
)
def test_parse_errors_name_the_problem(text, fragment):
    with pytest.raises(MoveError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        parse_move(text)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("24/18", "it plays 1 of the dice, but 2 can be played here"),
        ("8/5 13/9", "8/5 needs a 3; the roll is 6-4"),  # issue 32: said "a legal play here uses 2 of the 2 dice"
        ("13/6", "13/6 needs 7 pips; the roll is 6-4"),
        ("7/1 13/9", "no checker on 7"),
        ("6/off 6/2", "home board"),
        ("bar/21 24/18", "no checker on bar"),
        ("24/13", "at most 10"),
    ],
)
def test_illegal_moves_say_why(text, fragment):
    with pytest.raises(MoveError, match=fragment):
        find_play(starting_board(), (6, 4), text)


def test_blocked_point_and_bar_rules_are_explained():
    board = starting_board()
    board[25], board[6] = 1, 4
    with pytest.raises(MoveError, match="on the bar: they must enter first"):
        find_play(board, (6, 4), "13/7 13/9")
    with pytest.raises(MoveError, match="point 19 is blocked"):
        find_play(starting_board(), (6, 5), "24/19 24/18")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789/*() barofBAROF,-", max_size=24))
def test_any_text_is_a_legal_play_or_a_move_error(text):
    try:
        play = find_play(starting_board(), (5, 2), text)
    except MoveError:
        return
    assert play.notation in {p.notation for p in legal_plays(starting_board(), (5, 2))}


@pytest.mark.parametrize("variant", ["fevga", "moultezim"])
def test_greek_plays_read_back_from_their_notation_which_never_hits_or_enters(variant):
    from gammon.engine.play.game import play_games, random_policy

    rng = np.random.default_rng(3)
    records = play_games((random_policy(rng), random_policy(rng)), 4, seed=4, variant=variant, record=True).records
    turns = [(before, roll) for record in records for _, roll, before, _ in record.turns]
    for board, dice in turns[::10]:
        for play in legal_plays(board, dice, variant):
            assert "*" not in play.notation and "bar" not in play.notation
            assert np.array_equal(find_play(board, dice, play.notation, variant).board, play.board)


def test_greek_moves_are_in_the_movers_numbering_and_refusals_name_the_rule():
    from gammon.engine.rules.variants import FEVGA, MOULTEZIM

    start = FEVGA.starting_board()
    assert [p.notation for p in legal_plays(start, (6, 5), "fevga")] == ["24/13"]
    assert [p.notation for p in legal_plays(start, (6, 5))] != ["24/13"]  # backgammon's rules differ
    with pytest.raises(MoveError, match="fevga forbids it: a player's first checker must pass"):
        find_play(start, (6, 5), "24/18 24/19", "fevga")
    with pytest.raises(MoveError, match="point 12 is blocked"):
        find_play(MOULTEZIM.starting_board(), (6, 6), "24/12", "moultezim")
    lone = start.copy()
    lone[24], lone[18], lone[10], lone[12], lone[13] = 13, 1, 1, -14, -1  # a lone checker holds the 13-point
    with pytest.raises(MoveError, match=r"point 13 is blocked \(the opponent has 1 checker"):
        find_play(lone, (5, 6), "18/13 24/18", "moultezim")
