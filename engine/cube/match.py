"""Match play: cube decisions and cubeful match winning chances at a match score.

Match winning chances (MWC) come from the Kazaross-XG2 table, continued past 25-away (:mod:`engine.cube.met`); the
score, the cube and the Crawford game are a :class:`engine.cube.state.Cube` with ``away`` set.
Cube decisions follow gnubg's 0-ply match
model (eval.c, matchequity.c): the cubeless probabilities give a dead-cube MWC (each
result weighted by the MWC at the score it leads to) and a live-cube MWC (piecewise
linear in P(win) between the MWCs of losing everything, being cashed, cashing and
winning everything, with cash points found from the MET and the gammon rates); the two
are mixed by the cube efficiency x, as Janowski's model does for money. Equities are
also given in gnubg's normalized units (EMG): the MWC rescaled so that winning the
current cube is +1 and losing it is -1, which makes double/pass exactly +1.

Probabilities are gnubg's five for the player on roll (P(win), P(win gammon), P(win
backgammon), P(lose gammon), P(lose backgammon); gammons include backgammons).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gammon.engine.cube.money import cube_efficiency
from gammon.engine.cube.state import Cube, CubeDecision, verdict
from gammon.engine.errors import GammonError
from gammon.engine.rules.outcomes import exclusive_results, result_points, swap_sides
from gammon.engine.rules.variants import Variant

# -- outcomes and dead-cube match winning chances ---------------------------------------


def _result_mwcs(score: Cube) -> np.ndarray:
    """(6,) my MWC after each result of ``exclusive_results`` (times the current cube)."""
    return np.array([score.after(k * score.value) for k in (1, 2, 3, -1, -2, -3)])


def match_equity_of_probs(probs: np.ndarray, score: Cube) -> np.ndarray:
    """Cubeless (dead cube) MWC of the player on roll: each result at the score it leads to."""
    return exclusive_results(probs) @ _result_mwcs(score)


def to_emg(mwc: np.ndarray | float, score: Cube) -> np.ndarray:
    """gnubg's normalized equity: MWC rescaled so losing the cube is -1 and winning it +1."""
    win, lose = score.after(score.value), score.after(-score.value)
    return (2.0 * np.asarray(mwc) - (win + lose)) / (win - lose)


def from_emg(emg: np.ndarray | float, score: Cube) -> np.ndarray:
    """The MWC an equity in EMG (:func:`to_emg`) at ``score`` stands for."""
    win, lose = score.after(score.value), score.after(-score.value)
    return (win + lose + np.asarray(emg) * (win - lose)) / 2


# -- live cube (gnubg's generalisation of Janowski to match play) -----------------------


def _gammon_ratios(probs: np.ndarray) -> np.ndarray:
    """(..., 2, 3) share of single, gammon-only and backgammon wins, for me (0) and the opponent (1).

    A player who cannot win gets single wins only (gnubg's guard against 0/0)."""
    p = np.asarray(probs, dtype=np.float64)
    out = []
    for chance, g, bg in ((p[..., 0], p[..., 1], p[..., 2]), (1.0 - p[..., 0], p[..., 3], p[..., 4])):
        safe = np.where(chance > 0.0, chance, 1.0)
        gammon = np.where(chance > 0.0, (g - bg) / safe, 0.0)
        backgammon = np.where(chance > 0.0, bg / safe, 0.0)
        out.append(np.stack([1.0 - gammon - backgammon, gammon, backgammon], axis=-1))
    return np.stack(out, axis=-2)


def _won(score: Cube, side: int, points: int) -> float:
    """MWC of ``side`` (0 me, 1 opponent) when that side wins ``points``."""
    return score.after(points) if side == 0 else 1.0 - score.after(-points)


def _lost(score: Cube, side: int, points: int) -> float:
    """MWC of ``side`` when the other side wins ``points``."""
    return score.after(-points) if side == 0 else 1.0 - score.after(points)


def _mix(ratios: np.ndarray, values: np.ndarray | list[float]) -> np.ndarray:
    """Weight the MWCs of a single, gammon and backgammon result by their shares."""
    return ratios @ np.asarray(values)


def _cash_points(probs: np.ndarray, score: Cube) -> tuple[np.ndarray, np.ndarray]:
    """Live-cube cash points (P(win) of the player cashing) for me and for the opponent.

    gnubg's GetPoints: start from the highest cube level whose double would leave a dead
    cube (one side then wins the match with it); there the cash point is the dead-cube
    one, counting the automatic redouble of a player far from the end. Below it, a
    player cashes where the opponent, taking, would sit exactly at their own cash point
    one level up (the taker's equity is linear from losing the doubled cube, gammons
    included, to cashing it).
    """
    ratios = _gammon_ratios(probs)
    room = (score.my_away - 1, score.opp_away - 1)  # gnubg's normalized score
    top = score.value
    while min(room) >= 2 * top:
        top *= 2
    cash: dict[tuple[int, int], np.ndarray] = {}
    level = top
    while level >= score.value:
        for side, other in ((0, 1), (1, 0)):
            if min(room) < 2 * level:  # the doubled cube is dead
                auto = room[side] < 2 * level <= room[other]  # the taker redoubles for free
                c = 4 * level if auto else 2 * level
                take_lose = _mix(ratios[..., other, :], [_lost(score, side, k * c) for k in (1, 2, 3)])
                take_win = _mix(ratios[..., side, :], [_won(score, side, k * c) for k in (1, 2, 3)])
                cashed = _won(score, side, level)
                cash[side, level] = (take_lose - cashed) / (take_lose - take_win)
            else:
                redouble_pass = _lost(score, side, 2 * level)
                take_win = _mix(ratios[..., side, :], [_won(score, side, k * 2 * level) for k in (1, 2, 3)])
                cashed = _won(score, side, level)
                cash[side, level] = 1.0 - cash[other, 2 * level] * (cashed - take_win) / (redouble_pass - take_win)
        level //= 2
    return cash[0, score.value], cash[1, score.value]


def _lerp(x0, y0, x1, y1, x):
    """The line through (x0, y0) and (x1, y1) at x; y0 where the segment has no width."""
    width = np.asarray(x1 - x0, dtype=np.float64)
    t = np.divide(x - x0, width, out=np.zeros(np.broadcast(x, width).shape), where=width != 0)
    return y0 + (y1 - y0) * t


def cube_is_live(score: Cube) -> bool:
    """Whether the cube can still change hands in this game (gnubg's fDoCubeful): not in
    the Crawford game, not when the cube already covers both players' needs, and not at
    2-away/2-away, where the first double kills the cube anyway."""
    dead = score.my_away <= score.value and score.opp_away <= score.value
    return not (dead or score.crawford or score.my_away == score.opp_away == 2)


def cubeful_mwc(probs: np.ndarray, score: Cube, x: float | np.ndarray) -> np.ndarray:
    """MWC of the player on roll with the cube as in ``score``: (1 - x) dead + x live."""
    p = np.asarray(probs, dtype=np.float64)
    dead = match_equity_of_probs(p, score)
    if not cube_is_live(score):
        return dead
    ratios = _gammon_ratios(p)
    win = p[..., 0]
    results = _result_mwcs(score)
    everything_won = _mix(ratios[..., 0, :], results[:3])
    everything_lost = _mix(ratios[..., 1, :], results[3:])
    i_cash, they_cash = results[0], results[3]
    my_cash_point, their_cash_point = _cash_points(p, score)
    they_cash_below = 1.0 - their_cash_point  # my P(win) under which the opponent cashes
    losing = _lerp(0.0, everything_lost, they_cash_below, they_cash, win)
    winning = _lerp(my_cash_point, i_cash, 1.0, everything_won, win)
    if score.owner == "centered":
        window = _lerp(they_cash_below, they_cash, my_cash_point, i_cash, win)
        live = np.where(win <= they_cash_below, losing, np.where(win < my_cash_point, window, winning))
    elif score.owner == "me":
        live = np.where(win <= my_cash_point, _lerp(0.0, everything_lost, my_cash_point, i_cash, win), winning)
    else:
        live = np.where(win <= they_cash_below, losing, _lerp(they_cash_below, they_cash, 1.0, everything_won, win))
    return (1.0 - x) * dead + x * live


def match_play_values(probs: np.ndarray, boards: np.ndarray, score: Cube, variant: Variant) -> np.ndarray:
    """Each afterstate's cubeful match equity for the player who just moved, in EMG: the opponent then on
    roll with the cube as it stands (:func:`cubeful_mwc`), or the score a finished game leads to.

    ``probs`` (N, 5) are the afterstates' probabilities for the mover, ``score`` the mover's cube,
    ``variant`` the game (how the board turns round, how a finished game scores).
    """
    x = cube_efficiency(variant.geometry.flip(boards), geometry=variant.geometry)
    mine = 1.0 - cubeful_mwc(swap_sides(probs), score.swapped(), x)
    won = result_points(boards, variant.checkers, variant.backgammons)
    finished = np.array([score.after(points * score.value) for points in range(4)])[won]  # 0 (unused) to 3 points
    return to_emg(np.where(won > 0, finished, mine), score)


# -- cube decisions -----------------------------------------------------------------------


def can_double(score: Cube) -> bool:
    """Whether doubling can gain anything (gnubg's GetDPEq): not in the Crawford game, not
    with the opponent's cube, and not when the current cube already wins me the match."""
    return not score.crawford and score.owner != "opponent" and score.my_away > score.value


@dataclass(frozen=True)
class MatchCubeDecision(CubeDecision):
    """A cube decision at a match score: the equities in EMG (gnubg's normalized units,
    double/pass = +1) and the same three as match winning chances."""

    mwc_no_double: float
    mwc_double_take: float
    mwc_double_pass: float


def _take_point(probs: np.ndarray, score: Cube, x: float) -> float:
    """The taker's cubeless winning chance at which taking and passing are equal, with this
    position's gammon shares held fixed: the root of double/take MWC (piecewise linear in
    P(win), one kink where the taker would cash) minus double/pass MWC."""
    shares = _gammon_ratios(probs)
    taken = score.doubled()

    def probs_at(win: float) -> np.ndarray:
        mine, theirs = shares[0], shares[1]
        gammons = (win * (mine[1] + mine[2]), win * mine[2], (1 - win) * (theirs[1] + theirs[2]), (1 - win) * theirs[2])
        return np.array([win, *gammons])

    kink = 1.0 - float(_cash_points(probs_at(0.5), taken)[1]) if cube_is_live(taken) else 0.5
    wins = sorted({0.0, min(max(kink, 0.0), 1.0), 1.0})
    gaps = [float(cubeful_mwc(probs_at(w), taken, x)) - score.after(score.value) for w in wins]
    for (w0, g0), (w1, g1) in zip(zip(wins, gaps), zip(wins[1:], gaps[1:])):
        if g0 <= 0.0 <= g1 and g1 > g0:
            return 1.0 - (w0 + (w1 - w0) * -g0 / (g1 - g0))
    return 0.0  # passing never beats taking: the double gains the doubler nothing


def match_cube_decision(probs: np.ndarray, score: Cube, x: float) -> MatchCubeDecision:
    """Cube action for the player on roll at a match score, with cubeless ``probs`` (5,)
    and cube efficiency ``x`` (see engine.cube.money.cube_efficiency).

    Where doubling cannot help (the Crawford game, a cube that already wins me the match,
    the post-Crawford leader) the verdict is gnubg's "Never double, take (dead cube)";
    the double/take figures are still those of a cube turned anyway.
    """
    if score.owner == "opponent":
        raise GammonError("the player on roll cannot double: the opponent owns the cube")
    p = np.asarray(probs, dtype=np.float64)
    mwc = (float(cubeful_mwc(p, score, x)), float(cubeful_mwc(p, score.doubled(), x)), score.after(score.value))
    emg = (float(to_emg(mwc[0], score)), float(to_emg(mwc[1], score)), 1.0)  # a pass wins the cube: +1 exactly
    if can_double(score):
        action, response, words = verdict(*emg, score)
    else:
        word = "redouble" if score.owner == "me" else "double"
        action, response, words = "no_double", "take", f"Never {word}, take (dead cube)"
    return MatchCubeDecision(*emg, action, response, words, _take_point(p, score, x), *mwc)
