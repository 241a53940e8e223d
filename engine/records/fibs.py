"""FIBS board strings ("boardstyle 3"), as GNU Backgammon's external-player protocol sends them.

One line ``board:...`` describes a position from the bot's side: its checkers are the
positive ones and, on its own turn, move 24 -> 1, which is exactly our board layout with
the bot as the mover (cell 0 holds minus the opponent's bar, cell 25 our bar). Field
numbers are those of docs/gnubg.md, "Board line fields".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from gammon.engine.errors import GammonError
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
INT_LIMIT = 2**31 - 1  # gnubg writes C ints; anything wider is not from gnubg
_INTEGER = re.compile(r"[+-]?[0-9]+")  # ASCII digits only: int() would also take '1_0' and other scripts


def _field_numbers(fields: list[str]) -> dict[int, int]:
    """Fields 3..52 as ints keyed by their 1-based number (docs/gnubg.md, "Board line fields")."""
    numbers = {}
    for number, text in enumerate(fields[2:FIELDS], start=3):
        if not _INTEGER.fullmatch(text):
            raise ProtocolError(f"field {number} is {text[:20]!r}, not an integer")
        # Test the length before int(): a 5,000-digit field must not reach int()'s own digit limit.
        if len(text.lstrip("+-")) > len(str(INT_LIMIT)) or not -INT_LIMIT <= int(text) <= INT_LIMIT:
            raise ProtocolError(f"field {number} is {text[:20]}{'...' if len(text) > 20 else ''}, "
                                "outside the 32-bit range gnubg writes")
        numbers[number] = int(text)
    return numbers


def _dice(first: int, second: int) -> tuple[int, int]:
    """The roll of fields 33-34: both 0 (the bot may double or roll) or both 1..6."""
    if (first, second) != (0, 0) and not (1 <= first <= 6 and 1 <= second <= 6):
        raise ProtocolError(f"dice {first}, {second}: expected 0-0 (before the roll) or two dice 1..6")
    return first, second


def parse_fibs_board(line: str) -> FibsBoard:
    """Read gnubg's board line; ProtocolError names the first problem.

    Only what makes the board or the roll unusable is rejected here; odd cube or score
    fields are left to the player, which can still give a safe answer of the kind asked.
    """
    if not isinstance(line, str):
        raise ProtocolError(f"a board line is text; got {type(line).__name__}")
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
    dice = _dice(field[33], field[34])
    turn = field[32]
    # Scores come paired with the names: the bot's own score is field 5 on its turn, field 4 when doubled.
    bot_score, opp_score = (field[5], field[4]) if turn == 1 else (field[4], field[5])
    return FibsBoard(
        board=board,
        match_length=field[3],
        score=(bot_score, opp_score),
        bot_on_turn=turn == 1,
        dice=dice,
        cube=field[37],
        bot_may_double=field[38] == 1,
        opponent_may_double=field[39] == 1,
        doubled=field[40] != 0,
        crawford=field[52] == 0,  # gnubg writes !fCrawford in the "redoubles" field
    )
