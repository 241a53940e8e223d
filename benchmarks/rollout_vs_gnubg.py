"""Our rollouts beside GNU Backgammon's own: the same positions, each engine with its own net, and their speed.

    python -m gammon.benchmarks.rollout_vs_gnubg                       # the opening and 7 contact positions
    python -m gammon.benchmarks.rollout_vs_gnubg --positions 3 --games 1296 --json

For the opening and contact positions of ``benchmarks/data/thinking_positions.jsonl`` (our own
self-play's), both engines roll the position out for the player on roll before his roll,
cubeless, both sides at 0-ply, every game played to the end, one thread, variance-reduced
(gnubg's lookahead variance reduction and quasi-random dice; our ``gammon rollout --vr``), for
``--games`` games each. Reported for each position: both equities with their 95% half-widths,
the difference and z (the difference over the combined standard error: each engine's own net
judges the position, so the two need not agree). Then the opening rolled out plainly (no
variance reduction) by both, for games per second side by side.

GNU Backgammon (Debian's ``/usr/games/gnubg``) is driven in its text mode. Its ``rollout``
command prints its result only through its progress display, which it shows only when its
standard output is a terminal, so it runs on a pseudo-terminal here (docs/gnubg.md). Its
settings: cubeless, no cube decisions, 0-ply play with its pruning nets, no truncation,
no bear-off truncation, the Jacoby rule off (it would drop gammons from a cubeless equity).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pty
import re
import select
import subprocess
import time
from pathlib import Path

from gammon.benchmarks.thinking import POSITIONS
from gammon.engine.play.rollout import rollout
from gammon.engine.records.formats import board_from_position_id
from gammon.models.players import load_analyst

GNUBG = Path("/usr/games/gnubg")
OPENING = "4HPwATDgc/ABMA"
MONEY_CENTERED = "cAkAAAAAAAAE"  # a Match ID: money, cube 1 centred, player 1 on roll, no dice, Jacoby off
NUMBER = r"([-+]?\d+\.\d+)"
SIX_AND_EQUITY = (r"\s*" + r"\s+".join([NUMBER] * 3) + r"\s+-\s+" + r"\s+".join([NUMBER] * 3)
                  + r"\s+CL\s+" + NUMBER)
RESULT = re.compile(r"Current Position:\s*\n" + SIX_AND_EQUITY + r"[^\n]*\n\s*\[" + SIX_AND_EQUITY + r"\s*\]")


def gnubg_commands(position: str, games: int, seed: int, reduce_variance: bool) -> list[str]:
    """The text-mode commands of one cubeless 0-ply rollout of ``position`` (player on roll, before his roll)."""
    on = "on" if reduce_variance else "off"
    return [
        "set threads 1", "set player 0 human", "set player 1 human",
        f"set gnubgid {position}:{MONEY_CENTERED}", "set jacoby off",  # after the ID, which would set it
        "set output winpc off", "set output digits 6", "set output mwc off",
        f"set rollout trials {games}", "set rollout cubeful off", "set rollout initial off",
        "set rollout players-are-same on",
        "set rollout chequerplay plies 0", "set rollout chequerplay cubeful off", "set rollout chequerplay prune on",
        "set rollout chequerplay noise 0", "set rollout cubedecision plies 0", "set rollout cubedecision cubeful off",
        "set rollout later enable off", "set rollout limit enable off", "set rollout jsd stop off",
        f"set rollout varredn {on}", "set rollout quasirandom on", "set rollout rng mersenne",
        f"set rollout seed {seed}",
        "set rollout bearofftruncation exact off", "set rollout bearofftruncation onesided off",
        "set rollout truncation enable off",
        "rollout", "quit",
    ]


def gnubg_rollout(position: str, games: int, seed: int, reduce_variance: bool, timeout: float = 7200) -> dict:
    """GNU Backgammon's rollout of ``position``: equity and its standard error for the player on roll, seconds."""
    master, worker = pty.openpty()
    started = time.perf_counter()
    process = subprocess.Popen([str(GNUBG), "-t", "-q", "-r"], stdin=subprocess.PIPE, stdout=worker, stderr=worker,
                               close_fds=True)
    os.close(worker)
    process.stdin.write(("\n".join(gnubg_commands(position, games, seed, reduce_variance)) + "\n").encode())
    process.stdin.close()
    output = bytearray()
    try:
        while time.perf_counter() - started < timeout:
            if not select.select([master], [], [], 1.0)[0]:
                if process.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 1 << 16)
            except OSError:  # the terminal closed with gnubg
                break
            if not data:
                break
            output += data
        else:
            process.kill()
            raise RuntimeError(f"gnubg's rollout of {position} ran past {timeout:.0f} s")
    finally:
        os.close(master)
        process.wait()
    seconds = time.perf_counter() - started
    text = output.decode("utf-8", "replace").replace("\r", "")
    done = text.rfind("Rollout done.")
    found = RESULT.search(text, done) if done >= 0 else None
    if found is None:
        raise RuntimeError(f"no rollout result in gnubg's output for {position}: {text[-500:]!r}")
    values = [float(x) for x in found.groups()]
    return {"equity": values[6], "std_error": values[13], "seconds": seconds}


def ours(evaluator, position: str, games: int, seed: int, reduce_variance: bool) -> dict:
    result = rollout(evaluator, board_from_position_id(position), games=games, seed=seed,
                     reduce_variance=reduce_variance)
    return {"equity": result.equity, "std_error": result.std_error, "seconds": result.seconds}


def compare(evaluator, position: str, games: int, seed: int) -> dict:
    mine, theirs = ours(evaluator, position, games, seed, True), gnubg_rollout(position, games, seed + 1, True)
    difference = mine["equity"] - theirs["equity"]
    return {"position_id": position, "ours": mine["equity"], "ours_half_width": 1.96 * mine["std_error"],
            "gnubg": theirs["equity"], "gnubg_half_width": 1.96 * theirs["std_error"], "difference": difference,
            "z": difference / math.hypot(mine["std_error"], theirs["std_error"]),
            "ours_games_per_s": games / mine["seconds"], "gnubg_games_per_s": games / theirs["seconds"]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=7, help="contact positions after the opening (default 7)")
    parser.add_argument("--games", type=int, default=1296, help="variance-reduced games a position (default 1296)")
    parser.add_argument("--plain-games", type=int, default=1296 * 4,
                        help="plain games of the opening for the speed comparison (default 5184)")
    parser.add_argument("--seed", type=int, default=5, help="dice seed (gnubg takes seed + 1; default 5)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON Lines")
    args = parser.parse_args(argv)
    if not GNUBG.exists():
        parser.error(f"GNU Backgammon is not installed at {GNUBG} (Debian: apt-get install gnubg)")
    evaluator = load_analyst("default")
    positions = [OPENING] + [json.loads(line)["position_id"]
                             for line in POSITIONS.read_text().splitlines()[:args.positions]]
    rows = []
    for position in positions:
        row = compare(evaluator, position, args.games, args.seed)
        rows.append(row)
        print(json.dumps(row) if args.json else
              f"{position}  ours {row['ours']:+.4f} ± {row['ours_half_width']:.4f}  gnubg {row['gnubg']:+.4f} ± "
              f"{row['gnubg_half_width']:.4f}  difference {row['difference']:+.4f} (z {row['z']:+.2f})  games/s "
              f"{row['ours_games_per_s']:.1f} / {row['gnubg_games_per_s']:.1f}", flush=True)
    differences = [abs(r["difference"]) for r in rows]
    speed = {"plain_games": args.plain_games,
             "ours_games_per_s": args.plain_games / ours(evaluator, OPENING, args.plain_games, args.seed,
                                                         False)["seconds"],
             "gnubg_games_per_s": args.plain_games / gnubg_rollout(OPENING, args.plain_games, args.seed + 1,
                                                                   False)["seconds"]}
    summary = {"positions": len(rows), "mean_abs_difference": sum(differences) / len(rows),
               "largest_abs_difference": max(differences), "largest_abs_z": max(abs(r["z"]) for r in rows),
               "vr_speed_ratio": sum(r["ours_games_per_s"] / r["gnubg_games_per_s"] for r in rows) / len(rows),
               "plain_opening": {**speed, "ratio": speed["ours_games_per_s"] / speed["gnubg_games_per_s"]}}
    print(json.dumps(summary) if args.json else
          f"\n{len(rows)} positions: mean |difference| {summary['mean_abs_difference']:.4f}, largest "
          f"{summary['largest_abs_difference']:.4f} (largest |z| {summary['largest_abs_z']:.2f}); variance-reduced "
          f"games/s ours / gnubg {summary['vr_speed_ratio']:.2f}x on average\nthe opening played plainly, "
          f"{args.plain_games} games: ours {speed['ours_games_per_s']:.0f} games/s, gnubg "
          f"{speed['gnubg_games_per_s']:.0f}: {summary['plain_opening']['ratio']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
