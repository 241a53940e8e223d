"""The one-sided race net: each side's roll counts in a race, combined into the race's probabilities.

In a race the two sides no longer meet, so each one's future is its own: how many rolls it
needs to bear off, to get its first checker off (gammons) and to leave the other side's home
board (backgammons). The bear-off database holds these counts exactly for checkers in the
home board; this net estimates them for the rest, one side at a time, from that side's
checkers alone (:func:`one_sided_inputs`). A race position is then two net evaluations, one
per side, combined by :func:`engine.search.bearoff.race_probabilities` (the one-sided
approximation gnubg uses with its one-sided database).

Why not a two-sided race net: one side's position is far smaller than a race's, and its
counts satisfy an exact recurrence (one roll, the best play, one roll fewer) from the
database outwards, so :mod:`training.onesided` trains the net by dynamic programming on our
own positions, with no search or rollout noise in the targets.

:class:`OneSidedRace` is the ``race`` entry of a :class:`models.network.ClassNets` model:
its :meth:`~OneSidedRace.logits` are the log-probabilities of the six exclusive results.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from gammon.engine.rules.board import MAX_CHECKERS, mover_counts, opponent_counts
from gammon.engine.rules.outcomes import exclusive_results
from gammon.engine.search.bearoff import (
    POINTS,
    Databases,
    RaceDistributions,
    database_distributions,
    default_databases,
    race_probabilities,
)
from gammon.models.encoding import _point_units

KIND = "one-sided"  # the ``kind`` of a one-sided race net in a weights file
BINS = 48  # roll counts 0..47: a 160-pip side needs about 20; what lies beyond 47 is not modelled
HEADS = ("rolls", "first", "clear")  # RaceDistributions' fields, in the net's output order
INPUTS = 101
OPPONENT_HOME = slice(18, 24)  # a side's points 19..24: the other side's home board
_PIPS = np.arange(1, 25)


def one_sided_inputs(counts: np.ndarray) -> np.ndarray:
    """(N, 24) checkers of one side on its points 1..24 -> (N, 101) float32 net inputs.

    Tesauro's four units per point (96), then: checkers off / 15, pips / 100, checkers
    outside the home board / 15, checkers in the other side's home board / 15, and the pips
    still to come home (each checker outside counts its distance to the 6-point) / 50.
    """
    c = np.asarray(counts)
    outside = c[:, POINTS:].sum(axis=1)
    extra = np.stack([(MAX_CHECKERS - c.sum(axis=1)) / 15, (c * _PIPS).sum(axis=1) / 100, outside / 15,
                      c[:, OPPONENT_HOME].sum(axis=1) / 15, (c[:, POINTS:] * _PIPS[:-POINTS]).sum(axis=1) / 50],
                     axis=1)
    return np.concatenate([_point_units(c), extra], axis=1, dtype=np.float32)


def _certain_now(n: int, bins: int) -> np.ndarray:
    out = np.zeros((n, bins))
    out[:, 0] = 1.0
    return out


class OneSidedRace(nn.Module):
    """One side's checkers (inputs above) -> hidden layers (ReLU) -> three softmaxes over 0..BINS-1 rolls."""

    kind = KIND

    def __init__(self, hidden: tuple[int, ...] = (128, 128), bins: int = BINS):
        super().__init__()
        self.hidden = tuple(int(h) for h in hidden)
        self.bins = int(bins)
        layers: list[nn.Module] = []
        width = INPUTS
        for size in self.hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        layers.append(nn.Linear(width, len(HEADS) * self.bins))
        self.layers = nn.Sequential(*layers)
        self.databases: Databases | None = None  # loaded on first use

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, 101) inputs -> (N, 3, bins) logits of the rolls, first and clear counts."""
        return self.layers(x).view(len(x), len(HEADS), self.bins)

    def _databases(self) -> Databases:
        if self.databases is None:
            self.databases = default_databases()
        return self.databases

    @torch.no_grad()
    def distributions(self, counts: np.ndarray, dtype=np.float64) -> RaceDistributions:
        """One side's roll counts ``(N, 24)`` -> its RaceDistributions, ``(N, bins)`` each.

        Home-board positions come from the one-sided database, the others from the net; a
        side with nothing in the other side's home board has nothing to clear. (Training asks
        for float32: it evaluates millions of afterstates.)
        """
        counts = np.asarray(counts)
        out = np.zeros((len(counts), len(HEADS), self.bins), dtype=dtype)
        home = counts[:, POINTS:].sum(axis=1) == 0
        if home.any():
            exact = database_distributions(self._databases().one, counts[home, :POINTS])
            out[home, :, : exact.rolls.shape[1]] = np.stack(exact, axis=1)
        outside = np.flatnonzero(~home)
        if len(outside):
            x = torch.from_numpy(one_sided_inputs(counts[outside])).to(self.layers[0].weight.device)
            out[outside] = torch.softmax(self(x), dim=-1).cpu().numpy()
            cleared = outside[counts[outside, OPPONENT_HOME].sum(axis=1) == 0]
            out[cleared, HEADS.index("clear")] = _certain_now(len(cleared), self.bins)
        return RaceDistributions(*(out[:, k] for k in range(len(HEADS))))

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(N, 5) gnubg probabilities of the player on roll in race positions (both sides with checkers left)."""
        b = np.asarray(boards)
        mine, theirs = mover_counts(b)[:, :24], opponent_counts(b)[:, :24]
        # A search's batch repeats sides (one side's position under every play of the other):
        # each distinct side is evaluated once.
        sides = np.ascontiguousarray(np.concatenate([mine, theirs]), dtype=np.int8)
        _, first, which = np.unique(sides.view(f"V{sides.shape[1]}").ravel(), return_index=True, return_inverse=True)
        dists = self.distributions(sides[first])
        mine_d, theirs_d = (RaceDistributions(*(d[which[rows]] for d in dists))
                            for rows in (slice(0, len(b)), slice(len(b), None)))
        return race_probabilities(mine_d, theirs_d, mine.sum(axis=1) == MAX_CHECKERS,
                                  theirs.sum(axis=1) == MAX_CHECKERS)

    def logits(self, boards: np.ndarray) -> torch.Tensor:
        """(N, 6) log-probabilities of the exclusive results (a softmax gives them back), on the net's device."""
        results = np.clip(exclusive_results(self.probabilities(boards)), 1e-12, None)
        return torch.from_numpy(np.log(results)).float().to(self.layers[0].weight.device)
