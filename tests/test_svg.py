"""engine.records.svg: the SVG parses, draws the right checkers, and writes atomically."""

from __future__ import annotations

import dataclasses
import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from gammon.engine.records.formats import MatchState, parse_position
from gammon.engine.records.svg import board_svg, write_board_svg
from gammon.engine.rules.board import BoardError, starting_board

NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    return root


def by_class(root, *classes: str, tag: str | None = None) -> list[ET.Element]:
    """Elements whose class attribute holds all of ``classes``."""
    found = []
    for el in root.iter():
        have = set(el.get("class", "").split())
        if set(classes) <= have and (tag is None or el.tag == f"{NS}{tag}"):
            found.append(el)
    return found


def texts(root, *classes: str) -> list[str]:
    return [el.text for el in by_class(root, *classes, tag="text")]


def shown(count: int) -> int:
    return min(count, 5)


def expected_circles(board) -> tuple[int, int]:
    """Checker circles drawn: at most 5 per point, at most 4 per side on the bar."""
    b = np.asarray(board, dtype=int)
    mover = sum(shown(n) for n in b[1:25] if n > 0) + min(b[25], 4)
    opp = sum(shown(-n) for n in b[1:25] if n < 0) + min(b[0], 4)
    return mover, opp


def bars_board():
    b = np.zeros(26, dtype=int)
    b[25], b[0] = 2, 1  # both sides on the bar
    b[6], b[5], b[4], b[3], b[2] = 3, 2, 2, 1, 1  # mover: 9 + 2 on bar -> 4 off
    b[24], b[20], b[19], b[1], b[13] = -2, -3, -2, -1, -3  # opponent: 11 + 1 on bar -> 3 off
    return b


def stack_board():
    b = np.zeros(26, dtype=int)
    b[6], b[5], b[3] = 8, 4, 3
    b[19], b[18], b[17] = -6, -7, -2
    return b


BOARDS = {
    "start": starting_board(),
    "bars": bars_board(),
    "stack": stack_board(),
    "hyper": starting_board("hypergammon"),
    "empty": np.zeros(26, dtype=int),
}


@pytest.mark.parametrize("name", sorted(BOARDS))
def test_checker_circles(name):
    board = BOARDS[name]
    checkers = 3 if name == "hyper" else 15
    root = parse(board_svg(board, checkers=checkers))
    mover, opp = expected_circles(board)
    assert len(by_class(root, "checker", "mover", tag="circle")) == mover
    assert len(by_class(root, "checker", "opponent", tag="circle")) == opp
    assert len(by_class(root, "point", tag="polygon")) == 24
    numbers = sorted(int(t) for t in texts(root, "point-number"))
    assert numbers == list(range(1, 25))


def test_starting_position_layout():
    root = parse(board_svg(starting_board()))
    assert len(by_class(root, "checker", "mover")) == 15
    assert len(by_class(root, "checker", "opponent")) == 15
    assert texts(root, "off-count", "mover") == ["0 off"]
    assert texts(root, "off-count", "opponent") == ["0 off"]
    assert "pips 167" in texts(root, "pips", "mover")[0]
    assert "pips 167" in texts(root, "pips", "opponent")[0]
    assert not by_class(root, "cube") and not by_class(root, "dice") and not by_class(root, "score")
    # The mover's 24-point checkers sit top right, the 6-point ones bottom right.
    movers = [(float(c.get("cx")), float(c.get("cy"))) for c in by_class(root, "checker", "mover")]
    top_right = [p for p in movers if p[0] > 600 and p[1] < 300]
    bottom_right = [p for p in movers if 400 < p[0] < 480 and p[1] > 300]
    assert len(top_right) == 2 and len(bottom_right) == 5


def test_bar_and_borne_off_counts():
    root = parse(board_svg(bars_board()))
    assert texts(root, "bar-count", "mover") == ["2"]
    assert texts(root, "bar-count", "opponent") == ["1"]
    assert texts(root, "off-count", "mover") == ["4 off"]
    assert texts(root, "off-count", "opponent") == ["3 off"]
    assert len(by_class(root, "off", "mover", tag="rect")) == 4
    assert len(by_class(root, "off", "opponent", tag="rect")) == 3
    b = bars_board()
    mover_pips = sum(i * n for i, n in enumerate(b[1:25], 1) if n > 0) + 25 * 2
    assert f"pips {mover_pips}" in texts(root, "pips", "mover")[0]


def test_big_bar_shows_count():
    b = np.zeros(26, dtype=int)
    b[25], b[0] = 7, 3
    root = parse(board_svg(b))
    assert len(by_class(root, "checker", "mover")) == 4
    assert texts(root, "bar-count", "mover") == ["7"]
    assert texts(root, "bar-count", "opponent") == ["3"]


def test_stack_shows_count():
    root = parse(board_svg(stack_board()))
    assert texts(root, "stack-count", "mover") == ["8"]
    assert sorted(texts(root, "stack-count", "opponent")) == ["6", "7"]


def test_state_cube_dice_score():
    board, state = parse_position("4HPwATDgc/ABMA:cAkAAAAAAAAE")
    assert state is not None
    root = parse(board_svg(board, state, title="4HPwATDgc/ABMA:cAkAAAAAAAAE"))
    assert texts(root, "title") == ["4HPwATDgc/ABMA:cAkAAAAAAAAE"]
    assert texts(root, "cube-value") == ["64"]  # centered cube at 1
    assert texts(root, "score") == ["Money game"]
    assert not by_class(root, "dice")

    owned = dataclasses.replace(state, cube=4, cube_owner=state.on_roll, dice=(6, 3))
    root = parse(board_svg(board, owned))
    assert texts(root, "cube-value") == ["4"]
    (dice,) = by_class(root, "dice")
    assert dice.find(f"{NS}title").text == "Dice 6-3"
    assert len(by_class(root, "die", tag="rect")) == 2
    assert len(by_class(root, "die-pip")) == 9
    # Owned by the player on roll: the cube sits in the bottom half.
    (cube_rect,) = by_class(root, "cube")[0].iter(f"{NS}rect")
    assert float(cube_rect.get("y")) > 300


def test_match_score_and_owner_side():
    state = MatchState(match_length=7, score=(2, 4), on_roll=1, cube=2, cube_owner=0, crawford=False)
    root = parse(board_svg(starting_board(), state))
    assert texts(root, "score") == ["7-point match · score X 4, O 2"]
    assert texts(root, "cube-value") == ["2"]
    (cube_rect,) = by_class(root, "cube")[0].iter(f"{NS}rect")
    assert float(cube_rect.get("y")) < 300  # the opponent's cube: top
    crawford = MatchState(match_length=5, score=(4, 1), crawford=True)
    root = parse(board_svg(starting_board(), crawford, names=("me", "you")))
    assert texts(root, "score") == ["5-point match · score me 4, you 1 · Crawford"]


def test_offered_double():
    state = MatchState(on_roll=0, turn=1, doubled=True, cube=2, cube_owner=0)
    root = parse(board_svg(starting_board(), state))
    assert texts(root, "cube-value") == ["4"]
    assert texts(root, "cube-note") == ["doubles"]


def test_title_is_escaped():
    root = parse(board_svg(starting_board(), title='a <b> & "c"'))
    assert texts(root, "title") == ['a <b> & "c"']


@pytest.mark.parametrize(
    "bad",
    [
        np.zeros(25, dtype=int),
        np.r_[-1, np.zeros(25, dtype=int)],
        np.r_[0, np.full(24, 1), 0],  # 24 mover checkers
        [[1, 2], [3]],
    ],
)
def test_bad_boards_raise(bad):
    with pytest.raises(BoardError):
        board_svg(bad)


def test_bad_state_raises():
    with pytest.raises(TypeError):
        board_svg(starting_board(), state="money")


def test_write_board_svg(tmp_path):
    path = tmp_path / "pos.svg"
    text = write_board_svg(path, starting_board(), title="start")
    assert path.read_text(encoding="utf-8") == text
    parse(text)
    write_board_svg(str(path), bars_board())  # overwrite in place
    assert texts(parse(path.read_text(encoding="utf-8")), "bar-count", "mover") == ["2"]
    with pytest.raises(BoardError):
        write_board_svg(tmp_path / "bad.svg", np.zeros(3))
    assert sorted(os.listdir(tmp_path)) == ["pos.svg"]


def test_write_failure_leaves_no_temp(tmp_path, monkeypatch):
    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        write_board_svg(tmp_path / "pos.svg", starting_board())
    assert os.listdir(tmp_path) == []


def test_a_same_direction_board_counts_the_opponents_pips_along_his_own_track():
    from gammon.engine.rules.variants import FEVGA, ROTATED

    root = parse(board_svg(FEVGA.starting_board(), geometry=ROTATED))
    assert texts(root, "pips", "opponent") == ["O · pips 360"]  # 15 on his own 24-point
    assert texts(root, "pips", "mover") == ["X (on roll) · pips 360"]
    from gammon.engine.records.svg import MID_Y, _point_place

    opponent = by_class(root, "checker", "opponent", tag="circle")  # where he stands: the mover's 12-point
    assert len(opponent) == 5 and {float(c.get("cx")) for c in opponent} == {_point_place(12)[0]}
    assert all(float(c.get("cy")) > MID_Y for c in opponent)  # the bottom row
    assert texts(parse(board_svg(FEVGA.starting_board())), "pips", "opponent") == ["O · pips 195"]  # mirrored
