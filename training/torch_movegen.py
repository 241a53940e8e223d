"""Legal-move generation in torch: the afterstates of :func:`engine.rules.movegen.generate`, on any device.

The same algorithm as :mod:`engine.rules.movegen`, step for step, written for torch so that it
runs where the trainer's tensors live (CPU or CUDA) with no host round trip. It is a
second copy kept beside the trainer, not a shared array-namespace version: the numpy core
owes its speed to ``packbits``, unsigned 64-bit arithmetic and row views that torch lacks
or spells differently, and the engine stays torch-free. ``tests/test_torch_movegen.py``
ties the two together: the same afterstate sets on the shared 20,000-item workload and on
random positions of every variant this module plays.

One call works on a whole batch, with no Python loop over positions; the only loops run
over the (at most four) steps of a play and the rounds of the hash table. Each partial
play is a 32-byte row:

1. bytes 0..25 the board (layout of :mod:`engine.rules.board`), 26..29 the source point of each
   step played so far, 30 and 31 the dice in the order they are played (doubles repeat);
2. the legal sources for a die are bit masks, one int64 word per row: ``occupied & (open
   << die)`` for ordinary moves, then the bar rule and the bear-off rules;
3. children are gathered row-wise (as four int64 words) and the step is applied with flat
   index updates, hits included; a linear 64-bit hash of each child follows each update;
4. duplicates are removed with a hash table built by ``scatter_reduce``; every row is
   compared word for word with the row it was merged into, and an exact sort-based path
   takes over if two different positions ever share a hash.

Compulsory play is engine.rules.movegen's: doubles with sources that never increase, two dice
in both orders (small-first only where large-first cannot reach the play), then per input
only the plays of the best level (most dice, else the larger die).

Only backgammon's board is played here (mirrored tracks, blots can be hit, no per-step
restrictions): standard, nackgammon and hypergammon. Other variants raise BoardError.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cache

import numpy as np
import torch

from gammon.engine.rules.board import BOARD_SIZE, MAX_CHECKERS, BoardError
from gammon.engine.rules.movegen import Afterstates
from gammon.engine.rules.variants import MIRRORED, Variant, variant_named

ROW = 32  # bytes per partial play: 26 board + 4 step sources + 2 dice
RECORD = 26  # byte of the first step's source
DIE1_COL, DIE2_COL = 30, 31


def _signed(value: int) -> int:
    """A 64-bit pattern as torch's int64 holds it (two's complement): hashes wrap mod 2**64."""
    value %= 1 << 64
    return value - (1 << 64) if value >= 1 << 63 else value


BITS_POINTS = ((1 << 26) - 1) & ~1  # bits 1..25: points 1..24 and the bar
BITS_TARGETS = ((1 << 25) - 1) & ~1  # bits 1..24: points a checker can land on
BITS_OUTSIDE_HOME = ((1 << 26) - 1) & ~((1 << 7) - 1)  # bits 7..25
BAR_BIT = 1 << 25
HOME_BITS = 0x7E  # bits 1..6

# Linear hash of a board: sum(board[j] * weight[j]) + input * PARENT_SALT (mod 2**64), odd weights.
# A fixed seed keeps runs bit-reproducible; the output never depends on the weights.
_rng = np.random.default_rng(0x7A6D)
_WEIGHTS = [_signed(int(w) * 2 + 1) for w in _rng.integers(0, 2**63, size=BOARD_SIZE, dtype=np.uint64)]
PARENT_SALT = _signed(int(_rng.integers(0, 2**63, dtype=np.uint64)) * 2 + 1)
del _rng
# Odd multipliers for the rounds of the hash table in _unique (Fibonacci hashing).
TABLE_MULTIPLIERS = [_signed(0x9E3779B97F4A7C15 * (2 * r + 1)) for r in range(8)]


@dataclass(frozen=True)
class _Constants:
    """Small lookup tables, made once per device."""

    point_bits: torch.Tensor  # (26,) int64: 1 << cell
    word_shifts: torch.Tensor  # (4,) int64: the first bit of each 8-byte word's bits in a row's mask
    highest_home: torch.Tensor  # (128,) int64: highest set bit of a home-board mask, 0 when empty
    weights: torch.Tensor  # (26,) int64: hash weight of each cell
    landing_weights: torch.Tensor  # (32,) int64: the weights, 0 on the record bytes (bearing off)


@cache
def _constants(device: torch.device) -> _Constants:
    highest = [m.bit_length() - 1 if m else 0 for m in range(128)]
    weights = torch.tensor(_WEIGHTS, dtype=torch.int64)
    return _Constants(
        point_bits=(torch.ones(BOARD_SIZE, dtype=torch.int64) << torch.arange(BOARD_SIZE)).to(device),
        word_shifts=torch.arange(0, ROW, 8, device=device),
        highest_home=torch.tensor(highest, dtype=torch.int64, device=device),
        weights=weights.to(device),
        landing_weights=torch.cat([weights, torch.zeros(ROW - BOARD_SIZE, dtype=torch.int64)]).to(device),
    )


@dataclass(frozen=True)
class TorchAfterstates:
    """All distinct legal afterstates of a batch, flat, grouped by input, as tensors on one device.

    The fields of :class:`engine.rules.movegen.Afterstates`: ``boards[offsets[i]:offsets[i+1]]``
    are the afterstates of input ``i`` (the unchanged board when nothing can be played).
    """

    boards: torch.Tensor  # (M, 26) int8
    parent: torch.Tensor  # (M,) int64, the input each afterstate belongs to
    offsets: torch.Tensor  # (N + 1,) int64
    plays: torch.Tensor  # (M, 6) int8: step sources and dice order, decoded by ``steps``
    dice_used: torch.Tensor  # (N,) int8: the most dice a legal play uses (0..2, or 0..4 for doubles)
    extra_roll: torch.Tensor  # (M,) bool: the mover rolls again after this play (never, on backgammon's board)

    @property
    def steps(self) -> torch.Tensor:
        """(M, 4, 2) int8: (from, to) of each step of each afterstate's play, ``to`` 0 for off, unused (-1, -1)."""
        sources = self.plays[:, :4].to(torch.int16)
        dice = self.plays[:, [4, 5, 5, 5]].to(torch.int16)  # doubles repeat the die
        used = sources > 0
        targets = (sources - dice).clamp(min=0)
        return torch.stack([torch.where(used, sources, -1), torch.where(used, targets, -1)], dim=-1).to(torch.int8)

    def __len__(self) -> int:
        return len(self.parent)

    def counts(self) -> torch.Tensor:
        """Number of afterstates of each input."""
        return self.offsets[1:] - self.offsets[:-1]

    def to_numpy(self) -> Afterstates:
        """The same afterstates as engine.rules.movegen's numpy :class:`~engine.rules.movegen.Afterstates`, field
        by field."""
        return Afterstates(**{field.name: getattr(self, field.name).cpu().numpy() for field in fields(self)})


def _pack(flags: torch.Tensor, c: _Constants) -> torch.Tensor:
    """(N, 32) booleans -> one bit mask per row (int64), bit j set when byte j is.

    Each 8-byte word of flags (bytes 0 or 1) folds into its low byte with three shifts,
    a few operations on 4 words a row instead of 32 on bytes; no step can overflow, so the
    masks never depend on how a device wraps integers.
    """
    words = flags.view(torch.uint8).view(torch.int64)
    words = words | (words >> 7)  # byte k: its flag in bit 0, byte k+1's in bit 1
    words = words | (words >> 14)  # ... bytes k+2, k+3 in bits 2, 3
    words = words | (words >> 28)  # ... bytes k+4..k+7 in bits 4..7
    return ((words & 0xFF) << c.word_shifts).sum(1)


def _unpack(masks: torch.Tensor, c: _Constants) -> torch.Tensor:
    """One bit mask per row -> (N, 32) booleans, byte j true when bit j is set (the reverse of _pack)."""
    words = (masks[:, None] >> c.word_shifts) & 0xFF  # each 8 bits spread over a word's bytes:
    words = (words | (words << 28)) & 0x0000000F0000000F  # bits 4..7 to the upper half
    words = (words | (words << 14)) & 0x0003000300030003  # then 2, 3 of each half to its upper quarter
    words = (words | (words << 7)) & 0x0101010101010101  # then 1 of each quarter to its second byte
    return words.view(torch.uint8) != 0


def _source_masks(rows: torch.Tensor, die: torch.Tensor, c: _Constants) -> torch.Tensor:
    """Bit mask (int64 per row) of the points a checker may legally move ``die`` from.

    Ordinary moves land on a point with at most one opposing checker; with a checker on
    the bar only the bar may move. Bearing off needs every checker home and takes the
    checker on the die's point, else the highest checker when it stands below the die.
    """
    occupied = _pack(rows > 0, c) & BITS_POINTS  # whole rows: the masks drop the record bytes
    open_ = _pack(rows >= -1, c) & BITS_TARGETS
    ordinary = occupied & (open_ << die)
    on_bar = (occupied & BAR_BIT) != 0
    ordinary = torch.where(on_bar, ordinary & BAR_BIT, ordinary)
    all_home = (occupied & BITS_OUTSIDE_HOME) == 0
    exact = ((occupied >> die) & 1) != 0
    highest = _take(c.highest_home, occupied & HOME_BITS)
    bear_point = torch.where(exact, die, torch.where(highest < die, highest, 0))
    bear_off = torch.where(all_home & (bear_point > 0), _take(c.point_bits, bear_point), 0)
    return (ordinary | bear_off) & BITS_POINTS


def _take(values: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """``values[index]`` along the first axis (index_select: several times faster than indexing on CPU)."""
    return torch.index_select(values, 0, index)


def _where(flags: torch.Tensor) -> torch.Tensor:
    """Indices of the true entries of a 1-D mask: one index serves every tensor it selects from."""
    return flags.nonzero().squeeze(1)


def _take_rows(rows: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """``rows[index]`` for 32-byte rows, gathered as four int64 words (faster than byte rows)."""
    return _take(rows.view(torch.int64), index).view(torch.int8)


def _add_at(flat: torch.Tensor, index: torch.Tensor, delta) -> None:
    """``flat[index] += delta`` for distinct indices."""
    flat.scatter_(0, index, _take(flat, index) + delta)


def _expand(rows, keys, die_col: int, step: int, c: _Constants, allowed=None):
    """Play one die (the one in column ``die_col``) in every legal way from every row.

    ``allowed`` (an int64 bit mask per row) restricts the sources to those whose plays are
    not reached another way. Returns the children rows, their hashes and the index of the
    row each came from.
    """
    die = rows[:, die_col].to(torch.int64)
    masks = _source_masks(rows, die, c)
    if allowed is not None:
        masks = masks & allowed
    found = _where(_unpack(masks, c).flatten())
    origin, source = found >> 5, found & (ROW - 1)
    children = _take_rows(rows, origin)
    flat = children.view(-1)
    base = torch.arange(len(origin), device=rows.device) * ROW
    record = RECORD + step
    target = source - _take(die, origin)
    # A checker borne off "lands" on this step's record byte, which is overwritten below:
    # one code path for every step, no compaction.
    landing_col = torch.where(target > 0, target, record)
    landing = base + landing_col
    before = _take(flat, landing)
    hit = before == -1
    # Plain scatters: every index is one child's own byte, so the result is the same on every
    # device, with no atomics (and several times faster than index assignment on the CPU).
    flat.scatter_(0, landing, torch.where(hit, 1, before + 1))
    _add_at(flat, base + source, -1)
    flat.scatter_(0, base + record, source.to(torch.int8))
    _add_at(flat, base, hit.to(torch.int8))  # the hit checker goes to the opponent's bar (cell 0)
    landed = _take(c.landing_weights, landing_col)
    child_keys = _take(keys, origin) - _take(c.weights, source) + landed + torch.where(hit, landed + c.weights[0], 0)
    return children, child_keys, origin


def _same_positions(rows: torch.Tensor, parent: torch.Tensor, representative: torch.Tensor) -> bool:
    """Whether every row holds the same board of the same input as its ``representative`` row."""
    words = rows.view(torch.int64)
    diff = words ^ _take(words, representative)
    diff[:, 3] &= 0xFFFF  # bytes 24, 25 of the last word; 26..31 are the play record
    return not bool(diff.any() | (parent != _take(parent, representative)).any())


def _unique(rows: torch.Tensor, keys: torch.Tensor, parent: torch.Tensor) -> torch.Tensor:
    """Indices of one row per distinct (input, board), ascending.

    An open hash table per round: every pending row writes its index into the slot of its
    hash, the largest index wins (``scatter_reduce`` amax: the same on every device), and
    each row reads the winner back. A row whose hash equals the winner's is merged into it;
    rows that met a different hash retry with another multiplier. Merged rows are then
    checked word for word, so a hash collision can never merge two positions.
    """
    count = len(keys)
    representative = torch.arange(count, device=keys.device)
    pending = representative.clone()
    for multiplier in TABLE_MULTIPLIERS:
        if len(pending) == 0:
            break
        bits = max(4, (4 * len(pending) - 1).bit_length())
        pending_keys = _take(keys, pending)
        slot = ((pending_keys * multiplier) >> (64 - bits)) & ((1 << bits) - 1)
        table = torch.empty(1 << bits, dtype=torch.int64, device=keys.device)  # only written slots are read
        table.scatter_reduce_(0, slot, pending, reduce="amax", include_self=False)
        writer = _take(table, slot)
        settled = _take(keys, writer) == pending_keys
        merged = _where(settled)
        representative.index_copy_(0, _take(pending, merged), _take(writer, merged))
        pending = _take(pending, _where(~settled))
    if len(pending) or not _same_positions(rows, parent, representative):
        return _unique_exact(rows, parent)  # pathological slots, or a true hash collision
    return _where(representative == torch.arange(count, device=keys.device))


def _unique_exact(rows: torch.Tensor, parent: torch.Tensor) -> torch.Tensor:
    """Collision-proof fallback for :func:`_unique`: sorts whole (input, board) rows, keeps each first row."""
    table = torch.cat([parent[:, None], rows[:, :BOARD_SIZE].to(torch.int64)], dim=1)
    _, group = torch.unique(table, dim=0, return_inverse=True)
    first = torch.full((int(group.max()) + 1,), len(rows), dtype=torch.int64, device=rows.device)
    first.scatter_reduce_(0, group, torch.arange(len(rows), device=rows.device), reduce="amin")
    return torch.sort(first).values


def _initial_rows(boards, first, second, index, c: _Constants):
    rows = torch.zeros((len(index), ROW), dtype=torch.int8, device=boards.device)
    rows[:, :BOARD_SIZE] = _take(boards, index)
    rows[:, DIE1_COL] = _take(first, index)
    rows[:, DIE2_COL] = _take(second, index)
    keys = (rows[:, :BOARD_SIZE].to(torch.int64) * c.weights).sum(1) + index * PARENT_SALT
    return rows, keys


def _deepest(levels: list[tuple], dice_counts: list[int], index, n: int, dice_used: torch.Tensor) -> list[tuple]:
    """Keep, for every input, only the plays of the best level it reaches.

    ``levels`` are (rows, keys, parent) in rising order of preference: for doubles the
    plays of 0..4 dice; for two dice the unchanged board, the smaller die alone, the
    larger die alone, both dice (so the larger die wins when only one can be played).
    Writes the dice each input uses into ``dice_used`` and returns the kept plays.
    """
    best = torch.zeros(n, dtype=torch.int64, device=index.device)
    for level, (_, _, parent) in enumerate(levels):
        best.index_fill_(0, parent, level)  # a later (better) level overwrites
    counts = torch.tensor(dice_counts, dtype=torch.int8, device=index.device)
    dice_used.index_copy_(0, index, _take(counts, _take(best, index)))
    kept = []
    for level, (rows, keys, parent) in enumerate(levels):
        chosen = _where(_take(best, parent) == level)
        kept.append((_take_rows(rows, chosen), _take(keys, chosen), _take(parent, chosen)))
    return kept


def _double_levels(boards, die, index, c: _Constants):
    """Plays of 0..4 steps of a double, sources never increasing along a play (gnubg's order)."""
    rows, keys = _initial_rows(boards, die, die, index, c)
    parent = index
    levels = [(rows, keys, parent)]
    for step in range(4):
        allowed = None
        if step:
            last = rows[:, RECORD + step - 1].to(torch.int64)
            allowed = (2 << last) - 1  # sources up to the previous step's
        rows, keys, origin = _expand(rows, keys, DIE1_COL, step, c, allowed)
        parent = _take(parent, origin)
        levels.append((rows, keys, parent))
    return levels, [0, 1, 2, 3, 4]


def _two_dice_levels(boards, high, low, index, c: _Constants):
    """Plays of two different dice in both orders, ranked for the compulsory-play rules.

    Small-first plays that the large-first order also reaches are skipped.
    """
    one_die, both = {}, []
    for first, second in ((high, low), (low, high)):
        rows, keys = _initial_rows(boards, first, second, index, c)
        once, once_keys, origin = _expand(rows, keys, DIE1_COL, 0, c)
        allowed = None
        if first is low:
            from_bar = _take(rows[:, BOARD_SIZE - 1], origin) > 0
            allowed = _not_reached_high_first(once, from_bar, c)
        twice, twice_keys, origin2 = _expand(once, once_keys, DIE2_COL, 1, c, allowed)
        once_parent = _take(index, origin)
        one_die[first is high] = (once, once_keys, once_parent)
        both.append((twice, twice_keys, _take(once_parent, origin2)))
    unchanged = (rows, keys, index)
    both = tuple(torch.cat(part) for part in zip(*both))
    return [unchanged, one_die[False], one_die[True], both], [0, 1, 1, 2]


def _not_reached_high_first(once: torch.Tensor, from_bar: torch.Tensor, c: _Constants) -> torch.Tensor:
    """Sources for the larger die after the smaller one whose play the other order may miss.

    Small die A from s1 to t1, then large die B from s2, is also played large-first
    whenever neither step bears off, no checker was on the bar and B is not leaving t1.
    Only the rest needs the small-first order: B leaving t1 (perhaps the same checker),
    B bearing off, or a play from the bar or bearing off with A.
    """
    source = once[:, RECORD].to(torch.int64)
    target = source - once[:, DIE1_COL].to(torch.int64)
    high = once[:, DIE2_COL].to(torch.int64)
    landing = torch.where(target > 0, _take(c.point_bits, target.clamp(min=0)), 0)
    bearing_off = (2 << high) - 2  # sources 1..high
    return torch.where(from_bar | (target <= 0), BITS_POINTS, landing | bearing_off)


def plays_backgammon_board(variant: Variant) -> bool:
    """Whether this generator plays ``variant``: mirrored tracks, hitting, no restrictions, 26 cells."""
    return (variant.geometry is MIRRORED and not variant.lone_checker_holds and not variant.restrictions
            and variant.starting_board().shape == (BOARD_SIZE,))


def _check(boards: torch.Tensor, dice: torch.Tensor) -> None:
    """Raise BoardError naming the first bad input, by engine.rules.board.validate_batch's rules."""
    if boards.dim() != 2 or boards.shape[1] != BOARD_SIZE:
        raise BoardError(f"a batch of boards has shape (N, {BOARD_SIZE}); got {tuple(boards.shape)}")
    if boards.dtype.is_floating_point or boards.dtype.is_complex or boards.dtype == torch.bool:
        raise BoardError(f"board entries must be integers; got dtype {boards.dtype}")
    if dice.shape != (len(boards), 2) or dice.dtype.is_floating_point or dice.dtype == torch.bool:
        raise BoardError(f"dice must be integers of shape ({len(boards)}, 2); got {dice.dtype} {tuple(dice.shape)}")
    b = boards.to(torch.int64)
    mover = b[:, 1:26].clamp(min=0).sum(1)
    opponent = (-b[:, 1:25]).clamp(min=0).sum(1) + b[:, 0]
    faults = torch.stack([
        ((dice < 1) | (dice > 6)).any(1),
        (b.abs() > MAX_CHECKERS).any(1),
        (b[:, 0] < 0) | (b[:, 25] < 0),
        (mover > MAX_CHECKERS) | (opponent > MAX_CHECKERS),
    ])
    if not faults.any():
        return
    kind, row = (int(i) for i in faults.nonzero()[0])
    message = ("dice must be 1..6", f"a cell holds more than {MAX_CHECKERS} checkers", "bar counts must be >= 0",
               f"a side has more than {MAX_CHECKERS} checkers")[kind]
    raise BoardError(f"board {row}: {message}; got board {b[row].tolist()}, dice {dice[row].tolist()}")


def generate(boards, dice, *, check: bool = True, variant: str | Variant = "standard") -> TorchAfterstates:
    """All distinct legal afterstates of every (board, dice) pair, on the boards' device.

    ``boards``: (N, 26) integers in the layout of :mod:`engine.rules.board`, mover to play;
    ``dice``: (N, 2) integers 1..6 in any order (tensors, or arrays taken onto the CPU); one
    board of shape (26,) with dice of shape (2,) is a batch of one.
    ``check=False`` skips input validation (one host sync) for callers that made the boards.
    ``variant``: standard, nackgammon or hypergammon (a name or a Variant).
    """
    variant = variant_named(variant)
    if not plays_backgammon_board(variant):
        raise BoardError(f"the torch move generator plays backgammon's board only; "
                         f"use engine.rules.movegen.generate for {variant.name}")
    boards = torch.as_tensor(boards)
    dice = torch.as_tensor(dice, device=boards.device)
    if boards.dim() == 1:
        boards, dice = boards[None], dice[None]
    if check:
        _check(boards, dice)
    boards = boards.to(torch.int8)
    dice = dice.to(torch.int8)
    c = _constants(boards.device)
    n = len(boards)
    high = torch.maximum(dice[:, 0], dice[:, 1])
    low = torch.minimum(dice[:, 0], dice[:, 1])
    doubles = high == low
    dice_used = torch.zeros(n, dtype=torch.int8, device=boards.device)
    pieces = []
    index = _where(doubles)
    if len(index):
        pieces += _deepest(*_double_levels(boards, high, index, c), index, n, dice_used)
    index = _where(~doubles)
    if len(index):
        pieces += _deepest(*_two_dice_levels(boards, high, low, index, c), index, n, dice_used)
    if not pieces:
        return _empty(boards.device, dice_used)
    rows, keys, parent = (torch.cat(part) for part in zip(*pieces))
    keep = _unique(rows, keys, parent)
    keep = _take(keep, torch.sort(_take(parent, keep), stable=True).indices)
    rows, parent = _take_rows(rows, keep), _take(parent, keep)
    offsets = torch.zeros(n + 1, dtype=torch.int64, device=boards.device)
    offsets[1:] = torch.cumsum(torch.bincount(parent, minlength=n), 0)
    return TorchAfterstates(
        boards=rows[:, :BOARD_SIZE].contiguous(),
        parent=parent,
        offsets=offsets,
        plays=rows[:, RECORD:].contiguous(),
        dice_used=dice_used,
        extra_roll=torch.zeros(len(parent), dtype=torch.bool, device=boards.device),
    )


def _empty(device: torch.device, dice_used: torch.Tensor) -> TorchAfterstates:
    """The afterstates of an empty batch."""
    return TorchAfterstates(
        boards=torch.zeros((0, BOARD_SIZE), dtype=torch.int8, device=device),
        parent=torch.zeros(0, dtype=torch.int64, device=device),
        offsets=torch.zeros(1, dtype=torch.int64, device=device),
        plays=torch.zeros((0, ROW - RECORD), dtype=torch.int8, device=device),
        dice_used=dice_used,
        extra_roll=torch.zeros(0, dtype=torch.bool, device=device),
    )
