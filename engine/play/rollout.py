"""Cubeless rollouts: play a position out many times, the evaluator moving for both sides.

Games run batched through :func:`engine.play.game.play_games`, in chunks so a caller can show
progress, each move the evaluator's 0-ply choice among the plays its screen (a pruning net,
engine/search/evaluator.py) ranks best, as gnubg's rollouts play, by the rules of the
evaluator's ``variant`` (its moves, its scoring). Variance reduction: the first roll is
stratified, game ``i`` starting with the ``i mod 36``-th of the 36 ordered rolls, so every
first roll weighs exactly its 1/36 (use a multiple of 36 games).
Truncated rollouts stop after ``truncate`` turns and score each unfinished game with the
evaluator. Same seed, same result.

:func:`rollout_positions` rolls out many positions at once, each for a few games (training
labels): its games also stop where ``settled`` says the evaluator's answer is exact (a
bear-off the databases hold), which removes the rest of the game's luck from the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gammon.engine.cube.state import Cube
from gammon.engine.errors import GammonError
from gammon.engine.play.game import Rules, play, play_games
from gammon.engine.play.players import EvaluatorPlayer
from gammon.engine.play.stats import interval95, mean_and_error
from gammon.engine.rules.dice import ORDERED_ROLLS
from gammon.engine.rules.outcomes import cubeless_equity, outcome_probs, swap_sides
from gammon.engine.search.evaluator import ProbabilityEvaluator, evaluator_policy

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
    if games < 2:
        raise GammonError(f"a rollout needs at least 2 games; got {games}")
    player = EvaluatorPlayer(evaluator)
    rules = Rules(variant=evaluator.variant.name)
    started = time.perf_counter()
    points, doubles, passes = [], 0, 0
    for first in range(0, games, CHUNK):
        n = min(CHUNK, games - first)
        result = play((player, player), n, seed=seed * 1_000_003 + first, rules=rules, start=board,
                      start_cube=cube, first_dice=ORDERED_ROLLS[(first + np.arange(n)) % 36])
        points.append(result.points / cube.value)
        doubles, passes = doubles + result.cube_turns, passes + result.passes
        if progress:
            progress(n)
    mean, std_error = mean_and_error(np.concatenate(points))
    return CubefulRolloutResult(games, mean, std_error, interval95(mean, std_error), doubles, passes,
                                time.perf_counter() - started)


SETTLE_TURNS = 2  # turns played between looks for settled positions


def rollout_positions(
    evaluator: ProbabilityEvaluator,
    boards: np.ndarray,
    games: int = 36,
    seed: int = 0,
    settled: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """(N, 5) mean result probabilities of ``games`` cubeless rollout games of each board (player on roll).

    Game ``i`` of a board starts with the ``i mod 36``-th ordered roll. Every game is
    played out by the evaluator's 0-ply choices (among the plays its screen ranks best, if it
    has one), and all games of all boards move in one batch. With ``settled`` (boards seen
    from the side on roll -> (M,) bool), a game whose position is settled before a roll
    (every :data:`SETTLE_TURNS` turns) stops there and scores the evaluator's probabilities for it.
    """
    boards = np.asarray(boards)
    if games < 1:
        raise GammonError(f"a rollout needs at least 1 game a position; got {games}")
    policy = evaluator_policy(evaluator, screened=True)
    n = len(boards) * games
    probs = np.zeros((n, 5))
    current, dice = np.repeat(boards, games, axis=0), ORDERED_ROLLS[np.arange(n) % 36]
    slots = np.arange(n)
    swapped = np.zeros(n, dtype=bool)  # the side on roll in ``current`` is the board's opponent
    rounds = 0
    while len(slots):
        result = play_games((policy, policy), len(slots), seed=seed * 1_000_003 + rounds,
                            variant=evaluator.variant.name, start=current, first_dice=dice,
                            stop_after=SETTLE_TURNS if settled is not None else None)
        over = result.points != 0
        probs[slots[over]] = _seen_by(outcome_probs(result.points[over]), swapped[slots[over]])
        slots, current = slots[~over], result.boards[~over]
        swapped[slots] ^= result.on_roll[~over] == 1
        # without ``settled`` the games ran to the end; any left hit the turn limit and are scored as settled ones
        done = settled(current) if settled is not None else np.ones(len(slots), dtype=bool)
        if done.any():
            estimate = np.asarray(evaluator.probabilities(current[done]), dtype=np.float64)
            probs[slots[done]] = _seen_by(estimate, swapped[slots[done]])
        slots, current, dice, rounds = slots[~done], current[~done], None, rounds + 1
    return probs.reshape(len(boards), games, 5).mean(axis=1)


def _seen_by(probs: np.ndarray, swapped: np.ndarray) -> np.ndarray:
    """``probs`` of the side on roll, turned to the rolled-out board's player where ``swapped``."""
    return np.where(swapped[:, None], swap_sides(probs), probs)


def _cubeless(evaluator, board, games, seed, truncate, progress) -> RolloutResult:
    policy = evaluator_policy(evaluator, screened=True)
    started = time.perf_counter()
    per_game, truncated = [], 0
    for first in range(0, games, CHUNK):
        n = min(CHUNK, games - first)
        dice = ORDERED_ROLLS[(first + np.arange(n)) % 36]
        result = play_games((policy, policy), n, seed=seed * 1_000_003 + first, variant=evaluator.variant.name,
                            start=board, first_dice=dice, stop_after=truncate)
        probs = outcome_probs(result.points)
        going = result.points == 0
        if going.any():
            estimate = np.asarray(evaluator.probabilities(result.boards[going]), dtype=np.float64)
            probs[going] = _seen_by(estimate, result.on_roll[going] == 1)
            truncated += int(going.sum())
        per_game.append(probs)
        if progress:
            progress(n)
    probs = np.concatenate(per_game)
    mean, std_error = mean_and_error(cubeless_equity(probs))
    return RolloutResult(games, probs.mean(axis=0), mean, std_error, interval95(mean, std_error), truncated,
                         time.perf_counter() - started)
