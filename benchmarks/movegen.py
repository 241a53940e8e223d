"""Move-generation speed and exactness on a workload of (board, dice) items.

    python -m gammon.benchmarks.movegen                      # the shipped workload, batch 1/64/4096
    python -m gammon.benchmarks.movegen --workload FILE --check --json
    python -m gammon.benchmarks.movegen --backend torch --device cpu|cuda --workload FILE --check --json

The workload format is ``tests/data/movegen_workload.jsonl`` (lines with ``board``,
``dice``, ``after_hash``; other fields optional). ``--check`` compares every item's
afterstate-set hash; ``--json`` prints one JSON object. When ``gnubg_nn`` (PyPI
``gnubg-nn``) is installed, GNU Backgammon's C generator runs on the same items in the
same process, single-threaded, and the ratio ours/gnubg is printed.

``--backend torch`` times the torch generator (``training/torch_movegen.py``) on
``--device``, its inputs already there, and the numpy generator in the same rounds: each
row then also has the ratio torch/numpy. The check runs on the same device.
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

from gammon.engine.rules.board import mover_counts, opponent_counts
from gammon.engine.rules.movegen import compiled_plays, generate

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


class NumpyBackend:
    """engine.rules.movegen on the CPU: ``count`` plays a slice of the workload, ``afterstates`` all of it, checked.
    Backgammon's plays come from its compiled generator (engine/rules/_native.c) where the install built it."""

    name = "numpy"
    label = "compiled" if compiled_plays is not None else "numpy"

    def __init__(self, boards: np.ndarray, dice: np.ndarray):
        self.boards, self.dice = boards, dice

    def count(self, start: int, stop: int) -> int:
        return len(generate(self.boards[start:stop], self.dice[start:stop], check=False))

    def afterstates(self):
        return generate(self.boards, self.dice)


class TorchBackend:
    """training/torch_movegen.py on a torch device, the workload already there; the same two methods."""

    name = "torch"

    def __init__(self, boards: np.ndarray, dice: np.ndarray, device: str):
        import torch

        from gammon.training.torch_movegen import generate as torch_generate

        self.label = f"torch {device}"
        self.boards = torch.from_numpy(boards).to(device)
        self.dice = torch.from_numpy(dice).to(device)
        self._generate = torch_generate
        # CUDA runs asynchronously: a batch is done when the device has finished its work.
        self._sync = torch.cuda.synchronize if self.boards.is_cuda else (lambda: None)

    def count(self, start: int, stop: int) -> int:
        n = len(self._generate(self.boards[start:stop], self.dice[start:stop], check=False))
        self._sync()
        return n

    def afterstates(self):
        return self._generate(self.boards, self.dice).to_numpy()


def check(backend, boards, dice, hashes):
    """Number of items whose afterstate set differs from its hash, and the first few of them."""
    result = backend.afterstates()
    bad = []
    for i, expected in enumerate(hashes):
        if expected is not None and afterstate_hash(result.of(i)) != expected:
            bad.append({"index": i, "board": boards[i].tolist(), "dice": dice[i].tolist(),
                        "expected": expected, "got_n_after": int(result.counts()[i])})
    return bad


def ours_pass(backend, items: int, batch: int) -> tuple[float, int]:
    """Seconds and afterstates for one pass of the backend over the first ``items`` items cut into batches."""
    t0 = time.perf_counter()
    afterstates = sum(backend.count(s, min(s + batch, items)) for s in range(0, items, batch))
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


def _ratios(ours: list, theirs: list, items: int, their_items: int) -> list[float]:
    """Per-round ratios of items/s, ours over theirs."""
    return [(items / t) / (their_items / g) for (t, _), (g, _) in zip(ours, theirs)]


def measure(backend, boards, dice, batches: list[int], rounds: int, versus: NumpyBackend | None = None) -> dict:
    """Interleaved rounds (gnubg, then ours at each batch size, then ``versus`` at the same
    sizes) so all see the same machine load.

    Reports each side's best round, and the median over rounds of the per-round ratio.
    """
    ours = {b: [] for b in batches}
    reference = {b: [] for b in batches}
    gnubg = []
    for _ in range(rounds):
        g = gnubg_pass(boards, dice)
        if g:
            gnubg.append(g)
        for b in batches:
            items = len(boards) if b > 1 else min(len(boards), 2000)  # one call per item: a prefix is enough
            ours[b].append((ours_pass(backend, items, b), items))
            if versus:
                reference[b].append(ours_pass(versus, items, b))
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
            ratios = _ratios([run for run, _ in runs], gnubg, n, len(boards))
            row["ratio_to_gnubg"] = float(np.median(ratios))
            row["ratio_range"] = [min(ratios), max(ratios)]
        if versus:
            row[f"{versus.name}_afterstates_per_s"] = reference[b][0][1] / min(t for t, _ in reference[b])
            ratios = _ratios([run for run, _ in runs], reference[b], n, n)
            row[f"ratio_to_{versus.name}"] = float(np.median(ratios))
            row[f"ratio_to_{versus.name}_range"] = [min(ratios), max(ratios)]
        report["ours"].append(row)
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workload", type=Path, default=DEFAULT_WORKLOAD)
    parser.add_argument("--check", action="store_true", help="compare every item's afterstate-set hash")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--batches", default="1,64,4096", help="comma-separated batch sizes")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds (default 5)")
    parser.add_argument("--backend", choices=("numpy", "torch"), default="numpy",
                        help="the generator timed: engine.rules.movegen (numpy) or training/torch_movegen.py")
    parser.add_argument("--device", default="cpu", help="torch device for --backend torch: cpu, cuda, cuda:1 ...")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads on the CPU (default 1: numpy and gnubg run single-threaded too)")
    args = parser.parse_args(argv)
    if args.backend == "numpy" and args.device != "cpu":
        parser.error("--device applies to --backend torch; numpy runs on the CPU")
    if args.device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            parser.error(f"--device {args.device}: no CUDA device here (torch {torch.__version__})")

    boards, dice, hashes = load_workload(args.workload)
    report = {"workload": str(args.workload), "items": len(boards),
              "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
              "cpus": os.cpu_count(), "numpy": np.__version__, "backend": args.backend, "device": args.device}
    backend, versus = NumpyBackend(boards, dice), None
    if args.backend == "torch":
        import torch

        torch.set_num_threads(args.threads)
        report.update(torch=torch.__version__, threads=args.threads)
        backend, versus = TorchBackend(boards, dice, args.device), backend
    if args.check:
        bad = check(backend, boards, dice, hashes)
        report["mismatches"] = len(bad)
        report["first_mismatches"] = bad[:5]
    report.update(measure(backend, boards, dice, [int(b) for b in args.batches.split(",")], args.rounds, versus))
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
            if "ratio_to_numpy" in row:
                low, high = row["ratio_to_numpy_range"]
                ratio += f"   {row['ratio_to_numpy']:.2f}x numpy ({low:.2f}-{high:.2f})"
            print(f"{backend.label}  batch {row['batch']:>5}: {row['items_per_s']:>10,.0f} items/s "
                  f"{row['afterstates_per_s']:>12,.0f} afterstates/s{ratio}")
        if gnubg:
            print(f"gnubg_nn.moves (C)  : {gnubg['items_per_s']:>10,.0f} items/s "
                  f"{gnubg['afterstates_per_s']:>12,.0f} afterstates/s")
        else:
            print("gnubg_nn not installed: no peer figures (pip install gnubg-nn)")
    return 1 if args.check and report["mismatches"] else 0


if __name__ == "__main__":
    sys.exit(main())
