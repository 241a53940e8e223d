"""n-ply search speed (``engine.search.analysis.position_probs``) by how many positions are searched at once.

    python -m gammon.benchmarks.search                                   # 1-ply and 2-ply, pieces of 32 and 128
    python -m gammon.benchmarks.search --positions 100 --plies 2 --chunks 1024,128,32 --json

The positions are the undecided ones of the move-generation workload
(``tests/data/movegen_workload.jsonl``, random play), split by class (contact with
crashed, race). Each (class, plies, chunk) row times one call on the same positions, with
the shipped model on one thread, and reports wall, user and system seconds:
system time is the kernel faulting in memory that the allocator gave back. Every chunk
must give the same probabilities (checked); the ratio is against the first chunk listed.
"""

from __future__ import annotations

import argparse
import json
import resource
import time

import numpy as np

import gammon.engine.search.analysis as analysis
from gammon.benchmarks.movegen import DEFAULT_WORKLOAD, load_workload
from gammon.engine.rules.board import RACE, position_class
from gammon.engine.rules.outcomes import result_points
from gammon.models.players import load_analyst


def timed(net, boards: np.ndarray, plies: int, chunk: int) -> tuple[dict, np.ndarray]:
    """One search of ``boards`` in pieces of ``chunk``: its seconds and its probabilities."""
    analysis.SEARCH_CHUNK = chunk
    before, started = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    probs = analysis.position_probs(net, boards, plies)
    wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF)
    return {"wall_s": round(wall, 2), "user_s": round(after.ru_utime - before.ru_utime, 2),
            "system_s": round(after.ru_stime - before.ru_stime, 2)}, probs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=100, help="positions of each class (default 100)")
    parser.add_argument("--plies", default="1,2", help="comma-separated depths (default 1,2)")
    parser.add_argument("--chunks", default="32,128", help="comma-separated pieces, the first the baseline")
    parser.add_argument("--model", default="default")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    net = load_analyst(args.model)
    boards, _, _ = load_workload(DEFAULT_WORKLOAD)
    boards = boards[result_points(boards, 15) == 0]
    race = position_class(boards) == RACE
    chunks = [int(c) for c in args.chunks.split(",")]
    analysis.position_probs(net, boards[:4], 1)  # warm up
    rows = []
    for name, group in (("contact", boards[~race]), ("race", boards[race])):
        group = group[: args.positions]
        for plies in [int(p) for p in args.plies.split(",")]:
            base = None
            for chunk in chunks:
                row, probs = timed(net, group, plies, chunk)
                if base is None:
                    base = (row["wall_s"], probs)
                elif not np.allclose(probs, base[1], atol=1e-6):
                    raise SystemExit(f"{name} {plies}-ply: chunk {chunk} gives other probabilities than {chunks[0]}")
                rows.append({"class": name, "positions": len(group), "plies": plies, "chunk": chunk, **row,
                             "ratio": round(row["wall_s"] / base[0], 2)})
    if args.json:
        print(json.dumps(rows))
    else:
        for r in rows:
            print(f"{r['class']:8} {r['positions']:4} at {r['plies']}-ply, chunk {r['chunk']:5}: "
                  f"wall {r['wall_s']:6.2f} s  user {r['user_s']:6.2f}"
                  f"  system {r['system_s']:6.2f}  ({r['ratio']:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
