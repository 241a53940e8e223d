"""Backgammon knowledge as network inputs, computed vectorized over a batch of boards (numpy).

Every function takes boards in the layout of :mod:`engine.rules.board` (or a :class:`Sides`
made from them, which computes the arrays they share once per batch) and measures one
side, the *mover* (the player whose checkers are positive). The encodings describe both
sides by calling them on the boards and their flips (``flip(board)``) stacked in one batch.

The ideas are the classic ones of Berliner's BKG and of gnubg's documented input
list (blot exposure, escapes, containment, primes, anchors, mobility, timing, pips to
break contact, bar entry), written here from their definitions. Where a definition
needs a choice, the docstring states ours. Every feature is tested on hand-made
positions in ``tests/test_features.py``.

Geometry used throughout, in the mover's numbering: the mover moves from 24 towards 1;
the opponent moves from the mover's low points to the high ones and enters from its
bar onto the mover's point ``die``, so we call the opponent's bar the mover's "point 0".
"""

from __future__ import annotations

from functools import cached_property, lru_cache

import numpy as np

from gammon.engine.rules.dice import ROLL_WEIGHTS, ROLLS

POINTS = np.arange(26)  # column index = mover point number in Sides' arrays


def _bits(flags: np.ndarray, dtype=np.int64) -> np.ndarray:
    """(N, 25) booleans, index = point 0..24 -> one bit mask per board (bit p = point p)."""
    return flags.astype(dtype) @ (dtype(1) << np.arange(flags.shape[1], dtype=dtype))


class Sides:
    """Both sides' checkers by the mover's point number, computed once for a batch of boards.

    ``mine[:, p]``: mover checkers on point p (1..24), on its bar at p = 25; 0 at p = 0.
    ``theirs[:, p]``: opponent checkers on mover point p (1..24), on its bar at p = 0
    (where it enters from); 0 at p = 25.
    """

    def __init__(self, boards: np.ndarray):
        b = np.asarray(boards).reshape(-1, 26).astype(np.int16)
        self.mine = np.maximum(b, 0)
        self.mine[:, 0] = 0
        self.theirs = np.maximum(-b, 0)
        self.theirs[:, 0] = b[:, 0]

    def __len__(self) -> int:
        return len(self.mine)

    @cached_property
    def escapes(self) -> np.ndarray:
        """(N, 25) rolls out of 36 that let a mover checker on point 1..25 (25 = bar) escape."""
        return escape_table()[block_masks(self)]

    @cached_property
    def shot_masks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(N, 1) bit masks, bit p = mover point p: the mover's blots, the points open to the opponent
        (fewer than two mover checkers), and where its hitters start (bit 0 = its bar; only the bar
        while it has checkers there, which must enter first)."""
        blot = _bits(self.mine[:, :25] == 1, np.uint32)[:, None]
        open_ = _bits(self.mine[:, :25] < 2, np.uint32)[:, None]
        on_bar = self.theirs[:, 0] > 0
        hitter = np.where(on_bar, np.uint32(1), _bits(self.theirs[:, :25] > 0, np.uint32))[:, None]
        return blot, open_, hitter

    @cached_property
    def hits(self) -> np.ndarray:
        """(N, 21) bit masks of the mover blots each opponent roll can hit (the shots of
        :func:`hit_chance`): the 15 non-doubles (weighing 2 of 36), then 1-1 .. 6-6."""
        blot, open_, hitter = self.shot_masks
        # Every roll at once (a loop over the 21 rolls costs a small batch 200 numpy calls): the non-doubles
        # as 15 columns (one die, the other, or both with an open landing between), the doubles as 6
        # columns stepped four times over open points.
        d1, d2 = _SINGLE_DICE[:, 0], _SINGLE_DICE[:, 1]
        landed = ((hitter << d1) & open_) << d2 | ((hitter << d2) & open_) << d1
        single_hits = ((hitter << d1) | (hitter << d2) | landed) & blot
        first, second, third, fourth = self.double_steps
        return np.concatenate([single_hits, (first | second | third | fourth) & blot], axis=1)

    @cached_property
    def double_steps(self) -> tuple[np.ndarray, ...]:
        """(N, 6) masks, one a step of each double 1-1 .. 6-6: the points the opponent's checkers reach
        with 1, 2, 3 and 4 steps of the die, every landing before the last open."""
        _, open_, hitter = self.shot_masks
        steps = [np.broadcast_to(hitter << _DOUBLE_DICE, (len(self), 6))]
        for _ in range(3):
            steps.append((steps[-1] & open_) << _DOUBLE_DICE)
        return tuple(steps)

    @cached_property
    def rear(self) -> np.ndarray:
        """The mover's point of its rearmost checker (1..24, 25 = its bar, 0 = none left)."""
        occupied = self.mine[:, 1:26] > 0
        return np.where(occupied.any(1), 25 - np.argmax(occupied[:, ::-1], axis=1), 0)

    @cached_property
    def opponent_rear(self) -> np.ndarray:
        """The mover's point of the opponent's rearmost checker (0 = on its bar, 25 = none left)."""
        present = self.theirs[:, :25] > 0
        return np.where(present.any(1), np.argmax(present, axis=1), 25)


def _sides(boards) -> Sides:
    return boards if isinstance(boards, Sides) else Sides(boards)


def hit_chance(boards) -> np.ndarray:
    """Chance that the opponent's next roll can hit at least one mover blot (0..1).

    A roll hits a blot at distance d from an opponent checker when one die is d, or when
    the dice add up to d and a landing point on the way is not a mover point (two or more
    mover checkers); doubles move up to four times their number, every landing open. An
    opponent with checkers on the bar must enter first: we then count only hits by a
    checker coming in from the bar (it may go on with the other die), a simplification
    that undercounts where one checker is on the bar and the other die could hit with
    another (it misses about a third of those shots). The shipped model reads it as it is.
    """
    return ((_sides(boards).hits > 0) @ _ROLL_COUNTS) / 36.0


def pip_loss(boards) -> np.ndarray:
    """Pips the mover can expect to lose to a hit on the opponent's next roll, / 25.

    A mover checker hit on point p goes back to the bar: it loses 25 - p pips. Each roll is
    taken to hit the blot that costs the most of those it can hit (the lowest-numbered one;
    the shots are :func:`hit_chance`'s), whatever else the opponent would rather play.
    """
    hits = _sides(boards).hits
    lowest = hits & (~hits + np.uint32(1))  # the lowest set bit of each mask, 0 where nothing is hit
    lost = np.where(hits > 0, 25 - np.log2(np.maximum(lowest, 1)), 0)
    return (lost @ _ROLL_COUNTS) / (36.0 * 25)


def double_hit_chance(boards) -> np.ndarray:
    """Chance that the opponent's next roll can hit two mover blots (0..1).

    Shots as in :func:`hit_chance`. A non-double hits two when each die hits a blot (two
    different ones), or when one checker hits with one die and goes on to hit again with
    the other. A double hits two when one checker hits a blot and goes on to hit another,
    or when two blots are reached in i and j steps of the die with i + j <= 4 (separate
    checkers, or one going on). We do not ask whether one opposing checker would have to
    move with both dice to make two separate hits: a slight overcount.
    """
    s = _sides(boards)
    blot, open_, hitter = s.shot_masks
    d1, d2 = _SINGLE_DICE[:, 0], _SINGLE_DICE[:, 1]
    by_first, by_second = (hitter << d1) & blot, (hitter << d2) & blot
    apart = (by_first > 0) & (by_second > 0) & (np.bitwise_count(by_first | by_second) >= 2)
    chained = (((by_first << d2) | (by_second << d1)) & blot) > 0
    singles = np.count_nonzero(apart | chained, axis=1)

    # Doubles: step by step, the blots first reached at each step, and the landings reached through a hit blot.
    steps = s.double_steps
    through = np.zeros((len(s), 6), dtype=np.uint32)
    chained_double = np.zeros((len(s), 6), dtype=bool)
    for before in steps[:3]:
        through = ((through & open_) | (before & blot)) << _DOUBLE_DICE
        chained_double |= (through & blot) > 0
    first, seen = [], np.zeros((len(s), 6), dtype=np.uint32)  # blots first reached at steps 1, 2 and 3
    for reach in steps[:3]:
        first.append(np.bitwise_count(reach & blot & ~seen).astype(np.int16))
        seen = seen | (reach & blot)
    n1, n2, n3 = first
    apart_double = (n1 >= 2) | (n2 >= 2) | ((n1 >= 1) & (n2 + n3 >= 1))
    doubles = np.count_nonzero(apart_double | chained_double, axis=1)
    return (2 * singles + doubles) / 36.0


_SINGLE_DICE = ROLLS[ROLLS[:, 0] != ROLLS[:, 1]].astype(np.uint32)  # the 15 non-doubles, two ways each
_DOUBLE_DICE = np.arange(1, 7, dtype=np.uint32)
_ROLL_COUNTS = np.array([2] * 15 + [1] * 6)  # ways of each column of Sides.hits out of 36


@lru_cache(maxsize=1)
def escape_table() -> np.ndarray:
    """Rolls out of 36 that carry a checker past every block in the 12 points ahead of it.

    Indexed by a 12-bit mask: bit k - 1 set when the point k pips ahead is blocked (held
    by two or more opposing checkers). A roll escapes when some legal landing, reached
    over open points only, lies beyond the farthest block (points more than 12 ahead count
    as open). With no block ahead every roll escapes.
    """
    masks = np.arange(4096)
    blocked = np.zeros((4096, 25), dtype=bool)  # column k: the point k pips ahead (none past 12)
    blocked[:, 1:13] = (masks[:, None] >> np.arange(12)) & 1
    last = np.where(blocked.any(axis=1), 24 - np.argmax(blocked[:, ::-1], axis=1), 0)  # the farthest block
    table = np.zeros(4096, dtype=np.float64)
    for (d1, d2), weight in zip(ROLLS.tolist(), ROLL_WEIGHTS):
        if d1 == d2:  # up to four steps of d1, each landing open
            open_steps = np.cumprod(~blocked[:, d1 * np.arange(1, 5)], axis=1)
            reach = d1 * open_steps.sum(axis=1)
        else:
            via = ~blocked[:, d1] | ~blocked[:, d2]
            reach = np.max([np.where(~blocked[:, d1], d1, 0), np.where(~blocked[:, d2], d2, 0),
                            np.where(via & ~blocked[:, d1 + d2], d1 + d2, 0)], axis=0)
        table += weight * 36 * ((reach > last) | (last == 0))
    return table


_REVERSE12 = np.array([int(f"{m:012b}"[::-1], 2) for m in range(4096)])  # bit j -> bit 11 - j


def block_masks(boards) -> np.ndarray:
    """(N, 25) escape-table masks of the 12 points ahead of a mover checker on points 1..25 (25 = bar)."""
    s = _sides(boards)
    blocked = (_bits(s.theirs[:, :25] >= 2) & ~1) << 12  # bit 12 + p = point p (its bar is no block)
    ahead = (blocked[:, None] >> POINTS[1:26]) & 0xFFF  # bit j = point p - 12 + j
    return _REVERSE12[ahead]


def rear_escape(boards) -> np.ndarray:
    """Escapes (out of 36, /36) of the mover's rearmost checker; 1 when none is left."""
    s = _sides(boards)
    return np.where(s.rear > 0, s.escapes[np.arange(len(s)), np.maximum(s.rear - 1, 0)] / 36.0, 1.0)


def containment(boards) -> np.ndarray:
    """How well the opponent's points hold a mover checker in the back: 1 - min escapes on points 15..24 / 36."""
    return 1.0 - _sides(boards).escapes[:, 14:24].min(axis=1) / 36.0


def outfield_escapes(boards) -> np.ndarray:
    """How freely the mover's checkers outside its home board can come home: the sum over its
    checkers on points 7..25 (the bar 25) of their escapes (:meth:`Sides.escapes`, / 36) times
    their distance from home (p - 6), / 100."""
    s = _sides(boards)
    return (s.mine[:, 7:26] * s.escapes[:, 6:25]) @ np.arange(1, 20) / 3600.0


def back_moment(boards) -> np.ndarray:
    """How far the mover's stragglers trail the rest: with A the mean point of its checkers on the
    board (the bar 25), the mean of (p - A) squared over its checkers on points p above A, / 400;
    0 when none is above."""
    mine = _sides(boards).mine[:, 1:26].astype(np.float64)
    count = mine.sum(1)
    mean = (mine @ POINTS[1:26]) / np.maximum(count, 1)
    above = POINTS[None, 1:26] > mean[:, None]
    trailing = np.where(above, mine, 0)
    spread = (trailing * (POINTS[None, 1:26] - mean[:, None]) ** 2).sum(1)
    return spread / np.maximum(trailing.sum(1), 1) / 400.0


def active_containment(boards) -> np.ndarray:
    """How well the opponent's points hold the mover's rearmost checker where it stands: 1 - the fewest
    escapes (/ 36) from the points between the mover's 15-point and that checker (its bar 25 included),
    so the blocks behind it count no more; 0 when it is already below the 15-point or none is left.
    :func:`containment` asks the same of points 15..24 wherever the checkers are."""
    s = _sides(boards)
    from_rear = POINTS[None, 15:26] <= s.rear[:, None]  # of points 15..25, the rearmost checker's and those in front
    fewest = np.where(from_rear, s.escapes[:, 14:25], 36).min(axis=1)
    return 1.0 - fewest / 36.0


def free_pips(boards) -> np.ndarray:
    """Pips of the mover's checkers that every opposing checker has passed (points below the opponent's
    rearmost one: no contact is left for them), / 100; 0 while the opponent has a checker on the bar."""
    s = _sides(boards)
    passed = POINTS[None, 1:25] < s.opponent_rear[:, None]
    return (s.mine[:, 1:25] * passed) @ POINTS[1:25] / 100.0


def back_game(boards) -> np.ndarray:
    """(N, 2) a back game's shape: with two or more points held (2+ checkers) in the opponent's home board
    (mover points 19..24), the mover's checkers there and on its bar less 3, / 4, in the first column; with
    exactly one, those checkers / 8 in the second (a one-point holding game); 0 otherwise."""
    mine = _sides(boards).mine
    held = (mine[:, 19:25] >= 2).sum(1)
    back = mine[:, 19:26].sum(1)
    return np.stack([np.where(held >= 2, (back - 3) / 4.0, 0.0), np.where(held == 1, back / 8.0, 0.0)], axis=1)


# Support a point held d pips in front of the rearmost held point gives it (of 11): full within 6 pips,
# 6 down to 2 from 7 to 11, none from 12 on (index d = 0..24; 0 is the point itself).
BACKBONE_SUPPORT = np.array([0] + [11] * 6 + [6, 5, 4, 3, 2] + [0] * 13, dtype=np.float64)


def backbone(boards) -> np.ndarray:
    """How loosely the mover's other points (2+ checkers) back up its rearmost held point: 1 - the mean
    support (:data:`BACKBONE_SUPPORT`, / 11) of the points held in front of it, by their distance from it; 0 when
    it holds fewer than two points. A back game or a holding game wants its points close together."""
    held = _sides(boards).mine[:, 1:25] >= 2  # columns: points 1..24
    rear = np.where(held.any(1), 24 - np.argmax(held[:, ::-1], axis=1), 0)  # the rearmost held point, 0 = none
    distance = np.clip(rear[:, None] - POINTS[None, 1:25], 0, 24)
    others = held & (distance > 0)
    count = others.sum(1)
    support = (others * BACKBONE_SUPPORT[distance]).sum(1)
    return np.where(count > 0, 1.0 - support / (11.0 * np.maximum(count, 1)), 0.0)


def _run_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each 12-bit mask: its longest run of set bits, the run from bit 0 up, and the run from bit 11 down."""
    masks = np.arange(4096)
    longest, run = np.zeros(4096, dtype=np.int8), np.zeros(4096, dtype=np.int8)
    from_bottom = np.zeros(4096, dtype=np.int8)
    unbroken = np.ones(4096, dtype=bool)
    for bit in range(12):
        held = (masks >> bit) & 1 == 1
        run = np.where(held, run + 1, 0)
        longest = np.maximum(longest, run)
        unbroken &= held
        from_bottom += unbroken
    return longest, from_bottom, run  # the run still open at bit 11 is the run from the top


_LONGEST, _FROM_BOTTOM, _FROM_TOP = _run_tables()
_HALF = np.int32(1) << np.arange(12, dtype=np.int32)


def _longest_run(held: np.ndarray) -> np.ndarray:
    """Longest run of true flags in each row of (N, 24) flags: looked up for each half of the row, or the run
    across the middle (a loop over the columns costs a small batch 50 numpy calls)."""
    low, high = held[:, :12].astype(np.int32) @ _HALF, held[:, 12:24].astype(np.int32) @ _HALF
    return np.maximum(np.maximum(_LONGEST[low], _LONGEST[high]), _FROM_TOP[low] + _FROM_BOTTOM[high])


def primes(boards) -> np.ndarray:
    """(N, 2): the mover's longest run of held points (2+ checkers), and the longest that
    still lies in front of the opponent's rearmost checker (higher-numbered points), each / 6."""
    s = _sides(boards)
    held = s.mine[:, 1:25] >= 2
    ahead = POINTS[None, 1:25] > s.opponent_rear[:, None]
    return np.stack([_longest_run(held), _longest_run(held & ahead)], axis=1) / 6.0


def anchors(boards) -> np.ndarray:
    """(N, 2): mover points held in the opponent's home board (points 19..24) / 3, and how far
    forward the best of them is: (25 - p) / 6 for the lowest held point p there, 0 with none."""
    held = _sides(boards).mine[:, 19:25] >= 2
    forward = np.where(held.any(1), 6 - np.argmax(held, axis=1), 0)  # point 19 -> 6, 24 -> 1
    return np.stack([held.sum(1) / 3.0, forward / 6.0], axis=1)


def mobility(boards) -> np.ndarray:
    """Checker-moves open to the mover: for each die 1..6, the mover checkers on points that
    can move that die to an open point on the board (no opposing point there), / 90."""
    s = _sides(boards)
    # cum[:, 6 + p]: open points among 1..p (0 for p <= 0), so that a checker on p reaches
    # cum[6 + p - 1] - cum[6 + p - 7] open points with one die.
    cum = np.zeros((len(s), 31), dtype=np.int16)
    cum[:, 7:31] = np.cumsum(s.theirs[:, 1:25] < 2, axis=1)
    total = (s.mine[:, 1:26] * (cum[:, 6:31] - cum[:, 0:25])).sum(1)  # checkers on points 1..25
    return total / 90.0


def timing(boards) -> np.ndarray:
    """Pips the mover can play before breaking the home board: sum of (p - 6) over checkers on
    points 7..25 (the bar is 25), / 100."""
    return _sides(boards).mine[:, 7:26] @ np.arange(1, 20) / 100.0


def break_contact(boards) -> np.ndarray:
    """Pips the mover needs to bring every checker past the opponent's rearmost one, / 100.

    A mover checker on point p (bar 25) with the opponent's rearmost checker on q needs
    p - q + 1 pips to be below it; checkers already past count nothing.
    """
    s = _sides(boards)
    distance = np.maximum(POINTS[None, 1:26] - s.opponent_rear[:, None] + 1, 0)
    return (s.mine[:, 1:26] * distance).sum(1) / 100.0


def entry(boards) -> np.ndarray:
    """(N, 2): opponent points closed in its home board (mover points 19..24) / 6, and the
    chance a checker on the mover's bar fails to enter with one roll: (closed / 6) squared."""
    closed = (_sides(boards).theirs[:, 19:25] >= 2).sum(1) / 6.0
    return np.stack([closed, closed**2], axis=1)


def home_points(boards) -> np.ndarray:
    """Mover points made (2+ checkers) in its home board, points 1..6, / 6."""
    return (_sides(boards).mine[:, 1:7] >= 2).sum(1) / 6.0


def back_count(boards) -> np.ndarray:
    """Mover checkers still in the opponent's home board or on the bar (points 19..25), / 15."""
    return _sides(boards).mine[:, 19:26].sum(1) / 15.0


_CROSSINGS = np.array([0] * 6 + [1] * 6 + [2] * 6 + [3] * 6 + [4])  # points 1..24 by quadrant, then the bar


def crossovers(boards) -> np.ndarray:
    """Quadrant crossings the mover still has to make to bring every checker home
    (a checker on p in 7..12 crosses once, 13..18 twice, 19..24 three times, the bar four), / 30."""
    return _sides(boards).mine[:, 1:26] @ _CROSSINGS / 30.0


def home_distribution(boards) -> np.ndarray:
    """(N, 2) race wastage cues: mover checkers on the 1-, 2- and 3-points / 15, and empty
    points among 4..6 (gaps that waste pips in the bear-off) / 3."""
    mine = _sides(boards).mine
    return np.stack([mine[:, 1:4].sum(1) / 15.0, (mine[:, 4:7] == 0).sum(1) / 3.0], axis=1)


CONTACT_NAMES = ("hit_chance", "rear_escape", "containment", "longest_prime", "blocking_prime", "anchors",
                 "forward_anchor", "mobility", "timing", "break_contact", "closed_in_their_home",
                 "entry_fail", "home_points", "back_count")


def contact_features(boards) -> np.ndarray:
    """(N, 14) contact features of the mover's side, in the order of CONTACT_NAMES."""
    s = _sides(boards)
    return np.column_stack([
        hit_chance(s), rear_escape(s), containment(s), primes(s), anchors(s), mobility(s),
        timing(s), break_contact(s), entry(s), home_points(s), back_count(s),
    ]).astype(np.float32)


CONTACT_EXTRA_NAMES = ("pip_loss", "double_hit_chance", "outfield_escapes", "back_moment")


def contact_extra_features(boards) -> np.ndarray:
    """(N, 4) the further contact features of the mover's side (``contact-v2``), in the order of CONTACT_EXTRA_NAMES."""
    s = _sides(boards)
    return np.column_stack([pip_loss(s), double_hit_chance(s), outfield_escapes(s), back_moment(s)]).astype(np.float32)


CONTACT_V3_NAMES = ("active_containment", "free_pips", "back_game", "one_point_holding", "backbone")


def contact_v3_features(boards) -> np.ndarray:
    """(N, 5) the features ``contact-v3`` adds for the mover's side, in the order of CONTACT_V3_NAMES."""
    s = _sides(boards)
    return np.column_stack([active_containment(s), free_pips(s), back_game(s), backbone(s)]).astype(np.float32)


RACE_NAMES = ("crossovers", "low_point_checkers", "home_gaps")


def race_features(boards) -> np.ndarray:
    """(N, 3) race features of the mover's side, in the order of RACE_NAMES: crossovers, then the two
    home-distribution cues."""
    s = _sides(boards)
    return np.column_stack([crossovers(s), home_distribution(s)]).astype(np.float32)
