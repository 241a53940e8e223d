"""Variance reduction in rollouts: how much narrower, at what cost, and whether the mean stays put.

    python -m gammon.benchmarks.rollout_vr                 # the opening and 5 contact positions
    python -m gammon.benchmarks.rollout_vr --positions 20 --games 1296 --plain-games 5184 --json
    python -m gammon.benchmarks.rollout_vr --cubeful       # money games with the cube (gammon rollout --cubeful --vr)

For each position (the opening for the player on roll, then contact positions of
``benchmarks/data/thinking_positions.jsonl``, our own self-play's) the shipped model rolls it
out to the end twice with the same seed, cubeless (or with ``--cubeful``
money games, the cube centered): plainly for ``--plain-games`` games and
variance-reduced (``gammon rollout --vr``) for ``--games``. Reported: each one's equity, 95%
half-width and time; the half-width ratio scaled to the same number of games; the time a game
costs; and z, the difference of the two means over their combined standard error (below 2 for
19 positions in 20 when the reduced mean is unbiased).
"""

from __future__ import annotations

import argparse
import json
import math

from gammon.benchmarks.thinking import POSITIONS
from gammon.engine.play.rollout import cubeful_rollout, rollout
from gammon.engine.records.formats import board_from_position_id
from gammon.models.players import load_analyst

OPENING = "4HPwATDgc/ABMA"


def measure(evaluator, position: str, games: int, plain_games: int, seed: int, cubeful: bool = False) -> dict:
    board = board_from_position_id(position)
    roll_out = cubeful_rollout if cubeful else rollout
    plain = roll_out(evaluator, board, games=plain_games, seed=seed)
    reduced = roll_out(evaluator, board, games=games, seed=seed, reduce_variance=True)
    half = {name: (r.ci95[1] - r.ci95[0]) / 2 for name, r in (("plain", plain), ("vr", reduced))}
    plain_at_games = half["plain"] * math.sqrt(plain_games / games)  # the plain half-width at ``games`` games
    return {"position_id": position, "plain": plain.equity, "plain_half_width": half["plain"], "vr": reduced.equity,
            "vr_half_width": half["vr"], "narrower_at_same_games": plain_at_games / half["vr"],
            "cost_per_game": (reduced.seconds / games) / (plain.seconds / plain_games),
            "z": (reduced.equity - plain.equity) / math.hypot(reduced.std_error, plain.std_error),
            "vr_seconds": reduced.seconds, "plain_seconds": plain.seconds}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=5, help="contact positions after the opening (default 5)")
    parser.add_argument("--games", type=int, default=1296, help="variance-reduced games a position (default 1296)")
    parser.add_argument("--plain-games", type=int, default=5184, help="plain games a position (default 5184)")
    parser.add_argument("--seed", type=int, default=11, help="dice seed of both rollouts (default 11)")
    parser.add_argument("--cubeful", action="store_true", help="money games with the cube, centered at the start")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON Lines")
    args = parser.parse_args(argv)
    evaluator = load_analyst("default")
    contact = [json.loads(line)["position_id"] for line in POSITIONS.read_text().splitlines()[: args.positions]]
    for position in [OPENING, *contact]:
        row = measure(evaluator, position, args.games, args.plain_games, args.seed, args.cubeful)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print(f"{position}  plain {row['plain']:+.3f} ± {row['plain_half_width']:.3f}  "
                  f"vr {row['vr']:+.3f} ± {row['vr_half_width']:.3f}  {row['narrower_at_same_games']:.1f}x narrower "
                  f"at {args.games} games, {row['cost_per_game']:.0f}x the time a game, z {row['z']:+.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
