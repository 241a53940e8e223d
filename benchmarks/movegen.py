"""Move-generation speed and exactness on a workload of (board, dice) items.

    python benchmarks/movegen.py                      # the shipped workload, batch 1/64/4096
    python benchmarks/movegen.py --workload FILE --check --json

The workload format is ``tests/data/movegen_workload.jsonl`` (lines with ``board``,
``dice``, ``after_hash``; other fields optional). ``--check`` compares every item's
afterstate-set hash; ``--json`` prints one JSON object. When ``gnubg_nn`` (PyPI
``gnubg-nn``) is installed, GNU Backgammon's C generator runs on the same items in the
same process, single-threaded, and the ratio ours/gnubg is printed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.board import mover_counts, opponent_counts  # noqa: E402
from engine.movegen import generate  # noqa: E402

DEFAULT_WORKLOAD = Path(__file__).resolve().parents[1] / "tests" / "data" / "movegen_workload.jsonl"


def afterstate_hash(boards: np.ndarray) -> str:
    """The workload's hash of a set of afterstates (docs/data.md, "movegen_workload.jsonl")."""
    text = ";".join(sorted(",".join(str(v) for v in b) for b in boards.tolist()))
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def load_workload(path: Path):
    boards, dice, hashes = [], [], []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                boards.append(item["board"])
                dice.append(item["dice"])
                hashes.append(item.get("after_hash"))
            except (ValueError, KeyError) as exc:
                raise SystemExit(f"{path}:{number}: not a workload line ({exc})") from None
    return np.array(boards, dtype=np.int8), np.array(dice, dtype=np.int8), hashes


def check(boards, dice, hashes):
    """Number of items whose afterstate set differs from its hash, and the first few of them."""
    result = generate(boards, dice)
    bad = []
    for i, expected in enumerate(hashes):
        if expected is not None and afterstate_hash(result.of(i)) != expected:
            bad.append({"index": i, "board": boards[i].tolist(), "dice": dice[i].tolist(),
                        "expected": expected, "got_n_after": int(result.counts()[i])})
    return bad


def ours_pass(boards, dice, batch: int) -> tuple[float, int]:
    """Seconds and afterstates for one pass of :func:`generate` over the items cut into batches."""
    t0 = time.perf_counter()
    afterstates = sum(len(generate(boards[s : s + batch], dice[s : s + batch], check=False))
                      for s in range(0, len(boards), batch))
    return time.perf_counter() - t0, afterstates


def gnubg_pass(boards, dice):
    """The same for gnubg_nn.moves (C), one call per item; None when gnubg_nn is not installed."""
    try:
        import gnubg_nn
    except ImportError:
        return None
    gnubg_boards = [[o.tolist(), m.tolist()] for o, m in zip(opponent_counts(boards), mover_counts(boards))]
    pairs = [(int(a), int(b)) for a, b in dice]
    t0 = time.perf_counter()
    # gnubg lists no move when none is legal; we count the unchanged board as one afterstate.
    afterstates = sum(max(1, len(gnubg_nn.moves(b, d1, d2))) for b, (d1, d2) in zip(gnubg_boards, pairs))
    return time.perf_counter() - t0, afterstates


def measure(boards, dice, batches: list[int], rounds: int) -> dict:
    """Interleaved rounds (gnubg, then ours at each batch size) so both see the same machine load.

    Reports each side's best round, and the median over rounds of the per-round ratio.
    """
    ours = {b: [] for b in batches}
    gnubg = []
    for _ in range(rounds):
        g = gnubg_pass(boards, dice)
        if g:
            gnubg.append(g)
        for b in batches:
            items = boards if b > 1 else boards[:2000]  # one call per item: a prefix is enough
            ours[b].append((ours_pass(items, dice[: len(items)], b), len(items)))
    report = {"rounds": rounds, "ours": []}
    if gnubg:
        best = min(t for t, _ in gnubg)
        report["gnubg"] = {"items_per_s": len(boards) / best, "afterstates_per_s": gnubg[0][1] / best}
    for b in batches:
        runs = ours[b]
        n = runs[0][1]
        best_t = min(t for (t, _), _ in runs)
        row = {"batch": b, "items": n, "items_per_s": n / best_t, "afterstates_per_s": runs[0][0][1] / best_t}
        if gnubg:
            ratios = [(n / t) / (len(boards) / g) for ((t, _), _), (g, _) in zip(runs, gnubg)]
            row["ratio_to_gnubg"] = float(np.median(ratios))
            row["ratio_range"] = [min(ratios), max(ratios)]
        report["ours"].append(row)
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workload", type=Path, default=DEFAULT_WORKLOAD)
    parser.add_argument("--check", action="store_true", help="compare every item's afterstate-set hash")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--batches", default="1,64,4096", help="comma-separated batch sizes")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds (default 5)")
    args = parser.parse_args(argv)

    boards, dice, hashes = load_workload(args.workload)
    report = {"workload": str(args.workload), "items": len(boards),
              "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
              "cpus": os.cpu_count(), "numpy": np.__version__}
    if args.check:
        bad = check(boards, dice, hashes)
        report["mismatches"] = len(bad)
        report["first_mismatches"] = bad[:5]
    report.update(measure(boards, dice, [int(b) for b in args.batches.split(",")], args.rounds))
    gnubg = report.get("gnubg")

    if args.json:
        print(json.dumps(report))
    else:
        print(f"workload {report['workload']}: {report['items']} items; best of {args.rounds} interleaved rounds")
        if args.check:
            print(f"check: {report['mismatches']} mismatches")
            for bad in report["first_mismatches"]:
                print("  ", bad)
        for row in report["ours"]:
            ratio = ""
            if "ratio_to_gnubg" in row:
                low, high = row["ratio_range"]
                ratio = f"   {row['ratio_to_gnubg']:.2f}x gnubg (median of {args.rounds} rounds, {low:.2f}-{high:.2f})"
            print(f"ours  batch {row['batch']:>5}: {row['items_per_s']:>10,.0f} items/s "
                  f"{row['afterstates_per_s']:>12,.0f} afterstates/s{ratio}")
        if gnubg:
            print(f"gnubg_nn.moves (C)  : {gnubg['items_per_s']:>10,.0f} items/s "
                  f"{gnubg['afterstates_per_s']:>12,.0f} afterstates/s")
        else:
            print("gnubg_nn not installed: no peer figures (pip install gnubg-nn)")
    return 1 if args.check and report["mismatches"] else 0


if __name__ == "__main__":
    sys.exit(main())
