"""Calibration: a model's 0-ply probabilities against rollouts of its own play, on held-out positions of our own.

    gammon bench calibration --positions runs/td300/gen5/positions.npy --limit 60 --games 144
    gammon bench calibration --positions ... --class crashed --model OTHER.pt --no-gnubg

A net whose probabilities are biased misjudges the cube even where it plays the right move: a
take point or a doubling window rests on P(win) and on how many of the wins and losses are
gammons. The yardstick here is the model's own play: each position (the player on roll
positive, of ``--class``, held out of every fit by the recipe's hash split, as
benchmarks/race_accuracy.py takes them) is rolled out ``--games`` times at 0-ply with variance
reduction (engine.play.rollout), and the model's 0-ply estimate of the same position is set
beside it. Reported for each of gnubg's five probabilities: the mean error (estimate minus
rollout) with a 95% interval over the positions, its rms, and the rms of the cubeless equity.
gnubg-nn's 2-ply estimate of the same positions is set beside them the same way (the
yardstick of a well-calibrated net; it teaches nothing). A rollout's own noise counts in every
rms, the same for both.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from gammon.benchmarks.race_accuracy import held_out_positions
from gammon.engine.play.rollout import rollout
from gammon.engine.play.stats import mean_ci95
from gammon.engine.rules.board import CLASS_NAMES
from gammon.engine.rules.outcomes import PROBABILITY_NAMES, cubeless_equity
from gammon.engine.search.analysis import position_probs
from gammon.models.gnubg import GnubgEvaluator
from gammon.models.players import load_analyst


def errors(estimates: np.ndarray, reference: np.ndarray) -> dict:
    """Each probability's mean error (95% CI) and rms, and the cubeless equity's rms, of ``estimates``."""
    diff = estimates - reference
    row = {}
    for k, name in enumerate(PROBABILITY_NAMES):
        mean, ci = mean_ci95(diff[:, k])
        row[name] = {"mean": mean, "ci95": list(ci), "rms": float(np.sqrt((diff[:, k] ** 2).mean()))}
    row["equity_rms"] = float(np.sqrt(((cubeless_equity(estimates) - cubeless_equity(reference)) ** 2).mean()))
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="gammon bench calibration", description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=Path, required=True, help="a position file of a recipe run (positions.npy)")
    parser.add_argument("--class", dest="kind", default="contact", choices=CLASS_NAMES)
    parser.add_argument("--limit", type=int, default=60, help="held-out positions rolled out (default 60)")
    parser.add_argument("--games", type=int, default=144, help="variance-reduced games a position (default 144)")
    parser.add_argument("--seed", type=int, default=31, help="the rollouts' dice seed (default 31)")
    parser.add_argument("--model", default="default")
    parser.add_argument("--no-gnubg", action="store_true", help="leave gnubg-nn's 2-ply out")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    boards, _ = held_out_positions(args.positions, args.limit, 0, CLASS_NAMES.index(args.kind))
    net = load_analyst(args.model)
    started = time.perf_counter()
    rolled = np.array([rollout(net, board, games=args.games, seed=args.seed, reduce_variance=True).probs
                       for board in tqdm(boards, desc="rollouts", disable=args.json)])
    report = {"model": args.model, "class": args.kind, "positions": len(boards), "games": args.games,
              "rollout_seconds": round(time.perf_counter() - started),
              "rollout_means": dict(zip(PROBABILITY_NAMES, rolled.mean(axis=0).tolist())),
              "ours_0ply": errors(position_probs(net, boards, 0), rolled)}
    if not args.no_gnubg:
        report["gnubg_2ply"] = errors(GnubgEvaluator(plies=2).probabilities(boards), rolled)
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{len(boards)} held-out {args.kind} positions, each rolled out {args.games} times (variance reduced) "
          f"with {args.model}'s 0-ply play, {report['rollout_seconds']} s; estimate minus rollout:")
    for who in ("ours_0ply", "gnubg_2ply"):
        if who in report:
            row = report[who]
            cells = ", ".join(f"{name} {row[name]['mean']:+.4f} ({row[name]['ci95'][0]:+.4f} .. "
                              f"{row[name]['ci95'][1]:+.4f})" for name in PROBABILITY_NAMES)
            print(f"  {who}: {cells}; equity rms {row['equity_rms']:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
