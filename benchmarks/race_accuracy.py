"""Move loss against GNU Backgammon 2-ply on held-out positions of our own self-play, races by default.

    python -m gammon.benchmarks.race_accuracy --positions runs/strong/gen15/positions.npy --models OLD.pt,default
    python -m gammon.benchmarks.race_accuracy --class crashed --positions ... --models default,gnubg   # another class

The dev file holds 102 race positions, too few to tell two race nets apart (its race
figure moves by about ±1 mp from model to model). This takes the race positions of a
position file that ``gammon train --recipe`` saves (boards, the player on roll positive),
keeps those the recipe's hash split holds out of every fit, gives each a seeded roll, and
scores each model's 0-ply choice (as the analysis makes it: bear-offs from the exact
databases) with gnubg-nn's 2-ply cubeless equity of every play, in thousandths of a point
per move below gnubg's best (mean, 95% CI); ``differences`` pairs each later model with the
first, position by position (it minus the first). gnubg judges here; it teaches nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from tqdm import tqdm

from gammon.benchmarks.accuracy import mean_ci
from gammon.engine.rules.board import CLASS_NAMES, RACE, position_class
from gammon.engine.rules.groups import best_in_groups
from gammon.engine.rules.movegen import generate
from gammon.engine.rules.outcomes import afterstate_probs, cubeless_equity
from gammon.engine.rules.variants import STANDARD
from gammon.engine.search.analysis import searched_afterstates
from gammon.models.gnubg import import_gnubg_nn, to_gnubg
from gammon.models.players import load_analyst
from gammon.training.distill import DistillConfig, held_out_rows

JUDGE_PLIES = 2


def held_out_positions(path: Path, limit: int, seed: int, kind: int = RACE) -> tuple[np.ndarray, np.ndarray]:
    """Up to ``limit`` held-out positions of class ``kind`` in the file, and a seeded roll for each."""
    boards = np.load(path)
    keep = (position_class(boards) == kind) & held_out_rows(boards, DistillConfig(split="hash"))
    boards = boards[keep][:limit]
    return boards, np.random.default_rng(seed).integers(1, 7, size=(len(boards), 2))


def gnubg_equities(afterstates: np.ndarray, progress: bool, plies: int = JUDGE_PLIES) -> np.ndarray:
    """gnubg-nn's ``plies``-deep cubeless equity of each afterstate for the side that just moved."""
    gnubg_nn = import_gnubg_nn()

    def on_roll(boards: np.ndarray) -> np.ndarray:
        return np.array([gnubg_nn.probabilities(g, plies)
                         for g in tqdm(to_gnubg(boards).tolist(), desc=f"gnubg {plies}-ply", disable=not progress)])

    return cubeless_equity(afterstate_probs(on_roll, afterstates, STANDARD))


def move_losses(afterstates, judged: np.ndarray, models: list[str]) -> dict[str, np.ndarray]:
    """Each model's 0-ply choice among ``afterstates`` (one group a position), in mp below the best by ``judged``."""
    best = np.maximum.reduceat(judged, afterstates.offsets[:-1])
    losses = {}
    for spec in models:
        ours = cubeless_equity(searched_afterstates(load_analyst(spec), afterstates.boards, 0))
        losses[spec] = 1000 * (best - judged[best_in_groups(ours, afterstates.offsets)])
    return losses


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=Path, required=True, help="a recipe generation's positions.npy")
    parser.add_argument("--models", required=True, help="comma-separated weights files or names")
    parser.add_argument("--limit", type=int, default=3000, help="most positions (default 3,000)")
    parser.add_argument("--seed", type=int, default=1, help="the rolls' seed (default 1)")
    parser.add_argument("--class", dest="kind", default="race", choices=CLASS_NAMES,
                        help="the positions' class (default race)")
    parser.add_argument("--judge-ply", type=int, default=JUDGE_PLIES, help=f"gnubg's depth (default {JUDGE_PLIES})")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    boards, dice = held_out_positions(args.positions, args.limit, args.seed, CLASS_NAMES.index(args.kind))
    afterstates = generate(boards, dice)
    judged = gnubg_equities(afterstates.boards, not args.no_progress, args.judge_ply)
    losses = move_losses(afterstates, judged, args.models.split(","))
    report = {"positions": len(boards), "class": args.kind, "judge": f"gnubg-nn {args.judge_ply}-ply cubeless",
              "models": {spec: mean_ci(loss) for spec, loss in losses.items()}}
    first = next(iter(losses.values()))
    report["differences"] = {spec: mean_ci(loss - first) for spec, loss in list(losses.items())[1:]}
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
