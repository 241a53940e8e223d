"""Money play's cube: Janowski's model of cubeful equity and the money cube decision, batched.

Cubeful money equities come from the cubeless probabilities by Janowski's model: a
live-cube equity (piecewise linear between take and cash points) mixed with the dead
cube equity by a cube-efficiency x (0.68 in contact positions; lower in races, where
the last rolls waste more of the cube's value). Probabilities are gnubg's five for the
player on roll (:mod:`engine.rules.outcomes`).
"""

from __future__ import annotations

import numpy as np

from gammon.engine.cube.state import Cube, CubeDecision, verdict
from gammon.engine.errors import GammonError
from gammon.engine.rules.board import back_of, mover_counts, pips_of, race_of_back_checkers
from gammon.engine.rules.outcomes import cubeless_equity, swap_sides
from gammon.engine.rules.variants import MIRRORED, Geometry


def cube_efficiency(boards: np.ndarray, geometry: Geometry = MIRRORED) -> np.ndarray:
    """Janowski's x for each position (player on roll), with gnubg's defaults: 0.68 in contact;
    0.6 when both sides are bearing off (every checker in its own home board, points 1..6 in
    its own numbering); in other races 0.55 + 0.00125 * pip count of the player on roll, kept
    within 0.6..0.7.

    ``geometry`` is the variant's: it places the opponent's checkers, so it decides which
    positions are races (:func:`engine.rules.board.is_race`; on the rotated board of Fevga and
    Moultezim, both sides in their own last halves) and whose checkers are home.
    """
    b = np.asarray(boards)
    b = b.reshape(-1, b.shape[-1])  # 26 cells, or 28 with the checkers still to enter
    mine, theirs = mover_counts(b), geometry.opponent_counts(b)  # once: every hint values its plays here
    back = back_of(mine, theirs)
    bearing_off = (back <= 6).all(axis=-1)
    race = np.where(bearing_off, 0.6, np.clip(0.55 + 0.00125 * pips_of(mine).astype(np.float64), 0.6, 0.7))
    return np.where(race_of_back_checkers(back, geometry), race, 0.68)


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
