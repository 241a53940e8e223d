"""Baseline players as evaluators (see :mod:`engine.search.evaluator`): random and the heuristic."""

from __future__ import annotations

import numpy as np

from gammon.engine.rules.variants import MIRRORED, Variant, variant_named
from gammon.models.heuristic import heuristic_value, same_direction_value


class RandomEvaluator:
    """Scores afterstates at random: a uniformly random legal play."""

    name = "random"

    def __init__(self, seed: int | None = 0):
        self.rng = np.random.default_rng(seed)

    def score_afterstates(self, boards: np.ndarray) -> np.ndarray:
        return self.rng.random(len(boards))


class HeuristicEvaluator:
    """The heuristic of :mod:`models.heuristic` for ``variant``: pip count and safety on backgammon's
    board, points held then the race where both sides move the same way (Fevga, Moultezim)."""

    name = "heuristic"

    def __init__(self, variant: str | Variant = "standard"):
        mirrored = variant_named(variant).geometry is MIRRORED
        self.value = heuristic_value if mirrored else same_direction_value

    def score_afterstates(self, boards: np.ndarray) -> np.ndarray:
        return self.value(boards)
