"""Variants: each is data plus a few rule hooks, read by the one move generator and game loop.

A :class:`Variant` says

* where the checkers start (the mover's points; the opponent's follow from the geometry);
* the :class:`Geometry`: how the opponent's track lies on the mover's;
* whether a lone checker holds its point (no hitting) or is a blot that can be hit;
* its restrictions: positions a player may never bring about, each a pure function of a
  batch of boards seen from the player who has just moved a checker;
* its scoring: whether a backgammon counts 3;
* checkers that start off the board and are entered at will (Acey-Deucey), and a *wild
  roll*: a roll which, played in full, lets the player choose any double, which, played in
  full, lets him roll again (Acey-Deucey's 1-2).

Boards are in the one layout of :mod:`engine.rules.board`, seen from the side to move (the
*mover*), who moves from his 24-point towards his 1-point and bears off from 1..6. That
track is the same in every variant; what differs is where the opponent's points lie:

* **mirrored** (backgammon, nackgammon, hypergammon): the opponent's point ``q`` is the
  mover's ``25 - q``; the two sides move against each other.
* **rotated** by 12 (Fevga, Moultezim): both sides move the same way round the board, and
  the opponent's point ``q`` is the mover's ``q + 12`` for ``q <= 12``, ``q - 12`` above.
  The opponent starts on his 24-point, the mover's 12 (the corner diagonally opposite
  the mover's 24), runs the mover's 12 down to 1, crosses to the mover's 24 and runs down
  to 13. His home board (his 1..6) is the mover's 13..18, his starting quadrant (his
  19..24) the mover's 7..12; the mover's starting quadrant (19..24) is the opponent's
  7..12, the last stretch before his home board. Both mappings are their own inverse,
  so turning the board round (:meth:`Geometry.flip`) is the same map both ways.

Restrictions are checked **per step**: a single die played by a single checker is legal
only if the position right after it is not forbidden, so the one generator drops such
steps where it makes them and its compulsory-play logic (as many dice as possible, else
the larger die) only ever sees legal steps. docs/rules.md gives the reasons.

**Checkers still to enter** (Acey-Deucey, ``off_board``): a board of such a variant has
two more cells, 28 in all: the 26 of :mod:`engine.rules.board`, then ``[26]`` the mover's
checkers not yet entered and ``[27]`` the opponent's. They are not on the bar: a hit
checker on the bar must enter before anything else moves, a checker still to enter
enters (like one from the bar, on the mover's point ``25 - die``) only when its owner
chooses to. Borne-off checkers stay implicit: the variant's checkers minus those on the
points, on the bar and still to enter. Bearing off needs all of them home, so a side
with checkers still to enter has borne none off. Every other variant keeps 26 cells. This module
uses numpy only and imports nothing from the rest of the engine but its errors, so
:mod:`engine.rules.board` can build its starting positions from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from gammon.engine.errors import BoardError

BOARD_SIZE = 26  # engine.rules.board's layout: 0 opponent's bar, 1..24 points, 25 mover's bar
# Acey-Deucey's boards add two cells: each side's checkers still to enter, the mover's first.
MOVER_UNENTERED, OPPONENT_UNENTERED = 26, 27
BOARD_SIZE_UNENTERED = 28
START = 24  # the mover's starting point in the same-direction games
PRIME = 6  # consecutive points that make a prime


@dataclass(frozen=True, eq=False)
class Geometry:
    """Where the opponent's points lie in the mover's numbering."""

    name: str
    opponent_point: np.ndarray  # (24,): the mover's point of the opponent's point q = 1..24
    _flip_order: np.ndarray = field(init=False, repr=False)
    _flip_order_unentered: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        order = np.concatenate([[BOARD_SIZE - 1], self.opponent_point, [0]])  # the bars swap sides
        object.__setattr__(self, "_flip_order", order)  # frozen: set once, here
        # so do the counts of checkers still to enter, on the boards that have them
        object.__setattr__(self, "_flip_order_unentered",
                           np.concatenate([order, [OPPONENT_UNENTERED, MOVER_UNENTERED]]))

    def flip(self, boards: np.ndarray) -> np.ndarray:
        """The same position seen from the other side (the opponent becomes the mover)."""
        b = np.asarray(boards)
        out = b[..., self._flip_order if b.shape[-1] == BOARD_SIZE else self._flip_order_unentered]
        np.negative(out[..., 1:25], out=out[..., 1:25])
        return out

    def opponent_counts(self, boards: np.ndarray) -> np.ndarray:
        """Opponent checkers in his own numbering: (..., 25), index i = his point i+1, 24 = his bar.

        Checkers still to enter (Acey-Deucey) count as on the bar: like a hit checker, each
        is 25 pips from home and behind everything.
        """
        b = np.asarray(boards)
        bar = b[..., 0:1] if b.shape[-1] == BOARD_SIZE else b[..., 0:1] + b[..., OPPONENT_UNENTERED:]
        return np.concatenate([np.maximum(-b[..., self.opponent_point], 0), bar], axis=-1)


_POINTS = np.arange(1, 25)
MIRRORED = Geometry("mirrored", BOARD_SIZE - 1 - _POINTS)
ROTATED = Geometry("rotated", np.where(_POINTS <= 12, _POINTS + 12, _POINTS - 12))

Restriction = Callable[[np.ndarray], np.ndarray]  # (N, 26) boards after a step -> (N,) bool: forbidden


def _second_checker_left_early(boards: np.ndarray, reached: int) -> np.ndarray:
    """Two or more checkers have left the start while none has yet reached point ``reached``.

    Checkers only move forward, so the first checker to leave is the only one that can be
    on ``reached`` or below (or borne off) before the others leave: once two are away from
    the 24-point, one of them must have got that far. A borne-off checker passed it too,
    and then every checker is home (below ``reached``), so no count of the checkers off is
    needed.
    """
    b = np.asarray(boards)
    away = np.maximum(b[..., reached + 1 : START], 0).sum(-1)
    arrived = np.maximum(b[..., 1 : reached + 1], 0).sum(-1)
    return (away >= 2) & (arrived == 0)


def moultezim_first_checker(boards: np.ndarray) -> np.ndarray:
    """Moultezim: a player must move his first checker at least 12 pips (to his 12-point or
    beyond) before any other checker leaves his starting point."""
    return _second_checker_left_early(boards, START - 12)


def fevga_first_checker(boards: np.ndarray) -> np.ndarray:
    """Fevga: a player's first checker must pass the opponent's starting point (the mover's
    12-point: it must reach his 11-point or beyond) before a second checker leaves the start."""
    return _second_checker_left_early(boards, START - 13)


def _holds_all(boards: np.ndarray, points: range) -> np.ndarray:
    """The mover has checkers on every point of ``points``."""
    return np.all(np.asarray(boards)[..., points.start : points.stop] > 0, axis=-1)


def starting_quadrant_filled(boards: np.ndarray) -> np.ndarray:
    """Fevga and Moultezim: a player may never have checkers on every point of his starting
    quadrant (his 19..24, where all his checkers start); at least one must be empty or held by
    the opponent."""
    return _holds_all(boards, range(19, 25))


def fevga_prime_before_all(boards: np.ndarray) -> np.ndarray:
    """Fevga: no six-point prime in front of all the opponent's checkers.

    Forbidden: six points in a row along the opponent's track, all held by the mover, with
    every opposing checker still behind them (on a higher point in the opponent's own
    numbering). A prime with at least one opposing checker past it is allowed.
    """
    b = np.asarray(boards)
    along = b[..., ROTATED.opponent_point]  # index i: the opponent's point i+1
    theirs = along < 0
    leading = np.where(theirs.any(-1), theirs.argmax(-1) + 1, 25)  # his most advanced checker's point
    primes = sliding_window_view(along > 0, PRIME, axis=-1).all(-1)  # index i: a prime on his i+1 .. i+6
    in_front = np.arange(PRIME, 25) < leading[..., None]  # the prime's top point, i+6, short of his lead
    return np.any(primes & in_front, axis=-1)


@dataclass(frozen=True, eq=False)
class Variant:
    """One variant's rules: its data and the hooks the move generator and game loop read."""

    name: str
    start: dict[int, int]  # {mover's point: checkers} at the start; the opponent's by the geometry
    geometry: Geometry = MIRRORED
    lone_checker_holds: bool = False  # True: nothing is ever hit, a single checker blocks the point
    restrictions: tuple[Restriction, ...] = ()
    backgammons: bool = True  # scoring: a backgammon counts 3 (else a gammon, 2, is the most)
    off_board: int = 0  # checkers a side starts with off the board, entered at will (boards of 28 cells)
    wild_roll: tuple[int, int] | None = None  # (low, high): played in full, then any double; in full, another roll

    @property
    def checkers(self) -> int:
        """Checkers per side."""
        return sum(self.start.values()) + self.off_board

    @property
    def board_size(self) -> int:
        """Cells of this variant's boards: 26, or 28 with the counts of checkers still to enter."""
        return BOARD_SIZE_UNENTERED if self.off_board else BOARD_SIZE

    def starting_board(self) -> np.ndarray:
        """The starting position, seen from the side to move."""
        board = np.zeros(self.board_size, dtype=np.int8)
        for point, count in self.start.items():
            board[point] = count
            board[self.geometry.opponent_point[point - 1]] = -count
        if self.off_board:
            board[MOVER_UNENTERED] = board[OPPONENT_UNENTERED] = self.off_board
        return board

    def next_on_roll(self, board: np.ndarray, rolls_again) -> np.ndarray:
        """The position after a play (or (N, 26) of them), seen by the player who rolls next: the mover himself
        after a wild roll played in full (``rolls_again``, one flag a board), else his opponent."""
        return np.where(np.asarray(rolls_again)[..., None], board, self.geometry.flip(board))

    def is_wild(self, dice: np.ndarray) -> np.ndarray:
        """Whether each roll of ``dice`` ((N, 2), either order) is this variant's wild roll."""
        d = np.asarray(dice)
        if self.wild_roll is None:
            return np.zeros(d.shape[:-1], dtype=bool)
        low, high = self.wild_roll
        return (np.minimum(d[..., 0], d[..., 1]) == low) & (np.maximum(d[..., 0], d[..., 1]) == high)

    def forbidden(self, boards: np.ndarray) -> np.ndarray:
        """Whether each board (seen from the player who just stepped) breaks any restriction."""
        forbidden = np.zeros(len(boards), dtype=bool)
        for restriction in self.restrictions:
            forbidden |= restriction(boards)
        return forbidden


STANDARD = Variant("standard", {24: 2, 13: 5, 8: 3, 6: 5})
NACKGAMMON = Variant("nackgammon", {24: 2, 23: 2, 13: 4, 8: 3, 6: 4})
HYPERGAMMON = Variant("hypergammon", {24: 1, 23: 1, 22: 1})
FEVGA = Variant("fevga", {START: 15}, ROTATED, lone_checker_holds=True, backgammons=False,
                restrictions=(fevga_first_checker, starting_quadrant_filled, fevga_prime_before_all))
MOULTEZIM = Variant("moultezim", {START: 15}, ROTATED, lone_checker_holds=True, backgammons=False,
                    restrictions=(moultezim_first_checker, starting_quadrant_filled))
# All 15 start off the board; a 1-2 played in full brings a double of the player's choice, and that double
# played in full another roll.
ACEY_DEUCEY = Variant("acey-deucey", {}, off_board=15, wild_roll=(1, 2))

# Every variant the engine plays (docs/rules.md, "Starting positions and variants").
VARIANTS = {v.name: v for v in (STANDARD, NACKGAMMON, HYPERGAMMON, FEVGA, MOULTEZIM, ACEY_DEUCEY)}


def variant_named(name: str | Variant) -> Variant:
    """The variant called ``name`` (a Variant is returned as it is); BoardError names the choices."""
    if isinstance(name, Variant):
        return name
    try:
        return VARIANTS[name]
    except (KeyError, TypeError):
        raise BoardError(f"unknown variant {name!r}; choose one of {sorted(VARIANTS)}") from None
