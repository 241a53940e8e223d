"""The device path's throughput on whatever device is present: one command, one JSON object.

    python benchmarks/device.py --json            # cuda when present, else the CPU
    python benchmarks/device.py --quick --json    # a short run: batches up to 65,536, a 60 s budget
    python benchmarks/device.py --device cpu --batches 4096,65536

Measures, each one section of the report:

* ``movegen``: afterstates/s of the torch move generator (``training/torch_movegen.py``)
  at batches of 4,096 up to 1,048,576 items (the shared workload repeated to fill a batch,
  already on the device), after the exactness check of every workload item on the same
  device (``mismatches``, as ``benchmarks/movegen.py --check`` counts them).

Each batch size runs one warm-up call, then calls until ``--seconds`` have passed. The run
stops before a batch whose estimated time would overrun ``--budget`` seconds or whose
estimated memory would not fit (scaled from the previous batch: the device's peak on
CUDA, an estimate per item on the CPU), and when the device runs out of memory anyway;
``stopped`` says why.

The report: ``device`` (what ran), then ``measures``, one entry per measure, each with
its ``unit``, the key of its headline ``rate`` in each row, ``rows`` (one per batch size)
and ``stopped``; a later measure (self-play, rollouts) is one more function in :data:`MEASURES`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.movegen import DEFAULT_WORKLOAD, TorchBackend, check, load_workload  # noqa: E402
from training.torch_movegen import generate  # noqa: E402

BATCHES = [4096, 16384, 65536, 262144, 1048576]
QUICK_BATCHES = [4096, 16384, 65536]
# The CPU has no peak-memory counter: the generator's footprint per item, measured on the
# shared workload (about 5.4 KB), with room to spare.
CPU_BYTES_PER_ITEM = 8192


def describe(device: torch.device) -> dict:
    """What the measures ran on."""
    info = {"type": device.type, "torch": torch.__version__, "numpy": np.__version__}
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        info.update(name=props.name, memory_gib=round(props.total_memory / 2**30, 1))
    else:
        info.update(name=f"{platform.machine()} {platform.processor() or ''}".strip(), cpus=os.cpu_count(),
                    threads=torch.get_num_threads())
    return info


def free_bytes(device: torch.device) -> int:
    """Memory a larger batch may still use: free device memory, or the CPU's available memory."""
    if device.type == "cuda":
        return torch.cuda.mem_get_info(device)[0]
    try:
        with open("/proc/meminfo") as f:
            fields = dict(line.split(":", 1) for line in f)
        return int(fields["MemAvailable"].split()[0]) * 1024
    except (OSError, KeyError, ValueError):
        return 2**62  # no figure: only the out-of-memory guard applies


class Clock:
    """Wall time of device work: CUDA runs asynchronously, so every reading waits for it."""

    def __init__(self, device: torch.device):
        self.device = device

    def now(self) -> float:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        return time.perf_counter()


def time_batch(boards: torch.Tensor, dice: torch.Tensor, seconds: float, clock: Clock) -> dict:
    """One warm-up call, then calls until ``seconds`` have passed: the rates of one batch size."""
    device = boards.device
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    generate(boards, dice, check=False)
    calls, afterstates = 0, 0
    start = clock.now()
    while True:
        afterstates += len(generate(boards, dice, check=False))
        calls += 1
        elapsed = clock.now() - start
        if elapsed >= seconds:
            break
    row = {"batch": len(boards), "calls": calls, "seconds": elapsed,
           "items_per_s": calls * len(boards) / elapsed, "afterstates_per_s": afterstates / elapsed,
           "afterstates_per_item": afterstates / (calls * len(boards))}
    if device.type == "cuda":
        row["peak_memory_gib"] = torch.cuda.max_memory_allocated(device) / 2**30
    return row


def reason_to_stop(previous: dict, batch: int, deadline: float, device: torch.device, seconds: float) -> str | None:
    """Why ``batch`` should not run, judged from the previous batch's row scaled up; None to run it."""
    scale = batch / previous["batch"]
    estimate = max(2 * previous["seconds"] / previous["calls"] * scale, seconds)  # a warm-up and a timed call
    if time.perf_counter() + estimate > deadline:
        return f"batch {batch}: about {estimate:.0f} s would overrun the budget"
    peak = previous.get("peak_memory_gib", 0) * 2**30 or CPU_BYTES_PER_ITEM * previous["batch"]
    free = free_bytes(device)
    if peak * scale > free:
        return f"batch {batch}: about {peak * scale / 2**30:.1f} GiB would not fit in the {free / 2**30:.1f} GiB free"
    return None


def movegen(device: torch.device, args) -> dict:
    """Afterstates/s of the torch generator at growing batches, after the exactness check."""
    deadline = time.perf_counter() + args.budget
    boards, dice, hashes = load_workload(args.workload)
    bad = check(TorchBackend(boards, dice, str(device)), boards, dice, hashes)
    report = {"unit": "afterstates/s", "rate": "afterstates_per_s", "workload": str(args.workload),
              "items": len(boards), "mismatches": len(bad), "first_mismatches": bad[:5], "rows": [], "stopped": None}
    clock = Clock(device)
    for batch in args.batches:
        if report["rows"]:
            report["stopped"] = reason_to_stop(report["rows"][-1], batch, deadline, device, args.seconds)
            if report["stopped"]:
                break
        tiled = torch.arange(batch) % len(boards)
        batch_boards = torch.from_numpy(boards)[tiled].to(device)
        batch_dice = torch.from_numpy(dice)[tiled].to(device)
        try:
            report["rows"].append(time_batch(batch_boards, batch_dice, args.seconds, clock))
        except (torch.OutOfMemoryError, MemoryError):
            report["stopped"] = f"batch {batch}: out of memory"
            break
        finally:
            del batch_boards, batch_dice
            if device.type == "cuda":
                torch.cuda.empty_cache()
    return report


MEASURES = {"movegen": movegen}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu",
                        help="torch device (default: cuda when present, else cpu)")
    parser.add_argument("--quick", action="store_true", help=f"batches {QUICK_BATCHES}, 0.5 s each, a 60 s budget")
    parser.add_argument("--batches", help=f"comma-separated batch sizes (default {BATCHES})")
    parser.add_argument("--seconds", type=float, help="timed seconds per batch size (default 2)")
    parser.add_argument("--budget", type=float, help="seconds for each measure, its check included (default 300)")
    parser.add_argument("--threads", type=int, help="torch threads on the CPU (default: torch's own)")
    parser.add_argument("--measures", default=",".join(MEASURES), help=f"comma-separated, of {list(MEASURES)}")
    parser.add_argument("--workload", type=Path, default=DEFAULT_WORKLOAD)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        parser.error(f"--device {args.device}: no CUDA device here (torch {torch.__version__})")
    unknown = set(args.measures.split(",")) - set(MEASURES)
    if unknown:
        parser.error(f"unknown measures {sorted(unknown)}; choose from {list(MEASURES)}")
    args.batches = [int(b) for b in args.batches.split(",")] if args.batches else \
        (QUICK_BATCHES if args.quick else BATCHES)
    args.seconds = args.seconds if args.seconds is not None else (0.5 if args.quick else 2.0)
    args.budget = args.budget if args.budget is not None else (60.0 if args.quick else 300.0)
    if args.threads:
        torch.set_num_threads(args.threads)

    report = {"device": describe(device),
              "measures": {name: MEASURES[name](device, args) for name in args.measures.split(",")}}
    if args.json:
        print(json.dumps(report))
    else:
        print(f"device: {json.dumps(report['device'])}")
        for name, measure in report["measures"].items():
            print(f"{name}: {measure.get('mismatches', 'no')} mismatches")
            for row in measure["rows"]:
                print(f"  batch {row['batch']:>9,}: {row[measure['rate']]:>14,.0f} {measure['unit']}"
                      f"   ({row['calls']} calls, {row['seconds']:.1f} s)")
            if measure["stopped"]:
                print(f"  stopped: {measure['stopped']}")
    return 1 if any(m.get("mismatches") for m in report["measures"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
