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

Acey-Deucey adds two things. A checker entering from off the board (never entered yet) is
written from ``off``: ``off/22``, while ``bar/22`` stays a hit checker re-entering (a
checker can never move from the borne-off tray, so the source says which). A 1-2 turn,
the 1-2 and then the double the player chose, is written in its two parts:
``13/11 6/5 then 4-4: 24/20(2) 13/9(2)``; ``no move`` stands for a part that moves nothing,
and ``then no double`` for a double that moved nothing or never came (a 1-2 not played in
full); a turn that moves nothing at all is the empty string, as in every variant. Typed
moves may use the same words (``then``, ``no move`` and ``no double`` only separate the
parts) or list every step of the turn in any order; ``4-4:`` separates the parts too, and
where the same position can be left with the extra roll (a double played in full) and
without it (another double, played in part), it names the one meant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from gammon.engine.errors import GammonError
from gammon.engine.rules.board import BOARD_SIZE, MOVER_BAR, OPP_BAR, BoardError, validate
from gammon.engine.rules.movegen import WILD_STEPS, generate
from gammon.engine.rules.variants import MOVER_UNENTERED, Variant, variant_named

OFF_BOARD = MOVER_UNENTERED  # a step's source for a checker entering from off the board, in this module


class MoveError(GammonError):
    """A move that cannot be read, or is not legal for the position and dice (says why)."""


def _point_name(point: int) -> str:
    return "bar" if point == MOVER_BAR else "off" if point in (0, OFF_BOARD) else str(point)


def format_move(board, steps, wild: bool = False) -> str:
    """gnubg notation of a play: ``steps`` are (from, to) pairs, to = 0 for off; (-1, -1) pairs are ignored.

    ``board`` is the position before the play (it tells which landings hit a blot, and on a
    board of 28 cells which entries come from the bar: the first, as the rules have it; the
    rest enter from off the board). ``wild``: the play of a wild roll, six steps, the roll's
    two and then the double's four, written in its two parts.
    """
    if wild:
        return _format_wild(board, steps)
    b = np.asarray(board)
    blot = {p for p in range(1, 25) if b[p] < 0}  # an opponent checker stood there: a landing hits
    paths: list[list[int]] = [[s, t] for s, t in play_steps(b, steps)]
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


def play_steps(board, steps) -> list[tuple[int, int]]:
    """A play's (from, to) steps as they are written, highest source first, the (-1, -1) pairs dropped.

    On a board of 28 cells (Acey-Deucey's) the generator's entries all step from the bar;
    here the entries beyond the checkers on the bar step from :data:`OFF_BOARD`.
    """
    b = np.asarray(board)
    moves = sorted(((int(s), int(t)) for s, t in np.asarray(steps).reshape(-1, 2) if s > 0), reverse=True)
    return _entries_from_off_board(moves, int(b[MOVER_BAR])) if len(b) > BOARD_SIZE else moves


def _entries_from_off_board(moves: list[tuple[int, int]], on_bar: int) -> list[tuple[int, int]]:
    """``moves`` with the entries (steps from 25) beyond the ``on_bar`` hit checkers, which enter
    first, stepping from :data:`OFF_BOARD` instead. Entered checkers are alike, so which entry is
    called the bar's does not change the play."""
    entries = [i for i, (source, _) in enumerate(moves) if source == MOVER_BAR]
    return [(OFF_BOARD, t) if i in entries[on_bar:] else (s, t) for i, (s, t) in enumerate(moves)]


def _format_wild(board, steps) -> str:
    """A wild roll's play: the roll's part, ``then``, the double's part after its roll (``4-4:``).

    The double is read off its steps: a step that lands on the board moves exactly the die, so
    the longest step is the die unless every step bears off; then the longest is a die that
    bears off the same checkers.
    """
    b = np.asarray(board)
    steps = np.asarray(steps).reshape(-1, 2)
    if len(steps) != WILD_STEPS:
        raise ValueError(f"a wild roll's play has {WILD_STEPS} steps; got {len(steps)}")
    first, double = steps[:2], steps[2:]
    opening = format_move(b, first) or "no move"
    die = _double_die(steps)
    if die == 0:
        return "" if opening == "no move" else f"{opening} then no double"  # "": nothing played, as elsewhere
    return f"{opening} then {die}-{die}: {format_move(_after_steps(b, first), double)}"


def _double_die(steps) -> int:
    """The die of the double in a wild roll's six steps, as it is written; 0 when the double moved nothing."""
    double = np.asarray(steps).reshape(-1, 2)[2:]
    moved = double[double[:, 0] > 0]
    return int((moved[:, 0] - moved[:, 1]).max()) if len(moved) else 0


def _after_steps(board: np.ndarray, steps) -> np.ndarray:
    """The mover's board after ``steps`` ((from, to) pairs in play order), hits included; an entry takes a
    hit checker from the bar first, else one still to enter."""
    b = np.array(board)
    for source, target in np.asarray(steps).reshape(-1, 2):
        if source <= 0:
            continue
        b[OFF_BOARD if source == MOVER_BAR and b[MOVER_BAR] == 0 and len(b) > BOARD_SIZE else source] -= 1
        if target > 0:
            hit = b[target] == -1
            b[target] = 1 if hit else b[target] + 1
            b[OPP_BAR] += hit
    return b


# A wild roll's parts may be written as format_move writes them: "then", a double's roll like "4-4:" and the
# words for a part that moves nothing only separate the parts.
_TOKEN = re.compile(r"\s*(?:(then\b|[1-6]-[1-6]:|no move\b|no double\b)"
                    r"|(bar|ba|b)|(off|of|o)|(\d+)|(/)|(\*)|\((\d+)\)|(,))", re.IGNORECASE | re.ASCII)


def _small_number(digits: str) -> int:
    """``digits`` as an int; MoveError when longer than any point or repeat count could be.

    Checked before int(), which raises ValueError beyond 4,300 digits.
    """
    if len(digits.lstrip("0")) > 6:
        shown = digits if len(digits) <= 12 else digits[:12] + "..."
        raise MoveError(f"number {shown} is too large: points are 1..24 (bar, off) and a move repeats at most 4 times")
    return int(digits)


def parse_move(text: str, off_board: bool = False) -> list[tuple[int, int]]:
    """Read a move into (from, to) segments, one per checker movement as written.

    ``24/18*/13`` gives two segments, ``8/5(2)`` two equal ones, ``13/2`` one segment
    that may span several dice. ``off_board`` (Acey-Deucey): ``off/22`` enters a checker
    from off the board, a segment from :data:`OFF_BOARD`. Raises MoveError naming the first
    problem.
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
        part, bar, off, number, slash, _star, repeat, comma = m.groups()
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
        elif comma or part:
            if chain:
                close_chain()
            expect_point = True
        pos = m.end()
    if expect_point and chain:
        raise MoveError(f"move {text!r} ends with '/'")
    if chain:
        close_chain()
    if off_board:
        segments = [(OFF_BOARD if start == 0 else start, end) for start, end in segments]
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
    rolls_again: bool = False  # a wild roll and its double played in full: the mover rolls again (unless he won)


def legal_plays(board, dice, variant: str | Variant = "standard") -> list[LegalPlay]:
    """Every distinct legal play of ``dice`` from ``board`` in ``variant``, with gnubg notation ('' when
    nothing can be played)."""
    variant = variant_named(variant)
    b = validate(board, variant.checkers, variant.board_size)
    d = np.asarray(dice, dtype=np.int64)
    result = generate(b[None], d[None], variant=variant)
    wild = bool(variant.is_wild(d))
    return [LegalPlay(board=a, steps=s, notation=format_move(b, s, wild), rolls_again=bool(again))
            for a, s, again in zip(result.boards, result.steps, result.extra_roll)]


def _net_mover_change(segments, size: int) -> np.ndarray:
    """How the written segments change the mover's cells of a board of ``size`` (index 0 here: borne off)."""
    change = np.zeros(size, dtype=np.int64)
    for start, end in segments:
        change[start] -= 1
        change[end] += 1
    return change


def _mover_change(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """How a play changed the mover's cells: points, bar, checkers still to enter (index 0 here: borne off)."""
    change = np.zeros(len(before), dtype=np.int64)
    change[1:26] = np.maximum(after[1:26], 0) - np.maximum(before[1:26], 0)
    if len(before) > BOARD_SIZE:
        change[OFF_BOARD] = after[OFF_BOARD] - before[OFF_BOARD]
    change[0] = -change[1:].sum()
    return change


def find_play(board, dice, text: str, variant: str | Variant = "standard") -> LegalPlay:
    """The legal play that ``text`` describes for ``dice`` in ``variant``; MoveError says why when there is none."""
    variant = variant_named(variant)
    b = validate(board, variant.checkers, variant.board_size)
    d = tuple(int(x) for x in np.asarray(dice).ravel())
    if len(d) != 2 or not all(1 <= x <= 6 for x in d):
        raise BoardError(f"dice are two numbers 1..6; got {d}")
    segments = parse_move(text, off_board=variant.off_board > 0)
    plays = legal_plays(b, d, variant)
    roll = f"{d[0]}-{d[1]}"
    if len(plays) == 1 and not plays[0].notation:
        if segments:
            raise MoveError(f"no legal move with {roll}: the turn passes (enter an empty move)")
        return plays[0]
    if not segments:
        raise MoveError(f"a legal move exists with {roll}; for example {plays[0].notation}")
    wanted = _net_mover_change(segments, len(b))
    matches = [p for p in plays if np.array_equal(_mover_change(b, p.board), wanted)]
    if len(matches) > 1:  # same checkers moved, different blots hit: the points written as landings decide
        written = _after_steps(b, segments)
        exact = [p for p in matches if np.array_equal(p.board, written)]
        named = re.search(r"\b([1-6])-\1:", text)
        if named and len(exact) > 1:  # one position, with and without the extra roll: the double written decides
            exact = [p for p in exact if _double_die(p.steps) == int(named.group(1))]
        if len(exact) == 1:
            return exact[0]
        options = ", ".join(p.notation for p in matches)
        what = ("the hits with '*', the intermediate points and the double (then 4-4:)" if variant.is_wild(np.array(d))
                else "the hits with '*' and the intermediate points")
        raise MoveError(f"{text!r} is ambiguous with {roll}: it could be {options}; write {what}")
    if matches:
        return matches[0]
    raise MoveError(_why_illegal(b, d, segments, plays, text, variant))


def _rule_broken(board: np.ndarray, segments, variant: Variant) -> str | None:
    """The first of the variant's restrictions that the written move breaks on its way (each
    segment applied in turn), as the first sentence of its docstring without the variants'
    names in front; None when it breaks none."""
    b = board.copy()
    for start, end in segments:
        b[start] -= 1
        if end > 0:
            b[end] += 1
        for rule in variant.restrictions:
            if rule(b[None])[0]:
                sentence = re.split(r"\.(?:\s|$)", " ".join((rule.__doc__ or rule.__name__).split()))[0]
                named, _, text = sentence.partition(": ")
                return text if variant.name in named.lower().split(" and ") else sentence
    return None


def _to_enter(board: np.ndarray) -> int:
    """The mover's checkers still to enter (0 on a board without them)."""
    return int(board[OFF_BOARD]) if len(board) > BOARD_SIZE else 0


def _dice_for(distance: int, dice: tuple[int, int]) -> int:
    """How many dice of the roll move one checker ``distance`` pips (a die, both, or up to four of a double);
    0 when they cannot."""
    if dice[0] == dice[1]:
        steps, left = divmod(distance, dice[0])
        return steps if not left and 1 <= steps <= 4 else 0
    return 1 if distance in dice else 2 if distance == sum(dice) else 0


def _unmade_segment(segments, dice: tuple[int, int], variant: Variant) -> str | None:
    """Why a step of the typed move fits no die of the roll ("8/5 needs a 3; the roll is 6-2"), or None.

    Steps that bear off are left to the other checks (a higher die may bear off), as is a wild roll."""
    if variant.is_wild(np.array(dice)):
        return None
    for start, end in segments:
        distance = min(start, MOVER_BAR) - end
        if end > 0 and not _dice_for(distance, dice):
            need = f"a {distance}" if distance <= 6 else f"{distance} pips"
            return f"{_point_name(start)}/{end} needs {need}; the roll is {dice[0]}-{dice[1]}"
    return None


def _why_illegal(board: np.ndarray, dice: tuple[int, int], segments, plays, text: str, variant: Variant) -> str:
    roll = f"{dice[0]}-{dice[1]}"
    pips = sum(min(start, MOVER_BAR) - end for start, end in segments if end > 0)
    max_dice, max_pips = (4, 4 * dice[0]) if dice[0] == dice[1] else (2, sum(dice))
    if variant.is_wild(np.array(dice)):  # the roll, then any double: 6-6 at most
        max_dice, max_pips = WILD_STEPS, sum(dice) + 4 * 6
    closed = -1 if variant.lone_checker_holds else -2  # a point with this many opposing checkers or more
    if board[MOVER_BAR] > 0 and not any(start == MOVER_BAR for start, _ in segments):
        reason = f"you have {board[MOVER_BAR]} checker(s) on the bar: they must enter first"
    elif any(board[start] <= 0 for start, _ in segments if start != MOVER_BAR) or (
        any(start == MOVER_BAR for start, _ in segments) and board[MOVER_BAR] == 0
    ):
        start = next(s for s, _ in segments
                     if (s == MOVER_BAR and board[MOVER_BAR] == 0) or (s != MOVER_BAR and board[s] <= 0))
        reason = "you have no checker still to enter" if start == OFF_BOARD else \
            f"you have no checker on {_point_name(start)}"
    elif any(0 < end < 25 and board[end] <= closed for _, end in segments):
        end = next(e for _, e in segments if 0 < e < 25 and board[e] <= closed)
        reason = f"point {end} is blocked (the opponent has {-board[end]} checker(s) there)"
    elif any(end == 0 for _, end in segments) and (np.any(board[7:26] > 0) or _to_enter(board) > 0):
        reason = "bearing off needs every checker in the home board (points 1..6)"
    elif pips > max_pips:
        reason = f"it moves {pips} pips but {roll} gives at most {max_pips}"
    elif rule := _rule_broken(board, segments, variant):
        reason = f"{variant.name} forbids it: {rule}"
    elif unmade := _unmade_segment(segments, dice, variant):
        reason = unmade
    else:
        used = max(int((p.steps[:, 0] > 0).sum()) for p in plays)
        # a wild roll's double is any the player names: its steps cannot be told from the roll's two dice
        typed = used if variant.is_wild(np.array(dice)) else \
            sum(_dice_for(min(start, MOVER_BAR) - end, dice) or 1 for start, end in segments)
        reason = (f"it plays {typed} of the dice, but {used} can be played here, and as many as possible must be"
                  if typed < used else
                  "only one die can be played here, and the larger one must be played when it can"
                  if used == 1 and max_dice == 2 else
                  f"a legal play here uses {used} of the {max_dice} dice (as many as possible must be played)")
    examples = ", ".join(p.notation for p in plays[:6]) + (" ..." if len(plays) > 6 else "")
    return f"{text!r} is not legal with {roll}: {reason}. Legal: {examples}"
