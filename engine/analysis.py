"""Position analysis: n-ply evaluation, move ranking and money cube decisions.

Everything here takes an evaluator (see :mod:`engine.evaluator`) with ``probabilities``
and works on batches; nothing imports torch.

n-ply, as GNU Backgammon defines it: a position on roll at 0-ply is the evaluator's
own estimate; at n-ply it is the average over the 21 rolls of the move each roll would
play (chosen at 0-ply) evaluated at (n-1)-ply from the other side. Probabilities are
gnubg's five, for the player they belong to: P(win), P(win gammon), P(win backgammon),
P(lose gammon), P(lose backgammon); gammon figures include backgammons.

Cubeful money equities come from the cubeless probabilities by Janowski's model: a
live-cube equity (piecewise linear between take and cash points) mixed with the dead
cube equity by a cube-efficiency x (0.68 in contact positions; lower in races, where
the last rolls waste more of the cube's value).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .board import back_checkers, is_race, pip_counts
from .cube import Cube, CubeDecision, verdict
from .errors import GammonError
from .evaluator import ProbabilityEvaluator, rolls_again
from .game import best_in_groups, result_points
from .movegen import generate
from .probability import afterstate_probs, cubeless_equity, swap_sides
from .variants import MIRRORED, Geometry

# The 21 distinct rolls and their chances out of 36.
ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.int8)
ROLL_WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0, 2.0) / 36.0

# gnubg's default root move filter: keep up to 8 moves within 0.16 of the best at 0-ply.
FILTER_MOVES, FILTER_MARGIN = 8, 0.16

# Positions searched at once: each expands to about 400 afterstates a ply (21 rolls, ~20 plays).
# Small pieces keep every temporary array small enough for the allocator to reuse; larger ones
# are handed back to the system when freed and page-faulted in afresh, which cost as much time
# as the search itself (benchmarks/search.py: 2-ply of 100 contact positions 0.51x the time with 32 as with 1,024).
SEARCH_CHUNK = 32


def position_probs(evaluator: ProbabilityEvaluator, boards: np.ndarray, plies: int) -> np.ndarray:
    """(N, 5) probabilities for the player on roll of each board, evaluated at ``plies``."""
    boards = np.asarray(boards)
    if plies == 0 or len(boards) == 0:
        return np.asarray(evaluator.probabilities(boards), dtype=np.float64).reshape(len(boards), 5)
    if len(boards) > SEARCH_CHUNK:
        return np.concatenate([position_probs(evaluator, boards[i:i + SEARCH_CHUNK], plies)
                               for i in range(0, len(boards), SEARCH_CHUNK)])
    n = len(boards)
    afterstates = generate(np.repeat(boards, len(ROLLS), axis=0), np.tile(ROLLS, (n, 1)), check=False,
                           variant=evaluator.variant)
    again = rolls_again(afterstates)
    static = searched_afterstates(evaluator, afterstates.boards, 0, again)
    best = best_in_groups(cubeless_equity(static), afterstates.offsets)
    chosen = (static[best] if plies == 1
              else searched_afterstates(evaluator, afterstates.boards[best], plies - 1, again[best]))
    return (chosen.reshape(n, len(ROLLS), 5) * ROLL_WEIGHTS[None, :, None]).sum(axis=1)


def searched_afterstates(evaluator: ProbabilityEvaluator, boards: np.ndarray, plies: int,
                         extra_roll: np.ndarray | None = None) -> np.ndarray:
    """(M, 5) probabilities for the side that just moved, each afterstate searched ``plies`` deep
    (from the opponent on roll, or from the mover where ``extra_roll`` says he rolls again)."""
    return afterstate_probs(lambda on_roll: position_probs(evaluator, on_roll, plies), boards, evaluator.variant,
                            extra_roll)


# -- cube ---------------------------------------------------------------------------------


def cube_efficiency(boards: np.ndarray, geometry: Geometry = MIRRORED) -> np.ndarray:
    """Janowski's x for each position (player on roll), with gnubg's defaults: 0.68 in contact;
    0.6 when both sides are bearing off (every checker in its own home board, points 1..6 in
    its own numbering); in other races 0.55 + 0.00125 * pip count of the player on roll, kept
    within 0.6..0.7.

    ``geometry`` is the variant's: it places the opponent's checkers, so it decides which
    positions are races (:func:`engine.board.is_race`; on the rotated board of Fevga and
    Moultezim, both sides in their own last halves) and whose checkers are home.
    """
    b = np.asarray(boards)
    b = b.reshape(-1, b.shape[-1])  # 26 cells, or 28 with the checkers still to enter
    pips = pip_counts(b, geometry)[:, 0].astype(np.float64)
    bearing_off = (back_checkers(b, geometry) <= 6).all(axis=-1)
    race = np.where(bearing_off, 0.6, np.clip(0.55 + 0.00125 * pips, 0.6, 0.7))
    return np.where(is_race(b, geometry), race, 0.68)


def _average_win_loss(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Janowski's W and L: the points an average win and an average loss are worth (gammons included)."""
    p = np.asarray(probs, dtype=np.float64)
    win = np.clip(p[..., 0], 1e-9, 1 - 1e-9)
    big_w = 1.0 + (p[..., 1] + p[..., 2]) / win
    big_l = 1.0 + (p[..., 3] + p[..., 4]) / (1.0 - win)
    return big_w, big_l


def _live_cube_equity(probs: np.ndarray, owner: str, jacoby: bool) -> np.ndarray:
    """Equity with a perfectly efficient cube, per unit of the current cube (Janowski)."""
    big_w, big_l = _average_win_loss(probs)
    p = np.asarray(probs, dtype=np.float64)[..., 0]
    take = (big_l - 0.5) / (big_w + big_l + 0.5)
    cash = (big_l + 1.0) / (big_w + big_l + 0.5)
    if owner == "centered":
        low = -np.ones_like(p) if jacoby else -big_l + (big_l - 1.0) * p / take
        high = np.ones_like(p) if jacoby else 1.0 + (big_w - 1.0) * (p - cash) / (1.0 - cash)
        middle = -1.0 + 2.0 * (p - take) / (cash - take)
        return np.where(p < take, low, np.where(p < cash, middle, high))
    if owner == "me":
        return np.where(p < cash, -big_l + (1.0 + big_l) * p / cash, 1.0 + (big_w - 1.0) * (p - cash) / (1.0 - cash))
    return np.where(p < take, -big_l + (big_l - 1.0) * p / take, -1.0 + (big_w + 1.0) * (p - take) / (1.0 - take))


def cubeful_equity(probs: np.ndarray, cube: Cube, x: np.ndarray | float) -> np.ndarray:
    """Money equity for the player on roll, per unit stake, given the cube (Janowski's model)."""
    p = np.asarray(probs, dtype=np.float64)
    dead = cubeless_equity(p)
    if cube.jacoby and cube.owner == "centered":
        dead = 2.0 * p[..., 0] - 1.0  # gammons count single on a centered cube
    return cube.value * ((1.0 - x) * dead + x * _live_cube_equity(p, cube.owner, cube.jacoby))


def cubeful_on_roll(probs: np.ndarray, boards: np.ndarray, cube: Cube, geometry: Geometry) -> np.ndarray:
    """Cubeful equity per unit of the cube (EMG in a match) of the player on roll in ``boards`` (a board of
    the variant with ``geometry``), the cube left where it is."""
    x = cube_efficiency(boards, geometry=geometry)
    if cube.money:
        return cubeful_equity(probs, cube, x) / cube.value
    from .match import cubeful_mwc, to_emg  # match builds on this module

    return to_emg(cubeful_mwc(probs, cube, x), cube)


def money_cube_equities(probs: np.ndarray, owner_me: np.ndarray, x, jacoby: bool = False):
    """(no double, double/take) money equities per unit of the current cube, batched.

    ``owner_me`` says per position whether the player on roll owns the cube (else it is
    centered); double/pass is always +1.
    """
    p = np.asarray(probs, dtype=np.float64).reshape(-1, 5)
    centered = cubeful_equity(p, Cube(owner="centered", jacoby=jacoby), x)
    owned = cubeful_equity(p, Cube(owner="me"), x)
    return np.where(owner_me, owned, centered), cubeful_equity(p, Cube(2, "opponent"), x)


def money_cube_decision(probs: np.ndarray, cube: Cube, x: float) -> CubeDecision:
    """Money cube action for the player on roll with cubeless ``probs`` (5,) and cube efficiency ``x``."""
    if cube.owner == "opponent":
        raise GammonError("the player on roll cannot double: the opponent owns the cube")
    p = np.asarray(probs, dtype=np.float64)
    nd, dt = money_cube_equities(p, np.array([cube.owner == "me"]), x, cube.jacoby)
    no_double, double_take, double_pass = float(nd[0]), float(dt[0]), 1.0
    action, response, words = verdict(no_double, double_take, double_pass, cube)
    big_w, big_l = _average_win_loss(swap_sides(p))  # the taker's average win and loss
    take_point = float((big_l - 0.5) / (big_w + big_l + 0.5 * x))
    return CubeDecision(no_double, double_take, double_pass, action, response, words, take_point)


# -- moves ---------------------------------------------------------------------------------


def filter_leaders(equity: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Indices of each group's 0-ply leaders: up to FILTER_MOVES within FILTER_MARGIN of its best."""
    group = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    order = np.lexsort((-equity, group))  # by group, best first
    rank = np.arange(len(order)) - offsets[group[order]]
    best = equity[order[offsets[:-1]]]
    chosen = (rank < FILTER_MOVES) & (equity[order] >= best[group[order]] - FILTER_MARGIN)
    return np.sort(order[chosen])


def ply_policy(evaluator: ProbabilityEvaluator, plies: int):
    """A move policy (see engine.game) choosing by cubeless equity at ``plies``, batched over games."""

    def choose(afterstates) -> np.ndarray:
        again = rolls_again(afterstates)
        equity = cubeless_equity(searched_afterstates(evaluator, afterstates.boards, 0, again))
        if plies > 0:
            keep = filter_leaders(equity, afterstates.offsets)
            deep = np.full(len(equity), -np.inf)
            deep[keep] = cubeless_equity(searched_afterstates(evaluator, afterstates.boards[keep], plies, again[keep]))
            equity = deep
        return best_in_groups(equity, afterstates.offsets)

    return choose


@dataclass(frozen=True)
class RankedMove:
    board: np.ndarray  # the afterstate, mover's view
    steps: np.ndarray
    probs: np.ndarray  # (5,) for the mover
    equity: float  # cubeless
    cubeful: float  # money, per unit cube, opponent on roll after the move (the mover, if he rolls again)
    plies: int  # depth this move was evaluated at
    rolls_again: bool = False  # a wild roll's play: the mover rolls again (Acey-Deucey's 1-2)


def rank_moves(evaluator: ProbabilityEvaluator, board: np.ndarray, dice, plies: int = 0,
               cube: Cube = Cube(), also: np.ndarray | None = None) -> list[RankedMove]:
    """Every legal play of ``dice``, best first.

    Plays are valued by cubeful equity per unit of the cube: money equity, or at a match
    score the match equity each play leads to, in EMG (:func:`engine.match.match_play_values`),
    so that gammons are priced at the score. As gnubg's move filter does, the choice is
    made among the moves searched deepest:
    they come first, by cubeful equity, and the moves the filter left at 0-ply follow
    them (by their 0-ply figures), never ranked above a searched move. ``also`` (an
    afterstate, e.g. the move a player chose) is searched deep whatever the filter says.
    """
    afterstates = generate(np.asarray(board)[None], np.asarray(dice)[None], variant=evaluator.variant)
    again = rolls_again(afterstates)
    probs = searched_afterstates(evaluator, afterstates.boards, 0, again)
    depth = np.zeros(len(probs), dtype=int)
    if plies > 0:
        keep = filter_leaders(cubeless_equity(probs), afterstates.offsets)
        if also is not None:
            keep = np.union1d(keep, np.flatnonzero((afterstates.boards == np.asarray(also)).all(axis=1)))
        probs[keep] = searched_afterstates(evaluator, afterstates.boards[keep], plies, again[keep])
        depth[keep] = plies
    equity = cubeless_equity(probs)
    won = result_points(afterstates.boards, evaluator.variant.checkers, evaluator.variant.backgammons)
    geometry = evaluator.variant.geometry
    if cube.money:
        x = cube_efficiency(geometry.flip(afterstates.boards), geometry=geometry)
        cubeful = -cubeful_equity(swap_sides(probs), cube.swapped(), x) / cube.value
        if cube.jacoby and cube.owner == "centered":
            won = np.minimum(won, 1)  # gammons count single on a centered cube
        cubeful = np.where(won > 0, won, cubeful)
    else:
        from .match import match_play_values  # match builds on this module

        cubeful = match_play_values(probs, afterstates.boards, cube, evaluator.variant)
    rolling = again & (won == 0)
    if rolling.any():  # the mover rolls again: still his turn, his cube as it stands
        cubeful[rolling] = cubeful_on_roll(probs[rolling], afterstates.boards[rolling], cube, geometry)
    order = np.lexsort((-equity, -cubeful, -depth))  # deepest searched first, then best cubeful
    return [
        RankedMove(afterstates.boards[k], afterstates.steps[k], probs[k], float(equity[k]), float(cubeful[k]),
                   int(depth[k]), bool(again[k]))
        for k in order
    ]
