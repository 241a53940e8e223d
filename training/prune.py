"""Train a pruning net: a tiny net that ranks a roll's plays so that the search judges only the best few in full.

    python -m gammon.training.prune --model models/default.pt --out runs/prune

Inside an n-ply search every node plays each of the 21 rolls by the 0-ply choice, and that
choice costs one full evaluation per legal play: most of a 2-ply search. GNU Backgammon
screens the plays with small "pruning" nets on its raw inputs and evaluates only the 10
best in full; this is the same idea (``engine.search.evaluator.zero_ply_choice`` uses it).

1. **Positions.** The model plays ``positions`` self-play positions (as a distillation
   generation collects them, ``explore`` of the moves random); for ``rolls`` random rolls
   of each, every legal play is generated and turned to the opponent on roll, the view in
   which nets judge. The undecided contact and crashed ones are kept, each once.
2. **Targets.** The model's own six result probabilities of each (its 0-ply judgement, which
   is what the net must rank like). Nothing else teaches: no search, rollout or gnubg.
3. **Fit.** A TDNet of ``hidden`` units on the cheap ``encoding`` (no knowledge features),
   soft cross-entropy, Adam, ``epochs`` passes; ``holdout`` of the source positions (by
   index) is never fitted and measures how often the model's best play survives the screen.

The net is written to ``OUT/prune.pt``; ship it beside the model as ``models/NAME-prune.pt``
(with its numpy companion, ``python -m gammon.models.export``). Its metadata records the
SHA-256 of the model it was taught by: a pruning net is used only with that model.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from gammon.engine.rules.board import RACE, flip, position_class
from gammon.engine.rules.dice import ROLLS
from gammon.engine.rules.groups import best_k_in_groups, distinct_rows
from gammon.engine.rules.movegen import generate
from gammon.engine.rules.outcomes import result_points
from gammon.models.inference import file_digest, mover_equity
from gammon.models.network import ClassNets, TDNet, save_weights
from gammon.models.players import load_analyst
from gammon.options import model_stage_main
from gammon.training.distill import Collecting, collect_batch, collect_positions, model_runner, soft_cross_entropy
from gammon.training.runlog import append_log


@dataclass(frozen=True)
class PruneConfig:
    positions: int = 30_000  # self-play positions on roll
    rolls: int = 4  # random rolls of each whose plays are kept
    explore: float = 0.1  # share of random moves while collecting
    seed: int = 41  # the self-play games collected and the rolls drawn
    encoding: str = "tesauro198+race"  # the cheap inputs: no knowledge features to compute
    hidden: int = 64  # hidden units (one ReLU layer)
    epochs: int = 10  # passes over the plays
    batch: int = 1024  # plays per gradient step
    lr: float = 3e-3  # Adam
    holdout: float = 0.1  # share of the positions (the last ones) whose plays are never fitted
    keep: int = 5  # plays the screen keeps per roll, for the held-out survival figure
    threads: int = 1  # torch CPU threads


def screened_plays(boards: np.ndarray, rolls: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``(plays, group)``: every play of ``rolls`` random rolls of each board, turned to the opponent on roll,
    the undecided contact and crashed ones; ``group`` numbers each (board, roll)."""
    picked = rng.integers(0, len(ROLLS), size=(len(boards), rolls)).ravel()
    after = generate(np.repeat(boards, rolls, axis=0), ROLLS[picked], check=False)
    group = np.repeat(np.arange(len(after.offsets) - 1), np.diff(after.offsets))
    plays = flip(after.boards)  # the opponent on roll
    keep = (result_points(after.boards, 15) == 0) & (position_class(plays) != RACE)
    return np.ascontiguousarray(plays[keep]), group[keep]


def survival(teacher_results: np.ndarray, screen_results: np.ndarray, group: np.ndarray, keep: int) -> dict:
    """How often the teacher's best play of a roll is among the screen's ``keep`` best (and how often a random
    ranking would keep it), and what the screen's own best play costs by the teacher's equity (each per roll
    with two plays or more)."""
    truth, screen = mover_equity(teacher_results), mover_equity(screen_results)
    kept = best_k_in_groups(screen, group, keep)
    best_truth = np.full(group.max() + 1, -np.inf)
    np.maximum.at(best_truth, group, truth)
    best_kept = np.full_like(best_truth, -np.inf)
    np.maximum.at(best_kept, group[kept], truth[kept])
    top = best_k_in_groups(screen, group, 1)
    alone = np.full_like(best_truth, -np.inf)
    np.maximum.at(alone, group[top], truth[top])
    plays = np.bincount(group, minlength=len(best_truth))
    several = plays > 1
    n = plays[several]
    return {"held_out_rolls": int(several.sum()),
            f"best_kept_at_{keep}": round(float(np.mean(best_kept[several] == best_truth[several])), 4),
            f"best_kept_at_{keep}_by_chance": round(float(np.mean(np.minimum(keep, n) / n)), 4),
            f"loss_kept_at_{keep}_mp": round(float(np.mean(best_truth[several] - best_kept[several])) * 1000, 3),
            "loss_screen_alone_mp": round(float(np.mean(best_truth[several] - alone[several])) * 1000, 3)}


def train_prune(model_path: Path, out: Path, config: PruneConfig, progress: bool = True) -> Path:
    """Collect, label and fit (the module's steps 1-3) into ``out``; returns ``out / 'prune.pt'``."""
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    started = time.perf_counter()
    teacher = load_analyst(str(model_path))
    games = model_runner(partial(collect_batch, Collecting(config.explore, 0.0, config.seed)), teacher, model_path)
    boards = collect_positions(config.positions, config.seed, games, 1, progress)
    split = int(len(boards) * (1 - config.holdout))
    rng = np.random.default_rng(config.seed)
    (train, _), (held, held_group) = (screened_plays(part, config.rolls, rng) for part in (boards[:split],
                                                                                            boards[split:]))
    train = train[distinct_rows(train)[0]]
    label = teacher.evaluator.results  # the bare net: undecided contact plays never reach the databases
    y_train, y_held = label(train), label(held)
    collected = time.perf_counter() - started

    net = TDNet(config.encoding, (config.hidden,))
    x_train = net.encode(train)
    targets = torch.from_numpy(y_train.astype(np.float32))
    opt = torch.optim.Adam(net.parameters(), lr=config.lr)
    steps = config.epochs * (len(train) // config.batch)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    bar = tqdm(total=steps, desc="fit", disable=not progress)
    for _ in range(config.epochs):
        for rows in torch.randperm(len(train)).split(config.batch):
            if len(rows) < config.batch:
                continue
            loss = soft_cross_entropy(net(x_train[rows]), targets[rows])
            opt.zero_grad()
            loss.backward()
            opt.step()
            schedule.step()
            bar.update()
    bar.close()
    with torch.no_grad():
        screen = torch.softmax(net.logits(held), dim=-1).numpy()
    report = {"plays": len(train), "held_out_plays": len(held), "collect_label_seconds": round(collected, 1),
              "seconds": round(time.perf_counter() - started, 1),
              **survival(y_held, screen, held_group, config.keep)}
    weights = out / "prune.pt"
    save_weights(weights, ClassNets({"all": net}), pruning={"trainer": "gammon.training.prune", **asdict(config),
                                                            "teacher_sha256": file_digest(model_path), **report})
    (out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    return weights


def screen_for(model_path: Path, generation: Path, config: PruneConfig, progress: bool = True) -> Path:
    """``generation/prune/prune.pt``, the pruning net a distillation generation with ``screen`` searches through:
    taught by ``model_path`` now unless it already was, its cost and survival figures logged with the generation's."""
    weights = generation / "prune" / "prune.pt"
    if not weights.exists():
        train_prune(model_path, weights.parent, config, progress)
        report = json.loads((weights.parent / "report.json").read_text())
        append_log(generation / "log.jsonl", {"step": "prune", **report})
    return weights


def main(argv=None) -> int:
    return model_stage_main(argv, "python -m gammon.training.prune", __doc__.split("\n")[0], PruneConfig,
                            "the model whose plays the pruning net learns to rank (a .pt file)", train_prune)


if __name__ == "__main__":
    raise SystemExit(main())
