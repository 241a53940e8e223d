"""The device path's throughput on whatever device is present: one command, one JSON object.

    python -m gammon.benchmarks.device --json            # cuda when present, else the CPU
    python -m gammon.benchmarks.device --quick --json    # a short run: batches up to 65,536, a 60 s budget
    python -m gammon.benchmarks.device --device cpu --batches 4096,65536

Measures, each one section of the report:

* ``movegen``: afterstates/s of the torch move generator (``training/torch_movegen.py``)
  at batches of 4,096 up to 1,048,576 items (the shared workload repeated to fill a batch,
  already on the device), after the exactness check of every workload item on the same
  device (``mismatches``, as ``benchmarks/movegen.py --check`` counts them);
* ``encoding``: boards/s of the default nets' input encodings (``training/torch_encoding.py``:
  contact-v1 and race-v1, both, on every board) at the same batches of the workload's
  afterstates, after comparing each of them with numpy's encodings (``mismatches``: boards
  whose inputs are not allclose);
* ``selfplay``: games/s of self-play with learning on the device (``gammon train --backend
  torch``: :class:`training.train.Trainer` with the default nets, a TD step every ply) with
  256 up to 262,144 games side by side, after checking its plies on the host
  (``mismatches``: games of the checked plies whose chosen afterstate is not legal by
  engine.rules.movegen, or whose result is not engine.rules.outcomes.result_points'). The batch here is
  the number of games side by side; each runs a warm-up of one turnover (as many games
  finished as it plays side by side, which spreads the games' ages), then plies until
  ``--seconds`` have passed; games/s = games finished / seconds;
* ``rollout``: games/s of cubeless rollouts on the device (``training/device_rollout.py``,
  the shipped net with the bear-off databases, as ``gammon rollout`` analyses) of the
  opening position played to the end, 1,296 up to 331,776 games side by side (one rollout
  each, timed whole), after rolling out workload positions truncated after the first turn
  on the device and on the host (``mismatches``: positions whose probabilities differ);
* ``learning``: how fast self-play on the device learns, from random weights, with 256 up to
  16,384 games side by side (``--lr``, ``--replay``: the trainer's options): seconds of
  training (evaluations not counted) until the net first scores +0.35 and +0.45 ppg
  against pubeval (2,000 duplicate games every ``--eval-every`` games; each figure ±0.06),
  up to ``--learn-games`` games or the row's share of ``--budget``; ``curve`` lists
  every evaluation.

Each batch size of movegen and encoding runs one warm-up call, then calls until
``--seconds`` have passed. The run stops before a batch whose estimated time would overrun
``--budget`` seconds or whose estimated memory would not fit (scaled from the previous
batch: the device's peak on CUDA, an estimate per item on the CPU), and when the device
runs out of memory anyway; ``stopped`` says why.

The report: ``device`` (what ran), then ``measures``, one entry per measure, each with
its ``unit``, the key of its headline ``rate`` in each row, ``rows`` (one per batch size)
and ``stopped``; another measure is one more function in :data:`MEASURES`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
import torch

from gammon.benchmarks.movegen import DEFAULT_WORKLOAD, TorchBackend, check, load_workload
from gammon.engine.play.rollout import rollout as host_rollout
from gammon.engine.rules.board import flip, starting_board
from gammon.engine.rules.movegen import generate as numpy_generate
from gammon.engine.rules.outcomes import result_points
from gammon.models.encoding import encoder as numpy_encoder
from gammon.models.players import load_analyst
from gammon.training.device_rollout import DeviceAnalyst
from gammon.training.device_rollout import rollout as device_rollout
from gammon.training.torch_encoding import encoder as torch_encoder
from gammon.training.torch_movegen import generate
from gammon.training.train import Config, Trainer

BATCHES = [4096, 16384, 65536, 262144, 1048576]
QUICK_BATCHES = [4096, 16384, 65536]
SELFPLAY_BATCHES = [256, 2048, 16384, 65536, 262144]  # games side by side
QUICK_SELFPLAY_BATCHES = [256, 1024]
CHECKED_PLIES = 64  # plies of 256 games checked on the host before the self-play rows
ROLLOUT_BATCHES = [1296, 5184, 20736, 82944, 331776]  # games side by side, multiples of 36
QUICK_ROLLOUT_BATCHES = [1296, 5184]
LEARNING_BATCHES = [256, 2048, 16384]  # games side by side
QUICK_LEARNING_BATCHES = [256]
LEARNING_MARKS = (0.35, 0.45)  # ppg against pubeval: the marks
CHECKED_BOARDS = 32  # workload positions whose one-turn rollouts are checked against the host's
ENCODED = ("contact-v1", "race-v1")  # the default nets' encodings
# The CPU has no peak-memory counter: the generator's footprint per item, measured on the
# shared workload (about 5.4 KB), with room to spare; a self-play game's (its afterstates
# encoded and through the nets, and the TD step), measured at 2,048 games (about 110 KB), likewise.
CPU_BYTES_PER_ITEM = 8192
CPU_BYTES_PER_GAME = 262144


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


def time_batch(call, batch: int, seconds: float, clock: Clock, device: torch.device) -> dict:
    """One warm-up call, then calls until ``seconds`` have passed: a row of one batch size.

    ``call()`` does the work on one batch and returns how many results it made.
    """
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    call()
    calls, results = 0, 0
    start = clock.now()
    while True:
        results += call()
        calls += 1
        elapsed = clock.now() - start
        if elapsed >= seconds:
            break
    row = {"batch": batch, "calls": calls, "seconds": elapsed, "items_per_s": calls * batch / elapsed,
           "results_per_s": results / elapsed, "results_per_item": results / (calls * batch)}
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


def scan_batches(work, items: tuple, device: torch.device, args, deadline: float, results: str | None) -> dict:
    """Rows of ``work(*batch_tensors)`` at growing batches of ``items`` (numpy arrays, repeated to fill a batch).

    ``work`` takes the batch's tensors on the device and returns how many ``results`` it
    made (afterstates, say); the rows then give ``{results}_per_s`` and ``{results}_per_item``
    beside ``items_per_s``. Stops as :func:`reason_to_stop` says, or when the device runs
    out of memory.
    """
    report = {"rows": [], "stopped": None}
    clock = Clock(device)
    for batch in args.batches or (QUICK_BATCHES if args.quick else BATCHES):
        if report["rows"]:
            report["stopped"] = reason_to_stop(report["rows"][-1], batch, deadline, device, args.seconds)
            if report["stopped"]:
                break
        tiled = torch.arange(batch) % len(items[0])
        tensors = [torch.from_numpy(a)[tiled].to(device) for a in items]
        try:
            row = time_batch(partial(work, *tensors), batch, args.seconds, clock, device)
        except (torch.OutOfMemoryError, MemoryError):
            report["stopped"] = f"batch {batch}: out of memory"
            break
        finally:
            del tensors
            if device.type == "cuda":
                torch.cuda.empty_cache()
        rate, per_item = row.pop("results_per_s"), row.pop("results_per_item")
        if results:
            row.update({f"{results}_per_s": rate, f"{results}_per_item": per_item})
        report["rows"].append(row)
    return report


def movegen(device: torch.device, args) -> dict:
    """Afterstates/s of the torch generator at growing batches, after the exactness check."""
    deadline = time.perf_counter() + args.budget
    boards, dice, hashes = load_workload(args.workload)
    bad = check(TorchBackend(boards, dice, str(device)), boards, dice, hashes)
    report = {"unit": "afterstates/s", "rate": "afterstates_per_s", "workload": str(args.workload),
              "items": len(boards), "mismatches": len(bad), "first_mismatches": bad[:5]}

    def play(batch_boards, batch_dice):
        return len(generate(batch_boards, batch_dice, check=False))

    return report | scan_batches(play, (boards, dice), device, args, deadline, "afterstates")


def encoding(device: torch.device, args) -> dict:
    """Boards/s of the default nets' encodings (contact-v1, then race-v1 on the same boards) at growing
    batches of the workload's afterstates, after comparing every one with numpy's encodings."""
    deadline = time.perf_counter() + args.budget
    boards, dice, _ = load_workload(args.workload)
    after = flip(generate(torch.from_numpy(boards), torch.from_numpy(dice)).boards.numpy())
    on_device = torch.from_numpy(after).to(device)
    wrong = np.zeros(len(after), dtype=bool)
    for name in ENCODED:
        ours = torch_encoder(name)[0](on_device).cpu().numpy()
        wrong |= ~np.isclose(ours, numpy_encoder(name)[0](after), rtol=1e-5, atol=1e-6).all(1)
    report = {"unit": "boards/s", "rate": "items_per_s", "encodings": list(ENCODED), "boards": len(after),
              "mismatches": int(wrong.sum()), "first_mismatches": np.flatnonzero(wrong)[:5].tolist()}

    def encode(batch_boards):
        for name in ENCODED:
            torch_encoder(name)[0](batch_boards)
        return len(batch_boards)

    return report | scan_batches(encode, (after,), device, args, deadline, None)


def selfplay_trainer(device: torch.device, parallel: int) -> Trainer:
    """The trainer of ``gammon train --backend torch`` with ``parallel`` games side by side on ``device``."""
    return Trainer(Config(parallel=parallel, device=device.type, backend="torch", threads=torch.get_num_threads()))


def check_selfplay(device: torch.device, plies: int, parallel: int = 256) -> dict:
    """Self-play ``plies`` plies on the device and check each on the host: the chosen afterstates
    legal by engine.rules.movegen (in the set of the board and dice), the results
    engine.rules.outcomes.result_points'."""
    trainer = selfplay_trainer(device, parallel)
    wrong = np.zeros(0, dtype=bool)

    def check(ply):
        nonlocal wrong
        before, dice, after, won = (t.cpu().numpy() for t in (ply.before, ply.dice, ply.after, ply.won))
        legal = numpy_generate(before, dice)
        legal_set = {(int(i), b.tobytes()) for i, b in zip(legal.parent, legal.boards)}
        illegal = np.array([(i, b.tobytes()) not in legal_set for i, b in enumerate(after)])
        wrong = np.concatenate([wrong, illegal | (won != result_points(after, trainer.variant.checkers))])

    for _ in range(plies):
        trainer.device_games.ply(trainer, watch=check)
    return {"checked_plies": plies, "checked_games": parallel, "mismatches": int(wrong.sum()),
            "first_mismatches": np.flatnonzero(wrong)[:5].tolist()}  # ply * checked_games + game


def selfplay_row(device: torch.device, parallel: int, seconds: float) -> dict:
    """Games/s with learning of ``parallel`` games side by side, after a warm-up of one turnover."""
    clock = Clock(device)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    trainer = selfplay_trainer(device, parallel)
    start = clock.now()
    trainer.self_play(parallel)
    warmed = clock.now()
    games, plies = 0, trainer.plies
    while True:
        games += trainer.self_play(max(parallel // 16, 1))
        elapsed = clock.now() - warmed
        if elapsed >= seconds:
            break
    row = {"batch": parallel, "games": games, "plies": trainer.plies - plies, "seconds": elapsed,
           "warmup_seconds": warmed - start, "games_per_s": games / elapsed,
           "plies_per_s": (trainer.plies - plies) / elapsed}
    if device.type == "cuda":
        row["peak_memory_gib"] = torch.cuda.max_memory_allocated(device) / 2**30
    return row


def games_stop(rows: list[dict], games: int, deadline: float, device: torch.device) -> str | None:
    """Why ``games`` side by side should not run, judged from the previous row scaled up; None to run them
    (the first always runs)."""
    if not rows:
        return None
    previous = rows[-1]
    scale = games / previous["batch"]
    estimate = (previous.get("warmup_seconds", 0) + previous["seconds"]) * scale
    if time.perf_counter() + estimate > deadline:
        return f"batch {games}: about {estimate:.0f} s would overrun the budget"
    need = previous.get("peak_memory_gib", 0) * 2**30 * scale or CPU_BYTES_PER_GAME * games
    free = free_bytes(device)
    if need > free:
        return f"batch {games}: about {need / 2**30:.1f} GiB would not fit in the {free / 2**30:.1f} GiB free"
    return None


def scan_games(row_of, batches: list[int], device: torch.device, stop) -> dict:
    """Rows of ``row_of(games)`` at growing numbers of games side by side, stopping when ``stop(rows, games)``
    gives a reason (as :func:`games_stop` does) or the device runs out of memory."""
    report = {"rows": [], "stopped": None}
    for games in batches:
        report["stopped"] = stop(report["rows"], games)
        if report["stopped"]:
            break
        try:
            report["rows"].append(row_of(games))
        except (torch.OutOfMemoryError, MemoryError):
            report["stopped"] = f"batch {games}: out of memory"
            break
        finally:
            if device.type == "cuda":
                torch.cuda.empty_cache()
    return report


def selfplay(device: torch.device, args) -> dict:
    """Self-play games/s with learning on the device at growing numbers of games side by side, after the check."""
    deadline = time.perf_counter() + args.budget
    report = {"unit": "games/s", "rate": "games_per_s", **check_selfplay(device, CHECKED_PLIES)}
    batches = args.batches or (QUICK_SELFPLAY_BATCHES if args.quick else SELFPLAY_BATCHES)
    stop = partial(games_stop, deadline=deadline, device=device)
    return report | scan_games(lambda games: selfplay_row(device, games, args.seconds), batches, device, stop)


def check_rollouts(analyst: DeviceAnalyst, evaluator, boards: np.ndarray) -> dict:
    """Rollouts truncated after the first turn (36 games: each first roll once, no dice drawn) of ``boards``
    on the device and on the host (engine.play.rollout); a mismatch is a board whose probabilities differ."""
    wrong = [i for i, board in enumerate(boards)
             if not np.allclose(device_rollout(analyst, board, games=36, truncate=1).probs,
                                host_rollout(evaluator, board, games=36, truncate=1).probs, atol=1e-5)]
    return {"checked_boards": len(boards), "mismatches": len(wrong), "first_mismatches": wrong[:5]}


def rollout_row(analyst: DeviceAnalyst, games: int, clock: Clock) -> dict:
    """Games/s of one rollout of the opening position, ``games`` side by side, played to the end."""
    device = analyst.device
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    start = clock.now()
    result = device_rollout(analyst, starting_board(), games=games, seed=1, chunk=games)
    elapsed = clock.now() - start
    row = {"batch": games, "seconds": elapsed, "games_per_s": games / elapsed, "equity": result.equity,
           "std_error": result.std_error}
    if device.type == "cuda":
        row["peak_memory_gib"] = torch.cuda.max_memory_allocated(device) / 2**30
    return row


def rollout(device: torch.device, args) -> dict:
    """Rollout games/s on the device (the shipped net with the bear-off databases) at growing numbers of
    games side by side, after checking one-turn rollouts of workload positions against the host's."""
    deadline = time.perf_counter() + args.budget
    evaluator = load_analyst("default")
    evaluator.evaluator.screen = None  # the device judges every play in full; the host is checked the same way
    analyst = DeviceAnalyst.of(evaluator, device)
    boards, _, _ = load_workload(args.workload)
    report = {"unit": "games/s", "rate": "games_per_s", **check_rollouts(analyst, evaluator, boards[:CHECKED_BOARDS])}
    clock = Clock(device)
    device_rollout(analyst, starting_board(), games=36)  # warm-up
    batches = args.batches or (QUICK_ROLLOUT_BATCHES if args.quick else ROLLOUT_BATCHES)
    stop = partial(games_stop, deadline=deadline, device=device)
    return report | scan_games(lambda games: rollout_row(analyst, games, clock), batches, device, stop)


def learning_row(device: torch.device, parallel: int, args, deadline: float) -> dict:
    """Training seconds and games until the net first reaches each of :data:`LEARNING_MARKS` against pubeval."""
    config = Config(parallel=parallel, device=device.type, backend="torch", threads=torch.get_num_threads(),
                    lr=args.lr, replay=args.replay, eval_games=args.eval_games)
    config.check()
    trainer = Trainer(config)
    clock, trained, curve = Clock(device), 0.0, []
    while trainer.games_done < args.learn_games and time.perf_counter() < deadline:
        start = clock.now()
        trainer.games_done += trainer.self_play(min(args.eval_every, args.learn_games - trainer.games_done))
        trained += clock.now() - start
        result = trainer.evaluate()
        curve.append({"games": trainer.games_done, "seconds": trained, "ppg": result["ppg"], "ci95": result["ci95"]})
        if result["ppg"] >= LEARNING_MARKS[-1]:
            break
    row = {"batch": parallel, "lr": args.lr, "replay": args.replay, "games": trainer.games_done, "seconds": trained,
           "games_per_s": trainer.games_done / trained, "curve": curve}
    for mark in LEARNING_MARKS:
        first = next((point for point in curve if point["ppg"] >= mark), None)
        row[f"seconds_to_{mark}"] = first and first["seconds"]
        row[f"games_to_{mark}"] = first and first["games"]
    return row


def learning(device: torch.device, args) -> dict:
    """Seconds of self-play with learning on the device to +0.35 and +0.45 ppg against pubeval, at
    growing numbers of games side by side, each row given an equal share of the budget."""
    batches = args.batches or (QUICK_LEARNING_BATCHES if args.quick else LEARNING_BATCHES)
    end = time.perf_counter() + args.budget

    def share(games: int) -> float:  # the seconds left, split evenly over this row and those after it
        return (end - time.perf_counter()) / (len(batches) - batches.index(games))

    def out_of_time(rows: list[dict], games: int) -> str | None:
        return f"batch {games}: the budget is spent" if share(games) <= 0 else None

    def row_of(games: int) -> dict:
        return learning_row(device, games, args, time.perf_counter() + share(games))

    report = {"unit": f"s to +{LEARNING_MARKS[-1]}", "rate": f"seconds_to_{LEARNING_MARKS[-1]}"}
    return report | scan_games(row_of, batches, device, out_of_time)


MEASURES = {"movegen": movegen, "encoding": encoding, "selfplay": selfplay, "rollout": rollout, "learning": learning}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu",
                        help="torch device (default: cuda when present, else cpu)")
    parser.add_argument("--quick", action="store_true", help=f"batches {QUICK_BATCHES} (self-play: "
                        f"{QUICK_SELFPLAY_BATCHES} games), 0.5 s each, a 60 s budget")
    parser.add_argument("--batches", help=f"comma-separated batch sizes, for every measure (default {BATCHES}; "
                        f"self-play: {SELFPLAY_BATCHES} games side by side)")
    parser.add_argument("--seconds", type=float, help="timed seconds per batch size (default 2)")
    parser.add_argument("--budget", type=float, help="seconds for each measure, its check included (default 300)")
    parser.add_argument("--threads", type=int, help="torch threads on the CPU (default: torch's own)")
    parser.add_argument("--measures", default=",".join(MEASURES), help=f"comma-separated, of {list(MEASURES)}")
    parser.add_argument("--workload", type=Path, default=DEFAULT_WORKLOAD)
    # learning's default rate: the best of the large-batch runs on the CPU (RESULTS.md)
    parser.add_argument("--lr", type=float, default=3e-3, help="learning: the trainer's --lr (default 3e-3)")
    parser.add_argument("--replay", type=int, default=0, help="learning: the trainer's --replay (default 0)")
    parser.add_argument("--learn-games", type=int, default=200_000, help="learning: most games a row trains "
                        "(default 200,000)")
    parser.add_argument("--eval-every", type=int, default=5_000, help="learning: games between evaluations "
                        "(default 5,000)")
    parser.add_argument("--eval-games", type=int, default=2_000, help="learning: duplicate games an evaluation "
                        "plays (default 2,000)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        parser.error(f"--device {args.device}: no CUDA device here (torch {torch.__version__})")
    unknown = set(args.measures.split(",")) - set(MEASURES)
    if unknown:
        parser.error(f"unknown measures {sorted(unknown)}; choose from {list(MEASURES)}")
    args.batches = [int(b) for b in args.batches.split(",")] if args.batches else None  # each measure's own
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
            print(f"{name}:" + (f" {measure['mismatches']} mismatches" if "mismatches" in measure else ""))
            for row in measure["rows"]:
                done = (f"{row['calls']} calls" if "calls" in row else f"{row['plies']} plies after a turnover"
                        if "plies" in row else f"{row['games']:,} games trained" if "curve" in row else "one rollout")
                rate = row[measure["rate"]]
                rate = f"{rate:>14,.0f}" if rate is not None else f"{'not reached':>14}"
                print(f"  batch {row['batch']:>9,}: {rate} {measure['unit']}   ({done}, {row['seconds']:.1f} s)")
            if measure["stopped"]:
                print(f"  stopped: {measure['stopped']}")
    return 1 if any(m.get("mismatches") for m in report["measures"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
