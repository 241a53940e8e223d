"""TD(0) self-play training of the gammon network, batched. Read it top to bottom.

    gammon train --out runs/my-net                  # train with the defaults below
    gammon train --out runs/my-net --resume         # carry on after a crash or a kill

N games run side by side in :func:`engine.play.game.play`, the one game loop, with the
trainer as both players. Each ply costs one move-generator call for all N games, one
forward pass over all their afterstates (the trainer's ``policy`` chooses each game's
move greedily), and one gradient step (its ``learn``) on the N positions that were on
roll: their target is the network's own distribution over results one ply later, seen
from the same side (TD(0)), or the real result when the game just ended. Finished games
restart from the opening position, so the batch stays full.

``--backend torch`` plays the same games on the network's device instead
(:class:`training.device_selfplay.DeviceGames`: dice, move generation, input encoding and
choice in torch, no board crossing to the host); it is the default when the network runs
on a GPU (``--device cuda``, or ``auto`` with one present). ``--backend numpy`` is
engine.play.game.play on the host, the default on the CPU.

Everything lands in ``--out``: ``checkpoint.pt`` (atomic, every ``--checkpoint-every``
games; ``--resume`` loses at most one interval), ``log.jsonl`` (metrics), ``curve.svg``
(strength against pubeval, or the variant's heuristic, as training goes), and ``model.pt`` (the final weights).
"""

from __future__ import annotations

import json
import time
from collections import deque
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from gammon.engine.errors import GammonError
from gammon.engine.files import atomic_write
from gammon.engine.play.duel import duel
from gammon.engine.play.game import Rules, play
from gammon.engine.play.players import Cubeless, Player
from gammon.engine.rules.groups import best_in_groups, best_k_in_groups
from gammon.engine.rules.outcomes import RESULT_POINTS, afterstate_probs, exclusive_results
from gammon.engine.rules.variants import ROTATED, Variant, variant_named
from gammon.engine.search.evaluator import WILD_KEEP, evaluator_policy
from gammon.models.encoding import ENTERING_ENCODING
from gammon.models.network import (
    NetEvaluator,
    WeightsError,
    build_model,
    load_payload,
    model_from_payload,
    save_weights,
    seed_from,
)
from gammon.models.players import load_player
from gammon.training.curve import write_curve
from gammon.training.device_selfplay import DeviceGames, greedy_choice, model_logits
from gammon.training.runlog import append_log, truncate_log
from gammon.training.torch_movegen import plays_backgammon_board


@dataclass
class Config:
    games: int = 400_000  # self-play games to train on
    variant: str = "standard"  # the game it plays (engine.rules.variants.VARIANTS)
    parallel: int = 256  # games played side by side (the batch)
    hidden: int = 128  # hidden units (one ReLU layer) of every net
    nets: str = ""  # one net per position class, NAME=ENCODING,...; empty: the variant's own (default_nets)
    init: str = ""  # a weights file to start from (nets whose encodings extend its own); empty: random
    lr: float = 1e-3  # Adam's learning rate
    # Positions per TD gradient step; 0: one step per ply over every game's move. Thousands of games
    # side by side (on a GPU) take one step a ply and so learn less per game: split, they take several.
    minibatch: int = 0
    # Extra TD steps a ply, each on an earlier ply drawn at random from the last replay_window (with the
    # targets taken when it was played): more learning per game played when thousands run side by side.
    replay: int = 0
    replay_window: int = 32  # the plies --replay draws from, the latest first
    seed: int = 1  # dice, first weights and evaluation games all follow it
    threads: int = 2  # torch CPU threads (results are reproducible for a fixed count)
    device: str = "auto"  # where the network runs: auto (a GPU when present), cpu, cuda
    backend: str = "auto"  # where self-play runs: numpy (host), torch (the device); auto: torch on a GPU
    checkpoint_every: int = 10_000  # games between checkpoints
    eval_every: int = 25_000  # games between evaluations against pubeval (or the variant's heuristic)
    eval_games: int = 2_000  # duplicate-dice games per evaluation (even)

    def check(self) -> None:
        """ValueError naming the first option out of range."""
        for name in ("games", "parallel", "hidden", "threads", "checkpoint_every", "eval_every", "replay_window"):
            if getattr(self, name) < 1:
                raise GammonError(f"--{name.replace('_', '-')} must be at least 1; got {getattr(self, name)}")
        if self.minibatch < 0:
            raise GammonError(f"--minibatch must be 0 (the whole ply) or positive; got {self.minibatch}")
        if self.replay < 0:
            raise GammonError(f"--replay must be 0 (no replay) or positive; got {self.replay}")
        if not self.lr > 0:
            raise GammonError(f"--lr must be positive; got {self.lr}")
        if self.eval_games % 2 or self.eval_games < 4:
            raise GammonError("--eval-games must be even and at least 4 (duplicate dice play games in pairs)")
        if self.device not in ("auto", "cpu", "cuda"):
            raise GammonError(f"--device is auto, cpu or cuda; got {self.device!r}")
        if self.backend not in ("auto", "numpy", "torch"):
            raise GammonError(f"--backend is auto, numpy or torch; got {self.backend!r}")
        variant_named(self.variant)
        if self.backend == "torch" and not plays_backgammon_board(variant_named(self.variant)):
            raise GammonError(f"--backend torch plays backgammon's board (standard, nackgammon, hypergammon); "
                              f"{self.variant} self-plays with --backend numpy")
        if variant_named(self.variant).geometry is ROTATED and self.nets and self.nets.split("=")[0] != "all":
            raise GammonError(f"{self.variant} has no contact or race positions as backgammon does: give one net, "
                              "--nets all=ENCODING")
        encodings = {spec.partition("=")[2].strip() for spec in self.nets.split(",")} if self.nets else set()
        if variant_named(self.variant).off_board and encodings - {ENTERING_ENCODING}:
            raise GammonError(f"{self.variant} boards hold checkers still to enter, which only {ENTERING_ENCODING} "
                              f"reads: give --nets all={ENTERING_ENCODING}")


def default_nets(variant: Variant) -> str:
    """The nets a variant trains by default: backgammon's boards one per position class with the knowledge
    inputs. The classes and features are backgammon's, so the others train one net: the same-direction
    games on Tesauro's inputs, Acey-Deucey (checkers off the board) on Tesauro's and those still to enter."""
    if variant.off_board:
        return f"all={ENTERING_ENCODING}"
    return "all=tesauro198" if variant.geometry is ROTATED else "contact=contact-v1,race=race-v1"


CHECKPOINT_FORMAT = "gammon-checkpoint"


def evaluate_vs_baseline(evaluator, games: int) -> dict:
    """Points per game of ``evaluator`` at 0-ply against pubeval (in backgammon; in other variants against
    the heuristic player of the variant), duplicate dice, a fixed seed."""
    variant = evaluator.variant.name
    opponent = "pubeval" if variant == "standard" else "heuristic"
    baseline = load_player(opponent, variant=variant)
    stats = duel(Cubeless(evaluator_policy(evaluator)), Cubeless(evaluator_policy(baseline)), games, seed=12345,
                 rules=Rules(variant=variant))
    return {"opponent": opponent, **stats.as_dict()}


class Trainer(Player):
    """TD(0) self-play: the net plays both seats of the game loop and learns from every move made."""

    learning = True  # the game loop shows it every move it makes: TD(0) learns there

    def __init__(self, config: Config):
        self.config = config
        torch.set_num_threads(config.threads)
        torch.manual_seed(config.seed)
        self.rng = np.random.default_rng(config.seed)
        self.device = torch.device(("cuda" if torch.cuda.is_available() else "cpu") if config.device == "auto"
                                   else config.device)
        self.variant = variant_named(config.variant)
        self.model = build_model(config.nets or default_nets(self.variant), (config.hidden,))
        if config.init:
            seed_from(self.model, model_from_payload(load_payload(config.init), config.init))
        self.model.to(self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=config.lr)
        self.on_device = config.backend == "torch" or (config.backend == "auto" and self.device.type == "cuda"
                                                       and plays_backgammon_board(self.variant))
        if self.on_device:
            self.device_games = DeviceGames(self.variant, config.parallel, self.device, config.seed)
        else:
            self.boards = np.repeat(self.variant.starting_board()[None], config.parallel, axis=0)
            self.first_move = np.ones(config.parallel, dtype=bool)  # the game's first move: the opening roll
        self.games_done = 0
        self.plies = 0
        self.losses: list[torch.Tensor] = []  # of the TD steps since the last log line (on the device)
        self.replay_plies: deque = deque(maxlen=config.replay_window)  # (boards moved from, their targets)
        self.elapsed = 0.0

    # -- self-play: the trainer is both players of engine.play.game.play, or of DeviceGames.play ------
    def self_play(self, games: int, progress=None) -> int:
        """Play on until ``games`` more games have finished, a TD step after every ply; returns the games finished.

        The games in progress carry over from call to call (``boards``, ``first_move``, or
        ``device_games``), so checkpoints between calls resume exactly.
        """
        if self.on_device:
            return self.device_games.play(self, games, progress)
        seed = int(self.rng.integers(2**63))
        result = play((self, self), len(self.boards), seed=seed, rules=Rules(variant=self.config.variant),
                      start=self.boards, opening=self.first_move, until_games=games, progress=progress)
        self.boards, self.first_move = result.boards, result.first_move
        return int(result.games.sum())

    def policy(self, afterstates) -> np.ndarray | torch.Tensor:
        """Greedy 0-ply choice of every game's move; keeps its result distribution as the TD target."""
        if self.on_device:  # the same choice in torch (training/device_selfplay.py)
            choice, self.targets = greedy_choice(self.model, afterstates, self.variant)
            return choice
        results = self.result_distribution(afterstates.boards, afterstates.extra_roll)  # mover's view, (M, 6)
        choice = best_in_groups(results @ RESULT_POINTS, afterstates.offsets)
        self.targets = torch.from_numpy(results[choice]).to(self.device)
        return choice

    def wild_filter(self, boards: np.ndarray, group: np.ndarray) -> np.ndarray:
        """The plays of a wild roll's own two dice that go on to a double: the best few for the mover,
        who moves again (as :func:`engine.search.evaluator.wild_filter` keeps them)."""
        results = self.result_distribution(boards, np.ones(len(boards), dtype=bool))
        return best_k_in_groups(results @ RESULT_POINTS, group, WILD_KEEP)

    def learn(self, before: np.ndarray | torch.Tensor, after: np.ndarray | torch.Tensor) -> None:
        """TD(0): the positions moved from towards the distribution after the chosen moves, one step per
        ``minibatch`` of them (all in one when 0; the targets were all taken before the first step); then
        ``replay`` more on earlier plies of the window, this one included."""
        self.model.train()
        self.td_steps(before, self.targets)
        if self.config.replay:
            self.replay_plies.append((before.copy() if isinstance(before, np.ndarray) else before, self.targets))
            for ply in self.rng.integers(len(self.replay_plies), size=self.config.replay):
                self.td_steps(*self.replay_plies[ply])
        self.plies += 1

    def td_steps(self, before: np.ndarray | torch.Tensor, targets: torch.Tensor) -> None:
        size = self.config.minibatch or len(before)
        for start in range(0, len(before), size):
            rows = slice(start, start + size)
            logits = model_logits(self.model, before[rows]) if self.on_device else self.model.logits(before[rows])
            loss = -(targets[rows] * torch.log_softmax(logits, dim=-1)).sum(dim=1).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.losses.append(loss.detach())  # read at the next log line: no wait for the device here

    def mean_loss(self) -> float | None:
        """Mean loss of the TD steps since the last log line (None when there were none)."""
        return float(np.mean(torch.stack(self.losses).cpu().double().numpy())) if self.losses else None

    @torch.no_grad()
    def result_distribution(self, afterstates: np.ndarray, extra_roll: np.ndarray | None = None) -> np.ndarray:
        """Distribution over the six results for the side that just moved, (M, 6) float32.

        Finished games are their actual result; where the mover rolls again (``extra_roll``,
        Acey-Deucey's 1-2) the net's view of his own position on roll; the rest is the net's
        view of the opponent, now on roll, with the sides swapped.
        """
        self.model.eval()
        evaluator = NetEvaluator(self.model, variant=self.variant)
        probs = afterstate_probs(evaluator.probabilities, afterstates, self.variant, extra_roll)
        return exclusive_results(probs).astype(np.float32)

    # -- evaluation, checkpoints --------------------------------------------------------
    def evaluate(self) -> dict:
        return evaluate_vs_baseline(NetEvaluator(self.model, variant=self.variant), self.config.eval_games)

    def checkpoint(self, path: Path) -> None:
        state = {
            "format": CHECKPOINT_FORMAT,
            "config": asdict(self.config),
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "numpy_rng": json.dumps(self.rng.bit_generator.state),
            "torch_rng": torch.get_rng_state(),
            "games_done": self.games_done,
            "plies": self.plies,
            "elapsed": self.elapsed,
            "replay_plies": [(torch.as_tensor(before).cpu(), targets.cpu()) for before, targets in self.replay_plies],
        }
        if self.on_device:  # the games in progress: boards, first moves, who is on roll, the dice generator
            state.update(self.device_games.state_dict())
        else:
            state.update(boards=torch.from_numpy(self.boards.copy()),
                         first_move=torch.from_numpy(self.first_move.copy()))
        atomic_write(path, lambda f: torch.save(state, f))

    @classmethod
    def resume(cls, path: Path, games: int | None = None) -> Trainer:
        try:
            state = torch.load(path, map_location="cpu", weights_only=True)
        except FileNotFoundError:
            raise WeightsError(f"no checkpoint at {str(path)!r} to resume from") from None
        except OSError as exc:  # permissions, a vanished disk: not the file's fault
            raise WeightsError(f"cannot read checkpoint {str(path)!r}: {exc}") from None
        except Exception as exc:  # a damaged archive or pickle
            detail = (str(exc).splitlines() or [""])[0]
            raise WeightsError(f"checkpoint {str(path)!r} is unreadable ({type(exc).__name__}: {detail}); "
                               "it may be truncated") from None
        if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
            raise WeightsError(f"{str(path)!r} is not a gammon training checkpoint")
        try:
            config = Config(**{"backend": "numpy", **state["config"]})  # runs from before --backend: numpy
            if games is not None:
                config.games = games
            trainer = cls(config)
            trainer.model.load_state_dict(state["model"])
            trainer.optimizer.load_state_dict(state["optimizer"])
            trainer.rng.bit_generator.state = json.loads(state["numpy_rng"])
            torch.set_rng_state(state["torch_rng"])
            if trainer.on_device:
                trainer.device_games.load_state_dict(state)
            else:
                trainer.boards = state["boards"].numpy().copy()
                # checkpoints from before first_move was saved: a game at the starting position is new
                first = state.get("first_move")
                trainer.first_move = (first.numpy().copy() if first is not None
                                      else (trainer.boards == trainer.variant.starting_board()).all(axis=1))
            trainer.games_done, trainer.plies, trainer.elapsed = state["games_done"], state["plies"], state["elapsed"]
            for before, targets in state.get("replay_plies", []):  # runs from before --replay have none
                trainer.replay_plies.append((before.to(trainer.device) if trainer.on_device else before.numpy(),
                                             targets.to(trainer.device)))
        except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as exc:
            detail = (str(exc).splitlines() or [""])[0]
            raise WeightsError(f"checkpoint {str(path)!r} lacks or garbles a field "
                               f"({type(exc).__name__}: {detail})") from None
        return trainer


def train(config: Config, out: Path, resume: bool = False, progress: bool = True,
          games_override: int | None = None) -> Path:
    """Run (or resume) training into ``out``; returns the path of the final weights.

    When resuming, the checkpoint's configuration is used, except the number of games
    when ``games_override`` is given.
    """
    out.mkdir(parents=True, exist_ok=True)
    checkpoint, log = out / "checkpoint.pt", out / "log.jsonl"
    if resume:
        trainer = Trainer.resume(checkpoint, games=games_override)
        truncate_log(log, trainer.games_done)
    else:
        if checkpoint.exists():
            raise WeightsError(f"{str(out)!r} already holds a training run: continue it with --resume, "
                               "or choose another --out")
        trainer = Trainer(config)
        log.unlink(missing_ok=True)
    config = trainer.config
    next_checkpoint = (trainer.games_done // config.checkpoint_every + 1) * config.checkpoint_every
    next_eval = (trainer.games_done // config.eval_every + 1) * config.eval_every
    last_eval = "-"
    bar = tqdm(total=config.games, initial=trainer.games_done, unit="game", disable=not progress, smoothing=0.05)
    started = time.perf_counter() - trainer.elapsed
    while trainer.games_done < config.games:
        # play up to the next evaluation, checkpoint or the end, whichever comes first
        target = min(next_eval, next_checkpoint, config.games)
        trainer.games_done += trainer.self_play(target - trainer.games_done, progress=bar.update)
        trainer.elapsed = time.perf_counter() - started
        if trainer.games_done >= next_eval or trainer.games_done >= config.games:
            result = trainer.evaluate()
            last_eval = (f"vs {result['opponent']} {result['ppg']:+.3f} "
                         f"[{result['ci95'][0]:+.3f}, {result['ci95'][1]:+.3f}]")
            append_log(log, {"games": trainer.games_done, "elapsed_s": round(trainer.elapsed, 1), "eval": result})
            next_eval += config.eval_every
            started = time.perf_counter() - trainer.elapsed  # evaluation time is not training time
        if trainer.games_done >= next_checkpoint or trainer.games_done >= config.games:
            append_log(log, {"games": trainer.games_done, "plies": trainer.plies,
                             "elapsed_s": round(trainer.elapsed, 1),
                             "games_per_s": round(trainer.games_done / max(trainer.elapsed, 1e-9), 1),
                             "loss": trainer.mean_loss()})
            trainer.losses.clear()
            trainer.checkpoint(checkpoint)
            next_checkpoint += config.checkpoint_every
            started = time.perf_counter() - trainer.elapsed  # nor is writing checkpoints
        bar.set_postfix_str(last_eval, refresh=False)
    bar.close()
    weights = out / "model.pt"
    save_weights(weights, trainer.model, games=trainer.games_done, training_seconds=round(trainer.elapsed, 1),
                 config=asdict(config))
    write_curve(log, out / "curve.svg")
    return weights
