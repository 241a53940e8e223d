"""Cube-aware players and series of games with the cube, batched (docs/rules.md).

The games themselves are :func:`engine.game.play`, the one game loop; the cube rules
(access, take, pass, beavers, redoubles, Jacoby, automatic doubles, Crawford) are
applied there. A player here has a move ``policy`` (see :mod:`engine.game`) and two
cube methods, ``doubles(boards, cubes) -> bool`` for the player on roll and
``answers(boards, cubes) -> 0 pass / 1 take / 2 beaver`` for the player doubled, where
``boards`` are always seen from the player on roll (the doubler) and ``cubes`` is the
list of their :class:`engine.cube.Cube` as the doubler sees it, one per row.
"""

from __future__ import annotations

import numpy as np

from .cube import TAKE, Cube, cube_actions
from .errors import GammonError
from .game import Rules, play
from .probability import cubeless_equity


class EvaluatorPlayer:
    """A cube-aware player from an evaluator: moves at ``move_plies``; the cube at ``cube_plies``
    by Janowski's model in money play, or with the match equity table (engine/match.py) in matches.

    Evaluators without probabilities (pubeval, heuristic, random) never double and
    always take.
    """

    def __init__(self, evaluator, cube_plies: int = 0, move_plies: int = 0):
        from .analysis import ply_policy
        from .evaluator import evaluator_policy

        self.evaluator = evaluator
        self.name = getattr(evaluator, "name", "player")
        self.has_probabilities = hasattr(evaluator, "probabilities")
        if move_plies and not self.has_probabilities:
            raise GammonError(f"{self.name} cannot search ahead: it has no probability estimates")
        self.policy = ply_policy(evaluator, move_plies) if move_plies else evaluator_policy(evaluator)
        self.wild_filter = getattr(self.policy, "wild_filter", None)
        self.cube_plies = cube_plies

    def _decisions(self, boards: np.ndarray, cubes: list[Cube]):
        """(doubles, answer, double/take) for each row: money rows batched (Janowski), match rows one by one (MET)."""
        from .analysis import cube_efficiency, money_cube_equities, position_probs
        from .match import cube_decision

        probs = position_probs(self.evaluator, boards, self.cube_plies)
        x = cube_efficiency(boards, geometry=self.evaluator.variant.geometry)
        if cubes[0].money:
            owned = np.array([c.owner == "me" for c in cubes])
            no_double, double_take = money_cube_equities(probs, owned, x, cubes[0].jacoby)
            doubles, answer = cube_actions(no_double, double_take, 1.0, cubes[0].beavers)
            return doubles, answer, double_take
        decisions = [cube_decision(p, c, float(xi)) for p, xi, c in zip(probs, x, cubes)]
        no_double, double_take = (np.array([getattr(d, k) for d in decisions]) for k in ("no_double", "double_take"))
        _, answer = cube_actions(no_double, double_take, 1.0)  # double/pass is +1 in EMG too
        return np.array([d.action == "double" for d in decisions]), answer, double_take

    def doubles(self, boards: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        if not self.has_probabilities:
            return np.zeros(len(boards), dtype=bool)
        return self._decisions(boards, cubes)[0]

    def accepts_beaver(self, boards: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        """The doubler (on roll) facing a beaver: play on for twice the cube, or pay the cube."""
        if not self.has_probabilities:
            return np.ones(len(boards), dtype=bool)
        return self._decisions(boards, cubes)[2] >= -1.0

    def answers(self, boards: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        if not self.has_probabilities:
            return np.full(len(boards), TAKE)
        return self._decisions(boards, cubes)[1]

    def accepts_resignation(self, boards: np.ndarray, cubes: list[Cube], offered: np.ndarray) -> np.ndarray:
        """Accept when the offer (points per cube unit) is at least what this player expects to win
        from the resigner's position (``boards``, resigner on roll): cubeless, 0-ply."""
        if not self.has_probabilities:
            return np.ones(len(boards), dtype=bool)
        from .analysis import position_probs

        expected = -cubeless_equity(position_probs(self.evaluator, boards, 0))
        return np.asarray(offered) >= expected


def duplicate_series(player_a, player_b, n: int, seed: int = 0, rules: Rules = Rules(), chunk: int = 500,
                     progress=None, watch=None) -> dict:
    """A against B over ``n`` money games or matches (even), duplicate dice, from A's side.

    Each dice stream is played twice with the seats swapped; the 95% CI is over those
    pairs. Games run in chunks of ``chunk`` slots; ``progress(k)`` hears of each k done.
    ``watch`` hears the events of the first chunk with A seated first (see :func:`play`).
    """
    if n < 4 or n % 2:
        raise GammonError(f"duplicate play comes in pairs: n must be even and >= 4; got {n}")
    half = n // 2
    a_results, turns, passes, games = [], 0, 0, 0
    for first in range(0, half, chunk):
        size = min(chunk, half - first)
        runs = [play(pair, size, seed=seed * 1_000_003 + first, rules=rules,
                     watch=watch if (first, seat) == (0, 0) else None)
                for seat, pair in enumerate(((player_a, player_b), (player_b, player_a)))]
        if rules.match_length:
            a_results.append(((runs[0].winner == 0).astype(float) + (runs[1].winner == 1)) / 2)
        else:
            a_results.append((runs[0].points - runs[1].points) / 2.0)
        turns += runs[0].cube_turns + runs[1].cube_turns
        passes += runs[0].passes + runs[1].passes
        games += int(runs[0].games.sum() + runs[1].games.sum())
        if progress:
            progress(2 * size)
    pairs = np.concatenate(a_results)
    mean = float(pairs.mean())
    half_width = 1.96 * float(pairs.std(ddof=1)) / np.sqrt(len(pairs))
    key = "match_win_rate" if rules.match_length else "ppg"
    return {key: mean, "ci95": [mean - half_width, mean + half_width], "n": n, "games": games,
            "doubles": turns, "passes": passes, "match_length": rules.match_length}
