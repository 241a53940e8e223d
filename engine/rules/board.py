"""The one board layout used end to end, and the small exact helpers around it.

A board is 26 small integers seen from the side to move (the *mover*), in GNU
Backgammon's own numbering (also the layout of the reference data in ``tests/data``):

==========  ==============================================================
index       meaning
==========  ==============================================================
``0``       opponent checkers on the bar (count, >= 0)
``1..24``   points numbered from the mover's side: > 0 mover checkers,
            < 0 opponent checkers
``25``      mover checkers on the bar (count, >= 0)
==========  ==============================================================

Borne-off checkers are implicit: ``checkers - (on board + on bar)`` for each side.
The mover moves from 24 towards 1 and enters from the bar on point ``25 - die``;
the opponent's own point ``n`` is the mover's point ``25 - n``.

Acey-Deucey, whose checkers start off the board, has two cells more, 28 in all
(:mod:`engine.rules.variants`): ``[26]`` the mover's checkers still to enter, ``[27]`` the
opponent's. Borne-off checkers are then ``checkers - (on board + on bar + to enter)``,
and the counts here (:func:`mover_counts`, pips, contact, race) take a checker still to
enter as one on the bar: 25 pips from home, behind everything. A side with checkers still
to enter has borne none off (bearing off needs all of them home).

A batch of N boards is one ``(N, 26)`` integer array (``int8`` inside the engine).
Every function here accepts one board or a batch.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.errors import BoardError
from gammon.engine.rules.variants import (
    BOARD_SIZE_UNENTERED,
    MIRRORED,
    MOVER_UNENTERED,
    OPPONENT_UNENTERED,
    Geometry,
    Variant,
    variant_named,
)
from gammon.engine.rules.variants import VARIANTS as ALL_VARIANTS

try:  # position classes in C (engine/rules/_native.c), the same answers; an install without a C compiler has them below
    from gammon.engine.rules._native import classes as compiled_classes
except ImportError:
    compiled_classes = None

OPP_BAR = 0
MOVER_BAR = 25
BOARD_SIZE = 26
MAX_CHECKERS = 15
DTYPE = np.int8

# The variants on backgammon's own board (mirrored tracks, hitting, every checker on it from the
# start): those the position formats, match files and analysis commands describe.
# engine.rules.variants.VARIANTS holds every variant.
VARIANTS = {name: v for name, v in ALL_VARIANTS.items()
            if v.geometry is MIRRORED and not v.lone_checker_holds and not v.off_board}

def starting_board(variant: str | Variant = "standard") -> np.ndarray:
    """The starting position of ``variant`` (a name in :data:`engine.rules.variants.VARIANTS`)."""
    return variant_named(variant).starting_board()


def variant_checkers(variant: str | Variant) -> int:
    """Checkers per side in ``variant``."""
    return variant_named(variant).checkers


def mover_counts(boards: np.ndarray) -> np.ndarray:
    """Mover checkers on points 1..24 and the bar, per board: shape (..., 25), index i = point i+1.

    Checkers still to enter (Acey-Deucey's boards) count as on the bar.
    """
    b = np.asarray(boards)
    counts = np.maximum(b[..., 1:26], 0)
    if b.shape[-1] == BOARD_SIZE_UNENTERED:
        counts[..., MOVER_BAR - 1] += b[..., MOVER_UNENTERED]
    return counts


def opponent_counts(boards: np.ndarray, geometry: Geometry = MIRRORED) -> np.ndarray:
    """Opponent checkers in the opponent's own numbering: shape (..., 25), index i = its point i+1, 24 = its bar."""
    return geometry.opponent_counts(boards)


def checkers_off(boards: np.ndarray, checkers: int = MAX_CHECKERS) -> np.ndarray:
    """Borne-off checkers ``[..., (mover, opponent)]``."""
    return checkers - np.stack(
        [mover_counts(boards).sum(-1), opponent_counts(boards).sum(-1)], axis=-1
    )


_SPOTS = np.arange(1, 26)  # a side's points 1..24 and its bar, as its (..., 25) counts hold them


def pips_of(counts: np.ndarray) -> np.ndarray:
    """A side's pip count from its (..., 25) own-numbered counts (a checker on the bar counts 25)."""
    return counts @ _SPOTS


def rearmost(counts: np.ndarray) -> np.ndarray:
    """A side's rearmost occupied point from its (..., 25) own-numbered counts (bar = 25, 0 = none left)."""
    # the first occupied spot from the bar down, a sentinel past point 1 for none (argmax over a contiguous
    # copy: five times faster on a search's batches than a max over the spots)
    occupied = counts > 0
    from_bar = np.concatenate([occupied[..., ::-1], np.ones(occupied.shape[:-1] + (1,), dtype=bool)], axis=-1)
    return 25 - np.argmax(from_bar, axis=-1)


def pip_counts(boards: np.ndarray, geometry: Geometry = MIRRORED) -> np.ndarray:
    """Pip counts ``[..., (mover, opponent)]`` (a checker on the bar counts 25)."""
    return np.stack([pips_of(mover_counts(boards)), pips_of(opponent_counts(boards, geometry))], axis=-1)


def back_checkers(boards: np.ndarray, geometry: Geometry = MIRRORED) -> np.ndarray:
    """Each side's rearmost occupied point in its own numbering (bar = 25, 0 = none left): (..., 2)."""
    return back_of(mover_counts(boards), opponent_counts(boards, geometry))


def back_of(mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """:func:`back_checkers` from each side's (..., 25) own-numbered counts, for callers that hold them."""
    return np.stack([rearmost(mine), rearmost(theirs)], axis=-1)


def is_race(boards: np.ndarray, geometry: Geometry = MIRRORED) -> np.ndarray:
    """Whether no contact is left: the two sides can never meet again.

    Mirrored (backgammon): the opponent's own point q is the mover's point 25 - q, so the
    sides still meet while the two back checkers add up to more than 25 (gnubg's
    ClassifyPosition test).

    Rotated (Fevga, Moultezim: both sides run the same way round): our rule, the texts being
    silent (docs/rules.md), is that every checker of each side is in that side's last half, its
    own points 1..12, or borne off. The opponent's 1..12 are the mover's 13..24, so the two
    remaining paths are then disjoint; a checker further back still shares part of its path
    with the other side.
    """
    return race_of_back_checkers(back_checkers(boards, geometry), geometry)


def race_of_back_checkers(back: np.ndarray, geometry: Geometry = MIRRORED) -> np.ndarray:
    """:func:`is_race` from each side's rearmost point (:func:`back_checkers`, (..., 2))."""
    if geometry is MIRRORED:
        return back.sum(axis=-1) <= 25
    return (back <= 12).all(axis=-1)


# Position classes, as GNU Backgammon names them; each may have a network of its own.
CONTACT, CRASHED, RACE = 0, 1, 2
CLASS_NAMES = ("contact", "crashed", "race")


def _crashed(counts: np.ndarray) -> np.ndarray:
    """Whether a side, given its (..., 25) own-numbered counts, has crashed its board.

    gnubg's test: at most six checkers still in play once the dead ones are set aside.
    Dead are all checkers on the 1-point when it holds two or more (then also all but one
    on the 2-point when that holds two or more), else all but one on the 2-point.
    """
    total = counts.sum(-1)
    ace, deuce = counts[..., 0], counts[..., 1]
    piled_ace = ace > 1
    in_play = np.where(piled_ace, total - ace, total - np.maximum(deuce - 1, 0))
    both = piled_ace & (deuce > 1) & (total - ace - deuce + 1 <= 6)
    return (total <= 6) | (in_play <= 6) | both


def position_class(boards: np.ndarray) -> np.ndarray:
    """CONTACT, CRASHED or RACE for each board (one place for the whole code base).

    A race once the sides have passed each other (:func:`is_race`); crashed when the
    sides still meet and either side has crashed its board (:func:`_crashed`); contact
    otherwise. Bear-offs are races here: the exact databases take them before any net.
    """
    b = np.asarray(boards)
    if compiled_classes is not None and b.dtype == np.int8 and b.ndim == 2 and b.shape[1] == BOARD_SIZE:
        return np.frombuffer(compiled_classes(np.ascontiguousarray(b)), dtype=np.int8).astype(np.intp)
    mine, theirs = mover_counts(b), opponent_counts(b)  # once: every evaluation classes its batch
    race = race_of_back_checkers(back_of(mine, theirs))
    return np.where(race, RACE, np.where(_crashed(mine) | _crashed(theirs), CRASHED, CONTACT))


def flip(boards: np.ndarray) -> np.ndarray:
    """The same position seen from the other side (the opponent becomes the mover), on
    backgammon's mirrored board; a variant's own geometry has its ``flip``."""
    return MIRRORED.flip(boards)


_CELL_NAMES = {OPP_BAR: "opponent bar", MOVER_BAR: "own bar", MOVER_UNENTERED: "own checkers to enter",
               OPPONENT_UNENTERED: "opponent checkers to enter"}


def _cell_name(index: int) -> str:
    return _CELL_NAMES.get(index, f"point {index}")


def _layout(size: int) -> str:
    """What the cells of a board of ``size`` hold, for error messages."""
    extra = ", own and opponent checkers to enter" if size == BOARD_SIZE_UNENTERED else ""
    return f"{size} entries (opp bar, points 1..24, own bar{extra})"


def _out_of_range(b: np.ndarray, checkers: int) -> np.ndarray:
    """Cells beyond +-checkers, tested in the array's own dtype, before a cast or ``abs`` can overflow.

    int64's minimum is its own absolute value, and a huge float or uint64 wraps when cast to
    int64: a range test after the cast would let such checkers vanish.
    """
    if np.issubdtype(b.dtype, np.unsignedinteger):
        return b > checkers
    return ~((b >= -checkers) & (b <= checkers))  # the negation also catches NaN


def _check_range(b: np.ndarray, checkers: int) -> None:
    bad = _out_of_range(b, checkers)
    if np.any(bad):
        cell = int(np.argmax(bad))
        value = b[cell].item()  # a Python number: its abs cannot overflow
        if value != value:
            raise BoardError(f"{_cell_name(cell)} is NaN, not a number of checkers")
        raise BoardError(f"{_cell_name(cell)} holds {abs(value)} checkers; a side has only {checkers}")


def _unentered_with_checkers_off(b: np.ndarray, checkers: int) -> np.ndarray:
    """Per board and side (..., 2): checkers still to enter while some are borne off, which
    cannot happen (bearing off needs every checker home)."""
    unentered = b[..., [MOVER_UNENTERED, OPPONENT_UNENTERED]]
    on = np.stack([mover_counts(b).sum(-1), opponent_counts(b).sum(-1)], axis=-1)
    return (unentered > 0) & (on < checkers)


def validate(board, checkers: int = MAX_CHECKERS, size: int = BOARD_SIZE) -> np.ndarray:
    """Check one board of ``size`` cells (28 in Acey-Deucey) and return it as an int8 array;
    raise BoardError naming the fault."""
    try:
        b = np.asarray(board)
    except Exception as exc:  # ragged lists and the like
        raise BoardError(f"board is not an array of integers: {exc}") from None
    if b.shape != (size,):
        raise BoardError(f"a board has {_layout(size)}; got shape {b.shape}")
    if not (np.issubdtype(b.dtype, np.integer) or np.issubdtype(b.dtype, np.floating)):
        raise BoardError(f"board entries must be integers; got dtype {b.dtype}")
    _check_range(b, checkers)
    if np.issubdtype(b.dtype, np.floating) and not np.all(b == np.round(b)):
        raise BoardError(f"board entries must be integers; got dtype {b.dtype}")
    b = b.astype(np.int64)
    if b[OPP_BAR] < 0 or b[MOVER_BAR] < 0:
        raise BoardError(f"bar counts must be >= 0; got opponent bar {b[OPP_BAR]}, own bar {b[MOVER_BAR]}")
    if size == BOARD_SIZE_UNENTERED and (b[MOVER_UNENTERED] < 0 or b[OPPONENT_UNENTERED] < 0):
        raise BoardError(f"checkers to enter must be >= 0; got own {b[MOVER_UNENTERED]}, "
                         f"opponent {b[OPPONENT_UNENTERED]}")
    for side, counts in (("mover", mover_counts(b)), ("opponent", opponent_counts(b))):
        total = int(counts.sum())
        if total > checkers:
            where = "on the board and bar" if size == BOARD_SIZE else "on the board, on the bar and to enter"
            raise BoardError(f"the {side} has {total} checkers {where}; at most {checkers} allowed")
    if size == BOARD_SIZE_UNENTERED and _unentered_with_checkers_off(b, checkers).any():
        side = ("mover", "opponent")[int(np.argmax(_unentered_with_checkers_off(b, checkers)))]
        raise BoardError(f"the {side} has checkers to enter and others borne off; "
                         f"bearing off needs all {checkers} home")
    return b.astype(DTYPE)


def validate_batch(boards, checkers: int = MAX_CHECKERS, size: int = BOARD_SIZE) -> np.ndarray:
    """Check an (N, size) batch cheaply (vectorized) and return it as int8; raise BoardError on the first bad row."""
    b = np.asarray(boards)
    if b.ndim != 2 or b.shape[1] != size:
        raise BoardError(f"a batch of boards has shape (N, {size}); got {b.shape}")
    if not (np.issubdtype(b.dtype, np.integer) or np.issubdtype(b.dtype, np.floating)):
        raise BoardError(f"board entries must be integers; got dtype {b.dtype}")
    b64 = b.astype(np.int64)
    bad = (
        np.any(_out_of_range(b, checkers), axis=1)
        | (b64[:, OPP_BAR] < 0)
        | (b64[:, MOVER_BAR] < 0)
        | (mover_counts(b64).sum(1) > checkers)
        | (opponent_counts(b64).sum(1) > checkers)
    )
    if size == BOARD_SIZE_UNENTERED:
        bad |= np.any(b64[:, MOVER_UNENTERED:] < 0, axis=1)
        bad |= np.any(_unentered_with_checkers_off(b64, checkers), axis=1)
    if np.any(bad) or not np.array_equal(b64, b):
        row = int(np.argmax(bad)) if np.any(bad) else 0
        try:
            validate(b[row], checkers, size)
        except BoardError as exc:
            raise BoardError(f"board {row}: {exc}") from None
        raise BoardError(f"board {row}: entries must be integers")
    return b.astype(DTYPE)


def render(board, checkers: int = MAX_CHECKERS, names: tuple[str, str] = ("X (on roll)", "O"),
           geometry: Geometry = MIRRORED) -> str:
    """A text drawing of one board from the mover's side (X = mover, O = opponent).

    Points 13..24 run along the top, 12..1 along the bottom, as gnubg draws them for the
    player on roll; the bar and borne-off counts are written beside the board. The
    ``geometry`` of the variant places the opponent's track for his pip count. An
    Acey-Deucey board (28 cells) also shows each side's checkers still to enter.
    """
    size = BOARD_SIZE_UNENTERED if np.shape(board) == (BOARD_SIZE_UNENTERED,) else BOARD_SIZE
    b = validate(board, checkers, size).astype(int)
    off_x, off_o = checkers_off(b, checkers)
    pips = pip_counts(b, geometry)

    def column(point: int, top: bool) -> list[str]:
        n = b[point]
        mark = "X" if n > 0 else "O"
        cells = []
        for row in range(5):
            if abs(n) > row:
                cells.append(str(abs(n)) if row == 4 and abs(n) > 5 else mark)
            else:
                cells.append(".")
        return cells if top else cells[::-1]

    def half(points: list[int], top: bool) -> list[str]:
        cols = [column(p, top) for p in points]
        lines = []
        for row in range(5):
            left = " ".join(f"{c[row]:>2}" for c in cols[:6])
            right = " ".join(f"{c[row]:>2}" for c in cols[6:])
            lines.append(f"|{left} |   |{right} |")
        return lines

    top_points = list(range(13, 25))
    bottom_points = list(range(12, 0, -1))
    header = " " + " ".join(f"{p:>2}" for p in top_points[:6]) + "       " + " ".join(f"{p:>2}" for p in top_points[6:])
    footer = (" " + " ".join(f"{p:>2}" for p in bottom_points[:6]) + "       "
              + " ".join(f"{p:>2}" for p in bottom_points[6:]))
    rule = "+" + "-" * 18 + "+---+" + "-" * 18 + "+"
    bar = f"|{'':18}|BAR|{'':18}|   X bar {b[MOVER_BAR]}, O bar {b[OPP_BAR]}"
    if len(b) == BOARD_SIZE_UNENTERED:
        bar += f"; to enter X {b[MOVER_UNENTERED]}, O {b[OPPONENT_UNENTERED]}"
    lines = [header, rule, *half(top_points, True), bar, *half(bottom_points, False), rule, footer]
    lines.append(f"{names[0]}: pips {pips[0]}, off {off_x}    {names[1]}: pips {pips[1]}, off {off_o}")
    return "\n".join(lines)
