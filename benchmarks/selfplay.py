"""Self-play throughput: games/s of our batched trainer against GNU Backgammon's own loop.

    python -m gammon.benchmarks.selfplay                     # 3 rounds of 20 s each side
    python -m gammon.benchmarks.selfplay --seconds 5 --rounds 1 --parallel 64 --threads 1 --json
    python -m gammon.benchmarks.selfplay --nets all=tesauro198+race     # one net on Tesauro's inputs only
    python -m gammon.benchmarks.selfplay --backend torch --device cpu   # self-play in torch (train --backend torch)

Ours: :class:`training.train.Trainer` with the default :class:`~training.train.Config`
(``--parallel`` games side by side; ``--threads`` overrides its torch thread count;
``--nets`` its nets and their inputs, by default one per class with the knowledge features;
``--backend`` and ``--device`` where self-play and the net run, as ``gammon train`` takes them):
every ply moves all games and takes one TD step.
All games start together, so finishes come in waves at first; the timing starts after
a warm-up of at least ``--warmup-plies`` plies and ``--parallel`` finished games (one
turnover, which spreads the games' ages). games/s = games finished / seconds.

Peer (when ``gnubg_nn``, PyPI ``gnubg-nn``, is installed): gnubg's network at 0-ply
(``gnubg_nn.bestmove``) against pubeval (``gnubg_nn.pub_best_move``), one game at a time
in a Python loop, full games with the opening-roll rule. No learning happens on that
side: it is the speed of play alone, an upper bound for any self-play built on it.
Before timing, a few of its games are checked ply by ply against
:func:`engine.rules.movegen.generate`. Rounds interleave ours and gnubg so both see the same
machine load; the ratio ours/gnubg is taken per round (median and range reported).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from dataclasses import asdict

import numpy as np

from gammon.engine.rules.board import starting_board
from gammon.engine.rules.movegen import generate
from gammon.engine.rules.variants import STANDARD
from gammon.models.gnubg import from_gnubg, to_gnubg
from gammon.training.train import Config, Trainer, default_nets

CHECKED_GAMES = 3  # gnubg games verified ply by ply before timing
# bestmove's 5th argument (a side) must be one byte; with NUL it moves slot 1, the player on roll.
NO_SIDE = b"\x00"


# --------------------------------------------------------------------------- gnubg's loop


def apply_pubeval_move(board, steps: list[int]) -> list[list[int]]:
    """Play ``pub_best_move``'s flat ``[from, to, ...]`` (0-based, 24 = bar, -1 = off) for slot 1.

    Returns the board turned to the next player, like gnubg's bestmove key:
    ``[side that moved, its opponent]``.
    """
    opponent, mover = list(board[0]), list(board[1])
    for source, target in zip(steps[::2], steps[1::2]):
        mover[source] -= 1
        if target >= 0:
            mover[target] += 1
            if opponent[23 - target] == 1:  # our point t+1 is the opponent's point 24-t: a blot is hit
                opponent[23 - target] = 0
                opponent[24] += 1
    return [mover, opponent]


def game_points(after) -> int:
    """Points won by the side that just bore off its last checker (``after`` = [winner, loser])."""
    loser = after[1]
    if sum(loser) < 15:
        return 1
    # loser on the bar or on its points 19..24 (the winner's home board): backgammon
    return 3 if any(loser[18:25]) else 2


def play_gnubg_game(gnubg_nn, rng: random.Random, trace: list | None = None) -> tuple[int, int]:
    """One game of gnubg 0-ply (player 0) against pubeval (player 1); returns (gnubg's points, plies).

    The opening roll decides who starts (one die each, re-rolled while equal; the higher
    die moves first with both). With ``trace``, each ply appends (board, dice, board
    after) in gnubg arrays, the board after turned to the next player.
    """
    d1 = d2 = 0
    while d1 == d2:
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
    player = 0 if d1 > d2 else 1
    start = to_gnubg(starting_board())[0].tolist()
    board, plies = start, 0
    while True:
        if player == 0:
            key = gnubg_nn.bestmove(board, d1, d2, 0, NO_SIDE, 1)[1]
            after = [list(side) for side in gnubg_nn.boardfromkey(key)]  # pub_best_move takes lists only
        else:
            after = apply_pubeval_move(board, gnubg_nn.pub_best_move(board, d1, d2))
        plies += 1
        if trace is not None:
            trace.append((board, (d1, d2), after))
        if not any(after[0]):
            points = game_points(after)
            return (points if player == 0 else -points), plies
        board, player = after, 1 - player
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)


def illegal_plies(trace: list) -> list[int]:
    """Indices of traced plies whose board after is not a legal afterstate of (board, dice)."""
    before = from_gnubg([b for b, _, _ in trace])
    dice = np.array([d for _, d, _ in trace], dtype=np.int8)
    after = from_gnubg([a[::-1] for _, _, a in trace])  # slot 1 = the side that moved, as in our afterstates
    legal = generate(before, dice)
    return [i for i in range(len(trace)) if not (legal.of(i) == after[i]).all(axis=1).any()]


def check_gnubg_games(gnubg_nn, games: int, seed: int) -> dict:
    """Play ``games`` traced games and check every ply; raises AssertionError on an illegal one."""
    rng = random.Random(seed)
    trace, results = [], []
    for _ in range(games):
        results.append(play_gnubg_game(gnubg_nn, rng, trace))
    bad = illegal_plies(trace)
    if bad:
        board, dice, after = trace[bad[0]]
        raise AssertionError(f"{len(bad)} illegal gnubg/pubeval plies, first: {board} dice {dice} -> {after}")
    return {"games": games, "plies": len(trace), "points": [p for p, _ in results]}


def gnubg_round(gnubg_nn, rng: random.Random, seconds: float) -> tuple[int, float]:
    """Whole games played in about ``seconds``: (games, seconds taken)."""
    games, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        play_gnubg_game(gnubg_nn, rng)
        games += 1
    return games, time.perf_counter() - t0


# --------------------------------------------------------------------------- our trainer


def warm_up(trainer, min_plies: int, min_games: int) -> tuple[int, int, float]:
    """Self-play until both minimums are reached: (plies, games finished, seconds)."""
    plies, games, t0 = trainer.plies, 0, time.perf_counter()
    while trainer.plies - plies < min_plies or games < min_games:
        games += trainer.self_play(max(min_games - games, 1))
    return trainer.plies - plies, games, time.perf_counter() - t0


def trainer_round(trainer, seconds: float) -> tuple[int, int, float]:
    """Self-play for about ``seconds`` in steps of a few games: (games finished, plies, seconds taken)."""
    games, plies, t0 = 0, trainer.plies, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        games += trainer.self_play(16)
    return games, trainer.plies - plies, time.perf_counter() - t0


# --------------------------------------------------------------------------- the run


def measure(seconds: float, rounds: int, parallel: int, threads: int, warmup_plies: int, seed: int,
            nets: str, backend: str = "numpy", device: str = "cpu") -> dict:
    try:
        import gnubg_nn
    except ImportError:
        gnubg_nn = None
    config = Config(parallel=parallel, threads=threads, nets=nets, backend=backend, device=device)
    trainer = Trainer(config)
    plies, games, taken = warm_up(trainer, warmup_plies, parallel)
    report = {
        "seconds": seconds,
        "rounds": rounds,
        "config": asdict(config),
        "warmup": {"plies": plies, "games": games, "seconds": round(taken, 2)},
        "ours": [],
    }
    if gnubg_nn is not None:
        report["gnubg_check"] = check_gnubg_games(gnubg_nn, CHECKED_GAMES, seed)
        report["gnubg"] = []
        rng = random.Random(seed + 1)
    for _ in range(rounds):
        g, p, t = trainer_round(trainer, seconds)
        report["ours"].append({"games": g, "plies": p, "seconds": round(t, 3), "games_per_s": g / t})
        if gnubg_nn is not None:
            g, t = gnubg_round(gnubg_nn, rng, seconds)
            report["gnubg"].append({"games": g, "seconds": round(t, 3), "games_per_s": g / t})
    report["ours_games_per_s"] = float(np.median([r["games_per_s"] for r in report["ours"]]))
    if gnubg_nn is not None:
        report["gnubg_games_per_s"] = float(np.median([r["games_per_s"] for r in report["gnubg"]]))
        ratios = [o["games_per_s"] / g["games_per_s"] for o, g in zip(report["ours"], report["gnubg"])]
        report["ratio_to_gnubg"] = float(np.median(ratios))
        report["ratio_range"] = [min(ratios), max(ratios)]
    return report


def main(argv=None) -> int:
    defaults = Config()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="timed seconds per side per round (default 20)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--parallel", type=int, default=defaults.parallel,
                        help=f"games side by side in our trainer (default {defaults.parallel})")
    parser.add_argument("--threads", type=int, default=defaults.threads,
                        help=f"torch threads (default {defaults.threads}; 1 is far faster on a busy machine)")
    nets = default_nets(STANDARD)
    parser.add_argument("--nets", default=nets, help=f"the trainer's nets (default {nets})")
    parser.add_argument("--backend", default="numpy", choices=("numpy", "torch"),
                        help="self-play on the host (numpy, the default) or in torch on --device")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="where the net runs (default cpu)")
    parser.add_argument("--warmup-plies", type=int, default=50, help="least warm-up plies before timing (default 50)")
    parser.add_argument("--seed", type=int, default=1, help="dice seed of the gnubg games (default 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    report = {"machine": f"{platform.machine()} {platform.processor() or ''}".strip(), "cpus": os.cpu_count(),
              **measure(args.seconds, args.rounds, args.parallel, args.threads, args.warmup_plies, args.seed,
                        args.nets, args.backend, args.device)}
    if args.json:
        print(json.dumps(report))
        return 0
    warm = report["warmup"]
    print(f"{args.rounds} interleaved rounds of {args.seconds:g} s; our warm-up {warm['plies']} plies, "
          f"{warm['games']} games, {warm['seconds']:.1f} s")
    rates = [r["games_per_s"] for r in report["ours"]]
    print(f"ours  trainer ({args.nets}, {args.backend} on {args.device}), parallel {args.parallel:>4}, "
          f"{args.threads} thread(s)  : "
          f"{report['ours_games_per_s']:>9,.1f} games/s (median; {min(rates):,.1f}-{max(rates):,.1f})")
    if "gnubg" in report:
        rates = [r["games_per_s"] for r in report["gnubg"]]
        low, high = report["ratio_range"]
        checked = report["gnubg_check"]["games"]
        print(f"gnubg 0-ply vs pubeval, one game at a time: {report['gnubg_games_per_s']:>9,.1f} games/s "
              f"(median; {min(rates):,.1f}-{max(rates):,.1f}); {checked} games checked legal")
        print(f"ratio ours/gnubg: {report['ratio_to_gnubg']:.3f}x "
              f"(median of {args.rounds} rounds, {low:.3f}-{high:.3f})")
    else:
        print("gnubg_nn not installed: no peer figures (pip install gnubg-nn)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
