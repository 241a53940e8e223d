"""How games end: the points a finished game scores, the result probabilities (their two layouts,
the conversions, equity), and afterstates scored exactly when the game is over.

Scoring (docs/rules.md): the game ends the moment a side bears off its last checker; the
loser pays 1 (single), 2 (gammon: nothing borne off) or 3 (backgammon: nothing borne
off and a checker on the bar, still to enter, or in the winner's home board), the last
only in variants that have backgammons (not Fevga or Moultezim).

A game ends in one of six results for a given player: win 1, 2 or 3 points (single,
gammon, backgammon) or lose 1, 2 or 3. Two layouts describe the chances:

- **gnubg's five** (``probs``, shape ``(..., 5)``, float64), used by the engine and every
  evaluator: P(win), P(win gammon), P(win backgammon), P(lose gammon), P(lose
  backgammon); the gammon columns include backgammons.
- **six exclusive results** (``results``, shape ``(..., 6)``): win 1, 2, 3, then lose 1,
  2, 3 points; the networks' softmax and the training targets use it.

Both always belong to one player; :func:`swap_sides` gives the other player's view. A finished
game is never evaluated: :func:`afterstate_probs` scores it exactly, for any number of checkers a side.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gammon.engine.rules.board import BOARD_SIZE, checkers_off, mover_counts
from gammon.engine.rules.variants import OPPONENT_UNENTERED, Variant

# Names of gnubg's five probabilities, in their order (reports and files key them so).
PROBABILITY_NAMES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
# Points of each exclusive result, for its owner.
RESULT_POINTS = np.array([1.0, 2.0, 3.0, -1.0, -2.0, -3.0])


def result_points(boards: np.ndarray, checkers: int, backgammons: bool = True) -> np.ndarray:
    """Points won by the mover of each afterstate: 0 if it has checkers left (on the board, on
    the bar or still to enter), else 1, 2 or 3 (3 only where the variant has ``backgammons``)."""
    b = np.asarray(boards)
    won = ~(mover_counts(b) > 0).any(axis=-1)
    if not won.any():  # most batches: nothing more to work out
        return np.zeros(won.shape, dtype=np.int64)
    loser_off = checkers_off(b, checkers)[..., 1]
    loser_in_danger = (b[..., 0] > 0) | np.any(b[..., 1:7] < 0, axis=-1)  # bar, or winner's home board
    if b.shape[-1] > BOARD_SIZE:  # Acey-Deucey: a checker never entered is further back than the bar
        loser_in_danger |= b[..., OPPONENT_UNENTERED] > 0
    points = np.where(loser_off > 0, 1, np.where(loser_in_danger & backgammons, 3, 2))
    return np.where(won, points, 0)


def swap_sides(probs: np.ndarray) -> np.ndarray:
    """The same five probabilities seen by the other player."""
    p = np.asarray(probs, dtype=np.float64)
    return np.stack([1.0 - p[..., 0], p[..., 3], p[..., 4], p[..., 1], p[..., 2]], axis=-1)


def exclusive_results(probs: np.ndarray) -> np.ndarray:
    """(..., 5) gnubg probabilities -> (..., 6) chances of the exclusive results."""
    p = np.asarray(probs, dtype=np.float64)
    win, wg, wbg, lg, lbg = (p[..., k] for k in range(5))
    return np.stack([win - wg, wg - wbg, wbg, 1.0 - win - lg, lg - lbg, lbg], axis=-1)


def cumulative_probs(results: np.ndarray) -> np.ndarray:
    """(..., 6) exclusive results -> (..., 5) gnubg probabilities (gammons include backgammons)."""
    r = np.asarray(results, dtype=np.float64)
    w1, w2, w3, _, l2, l3 = (r[..., k] for k in range(6))
    return np.stack([w1 + w2 + w3, w2 + w3, w3, l2 + l3, l3], axis=-1)


def cubeless_equity(probs: np.ndarray) -> np.ndarray:
    """Money equity (cubeless, per unit stake) of (..., 5) probabilities for the player they belong to."""
    p = np.asarray(probs, dtype=np.float64)
    return 2.0 * p[..., 0] - 1.0 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]


def outcome_probs(points: np.ndarray) -> np.ndarray:
    """(N, 5) probabilities of decided games: ``points`` won (1, 2, 3) or lost (-1, -2, -3)."""
    points = np.asarray(points)
    won, lost = np.maximum(points, 0), np.maximum(-points, 0)
    return np.stack([points > 0, won >= 2, won >= 3, lost >= 2, lost >= 3], axis=-1).astype(np.float64)


def afterstate_probs(evaluate_on_roll: Callable[[np.ndarray], np.ndarray], boards: np.ndarray,
                     variant: Variant, extra_roll: np.ndarray | None = None) -> np.ndarray:
    """(M, 5) probabilities for the side that just moved, from ``evaluate_on_roll`` of the side on roll.

    A finished game (the mover has borne off its last checker) is its exact result by
    ``variant``'s rules (its checkers a side, whether backgammons count). An afterstate
    after which the mover rolls again (``extra_roll``, (M,) bool: Acey-Deucey's 1-2, see
    ``Afterstates.extra_roll``) is his own position on roll, evaluated as it stands. Every
    other afterstate is turned round to the opponent on roll (the variant's geometry),
    evaluated there and swapped back.
    """
    boards = np.asarray(boards)
    won = result_points(boards, variant.checkers, variant.backgammons)
    out = outcome_probs(won)
    going = won == 0
    again = going & extra_roll if extra_roll is not None else np.zeros_like(going)
    passed = going & ~again
    if passed.any():
        out[passed] = swap_sides(evaluate_on_roll(variant.geometry.flip(boards[passed])))
    if again.any():
        out[again] = evaluate_on_roll(boards[again])
    return out
