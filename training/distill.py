"""Improve a model on targets from its own search (or a teacher's): one supervised generation. Read it top to bottom.

    python -m gammon.training.distill --model runs/strong/td/model.pt --out runs/strong/gen1

A generation has three steps, each saved as it finishes so that a killed run resumes
where it stopped (``--resume`` is implied: finished steps are never redone):

1. **Positions** (``positions.npy``): self-play games of the current model at 0-ply,
   with a share of moves played at random so that the positions cover more than the
   model's own habits. Every position on roll that is not already decided is kept,
   each one once. With ``--rivals`` a share of the moves also keeps the position after
   one of the plays ranked just below the chosen one: the near misses the net must rank.
   The games are played in batches of 500, each with its own seed (seed, batch), taken
   in order: the positions are the same on one process, ``--workers K`` or ``--ray``.
2. **Labels** (``labels.npy``): each position's distribution over the six results for
   the player on roll, from the model's own ``plies``-deep search
   (:func:`engine.search.analysis.position_probs`), bear-offs answered by the exact databases;
   or, with ``--rollouts N``, from N rollout games of the model's 0-ply play
   (:func:`engine.play.rollout.rollout_positions`, each game stopping at a bear-off the
   databases hold): slower per position and noisy, but free of the net's own bias.
   Labelling runs in chunks (on this process, ``--workers K`` or ``--ray``, with the
   same labels); finished chunks are kept in ``labels.partial.npz``.
   With ``--relabel`` the replayed generations' positions (each once) are labelled
   anew by this generation's search too (``relabels.npy``), so that every target of
   the fit comes from one teacher, the best so far, not from the weaker ones before
   (the ``--labelled`` folders below keep their own labels).
   With ``--teacher T.pt`` another model plays the games of step 1 and searches or rolls
   out the labels: a wider, slower net can teach one of the model's size (knowledge
   distillation), the fit still starting from the model's weights.
   With ``--screen`` the search goes through the teacher's pruning net (``OUT/prune/prune.pt``,
   taught first by :mod:`training.prune`; a recipe teaches it itself): of each roll's plays
   only the few it ranks best are judged in full, as gnubg's searches prune. On 2,000
   positions of the quick recipe's fifth generation 1-ply labels took a third of the time
   (2.5 s against 7.8 s on one core) and came out 0.0006 lower in equity on average (at
   most 0.04), where the screen hid the best reply from the side on roll.
3. **Fit** (``model.pt``): supervised cross-entropy from the labels to each class net's
   softmax, starting from the current weights (or from random ones, wider, for the nets
   named by ``--fresh``; or from the current ones widened, computing what they did, for the
   nets named by ``--widen``), on this generation's positions and those of the ``--replay``
   generations before it (a relabelling generation among them stands for all older
   ones), and of the ``--labelled`` folders (any folders of positions and labels, such as
   other teachers' generations; they come first in the fit, in the order named); a share
   of the positions is held out, and each net keeps the epoch with its lowest held-out
   divergence from the labels. With ``--ema`` the epochs' candidates are moving averages
   of the weights along the fit instead of the weights themselves. ``--nets race`` fits that class net
   alone: the positions of the others are dropped as soon as they are collected (and
   from the replayed ones), so nothing is spent labelling them.

Targets come only from our own nets and searches: the model (or the ``--teacher``)
teaches the next version what its search already knows. ``log.jsonl`` records every step.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from gammon.engine.errors import GammonError
from gammon.engine.files import atomic_write
from gammon.engine.play.game import play_games, random_policy
from gammon.engine.play.rollout import rollout_positions
from gammon.engine.rules.board import CLASS_NAMES, flip, position_class
from gammon.engine.rules.groups import ranked_in_groups
from gammon.engine.rules.outcomes import exclusive_results, result_points
from gammon.engine.search.analysis import position_probs
from gammon.engine.search.bearoff import WithBearoff
from gammon.engine.search.evaluator import afterstate_scores
from gammon.models.inference import file_digest, route, taught_by
from gammon.models.network import (
    NetEvaluator,
    TDNet,
    check_widening,
    evaluator_from_payload,
    load_payload,
    numpy_evaluator,
    save_weights,
    screen_from_payload,
    widened,
)
from gammon.options import config_from, config_options, model_option, worker_options
from gammon.training.runlog import append_log
from gammon.training.runners import Runner, in_process, process_pool, ray_tasks


@dataclass
class DistillConfig:
    positions: int = 100_000  # positions collected and labelled
    explore: float = 0.1  # share of moves played at random while collecting
    plies: int = 1  # search depth of the labels
    epochs: int = 40  # passes over the labelled positions
    batch: int = 512  # positions per gradient step
    lr: float = 5e-4  # Adam
    holdout: float = 0.1  # share of positions kept out of training to choose the epoch
    split: str = "random"  # how they are chosen: random, or hash (by the position: the same in every generation)
    cosine: bool = False  # learning rate falls from lr to 0 over the epochs (else it stays at lr)
    seed: int = 1  # collection, the holdout split and the fit
    threads: int = 1  # torch CPU threads
    device: str = "auto"  # where the nets run (labels and fit): auto (a GPU when present), cpu, cuda
    chunk: int = 500  # positions labelled per step
    replay: int = 0  # earlier generations (sibling folders genK) whose positions and labels join the fit
    relabel: bool = False  # label the replayed positions anew with this generation's search (else keep their labels)
    fresh: str = ""  # nets restarted from random weights before the fit, NAME=HIDDEN[,...]: contact=512x256
    widen: str = ""  # nets widened before the fit, computing what they did (models.network.widened): contact=1024x256
    rivals: float = 0.0  # share of moves whose near-best rival play is collected too (collect_positions)
    rollouts: int = 0  # > 0: label by that many rollout games a position (0-ply play) instead of the search
    nets: str = ""  # the class nets fitted, comma-separated (e.g. race); positions of the others are dropped
    screen: bool = False  # search through the teacher's pruning net, OUT/prune/prune.pt (training.prune): 3x faster
    teacher: str = ""  # weights that collect and label the positions (else the model itself); the model is fitted
    labelled: str = ""  # folders of positions.npy and labels.npy joining the fit, comma-separated (before the rest)
    ema: float = 0.0  # > 0: each epoch's candidate is the average of the weights after every step, decaying by ema


def save_array(path: Path, array: np.ndarray) -> None:
    """``np.save``, whole or not at all."""
    atomic_write(path, lambda f: np.save(f, array))


def result_labels(probs: np.ndarray) -> np.ndarray:
    """(N, 5) searched probabilities -> (N, 6) float32 training targets; rounding's tiny negatives clipped away."""
    labels = np.clip(exclusive_results(probs), 0.0, None)
    return (labels / labels.sum(1, keepdims=True)).astype(np.float32)


# -- 1. positions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Collecting:
    """How positions are collected: the share of random moves and of rival plays, and the run's seed."""

    explore: float
    rivals: float
    seed: int
    games: int = 500  # games of one batch: one piece of work for a runner


@dataclass(frozen=True)
class GameBatch:
    """Batch ``index`` of a collection's self-play games; its dice and choices come from (seed, index) alone."""

    index: int

    @property
    def key(self) -> int:
        return self.index

    @property
    def where(self) -> str:
        return f"self-play batch {self.index}"


def collect_batch(how: Collecting, teacher, batch: GameBatch) -> np.ndarray:
    """The task of every runner: the undecided positions on roll of one batch of self-play games, each once.

    The games are 0-ply self-play of ``teacher`` with a share ``how.explore`` of the moves
    random. With ``how.rivals`` > 0, that share of the moves also keeps the position after
    a *rival* play: one of the four plays ranked just below the one chosen. Play choice is
    a ranking of such near-equal afterstates, and self-play alone seldom shows the net the
    ones it did not choose.
    """
    evaluator = evaluator_of(teacher)
    rng = np.random.default_rng(np.random.SeedSequence([how.seed, batch.index]))
    wander = random_policy(rng)
    seen: dict[bytes, np.ndarray] = {}

    def keep(after: np.ndarray) -> None:
        for board in flip(after[result_points(after, 15) == 0]):
            seen.setdefault(board.tobytes(), board)

    def collecting(afterstates) -> np.ndarray:
        values = afterstate_scores(evaluator, afterstates)
        ranked = ranked_in_groups(values, afterstates.offsets)
        choice = ranked[afterstates.offsets[:-1]]
        random_move = rng.random(len(choice)) < how.explore
        if random_move.any():
            choice[random_move] = wander(afterstates)[random_move]
        keep(afterstates.boards[choice])
        if how.rivals:
            keep(afterstates.boards[rival_plays(ranked, afterstates.offsets, how.rivals, rng)])
        return choice

    play_games((collecting, collecting), how.games, seed=int(rng.integers(2**31)))
    return np.stack(list(seen.values()))


def collect_positions(count: int, seed: int, runner: Runner, width: int = 1, progress: bool = True) -> np.ndarray:
    """``count`` distinct undecided positions on roll, a random sample of those of the first batches that hold them.

    ``runner`` plays ``collect_batch`` tasks, ``width`` batches at a time. The batches are
    taken in order until they hold ``count`` positions, whatever finished first, so the
    positions depend on the task and ``seed`` alone, not on where or how widely the games
    were played.
    """
    seen: dict[bytes, np.ndarray] = {}
    bar = tqdm(total=count, unit="pos", desc="positions", disable=not progress)
    index = 0
    while len(seen) < count:
        finished = dict((batch.index, boards) for batch, boards in runner([GameBatch(index + k) for k in range(width)]))
        for k in range(index, index + width):
            if len(seen) < count:
                before = len(seen)
                seen.update((board.tobytes(), board) for board in finished[k] if board.tobytes() not in seen)
                bar.update(min(len(seen), count) - before)
        index += width
    bar.close()
    boards = np.stack(list(seen.values()))
    rng = np.random.default_rng(seed)
    return boards[rng.permutation(len(boards))[:count]]  # a random sample: not only the first games' openings


def rival_plays(ranked: np.ndarray, offsets: np.ndarray, share: float, rng: np.random.Generator,
                depth: int = 4) -> np.ndarray:
    """For a random ``share`` of the groups with two plays or more, one of the ``depth`` ranked after the best."""
    counts = np.diff(offsets)
    picked = np.flatnonzero((counts > 1) & (rng.random(len(counts)) < share))
    rank = 1 + (rng.random(len(picked)) * np.minimum(counts[picked] - 1, depth)).astype(np.int64)
    return ranked[offsets[picked] + rank]


# -- 2. labels ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Chunk:
    """Positions ``start`` onwards of a labelling, ``len(boards)`` of them: one piece of work for a runner."""

    start: int
    boards: np.ndarray

    @property
    def key(self) -> int:
        return self.start

    @property
    def where(self) -> str:
        return f"positions {self.start} to {self.start + len(self.boards) - 1}"


@dataclass(frozen=True)
class Teacher:
    """The weights that label, sent to worker processes and Ray tasks (so no shared file system is needed)."""

    digest: str  # names the weights and the pruning net: a worker builds each teacher's evaluator once
    payload: dict
    screen: dict | None = None  # the payload of its pruning net, where its searches screen the plays


_TEACHERS: dict[str, object] = {}


def teacher_from(model_path: Path, screen: Path | None = None) -> Teacher:
    data = Path(model_path).read_bytes() + (Path(screen).read_bytes() if screen else b"")
    return Teacher(hashlib.sha256(data).hexdigest(), load_payload(model_path),
                   load_payload(screen) if screen else None)


def evaluator_of(teacher):
    """``teacher`` itself if it is an evaluator; a Teacher's evaluator, built once in this process."""
    if isinstance(teacher, Teacher):
        if teacher.digest not in _TEACHERS:
            # its numpy twin: the first layer compiled (models/_native.c), about 1.5 times torch's 1-ply labels a second
            net = numpy_evaluator(evaluator_from_payload(teacher.payload, "teacher"))
            if teacher.screen is not None:
                net.screen = screen_from_payload(teacher.screen, net.variant)
            _TEACHERS[teacher.digest] = WithBearoff(net)
        teacher = _TEACHERS[teacher.digest]
    return teacher


def label_chunk(plies: int, teacher, chunk: Chunk) -> np.ndarray:
    """The task of every runner: ``chunk``'s labels from ``teacher``'s ``plies``-deep search."""
    return result_labels(position_probs(evaluator_of(teacher), chunk.boards, plies))


def rollout_chunk(games: int, seed: int, teacher, chunk: Chunk) -> np.ndarray:
    """The task of every runner with ``--rollouts``: ``chunk``'s labels from ``games`` rollout games a position.

    The dice come from (seed, the chunk's first row), so the labels do not depend on the runner.
    """
    evaluator = evaluator_of(teacher)
    return result_labels(rollout_positions(evaluator, chunk.boards, games, seed=seed * 1_000_003 + chunk.start,
                                           settled=evaluator.settled))


def labeller(config: DistillConfig):
    """The labelling task of ``config``: its search, or its rollouts."""
    return partial(rollout_chunk, config.rollouts, config.seed) if config.rollouts else partial(label_chunk,
                                                                                                 config.plies)


def label_positions(boards: np.ndarray, chunk: int, partial: Path, runner: Runner, progress: bool = True,
                    save_every: float = 60.0, desc: str = "labels") -> np.ndarray:
    """(N, 6) result distributions, ``chunk`` positions per piece of work run by ``runner`` (a ``label_chunk`` task).

    Pieces may finish in any order; the finished ones that follow each other from the first
    are saved to ``partial`` at most every ``save_every`` seconds (and at the end), so that a
    killed run resumes near where it stopped without rewriting an ever-growing file after
    every piece. The labels do not depend on the runner, beyond float rounding (a process's
    race net answers a side it has met before as it did then: models.inference.OneSidedNet).
    """
    done = np.load(partial)["labels"] if partial.exists() else np.zeros((0, 6), np.float32)
    labels, waiting, upto = [done], {}, len(done)
    bar = tqdm(total=len(boards), initial=len(done), unit="pos", desc=desc, disable=not progress)
    saved = time.perf_counter()
    pieces = [Chunk(start, boards[start:start + chunk]) for start in range(len(done), len(boards), chunk)]
    for piece, found in runner(pieces):
        waiting[piece.start] = found
        bar.update(len(found))
        while upto in waiting:
            labels.append(waiting.pop(upto))
            upto += len(labels[-1])
        if time.perf_counter() - saved >= save_every or upto == len(boards):
            labels = [np.concatenate(labels)]
            atomic_write(partial, lambda f, so_far=labels[0]: np.savez(f, labels=so_far))
            saved = time.perf_counter()
    bar.close()
    return np.concatenate(labels)


def model_runner(task, evaluator, model_path: Path, workers: int = 1, ray: str | None = None,
                 screen: Path | None = None) -> Runner:
    """Runs ``task(teacher, item)``: here with ``evaluator``, or on ``workers`` processes or Ray with ``model_path``
    (and its pruning net ``screen``, where ``evaluator`` has it)."""
    if ray or workers > 1:
        task = partial(task, teacher_from(model_path, screen))
        return ray_tasks(task, ray, None) if ray else process_pool(task, workers)
    return in_process(partial(task, evaluator))


def labelled_once(boards: np.ndarray, labels_file: Path, runner: Runner, config: DistillConfig, log: Path,
                  progress: bool) -> np.ndarray:
    """The labels of ``boards`` in ``labels_file``: loaded if there, else searched (resumably), saved and logged."""
    if not labels_file.exists():
        started = time.perf_counter()
        partial = labels_file.with_suffix(".partial.npz")
        how, words = (({"rollouts": config.rollouts}, f"{config.rollouts} rollout games") if config.rollouts
                      else ({"plies": config.plies}, f"{config.plies}-ply"))
        labels = label_positions(boards, config.chunk, partial, runner, progress, desc=f"{labels_file.stem} ({words})")
        save_array(labels_file, labels)
        partial.unlink(missing_ok=True)
        append_log(log, {"step": labels_file.stem, **how, "count": len(labels),
                         "seconds": round(time.perf_counter() - started, 1)})
    return np.load(labels_file)


def replayed_positions(boards: np.ndarray, earlier: list[Path]) -> np.ndarray:
    """The earlier generations' positions, each once and none of ``boards``, in a fixed order (for resuming)."""
    pool = np.unique(np.concatenate([np.load(folder / "positions.npy") for folder in earlier]), axis=0)
    new = {board.tobytes() for board in boards}
    return pool[np.array([board.tobytes() not in new for board in pool], dtype=bool)]


# -- 3. fit ------------------------------------------------------------------------------------


def replayed_labels(earlier: list[Path], model) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The positions and labels of the ``earlier`` generations (newest first), as they were fitted.

    A relabelling generation's fit holds every position before it with its own labels, so
    it stands for all the older generations: the walk stops there, unless it fitted only
    some nets (``--nets``) and so kept only their positions. ``model`` routes positions to
    nets as the generations did.
    """
    boards, labels = [], []
    for folder in earlier:
        boards.append(np.load(folder / "positions.npy"))
        labels.append(np.load(folder / "labels.npy"))
        if (folder / "relabels.npy").exists():
            config = json.loads((folder / "config.json").read_text())
            replayed = replayed_positions(boards[-1], replay_folders(folder, config["replay"]))
            nets = fitted_nets(model, config.get("nets", ""))
            boards.append(replayed[fitted_rows(model, replayed, nets)])
            labels.append(np.load(folder / "relabels.npy"))
            if len(nets) == len(model.nets):
                break
    return boards, labels


def soft_cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return -(targets * torch.log_softmax(logits, dim=-1)).sum(dim=1).mean()


def divergence(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """KL(targets || net): the cross-entropy less the targets' own entropy, 0 when the net matches them."""
    entropy = -(targets * torch.log(targets.clamp_min(1e-12))).sum(dim=1).mean()
    return soft_cross_entropy(logits, targets) - entropy


def held_out_rows(boards: np.ndarray, config: DistillConfig) -> np.ndarray:
    """(N,) bool: the positions kept out of the fit, a ``config.holdout`` share of them.

    ``split`` random draws them with the generation's seed. ``hash`` decides by the
    position alone (a fixed random hash of its 26 cells), so a generation that replays
    earlier ones never trains on a position an earlier fit held out, nor judges itself
    on one it trained on.
    """
    if config.split == "random":
        order = np.random.default_rng(config.seed).permutation(len(boards))
        held = np.zeros(len(boards), dtype=bool)
        held[order[: max(1, int(len(boards) * config.holdout))]] = True
        return held
    if config.split != "hash":
        raise GammonError(f"--split is random or hash; got {config.split!r}")
    weights = np.random.default_rng(20261130).integers(1, 2**61, size=boards.shape[1], dtype=np.uint64)
    with np.errstate(over="ignore"):
        key = (boards.astype(np.int64).astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)
        key ^= key >> np.uint64(29)
        key *= np.uint64(0xBF58476D1CE4E5B9)
        key ^= key >> np.uint64(32)
    return (key % np.uint64(1_000_000)) < np.uint64(round(config.holdout * 1_000_000))


def fit(model, boards: np.ndarray, labels: np.ndarray, config: DistillConfig, log: Path | None = None,
        progress: bool = True) -> dict:
    """Train each class net of ``model`` on its positions; each keeps its epoch with the lowest held-out divergence.

    With ``config.ema`` an epoch's candidate is each net's exponential moving average of its
    weights after every gradient step (decay ``config.ema`` a step, from the starting weights),
    which smooths the last steps' noise. Returns the held-out divergence from the labels
    (:func:`divergence`) before and after, per net and overall.
    """
    held = held_out_rows(boards, config)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, config.epochs) if config.cosine else None
    device = model.device
    data = {}  # net name -> (x_train, y_train, x_val, y_val), inputs encoded once
    for name, rows in route(model.nets, boards):
        net = model.nets[name]
        in_val = held[rows]
        x, y = net.encode(boards[rows]), torch.from_numpy(labels[rows]).to(device)
        mask = torch.from_numpy(in_val).to(device)
        data[name] = (x[~mask], y[~mask], x[mask], y[mask])

    @torch.no_grad()
    def held_out() -> dict[str, float]:
        model.eval()
        losses = {name: divergence(model.nets[name](xv), yv).item() for name, (_, _, xv, yv) in data.items()
                  if len(xv)}
        sizes = {name: len(d[2]) for name, d in data.items()}
        losses["all"] = sum(losses[k] * sizes[k] for k in losses) / max(sum(sizes[k] for k in losses), 1)
        return losses

    def snapshot(name: str) -> dict:
        return {k: v.clone() for k, v in model.nets[name].state_dict().items()}

    start = held_out()
    best = {name: (start[name], snapshot(name)) for name in data if name in start}
    averages = {name: snapshot(name) for name in data} if config.ema else {}
    for epoch in tqdm(range(1, config.epochs + 1), unit="epoch", desc="fit", disable=not progress):
        model.train()
        train_loss = []
        for name, (xt, yt, _, _) in data.items():
            perm = torch.randperm(len(xt), device=device)
            for i in range(0, len(xt), config.batch):
                idx = perm[i:i + config.batch]
                loss = soft_cross_entropy(model.nets[name](xt[idx]), yt[idx])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                train_loss.append(loss.item())
                if averages:
                    with torch.no_grad():
                        for key, value in model.nets[name].state_dict().items():
                            averages[name][key].mul_(config.ema).add_(value, alpha=1 - config.ema)
        if schedule is not None:
            schedule.step()
        with weights_swapped(model, averages):  # the candidates: the averages where there are any
            losses = held_out()
            for name in best:
                if losses[name] < best[name][0]:
                    best[name] = (losses[name], snapshot(name))
        if log is not None:
            append_log(log, {"step": "fit", "epoch": epoch, "train_loss": float(np.mean(train_loss)),
                             "held_out": losses})
    for name, (_, state) in best.items():  # each net keeps its own best epoch
        model.nets[name].load_state_dict(state)
    return {"held_out_before": start, "held_out_after": held_out()}


@contextmanager
def weights_swapped(model, states: dict[str, dict]):
    """For the block, the nets that ``states`` names hold its weights; their own again after it."""
    own = {name: {k: v.clone() for k, v in model.nets[name].state_dict().items()} for name in states}
    for name, state in states.items():
        model.nets[name].load_state_dict(state)
    try:
        yield
    finally:
        for name, state in own.items():
            model.nets[name].load_state_dict(state)


def fitted_nets(model, nets: str) -> list[str]:
    """The names of the nets ``--nets`` asks to fit (comma-separated; empty: all of the model's TDNets).

    A one-sided race net (:mod:`models.onesided`) is never distilled: :mod:`training.onesided` trains it.
    """
    names = nets.split(",") if nets else [name for name, net in model.nets.items() if isinstance(net, TDNet)]
    unknown = sorted(set(names) - set(model.nets))
    if unknown:
        raise GammonError(f"--nets {nets!r}: the model has no {', '.join(unknown)} net "
                          f"(it has {', '.join(model.nets)})")
    one_sided = [name for name in names if not isinstance(model.nets[name], TDNet)]
    if one_sided:
        raise GammonError(f"--nets {nets!r}: the {', '.join(one_sided)} net is one-sided; "
                          "python -m gammon.training.onesided trains it, not a distillation")
    return names


def fitted_rows(model, boards: np.ndarray, names: list[str]) -> np.ndarray:
    """(N,) bool: the ``boards`` that one of the nets ``names`` answers."""
    keep = np.zeros(len(boards), dtype=bool)
    for name, rows in route(model.nets, boards):
        keep[rows] = name in names
    return keep


def replay_folders(out: Path, replay: int) -> list[Path]:
    """The ``replay`` generation folders before ``out`` (``gen6`` replays ``gen5``, ``gen4``, ...), all labelled."""
    if not replay:
        return []
    match = re.fullmatch(r"(.*?)(\d+)", out.name)
    if match is None:
        raise GammonError(f"--replay needs a numbered generation folder like gen6; got {out.name!r}")
    folders = [out.parent / f"{match[1]}{int(match[2]) - k}" for k in range(1, replay + 1)]
    for folder in folders:
        if not (folder / "labels.npy").exists():
            raise GammonError(f"--replay {replay}: {folder} has no labelled positions")
    return folders


def fresh_widths(spec: str, names, option: str = "--fresh") -> dict[str, tuple[int, ...]]:
    """``--fresh`` (or ``--widen``) read as {net name: hidden layer sizes}: NAME=HIDDEN pairs for nets of the model.

    HIDDEN is one layer's units (``512``) or several layers' joined by ``x`` (``512x256``).
    """
    widths = {}
    for item in filter(None, spec.split(",")):
        name, _, hidden = item.partition("=")
        layers = hidden.split("x")
        if name not in names or not all(size.isdigit() and int(size) >= 1 for size in layers):
            raise GammonError(f"{option} {spec!r}: write NAME=HIDDEN (e.g. contact=512 or contact=512x256) for nets "
                              f"of the model ({', '.join(names)})")
        widths[name] = tuple(int(size) for size in layers)
    return widths


# -- one generation ------------------------------------------------------------------------------


def start_stage(out: Path, config) -> bool:
    """Whether the stage in folder ``out`` has work left (no ``model.pt`` yet); if so its config
    is written there and torch gets the config's threads and seed."""
    out.mkdir(parents=True, exist_ok=True)
    if (out / "model.pt").exists():
        return False
    (out / "config.json").write_text(json.dumps(asdict(config), indent=1))
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    return True


def teacher_weights(config: DistillConfig, model_path: Path) -> Path:
    """The weights whose games and searches make the labels: ``--teacher``, else the model itself."""
    return Path(config.teacher) if config.teacher else Path(model_path)


def teacher_of(path: Path, student) -> NetEvaluator:
    """The evaluator of ``--teacher`` ``path``, on the student's device; refused where it plays another variant.

    Its nets are built without drawing from torch's generator, so that the fit shuffles
    as it would with the model as its own teacher.
    """
    with torch.random.fork_rng(devices=[]):
        teacher = evaluator_from_payload(load_payload(path), str(path), "teacher")
    if teacher.variant.name != student.variant.name:
        raise GammonError(f"--teacher {path} plays {teacher.variant.name}, the model {student.variant.name}: "
                          "a teacher must play the model's variant")
    teacher.net.to(student.net.device)
    return teacher


def labelled_folders(spec: str, variant) -> list[Path]:
    """The ``--labelled`` folders, each checked now (not after hours of labelling) to hold boards of ``variant``
    and their six results, one row each, and to be named once: a set named twice, or a copy of one under another
    name, would silently weigh its labels double."""
    folders = [Path(name) for name in spec.split(",") if name]
    seen = {}
    for folder in folders:
        if not ((folder / "positions.npy").is_file() and (folder / "labels.npy").is_file()):
            raise GammonError(f"--labelled {folder}: the folder has no positions.npy and labels.npy")
        content = (file_digest(folder / "positions.npy"), file_digest(folder / "labels.npy"))
        if content in seen:
            raise GammonError(f"--labelled {folder}: the same positions and labels as {seen[content]}; "
                              "name each set once")
        seen[content] = folder
        boards = np.load(folder / "positions.npy", mmap_mode="r")
        labels = np.load(folder / "labels.npy", mmap_mode="r")
        if boards.ndim != 2 or boards.shape[1] != variant.board_size or labels.shape != (len(boards), 6):
            raise GammonError(f"--labelled {folder}: positions of shape {boards.shape} and labels of shape "
                              f"{labels.shape}; each board ({variant.board_size} cells) needs its six results")
    return folders


def labelled_positions(folders: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    """The positions and labels of the ``--labelled`` folders, in the order named."""
    return (np.concatenate([np.load(folder / "positions.npy") for folder in folders]),
            np.concatenate([np.load(folder / "labels.npy") for folder in folders]))


def teacher_screen(out: Path, model_path: Path) -> Path:
    """``out/prune/prune.pt``, the pruning net that ``--screen`` searches through: refused where it is missing or
    was taught by other weights than ``model_path`` holds (:mod:`training.prune` teaches it)."""
    screen = out / "prune" / "prune.pt"
    if not screen.is_file():
        raise GammonError(f"--screen needs {screen}: teach it first with python -m gammon.training.prune "
                          f"--model {model_path} --out {screen.parent}")
    if not taught_by(load_payload(screen).get("meta", {}), model_path):
        raise GammonError(f"{screen} was taught by other weights than {model_path}: teach it again")
    return screen


def generation(model_path: Path, out: Path, config: DistillConfig, progress: bool = True, workers: int = 1,
               ray: str | None = None) -> Path:
    """Run (or finish) one generation from ``model_path`` into ``out``; returns ``out / 'model.pt'``.

    ``workers`` processes or Ray tasks (``ray``: auto or a cluster address) label the positions;
    the labels, and so the weights, are the same however they are run.
    """
    log, weights = out / "log.jsonl", out / "model.pt"
    if not start_stage(out, config):
        return weights
    payload = load_payload(model_path)
    net = evaluator_from_payload(payload, str(model_path))
    model = net.net
    model.to(torch.device(("cuda" if torch.cuda.is_available() else "cpu") if config.device == "auto"
                          else config.device))
    teacher_path = teacher_weights(config, model_path)
    teacher = teacher_of(teacher_path, net) if config.teacher else net
    evaluator = WithBearoff(teacher)
    earlier, widths = replay_folders(out, config.replay), fresh_widths(config.fresh, list(model.nets))
    labelled = labelled_folders(config.labelled, net.variant)
    if not 0.0 <= config.ema < 1.0:  # checked now, not after hours of labelling
        raise GammonError(f"--ema is a decay per step in [0, 1), such as 0.999; got {config.ema}")
    screen = teacher_screen(out, teacher_path) if config.screen else None
    wider = fresh_widths(config.widen, list(model.nets), "--widen")
    fitting = fitted_nets(model, config.nets)
    if (set(widths) | set(wider)) - set(fitting):
        raise GammonError(f"--fresh {config.fresh!r} / --widen {config.widen!r} change a net that --nets "
                          f"{config.nets!r} does not fit")
    if set(widths) & set(wider):
        raise GammonError(f"--fresh {config.fresh!r} and --widen {config.widen!r} name the same net")
    for name, hidden in wider.items():  # checked now, not after hours of labelling
        check_widening(model.nets[name], hidden)

    positions_file = out / "positions.npy"
    if not positions_file.exists():
        started = time.perf_counter()
        games = model_runner(partial(collect_batch, Collecting(config.explore, config.rivals, config.seed)),
                             evaluator, teacher_path, workers, ray)
        width = 2 * workers if workers > 1 else 8 if ray else 1  # batches in flight: more would be wasted at the end
        boards = collect_positions(config.positions, config.seed, games, width, progress)
        boards = boards[fitted_rows(model, boards, fitting)]
        save_array(positions_file, boards)
        classes = np.bincount(position_class(boards), minlength=len(CLASS_NAMES))
        append_log(log, {"step": "positions", "count": len(boards), "seconds": round(time.perf_counter() - started, 1),
                         **{name: int(n) for name, n in zip(CLASS_NAMES, classes)}})
    boards = np.load(positions_file)

    if screen is not None:
        teacher.screen = screen_from_payload(load_payload(screen), teacher.variant)
    runner = model_runner(labeller(config), evaluator, teacher_path, workers, ray, screen)
    labels = labelled_once(boards, out / "labels.npy", runner, config, log, progress)
    if config.relabel and earlier:
        replayed = replayed_positions(boards, earlier)
        replayed = replayed[fitted_rows(model, replayed, fitting)]
        boards = np.concatenate([boards, replayed])
        labels = np.concatenate([labels, labelled_once(replayed, out / "relabels.npy", runner, config, log,
                                                       progress)])
    else:
        old_boards, old_labels = replayed_labels(earlier, model)
        boards, labels = np.concatenate([boards] + old_boards), np.concatenate([labels] + old_labels)
        kept = fitted_rows(model, boards, fitting)
        boards, labels = boards[kept], labels[kept]
    if labelled:
        more_boards, more_labels = labelled_positions(labelled)
        kept = fitted_rows(model, more_boards, fitting)
        boards, labels = np.concatenate([more_boards[kept], boards]), np.concatenate([more_labels[kept], labels])
    for name, hidden in widths.items():  # after labelling: the search labels with the nets as they were
        model.nets[name] = TDNet(model.nets[name].encoding, hidden).to(model.device)
    for name, hidden in wider.items():
        model.nets[name] = widened(model.nets[name].cpu(), hidden, seed=config.seed).to(model.device)

    started = time.perf_counter()
    result = fit(model, boards, labels, config, log, progress)
    append_log(log, {"step": "fitted", "positions": len(boards), "seconds": round(time.perf_counter() - started, 1),
                     **result})
    meta = dict(payload.get("meta", {}))
    meta.setdefault("stages", [])
    meta["stages"] = list(meta["stages"]) + [{"distill": asdict(config), **result}]
    save_weights(weights, model, **meta)
    return weights


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m gammon.training.distill", description=__doc__.split("\n")[0])
    config_options(parser, DistillConfig)
    model_option(parser, required=True, help="weights to start from (and to label with, unless --teacher)")
    parser.add_argument("--out", type=Path, required=True, help="generation folder")
    worker_options(parser, "labelling positions")
    parser.add_argument("--no-progress", action="store_true")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    weights = generation(Path(args.model), args.out, config_from(args, DistillConfig), progress=not args.no_progress,
                         workers=args.workers or 1, ray=args.ray)
    print(f"weights: {weights}\nlog: {args.out / 'log.jsonl'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
