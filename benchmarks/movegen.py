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
    """The workload's hash of a set of afterstates (see tests/data README / shared data README)."""
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


def time_ours(boards, dice, batch: int, min_seconds: float) -> dict:
    """Items/s and afterstates/s of :func:`generate` on the workload cut into batches."""
    n = len(boards)
    if batch == 1:  # one call per item; a prefix is enough to time it
        n = min(n, 2000)
    starts = range(0, n, batch)
    best, afterstates = float("inf"), 0
    spent = 0.0
    while spent < min_seconds or best == float("inf"):
        t0 = time.perf_counter()
        afterstates = sum(len(generate(boards[s : s + batch], dice[s : s + batch], check=False)) for s in starts)
        elapsed = time.perf_counter() - t0
        best, spent = min(best, elapsed), spent + elapsed
    return {"batch": batch, "items": n, "items_per_s": n / best, "afterstates_per_s": afterstates / best}


def time_gnubg(boards, dice, min_seconds: float):
    """The same figures for gnubg_nn.moves (C), one call per item, or None when not installed."""
    try:
        import gnubg_nn
    except ImportError:
        return None
    gnubg_boards = [[o.tolist(), m.tolist()] for o, m in zip(opponent_counts(boards), mover_counts(boards))]
    pairs = [(int(a), int(b)) for a, b in dice]
    best, afterstates, spent = float("inf"), 0, 0.0
    while spent < min_seconds or best == float("inf"):
        t0 = time.perf_counter()
        # gnubg lists no move when none is legal; we count the unchanged board as one afterstate.
        afterstates = sum(max(1, len(gnubg_nn.moves(b, d1, d2))) for b, (d1, d2) in zip(gnubg_boards, pairs))
        elapsed = time.perf_counter() - t0
        best, spent = min(best, elapsed), spent + elapsed
    n = len(boards)
    return {"items": n, "items_per_s": n / best, "afterstates_per_s": afterstates / best}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workload", type=Path, default=DEFAULT_WORKLOAD)
    parser.add_argument("--check", action="store_true", help="compare every item's afterstate-set hash")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--batches", default="1,64,4096", help="comma-separated batch sizes")
    parser.add_argument("--min-seconds", type=float, default=2.0, help="time each measurement at least this long (best run kept)")
    args = parser.parse_args(argv)

    boards, dice, hashes = load_workload(args.workload)
    report = {"workload": str(args.workload), "items": len(boards), "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
              "cpus": os.cpu_count(), "numpy": np.__version__}
    if args.check:
        bad = check(boards, dice, hashes)
        report["mismatches"] = len(bad)
        report["first_mismatches"] = bad[:5]
    report["ours"] = [time_ours(boards, dice, int(b), args.min_seconds) for b in args.batches.split(",")]
    gnubg = time_gnubg(boards, dice, args.min_seconds)
    if gnubg:
        report["gnubg"] = gnubg
        for row in report["ours"]:
            row["ratio_to_gnubg"] = row["items_per_s"] / gnubg["items_per_s"]

    if args.json:
        print(json.dumps(report))
    else:
        print(f"workload {report['workload']}: {report['items']} items")
        if args.check:
            print(f"check: {report['mismatches']} mismatches")
            for bad in report["first_mismatches"]:
                print("  ", bad)
        for row in report["ours"]:
            ratio = f"   {row['ratio_to_gnubg']:.2f}x gnubg" if "ratio_to_gnubg" in row else ""
            print(f"ours  batch {row['batch']:>5}: {row['items_per_s']:>10,.0f} items/s {row['afterstates_per_s']:>12,.0f} afterstates/s{ratio}")
        if gnubg:
            print(f"gnubg_nn.moves (C)  : {gnubg['items_per_s']:>10,.0f} items/s {gnubg['afterstates_per_s']:>12,.0f} afterstates/s")
        else:
            print("gnubg_nn not installed: no peer figures (pip install gnubg-nn)")
    return 1 if args.check and report["mismatches"] else 0


if __name__ == "__main__":
    sys.exit(main())
