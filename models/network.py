"""The TD-Gammon-style network, its evaluator for the engine, and its weight files.

The net maps an encoded position (player on roll, before rolling) to a softmax over the
six exclusive results for that player: win single / gammon / backgammon, lose single /
gammon / backgammon. gnubg's five probabilities are sums of these, so they are always
consistent (P(win bg) <= P(win gammon) <= P(win), all in [0, 1]).

Weight files are ``torch.save``'d dicts of tensors and plain values, read back with
``torch.load(..., weights_only=True)``; writing goes through a temporary file and an
atomic rename.
"""

from __future__ import annotations

import datetime as _dt
import os
import tempfile
from pathlib import Path

import numpy as np
import torch
from torch import nn

from engine.board import flip
from engine.evaluator import afterstate_equity

from .encoding import encoder

FORMAT = "gammon-weights"
FORMAT_VERSION = 1

# Result order of the softmax: win 1/2/3 points, then lose 1/2/3 points.
POINTS = torch.tensor([1.0, 2.0, 3.0, -1.0, -2.0, -3.0])
# Seen from the other player, results swap sides.
SWAP_SIDES = [3, 4, 5, 0, 1, 2]


class WeightsError(ValueError):
    """A weights file that is missing, truncated, or not one of ours (says which)."""


class TDNet(nn.Module):
    """encoding -> hidden layers (ReLU) -> 6 logits over exclusive results."""

    def __init__(self, encoding: str = "tesauro198+race", hidden: tuple[int, ...] = (128,)):
        super().__init__()
        self.encoding = encoding
        self.hidden = tuple(int(h) for h in hidden)
        _, width = encoder(encoding)
        layers: list[nn.Module] = []
        for size in self.hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        layers.append(nn.Linear(width, 6))
        self.layers = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)

    def encode(self, boards: np.ndarray) -> torch.Tensor:
        """Encoded boards as a float tensor on the device the net lives on."""
        encode, _ = encoder(self.encoding)
        return torch.from_numpy(encode(boards)).to(self.layers[0].weight.device)


def results_to_gnubg(results: torch.Tensor) -> torch.Tensor:
    """(N, 6) exclusive-result probabilities -> (N, 5) gnubg probabilities."""
    w1, w2, w3, l1, l2, l3 = results.unbind(-1)
    return torch.stack([w1 + w2 + w3, w2 + w3, w3, l2 + l3, l3], dim=-1)


class NetEvaluator:
    """A TDNet as an engine evaluator (numpy in, numpy out, no gradients)."""

    def __init__(self, net: TDNet, name: str = "net", meta: dict | None = None, checkers: int = 15):
        self.net = net.eval()
        self.name = name
        self.meta = meta or {}
        self.checkers = checkers  # checkers a side: scores finished games (3 in hypergammon)

    @torch.no_grad()
    def results(self, boards: np.ndarray) -> np.ndarray:
        """(N, 6) exclusive-result probabilities for the player on roll."""
        return torch.softmax(self.net(self.net.encode(boards)), dim=-1).cpu().numpy()

    @torch.no_grad()
    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        return results_to_gnubg(torch.from_numpy(self.results(boards))).numpy().astype(np.float64)

    def score_afterstates(self, boards: np.ndarray) -> np.ndarray:
        return afterstate_equity(self, boards, self.checkers)

    def equity_on_roll(self, boards: np.ndarray) -> np.ndarray:
        """Cubeless equity for the player on roll (convenience for analysis)."""
        return -afterstate_equity(self, flip(np.asarray(boards)), self.checkers)


def save_weights(path: str | Path, net: TDNet, **meta) -> None:
    """Write ``net`` and its metadata atomically (temporary file, fsync, rename)."""
    path = Path(path)
    payload = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "encoding": net.encoding,
        "hidden": list(net.hidden),
        "state_dict": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()},
        "saved": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "meta": meta,
    }
    atomic_torch_save(payload, path)


def atomic_torch_save(payload, path: Path) -> None:
    """``torch.save`` that never leaves a half-written file at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(payload, f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; weights are meant to be shared
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_payload(path: str | Path) -> dict:
    """Read a weights or checkpoint file safely; WeightsError says what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise WeightsError(f"weights file {str(path)!r} does not exist")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # truncated zip, pickle refused by weights_only, random bytes
        raise WeightsError(f"{str(path)!r} is not a readable gammon weights file ({type(exc).__name__}: {exc})".split("\n")[0]) from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise WeightsError(f"{str(path)!r} is not a gammon weights file (no '{FORMAT}' header)")
    if payload.get("version") != FORMAT_VERSION:
        raise WeightsError(f"{str(path)!r} has format version {payload.get('version')}; this gammon reads {FORMAT_VERSION}")
    return payload


def net_from_payload(payload: dict, source: str = "weights") -> TDNet:
    try:
        net = TDNet(payload["encoding"], tuple(payload["hidden"]))
        net.load_state_dict(payload["state_dict"])
    except (KeyError, ValueError, RuntimeError) as exc:
        raise WeightsError(f"{source}: weights do not fit the network they describe ({exc})".split("\n")[0]) from None
    return net


def load_weights(path: str | Path) -> NetEvaluator:
    """A NetEvaluator from a weights file written by :func:`save_weights`."""
    payload = load_payload(path)
    net = net_from_payload(payload, str(path))
    return NetEvaluator(net, name=Path(path).stem, meta=payload.get("meta", {}))
