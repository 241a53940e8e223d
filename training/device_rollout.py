"""Cubeless rollouts on the device: engine.play.rollout.rollout's games, choices and estimates in torch.

:func:`rollout` plays a position out ``games`` times with the net moving for both sides,
as :func:`engine.play.rollout.rollout` does on the host, every game of a chunk side by side on
one torch device (CPU or CUDA): the first roll stratified (game ``i`` starts with the
``i mod 36``-th of the 36 ordered rolls), the later dice from a seeded torch generator,
every move the afterstate of the best cubeless equity for the mover at 0-ply (the first
on ties), finished games scored by engine.rules.outcomes.result_points' rules, truncated games
(``truncate`` turns) scored by the evaluator. Only each chunk's per-game probabilities
come back to the host; the summary is engine.play.rollout's.

The evaluator is :class:`DeviceAnalyst`: a net (:class:`models.network.ClassNets`) with
the exact bear-off databases, as engine.search.bearoff.WithBearoff wraps a NetEvaluator for the
analysis commands: :func:`bearoff_probabilities` is engine.search.bearoff's in torch, the tables
moved to the device once. Its choices equal the host's but where two afterstates' equities
differ by float rounding (``tests/test_device_rollout.py``); the dice differ from the host's
(another generator), so the same seed gives a different sample of the same rollout.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from gammon.engine.errors import GammonError
from gammon.engine.play.rollout import RolloutResult
from gammon.engine.play.stats import interval95, mean_and_error
from gammon.engine.rules.board import MAX_CHECKERS
from gammon.engine.rules.dice import ORDERED_ROLLS
from gammon.engine.rules.outcomes import cubeless_equity
from gammon.engine.rules.variants import Variant
from gammon.engine.search.bearoff import POINTS, Databases, WithBearoff
from gammon.models.inference import NumpyEvaluator
from gammon.models.network import ClassNets, NetEvaluator, torch_model
from gammon.training.device_selfplay import best_in_groups, model_logits, result_points
from gammon.training.torch_encoding import flip
from gammon.training.torch_movegen import generate, plays_backgammon_board

CHUNK = 36 * 1024  # games side by side in one batch


def _survival(dist: torch.Tensor) -> torch.Tensor:
    """``out[:, n] = P(count >= n)`` for distributions over 0..MAX_ROLLS-1 (engine.search.bearoff._survival)."""
    return dist.flip(1).cumsum(1).flip(1)


@dataclass(frozen=True)
class BearoffTables:
    """engine.search.bearoff's databases on one device, with the survival functions its evaluation reads."""

    max_checkers: int  # of the one-sided database
    rolls: torch.Tensor  # (n, 32) float64: P(all off in exactly k rolls), k = 0..31
    rolls_left: torch.Tensor  # (n, 32): P(all off in k rolls or more)
    first_left: torch.Tensor  # (n, 32): P(the first checker off in k rolls or more)
    first_after: torch.Tensor  # (n, 32): P(the first checker off in more than k rolls)
    two_checkers: int  # of the two-sided database (0: none)
    p_win: torch.Tensor  # (m, m) float64: exact P(win) on roll, both sides within two_checkers
    binomials: torch.Tensor  # (MAX_CHECKERS + POINTS, POINTS + 1) int64: C(n, k), for position_index

    @classmethod
    def of(cls, databases: Databases, device: torch.device) -> BearoffTables:
        one, two = databases
        binomials = [[math.comb(n, k) for k in range(POINTS + 1)] for n in range(MAX_CHECKERS + POINTS)]
        rolls = torch.from_numpy(one.rolls).to(device)
        first = torch.from_numpy(one.first).to(device)
        first_after = torch.zeros_like(first)
        first_after[:, :-1] = _survival(first)[:, 1:]
        return cls(one.max_checkers, rolls, _survival(rolls), _survival(first), first_after,
                   two.max_checkers if two is not None else 0,
                   torch.from_numpy(two.p_win if two is not None else np.zeros((1, 1))).to(device),
                   torch.tensor(binomials, device=device))

    def index(self, counts: torch.Tensor) -> torch.Tensor:
        """engine.search.bearoff.position_index: the database row of (N, 6) home-board counts."""
        prefix = counts.cumsum(1)
        j = torch.arange(1, POINTS + 1, device=counts.device)
        return self.binomials[prefix + j - 1, j].sum(1)


def bearoff_probabilities(boards: torch.Tensor, checkers: int, tables: BearoffTables):
    """engine.search.bearoff.bearoff_probabilities on backgammon's board: ``(probs (N, 5) float64, applies (N,) bool)``.

    A position applies when both sides have checkers left, all in their own home board,
    and no more than the one-sided database holds. P(win) is the one-sided estimate (I
    move first: sum_n P_me(n) P_opp(>= n)), exact where both sides fit the two-sided
    database; P(win gammon) when the opponent has borne off nothing is sum_n P_me(n)
    P_opp_first(>= n), P(lose gammon) when I have borne off nothing sum_n P_opp(n)
    P_me_first(> n); no backgammons. Rows that do not apply are 0. Every row is computed
    (the others on empty counts) and masked: no host round trip.
    """
    b = boards.to(torch.int64)
    mine = b[:, 1:26].clamp(min=0)
    theirs = torch.cat([(-b[:, 1:25]).clamp(min=0).flip(1), b[:, :1]], dim=1)  # its own numbering, bar last
    my_left, their_left = mine.sum(1), theirs.sum(1)
    applies = ((mine[:, POINTS:].sum(1) == 0) & (theirs[:, POINTS:].sum(1) == 0) & (my_left > 0) & (their_left > 0)
               & (torch.maximum(my_left, their_left) <= tables.max_checkers))
    me = tables.index(torch.where(applies[:, None], mine[:, :POINTS], 0))
    opp = tables.index(torch.where(applies[:, None], theirs[:, :POINTS], 0))
    win = (tables.rolls[me] * tables.rolls_left[opp]).sum(1)
    exact = torch.maximum(my_left, their_left) <= tables.two_checkers
    pair = torch.where(exact, me * len(tables.p_win) + opp, 0)
    win = torch.where(exact, tables.p_win.flatten()[pair], win)
    win_gammon = torch.where(their_left == checkers, (tables.rolls[me] * tables.first_left[opp]).sum(1), 0.0)
    lose_gammon = torch.where(my_left == checkers, (tables.rolls[opp] * tables.first_after[me]).sum(1), 0.0)
    zero = torch.zeros_like(win)
    probs = torch.stack([win, win_gammon, zero, lose_gammon, zero], dim=1)
    return torch.where(applies[:, None], probs, 0.0), applies


def cumulative_probs(results: torch.Tensor) -> torch.Tensor:
    """engine.rules.outcomes.cumulative_probs: (N, 6) exclusive results -> (N, 5) gnubg probabilities."""
    w1, w2, w3, _, l2, l3 = results.unbind(1)
    return torch.stack([w1 + w2 + w3, w2 + w3, w3, l2 + l3, l3], dim=1)


def swap_sides(probs: torch.Tensor) -> torch.Tensor:
    """engine.rules.outcomes.swap_sides: the same (N, 5) probabilities seen by the other player."""
    win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = probs.unbind(1)
    return torch.stack([1 - win, lose_gammon, lose_backgammon, win_gammon, win_backgammon], dim=1)


def equity(probs: torch.Tensor) -> torch.Tensor:
    """engine.rules.outcomes.cubeless_equity: money equity of (N, 5) probabilities for their owner."""
    return 2 * probs[:, 0] - 1 + probs[:, 1] - probs[:, 3] + probs[:, 2] - probs[:, 4]


class DeviceAnalyst:
    """A net and the exact bear-off databases on one device: engine.search.bearoff.WithBearoff(NetEvaluator)
    in torch."""

    def __init__(self, model: ClassNets, variant: Variant, databases: Databases | None, device: torch.device):
        if not (plays_backgammon_board(variant) and variant.backgammons):
            raise GammonError(f"rollouts on the device play backgammon's board (standard, nackgammon, "
                              f"hypergammon); roll {variant.name} out on the host")
        self.model = copy.deepcopy(model).to(device).eval()  # the caller's net stays where it is
        self.variant = variant
        self.device = device
        self.tables = BearoffTables.of(databases, device) if databases is not None else None

    @classmethod
    def of(cls, evaluator, device: torch.device) -> DeviceAnalyst:
        """The analyst of a NetEvaluator or NumpyEvaluator, or of one wrapped in WithBearoff (its databases too)."""
        databases = None
        if isinstance(evaluator, WithBearoff):
            evaluator, databases = evaluator.evaluator, evaluator.databases
        if isinstance(evaluator, NumpyEvaluator):  # what commands load: its weights go back into torch
            return cls(torch_model(evaluator.model), evaluator.variant, databases, device)
        if not isinstance(evaluator, NetEvaluator):
            raise GammonError(f"rollouts on the device need a network; {evaluator.name} rolls out on the host")
        return cls(evaluator.net, evaluator.variant, databases, device)

    @torch.no_grad()
    def probabilities(self, boards: torch.Tensor) -> torch.Tensor:
        """(N, 5) float64 probabilities for the player on roll: the databases where they apply, else the net."""
        probs = cumulative_probs(torch.softmax(model_logits(self.model, boards), dim=-1).to(torch.float64))
        if self.tables is None:
            return probs
        exact, applies = bearoff_probabilities(boards, self.variant.checkers, self.tables)
        return torch.where(applies[:, None], exact, probs)

    def afterstate_equity(self, boards: torch.Tensor) -> torch.Tensor:
        """engine.search.evaluator.afterstate_equity: the mover's cubeless equity of each afterstate, float64 (a
        finished game exactly its points; the rest the opponent's view on roll, negated)."""
        points = result_points(boards, self.variant.checkers, self.variant.backgammons)
        return torch.where(points > 0, points.to(torch.float64), -equity(self.probabilities(flip(boards))))


def play_out(analyst: DeviceAnalyst, starts: torch.Tensor, first_dice: torch.Tensor, dice_rng: torch.Generator,
             truncate: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Play every game from ``starts`` (player 0 on roll, rolling ``first_dice``) to its end, or ``truncate`` turns.

    Returns (probs (G, 5) float64 for player 0: a finished game's result, a truncated game
    the evaluator's estimate, as engine.play.rollout does; truncated (G,) bool). Each ply moves
    only the games still going (their rows gathered: one host sync a ply for the count).
    """
    games = len(starts)
    boards = starts.to(torch.int8)
    points = torch.zeros(games, dtype=torch.int64, device=starts.device)  # for player 0; 0 while going
    on_roll = torch.zeros(games, dtype=torch.int64, device=starts.device)
    going = torch.arange(games, device=starts.device)
    dice = first_dice.to(torch.int8)
    turns = 0
    while len(going) and (truncate is None or turns < truncate):
        if turns:
            dice = torch.randint(1, 7, (games, 2), generator=dice_rng, device=starts.device, dtype=torch.int8)
        afterstates = generate(boards[going], dice[going], check=False, variant=analyst.variant)
        choice = best_in_groups(analyst.afterstate_equity(afterstates.boards), afterstates)
        after = afterstates.boards[choice]
        won = result_points(after, analyst.variant.checkers, analyst.variant.backgammons)
        points[going] = torch.where(on_roll[going] == 0, won, -won)
        boards[going] = flip(after)
        on_roll[going] = 1 - on_roll[going]
        going = going[won == 0]
        turns += 1
    decided = torch.stack([points > 0, points >= 2, points >= 3, points <= -2, points <= -3], dim=1)
    probs = decided.to(torch.float64)  # engine.rules.outcomes.outcome_probs
    truncated = points == 0
    if len(going):
        estimate = analyst.probabilities(boards[going])  # the player on roll's; player 0's when it is on roll
        probs[going] = torch.where((on_roll[going] == 1)[:, None], swap_sides(estimate), estimate)
    return probs, truncated


def rollout(analyst: DeviceAnalyst, board: np.ndarray, games: int = 1296, seed: int = 0, truncate: int | None = None,
            progress: Callable[[int], None] | None = None, chunk: int = CHUNK) -> RolloutResult:
    """engine.play.rollout.rollout on the device: ``board`` (player on roll) rolled out ``games`` times.

    Games run ``chunk`` at a time side by side; the dice come from one torch generator
    seeded with ``seed`` (same seed and device, same result); ``progress(n)`` is told of
    each n games done.
    """
    if games < 2:
        raise GammonError(f"a rollout needs at least 2 games; got {games}")
    if truncate is not None and truncate < 1:
        raise GammonError(f"--truncate must be at least 1 turn; got {truncate}")
    started = time.perf_counter()
    device = analyst.device
    dice_rng = torch.Generator(device=device)
    dice_rng.manual_seed(seed)
    start = torch.as_tensor(np.asarray(board), device=device).to(torch.int8)
    rolls = torch.from_numpy(ORDERED_ROLLS).to(device)
    per_game, truncated = [], 0
    for first in range(0, games, chunk):
        n = min(chunk, games - first)
        first_dice = rolls[(first + torch.arange(n, device=device)) % len(rolls)]
        probs, cut = play_out(analyst, start.repeat(n, 1), first_dice, dice_rng, truncate)
        per_game.append(probs.cpu().numpy())
        truncated += int(cut.sum())
        if progress:
            progress(n)
    probs = np.concatenate(per_game)
    mean, std_error = mean_and_error(cubeless_equity(probs))
    return RolloutResult(games, probs.mean(axis=0), mean, std_error, interval95(mean, std_error),
                         truncated, time.perf_counter() - started)
