"""Vectorized legal-move generation: every distinct afterstate of a batch of (board, dice).

The generator works on whole batches with numpy and has no Python loop over positions
or over afterstates. One *step* (one die played by one checker) is applied to every
partial play at once:

1. Each partial play is a 32-byte row: the board (bytes 0..25, layout of
   :mod:`engine.rules.board`), the source point of each step played so far (bytes 26..29)
   and the dice in the order they are played (bytes 30, 31; doubles repeat the die).
2. The legal sources for a die come out of bit masks, one 32-bit word per row:
   ``occupied & (open << die)`` for ordinary moves, then the bar rule and the
   bear-off rules (exact die, or the highest checker when the die is larger).
3. Children are copied row-wise and the step is applied with flat scatter updates,
   hits included; a linear 64-bit hash of each child is updated alongside.
4. Duplicates are removed with a hash table built by scatter; rows that share a hash
   are compared byte for byte, so a hash collision can never merge two different
   positions (an exact, slower path takes over if one ever occurs).

Work that cannot produce a new afterstate is skipped: doubles are played with source
points that never increase (gnubg's order), and two different dice played small-first
only where the large-first order cannot reach the same play.

Compulsory play (docs/rules.md): a play must use as many dice as possible; when only one
of two different dice can be played, the larger one must be played if it can.

Variants (:mod:`engine.rules.variants`) are read from two hooks, never from a copy of this code:

* ``lone_checker_holds``: a point is open only when it holds no opposing checker (instead
  of at most one), so nothing can ever be hit (Fevga, Moultezim);
* ``restrictions``: each step's child is dropped when the position after that step is
  forbidden (the first-checker, quadrant and prime rules), before compulsory play ranks
  anything. Steps then no longer commute (a step may be legal only after another one),
  so the two shortcuts above are off for such a variant: every order of the dice and of
  the sources is tried, and partial plays that reach the same position are merged after
  every step (the rules only look at the position, so one of them stands for all);
* ``off_board`` (Acey-Deucey): boards have 28 cells, the last two each side's checkers
  still to enter, and a row grows to 40 bytes: the same 32, then those two counts
  (bytes 32, 33) and padding. A checker still to enter starts from the bar's place
  (source 25, landing on ``25 - die``) whenever the bar holds no hit checker, at the
  player's choice, and keeps bearing off shut like a checker outside the home board. The
  shortcuts stay valid: entering commutes with other steps as moving from the bar does;
* ``wild_roll`` (Acey-Deucey's 1-2): the roll is played as usual; where both its dice
  were played, each of its afterstates is played again with each of the six doubles, and
  the union, merged per input, is the turn's set of afterstates (:func:`_wild_plays`); the
  player rolls again after a double played in full (``Afterstates.extra_roll``).

The variants that move by backgammon's own rules (:func:`plain`) are played by a C twin of this
module where the install built it (``engine/rules/_native.c``): one position at a time, with the
same afterstates in the same order and the same play records; this code stays the reference
(``tests/test_movegen.py`` runs the workload both ways).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property, partial

import numpy as np

from gammon.engine.rules.board import BOARD_SIZE, BoardError, validate_batch
from gammon.engine.rules.groups import representatives
from gammon.engine.rules.variants import MIRRORED, Variant, variant_named

try:  # the plain game's plays in C (engine/rules/_native.c); an install without a C compiler plays them here
    from gammon.engine.rules._native import plays as compiled_plays
except ImportError:
    compiled_plays = None

ROW = 32  # bytes per partial play: 26 board + 4 step sources + 2 dice
ROW_UNENTERED = 40  # Acey-Deucey: the 32, each side's checkers still to enter, 6 bytes of padding
STEP_COLS = slice(26, 30)
DIE1_COL, DIE2_COL = 30, 31
UNENTERED_COLS = slice(32, 34)  # the mover's checkers still to enter, then the opponent's
MOVER_UNENTERED_COL = UNENTERED_COLS.start
BAR = 25  # the mover's bar: the source of a checker entering, from the bar or from off the board
WILD_STEPS = 6  # a wild roll's play: its two dice, then the four of the double chosen
WILD_DICE, DOUBLE_STEPS = 2, 4  # the parts of a wild roll's play, each to be played in full for the next
# (boards after a wild roll's two dice, mover to play a double next; the input each belongs to) -> bool keep mask
WildFilter = Callable[[np.ndarray, np.ndarray], np.ndarray]

_BITS_POINTS = np.uint32(((1 << 26) - 1) & ~1)  # bits 1..25: points 1..24 and the bar
_BITS_TARGETS = np.uint32(((1 << 25) - 1) & ~1)  # bits 1..24: points a checker can land on
_BITS_OUTSIDE_HOME = np.uint32(((1 << 26) - 1) & ~((1 << 7) - 1))  # bits 7..25
_BAR_BIT = np.uint32(1 << 25)
# Highest set bit of a 7-bit home-board mask (bits 1..6), 0 when empty.
_HIGHEST_HOME = np.array([int(m).bit_length() - 1 if m else 0 for m in range(128)], dtype=np.uint32)

# Linear hash of a board: sum(board[j] * _WEIGHTS[j]) + parent * _PARENT_SALT (mod 2**64).
# Fixed seed: the output order does not depend on it, but runs stay bit-reproducible.
_rng = np.random.default_rng(0x6A6D)
_WEIGHTS = _rng.integers(0, 2**63, size=BOARD_SIZE, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
_PARENT_SALT = np.uint64(_rng.integers(0, 2**63, dtype=np.uint64) * 2 + 1)
_UNENTERED_WEIGHTS = _rng.integers(0, 2**63, size=2, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
del _rng
# The weight of each byte of a row: its board cells; none on the play record, where a checker
# borne off "lands" (no board change), nor on the padding.
_PLAY_RECORD = np.zeros(ROW - BOARD_SIZE, dtype=np.uint64)
_CELL_WEIGHTS = np.concatenate([_WEIGHTS, _PLAY_RECORD, _UNENTERED_WEIGHTS, np.zeros(6, dtype=np.uint64)])


@dataclass(frozen=True)
class Afterstates:
    """All distinct legal afterstates of a batch, flat, grouped by input.

    ``boards[offsets[i]:offsets[i+1]]`` are the afterstates of input ``i``, still seen
    from the mover (the side that just moved). When nothing can be played the single
    afterstate is the unchanged board. ``steps[k]`` holds one legal play reaching
    ``boards[k]``: four ``(from, to)`` pairs in play order (six in a variant with a wild
    roll), ``to == 0`` for bearing off, unused steps ``(-1, -1)``. A checker entering from
    off the board steps from 25, as one from the bar. ``extra_roll[k]``: after ``boards[k]``
    the mover rolls again; the same position with and without it is two afterstates.
    """

    boards: np.ndarray  # (M, 26) int8; (M, 28) in Acey-Deucey
    parent: np.ndarray  # (M,) int64, index of the input each afterstate belongs to
    offsets: np.ndarray  # (N + 1,) int64
    # (M, 6) int8: step sources and dice order, decoded by ``steps``; in a variant with a wild
    # roll (M, 12): six step sources, then the die of each step
    plays: np.ndarray
    # (N,) int8, the most dice a legal play uses (0..2, 0..4 for doubles, 0..6 for a wild roll)
    dice_used: np.ndarray
    extra_roll: np.ndarray  # (M,) bool: the mover rolls again after this play, unless it ended the game
    # (N, 26) int8 (28 in Acey-Deucey): the boards the plays start from, ``origins[parent[k]]`` that of ``boards[k]``
    # (generate's input itself, not a copy; a pruning net judges each play from it, zero_ply_choice)
    origins: np.ndarray | None = None

    @cached_property
    def steps(self) -> np.ndarray:
        """(M, 4, 2) int8 ((M, 6, 2) with a wild roll): (from, to) of each step of each
        afterstate's play, decoded on first use."""
        if self.plays.shape[1] == 2 * WILD_STEPS:
            sources = self.plays[:, :WILD_STEPS].astype(np.int16)
            dice = self.plays[:, WILD_STEPS:].astype(np.int16)
        else:
            sources = self.plays[:, :4].astype(np.int16)
            dice = self.plays[:, [4, 5, 5, 5]].astype(np.int16)  # doubles repeat the die
        used = sources > 0
        targets = np.maximum(sources - dice, 0)
        steps = np.stack([np.where(used, sources, -1), np.where(used, targets, -1)], axis=-1)
        return steps.astype(np.int8)

    def __len__(self) -> int:
        return len(self.parent)

    def counts(self) -> np.ndarray:
        """Number of afterstates of each input."""
        return np.diff(self.offsets)

    def of(self, i: int) -> np.ndarray:
        """Afterstates of input ``i``."""
        return self.boards[self.offsets[i] : self.offsets[i + 1]]


def _source_masks(rows: np.ndarray, die: np.ndarray, open_from: int) -> np.ndarray:
    """Bit mask (uint32 per row) of the points a checker may legally move ``die`` from.

    A point is open to land on when its count is at least ``open_from``: -1 where a blot
    can be hit, 0 where a lone checker holds its point. Checkers still to enter (rows of
    :data:`ROW_UNENTERED` bytes) start from the bar's place, but only while no hit checker
    is on the bar, and keep bearing off shut like a checker outside the home board.
    """
    board = rows[:, :ROW]
    occupied = np.packbits(board > 0, axis=1, bitorder="little").view(np.uint32)[:, 0] & _BITS_POINTS
    open_ = np.packbits(board >= open_from, axis=1, bitorder="little").view(np.uint32)[:, 0] & _BITS_TARGETS
    die32 = die.astype(np.uint32)
    on_bar = (occupied & _BAR_BIT) != 0
    if rows.shape[1] > ROW:
        occupied |= np.where(rows[:, MOVER_UNENTERED_COL] > 0, _BAR_BIT, np.uint32(0))
    ordinary = occupied & (open_ << die32)
    ordinary = np.where(on_bar, ordinary & _BAR_BIT, ordinary)
    # Bearing off: everything home; the exact point, else the highest checker if below the die.
    all_home = (occupied & _BITS_OUTSIDE_HOME) == 0
    exact = (occupied >> die32) & np.uint32(1)
    highest = _HIGHEST_HOME[occupied & np.uint32(0x7E)]
    bear_point = np.where(exact != 0, die32, np.where(highest < die32, highest, 0))
    bear_off = np.where(all_home & (bear_point > 0), np.uint32(1) << bear_point.astype(np.uint32), 0)
    return (ordinary | bear_off.astype(np.uint32)) & _BITS_POINTS


def _expand(rows: np.ndarray, keys: np.ndarray, die_col: int, step: int, variant: Variant,
            allowed: np.ndarray | None = None):
    """Play one die (the one in column ``die_col``) in every legal way from every row.

    ``allowed`` (a uint32 bit mask per row) restricts the source points to those whose
    plays are not reached another way; steps into a position the variant forbids are
    dropped. Returns the children rows, their hashes and the index of the row each came from.
    """
    die = rows[:, die_col]
    masks = _source_masks(rows, die, 0 if variant.lone_checker_holds else -1)
    if allowed is not None:
        masks &= allowed
    bits = np.unpackbits(masks.view(np.uint8).reshape(-1, 4), axis=1, bitorder="little")
    flat_bits = np.flatnonzero(bits)  # 1-D nonzero is several times faster than 2-D
    origin, source = flat_bits >> 5, flat_bits & 31
    children = _take_rows(rows, origin)
    flat = children.reshape(-1)
    base = np.arange(len(origin), dtype=np.int64) * rows.shape[1]
    record = STEP_COLS.start + step
    target = source - die[origin]
    if rows.shape[1] > ROW:  # from the bar's place with no hit checker there: one still to enter enters
        source_cell = np.where((source == BAR) & (children[:, BAR] == 0), MOVER_UNENTERED_COL, source)
        source_weight = _CELL_WEIGHTS[source_cell]
    else:
        source_cell, source_weight = source, _WEIGHTS[source]
    # A checker borne off "lands" on this step's record byte, which is overwritten below:
    # one code path for every step, no compaction.
    landing = base + np.where(target > 0, target, record)
    before = flat[landing]
    hit = before == -1
    flat[landing] = np.where(hit, 1, before + 1)
    flat[base + source_cell] -= 1
    flat[base + record] = source
    flat[base[hit]] += 1  # the hit checker goes to the opponent's bar (column 0)
    landed = _CELL_WEIGHTS[landing - base]
    child_keys = keys[origin] - source_weight + landed + np.where(hit, landed + _WEIGHTS[0], np.uint64(0))
    if variant.restrictions:
        legal = ~variant.forbidden(children[:, :BOARD_SIZE])
        return children[legal], child_keys[legal], origin[legal]
    return children, child_keys, origin


def _take_rows(rows: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``rows[index]`` for 32-byte rows, copied as four 64-bit words (much faster than byte rows)."""
    return np.take(rows.view(np.uint64), index, axis=0).view(np.int8)


def _same_position(rows: np.ndarray, parent: np.ndarray, a: np.ndarray, b: np.ndarray) -> bool:
    """Whether every row ``a[i]`` holds the same board of the same input as row ``b[i]``."""
    words = rows.view(np.uint64)
    diff = np.take(words, a, axis=0) ^ np.take(words, b, axis=0)
    diff[:, 3] &= np.uint64(0xFFFF)  # bytes 24, 25 of the fourth word; 26..31 are the play record
    return not diff.any() and np.array_equal(parent[a], parent[b])


def _unique(rows: np.ndarray, keys: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """Indices of one row per distinct (parent, board), in ascending row order: rows of one hash
    (:func:`engine.rules.groups.representatives`) are checked byte for byte against their representative."""
    representative = representatives(keys)
    if representative is None:
        return _unique_exact(rows, parent)
    own = representative == np.arange(len(keys))
    copies = np.flatnonzero(~own)
    if not _same_position(rows, parent, copies, representative[copies]):
        return _unique_exact(rows, parent)
    return np.flatnonzero(own)


def _unique_exact(rows: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """Collision-proof fallback for :func:`_unique`: sorts whole (parent, board) rows."""
    table = np.concatenate([parent[:, None], _boards_of(rows).astype(np.int64)], axis=1)
    _, first = np.unique(table, axis=0, return_index=True)
    return np.sort(first)


def _boards_of(rows: np.ndarray) -> np.ndarray:
    """The boards held in ``rows``: (R, 26), or (R, 28) with the checkers still to enter."""
    if rows.shape[1] == ROW:
        return rows[:, :BOARD_SIZE]
    return np.concatenate([rows[:, :BOARD_SIZE], rows[:, UNENTERED_COLS]], axis=1)


def _board_keys(boards: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """The linear hash of each board of input ``parent``, as :func:`_expand` updates it step by step."""
    weights = _WEIGHTS if boards.shape[1] == BOARD_SIZE else np.concatenate([_WEIGHTS, _UNENTERED_WEIGHTS])
    return boards.astype(np.int64).view(np.uint64) @ weights + parent.astype(np.uint64) * _PARENT_SALT


def _initial_rows(boards: np.ndarray, first: np.ndarray, second: np.ndarray, index: np.ndarray):
    if boards.shape[1] == BOARD_SIZE:
        rows = np.zeros((len(index), ROW), dtype=np.int8)
        rows[:, :BOARD_SIZE] = boards[index]
    else:
        rows = np.zeros((len(index), ROW_UNENTERED), dtype=np.int8)
        rows[:, :BOARD_SIZE] = boards[index, :BOARD_SIZE]
        rows[:, UNENTERED_COLS] = boards[index, BOARD_SIZE:]
    rows[:, DIE1_COL] = first[index]
    rows[:, DIE2_COL] = second[index]
    return rows, _board_keys(boards[index], index)


def _concatenate(plays: list[tuple]) -> tuple:
    """Join (rows, keys, parent) triples. Rows stay C-ordered: numpy may lay out a join of
    single-row arrays (both C- and F-contiguous) in Fortran order, and rows are viewed as words."""
    rows, keys, parent = (np.concatenate(part) for part in zip(*plays))
    return np.ascontiguousarray(rows), keys, parent


def _deepest(levels: list[tuple], dice_counts: list[int], index: np.ndarray, n: int, dice_used: np.ndarray):
    """Keep, for every input, only the plays of the best level it reaches.

    ``levels`` are (rows, keys, parent) in rising order of preference: for doubles the
    plays of 0..4 dice; for two dice the unchanged board, the smaller die alone, the
    larger die alone, both dice (so the larger die wins when only one can be played).
    Writes the dice each input uses into ``dice_used`` and returns the kept plays.
    """
    best = np.zeros(n, dtype=np.int8)
    for level, (_, _, parent) in enumerate(levels):
        best[parent] = level
    dice_used[index] = np.asarray(dice_counts, dtype=np.int8)[best[index]]
    kept = []
    for level, (rows, keys, parent) in enumerate(levels):
        chosen = best[parent] == level
        if chosen.all():
            kept.append((rows, keys, parent))
        elif chosen.any():
            pick = np.flatnonzero(chosen)
            kept.append((rows[pick], keys[pick], parent[pick]))
    return kept


def _double_levels(boards, die, index, variant: Variant):
    """Plays of 0..4 steps of a double, sources never increasing along a play.

    Under a variant's restrictions every order is played instead, merging equal positions
    after each step.
    """
    rows, keys = _initial_rows(boards, die, die, index)
    parent = index.astype(np.int64)
    levels = [(rows, keys, parent)]
    for step in range(4):
        allowed = None
        if not variant.restrictions:
            last = rows[:, STEP_COLS.start + step - 1].astype(np.uint32) if step else np.uint32(25)
            allowed = (np.uint32(2) << last) - np.uint32(1)
        rows, keys, origin = _expand(rows, keys, DIE1_COL, step, variant, allowed)
        parent = parent[origin]
        if variant.restrictions:
            keep = _unique(rows, keys, parent)
            rows, keys, parent = _take_rows(rows, keep), keys[keep], parent[keep]
        levels.append((rows, keys, parent))
    return levels, [0, 1, 2, 3, 4]


def _two_dice_levels(boards, high, low, index, variant: Variant):
    """Plays of two different dice in both orders, ranked for the compulsory-play rules.

    Small-first plays that the large-first order also reaches are skipped, except under a
    variant's restrictions, where one order may be legal and the other not.
    """
    one_die, both = {}, []
    for first, second in ((high, low), (low, high)):
        rows, keys = _initial_rows(boards, first, second, index)
        once, once_keys, origin = _expand(rows, keys, DIE1_COL, 0, variant)
        shortcut = first is low and not variant.restrictions
        allowed = _not_reached_high_first(once, boards[index[origin], 25] > 0) if shortcut else None
        twice, twice_keys, origin2 = _expand(once, once_keys, DIE2_COL, 1, variant, allowed)
        one_die[first is high] = (once, once_keys, index[origin])
        both.append((twice, twice_keys, index[origin][origin2]))
    unchanged = (rows, keys, index.astype(np.int64))
    both = _concatenate(both)
    return [unchanged, one_die[False], one_die[True], both], [0, 1, 1, 2]


def _not_reached_high_first(once: np.ndarray, from_bar: np.ndarray) -> np.ndarray:
    """Sources for the larger die after the smaller one whose play the other order may miss.

    Small die A from s1 to t1, then large die B from s2, is also played large-first
    (B, then A) whenever neither step bears off, no checker was on the bar and B is not
    leaving t1: B's source, its landing point and A's are untouched by the other step.
    Only the rest needs the small-first order: B leaving t1 (perhaps the same checker),
    B bearing off, or a play from the bar or bearing off with A.
    """
    source = once[:, STEP_COLS.start].astype(np.int64)
    target = source - once[:, DIE1_COL]
    high = once[:, DIE2_COL].astype(np.uint32)
    landing = np.where(target > 0, np.uint32(1) << np.maximum(target, 0).astype(np.uint32), np.uint32(0))
    bearing_off = (np.uint32(2) << high) - np.uint32(2)  # sources 1..high
    return np.where(from_bar | (target <= 0), _BITS_POINTS, landing | bearing_off).astype(np.uint32)


def generate(boards, dice, *, check: bool = True, variant: str | Variant = "standard",
             wild_filter: WildFilter | None = None) -> Afterstates:
    """All distinct legal afterstates of every (board, dice) pair.

    ``boards``: (N, 26) integers in the layout of :mod:`engine.rules.board`, mover to play
    ((N, 28) in Acey-Deucey, with the checkers still to enter). ``dice``: (N, 2) integers
    1..6, in any order. One board of shape (26,) with dice of shape (2,) is treated as a
    batch of one. ``check=False`` skips input validation (for callers that produced the
    boards themselves). ``variant`` (a name or a :class:`~engine.rules.variants.Variant`) gives
    the rules; backgammon's by default. A wild roll's afterstates are those of the whole
    turn: the roll, then, if both its dice were played, the double the player chooses, then
    another roll if the double was played in full (``Afterstates.extra_roll``).
    ``wild_filter`` (a player's, not a rule) keeps some of a wild roll's plays before the
    double is chosen and drops the rest, so a bot need not weigh every one of the turn's
    thousands of afterstates (:func:`engine.search.evaluator.wild_filter`); every afterstate left
    is legal.
    """
    variant = variant_named(variant)
    boards = np.asarray(boards)
    dice = np.asarray(dice)
    if boards.ndim == 1:
        boards, dice = boards[None], dice[None]
    if check:
        boards = validate_batch(boards, size=variant.board_size)
        if variant.lone_checker_holds and np.any(boards[:, [0, 25]]):
            row = int(np.argmax(np.any(boards[:, [0, 25]], axis=1)))
            raise BoardError(f"board {row}: {variant.name} has no bar (nothing is ever hit); "
                             f"got bars {boards[row, 0]} and {boards[row, 25]}")
        if dice.shape != (len(boards), 2) or not np.issubdtype(dice.dtype, np.integer):
            raise BoardError(f"dice must be integers of shape ({len(boards)}, 2); got {dice.dtype} {dice.shape}")
        if np.any((dice < 1) | (dice > 6)):
            raise BoardError(f"dice must be 1..6; got {dice[np.any((dice < 1) | (dice > 6), axis=1)][0].tolist()}")
    boards = boards.astype(np.int8, copy=False)
    if compiled_plays is not None and plain(variant):
        afterstates = _compiled(boards, dice)
    elif variant.wild_roll is not None:
        afterstates = _with_wild_roll(boards, dice, variant, wild_filter)
    else:
        rows, _, parent, dice_used = _legal_plays(boards, dice, variant)
        afterstates = _afterstates(_boards_of(rows).copy(), parent, rows[:, STEP_COLS.start : ROW].copy(), dice_used,
                                   np.zeros(len(rows), dtype=bool))
    return replace(afterstates, origins=boards)


def plain(variant: Variant) -> bool:
    """Whether ``variant`` plays by backgammon's own rules of movement (backgammon, nackgammon, hypergammon): those
    that engine/rules/_native.c plays, with the same afterstates in the same order as this module."""
    return (variant.geometry is MIRRORED and not variant.lone_checker_holds and not variant.restrictions
            and not variant.off_board and variant.wild_roll is None)


def _compiled(boards: np.ndarray, dice: np.ndarray) -> Afterstates:
    """:func:`generate` of a plain variant (:func:`plain`) by the compiled generator."""
    rows, parent, dice_used = compiled_plays(np.ascontiguousarray(boards), np.ascontiguousarray(dice, dtype=np.int8))
    rows = np.frombuffer(rows, dtype=np.int8).reshape(-1, ROW)
    return _afterstates(rows[:, :BOARD_SIZE].copy(), np.frombuffer(parent, dtype=np.int64).copy(),
                        rows[:, STEP_COLS.start : ROW].copy(), np.frombuffer(dice_used, dtype=np.int8).copy(),
                        np.zeros(len(rows), dtype=bool))


def _legal_plays(boards: np.ndarray, dice: np.ndarray, variant: Variant):
    """The rows of every distinct legal play of each (board, dice), grouped by input, with
    their hashes, their inputs and the dice each input uses."""
    n = len(boards)
    high = np.maximum(dice[:, 0], dice[:, 1]).astype(np.int8)
    low = np.minimum(dice[:, 0], dice[:, 1]).astype(np.int8)
    doubles = high == low
    dice_used = np.zeros(n, dtype=np.int8)
    pieces = []
    index = np.flatnonzero(doubles)
    if len(index):
        pieces += _deepest(*_double_levels(boards, high, index, variant), index, n, dice_used)
    index = np.flatnonzero(~doubles)
    if len(index):
        pieces += _deepest(*_two_dice_levels(boards, high, low, index, variant), index, n, dice_used)
    rows, keys, parent = _concatenate(pieces)
    keep = _unique(rows, keys, parent)
    keep = keep[np.argsort(parent[keep], kind="stable")]
    return _take_rows(rows, keep), keys[keep], parent[keep], dice_used


def _afterstates(boards, parent, plays, dice_used, extra_roll) -> Afterstates:
    """The result of :func:`generate` from afterstates already grouped by input."""
    n = len(dice_used)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(parent, minlength=n), out=offsets[1:])
    return Afterstates(boards=boards, parent=parent, offsets=offsets, plays=plays, dice_used=dice_used,
                       extra_roll=extra_roll)


def _with_wild_roll(boards: np.ndarray, dice: np.ndarray, variant: Variant,
                    wild_filter: WildFilter | None) -> Afterstates:
    """:func:`generate` in a variant with a wild roll: other rolls as usual, wild ones by
    :func:`_wild_plays`, every play written in the six-step record."""
    n = len(boards)
    wild = variant.is_wild(dice)
    dice_used = np.zeros(n, dtype=np.int8)
    parts = []
    for chosen, plays_of in ((np.flatnonzero(~wild), _plain_plays),
                             (np.flatnonzero(wild), partial(_wild_plays, wild_filter=wild_filter))):
        if len(chosen):
            rows, parent, plays, again, used = plays_of(boards[chosen], dice[chosen], variant)
            dice_used[chosen] = used
            parts.append((_boards_of(rows), chosen[parent], plays, again))
    after, parent, plays, again = (np.concatenate(part) for part in zip(*parts))
    order = np.argsort(parent, kind="stable")
    return _afterstates(after[order], parent[order], plays[order], dice_used, again[order])


def _plain_plays(boards: np.ndarray, dice: np.ndarray, variant: Variant):
    """:func:`_legal_plays` in the six-step record, none of them rolling again."""
    rows, _, parent, dice_used = _legal_plays(boards, dice, variant)
    return rows, parent, _six_step_record(rows), np.zeros(len(rows), dtype=bool), dice_used


def _six_step_record(rows: np.ndarray) -> np.ndarray:
    """The play of each row of one roll (not a wild roll's double) as six step sources, then
    the die of each step; its last two steps unused."""
    unused = np.zeros((len(rows), 2), dtype=np.int8)
    return np.concatenate([rows[:, STEP_COLS], unused, rows[:, [DIE1_COL, DIE2_COL, DIE2_COL, DIE2_COL]], unused],
                          axis=1)


def _wild_plays(boards: np.ndarray, dice: np.ndarray, variant: Variant, wild_filter: WildFilter | None = None):
    """A wild roll (Acey-Deucey's 1-2): its two dice as any roll (compulsory play as usual). If
    both are played, any double the player chooses follows (:func:`_doubles_after`); if not,
    the turn ends with what was played, no double and no extra roll.

    Compulsory play makes every play of a roll use the same number of dice, so each input
    either goes on to the doubles or ends. Returns the rows, their inputs, their six-step
    records, whether the player rolls again, and the dice each input's plays use.
    """
    first, _, first_input, dice_used = _legal_plays(boards, dice, variant)
    whole = dice_used[first_input] == WILD_DICE
    cut = _take_rows(first, np.flatnonzero(~whole))
    parts = [(cut, first_input[~whole], _six_step_record(cut), np.zeros(len(cut), dtype=bool))]
    if whole.any():
        *doubled, used = _doubles_after(_take_rows(first, np.flatnonzero(whole)), first_input[whole], len(boards),
                                        variant, wild_filter)
        parts.append(doubled)
        dice_used = np.maximum(dice_used, used)
    rows, parent, plays, again = (np.concatenate(part) for part in zip(*parts))
    return rows, parent, plays, again, dice_used


def _doubles_after(first: np.ndarray, first_input: np.ndarray, n: int, variant: Variant,
                   wild_filter: WildFilter | None):
    """After each play ``first`` of a wild roll's two dice (of inputs ``first_input``, of ``n``),
    each double the player may choose, played as fully as it can be; he rolls again only after
    all four of its steps.

    He may name any double, also one he cannot play in full (what cannot be played is lost, and
    the turn ends). One afterstate per input, position and extra roll or not: the same position
    after different doubles is one choice, but with and without the extra roll it is two. A
    play is written as six steps, the wild roll's two and the double's four. A ``wild_filter``
    chooses which plays of the two dice go on. Returns the rows, their inputs, their records,
    whether the player rolls again, and the most dice each input's turn uses ((n,), 0 for inputs
    not here).
    """
    if wild_filter is not None:
        kept = np.flatnonzero(np.asarray(wild_filter(_boards_of(first), first_input), dtype=bool))
        if not np.array_equal(np.unique(first_input[kept]), np.unique(first_input)):
            raise ValueError("a wild filter must keep at least one play of every roll")
        first, first_input = _take_rows(first, kept), first_input[kept]
    faces = np.tile(np.arange(1, 7, dtype=np.int8), len(first))  # each afterstate once with every double
    then, keys, then_input, then_used = _legal_plays(np.repeat(_boards_of(first), 6, axis=0),
                                                     np.stack([faces, faces], axis=1), variant)
    via = then_input // 6  # the play of the wild roll that each comes after
    parent = first_input[via]
    again = then_used[then_input] == DOUBLE_STEPS
    # Merged per (input, extra roll): the group 2 * input + again takes the place of the double's
    # own input in the hash (which is linear in it) and in the exact comparison; rows stay grouped by input.
    group = 2 * parent + again
    keys += (group.astype(np.uint64) - then_input.astype(np.uint64)) * _PARENT_SALT
    keep = _unique(then, keys, group)
    dice_used = np.zeros(n, dtype=np.int8)
    np.maximum.at(dice_used, first_input[np.arange(len(faces)) // 6], WILD_DICE + then_used)
    rows = _take_rows(then, keep)
    wild_play = first[:, [STEP_COLS.start, STEP_COLS.start + 1, DIE1_COL, DIE2_COL]][via[keep]]  # sources, dice
    plays = np.concatenate([wild_play[:, :2], rows[:, STEP_COLS], wild_play[:, 2:], rows[:, [DIE1_COL] * 4]], axis=1)
    return rows, parent[keep], plays, again[keep], dice_used
