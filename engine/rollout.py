"""Cubeless rollouts: play a position out many times, the evaluator moving for both sides.

Games run batched through :func:`engine.game.play_games`, in chunks so a caller can show
progress, by the rules of the evaluator's ``variant`` (its moves, its scoring). Variance
reduction: the first roll is stratified, game ``i`` starting with the ``i mod 36``-th of the
36 ordered rolls, so every first roll weighs exactly its 1/36 (use a multiple of 36 games).
Truncated rollouts stop after ``truncate`` turns and score each unfinished game with the
evaluator. Same seed, same result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .cube import Cube
from .errors import GammonError
from .evaluator import ProbabilityEvaluator, evaluator_policy
from .game import Rules, play, play_games
from .probability import cubeless_equity, outcome_probs, swap_sides

FIRST_ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, 7)], dtype=np.int64)
CHUNK = 36 * 16  # games per batched call


@dataclass(frozen=True)
class RolloutResult:
    games: int
    probs: np.ndarray  # (5,) mean probabilities for the player on roll
    equity: float  # cubeless money equity
    std_error: float
    ci95: tuple[float, float]
    truncated: int  # games scored by the evaluator because they hit the truncation
    seconds: float

    @property
    def games_per_s(self) -> float:
        return self.games / max(self.seconds, 1e-9)

    def as_dict(self) -> dict:
        return {"games": self.games, "probs": self.probs.tolist(), "equity": self.equity, "std_error": self.std_error,
                "ci95": list(self.ci95), "truncated": self.truncated, "seconds": self.seconds,
                "games_per_s": self.games_per_s}


def rollout(
    evaluator: ProbabilityEvaluator,
    board: np.ndarray,
    games: int = 1296,
    seed: int = 0,
    truncate: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> RolloutResult:
    """Roll ``board`` (player on roll) out ``games`` times; ``progress(n)`` is told of each n games done."""
    if games < 2:
        raise GammonError(f"a rollout needs at least 2 games; got {games}")
    return _cubeless(evaluator, board, games, seed, truncate, progress)


@dataclass(frozen=True)
class CubefulRolloutResult:
    games: int
    equity: float  # cubeful money equity per unit of the starting cube, for the player on roll
    std_error: float
    ci95: tuple[float, float]
    doubles: int
    passes: int
    seconds: float

    def as_dict(self) -> dict:
        return {"games": self.games, "cubeful_equity": self.equity, "std_error": self.std_error,
                "ci95": list(self.ci95), "doubles": self.doubles, "passes": self.passes, "seconds": self.seconds,
                "games_per_s": self.games / max(self.seconds, 1e-9)}


def cubeful_rollout(
    evaluator: ProbabilityEvaluator,
    board: np.ndarray,
    cube: Cube = Cube(),
    games: int = 1296,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> CubefulRolloutResult:
    """Money rollout with the cube: both sides double, take and pass by Janowski's model at 0-ply.

    ``cube`` is the money cube as the player on roll sees it. Games are played to the end;
    the first roll is stratified as in :func:`rollout`.
    """
    from .cubeful import EvaluatorPlayer

    if games < 2:
        raise GammonError(f"a rollout needs at least 2 games; got {games}")
    player = EvaluatorPlayer(evaluator)
    rules = Rules(variant=evaluator.variant.name)
    started = time.perf_counter()
    points, doubles, passes = [], 0, 0
    for first in range(0, games, CHUNK):
        n = min(CHUNK, games - first)
        result = play((player, player), n, seed=seed * 1_000_003 + first, rules=rules, start=board,
                      start_cube=cube, first_dice=FIRST_ROLLS[(first + np.arange(n)) % 36])
        points.append(result.points / cube.value)
        doubles, passes = doubles + result.cube_turns, passes + result.passes
        if progress:
            progress(n)
    values = np.concatenate(points).astype(np.float64)
    mean, std_error = float(values.mean()), float(values.std(ddof=1) / np.sqrt(games))
    return CubefulRolloutResult(games, mean, std_error, (mean - 1.96 * std_error, mean + 1.96 * std_error), doubles,
                                passes, time.perf_counter() - started)


def _cubeless(evaluator, board, games, seed, truncate, progress) -> RolloutResult:
    policy = evaluator_policy(evaluator)
    started = time.perf_counter()
    per_game, truncated = [], 0
    for first in range(0, games, CHUNK):
        n = min(CHUNK, games - first)
        dice = FIRST_ROLLS[(first + np.arange(n)) % 36]
        result = play_games((policy, policy), n, seed=seed * 1_000_003 + first, variant=evaluator.variant.name,
                            start=board, first_dice=dice, stop_after=truncate)
        probs = outcome_probs(result.points)
        going = result.points == 0
        if going.any():
            estimate = np.asarray(evaluator.probabilities(result.boards[going]), dtype=np.float64)
            probs[going] = np.where((result.on_roll[going] == 1)[:, None], swap_sides(estimate), estimate)
            truncated += int(going.sum())
        per_game.append(probs)
        if progress:
            progress(n)
    probs = np.concatenate(per_game)
    equity = cubeless_equity(probs)
    mean = float(equity.mean())
    std_error = float(equity.std(ddof=1) / np.sqrt(games))
    return RolloutResult(games, probs.mean(axis=0), mean, std_error, (mean - 1.96 * std_error, mean + 1.96 * std_error),
                         truncated, time.perf_counter() - started)
