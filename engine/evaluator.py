"""How the engine talks to evaluators without knowing what they are (no torch here).

An *evaluator* is any object with

- ``score_afterstates(boards) -> (M,) float``: boards in the layout of
  :mod:`engine.board`, each the position just after the *mover* played (the mover
  still in the mover's slots); higher is better for the mover. This is all a player
  needs to choose a move (pubeval, the heuristic and random players have only this).

and, for evaluators that estimate game outcomes (the neural networks),

- ``probabilities(boards) -> (N, 5) float``: boards seen from the player **on roll**,
  before rolling; columns in gnubg's order P(win), P(win gammon), P(win backgammon),
  P(lose gammon), P(lose backgammon), the gammon columns including backgammons.

Finished positions (the mover has borne off every checker) are scored here, exactly,
and never reach an evaluator.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from .board import flip
from .game import Policy, greedy_policy, result_points


class Evaluator(Protocol):
    name: str

    def score_afterstates(self, boards: np.ndarray) -> np.ndarray: ...


class ProbabilityEvaluator(Evaluator, Protocol):
    def probabilities(self, boards: np.ndarray) -> np.ndarray: ...


def cubeless_equity(probs: np.ndarray) -> np.ndarray:
    """Money equity (cubeless, per unit stake) of (N, 5) probabilities for the player they belong to."""
    p = np.asarray(probs, dtype=np.float64)
    return 2.0 * p[..., 0] - 1.0 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]


def exclusive_results(probs: np.ndarray) -> np.ndarray:
    """(..., 5) gnubg probabilities -> (..., 6) chances of the exclusive results: win 1, 2, 3, lose 1, 2, 3 points."""
    p = np.asarray(probs, dtype=np.float64)
    win, wg, wbg, lg, lbg = (p[..., k] for k in range(5))
    return np.stack([win - wg, wg - wbg, wbg, 1.0 - win - lg, lg - lbg, lbg], axis=-1)


def afterstate_equity(evaluator: ProbabilityEvaluator, boards: np.ndarray, checkers: int = 15) -> np.ndarray:
    """The mover's cubeless equity of each afterstate: minus the opponent's equity on roll.

    A finished game counts exactly: +1, +2 or +3 for the mover.
    """
    b = np.asarray(boards)
    won = result_points(b, checkers)
    equity = np.zeros(len(b), dtype=np.float64)
    going = won == 0
    if going.any():
        equity[going] = -cubeless_equity(evaluator.probabilities(flip(b[going])))
    equity[~going] = won[~going]
    return equity


def evaluator_policy(evaluator: Evaluator) -> Policy:
    """0-ply play: the afterstate with the best score for the mover (first one on ties)."""
    return greedy_policy(evaluator.score_afterstates)
