"""Moves in GNU Backgammon's notation: ``24/18 13/11``, ``bar/22*``, ``6/off``, ``8/5(2)``, ``24/18*/13``.

Points are numbered from the mover's side; ``bar`` is 25 and ``off`` is 0. Formatting
follows gnubg's rules, so our strings match the ones it prints: steps sorted by
falling source, steps of one checker joined (the intermediate point is kept, with a
``*``, only where it hit a blot), a ``*`` after the first landing on each blot, and
identical moves counted as ``(n)``.

Parsing accepts what a person types (any order, ``bar``/``b``/``25``, ``off``/``o``/``0``,
``*`` optional, ``(n)`` repeats, chained ``a/b/c``) and resolves it against the legal
plays of the roll, so a typed move is either one legal play or a clear error.

Every variant is written the same way, in the mover's own numbering (24 down to 1). In
Fevga and Moultezim nothing is ever hit and nobody is on the bar, so their moves carry no
``*`` and no ``bar``: the variant's legal plays decide, not the notation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .board import BOARD_SIZE, MOVER_BAR, BoardError, validate
from .errors import GammonError
from .movegen import generate
from .variants import Variant, variant_named


class MoveError(GammonError):
    """A move that cannot be read, or is not legal for the position and dice (says why)."""


def _point_name(point: int) -> str:
    return "bar" if point == MOVER_BAR else "off" if point == 0 else str(point)


def format_move(board, steps) -> str:
    """gnubg notation of a play: ``steps`` are (from, to) pairs, to = 0 for off; (-1, -1) pairs are ignored.

    ``board`` is the position before the play (it tells which landings hit a blot).
    """
    b = np.asarray(board)
    blot = {p for p in range(1, 25) if b[p] < 0}  # an opponent checker stood there: a landing hits
    moves = sorted(((int(s), int(t)) for s, t in np.asarray(steps).reshape(-1, 2) if s > 0), reverse=True)
    paths: list[list[int]] = [[s, t] for s, t in moves]
    # Join the steps of one checker: a later step starting where an earlier one ended.
    for i in range(len(paths)):
        for j in range(i + 1, len(paths)):
            if paths[i] and paths[j] and paths[i][-1] == paths[j][0]:
                if paths[i][-1] in blot:
                    paths[i].append(paths[j][1])  # keep the hit intermediate point
                else:
                    paths[i][-1] = paths[j][1]
                paths[j] = []
    paths = [p for p in paths if p]
    counted: list[tuple[list[int], int]] = []
    for path in paths:
        for entry in counted:
            if entry[0] == path:
                entry[1] += 1
                break
        else:
            counted.append([path, 1])
    marked: set[int] = set()
    words = []
    for path, count in counted:
        text = _point_name(path[0])
        for point in path[1:-1]:
            text += f"/{_point_name(point)}*"
            marked.add(point)
        end = path[-1]
        text += f"/{_point_name(end)}"
        if end in blot and end not in marked:
            text += "*"
            marked.add(end)
        if count > 1:
            text += f"({count})"
        words.append(text)
    return " ".join(words)


_TOKEN = re.compile(r"\s*(?:(bar|ba|b)|(off|of|o)|(\d+)|(/)|(\*)|\((\d+)\)|(,))", re.IGNORECASE | re.ASCII)


def _small_number(digits: str) -> int:
    """``digits`` as an int; MoveError when longer than any point or repeat count could be.

    Checked before int(), which raises ValueError beyond 4,300 digits.
    """
    if len(digits.lstrip("0")) > 6:
        shown = digits if len(digits) <= 12 else digits[:12] + "..."
        raise MoveError(f"number {shown} is too large: points are 1..24 (bar, off) and a move repeats at most 4 times")
    return int(digits)


def parse_move(text: str) -> list[tuple[int, int]]:
    """Read a move into (from, to) segments, one per checker movement as written.

    ``24/18*/13`` gives two segments, ``8/5(2)`` two equal ones, ``13/2`` one segment
    that may span several dice. Raises MoveError naming the first problem.
    """
    if not isinstance(text, str):
        raise MoveError(f"a move is text like '24/18 13/11'; got {type(text).__name__}")
    segments: list[tuple[int, int]] = []
    chain: list[int] = []
    expect_point = True
    pos = 0
    stripped = text.strip()
    if not stripped:
        return []

    def close_chain():
        if len(chain) == 1:
            raise MoveError(f"{_point_name(chain[0])!s} has no destination (write from/to, e.g. 24/18)")
        segments.extend(zip(chain, chain[1:]))
        chain.clear()

    while pos < len(stripped):
        m = _TOKEN.match(stripped, pos)
        if not m or m.end() == pos:
            raise MoveError(f"cannot read {stripped[pos:]!r} in move {text!r}: "
                            "expected a point, 'bar', 'off', '/', '*' or '(n)'")
        bar, off, number, slash, _star, repeat, comma = m.groups()
        if bar or off or number:
            point = 25 if bar else 0 if off else _small_number(number)
            if point > 25:
                raise MoveError(f"point {point} does not exist (points are 1..24, bar, off)")
            if not expect_point:
                close_chain()
            chain.append(point)
            expect_point = False
        elif slash:
            if expect_point:
                raise MoveError(f"'/' must stand between two points in {text!r}")
            expect_point = True
        elif repeat:
            n = _small_number(repeat)
            if len(chain) < 2 or expect_point:
                raise MoveError(f"'({n})' must follow a complete move like 8/5 in {text!r}")
            if not 1 <= n <= 4:
                raise MoveError(f"a move is repeated 1 to 4 times; got ({n})")
            pairs = list(zip(chain, chain[1:]))
            chain.clear()
            segments.extend(pairs * n)
        elif comma:
            if chain:
                close_chain()
            expect_point = True
        pos = m.end()
    if expect_point and chain:
        raise MoveError(f"move {text!r} ends with '/'")
    if chain:
        close_chain()
    for start, end in segments:
        if start == 0:
            raise MoveError("a checker cannot move from 'off'")
        if end == MOVER_BAR:
            raise MoveError("a checker cannot move to the bar")
        if end >= start:
            raise MoveError(f"{_point_name(start)}/{_point_name(end)} moves backwards: "
                            "checkers move from higher to lower points")
    return segments


@dataclass(frozen=True)
class LegalPlay:
    """One legal play: the afterstate (mover's view, before the turn passes), its steps and notation."""

    board: np.ndarray
    steps: np.ndarray
    notation: str


def legal_plays(board, dice, variant: str | Variant = "standard") -> list[LegalPlay]:
    """Every distinct legal play of ``dice`` from ``board`` in ``variant``, with gnubg notation ('' when
    nothing can be played)."""
    variant = variant_named(variant)
    b = validate(board, variant.checkers)
    d = np.asarray(dice, dtype=np.int64)
    result = generate(b[None], d[None], variant=variant)
    return [LegalPlay(board=a, steps=s, notation=format_move(b, s)) for a, s in zip(result.boards, result.steps)]


def _net_mover_change(segments) -> np.ndarray:
    change = np.zeros(BOARD_SIZE, dtype=np.int64)  # index 0 here = borne off
    for start, end in segments:
        change[start] -= 1
        change[end] += 1
    return change


def _mover_change(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    change = np.zeros(BOARD_SIZE, dtype=np.int64)
    change[1:] = np.maximum(after[1:], 0) - np.maximum(before[1:], 0)
    change[0] = -change[1:].sum()
    return change


def find_play(board, dice, text: str, variant: str | Variant = "standard") -> LegalPlay:
    """The legal play that ``text`` describes for ``dice`` in ``variant``; MoveError says why when there is none."""
    variant = variant_named(variant)
    b = validate(board, variant.checkers)
    d = tuple(int(x) for x in np.asarray(dice).ravel())
    if len(d) != 2 or not all(1 <= x <= 6 for x in d):
        raise BoardError(f"dice are two numbers 1..6; got {d}")
    segments = parse_move(text)
    plays = legal_plays(b, d, variant)
    roll = f"{d[0]}-{d[1]}"
    if len(plays) == 1 and not plays[0].notation:
        if segments:
            raise MoveError(f"no legal move with {roll}: the turn passes (enter an empty move)")
        return plays[0]
    if not segments:
        raise MoveError(f"a legal move exists with {roll}; for example {plays[0].notation}")
    wanted = _net_mover_change(segments)
    matches = [p for p in plays if np.array_equal(_mover_change(b, p.board), wanted)]
    if len(matches) > 1:  # same checkers moved, different blots hit: the written path decides
        written = format_move(b, np.array(segments))
        exact = [p for p in matches if p.notation == written]
        if len(exact) == 1:
            return exact[0]
        options = ", ".join(p.notation for p in matches)
        raise MoveError(f"{text!r} is ambiguous with {roll}: it could be {options}; "
                        "write the hits with '*' and the intermediate points")
    if matches:
        return matches[0]
    raise MoveError(_why_illegal(b, d, segments, plays, text, variant))


def _rule_broken(board: np.ndarray, segments, variant: Variant) -> str | None:
    """The first of the variant's restrictions that the written move breaks on its way (each
    segment applied in turn), as the first sentence of its docstring without the variant's
    name in front; None when it breaks none."""
    b = board.copy()
    for start, end in segments:
        b[start] -= 1
        if end > 0:
            b[end] += 1
        for rule in variant.restrictions:
            if rule(b[None])[0]:
                sentence = re.split(r"\.(?:\s|$)", " ".join((rule.__doc__ or rule.__name__).split()))[0]
                named, _, text = sentence.partition(": ")
                return text if named.lower() == variant.name else sentence
    return None


def _why_illegal(board: np.ndarray, dice: tuple[int, int], segments, plays, text: str, variant: Variant) -> str:
    roll = f"{dice[0]}-{dice[1]}"
    pips = sum(start - end for start, end in segments if end > 0)
    max_dice = 4 if dice[0] == dice[1] else 2
    closed = -1 if variant.lone_checker_holds else -2  # a point with this many opposing checkers or more
    if board[MOVER_BAR] > 0 and not any(start == MOVER_BAR for start, _ in segments):
        reason = f"you have {board[MOVER_BAR]} checker(s) on the bar: they must enter first"
    elif any(board[start] <= 0 for start, _ in segments if start != MOVER_BAR) or (
        any(start == MOVER_BAR for start, _ in segments) and board[MOVER_BAR] == 0
    ):
        start = next(s for s, _ in segments
                     if (s == MOVER_BAR and board[MOVER_BAR] == 0) or (s != MOVER_BAR and board[s] <= 0))
        reason = f"you have no checker on {_point_name(start)}"
    elif any(0 < end < 25 and board[end] <= closed for _, end in segments):
        end = next(e for _, e in segments if 0 < e < 25 and board[e] <= closed)
        reason = f"point {end} is blocked (the opponent has {-board[end]} checker(s) there)"
    elif any(end == 0 for _, end in segments) and np.any(board[7:26] > 0):
        reason = "bearing off needs every checker in the home board (points 1..6)"
    elif pips > sum(dice) * (2 if dice[0] == dice[1] else 1):
        reason = f"it moves {pips} pips but {roll} gives at most {sum(dice) * (2 if dice[0] == dice[1] else 1)}"
    elif rule := _rule_broken(board, segments, variant):
        reason = f"{variant.name} forbids it: {rule}"
    else:
        used = max(int((p.steps[:, 0] > 0).sum()) for p in plays)
        reason = f"a legal play here uses {used} of the {max_dice} dice (as many as possible must be played)"
    examples = ", ".join(p.notation for p in plays[:6]) + (" ..." if len(plays) > 6 else "")
    return f"{text!r} is not legal with {roll}: {reason}. Legal: {examples}"
