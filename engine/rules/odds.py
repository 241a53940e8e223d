"""The odds tables backgammon players learn, counted with our own move generator.

Every figure is a number of the 36 rolls (a double counts once, any other roll twice, as
the two orders of its dice) for which at least one legal play, as
:func:`engine.rules.movegen.generate` finds them, does what the table asks: hits a blot, or
enters from the bar. Nothing is looked up; each roll is played on a real position, so
blocked points and the compulsory-play rules act exactly as they do in a game.

The positions hold only the checkers in question (the mover's other checkers are borne
off), so no other checker can hit, block or take a die:

- **Hitting** (:func:`hit_chances`): the mover's lone checker is on the bar, the opponent
  has a blot ``d`` pips away (the mover's point ``25 - d``) and, optionally, made points
  (two checkers) at given distances short of the blot. From the bar every distance 1..24
  fits on the board; a single checker there moves exactly as it would from a point, since
  entering is just its first step.
- **Entering** (:func:`entering_table`): one or two mover checkers on the bar and the
  opponent's home board closed on ``6 - k`` points (its 6-point down), ``k`` points open.
  Each die number enters on one point only, so which ``k`` points are open does not
  change any count.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.errors import GammonError
from gammon.engine.rules import dice
from gammon.engine.rules.board import BOARD_SIZE, MAX_CHECKERS, MOVER_BAR, OPP_BAR
from gammon.engine.rules.movegen import generate

# The 21 rolls high die first, as players name them (66, 65, ..., 11), and how many of the 36 each is.
_HIGH_FIRST = np.lexsort((-dice.ROLLS[:, 0], -dice.ROLLS[:, 1]))
ROLLS = np.ascontiguousarray(dice.ROLLS[_HIGH_FIRST][:, ::-1])
ROLL_WEIGHTS = np.rint(dice.ROLL_WEIGHTS[_HIGH_FIRST] * 36).astype(np.int64)  # a double happens one way, others two
ROLL_NAMES = [f"{high}{low}" for high, low in ROLLS.tolist()]
DISTANCES = range(1, 25)
OPEN_POINTS = range(0, 7)
# The opponent's 15 checkers: the blot plus two for each made point.
MAX_BLOCKS = (MAX_CHECKERS - 1) // 2


class OddsError(GammonError):
    """A question the odds tables cannot answer (a distance or blocked point off the board)."""


def chance(rolls: int) -> dict:
    """A count of the 36 rolls and the probability it is."""
    return {"rolls": rolls, "probability": rolls / 36}


def _rolls_reaching(boards: np.ndarray, *goals) -> list[np.ndarray]:
    """For each goal, an (N, 21) bool: whether some legal play of each roll of ``ROLLS`` on each
    board ends where ``goal(afterstates)`` (a bool per afterstate) holds. One generator call in all."""
    inputs = np.repeat(boards, len(ROLLS), axis=0)
    dice = np.tile(ROLLS, (len(boards), 1))
    after = generate(inputs, dice, check=False)  # the boards are ours and valid
    return [(np.bincount(after.parent, weights=goal(after.boards), minlength=len(inputs)) > 0)
            .reshape(len(boards), len(ROLLS)) for goal in goals]


def _distance(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= 24:
        raise OddsError(f"{what} must be a whole number of pips 1..24; got {value!r}")
    return int(value)


def check_blocked(blocked) -> list[int]:
    """The blocked distances, sorted and without repeats; an OddsError if any is off the board or too many."""
    distances = sorted({_distance(b, "a blocked point") for b in blocked})
    if len(distances) > MAX_BLOCKS:
        raise OddsError(f"at most {MAX_BLOCKS} blocked points (the opponent has {MAX_CHECKERS} checkers, one of "
                        f"them the blot); got {len(distances)}")
    return distances


def hit_position(distance: int, blocked=()) -> np.ndarray:
    """The board :func:`hit_chances` plays: the mover's lone checker on the bar, an opposing
    blot ``distance`` pips away and a made point at each blocked distance short of it
    (those beyond the blot cannot stop a hit and are left out)."""
    board = np.zeros(BOARD_SIZE, dtype=np.int8)
    board[MOVER_BAR] = 1
    board[MOVER_BAR - distance] = -1
    for block in blocked:
        if block < distance:
            board[MOVER_BAR - block] = -2
    return board


def hit_chances(distances=DISTANCES, blocked=()) -> list[dict]:
    """How many of the 36 rolls hit a blot at each of ``distances`` (pips, 1..24).

    Counted: rolls for which at least one legal play lands the checker on the blot, with
    one die or any combination of them (a double moves four times), every intermediate
    landing point open; an opposing point made at a ``blocked`` distance (pips from the
    checker) cannot be landed on, so it stops the combinations that touch it. One row per
    distance: ``{"distance", "rolls", "probability", "dice"}``, ``dice`` naming the rolls
    that hit (high die first). A distance that is itself blocked holds a made point, not a
    blot: its ``rolls``, ``probability`` and ``dice`` are None.
    """
    distances = [_distance(d, "a distance") for d in distances]
    blocked = check_blocked(blocked)
    open_ = [d for d in distances if d not in blocked]
    counts = {}
    if open_:
        boards = np.stack([hit_position(d, blocked) for d in open_])
        (hits,) = _rolls_reaching(boards, lambda after: after[:, OPP_BAR] > 0)
        counts = {d: row for d, row in zip(open_, hits)}
    return [_hit_row(d, counts.get(d)) for d in distances]


def _hit_row(distance: int, hits: np.ndarray | None) -> dict:
    if hits is None:
        return {"distance": distance, "rolls": None, "probability": None, "dice": None}
    dice = [name for name, hit in zip(ROLL_NAMES, hits) if hit]
    return {"distance": distance, **chance(int(ROLL_WEIGHTS[hits].sum())), "dice": dice}


def entering_position(open_points: int, checkers_on_bar: int) -> np.ndarray:
    """The board :func:`entering_table` plays: ``checkers_on_bar`` mover checkers on the bar
    and the opponent's points ``open_points + 1`` .. 6 made (the mover's points 19 .. 24 - open_points)."""
    board = np.zeros(BOARD_SIZE, dtype=np.int8)
    board[MOVER_BAR] = checkers_on_bar
    board[19 : MOVER_BAR - open_points] = -2
    return board


def _entering_counts(open_points: list[int], checkers_on_bar: int) -> tuple[np.ndarray, np.ndarray]:
    """Rolls out of 36, per number of open points: all checkers on the bar enter, at least one enters."""
    boards = np.stack([entering_position(k, checkers_on_bar) for k in open_points])
    every, some = _rolls_reaching(boards, lambda after: after[:, MOVER_BAR] == 0,
                                  lambda after: after[:, MOVER_BAR] < checkers_on_bar)
    return every @ ROLL_WEIGHTS, some @ ROLL_WEIGHTS


def entering_table() -> list[dict]:
    """How many of the 36 rolls enter from the bar against 0..6 open points, in one batch per bar count.

    Rows ``{"open_points", "one", "two_both", "two_at_least_one"}`` of :func:`chance` values:
    ``one``, rolls for which some legal play brings a lone checker on the bar in; with two
    checkers on the bar, ``two_both``, rolls for which some legal play brings both in, and
    ``two_at_least_one``, rolls bringing in at least one. Entering with a die needs the point
    of that number in the opponent's home board open; a double enters up to four checkers.
    """
    one, _ = _entering_counts(list(OPEN_POINTS), 1)
    both, at_least_one = _entering_counts(list(OPEN_POINTS), 2)
    return [{"open_points": k, "one": chance(int(one[k])), "two_both": chance(int(both[k])),
             "two_at_least_one": chance(int(at_least_one[k]))} for k in OPEN_POINTS]
