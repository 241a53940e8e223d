"""Move filters of a deep search compared: the move each setting picks, judged by the search itself, and its time.

    python -m gammon.benchmarks.filters                          # 3-ply, 500 positions, seed 556
    python -m gammon.benchmarks.filters --plies 3 --positions 200 --seed 555 --json
    python -m gammon.benchmarks.filters --filters 0:8:0.16,2:2:0.04 0:8:0.16,1:5:0.10,2:2:0.04

Positions are contact positions of the shipped model's own 0-ply self-play (a tenth of its moves
random, the seed's games), each with a roll of two plays or more: not the dev positions. Each
position's hint (``engine.search.analysis.rank_moves``) is asked of every setting in turn, the
first setting the judge: where another setting picks another move, both moves are searched at
the same plies (cubeless, as deep as the hint) and the difference of their equities is that
setting's loss, in mp (thousandths of a point); the mean with its standard error, how often it
picked the judge's move, and the median and mean time of a hint.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from gammon.app.analyse import filters_text, parse_filters
from gammon.benchmarks.thinking import self_play_positions
from gammon.engine.rules.outcomes import cubeless_equity
from gammon.engine.search.analysis import DEEP_FILTERS, MOVE_FILTERS, rank_moves, searched_afterstates
from gammon.models.players import load_analyst


def compare(net, positions, settings: dict[str, dict], plies: int) -> list[dict]:
    """Each setting's row: same moves as the first setting's, mp lost to it (by the search), hint times."""
    names = list(settings)
    lost = {name: [] for name in names}
    times = {name: [] for name in names}
    for board, dice in positions:
        chosen = {}
        for name in names:
            started = time.perf_counter()
            chosen[name] = rank_moves(net, board, dice, plies, filters=settings[name])[0].board
            times[name].append(time.perf_counter() - started)
        judge = chosen[names[0]]
        for name in names:
            if np.array_equal(chosen[name], judge):
                lost[name].append(0.0)
            else:
                equity = cubeless_equity(searched_afterstates(net, np.stack([judge, chosen[name]]), plies, depth=plies))
                lost[name].append(float(equity[0] - equity[1]))
    rows = []
    for name in names:
        loss = 1000 * np.array(lost[name])
        rows.append({"filters": name, "same": int((loss == 0).sum()), "positions": len(loss),
                     "lost_mp": round(float(loss.mean()), 3),
                     "stderr_mp": round(float(loss.std(ddof=1) / len(loss) ** 0.5) if len(loss) > 1 else 0.0, 3),
                     "median_ms": round(1000 * statistics.median(times[name]), 1),
                     "mean_ms": round(1000 * statistics.mean(times[name]), 1)})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plies", type=int, default=3)
    parser.add_argument("--positions", type=int, default=500)
    parser.add_argument("--seed", type=int, default=556)
    parser.add_argument("--model", default="default")
    parser.add_argument("--filters", nargs="+", metavar="PLY:KEEP:MARGIN,...",
                        default=[filters_text(MOVE_FILTERS), filters_text(DEEP_FILTERS)],
                        help="settings to compare, the first the judge (default gnubg's, then our 3-ply default)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    net = load_analyst(args.model)
    positions = self_play_positions(net, args.positions, args.seed)
    rows = compare(net, positions, {text: parse_filters(text) for text in args.filters}, args.plies)
    if args.json:
        print(json.dumps(rows))
        return 0
    for r in rows:
        print(f"{r['filters']}: same move {r['same']}/{r['positions']}, {r['lost_mp']:.3f} mp lost "
              f"(± {r['stderr_mp']:.3f}), median {r['median_ms']:.1f} ms, mean {r['mean_ms']:.1f} ms a hint")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
