"""Self-play that stays on the device: engine.play.game.play's money game step and the trainer's choice, in torch.

:class:`DeviceGames` holds N games of cubeless money self-play as tensors on one torch
device (CPU or CUDA) and advances all of them one ply at a time, as
:func:`engine.play.game.play` does for the trainer on the host:

1. **dice** from a seeded ``torch.Generator`` on the device; a game's first roll is its
   opening roll (docs/rules.md): one die per player, never a double (uniform over the 30
   ordered pairs of different dice, which is what re-rolling ties gives), player 0 holds
   die 0 and the higher die moves first, playing both dice;
2. **move generation** with :mod:`training.torch_movegen` (engine.rules.movegen's afterstates);
3. **choice** by the player's ``policy(afterstates) -> flat indices``; the trainer's is
   :func:`greedy_choice`, training/train.py's ``policy`` in torch: every afterstate's
   result distribution for the side that moved (a finished game its exact result, by
   :func:`result_points`; the rest the net's view of the opponent on roll, with the
   inputs of :mod:`training.torch_encoding`, swapped back), the best expected points,
   the first on ties;
4. **learning**: the player's ``learn(before, after)`` sees the boards moved from and
   the afterstates chosen;
5. **the turn**: a finished game (the mover bore off its last checker) restarts from the
   starting position with an opening roll next; every other board is flipped to the
   opponent, now on roll.

No board leaves the device. What crosses to the host is scalars: the count of games
finished each ply (it decides when :meth:`DeviceGames.play` stops), and the sizes the
move generator and the nets' routing need to shape their tensors.

The rules of a finished game are engine.rules.outcomes.result_points' and
engine.rules.outcomes.outcome_probs' (``tests/test_device_selfplay.py`` checks them against
numpy). Only backgammon's board is played (standard, nackgammon, hypergammon): the
variants the torch move generator plays, all of them with backgammons.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from gammon.engine.errors import GammonError
from gammon.engine.rules.board import CLASS_NAMES, CONTACT, CRASHED
from gammon.engine.rules.dice import ORDERED_OPENING_ROLLS
from gammon.engine.rules.outcomes import RESULT_POINTS
from gammon.engine.rules.variants import Variant
from gammon.models.network import ClassNets
from gammon.models.onesided import OneSidedRace
from gammon.training.torch_encoding import encoder, flip, position_class
from gammon.training.torch_movegen import TorchAfterstates, generate, plays_backgammon_board

# Where each of the six exclusive results (engine.rules.outcomes) goes when the sides swap: my win 1 is
# their lose 1, and so on.
SWAPPED_RESULTS = (3, 4, 5, 0, 1, 2)


def _where(flags: torch.Tensor) -> torch.Tensor:
    """Indices of the true entries of a 1-D mask."""
    return flags.nonzero().squeeze(1)


def result_points(boards: torch.Tensor, checkers: int, backgammons: bool = True) -> torch.Tensor:
    """engine.rules.outcomes.result_points on backgammon's board: points won by the mover of each afterstate,
    (M,) int64.

    0 while the mover has a checker on the board or the bar; else 1 when the loser has
    borne off a checker, 3 (a backgammon, where the variant has them) when the loser has
    one on the bar or in the winner's home board (points 1..6), otherwise 2 (a gammon).
    """
    b = boards.to(torch.int64)
    won = b[:, 1:26].clamp(min=0).sum(1) == 0
    loser_left = (-b[:, 1:25]).clamp(min=0).sum(1) + b[:, 0]
    in_danger = (b[:, 0] > 0) | (b[:, 1:7] < 0).any(1)
    points = torch.where(loser_left < checkers, 1, torch.where(in_danger & backgammons, 3, 2))
    return torch.where(won, points, 0)


def outcome_results(points: torch.Tensor) -> torch.Tensor:
    """(M, 6) float32 exclusive results of decided games (engine.rules.outcomes.outcome_probs, then
    exclusive_results): ``points`` won (1, 2, 3) or lost (-1, -2, -3), one result each, certain."""
    column = torch.where(points > 0, points - 1, 2 - points)
    return torch.nn.functional.one_hot(column, 6).to(torch.float32)


def model_logits(model: ClassNets, boards: torch.Tensor) -> torch.Tensor:
    """models.network.ClassNets.logits for boards on the device: (N, 6) result logits for the player on roll.

    Each board goes to the net of its position class (:func:`training.torch_encoding.position_class`;
    crashed ones to the contact net unless the model has its own), encoded on the device. A
    one-sided race net reads the bear-off database on the host, so its boards go there and back.
    """
    if "all" in model.nets:
        net = model.nets["all"]
        return net(encoder(net.encoding)[0](boards))
    classes = position_class(boards)
    if "crashed" not in model.nets:
        classes = torch.where(classes == CRASHED, CONTACT, classes)
    out = torch.zeros((len(boards), 6), device=boards.device)
    for name, net in model.nets.items():
        rows = _where(classes == CLASS_NAMES.index(name))
        if len(rows) and isinstance(net, OneSidedRace):
            out = out.index_copy(0, rows, net.logits(boards[rows].cpu().numpy().astype(np.int8)).to(boards.device))
        elif len(rows):
            out = out.index_copy(0, rows, net(encoder(net.encoding)[0](boards[rows])))
    return out


@torch.no_grad()
def afterstate_results(model: ClassNets, boards: torch.Tensor, variant: Variant) -> torch.Tensor:
    """Distribution over the six results for the side that just moved, (M, 6) float32 (train.py's
    ``result_distribution``): a finished game is its actual result, the rest the net's view of the
    opponent, now on roll, with the sides swapped.

    Every board goes through the net, finished ones too, and the exact results replace
    theirs: no host round trip to pick the unfinished out.
    """
    model.eval()
    points = result_points(boards, variant.checkers, variant.backgammons)
    opponent = torch.softmax(model_logits(model, flip(boards)), dim=-1)
    mine = opponent[:, list(SWAPPED_RESULTS)]
    return torch.where((points > 0)[:, None], outcome_results(points), mine)


def best_in_groups(values: torch.Tensor, afterstates: TorchAfterstates) -> torch.Tensor:
    """engine.rules.groups.best_in_groups: flat index of each input's afterstate of largest value (the first on
    ties)."""
    n, parent = len(afterstates.offsets) - 1, afterstates.parent
    best = torch.full((n,), -torch.inf, dtype=values.dtype, device=values.device)
    best = best.scatter_reduce(0, parent, values, reduce="amax")
    index = torch.arange(len(values), device=values.device)
    candidates = torch.where(values == best[parent], index, len(values))
    return torch.full((n,), len(values), device=values.device).scatter_reduce(0, parent, candidates, reduce="amin")


def greedy_choice(model: ClassNets, afterstates: TorchAfterstates,
                  variant: Variant) -> tuple[torch.Tensor, torch.Tensor]:
    """The trainer's 0-ply choice on the device: (flat index of each game's move, its (N, 6) result distribution).

    The afterstate of the best expected points for the side that moves, as training/train.py's
    ``policy``; its distribution is the TD(0) target of the position moved from.
    """
    results = afterstate_results(model, afterstates.boards, variant)
    points = torch.tensor(RESULT_POINTS, dtype=results.dtype, device=results.device)
    choice = best_in_groups(results @ points, afterstates)
    return choice, results[choice]


@dataclass(frozen=True)
class Ply:
    """One ply of every game, for a ``watch``: tensors on the device, one row per game."""

    first_move: torch.Tensor  # (N,) bool: a game's first move, played with its opening roll
    on_roll: torch.Tensor  # (N,) int8: who moved, player 0 or 1
    dice: torch.Tensor  # (N, 2) int8
    before: torch.Tensor  # (N, 26) int8: the boards moved from, the mover positive
    after: torch.Tensor  # (N, 26) int8: the afterstates chosen, the mover still positive
    won: torch.Tensor  # (N,) int64: points the mover won, 0 where the game goes on


class DeviceGames:
    """N cubeless money games of self-play on one torch device, advanced a ply at a time (see the module).

    ``boards`` (N, 26) int8, the player on roll positive; ``first_move`` (N,) bool, the next
    move is a game's first (an opening roll); ``on_roll`` (N,) int8, who is on roll, 0 or 1
    (each game's opening roll decides who starts).
    """

    def __init__(self, variant: Variant, parallel: int, device: torch.device, seed: int):
        if not (plays_backgammon_board(variant) and variant.backgammons):
            raise GammonError(f"self-play on the device plays backgammon's board (standard, nackgammon, "
                              f"hypergammon); {variant.name} self-plays with --backend numpy")
        self.variant = variant
        self.start = torch.from_numpy(variant.starting_board()).to(device)
        self.boards = self.start.repeat(parallel, 1)
        self.first_move = torch.ones(parallel, dtype=torch.bool, device=device)
        self.on_roll = torch.zeros(parallel, dtype=torch.int8, device=device)
        self.dice_rng = torch.Generator(device=device)
        self.dice_rng.manual_seed(seed)
        self.openings = torch.tensor(ORDERED_OPENING_ROLLS, dtype=torch.int8, device=device)

    @property
    def device(self) -> torch.device:
        return self.boards.device

    def roll(self) -> torch.Tensor:
        """(N, 2) int8 dice of this ply: an opening roll where a game starts, and who starts it.

        Every ply draws the same amount for every game (a fresh roll and an opening roll),
        whatever its game does, so the dice never depend on the play.
        """
        n = len(self.boards)
        fresh = torch.randint(1, 7, (n, 2), generator=self.dice_rng, device=self.device, dtype=torch.int8)
        pick = torch.randint(0, len(self.openings), (n,), generator=self.dice_rng, device=self.device)
        opening = self.openings[pick]
        starter = (opening[:, 1] > opening[:, 0]).to(torch.int8)  # player 0 holds die 0; the higher die starts
        self.on_roll = torch.where(self.first_move, starter, self.on_roll)
        return torch.where(self.first_move[:, None], opening, fresh)

    def ply(self, player, watch: Callable[[Ply], None] | None = None) -> torch.Tensor:
        """Every game moves once (``player.policy`` chooses, ``player.learn`` sees the move); returns the
        points the mover won in each game, 0 where it goes on (as engine.rules.outcomes.result_points).

        ``watch`` (for checks and logging) hears of the whole :class:`Ply`.
        """
        first_move = self.first_move
        dice = self.roll()
        before = self.boards
        afterstates = generate(before, dice, check=False, variant=self.variant)
        choice = player.policy(afterstates)
        after = afterstates.boards[choice]
        player.learn(before, after)
        won = result_points(after, self.variant.checkers, self.variant.backgammons)
        if watch is not None:
            watch(Ply(first_move, self.on_roll, dice, before, after, won))
        finished = won > 0
        self.boards = torch.where(finished[:, None], self.start, flip(after))
        self.first_move = finished
        self.on_roll = 1 - self.on_roll  # a finished game's next starter is its next opening roll's
        return won

    def play(self, player, until_games: int, progress: Callable[[int], None] | None = None) -> int:
        """Play plies until at least ``until_games`` games have finished; returns how many did.

        The games in progress carry over from call to call, as engine.play.game.play's
        ``until_games`` slots do; ``progress(k)`` hears of every k games finished.
        """
        finished = 0
        while finished < until_games:
            done = int((self.ply(player) > 0).sum())  # the one scalar a ply brings to the host
            finished += done
            if progress and done:
                progress(done)
        return finished

    def state_dict(self) -> dict:
        """The games in progress and the dice generator, as CPU tensors (for a checkpoint)."""
        return {"boards": self.boards.cpu(), "first_move": self.first_move.cpu(), "on_roll": self.on_roll.cpu(),
                "dice_rng": self.dice_rng.get_state()}

    def load_state_dict(self, state: dict) -> None:
        """Restore :meth:`state_dict`'s games and dice; ValueError names a field of the wrong shape."""
        for name in ("boards", "first_move", "on_roll"):
            value = state[name]
            if value.shape != getattr(self, name).shape:
                raise ValueError(f"{name} has shape {tuple(value.shape)}; these games need "
                                 f"{tuple(getattr(self, name).shape)}")
            setattr(self, name, value.to(self.device, getattr(self, name).dtype))
        self.dice_rng.set_state(state["dice_rng"])
