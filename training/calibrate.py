"""Calibrate a model to its own play: each contact net's six output biases fitted to rollouts of its positions.

    python -m gammon.training.calibrate --model models/default.pt --out runs/calibrate

A net taught by its own 1-ply searches inherits whatever its leaves get wrong, and errors in
the gammon rates are the ones a search does not average away: the shipped model expected
about 0.013 more gammons won and 0.014 more lost than its own play brings home
(benchmarks/RESULTS.md, "Calibrated to its own play"). Those rates price every cube decision. The
fix here is the smallest one that removes such a bias: the output layer's biases, nothing
else, so the order in which a net ranks the plays of one roll hardly moves.

1. **Positions.** ``positions`` distinct self-play positions of the model (as a distillation
   generation collects them, ``explore`` of the moves random); those a dense (non-race) net
   judges are kept.
2. **Targets.** Each is rolled out ``games`` times by the model's own 0-ply play, cubeless,
   every first roll once in each 36 games, games that reach a position the bear-off databases
   hold scored exactly (:func:`training.distill.rollout_chunk`, as ``--rollouts`` labels). A
   rollout's mean outcome is an unbiased sample of what the model's play achieves, however
   few its games; the pieces are saved as they finish, so a stopped run goes on where it stopped.
3. **Fit.** For each dense net, its six output biases by soft cross-entropy on its positions
   but a ``holdout`` share (by hash of the position). At the optimum the net's mean
   probabilities on the fitted positions equal the rollouts'. The held-out share reports the
   mean error of each probability before and after.

Writes ``OUT/model.pt`` (the model's weights with those biases; its metadata gains
``calibration``), its numpy companion, and ``OUT/report.json``. Nothing but the model's own
play teaches: no gnubg. A model that ships calibrated needs its pruning net taught again
(``training/prune.py``): a pruning net is used only with the weights it was taught by.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

import numpy as np
import torch

from gammon.engine.files import atomic_text
from gammon.engine.rules.outcomes import PROBABILITY_NAMES, cumulative_probs
from gammon.models.export import export
from gammon.models.inference import ONE_SIDED, route
from gammon.models.network import load_payload, model_from_payload, save_weights
from gammon.models.players import load_analyst
from gammon.options import model_stage_main
from gammon.training.distill import (
    Collecting,
    DistillConfig,
    collect_batch,
    collect_positions,
    held_out_rows,
    label_positions,
    model_runner,
    rollout_chunk,
    save_array,
)
from gammon.training.runlog import append_log


@dataclass(frozen=True)
class CalibrateConfig:
    positions: int = 15_000  # distinct self-play positions collected (those of a dense net are kept)
    games: int = 36  # rollout games a position
    explore: float = 0.1  # share of random moves while collecting
    seed: int = 4242  # the self-play games and the rollouts' dice
    holdout: float = 0.2  # share of the positions (by hash) never fitted, for the report
    chunk: int = 100  # positions a piece of rollout work
    workers: int = 1  # processes that collect and roll out
    threads: int = 1  # torch CPU threads


def dense_rows(payload: dict, boards: np.ndarray) -> dict[str, np.ndarray]:
    """Rows of ``boards`` that each dense net of the model judges (a one-sided race net is left alone)."""
    nets = payload["nets"]
    return {name: rows for name, rows in route(nets, boards) if nets[name].get("kind", "td") != ONE_SIDED}


def fit_biases(net, boards: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """The output biases minimising the soft cross-entropy of ``net`` on ``boards`` against ``targets`` (N, 6),
    every other weight held; float64 (six numbers, a convex problem)."""
    with torch.no_grad():
        features = net.layers[:-1](net.encode(boards)).double()
        weight = net.layers[-1].weight.detach().double()
    bias = net.layers[-1].bias.detach().double().clone().requires_grad_(True)
    target = torch.from_numpy(targets).double()
    search = torch.optim.LBFGS([bias], max_iter=200, tolerance_grad=1e-10, line_search_fn="strong_wolfe")

    def loss():
        search.zero_grad()
        value = -(target * torch.log_softmax(features @ weight.T + bias, dim=1)).sum(dim=1).mean()
        value.backward()
        return value

    search.step(loss)
    return bias.detach().numpy()


def mean_errors(net, boards: np.ndarray, targets: np.ndarray) -> dict[str, float]:
    """The net's mean probability less the rollouts', for each of the five probabilities (none of no boards)."""
    if len(boards) == 0:
        return {}
    with torch.no_grad():
        probs = torch.softmax(net.logits(boards), dim=1).double().numpy()
    error = cumulative_probs(probs).mean(axis=0) - cumulative_probs(targets).mean(axis=0)
    return {name: round(float(e), 5) for name, e in zip(PROBABILITY_NAMES, error)}


def calibrate(model_path: Path, out: Path, config: CalibrateConfig, progress: bool = True) -> Path:
    """Collect, roll out and fit (the module's steps 1-3) into ``out``; returns ``out / 'model.pt'`` (at once where
    it is there: the stage is done)."""
    if (out / "model.pt").exists():
        return out / "model.pt"
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(config.threads)
    started = time.perf_counter()
    payload = load_payload(model_path)
    teacher = load_analyst(str(model_path))
    positions_file = out / "positions.npy"
    if not positions_file.exists():
        games = model_runner(partial(collect_batch, Collecting(config.explore, 0.0, config.seed)), teacher,
                             model_path, config.workers)
        width = 2 * config.workers if config.workers > 1 else 1  # batches in flight, as a generation collects
        boards = collect_positions(config.positions, config.seed, games, width, progress)
        save_array(positions_file, boards[np.sort(np.concatenate(list(dense_rows(payload, boards).values())))])
    boards = np.load(positions_file)
    labels_file = out / "labels.npy"
    if not labels_file.exists():
        runner = model_runner(partial(rollout_chunk, config.games, config.seed), teacher, model_path, config.workers)
        save_array(labels_file, label_positions(boards, config.chunk, out / "labels.partial.npz", runner, progress,
                                                desc="rollouts"))
        (out / "labels.partial.npz").unlink(missing_ok=True)
    labels = np.load(labels_file).astype(np.float64)  # distributions already (distill.result_labels)
    held = held_out_rows(boards, DistillConfig(holdout=config.holdout, split="hash"))

    model = model_from_payload(payload, str(model_path))
    report = {"positions": len(boards), "rollout_games": len(boards) * config.games, "nets": {}}
    for name, rows in dense_rows(payload, boards).items():
        net = model.nets[name]
        fit, test = rows[~held[rows]], rows[held[rows]]
        before = mean_errors(net, boards[test], labels[test])
        bias = fit_biases(net, boards[fit], labels[fit])
        shift = bias - net.layers[-1].bias.detach().double().numpy()
        with torch.no_grad():
            net.layers[-1].bias.copy_(torch.from_numpy(bias))
        report["nets"][name] = {"fitted": len(fit), "held_out": len(test), "bias_shift": np.round(shift, 4).tolist(),
                                "held_out_error_before": before,
                                "held_out_error_after": mean_errors(net, boards[test], labels[test])}
    report["seconds"] = round(time.perf_counter() - started, 1)
    weights = out / "model.pt"
    meta = dict(payload.get("meta", {}))
    earlier = {"earlier": meta["calibration"]} if "calibration" in meta else {}  # a second one keeps the first's record
    meta["calibration"] = {"trainer": "gammon.training.calibrate", **asdict(config), **report, **earlier}
    save_weights(weights, model, **meta)
    export(weights)
    atomic_text(out / "report.json", json.dumps(report, indent=1) + "\n")
    append_log(out / "log.jsonl", {"step": "calibrated", "seconds": report["seconds"]})  # what a recipe counts
    return weights


def main(argv=None) -> int:
    return model_stage_main(argv, "python -m gammon.training.calibrate", __doc__.split("\n")[0], CalibrateConfig,
                            "the model to calibrate (a .pt file)", calibrate)


if __name__ == "__main__":
    raise SystemExit(main())
