"""Input encodings compared: fresh contact nets fitted on the same labels, judged on held-out positions.

    gammon bench inputs runs/quick/gen5 --encodings contact-v1,contact-v2 --seeds 11,12,13 \
        --out runs/inputs [--epochs 30] [--positions 8000] [--judge-ply 1] [--teacher M]

For each encoding and seed, a contact net of the same shape (512x256 unless told) starts from
random weights and is fitted (:func:`training.distill.fit`, cosine learning rate, the positions
held out by hash) on the contact positions of one finished generation of a recipe run and their
labels, relabelled ones included: the same targets for every encoding. The rest of the model is
that generation's teacher: the model of the generation before it in a recipe run (``genK-1`` or
``td`` beside it), or ``--teacher``, the model a lone generation was made from (``python -m
gammon.training.distill --model M``). Reported for each fit:

- the held-out divergence from the labels;
- the 0-ply move loss, in mp/move, on that generation's own held-out contact positions (never
  fitted by any of these nets), a roll drawn for each (seed 5), every legal play judged by GNU
  Backgammon's net at ``--judge-ply`` (PyPI gnubg-nn, cubeless), as benchmarks/race_accuracy.py
  judges races: the yardstick, not a teacher;
- its paired difference from the first encoding's fit of the same seed, with a 95% CI.

The fitted weights are kept in ``--out`` and reused when the command is run again.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch

from gammon.benchmarks.race_accuracy import gnubg_equities, held_out_positions, move_losses
from gammon.engine.errors import GammonError
from gammon.engine.files import atomic_text
from gammon.engine.play.stats import mean_ci95
from gammon.engine.rules.board import CLASS_NAMES, CONTACT
from gammon.engine.rules.movegen import generate
from gammon.models.network import TDNet, evaluator_from_payload, load_payload, save_weights
from gammon.training.distill import DistillConfig, fit, fitted_rows, replayed_labels

DICE_SEED = 5


def generation_data(folder: Path, model) -> tuple[np.ndarray, np.ndarray]:
    """The contact positions a finished generation fitted, with their labels (its relabelled ones too)."""
    boards, labels = replayed_labels([folder], model)
    boards, labels = np.concatenate(boards), np.concatenate(labels)
    keep = fitted_rows(model, boards, ["contact"])
    return boards[keep], labels[keep]


def recipe_teacher(folder: Path) -> Path:
    """The model that labelled generation ``folder`` of a recipe run: the generation before it, or the TD stage's."""
    number = folder.name.removeprefix("gen")
    before = folder.parent / f"gen{int(number) - 1}" / "model.pt" if number.isdigit() else None
    return before if before is not None and before.exists() else folder.parent / "td" / "model.pt"


def fitted_net(teacher: Path, folder: Path, encoding: str, hidden: tuple[int, ...], seed: int, epochs: int,
               out: Path) -> dict:
    """Fit (or find in ``out``) a fresh contact net on ``encoding``; its file and held-out divergence."""
    weights = out / f"{encoding}-s{seed}.pt"
    record = weights.with_suffix(".json")
    settings = {"generation": str(folder.resolve()), "teacher": str(teacher.resolve()), "hidden": list(hidden),
                "epochs": epochs}
    if record.exists():
        row = json.loads(record.read_text())
        if {key: row.get(key) for key in settings} != settings:
            raise GammonError(f"{out} holds a {encoding} fit of seed {seed} made with other settings "
                              f"({', '.join(f'{k} {row.get(k)}' for k in settings)}): give another --out")
        return row
    payload = load_payload(teacher)
    model = evaluator_from_payload(payload, str(teacher)).net
    boards, labels = generation_data(folder, model)
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    model.nets["contact"] = TDNet(encoding, hidden)
    started = time.perf_counter()
    result = fit(model, boards, labels, DistillConfig(seed=seed, split="hash", cosine=True, epochs=epochs, lr=5e-4),
                 progress=False)
    save_weights(weights, model, **payload.get("meta", {}))
    row = {"encoding": encoding, "seed": seed, **settings, "weights": str(weights), "positions": len(boards),
           "held_out_divergence": result["held_out_after"]["contact"],
           "seconds": round(time.perf_counter() - started)}
    atomic_text(record, json.dumps(row))
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="gammon bench inputs", description=__doc__.split("\n")[0])
    parser.add_argument("generation", type=Path, help="a finished generation folder of a recipe run (genK)")
    parser.add_argument("--encodings", default="contact-v1,contact-v2", help="contact encodings, the first the base")
    parser.add_argument("--seeds", default="11,12,13", help="one fit per encoding and seed")
    parser.add_argument("--hidden", default="512x256", help="the fresh contact nets' hidden layers")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--positions", type=int, default=8000, help="held-out contact positions judged")
    parser.add_argument("--judge-ply", type=int, default=1, help="gnubg-nn's search depth as the judge")
    parser.add_argument("--teacher", type=Path, help="the model that labelled the generation (default: the one "
                        "before it in its recipe run, genK-1 or td)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the fitted nets and the results")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)

    folder = args.generation
    teacher = args.teacher or recipe_teacher(folder)
    if not teacher.exists():
        raise GammonError(f"no teacher {teacher} for {folder}: give --teacher, the model that labelled it")
    args.out.mkdir(parents=True, exist_ok=True)
    encodings, seeds = args.encodings.split(","), [int(s) for s in args.seeds.split(",")]
    hidden = tuple(int(h) for h in args.hidden.split("x"))
    fits = [fitted_net(teacher, folder, e, hidden, s, args.epochs, args.out) for e in encodings for s in seeds]
    boards, dice = held_out_positions(folder / "positions.npy", args.positions, DICE_SEED, CONTACT)
    plays = generate(boards, dice)
    judged = gnubg_equities(plays.boards, not args.no_progress, args.judge_ply)
    losses = move_losses(plays, judged, [f["weights"] for f in fits])
    base = {f["seed"]: losses[f["weights"]] for f in fits if f["encoding"] == encodings[0]}
    print(f"{len(boards)} held-out {CLASS_NAMES[CONTACT]} positions, 0-ply move loss judged by gnubg-nn "
          f"{args.judge_ply}-ply")
    for f in fits:
        loss = losses[f["weights"]]
        f["move_loss"], f["move_loss_ci95"] = mean_ci95(loss)
        f["minus_base"], f["minus_base_ci95"] = mean_ci95(loss - base[f["seed"]])
        print(f"{f['encoding']:>12} seed {f['seed']}: divergence {f['held_out_divergence']:.6f}, "
              f"{f['move_loss']:.2f} mp ({f['move_loss_ci95'][0]:.2f} .. {f['move_loss_ci95'][1]:.2f}), "
              f"{f['minus_base']:+.2f} against {encodings[0]} ({f['minus_base_ci95'][0]:+.2f} .. "
              f"{f['minus_base_ci95'][1]:+.2f})")
    for encoding in encodings:
        mine = [f for f in fits if f["encoding"] == encoding]
        print(f"{encoding:>12} mean over {len(mine)} seeds: divergence "
              f"{np.mean([f['held_out_divergence'] for f in mine]):.6f}, "
              f"{np.mean([f['move_loss'] for f in mine]):.2f} mp")
    atomic_text(args.out / "results.json", json.dumps(fits, indent=1, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
