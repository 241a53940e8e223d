"""How fast the engine thinks: hint latency at 0-3 ply beside gnubg-nn's, and a command's wall time from start.

    python -m gammon.benchmarks.thinking                       # 0, 1 and 2-ply on the 60 shipped positions
    python -m gammon.benchmarks.thinking --plies 3 --positions 20 --json
    python -m gammon.benchmarks.thinking --no-screen           # searches without the pruning net
    python -m gammon.benchmarks.thinking --make-positions      # write benchmarks/data/thinking_positions.jsonl anew

**Hints.** The positions are contact positions of the shipped model's own 0-ply self-play
(seed 2026, a tenth of the moves random), each with its roll, kept in
``benchmarks/data/thinking_positions.jsonl`` so that every run and every model is timed on
the same ones. For each position our ``engine.search.analysis.rank_moves`` (what ``gammon
hint`` runs) and gnubg-nn's ``best_move`` at the same ply are timed one after the other, both
on one thread; medians and means of each, and their ratios. gnubg-nn's n-ply is gnubg's: the
root filter, then each of the 21 rolls played by its pruning nets and full net.

**A whole match.** A 7-point match of the shipped model against gnubg-nn (``gammon match default
gnubg --length 7 --matches 4 --seed 3 --record``, the first match: six games, kept in
``benchmarks/data/thinking_match7.mat``) analysed whole at 0 and 2-ply, moves and cube: by
us (``engine.review.match_analysis.analyse``, in this process) and by GNU Backgammon's own
``analyse match`` (Debian ``gnubg``, ``set threads 1``, its start and the file's import
timed alone and taken off), one after the other.

**Commands.** ``gammon eval POS`` and ``gammon hint POS --dice 31`` at their default depth as a user runs
them, the interpreter's start and every import included: the median wall time of five runs
of each.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from gammon.engine.files import atomic_text
from gammon.engine.records.formats import board_from_position_id, position_id
from gammon.engine.rules.board import CONTACT, CRASHED, position_class
from gammon.engine.rules.movegen import generate
from gammon.engine.search.analysis import rank_moves
from gammon.models.inference import kernels
from gammon.models.players import load_analyst

POSITIONS = Path(__file__).resolve().parent / "data" / "thinking_positions.jsonl"
MATCH = Path(__file__).resolve().parent / "data" / "thinking_match7.mat"
GNUBG = Path("/usr/games/gnubg")
SEED = 2026


def make_positions(count: int = 60) -> list[dict]:
    """``count`` contact positions of the shipped model's self-play (seed 2026), each with a roll of two plays
    or more."""
    return [{"position_id": position_id(board), "dice": dice}
            for board, dice in self_play_positions(load_analyst("default"), count, SEED)]


def self_play_positions(net, count: int, seed: int) -> list[tuple[np.ndarray, list[int]]]:
    """``count`` contact positions of ``net``'s 0-ply self-play (a tenth of its moves random, ``seed``'s games),
    each with a roll of two plays or more."""
    from gammon.training.distill import Collecting, GameBatch, collect_batch

    boards = collect_batch(Collecting(0.1, 0.0, seed, games=max(50, count // 2)), net, GameBatch(0))
    rng = np.random.default_rng(seed)
    positions = []
    for board in boards[rng.permutation(len(boards))]:
        dice = sorted(rng.integers(1, 7, size=2).tolist(), reverse=True)
        plays = len(generate(board[None], np.array([dice])).boards)
        if position_class(board[None])[0] in (CONTACT, CRASHED) and plays > 1:
            positions.append((board, dice))
        if len(positions) == count:
            break
    return positions


def read_positions(limit: int) -> list[tuple[np.ndarray, list[int]]]:
    rows = [json.loads(line) for line in POSITIONS.read_text().splitlines()][:limit]
    return [(board_from_position_id(r["position_id"]), r["dice"]) for r in rows]


def hint_latency(net, positions, plies: int, gnubg_nn) -> dict:
    """Each position's hint by us and by gnubg-nn, one after the other: milliseconds, medians, means, ratios."""
    from gammon.models.gnubg import to_gnubg

    ours, theirs = [], []
    for board, (d1, d2) in positions:
        started = time.perf_counter()
        rank_moves(net, board, (d1, d2), plies)
        ours.append(time.perf_counter() - started)
        if gnubg_nn is not None:
            g = to_gnubg(board[None])[0].tolist()
            started = time.perf_counter()
            gnubg_nn.best_move(g, d1, d2, plies)
            theirs.append(time.perf_counter() - started)
    row = {"plies": plies, "positions": len(positions), "ours_median_ms": round(1e3 * statistics.median(ours), 2),
           "ours_mean_ms": round(1e3 * statistics.mean(ours), 2)}
    if theirs:
        row.update({"gnubg_median_ms": round(1e3 * statistics.median(theirs), 2),
                    "gnubg_mean_ms": round(1e3 * statistics.mean(theirs), 2),
                    "ratio_median": round(statistics.median(ours) / statistics.median(theirs), 2),
                    "ratio_mean": round(statistics.mean(ours) / statistics.mean(theirs), 2)})
    return row


def gnubg_seconds(commands: list[str]) -> float:
    """Wall seconds of GNU Backgammon running ``commands`` from its start (tty mode, one thread)."""
    started = time.perf_counter()
    subprocess.run([str(GNUBG), "-t", "-q", "-r"], input="\n".join(["set threads 1", *commands, "quit"]) + "\n",
                   check=True, capture_output=True, text=True)
    return time.perf_counter() - started


def match_analysis(net, plies: list[int]) -> list[dict]:
    """Seconds to analyse the shipped 7-point match whole at each depth: ours, and GNU Backgammon's where it is
    installed (its start and import, timed alone, taken off)."""
    from gammon.engine.records.match_files import load_match
    from gammon.engine.review.match_analysis import analyse

    log = load_match(MATCH)
    start = gnubg_seconds([f"import mat {MATCH}"]) if GNUBG.exists() else None
    rows = []
    for p in plies:
        started = time.perf_counter()
        decisions = len(analyse(log, net, p).judged)
        row = {"plies": p, "decisions": decisions, "ours_s": round(time.perf_counter() - started, 2)}
        if start is not None:
            gnubg = gnubg_seconds([f"import mat {MATCH}", f"set analysis chequerplay evaluation plies {p}",
                                   f"set analysis cubedecision evaluation plies {p}", "analyse match"]) - start
            row.update(gnubg_s=round(gnubg, 2), ratio=round(row["ours_s"] / gnubg, 2))
        rows.append(row)
    return rows


def command_wall(runs: int = 5) -> list[dict]:
    """Median wall seconds of ``gammon eval`` and ``gammon hint`` at their default depth, each a fresh process."""
    gammon = shutil.which("gammon")
    prefix = [gammon] if gammon else [sys.executable, "-m", "gammon"]
    rows = []
    for args in (["eval", "4HPwATDgc/ABMA"], ["hint", "4HPwATDgc/ABMA", "--dice", "31"]):
        walls = []
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run(prefix + args, check=True, capture_output=True, env={**os.environ, "PYTHONWARNINGS": ""})
            walls.append(time.perf_counter() - started)
        rows.append({"command": " ".join(["gammon"] + args), "median_s": round(statistics.median(walls), 3),
                     "min_s": round(min(walls), 3)})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plies", default="0,1,2", help="comma-separated depths (default 0,1,2)")
    parser.add_argument("--positions", type=int, default=60, help="positions of the shipped file (default 60)")
    parser.add_argument("--model", default="default")
    parser.add_argument("--no-screen", action="store_true", help="search without the model's pruning net")
    parser.add_argument("--no-commands", action="store_true", help="skip the command wall times")
    parser.add_argument("--match-plies", default="0,2",
                        help="depths to analyse the shipped 7-point match at (default 0,2; 'none' skips it)")
    parser.add_argument("--make-positions", action="store_true", help=f"write {POSITIONS.name} anew and stop")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.make_positions:
        atomic_text(POSITIONS, "".join(json.dumps(r) + "\n" for r in make_positions()))
        print(f"wrote {POSITIONS}")
        return 0
    try:
        import gnubg_nn
    except ImportError:
        gnubg_nn = None
        print("gnubg-nn is not installed (pip install -e '.[peers]'): our figures alone", file=sys.stderr)
    net = load_analyst(args.model)
    if args.no_screen:
        net.evaluator.screen = None
    positions = read_positions(args.positions)
    rank_moves(net, *positions[0], 1)  # warm up: the databases and the escape table are loaded once
    report = {"screen": getattr(net.evaluator, "screen", None) is not None, "kernels": kernels(),
              "hints": [hint_latency(net, positions, int(p), gnubg_nn) for p in args.plies.split(",")],
              "commands": [] if args.no_commands else command_wall(),
              "match": [] if args.match_plies == "none" else match_analysis(net, [int(p) for p in
                                                                                  args.match_plies.split(",")])}
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"pruning net: {'on' if report['screen'] else 'off'}; kernels: {report['kernels']}")
    for r in report["hints"]:
        line = f"{r['plies']}-ply hint, {r['positions']} positions: ours median {r['ours_median_ms']:.1f} ms " \
               f"(mean {r['ours_mean_ms']:.1f})"
        if "gnubg_median_ms" in r:
            line += f", gnubg-nn median {r['gnubg_median_ms']:.1f} ms (mean {r['gnubg_mean_ms']:.1f}): " \
                    f"{r['ratio_median']:.2f}x ({r['ratio_mean']:.2f}x on means)"
        print(line)
    for r in report["match"]:
        line = f"7-point match ({r['decisions']} decisions) analysed at {r['plies']}-ply: ours {r['ours_s']:.1f} s"
        if "gnubg_s" in r:
            line += f", GNU Backgammon {r['gnubg_s']:.1f} s: {r['ratio']:.2f}x"
        print(line)
    for r in report["commands"]:
        print(f"{r['command']}: median {r['median_s']:.3f} s (min {r['min_s']:.3f}), start included")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
