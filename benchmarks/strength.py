"""Playing strength: cubeless money games between two players, duplicate dice.

    python -m gammon.benchmarks.strength A B --games 10000 [--seed S] [--luck default] [--json]
    gammon bench strength A B --games 10000

A and B are a weights file, ``default`` (the shipped net), ``pubeval``, ``random``,
``heuristic`` or ``gnubg`` (GNU Backgammon 0-ply via PyPI gnubg-nn). Every dice
sequence is played twice with the sides swapped; points per game (for A) come with a
95% confidence interval over those pairs. All games run at once, batched. ``--luck NET``
also judges every roll's luck with NET and reports the points per game less the luck: an
unbiased estimate of the same quantity with a much narrower interval (engine/play/luck.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from tqdm import tqdm

from gammon.engine.play.duel import duel
from gammon.engine.play.game import Rules
from gammon.engine.play.players import Cubeless
from gammon.engine.rules.variants import VARIANTS
from gammon.engine.search.evaluator import evaluator_policy
from gammon.models.players import load_analyst, load_player


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="gammon bench strength", description=__doc__.split("\n")[0])
    parser.add_argument("a", help="player A (weights file, default, fast, pubeval, random, heuristic, gnubg)")
    parser.add_argument("b", help="player B")
    parser.add_argument("--games", type=int, default=10_000, help="games in all, an even number (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="dice seed (default 0)")
    parser.add_argument("--variant", default="standard", choices=sorted(VARIANTS),
                        help="the variant both play (default standard)")
    parser.add_argument("--luck", metavar="NET", help="judge every roll's luck with NET (default, a weights file) "
                        "and report the luck-adjusted points per game too")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    a = load_player(args.a, seed=args.seed + 1, variant=args.variant)
    b = load_player(args.b, seed=args.seed + 2, variant=args.variant)
    judge = load_analyst(args.luck, variant=args.variant) if args.luck else None
    started = time.perf_counter()
    quiet = args.json or not sys.stderr.isatty()
    with (tqdm(total=args.games, unit="game", disable=quiet) as bar,
          tqdm(unit="roll", desc="luck", disable=quiet or judge is None) as rolls):
        stats = duel(Cubeless(evaluator_policy(a)), Cubeless(evaluator_policy(b)), args.games, seed=args.seed,
                     rules=Rules(variant=args.variant), progress=bar.update, luck=judge, luck_progress=rolls.update)
    seconds = time.perf_counter() - started
    report = {"a": args.a, "b": args.b, "seed": args.seed, "variant": args.variant, **stats.as_dict(),
              "seconds": round(seconds, 1)}
    if args.json:
        print(json.dumps(report))
    else:
        low, high = stats.ci95
        print(f"{args.a} vs {args.b}: {stats.games} games (duplicate dice, seed {args.seed}), {seconds:.0f} s")
        print(f"  points per game for {args.a}: {stats.ppg:+.3f}  (95% CI {low:+.3f} .. {high:+.3f})")
        if judge is not None:
            low, high = stats.luck_adjusted_ci95
            print(f"  luck-adjusted (judged by {args.luck}): {stats.luck_adjusted_ppg:+.3f}  "
                  f"(95% CI {low:+.3f} .. {high:+.3f})")
        print(f"  wins {stats.win_rate:.1%}; gammons won {stats.gammon_rate:.1%}, "
              f"backgammons won {stats.backgammon_rate:.1%}; "
              f"gammons lost {stats.lose_gammon_rate:.1%}, backgammons lost {stats.lose_backgammon_rate:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
