"""Train the one-sided race net (:mod:`models.onesided`) by dynamic programming, from the bear-off database out.

    python -m gammon.training.onesided --model models/default.pt --out runs/race --workers 2

1. **Positions.** The model plays ``positions`` self-play positions (as a distillation
   generation collects them); each side of each race among them is one position of the
   one-sided problem. Sides with every checker home are the database's and are dropped;
   races that :func:`training.distill.held_out_rows` holds out by hash (the race benchmark's
   positions, ``benchmarks/race_accuracy.py``) give none.
2. **Targets** (:func:`targets`). A side's roll counts after one roll are those of its best
   play for that roll, one roll later: for each of the 21 rolls every play is generated, each
   afterstate's distributions come from the database (home) or the net, the play with the
   smallest expected count is kept (separately for each count: all off, first off, clear of
   the other home board; a play that bears off the first checker, or clears, ends its count
   now), and the 21 are mixed by their chances and shifted by one roll.
3. **Bands.** Every play lowers the pips, so a side's targets need the net right only below
   its own pips. The sides are labelled band by band of ``band`` pips, lowest first, the net
   fitted a little after each band on everything labelled so far.
4. **Passes.** Every side labelled again with the net so fitted, and fitted again,
   ``passes`` times: plays within a band, and the net's early mistakes, are corrected.

No search, rollout or GNU Backgammon evaluation teaches: the targets are the database's
exact counts, carried outward by the rules. The base model's contact nets are kept; its race net is
replaced. ``OUT/log.jsonl`` has each step's cost and the held-out divergence (a share of the
sides, by hash, never fitted); ``OUT/checkpoint.pt`` lets a killed run resume after its last
finished step. The result is ``OUT/model.pt``.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from gammon.engine.files import atomic_write
from gammon.engine.rules.board import BOARD_SIZE, RACE, mover_counts, opponent_counts, position_class
from gammon.engine.rules.dice import ROLLS
from gammon.engine.rules.groups import best_in_groups
from gammon.engine.rules.movegen import generate
from gammon.engine.search.bearoff import POINTS, WithBearoff, one_more_roll
from gammon.models.inference import HEADS, OPPONENT_HOME, one_sided_inputs
from gammon.models.network import evaluator_from_payload, load_payload, save_weights
from gammon.models.onesided import OneSidedRace
from gammon.options import config_from, config_options, model_option, worker_options
from gammon.training.distill import (
    Collecting,
    DistillConfig,
    collect_batch,
    collect_positions,
    model_runner,
    save_array,
    start_stage,
)
from gammon.training.distill import held_out_rows as held_out_by_hash
from gammon.training.runlog import append_log, read_log


@dataclass
class OneSidedConfig:
    positions: int = 2_000_000  # self-play positions collected; their races give the sides
    explore: float = 0.1  # share of random moves while collecting (as a distillation generation)
    rivals: float = 0.5  # share of moves whose near-best rival play is kept too
    seed: int = 31  # the self-play collected and the fit
    hidden: str = "128x128"  # hidden layer widths
    band: int = 8  # pips per band of the first pass
    band_steps: int = 300  # fitting steps after each band
    passes: int = 3  # passes that label every side again
    pass_steps: int = 6_000  # fitting steps after each pass
    batch: int = 512  # sides per fitting step
    lr: float = 1e-3  # Adam
    chunk: int = 300  # sides labelled at a time (their afterstates: about 60 per side and roll)
    holdout: float = 0.05  # share of sides (by hash) never fitted: the log's divergence
    threads: int = 2  # torch CPU threads


def hidden_sizes(spec: str) -> tuple[int, ...]:
    return tuple(int(h) for h in spec.split("x"))


# -- positions ----------------------------------------------------------------------------------


def race_sides(boards: np.ndarray) -> np.ndarray:
    """The distinct sides ``(M, 24)`` int8 of the race positions among ``boards`` that are not held out,
    with a checker outside the home board, in order of pips (lowest first)."""
    races = boards[(position_class(boards) == RACE) & ~held_out_by_hash(boards, DistillConfig(split="hash"))]
    sides = np.unique(np.concatenate([mover_counts(races)[:, :24], opponent_counts(races)[:, :24]]), axis=0)
    sides = sides[sides[:, POINTS:].sum(axis=1) > 0].astype(np.int8)
    return sides[np.argsort(pips(sides), kind="stable")]


def pips(sides: np.ndarray) -> np.ndarray:
    return sides.astype(np.int64) @ np.arange(1, 25)


def held_out_sides(sides: np.ndarray, share: float) -> np.ndarray:
    """(M,) bool: the sides never fitted, chosen by a hash of the side alone."""
    return held_out_by_hash(sides, DistillConfig(split="hash", holdout=share))


# -- targets -----------------------------------------------------------------------------------


def targets(sides: np.ndarray, net: OneSidedRace) -> np.ndarray:
    """(M, 3, bins) float32: each side's roll counts (HEADS order) after its best play of each roll."""
    boards = np.zeros((len(sides), BOARD_SIZE), dtype=np.int8)
    boards[:, 1:25] = sides  # no opponent: nothing blocks or is hit
    plays = generate(np.repeat(boards, len(ROLLS), axis=0), np.tile(ROLLS, (len(sides), 1)), check=False)
    after = mover_counts(plays.boards)[:, :24]
    dists = net.side_table(after, np.float32)
    parent = np.repeat(np.repeat(np.arange(len(sides)), len(ROLLS)), plays.counts())
    ends_now = {"first": after.sum(axis=1) < sides[parent].sum(axis=1),
                "clear": after[:, OPPONENT_HOME].sum(axis=1) == 0}
    now = np.zeros(net.bins, dtype=np.float32)
    now[0] = 1.0
    out = np.zeros((len(sides), len(HEADS), net.bins), dtype=np.float32)
    for k, head in enumerate(HEADS):
        d = dists[:, k]
        if head in ends_now:
            d = np.where(ends_now[head][:, None], now, d)
        best = best_in_groups(-(d @ np.arange(net.bins)), plays.offsets)
        out[:, k], _ = one_more_roll(d[best])
    out[sides[:, OPPONENT_HOME].sum(axis=1) == 0, HEADS.index("clear")] = now  # nothing there to clear
    return out


def label(sides: np.ndarray, net: OneSidedRace, chunk: int, desc: str, progress: bool) -> np.ndarray:
    return np.concatenate([targets(sides[s : s + chunk], net)
                           for s in tqdm(range(0, len(sides), chunk), desc=desc, unit="chunk", disable=not progress)])


def loss_masks(sides: np.ndarray) -> np.ndarray:
    """(M, 3) float32: which counts a side's loss weighs. The first checker off matters only to a
    side with none off (gammons), clearing only to one with checkers in the other home board."""
    return np.stack([np.ones(len(sides), dtype=bool), sides.sum(axis=1) == 15,
                     sides[:, OPPONENT_HOME].sum(axis=1) > 0], axis=1).astype(np.float32)


# -- fitting ----------------------------------------------------------------------------------


def divergence(net: OneSidedRace, x: torch.Tensor, y: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean KL divergence of the net's counts from the targets, over the counts the masks weigh."""
    logp = torch.log_softmax(net(x), dim=-1)
    kl = (torch.special.xlogy(y, y) - y * logp).sum(dim=-1)
    return (kl * mask).sum() / mask.sum()


def fit(net: OneSidedRace, opt: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor, mask: torch.Tensor,
        steps: int, batch: int, rng: torch.Generator, newest: int = 0) -> float:
    """``steps`` Adam steps on random batches of the rows; half of them from rows ``newest:`` when given."""
    net.train()
    for step in range(steps):
        low = newest if newest and step % 2 == 0 else 0
        rows = torch.randint(low, len(x), (batch,), generator=rng)
        loss = divergence(net, x[rows], y[rows], mask[rows])
        opt.zero_grad()
        loss.backward()
        opt.step()
    net.eval()
    return float(loss.detach())


# -- the run ----------------------------------------------------------------------------------


def _checkpoint(path: Path, net: OneSidedRace, opt: torch.optim.Optimizer, rng: torch.Generator, step: str) -> None:
    state = {"net": net.state_dict(), "opt": opt.state_dict(), "rng": rng.get_state(), "step": step}
    atomic_write(path, lambda f: torch.save(state, f))


def train_one_sided(model_path: Path, out: Path, config: OneSidedConfig, progress: bool = True,
                    workers: int = 1) -> Path:
    """Run (or resume) the stage into ``out``; returns ``out / 'model.pt'``."""
    log, weights, checkpoint = out / "log.jsonl", out / "model.pt", out / "checkpoint.pt"
    if not start_stage(out, config):
        return weights
    payload = load_payload(model_path)
    base = evaluator_from_payload(payload, str(model_path))

    sides_file = out / "sides.npy"
    if not sides_file.exists():
        started = time.perf_counter()
        collecting = partial(collect_batch, Collecting(config.explore, config.rivals, config.seed))
        games = model_runner(collecting, WithBearoff(base), model_path, workers)
        boards = collect_positions(config.positions, config.seed, games, 2 * workers if workers > 1 else 1,
                                   progress)
        save_array(sides_file, race_sides(boards))
        append_log(log, {"step": "positions", "count": len(boards), "seconds": round(time.perf_counter() - started, 1)})
    sides = np.load(sides_file)
    held = held_out_sides(sides, config.holdout)
    x = torch.from_numpy(one_sided_inputs(sides))
    mask = torch.from_numpy(loss_masks(sides))
    net = OneSidedRace(hidden_sizes(config.hidden))
    opt = torch.optim.Adam(net.parameters(), lr=config.lr)
    rng = torch.Generator().manual_seed(config.seed)
    done = {row["step"] for row in read_log(log)}
    if checkpoint.exists():
        state = torch.load(checkpoint, weights_only=True)
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        rng.set_state(state["rng"])
    net.eval()

    def record(step: str, y: np.ndarray, started: float, loss: float) -> None:
        yt = torch.from_numpy(y)
        with torch.no_grad():
            held_kl = divergence(net, x[held], yt[held], mask[held]).item()
        _checkpoint(checkpoint, net, opt, rng, step)
        append_log(log, {"step": step, "sides": len(sides), "seconds": round(time.perf_counter() - started, 1),
                         "train_loss": round(loss, 5), "held_out_divergence": round(held_kl, 5)})

    steps = ["bands"] + [f"pass{k}" for k in range(1, config.passes + 1)]
    for step in steps:
        if step in done:
            continue
        started = time.perf_counter()
        if step == "bands":
            y = np.zeros((len(sides), len(HEADS), net.bins), dtype=np.float32)
            level = pips(sides) // config.band
            bounds = np.searchsorted(level, np.arange(level.max() + 2))
            for lo, hi in tqdm(list(zip(bounds[:-1], bounds[1:])), desc="bands", disable=not progress):
                if lo == hi:
                    continue
                y[lo:hi] = label(sides[lo:hi], net, config.chunk, "", False)
                fitted = np.flatnonzero(~held[:hi])
                loss = fit(net, opt, x[fitted], torch.from_numpy(y[fitted]), mask[fitted], config.band_steps,
                           config.batch, rng, newest=int(np.searchsorted(fitted, lo)))
        else:
            y = label(sides, net, config.chunk, step, progress)
            fitted = np.flatnonzero(~held)
            loss = fit(net, opt, x[fitted], torch.from_numpy(y[fitted]), mask[fitted], config.pass_steps,
                       config.batch, rng)
        record(step, y, started, loss)

    model = base.net
    model.nets["race"] = net
    save_weights(weights, model, **{**base.meta, "race": {"trainer": "gammon.training.onesided", **asdict(config)}})
    return weights


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m gammon.training.onesided", description=__doc__.split("\n")[0])
    config_options(parser, OneSidedConfig)
    model_option(parser, required=True, help="the model whose race net is replaced")
    parser.add_argument("--out", type=Path, required=True, help="run folder (resumed if it exists)")
    worker_options(parser, "collecting self-play", ray=False)
    parser.add_argument("--no-progress", action="store_true")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    print(train_one_sided(Path(args.model), args.out, config_from(args, OneSidedConfig), progress=not args.no_progress,
                          workers=args.workers or 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
