"""Player A against player B with duplicate dice: money games (cubeless or with the cube) or matches.

Each dice stream is played twice with the seats swapped, so luck largely cancels inside a
pair; the 95% interval treats each pair as one sample (its mean). With a ``luck`` judge (an
evaluator with probabilities, cubeless money games) every roll's luck is judged by it and the
results less the luck give a second, unbiased estimate with a narrower interval
(:mod:`engine.play.luck`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from gammon.engine.errors import GammonError
from gammon.engine.play.game import GameEvent, Rules, play
from gammon.engine.play.luck import games_luck
from gammon.engine.play.players import Player
from gammon.engine.play.stats import mean_ci95, share_ci95

CHUNK_SEED = 1_000_003  # chunk k of a chunked duel plays seed * CHUNK_SEED + its first slot


@dataclass
class DuelStats:
    """Results of player A against player B, from A's side."""

    n: int  # money games or matches played (duplicate pairs, so even)
    games: int  # games played (more than ``n`` in matches)
    match_length: int  # 0 in money play
    mean: float  # points per game, or the share of matches won
    ci95: tuple[float, float]  # 95% confidence interval of ``mean`` (over pairs; Wilson's over matches)
    doubles: int = 0  # doubles offered
    passes: int = 0  # doubles passed
    # cubeless money games: A's wins, and A's wins and losses that are gammons or backgammons, per game
    win_rate: float | None = None
    gammon_rate: float | None = None
    backgammon_rate: float | None = None
    lose_gammon_rate: float | None = None
    lose_backgammon_rate: float | None = None
    luck_adjusted_ppg: float | None = None  # ppg less the luck of the rolls, when a judge was given
    luck_adjusted_ci95: tuple[float, float] | None = None

    @property
    def ppg(self) -> float:
        return self.mean

    def as_dict(self) -> dict:
        mean = "ppg" if not self.match_length else "match_win_rate"
        out = {mean if key == "mean" else key: value for key, value in asdict(self).items()}
        out["ci95"] = list(self.ci95)
        if self.luck_adjusted_ci95 is not None:
            out["luck_adjusted_ci95"] = list(self.luck_adjusted_ci95)
        return out


def duel(player_a: Player, player_b: Player, n: int, seed: int = 0, rules: Rules = Rules(), chunk: int | None = None,
         progress: Callable[[int], None] | None = None, watch: Callable[[GameEvent], None] | None = None,
         luck=None, luck_progress: Callable[[int], None] | None = None) -> DuelStats:
    """A against B over ``n`` (even) money games, or matches when ``rules.match_length``, with duplicate dice.

    All slots play at once from ``seed``, or ``chunk`` at a time, the chunk starting at slot ``k``
    from ``seed * CHUNK_SEED + k``. ``progress(k)`` hears of every k games (matches) finished;
    ``watch`` the events of the first chunk with A seated first (:func:`engine.play.game.play`).
    ``luck`` (cubeless money games) judges every roll; ``luck_progress(k)`` hears of every k judged.
    """
    if n < 4 or n % 2:
        raise GammonError(f"duplicate play comes in pairs: n must be even and >= 4; got {n}")
    matches = bool(rules.match_length)
    if luck is not None and (matches or player_a.doubling or player_b.doubling):
        raise GammonError("luck adjusts cubeless money games: play them without the cube and without --length")
    half = n // 2
    pairs, adjusted, points = [], [], []
    doubles = passes = games = 0
    for first in range(0, half, chunk or half):
        size = min(chunk or half, half - first)
        runs = [play(pair, size, seed=seed if chunk is None else seed * CHUNK_SEED + first, rules=rules,
                     record=luck is not None, progress=None if matches else progress,
                     watch=watch if (first, seat) == (0, 0) else None)
                for seat, pair in enumerate(((player_a, player_b), (player_b, player_a)))]
        if matches:
            pairs.append(((runs[0].winner == 0).astype(float) + (runs[1].winner == 1)) / 2)
            if progress:
                progress(2 * size)
        else:
            a_first, a_second = runs[0].points, -runs[1].points
            pairs.append((a_first + a_second) / 2.0)
            points += [a_first, a_second]
            if luck is not None:
                a_luck = games_luck(luck, runs[0].records, luck_progress) - games_luck(luck, runs[1].records,
                                                                                       luck_progress)
                adjusted.append((a_first + a_second - a_luck) / 2.0)
        doubles += runs[0].cube_turns + runs[1].cube_turns
        passes += runs[0].passes + runs[1].passes
        games += int(runs[0].games.sum() + runs[1].games.sum())
    if matches:  # a share of matches won: Wilson's interval over the matches, inside 0..1
        mean = float(np.concatenate(pairs).mean())
        ci95 = share_ci95(mean * n, n)
    else:
        mean, ci95 = mean_ci95(np.concatenate(pairs))
    stats = DuelStats(n, games, rules.match_length, mean, ci95, doubles, passes)
    if not matches and not (player_a.doubling or player_b.doubling):
        won = np.concatenate(points).astype(np.float64)
        stats.win_rate, stats.gammon_rate, stats.backgammon_rate = (float((won >= k).mean()) for k in (1, 2, 3))
        stats.lose_gammon_rate, stats.lose_backgammon_rate = (float((won <= -k).mean()) for k in (2, 3))
    if adjusted:
        stats.luck_adjusted_ppg, stats.luck_adjusted_ci95 = mean_ci95(np.concatenate(adjusted))
    return stats
