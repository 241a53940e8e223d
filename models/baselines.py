"""Baseline players as evaluators (see :mod:`engine.evaluator`): random and the heuristic."""

from __future__ import annotations

import numpy as np

from .heuristic import heuristic_value


class RandomEvaluator:
    """Scores afterstates at random: a uniformly random legal play."""

    name = "random"

    def __init__(self, seed: int | None = 0):
        self.rng = np.random.default_rng(seed)

    def score_afterstates(self, boards: np.ndarray) -> np.ndarray:
        return self.rng.random(len(boards))


class HeuristicEvaluator:
    """The pip-count and safety heuristic of :mod:`models.heuristic`."""

    name = "heuristic"

    def score_afterstates(self, boards: np.ndarray) -> np.ndarray:
        return heuristic_value(boards)
