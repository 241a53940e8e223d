"""Analysis accuracy against GNU Backgammon 2-ply on tests/data/dev_positions.jsonl.

    python -m gammon.benchmarks.accuracy [--plies 0,1,2] [--model default] [--limit N] [--top 10] [--json]
    python -m gammon.benchmarks.accuracy --plies 2,3 --no-cube --limit 300   # 3-ply moves beside 2-ply
    python -m gammon.benchmarks.accuracy --plies 2 --levels R1 --no-cube --limit 300   # a rollout level too

Move choice: for each position and roll, the equity GNU Backgammon's 2-ply gives our
chosen move, subtracted from the equity of its own best move, in thousandths of a point
(mp) per move; mean with a 95% CI, overall and per position class. The file lists
gnubg's best five moves with their 2-ply equities; a move of ours outside that list is
scored by running the Debian ``gnubg`` package's embedded Python (cubeful 2-ply, money,
centered cube, Jacoby off, as the file was made), and the answers are cached in
``benchmarks/data/gnubg_2ply_equities.json`` so later runs need gnubg only for new moves.
Moves that can be scored neither way are counted and reported, never guessed.

The model answers as the analysis commands do (``load_analyst``: bear-offs from the exact
databases). Positions are grouped by gnubg's class from the file; ``--top`` lists the
largest errors.

Cube decisions: our double/no-double and take/pass calls for the position before the
roll, each scored with gnubg's own 2-ply cubeful equities (no double, double/take,
double/pass) from the file.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
from tqdm import tqdm

from gammon.engine.cube.decisions import cube_decision
from gammon.engine.cube.money import cube_efficiency
from gammon.engine.cube.state import Cube
from gammon.engine.files import atomic_text
from gammon.engine.play.stats import mean_ci95
from gammon.engine.records.formats import board_from_position_id, position_id
from gammon.engine.review.advice import LEVELS, rollout_rows
from gammon.engine.rules.board import flip
from gammon.engine.rules.notation import format_move
from gammon.engine.search.analysis import position_probs, rank_moves
from gammon.models.players import load_analyst

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "dev_positions.jsonl"
CACHE = ROOT / "benchmarks" / "data" / "gnubg_2ply_equities.json"
GNUBG = "/usr/games/gnubg"

# Runs inside gnubg's embedded Python: the mover's cubeful 2-ply equity of each result
# position (opponent on roll), money, centered cube, Jacoby off.
ORACLE_SCRIPT = """
import json, gnubg
ids = json.load(open({inp!r}))
ec = gnubg.evalcontext(1, 2, 1, 0, 0.0)
ci = gnubg.cubeinfo(1, -1, 1, 0, (0, 0), 0)
ci['jacoby'] = 0
ci = gnubg.calcgammonprice(ci) or ci
out = {{rid: -gnubg.cfevaluate(gnubg.positionfromid(rid), ci, ec)[0] for rid in ids}}
json.dump(out, open({out!r}, 'w'))
"""


def gnubg_equities(result_ids: list[str]) -> dict[str, float]:
    """gnubg 2-ply equities for the mover of each result position (empty when gnubg is missing)."""
    if not result_ids or not Path(GNUBG).exists():
        return {}
    with tempfile.TemporaryDirectory() as tmp:
        inp, out, script = Path(tmp, "in.json"), Path(tmp, "out.json"), Path(tmp, "oracle.py")
        inp.write_text(json.dumps(result_ids))
        script.write_text(ORACLE_SCRIPT.format(inp=str(inp), out=str(out)))
        subprocess.run([GNUBG, "-t", "-q", "-r", "-p", str(script)], capture_output=True, timeout=3600, check=False)
        return json.loads(out.read_text()) if out.exists() else {}


def load_cache() -> dict[str, float]:
    return json.loads(CACHE.read_text()) if CACHE.exists() else {}


def save_cache(cache: dict[str, float]) -> None:
    atomic_text(CACHE, json.dumps(dict(sorted(cache.items())), indent=0))


def mean_ci(values) -> dict:
    if len(values) == 0:
        return {"n": 0, "mean": None, "ci95": None}
    mean, ci95 = mean_ci95(values)
    return {"n": len(values), "mean": mean, "ci95": list(ci95)}


def choose_moves(net, items, plies: int, progress: bool):
    """Our chosen move's result ID for every item at ``plies``, its notation, and the seconds each hint took."""
    chosen, notations, seconds = [], [], []
    for item in tqdm(items, desc=f"moves {plies}-ply", disable=not progress, leave=False):
        board = board_from_position_id(item["position_id"])
        started = time.perf_counter()
        best = rank_moves(net, board, item["dice"], plies=plies)[0]
        seconds.append(time.perf_counter() - started)
        chosen.append(position_id(flip(best.board)))
        notations.append(format_move(board, best.steps))
    return chosen, notations, seconds


def choose_level_moves(net, items, name: str, progress: bool):
    """:func:`choose_moves` by a named rollout level (engine.review.advice.LEVELS), as ``gammon hint --level``
    chooses: the best few plays of the 2-ply search rolled out, variance-reduced and truncated, the best by
    the rollout's value (engine.review.advice.rollout_rows)."""
    level = LEVELS[name]
    chosen, notations, seconds = [], [], []
    for item in tqdm(items, desc=f"moves {name}", disable=not progress, leave=False):
        board = board_from_position_id(item["position_id"])
        started = time.perf_counter()
        best = rollout_rows(net, board, None, item["dice"], 2, level.candidates, level.games, 0, level.truncate,
                            reduce_variance=True)[0]
        seconds.append(time.perf_counter() - started)
        chosen.append(best["result_id"])
        notations.append(best["move"])
    return chosen, notations, seconds


class CubeCalls(NamedTuple):
    """Each position's loss (mp) of a player's double/no-double and take/pass calls, judged by gnubg's 2-ply
    figures, and whether each call differs from the one those figures make right (a wrong call costs nothing
    where the two actions tie)."""

    double_loss: np.ndarray
    take_loss: np.ndarray
    double_wrong: np.ndarray
    take_wrong: np.ndarray


def judged_calls(reference: np.ndarray, doubles: np.ndarray, takes: np.ndarray) -> CubeCalls:
    """CubeCalls of calls ``doubles`` and ``takes`` (N,) bool, judged by ``reference`` (N, 3): gnubg's 2-ply no
    double, double/take and double/pass equities for the player on roll."""
    nd, dt, dp = np.asarray(reference, dtype=np.float64).reshape(-1, 3).T
    best_double = np.minimum(dt, dp)
    return CubeCalls(1000 * (np.maximum(nd, best_double) - np.where(doubles, best_double, nd)),
                     1000 * (np.where(takes, dt, dp) - best_double),  # the taker wants the doubler's equity low
                     doubles != (best_double > nd), takes != (dt <= dp))


def reference_figures(items) -> np.ndarray:
    """(N, 3) gnubg's 2-ply no double, double/take, double/pass equities of each item."""
    return np.array([[item["pre_roll_2ply"][k] for k in ("nd", "dt", "dp")] for item in items]).reshape(-1, 3)


def cube_calls(net, items, plies: int, progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Our calls before the roll at ``plies`` (money, centred cube): whether we double, whether we take, (N,) bool."""
    doubles, takes = [], []
    for item in tqdm(items, desc=f"cube {plies}-ply", disable=not progress, leave=False):
        board = board_from_position_id(item["position_id"])
        ours = cube_decision(position_probs(net, board[None], plies)[0], Cube(), float(cube_efficiency(board)[0]))
        doubles.append(ours.action == "double")
        takes.append(ours.response != "pass")
    return np.array(doubles, dtype=bool), np.array(takes, dtype=bool)


def decision_losses(net, items, plies: int, progress: bool = False) -> CubeCalls:
    """Our double/no-double and take/pass calls before the roll at ``plies``, judged by gnubg's 2-ply figures."""
    return judged_calls(reference_figures(items), *cube_calls(net, items, plies, progress))


def loss_summary(calls: CubeCalls) -> dict:
    """Mean loss (95% CI) and wrong calls of each decision."""
    return {"double": {**mean_ci(calls.double_loss), "wrong": int(calls.double_wrong.sum())},
            "take": {**mean_ci(calls.take_loss), "wrong": int(calls.take_wrong.sum())}}


def cube_losses(net, items, plies: int, progress: bool) -> dict:
    """Double/no-double and take/pass losses (mp per decision) judged by gnubg's 2-ply figures."""
    return loss_summary(decision_losses(net, items, plies, progress))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plies", default="0,1,2", help="comma-separated plies to measure (default 0,1,2)")
    parser.add_argument("--model", default="default", help="weights file or player name (default: the shipped net)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N positions")
    parser.add_argument("--top", type=int, default=10, help="list the N largest move errors per ply (default 10)")
    parser.add_argument("--levels", default="", help="comma-separated rollout levels to measure too (R1, R2, R3)")
    parser.add_argument("--no-screen", action="store_true", help="search without the model's pruning net")
    parser.add_argument("--no-cube", action="store_true", help="moves only (a deep cube search is the slow part)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    progress = not args.no_progress

    items = [json.loads(line) for line in open(DATA)][: args.limit]
    net = load_analyst(args.model)
    if args.no_screen:
        net.evaluator.screen = None
    cache = load_cache()
    report = {"positions": len(items), "model": args.model, "screen": getattr(net, "screen", None) is not None,
              "moves": {}, "cube": {}}
    depths = [int(p) for p in args.plies.split(",") if p] + [name for name in args.levels.split(",") if name]
    for plies in depths:
        if isinstance(plies, str):
            chosen, notations, seconds = choose_level_moves(net, items, plies, progress)
        else:
            chosen, notations, seconds = choose_moves(net, items, plies, progress)
        listed = [{m["result_id"]: m["equity"] for m in item["moves_2ply"]} for item in items]
        missing = sorted({rid for rid, known in zip(chosen, listed) if rid not in known and rid not in cache})
        if missing:
            cache.update(gnubg_equities(missing))
            save_cache(cache)
        losses, classes, unscored, errors = [], {}, 0, []
        for item, rid, known, move in zip(items, chosen, listed, notations):
            equity = known.get(rid, cache.get(rid))
            if equity is None:
                unscored += 1
                continue
            loss = 1000 * (item["moves_2ply"][0]["equity"] - equity)
            losses.append(loss)
            classes.setdefault(item["class"], []).append(loss)
            errors.append({"gnubgid": item["gnubgid"], "dice": item["dice"], "class": item["class"], "ours": move,
                           "gnubg": item["moves_2ply"][0]["move"], "loss": loss})
        same = sum(rid == item["moves_2ply"][0]["result_id"] for rid, item in zip(chosen, items))
        report["moves"][plies] = {
            **mean_ci(losses), "unscored": unscored, "same_as_gnubg": same / len(items),
            "by_class": {name: mean_ci(values) for name, values in sorted(classes.items())},
            "hint_seconds_median": float(np.median(seconds)),
            "hint_seconds_median_contact": float(np.median(
                [s for s, i in zip(seconds, items) if i["class"] == "contact"] or [np.nan])),
            "largest": sorted(errors, key=lambda e: -e["loss"])[: args.top],
        }
        if not args.no_cube and isinstance(plies, int):
            report["cube"][plies] = cube_losses(net, items, plies, progress)

    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{report['positions']} positions, model {args.model}; loss in mp (thousandths of a point), "
          "gnubg 2-ply as judge")
    for plies, row in report["moves"].items():
        low, high = row["ci95"] if row["ci95"] else (float("nan"), float("nan"))
        classes = ", ".join(f"{k} {v['mean']:.1f} (n={v['n']})" for k, v in row["by_class"].items())
        depth = plies if isinstance(plies, str) else f"{plies}-ply"
        print(f"moves {depth}: {row['mean']:.2f} mp/move [{low:.2f}, {high:.2f}], "
              f"same move as gnubg {row['same_as_gnubg']:.1%}, unscored {row['unscored']}; "
              f"median hint {1000 * row['hint_seconds_median']:.0f} ms "
              f"(contact {1000 * row['hint_seconds_median_contact']:.0f} ms)")
        print(f"   by class: {classes}")
        for e in row["largest"]:
            print(f"   {e['loss']:6.0f} mp  {e['gnubgid']}  {e['dice'][0]}-{e['dice'][1]}  {e['class']:8}  "
                  f"ours {e['ours']:24} gnubg {e['gnubg']}")
    for plies, row in report["cube"].items():
        d, t = row["double"], row["take"]
        print(f"cube {plies}-ply: double/no-double {d['mean']:.2f} mp/decision ({d['wrong']} wrong of {d['n']}), "
              f"take/pass {t['mean']:.2f} mp/decision ({t['wrong']} wrong of {t['n']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
