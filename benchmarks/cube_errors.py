"""Cube errors on held-out positions of our own self-play, judged by GNU Backgammon 2-ply, beside gnubg's 0-ply.

    gammon bench cube_errors                          # the shipped model at 0 and 2-ply, 4,000 positions
    gammon bench cube_errors --model OTHER.pt --plies 0 --json
    gammon bench cube_errors --cube-model-alone       # our cube model fed gnubg-nn's 0-ply probabilities too
    gammon bench cube_errors --plies 0 --rollout-judge default   # also judged by rollouts of our play
    gammon bench cube_errors --plies 0 --rollout-judge gnubg --judge-games 144   # ... of gnubg-nn's play
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

gnubg's 2-ply figures come from the same net as its 0-ply calls, so they lean its way.
``--rollout-judge PLAYER`` judges the calls a second way: each position where two players' calls
differ (elsewhere they lose the same under any judge) is rolled out, cubeful, both sides playing
and doubling by PLAYER at 0-ply, variance-reduced, every game to its end
(:func:`engine.play.rollout.cube_rollout`), and each player's calls less gnubg 0-ply's are given
under both judges. The rollouts are kept in the cache as they finish, so a stopped run resumes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from tqdm import tqdm

from gammon.benchmarks.accuracy import (
    GNUBG,
    CubeCalls,
    cube_calls,
    decision_losses,
    judged_calls,
    loss_summary,
    reference_figures,
)
from gammon.engine.cube.state import Cube
from gammon.engine.files import atomic_text
from gammon.engine.play.rollout import cube_rollout
from gammon.engine.play.shards import AppendOnlyStore
from gammon.engine.play.stats import mean_ci95
from gammon.engine.records.formats import board_from_position_id, position_id
from gammon.engine.rules.board import CONTACT, CRASHED, position_class
from gammon.engine.search.bearoff import cache_dir
from gammon.models.inference import file_digest
from gammon.models.players import load_analyst, weights_path

POSITIONS = Path(__file__).resolve().parent / "data" / "cube_positions.jsonl"
SEED = 5151
JUDGE_GAMES = 324  # a rollout judge's games a cube action, variance-reduced
JUDGE_SEED = 77
JUDGE_KIND = "gammon cube_errors rollouts"

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


def gnubg_calls(items: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """GNU Backgammon's own 0-ply calls: whether it doubles, whether it takes, (N,) bool."""
    nd, dt, dp = np.array([item["gnubg_0ply"] for item in items], dtype=np.float64).reshape(-1, 3).T
    return np.minimum(dt, dp) > nd, dt <= dp


def gnubg_losses(items: list[dict]) -> CubeCalls:
    """GNU Backgammon's own 0-ply calls judged by its 2-ply figures, as :func:`decision_losses` judges ours."""
    return judged_calls(reference_figures(items), *gnubg_calls(items))


def judge_identity(judge: str) -> str:
    """What a rollout judge's figures depend on: gnubg-nn, or the digest of the weights a net judge plays with."""
    return "gnubg-nn" if judge == "gnubg" else file_digest(weights_path(judge))[:16]


class JudgeStore(AppendOnlyStore):
    """A rollout judge's figures, a position a line, kept as they come (:class:`engine.play.shards.AppendOnlyStore`):
    ``done`` maps a Position ID to its no double and double/take."""

    def __init__(self, path, options: dict):
        self.done: dict[str, list[float]] = {}
        super().__init__(path, options, JUDGE_KIND)

    def _take(self, record: dict) -> None:
        self.done[record["position_id"]] = [record["nd"], record["dt"]]

    def add(self, pid: str, no_double: float, double_take: float) -> None:
        self.done[pid] = [no_double, double_take]
        self._append({"position_id": pid, "nd": no_double, "dt": double_take})


def rolled_out_figures(ids: list[str], judge: str, games: int = JUDGE_GAMES, seed: int = JUDGE_SEED,
                       progress: bool = False) -> np.ndarray:
    """(N, 3) no double, double/take and double/pass of each position (money, centred cube, the player on roll)
    from cubeful rollouts of ``judge``'s 0-ply play, both sides doubling by it (engine.play.rollout.cube_rollout),
    ``games`` games an action, variance-reduced, every game to its end. Each position's figures join a store in
    the cache as they come (``$GAMMON_CACHE/cube_rollouts``, a line a position), so a stopped run resumes."""
    evaluator = load_analyst(judge)  # first: a name that is no player is refused in load_player's words
    identity = judge_identity(judge)
    path = cache_dir() / "cube_rollouts" / f"{identity}-{games}-{seed}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    store = JudgeStore(path, {"judge": identity, "games": games, "seed": seed})
    try:
        for pid in tqdm([pid for pid in dict.fromkeys(ids) if pid not in store.done],
                        desc=f"cube rollouts by {judge}", disable=not progress):
            result = cube_rollout(evaluator, board_from_position_id(pid), Cube(), games=games, seed=seed,
                                  reduce_variance=True)
            store.add(pid, result.no_double, result.double_take)
    finally:
        store.close()
    return np.array([[*store.done[pid], 1.0] for pid in ids], dtype=np.float64).reshape(-1, 3)


def rollout_judged(items: list[dict], calls: dict[str, tuple[np.ndarray, np.ndarray]], judge: str, games: int,
                   progress: bool) -> dict:
    """Each player's calls less gnubg 0-ply's, judged by ``judge``'s cubeful rollouts instead of gnubg's 2-ply.

    Where two players make the same call they lose the same under any judge, so only the positions where some
    call differs from another are rolled out; each difference is in mp per position over all positions, with its
    95% interval, beside the same difference judged by gnubg's 2-ply figures."""
    first = next(iter(calls.values()))
    differ = np.zeros(len(items), dtype=bool)
    for doubles, takes in calls.values():
        differ |= (doubles != first[0]) | (takes != first[1])
    rows = np.flatnonzero(differ)
    figures = rolled_out_figures([items[r]["position_id"] for r in rows], judge, games, progress=progress)
    two_ply = reference_figures(items)[rows]
    judged = {name: tuple(judged_calls(by, doubles[rows], takes[rows]) for by in (figures, two_ply))
              for name, (doubles, takes) in calls.items()}
    gnubg = judged.pop("gnubg 0-ply")

    def difference(ours: np.ndarray, theirs: np.ndarray) -> dict:
        spread = np.zeros(len(items))
        spread[rows] = ours - theirs
        return dict(zip(("mean", "ci95"), mean_ci95(spread)))

    return {"judge": judge, "games": games, "rolled_out": len(rows), "minus_gnubg_0ply": {
        name: {judge_name: {decision: difference(mine[judge_index][k], gnubg[judge_index][k])
                            for k, decision in enumerate(("double", "take"))}
               for judge_index, judge_name in enumerate(("rollouts", "gnubg 2-ply"))}
        for name, mine in judged.items()}}


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
    parser.add_argument("--rollout-judge", metavar="PLAYER",
                        help="also judge the calls by cubeful rollouts of PLAYER's play (a net, or gnubg for "
                             "gnubg-nn) where any two players' calls differ")
    parser.add_argument("--judge-games", type=int, default=JUDGE_GAMES,
                        help=f"the rollout judge's games an action (default {JUDGE_GAMES})")
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
    calls, reference = {"gnubg 0-ply": gnubg_calls(items)}, reference_figures(items)
    for plies in [int(p) for p in args.plies.split(",") if p]:
        for name, net in nets.items():
            calls[f"{name} {plies}-ply"] = cube_calls(net, items, plies, progress=True)
        losses = {name: judged_calls(reference, *calls[f"{name} {plies}-ply"]) for name in models}
        for name, judged in losses.items():
            report["models"].setdefault(name, {})[plies] = loss_summary(judged)
        for name in models[1:]:
            report["differences"].setdefault(name, {})[plies] = {
                decision: dict(zip(("mean", "ci95"), mean_ci95(losses[name][k] - losses[models[0]][k])))
                for k, decision in enumerate(("double", "take"))}
    if args.rollout_judge:
        report["rollout_judge"] = rollout_judged(items, calls, args.rollout_judge, args.judge_games, progress=True)
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
    if "rollout_judge" in report:
        judged = report["rollout_judge"]
        print(f"judged by {judged['games']} cubeful rollout games an action of {judged['judge']}'s play, on the "
              f"{judged['rolled_out']} positions where the calls differ (mp per position over all {len(items)}):")
        for name, by_judge in judged["minus_gnubg_0ply"].items():
            for judge, row in by_judge.items():
                print(f"  {name} minus gnubg 0-ply, judged by {judge}: " + ", ".join(
                    f"{decision} {d['mean']:+.3f} ({d['ci95'][0]:+.3f} .. {d['ci95'][1]:+.3f})"
                    for decision, d in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
