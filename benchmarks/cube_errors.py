"""Cube errors on held-out positions of our own self-play, judged by GNU Backgammon 2-ply, beside gnubg's 0-ply.

    gammon bench cube_errors                          # the shipped model at 0 and 2-ply, 4,000 positions
    gammon bench cube_errors --model OTHER.pt --plies 0 --json
    gammon bench cube_errors --cube-model-alone       # our cube model fed gnubg-nn's 0-ply probabilities too
    gammon bench cube_errors --make-positions         # benchmarks/data/cube_positions.jsonl anew (needs gnubg)

The dev file (tests/data/dev_positions.jsonl) is for reporting only, so a change that moves
cube decisions needs positions of its own to be judged on. These are contact and crashed
positions of the shipped model's self-play (seed 5151, a tenth of the moves random, each
position once, in random order: no training run uses that seed), kept with GNU Backgammon's
figures in ``benchmarks/data/cube_positions.jsonl``: its 2-ply cubeful money equities for no
double, double/take and double/pass (centred cube, Jacoby off, as the dev file was made), and
the same three at its 0-ply.

Each decision is scored as benchmarks/accuracy.py scores the dev file's
(:func:`benchmarks.accuracy.decision_losses`): the doubler's loss of equity where our
double/no-double call differs from what gnubg's 2-ply figures make right, and the taker's
where our take/pass does, in thousandths of a point per position (most positions are far
from any cube action and cost nobody anything). GNU Backgammon's own 0-ply calls are scored
the same way: the target of the strength issue is to be no worse than them. With two
models, their paired differences get a 95% interval. ``--cube-model-alone`` also scores our
cube model (:func:`engine.cube.decisions.cube_decision`, our cube efficiency) fed gnubg-nn's
0-ply probabilities instead of our nets': where that matches gnubg's own 0-ply calls, what our
calls lose beyond them comes from our probabilities, not from the cube model.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from gammon.benchmarks.accuracy import GNUBG, CubeCalls, decision_losses, judged_calls, loss_summary, reference_figures
from gammon.engine.files import atomic_text
from gammon.engine.play.stats import mean_ci95
from gammon.engine.records.formats import position_id
from gammon.engine.rules.board import CONTACT, CRASHED, position_class
from gammon.models.players import load_analyst

POSITIONS = Path(__file__).resolve().parent / "data" / "cube_positions.jsonl"
SEED = 5151

# Runs inside gnubg's embedded Python: (no double, double/take, double/pass) of each position for the player
# on roll, money, centred cube, Jacoby off, at the given plies.
CUBE_SCRIPT = """
import json, gnubg
ids = json.load(open({inp!r}))
ci = gnubg.cubeinfo(1, -1, 1, 0, (0, 0), 0)
ci['jacoby'] = 0
ci = gnubg.calcgammonprice(ci) or ci
out = {{}}
for plies in {plies!r}:
    ec = gnubg.evalcontext(1, plies, 1, 0, 0.0)
    out[plies] = {{pid: list(gnubg.cfevaluate(gnubg.positionfromid(pid), ci, ec)[1:4]) for pid in ids}}
json.dump(out, open({out!r}, 'w'))
"""


def gnubg_cube_figures(ids: list[str], plies: tuple[int, ...]) -> dict[int, dict[str, list[float]]]:
    """GNU Backgammon's (nd, dt, dp) of each position at each of ``plies`` (Debian ``gnubg``, embedded Python)."""
    if not Path(GNUBG).exists():
        raise SystemExit(f"GNU Backgammon ({GNUBG}) is needed to make the positions file")
    with tempfile.TemporaryDirectory() as tmp:
        inp, out, script = Path(tmp, "in.json"), Path(tmp, "out.json"), Path(tmp, "cube.py")
        inp.write_text(json.dumps(ids))
        script.write_text(CUBE_SCRIPT.format(inp=str(inp), out=str(out), plies=list(plies)))
        subprocess.run([GNUBG, "-t", "-q", "-r", "-p", str(script)], capture_output=True, timeout=7200, check=False)
        if not out.exists():
            raise SystemExit("GNU Backgammon returned no cube figures")
        return {int(k): v for k, v in json.loads(out.read_text()).items()}


def make_positions(count: int = 4000) -> list[dict]:
    """``count`` distinct contact or crashed positions of the shipped model's self-play (seed 5151), with gnubg's
    2-ply and 0-ply cube figures."""
    from gammon.training.distill import Collecting, GameBatch, collect_batch

    net, boards, batch = load_analyst("default"), [], 0
    while sum(map(len, boards)) < 2 * count:
        found = collect_batch(Collecting(0.1, 0.0, SEED, games=100), net, GameBatch(batch))
        boards.append(found[np.isin(position_class(found), (CONTACT, CRASHED))])
        batch += 1
    boards = np.unique(np.concatenate(boards), axis=0)
    ids = [position_id(b) for b in boards[np.random.default_rng(SEED).permutation(len(boards))[:count]]]
    figures = {plies: {pid: [round(v, 5) for v in values] for pid, values in by_id.items()}
               for plies, by_id in gnubg_cube_figures(ids, (2, 0)).items()}
    return [{"position_id": pid, "pre_roll_2ply": dict(zip(("nd", "dt", "dp"), figures[2][pid])),
             "gnubg_0ply": figures[0][pid]} for pid in ids]


def gnubg_losses(items: list[dict]) -> CubeCalls:
    """GNU Backgammon's own 0-ply calls judged by its 2-ply figures, as :func:`decision_losses` judges ours."""
    nd, dt, dp = np.array([item["gnubg_0ply"] for item in items], dtype=np.float64).reshape(-1, 3).T
    return judged_calls(reference_figures(items), np.minimum(dt, dp) > nd, dt <= dp)


def describe(who: str, row: dict) -> str:
    double, take = row["double"], row["take"]
    return (f"{who}: double/no-double {double['mean']:.3f} mp ({double['wrong']} wrong), "
            f"take/pass {take['mean']:.3f} mp ({take['wrong']} wrong)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", action="append", help="weights file or name; twice for paired differences "
                                                          "(default: the shipped model)")
    parser.add_argument("--plies", default="0,2", help="comma-separated plies of our cube decisions (default 0,2)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N positions")
    parser.add_argument("--cube-model-alone", action="store_true",
                        help="also our cube model fed gnubg-nn's 0-ply probabilities (needs gnubg-nn)")
    parser.add_argument("--make-positions", action="store_true", help="write the positions file anew (needs gnubg)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.make_positions:
        rows = make_positions()
        atomic_text(POSITIONS, "".join(json.dumps(row, separators=(",", ":")) + "\n" for row in rows))
        print(f"{len(rows)} positions -> {POSITIONS}")
        return 0

    items = [json.loads(line) for line in POSITIONS.read_text().splitlines()][: args.limit]
    models = args.model or ["default"]
    report = {"positions": len(items), "gnubg_0ply": loss_summary(gnubg_losses(items)), "models": {},
              "differences": {}}
    if args.cube_model_alone:
        from gammon.models.gnubg import GnubgEvaluator

        report["our_cube_model_on_gnubg_nn_0ply"] = loss_summary(decision_losses(GnubgEvaluator(), items, 0))
    nets = {name: load_analyst(name) for name in models}
    for plies in [int(p) for p in args.plies.split(",") if p]:
        losses = {name: decision_losses(net, items, plies, progress=True) for name, net in nets.items()}
        for name, calls in losses.items():
            report["models"].setdefault(name, {})[plies] = loss_summary(calls)
        for name in models[1:]:
            report["differences"].setdefault(name, {})[plies] = {
                decision: dict(zip(("mean", "ci95"), mean_ci95(losses[name][k] - losses[models[0]][k])))
                for k, decision in enumerate(("double", "take"))}
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{len(items)} held-out self-play positions; cube loss in mp per position, gnubg 2-ply as judge")
    print(describe("gnubg 0-ply", report["gnubg_0ply"]))
    if "our_cube_model_on_gnubg_nn_0ply" in report:
        print(describe("our cube model on gnubg-nn 0-ply probabilities", report["our_cube_model_on_gnubg_nn_0ply"]))
    for name, by_ply in report["models"].items():
        for plies, row in by_ply.items():
            print(describe(f"{name} {plies}-ply", row))
    for name, by_ply in report["differences"].items():
        for plies, row in by_ply.items():
            print(f"{name} minus {models[0]}, {plies}-ply: " + ", ".join(
                f"{decision} {d['mean']:+.3f} ({d['ci95'][0]:+.3f} .. {d['ci95'][1]:+.3f})"
                for decision, d in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
