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

and ``variant``, the :class:`engine.variants.Variant` of the game it evaluates: its
checkers a side (15; 3 in hypergammon), how the board turns round to the other side, and
its scoring. Finished positions (the mover has borne off every checker) are scored
exactly with it (:mod:`engine.probability`) and never reach an evaluator.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from .game import Policy, greedy_policy
from .probability import afterstate_probs, cubeless_equity
from .variants import Variant


class Evaluator(Protocol):
    name: str

    def score_afterstates(self, boards: np.ndarray) -> np.ndarray: ...


class ProbabilityEvaluator(Evaluator, Protocol):
    variant: Variant  # the game it evaluates: finished games are scored by its rules, boards turned by its geometry

    def probabilities(self, boards: np.ndarray) -> np.ndarray: ...


def afterstate_equity(evaluator: ProbabilityEvaluator, boards: np.ndarray) -> np.ndarray:
    """The mover's cubeless equity of each afterstate (a finished game exactly: +1, +2 or +3)."""
    return cubeless_equity(afterstate_probs(evaluator.probabilities, boards, evaluator.variant))


def evaluator_policy(evaluator: Evaluator) -> Policy:
    """0-ply play: the afterstate with the best score for the mover (first one on ties)."""
    return greedy_policy(evaluator.score_afterstates)
