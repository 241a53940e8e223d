"""The one-sided race net: each side's roll counts in a race, combined into the race's probabilities.

In a race the two sides no longer meet, so each one's future is its own: how many rolls it
needs to bear off, to get its first checker off (gammons) and to leave the other side's home
board (backgammons). The bear-off database holds these counts exactly for checkers in the
home board; this net estimates them for the rest, one side at a time, from that side's
checkers alone (:func:`models.inference.one_sided_inputs`). A race position is then two net evaluations, one
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

from gammon.engine.rules.outcomes import exclusive_results
from gammon.models.inference import (
    HEADS,
    ONE_SIDED,
    ONE_SIDED_INPUTS,
    OneSidedCounts,
    one_sided_inputs,
)

BINS = 48  # roll counts 0..47: a 160-pip side needs about 20; what lies beyond 47 is not modelled


class OneSidedRace(nn.Module, OneSidedCounts):
    """One side's checkers (:func:`models.inference.one_sided_inputs`) -> hidden layers (ReLU) -> three
    softmaxes over 0..BINS-1 rolls.

    The database lookups and the combination of two sides are :class:`models.inference.OneSidedCounts`'s;
    this class adds the net, in torch, for training."""

    kind = ONE_SIDED  # in a weights file

    def __init__(self, hidden: tuple[int, ...] = (128, 128), bins: int = BINS):
        super().__init__()
        self.hidden = tuple(int(h) for h in hidden)
        self.bins = int(bins)
        layers: list[nn.Module] = []
        width = ONE_SIDED_INPUTS
        for size in self.hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        layers.append(nn.Linear(width, len(HEADS) * self.bins))
        self.layers = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, 101) inputs -> (N, 3, bins) logits of the rolls, first and clear counts."""
        return self.layers(x).view(len(x), len(HEADS), self.bins)

    @torch.no_grad()
    def side_counts(self, counts: np.ndarray) -> np.ndarray:
        x = torch.from_numpy(one_sided_inputs(counts)).to(self.layers[0].weight.device)
        return torch.softmax(self(x), dim=-1).cpu().numpy()

    def logits(self, boards: np.ndarray) -> torch.Tensor:
        """(N, 6) log-probabilities of the exclusive results (a softmax gives them back), on the net's device."""
        results = np.clip(exclusive_results(self.probabilities(boards)), 1e-12, None)
        return torch.from_numpy(np.log(results)).float().to(self.layers[0].weight.device)
