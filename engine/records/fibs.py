"""FIBS board strings ("boardstyle 3"), as GNU Backgammon's external-player protocol sends them.

One line ``board:...`` describes a position from the bot's side: its checkers are the
positive ones and, on its own turn, move 24 -> 1, which is exactly our board layout with
the bot as the mover (cell 0 holds minus the opponent's bar, cell 25 our bar). Field
numbers are those of docs/gnubg.md, "Board line fields". A line gnubg could not have written
(a cube of 3, a score past the match length, a 5 KB line) is a :class:`ProtocolError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from gammon.engine.errors import GammonError
from gammon.engine.records.formats import FormatError, MatchState
from gammon.engine.rules.board import BoardError, validate


class ProtocolError(GammonError):
    """A board string that is not a well-formed FIBS board (says what is wrong)."""


@dataclass(frozen=True)
class FibsBoard:
    """The fields of a FIBS board string that a player needs, from the bot's side."""

    board: np.ndarray  # our layout, the bot as the mover (positive side)
    match_length: int
    score: tuple[int, int]  # (bot, opponent)
    bot_on_turn: bool  # the turn field is 1: the bot moves or may double
    dice: tuple[int, int]  # (0, 0) when the bot may double before rolling
    cube: int
    bot_may_double: bool
    opponent_may_double: bool
    doubled: bool  # a double is pending: the bot must take or drop
    crawford: bool  # this is the Crawford game (no cube)


FIELDS = 52  # after "board:"
MAX_LINE = 4096  # characters (ASCII, so bytes); gnubg's board lines are about 200
BOT, OPPONENT = 0, 1  # players as FibsBoard.score (and Cube.from_fibs) number them
# The may-double fields 38 and 39 as gnubg 1.07 writes them (owner != gnubg, owner != bot): the cube owner.
_OWNERS = {(1, 1): -1, (1, 0): BOT, (0, 1): OPPONENT}
INT_LIMIT = 2**31 - 1  # gnubg writes C ints; anything wider is not from gnubg
_INTEGER = re.compile(r"[+-]?[0-9]+")  # ASCII digits only: int() would also take '1_0' and other scripts


def _field_numbers(fields: list[str]) -> dict[int, int]:
    """Fields 3..52 as ints keyed by their 1-based number (docs/gnubg.md, "Board line fields")."""
    numbers = {}
    for number, text in enumerate(fields[2:FIELDS], start=3):
        if not _INTEGER.fullmatch(text):
            raise ProtocolError(f"field {number} is {text[:20]!r}, not an integer")
        # Test the length before int(): thousands of digits need no conversion to be too many.
        if len(text.lstrip("+-")) > len(str(INT_LIMIT)) or not -INT_LIMIT <= int(text) <= INT_LIMIT:
            raise ProtocolError(f"field {number} is {text[:20]}{'...' if len(text) > 20 else ''}, "
                                "outside the 32-bit range gnubg writes")
        numbers[number] = int(text)
    return numbers


def _cube_owner(field: dict[int, int]) -> int:
    """The cube's owner (-1 centred, BOT or OPPONENT) by the may-double fields 38 and 39."""
    try:
        return _OWNERS[field[38], field[39]]
    except KeyError:
        raise ProtocolError(f"may-double fields 38, 39 are {field[38]}, {field[39]}: expected 1, 1 (cube centred), "
                            "1, 0 (the bot's) or 0, 1 (gnubg's)") from None


def _check_game(field: dict[int, int], score: tuple[int, int], crawford: bool) -> None:
    """Refuse a cube, roll, match length or score that no game reaches, by MatchState's checks.

    gnubg asks only while a game is being played (game_state 1), so a score that has
    already won the match is refused too.
    """
    try:
        MatchState(cube=field[37], cube_owner=_cube_owner(field), dice=(field[33], field[34]),
                   match_length=field[3], score=score, crawford=crawford)
    except FormatError as exc:
        raise ProtocolError(f"impossible game (players: 0 the bot, 1 gnubg): {exc}") from None


def parse_fibs_board(line: str) -> FibsBoard:
    """Read gnubg's board line; ProtocolError names the first problem.

    Everything a decision depends on is checked here, so that a player never answers a line
    gnubg could not have sent: the length, the board, the turn, the roll, the cube and the score.
    """
    if not isinstance(line, str):
        raise ProtocolError(f"a board line is text; got {type(line).__name__}")
    if len(line) > MAX_LINE:
        raise ProtocolError(f"a line of {len(line)} characters: board lines are at most {MAX_LINE}")
    text = line.replace("\0", "").strip()
    if not text.startswith("board:"):
        raise ProtocolError(f"expected 'board:...', got {text[:40]!r}")
    fields = text[len("board:") :].split(":")
    if len(fields) < FIELDS:
        raise ProtocolError(f"a FIBS board has {FIELDS} fields after 'board:'; got {len(fields)}")
    field = _field_numbers(fields)
    cells = [field[k] for k in range(6, 32)]
    board = np.array([-cells[0], *cells[1:25], cells[25]], dtype=np.int64)
    try:
        board = validate(board)
    except BoardError as exc:
        raise ProtocolError(f"impossible position: {exc}") from None
    turn = field[32]
    if turn not in (1, -1):
        raise ProtocolError(f"turn field 32 is {turn}: expected 1 (the bot on roll) or -1 (gnubg on roll)")
    # Scores come paired with the names: the bot's own score is field 5 on its turn, field 4 when doubled.
    score = (field[5], field[4]) if turn == 1 else (field[4], field[5])
    crawford = field[52] == 0  # gnubg writes !fCrawford in the "redoubles" field
    _check_game(field, score, crawford)
    return FibsBoard(
        board=board,
        match_length=field[3],
        score=score,
        bot_on_turn=turn == 1,
        dice=(field[33], field[34]),
        cube=field[37],
        bot_may_double=field[38] == 1,
        opponent_may_double=field[39] == 1,
        doubled=field[40] != 0,
        crawford=crawford,
    )
