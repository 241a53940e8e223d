"""Position and match-state text formats: GNU Backgammon's Position ID, Match ID and
GNUbgID, and eXtreme Gammon's XGID.

Every board here is the engine layout of :mod:`engine.rules.board`, seen from the player
**on roll** (gnubg's ``fMove``, :attr:`MatchState.on_roll`), also while that player's
opponent is answering a double.

Players are gnubg's absolute indices 0 and 1. A Match ID names them directly; an XGID
names its players by where they sit, and here (as in gnubg's own ``set xgid``)

* XGID *bottom* player = uppercase checkers, turn ``1``, first score, cube position ``1``
  = **player 1**;
* XGID *top* player = lowercase checkers, turn ``-1``, second score, cube position ``-1``
  = **player 0**.

The XGID position string itself is always written from the bottom player's side,
whoever is on roll.

Anything that is not a well-formed, consistent ID raises :class:`FormatError` (a
``ValueError``) whose message names the fault; nothing is guessed or clipped.

The board formats take a ``variant`` (default ``standard``): a Position ID writes each
side in its own numbering, so placing the opponent's checkers on the mover's points needs
the variant's geometry. In Fevga and Moultezim the opponent's point ``q`` is the mover's
``q + 12`` or ``q - 12`` and the bars are always empty (docs/rules.md, "Position formats").
A Match ID is the same in every variant.
"""

from __future__ import annotations

import numbers
import re
from dataclasses import dataclass

import numpy as np

from gammon.engine.cube.met import check_match_length, met_in_use
from gammon.engine.errors import GammonError
from gammon.engine.rules.board import BOARD_SIZE, DTYPE, MAX_CHECKERS, BoardError, checkers_off, mover_counts, validate
from gammon.engine.rules.variants import Variant, variant_named

__all__ = [
    "FormatError",
    "MatchState",
    "position_id",
    "board_from_position_id",
    "match_id",
    "match_state_from_id",
    "gnubgid",
    "parse_gnubgid",
    "xgid",
    "parse_xgid",
    "parse_position",
    "acey_deucey_id",
    "parse_acey_deucey_id",
]


class FormatError(GammonError):
    """A string or state that is not a valid Position ID, Match ID, GNUbgID or XGID."""


# ---------------------------------------------------------------------------------------
# base64 keys (shared by Position ID and Match ID)
# ---------------------------------------------------------------------------------------

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_VALUE = {ch: i for i, ch in enumerate(_B64)}

POSITION_ID_LENGTH = 14
MATCH_ID_LENGTH = 12
_POSITION_KEY_BYTES = 10  # 80 bits
_MATCH_KEY_BYTES = 9  # 72 bits, of which the first 67 are used
_MATCH_KEY_BITS = 67


def _key_to_b64(key: int, n_bytes: int, n_chars: int) -> str:
    """Write a little-endian bit key as gnubg does: bytes LSB-first, then plain base64 without padding."""
    spare = 6 * n_chars - 8 * n_bytes  # zero bits that fill the last character
    value = int.from_bytes(key.to_bytes(n_bytes, "little"), "big") << spare
    return "".join(_B64[(value >> (6 * (n_chars - 1 - i))) & 63] for i in range(n_chars))


def _b64_to_key(text, n_bytes: int, n_chars: int, what: str) -> int:
    """Read a base64 ID back into its little-endian bit key; reject bad characters and set filler bits."""
    if not isinstance(text, str):
        raise FormatError(f"a {what} is a string; got {type(text).__name__}")
    if len(text) != n_chars:
        raise FormatError(f"a {what} has {n_chars} characters; got {len(text)} in {text!r}")
    value = 0
    for i, ch in enumerate(text):
        if ch not in _B64_VALUE:
            raise FormatError(f"bad base64 character {ch!r} at position {i} of {what} {text!r}")
        value = (value << 6) | _B64_VALUE[ch]
    spare = 6 * n_chars - 8 * n_bytes
    if value & ((1 << spare) - 1):
        raise FormatError(f"trailing bits set in the last character of {what} {text!r}")
    return int.from_bytes((value >> spare).to_bytes(n_bytes, "big"), "little")


# ---------------------------------------------------------------------------------------
# Position ID
# ---------------------------------------------------------------------------------------

_SLOTS = 25  # points 1..24 and the bar, per side


def _checked_board(board) -> np.ndarray:
    """The board as int8 after engine.rules.board.validate, with its BoardError turned into FormatError."""
    try:
        return validate(board)
    except BoardError as exc:
        raise FormatError(str(exc)) from None


def _without_bar(board: np.ndarray, variant: Variant, what: str) -> np.ndarray:
    """``board``, refused (FormatError) when it has a checker on a bar in a variant that never uses one."""
    if variant.lone_checker_holds and (board[0] or board[BOARD_SIZE - 1]):
        raise FormatError(f"{what}: {variant.name} has no bar (nothing is ever hit); "
                          f"got bars {board[0]} and {board[BOARD_SIZE - 1]}")
    return board


def position_id(board, variant: str | Variant = "standard") -> str:
    """The 14-character gnubg Position ID of ``board`` (seen from the player on roll) in ``variant``.

    gnubg's key lists the opponent (slot 0) first, then the player on roll (slot 1),
    each as its own points 1..24 then its bar: *n* one-bits and a zero per point,
    packed least-significant bit first into 10 bytes. The variant's geometry gives the
    opponent's own numbering. An Acey-Deucey board gets its extended form, ``PositionID-A-B``
    (:func:`acey_deucey_id`).
    """
    variant = variant_named(variant)
    if variant.off_board:
        return acey_deucey_id(board)
    b = _without_bar(_checked_board(board), variant, "a position")
    counts = np.concatenate([variant.geometry.opponent_counts(b), mover_counts(b)]).tolist()
    key, bit = 0, 0
    for n in counts:
        key |= ((1 << n) - 1) << bit
        bit += n + 1
    return _key_to_b64(key, _POSITION_KEY_BYTES, POSITION_ID_LENGTH)


def _unary_counts(key: int, pid: str) -> list[int]:
    """The 50 checker counts of a position key (runs of ones ended by zeros), in key order."""
    counts, run, bit = [], 0, 0
    while len(counts) < 2 * _SLOTS:
        if bit == 8 * _POSITION_KEY_BYTES:
            raise FormatError(f"too many checkers in Position ID {pid!r}: more than {2 * MAX_CHECKERS} ones in the key")
        if (key >> bit) & 1:
            run += 1
        else:
            counts.append(run)
            run = 0
        bit += 1
    if key >> bit:
        raise FormatError(f"trailing bits set in Position ID {pid!r} after its 50th point separator (bit {bit})")
    return counts


def board_from_position_id(pid: str, variant: str | Variant = "standard") -> np.ndarray:
    """The board (int8, shape (26,), from the player on roll) of a 14-character Position ID of ``variant``
    (of Acey-Deucey: a ``PositionID-A-B`` and a board of 28 cells, :func:`parse_acey_deucey_id`)."""
    variant = variant_named(variant)
    if variant.off_board:
        return parse_acey_deucey_id(pid)
    counts = _unary_counts(_b64_to_key(pid, _POSITION_KEY_BYTES, POSITION_ID_LENGTH, "Position ID"), pid)
    opponent, mover = counts[:_SLOTS], counts[_SLOTS:]
    for side, side_counts in (("opponent", opponent), ("player on roll", mover)):
        if sum(side_counts) > MAX_CHECKERS:
            raise FormatError(
                f"too many checkers in Position ID {pid!r}: the {side} has {sum(side_counts)}, at most {MAX_CHECKERS}"
            )
    board = np.zeros(BOARD_SIZE, dtype=DTYPE)
    board[1:26] = mover  # points 1..24, then the bar at index 25
    board[0] = opponent[24]
    for own_point, n in enumerate(opponent[:24], start=1):
        point = variant.geometry.opponent_point[own_point - 1]  # 25 - k on backgammon's board
        if n and board[point]:
            # The key encodes the two sides separately, so it can say this; a board cannot.
            raise FormatError(f"both sides have checkers on point {point} in Position ID {pid!r}")
        if n:
            board[point] = -n
    return _without_bar(board, variant, f"Position ID {pid!r}")


# ---------------------------------------------------------------------------------------
# Match state and Match ID
# ---------------------------------------------------------------------------------------

MAX_CUBE_LOG2 = 15  # the Match ID's 4-bit cube field
MAX_SCORE = (1 << 15) - 1  # the Match ID's 15-bit length and score fields
GAME_STATES = ("none", "playing", "over", "resigned", "dropped")


def _int_in(name: str, value, lo: int, hi: int) -> int:
    """``value`` as a plain int, or FormatError naming the field when it is not an integer in lo..hi."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise FormatError(f"{name} must be an integer; got {value!r}")
    if not lo <= value <= hi:
        raise FormatError(f"{name} must be in {lo}..{hi}; got {value}")
    return int(value)


def _flag(name: str, value) -> bool:
    """``value`` as a bool; accepts bools and the integers 0 and 1."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral) and value in (0, 1)):
        return bool(value)
    raise FormatError(f"{name} must be a bool; got {value!r}")


def _pair(name: str, value, lo: int, hi: int) -> tuple[int, int]:
    """``value`` as a tuple of two ints in lo..hi."""
    try:
        first, second = value
    except (TypeError, ValueError):
        raise FormatError(f"{name} must be a pair of integers; got {value!r}") from None
    return _int_in(f"{name}[0]", first, lo, hi), _int_in(f"{name}[1]", second, lo, hi)


@dataclass(frozen=True)
class MatchState:
    """Everything around the board that gnubg's Match ID (and XGID) records.

    Players are absolute indices 0 and 1 (gnubg's). Fields:

    * ``cube``: cube value 1, 2, 4, ... 2**15 (before a pending double is taken).
    * ``cube_owner``: -1 centered, else the owning player 0 or 1.
    * ``on_roll``: the player whose turn it is to roll or who has rolled (gnubg's
      ``fMove``, the Match ID's "dice owner"); the board is seen from this player.
    * ``crawford``: this game is the Crawford game (match play only).
    * ``game_state``: 0 no game, 1 playing, 2 over, 3 resigned, 4 dropped cube.
    * ``turn``: the player who must act now (gnubg's ``fTurn``): differs from
      ``on_roll`` while a double or a resignation awaits an answer.
    * ``doubled``: a double is offered and awaits ``turn``'s answer.
    * ``resignation``: offered resignation 0 none, 1 single, 2 gammon, 3 backgammon.
    * ``dice``: the roll as rolled, ``(0, 0)`` before rolling.
    * ``match_length``: 0 for money play.
    * ``score``: points won so far, ``(player 0, player 1)``.
    * ``jacoby``: the Jacoby rule is in use (gnubg keeps its setting in match play
      too, where it has no effect).
    * ``beavers``: beavers are allowed (money play; only an XGID carries it).
    * ``max_cube``: the cube limit an XGID carries (default 2**10, XG's usual);
      the Match ID has no such field.
    """

    cube: int = 1
    cube_owner: int = -1
    on_roll: int = 0
    crawford: bool = False
    game_state: int = 1
    turn: int = 0
    doubled: bool = False
    resignation: int = 0
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = False
    beavers: bool = False
    max_cube: int = 1 << 10

    def __post_init__(self):
        set_ = object.__setattr__  # frozen: normalize once, here
        set_(self, "cube", _cube_value("cube", self.cube))
        set_(self, "max_cube", _cube_value("max_cube", self.max_cube))
        set_(self, "cube_owner", _int_in("cube_owner", self.cube_owner, -1, 1))
        set_(self, "on_roll", _int_in("on_roll", self.on_roll, 0, 1))
        set_(self, "turn", _int_in("turn", self.turn, 0, 1))
        set_(self, "game_state", _int_in("game_state", self.game_state, 0, len(GAME_STATES) - 1))
        set_(self, "resignation", _int_in("resignation", self.resignation, 0, 3))
        set_(self, "match_length", _int_in("match_length", self.match_length, 0, MAX_SCORE))
        set_(self, "dice", _pair("dice", self.dice, 0, 6))
        set_(self, "score", _pair("score", self.score, 0, MAX_SCORE))
        for name in ("crawford", "doubled", "jacoby", "beavers"):
            set_(self, name, _flag(name, getattr(self, name)))
        self._check_consistent()

    def _check_consistent(self):
        """Reject combinations no game can reach."""
        if (self.dice[0] == 0) != (self.dice[1] == 0):
            raise FormatError(f"one die is zero: dice {self.dice} (use (0, 0) before the roll)")
        if self.doubled and self.dice != (0, 0):
            raise FormatError(f"a double is offered but dice {self.dice} are already rolled")
        if self.doubled and self.turn == self.on_roll:
            raise FormatError("a double is offered, so the turn must be the opponent's (turn != on_roll)")
        if self.cube == 1 and self.cube_owner != -1:
            raise FormatError("a cube of 1 is centered: only a doubled cube (2 or more) has an owner")
        check_match_length(self.match_length, FormatError)
        if self.match_length == 0:
            if self.crawford:
                raise FormatError("the Crawford flag is set in money play (match_length 0)")
        elif self.crawford and self.match_length - 1 not in self.score:
            raise FormatError(f"the Crawford flag is set at {self.score[0]}-{self.score[1]}: the Crawford game "
                              f"comes when a player has {self.match_length - 1} of {self.match_length} points")
        elif max(self.score) > self.match_length:
            raise FormatError(f"score {self.score} is above the match length {self.match_length}")
        elif self.game_state <= 1 and max(self.score) == self.match_length:
            # Only a finished game can leave a player with the whole match won.
            raise FormatError(f"score {self.score} reaches the match length {self.match_length} in a game not over")


RESIGNATIONS = ("", "a single game", "a gammon", "a backgammon")


def describe_state(state: MatchState | None) -> str:
    """One line for people beside a board drawn from the player on roll (X, the opponent O): who is who,
    the cube and its owner, money or the match and its score, the rules in force (Jacoby and beavers in
    money, the Crawford game), the dice, and what is pending (a double, a resignation) or over.

    A Position ID alone carries no state: money play, a centered cube, neither Jacoby nor beavers.
    """
    if state is None:
        return "X on roll; cube 1, centered; money: Jacoby off, beavers off (a Position ID alone)"
    name = {state.on_roll: "X", 1 - state.on_roll: "O"}
    parts = [f"X is player {state.on_roll}, on roll; O is player {1 - state.on_roll}",
             f"cube {state.cube}, {'centered' if state.cube_owner < 0 else f'owned by {name[state.cube_owner]}'}"]
    if state.match_length:
        mine, theirs = state.score[state.on_roll], state.score[1 - state.on_roll]
        length = state.match_length
        stage = (", Crawford game" if state.crawford
                 else ", post-Crawford" if length > 1 and length - 1 in state.score else "")
        parts.append(f"{length}-point match, X {mine} - O {theirs} (X {length - mine}-away, "
                     f"O {length - theirs}-away){stage}, match equity table {met_in_use()}")
    else:
        parts.append(f"money: Jacoby {'on' if state.jacoby else 'off'}, beavers {'on' if state.beavers else 'off'}")
    if state.dice != (0, 0):
        parts.append(f"X rolled {state.dice[0]}-{state.dice[1]}")
    if state.doubled:
        parts.append(f"X doubles to {2 * state.cube}: O to take or pass")
    if state.resignation:
        offers = name[1 - state.turn]  # the player to answer a resignation is on turn
        parts.append(f"{offers} offers to resign {RESIGNATIONS[state.resignation]}: "
                     f"{name[state.turn]} to accept or reject")
    if state.game_state != 1:
        parts.append({0: "no game in progress", 2: "the game is over", 3: "the game is over: resigned",
                      4: "the game is over: a double passed"}[state.game_state])
    return "; ".join(parts)


def _cube_value(name: str, value) -> int:
    """A cube value: a power of two from 1 to 2**15."""
    v = _int_in(name, value, 1, 1 << MAX_CUBE_LOG2)
    if v & (v - 1):
        raise FormatError(f"{name} must be a power of two; got {v}")
    return v


# The Match ID key, least significant bit first (gnubg manual, "A technical description
# of the Match ID"). gnubg's own matchid.c adds a 67th bit the manual omits: set when the
# Jacoby rule is *not* in use, so that IDs from before it read as gnubg's default, Jacoby on.
_MATCH_LAYOUT = (
    ("cube_log2", 4),
    ("cube_owner", 2),  # 0, 1, or 3 = centered
    ("on_roll", 1),
    ("crawford", 1),
    ("game_state", 3),
    ("turn", 1),
    ("doubled", 1),
    ("resignation", 2),
    ("die0", 3),
    ("die1", 3),
    ("match_length", 15),
    ("score0", 15),
    ("score1", 15),
    ("not_jacoby", 1),
)
_CENTERED_BITS = 3


def match_id(state: MatchState) -> str:
    """The 12-character gnubg Match ID of ``state`` (beavers and max_cube are not carried).

    As gnubg does, the larger die is written first, so the order of the roll is lost.
    """
    if not isinstance(state, MatchState):
        raise FormatError(f"match_id needs a MatchState; got {type(state).__name__}")
    values = {
        "cube_log2": state.cube.bit_length() - 1,
        "cube_owner": _CENTERED_BITS if state.cube_owner == -1 else state.cube_owner,
        "on_roll": state.on_roll,
        "crawford": int(state.crawford),
        "game_state": state.game_state,
        "turn": state.turn,
        "doubled": int(state.doubled),
        "resignation": state.resignation,
        "die0": max(state.dice),
        "die1": min(state.dice),
        "match_length": state.match_length,
        "score0": state.score[0],
        "score1": state.score[1],
        "not_jacoby": int(not state.jacoby),
    }
    key, bit = 0, 0
    for name, width in _MATCH_LAYOUT:
        key |= values[name] << bit
        bit += width
    return _key_to_b64(key, _MATCH_KEY_BYTES, MATCH_ID_LENGTH)


def match_state_from_id(mid: str) -> MatchState:
    """The MatchState of a 12-character gnubg Match ID."""
    key = _b64_to_key(mid, _MATCH_KEY_BYTES, MATCH_ID_LENGTH, "Match ID")
    if key >> _MATCH_KEY_BITS:
        raise FormatError(f"trailing bits set in Match ID {mid!r} after its {_MATCH_KEY_BITS} bits")
    raw, bit = {}, 0
    for name, width in _MATCH_LAYOUT:
        raw[name] = (key >> bit) & ((1 << width) - 1)
        bit += width
    if raw["cube_owner"] == 2:
        raise FormatError(f"bad cube owner bits 10 in Match ID {mid!r} (00, 01 or 11 = centered)")
    if raw["game_state"] >= len(GAME_STATES):
        raise FormatError(f"unknown game state {raw['game_state']} in Match ID {mid!r} (0..4)")
    try:
        return MatchState(
            cube=1 << raw["cube_log2"],
            cube_owner=-1 if raw["cube_owner"] == _CENTERED_BITS else raw["cube_owner"],
            on_roll=raw["on_roll"],
            crawford=bool(raw["crawford"]),
            game_state=raw["game_state"],
            turn=raw["turn"],
            doubled=bool(raw["doubled"]),
            resignation=raw["resignation"],
            dice=(raw["die0"], raw["die1"]),
            match_length=raw["match_length"],
            score=(raw["score0"], raw["score1"]),
            jacoby=not raw["not_jacoby"],
        )
    except FormatError as exc:
        raise FormatError(f"Match ID {mid!r}: {exc}") from None


# ---------------------------------------------------------------------------------------
# GNUbgID = "PositionID:MatchID"
# ---------------------------------------------------------------------------------------


def gnubgid(board, state: MatchState, variant: str | Variant = "standard") -> str:
    """``"PositionID:MatchID"`` for ``board`` of ``variant`` seen from ``state.on_roll``."""
    return f"{position_id(board, variant)}:{match_id(state)}"


def parse_gnubgid(gid: str, variant: str | Variant = "standard") -> tuple[np.ndarray, MatchState]:
    """``(board, state)`` of a ``"PositionID:MatchID"`` string of ``variant``; the board is from ``state.on_roll``."""
    if not isinstance(gid, str):
        raise FormatError(f"a GNUbgID is a string; got {type(gid).__name__}")
    parts = gid.split(":")
    if len(parts) != 2:
        raise FormatError(f"a GNUbgID is 'PositionID:MatchID' (one ':'); got {gid!r}")
    return board_from_position_id(parts[0], variant), match_state_from_id(parts[1])


# ---------------------------------------------------------------------------------------
# XGID
# ---------------------------------------------------------------------------------------

XGID_PREFIX = "XGID="
_XG_FIELDS = 10  # position, cube exponent, cube position, turn, dice, score 1, score 2, rules, length, max cube
# ASCII digits only (int() would also take '٣', '1_0' or ' 1'), few enough for int() to accept.
_XG_INT = re.compile(r"-?[0-9]{1,9}")
_XG_DICE = re.compile(r"[0-6]{2}")
_XG_BOTTOM = 1  # our player index of XG's bottom (uppercase, turn 1) player


def _xg_int(fields: list[str], index: int, name: str, lo: int, hi: int) -> int:
    """Field ``index`` of an XGID as an int in lo..hi."""
    text = fields[index]
    if not _XG_INT.fullmatch(text):
        raise FormatError(f"XGID field {index} ({name}) must be an integer of at most 9 digits; got {text!r}")
    return _int_in(f"XGID field {index} ({name})", int(text), lo, hi)


def _xg_board(pos: str) -> np.ndarray:
    """The board of XG's 26-character position string, seen from the bottom player.

    Index 0 is the top player's bar, 1..24 the points in the bottom player's numbering,
    25 the bottom player's bar; 'A'..'P' count 1..16 bottom checkers, 'a'..'p' top ones.
    """
    if len(pos) != BOARD_SIZE:
        raise FormatError(f"an XGID position has {BOARD_SIZE} characters; got {len(pos)} in {pos!r}")
    board = np.zeros(BOARD_SIZE, dtype=np.int64)
    for i, ch in enumerate(pos):
        if ch == "-":
            continue
        if "A" <= ch <= "P" and i != 0:
            board[i] = ord(ch) - ord("A") + 1
        elif "a" <= ch <= "p" and i != 25:
            board[i] = -(ord(ch) - ord("a") + 1)
        else:
            where = {0: " (the top player's bar takes only '-' or a..p)",
                     25: " (the bottom player's bar takes only '-' or A..P)"}
            raise FormatError(f"bad XGID position character {ch!r} at position {i}{where.get(i, '')}")
    board[0] = -board[0]  # the top player's bar is a count >= 0 in our layout
    return _checked_board(board)


def _xg_position(board_bottom: np.ndarray) -> str:
    """XG's 26-character position string of a board seen from the bottom player."""
    chars = []
    for i, n in enumerate(board_bottom.tolist()):
        if i == 0:
            n = -n  # the top player's bar is written as top (lowercase) checkers
        chars.append("-" if n == 0 else chr(ord("A") + n - 1) if n > 0 else chr(ord("a") - n - 1))
    return "".join(chars)


def parse_xgid(s: str, variant: str | Variant = "standard") -> tuple[np.ndarray, MatchState]:
    """``(board, state)`` of an XGID such as ``XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10``.

    Fields after the position: cube exponent, cube position (1 bottom owns, 0 centered,
    -1 top owns), turn (1 bottom, -1 top), dice ('00' to roll or double, 'D' double
    offered, else two dice 1..6), bottom score, top score, rules (match: 1 = Crawford
    game; money: 1 Jacoby + 2 beavers), match length (0 = money), max cube exponent.
    Bottom = player 1, top = player 0 (module docstring). The board is returned from the
    player on roll. 'B'/'R' (beaver or raccoon pending) have no MatchState equivalent and
    raise FormatError. The 'XGID=' prefix is optional. ``variant`` turns the board round
    (its geometry) when the top player is on roll.
    """
    variant = variant_named(variant)
    _no_xgid(variant)
    if not isinstance(s, str):
        raise FormatError(f"an XGID is a string; got {type(s).__name__}")
    body = s[len(XGID_PREFIX):] if s.startswith(XGID_PREFIX) else s
    fields = body.split(":")
    if len(fields) != _XG_FIELDS:
        raise FormatError(f"an XGID has {_XG_FIELDS} ':'-separated fields; got {len(fields)} in {s!r}")
    board_bottom = _xg_board(fields[0])
    cube_log2 = _xg_int(fields, 1, "cube exponent", 0, MAX_CUBE_LOG2)
    cube_position = _xg_int(fields, 2, "cube position", -1, 1)
    turn_sign = _xg_int(fields, 3, "turn", -1, 1)
    if turn_sign == 0:
        raise FormatError("XGID field 3 (turn) must be 1 (bottom) or -1 (top); got 0")
    dice_text = fields[4]
    bottom_score = _xg_int(fields, 5, "bottom score", 0, MAX_SCORE)
    top_score = _xg_int(fields, 6, "top score", 0, MAX_SCORE)
    rules = _xg_int(fields, 7, "Crawford/Jacoby", 0, 3)
    length = _xg_int(fields, 8, "match length", 0, MAX_SCORE)
    max_cube_log2 = _xg_int(fields, 9, "max cube exponent", 0, MAX_CUBE_LOG2)
    if length and rules > 1:
        raise FormatError(f"XGID field 7 (Crawford) must be 0 or 1 in match play; got {rules}")

    if dice_text in ("B", "R"):
        raise FormatError(f"XGID dice field {dice_text!r} (beaver/raccoon pending) is not supported")
    doubled = dice_text == "D"
    if not doubled and not _XG_DICE.fullmatch(dice_text):
        raise FormatError(f"XGID field 4 (dice) must be '00', 'D' or two dice 1..6; got {dice_text!r}")
    on_roll = _XG_BOTTOM if turn_sign == 1 else 1 - _XG_BOTTOM
    try:
        state = MatchState(
            cube=1 << cube_log2,
            cube_owner={0: -1, 1: _XG_BOTTOM, -1: 1 - _XG_BOTTOM}[cube_position],
            on_roll=on_roll,
            crawford=bool(length and rules),
            game_state=1,
            turn=1 - on_roll if doubled else on_roll,
            doubled=doubled,
            dice=(0, 0) if doubled else (int(dice_text[0]), int(dice_text[1])),
            match_length=length,
            score=(top_score, bottom_score),
            jacoby=not length and bool(rules & 1),
            beavers=not length and bool(rules & 2),
            max_cube=1 << max_cube_log2,
        )
    except FormatError as exc:
        raise FormatError(f"XGID {s!r}: {exc}") from None
    board = board_bottom if on_roll == _XG_BOTTOM else variant.geometry.flip(board_bottom)
    return _without_bar(board, variant, f"XGID {s!r}"), state


def xgid(board, state: MatchState, variant: str | Variant = "standard") -> str:
    """The XGID (with its 'XGID=' prefix) of ``board``, seen from ``state.on_roll``, and ``state``.

    An XGID describes a game in play with nobody resigning, so other states raise
    FormatError; the mapping of players is the one :func:`parse_xgid` documents. In
    match play its rules field is the Crawford flag, so ``jacoby`` and ``beavers``
    (which have no effect there) are not written. ``variant`` turns the board round (its
    geometry) when the top player is on roll.
    """
    variant = variant_named(variant)
    _no_xgid(variant)
    b = _without_bar(_checked_board(board), variant, "a position")
    if not isinstance(state, MatchState):
        raise FormatError(f"xgid needs a MatchState; got {type(state).__name__}")
    if state.game_state != 1 or state.resignation:
        raise FormatError("an XGID records a game in play without a pending resignation")
    if state.turn != state.on_roll and not state.doubled:
        raise FormatError("an XGID cannot say that the player not on roll must act unless a double is offered")
    board_bottom = b if state.on_roll == _XG_BOTTOM else variant.geometry.flip(b)
    cube_position = 0 if state.cube_owner == -1 else (1 if state.cube_owner == _XG_BOTTOM else -1)
    turn_sign = 1 if state.on_roll == _XG_BOTTOM else -1
    dice = "D" if state.doubled else f"{state.dice[0]}{state.dice[1]}"
    if state.match_length:
        rules = int(state.crawford)
    else:
        rules = int(state.jacoby) + 2 * int(state.beavers)
    fields = [
        _xg_position(board_bottom),
        state.cube.bit_length() - 1,
        cube_position,
        turn_sign,
        dice,
        state.score[_XG_BOTTOM],
        state.score[1 - _XG_BOTTOM],
        rules,
        state.match_length,
        state.max_cube.bit_length() - 1,
    ]
    return XGID_PREFIX + ":".join(str(f) for f in fields)


def parse_position(text: str, variant: str | Variant = "standard") -> tuple[np.ndarray, MatchState | None]:
    """A position of ``variant`` as users paste it: an XGID, a ``PositionID:MatchID``, or a bare Position ID.

    Returns the board seen from the player on roll and the match state (None for a bare
    Position ID, which carries no cube, score or dice).
    """
    if not isinstance(text, str):
        raise FormatError(f"a position is a string; got {type(text).__name__}")
    s = text.strip()
    if s.upper().startswith(XGID_PREFIX) or s.count(":") == _XG_FIELDS - 1:
        board, state = parse_xgid(s, variant)
    elif ":" in s:
        board, state = parse_gnubgid(s, variant)
    elif variant_named(variant).off_board or len(s) == POSITION_ID_LENGTH:
        board, state = board_from_position_id(s, variant), None
    else:
        raise FormatError(f"cannot read {text!r} as a position: expected a 14-character Position ID, "
                          "'PositionID:MatchID' or an XGID")
    _check_in_play(board, state, variant_named(variant).checkers)
    return board, state


def _check_in_play(board: np.ndarray, state: MatchState | None, checkers: int) -> None:
    """A game ends when a side bears off its last checker, so a position in play has checkers of both sides;
    only a Match ID or XGID saying the game is over may show a side with none (FormatError otherwise)."""
    if state is not None and state.game_state != 1:
        return
    for side, off in zip(("the player on roll", "the opponent"), checkers_off(board, checkers)):
        if off >= checkers:
            raise FormatError(f"{side} has no checkers left: the game is over, and there is nothing to play "
                              "or analyse (a Match ID or XGID can say the game is over)")


# ---------------------------------------------------------------------------------------
# Acey-Deucey: "PositionID-A-B", the Position ID and the checkers still to enter
# ---------------------------------------------------------------------------------------

_ACEY_DEUCEY = variant_named("acey-deucey")
# '-' is not a base64 character of the Position ID, so the ID ends where the counts begin.
_ACEY_DEUCEY_ID = re.compile(r"([A-Za-z0-9+/]{14})-([0-9]{1,2})-([0-9]{1,2})")


def _no_xgid(variant: Variant) -> None:
    """XGIDs have no field for checkers still to enter: refused (FormatError) in a variant that has them."""
    if variant.off_board:
        raise FormatError(f"an XGID cannot hold the checkers still to enter of {variant.name}; "
                          "use its Position ID, 'PositionID-A-B'")


def acey_deucey_id(board) -> str:
    """The text form of an Acey-Deucey position: ``PositionID-A-B``.

    ``board`` has 28 cells (:mod:`engine.rules.variants`), seen from the player on roll. The
    Position ID is gnubg's, of its first 26 cells (the checkers on the points and the
    bars); ``A`` and ``B`` are the checkers the player on roll and his opponent have still
    to enter, in decimal. The Position ID alone would count those as borne off. The start
    is ``AAAAAAAAAAAAAA-15-15``.
    """
    try:
        b = validate(board, _ACEY_DEUCEY.checkers, _ACEY_DEUCEY.board_size)
    except BoardError as exc:
        raise FormatError(str(exc)) from None
    return f"{position_id(b[:BOARD_SIZE])}-{b[BOARD_SIZE]}-{b[BOARD_SIZE + 1]}"


def parse_acey_deucey_id(text: str) -> np.ndarray:
    """The 28-cell board (int8, from the player on roll) of an ``PositionID-A-B`` string
    (:func:`acey_deucey_id`); FormatError names the fault."""
    if not isinstance(text, str):
        raise FormatError(f"an Acey-Deucey position is a string; got {type(text).__name__}")
    match = _ACEY_DEUCEY_ID.fullmatch(text.strip())
    if match is None:
        raise FormatError(f"an Acey-Deucey position is 'PositionID-A-B' (A, B: checkers still to enter, "
                          f"player on roll first); got {text!r}")
    pid, mine, theirs = match.groups()
    board = np.concatenate([board_from_position_id(pid), np.array([int(mine), int(theirs)], dtype=DTYPE)])
    try:
        return validate(board, _ACEY_DEUCEY.checkers, _ACEY_DEUCEY.board_size)
    except BoardError as exc:
        raise FormatError(f"Acey-Deucey position {text!r}: {exc}") from None
