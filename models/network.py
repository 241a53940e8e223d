"""The TD-Gammon-style network, its evaluator for the engine, and its weight files.

The net maps an encoded position (player on roll, before rolling) to a softmax over the
six exclusive results for that player: win single / gammon / backgammon, lose single /
gammon / backgammon. gnubg's five probabilities are sums of these, so they are always
consistent (P(win bg) <= P(win gammon) <= P(win), all in [0, 1]).

A *model* is one net per position class (:class:`ClassNets`): boards are routed by
:func:`engine.rules.board.position_class`, crashed positions to the contact net unless the
model has a crashed net of its own. A model with a single net named ``all`` answers
every position with it (the format of the first shipped model).

Weight files are ``torch.save``'d dicts of tensors and plain values, read back with
``torch.load(..., weights_only=True)``; writing goes through a temporary file and an
atomic rename. Format version 2 holds a model; version 1 files (one net) still load.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

import numpy as np
import torch
from torch import nn

from gammon.engine.errors import GammonError
from gammon.engine.files import atomic_write
from gammon.engine.rules.variants import STANDARD, Variant, variant_named
from gammon.models.encoding import encoder, extends
from gammon.models.inference import (
    ONE_SIDED,
    DenseNet,
    Layer,
    NumpyEvaluator,
    NumpyModel,
    OneSidedNet,
    ResultsEvaluator,
    Screen,
    check_model,
    route,
)
from gammon.models.onesided import OneSidedRace

FORMAT = "gammon-weights"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)



class WeightsError(GammonError):
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

    def logits(self, boards: np.ndarray) -> torch.Tensor:
        """(N, 6) result logits of boards (numpy), on the net's device."""
        return self(self.encode(boards))


def check_widening(net: TDNet, hidden: tuple[int, ...]) -> None:
    """GammonError unless :func:`widened` can take ``net`` to ``hidden``: as many layers, none narrower."""
    if len(hidden) != len(net.hidden) or any(new < old for new, old in zip(hidden, net.hidden)):
        raise GammonError(f"a {'x'.join(map(str, net.hidden))} net widens to as many layers, none narrower; "
                          f"got {'x'.join(map(str, hidden))}")


def widened(net: TDNet, hidden: tuple[int, ...], noise: float = 1e-3, seed: int = 0) -> TDNet:
    """``net`` with hidden layers of ``hidden`` units (as many layers, none narrower), computing what it computed.

    Net2Net's widening: each new unit of a layer is a copy of one of its units (taken in turn),
    and the next layer's weights from that unit are shared out equally among it and its
    copies, so the sum is unchanged. Copies that stayed exact copies would learn in step and
    add nothing; ``noise`` (relative to each copied weight's layer scale) sets them apart, and
    moves the outputs by about as much.
    """
    check_widening(net, hidden)
    generator = torch.Generator().manual_seed(seed)
    wide = TDNet(net.encoding, hidden)
    old = [m for m in net.layers if isinstance(m, nn.Linear)]
    new = [m for m in wide.layers if isinstance(m, nn.Linear)]
    weight, bias = old[0].weight.detach().clone(), old[0].bias.detach().clone()
    with torch.no_grad():
        for k, size in enumerate(hidden):
            source = torch.arange(size) % weight.shape[0]  # unit j of the wide layer copies unit source[j]
            copies = torch.bincount(source, minlength=weight.shape[0]).to(weight.dtype)
            scale = noise * weight.abs().mean()
            extra = torch.arange(size) >= weight.shape[0]
            new[k].weight.copy_(weight[source] + extra[:, None] * scale * torch.randn(size, weight.shape[1],
                                                                                     generator=generator))
            new[k].bias.copy_(bias[source])
            weight = old[k + 1].weight.detach()[:, source] / copies[source]  # outgoing weights shared out
            bias = old[k + 1].bias.detach().clone()
        new[-1].weight.copy_(weight)
        new[-1].bias.copy_(bias)
    return wide


class ClassNets(nn.Module):
    """One net per position class, named by ``engine.rules.board.CLASS_NAMES`` (or one net, ``all``).

    Each is a TDNet, except that the race net may be a :class:`models.onesided.OneSidedRace`.
    """

    def __init__(self, nets: dict[str, TDNet | OneSidedRace]):
        super().__init__()
        check_model(nets)
        self.nets = nn.ModuleDict(nets)

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def logits(self, boards: np.ndarray) -> torch.Tensor:
        """(N, 6) result logits for the player on roll, each board by its class's net."""
        boards = np.asarray(boards)
        routes = route(self.nets, boards)
        if len(routes) == 1:  # one net answers the whole batch (always so for ``all``): no scatter
            return self.nets[routes[0][0]].logits(boards)
        out = torch.zeros(len(boards), 6, device=self.device)
        for name, rows in routes:
            out[torch.from_numpy(rows).to(self.device)] = self.nets[name].logits(boards[rows])
        return out


def net_encodings(spec: str) -> dict[str, str]:
    """A nets spec like ``contact=contact-v1,race=race-v1`` as {net name: encoding}, spaces dropped."""
    try:
        pairs = [item.split("=", 1) for item in spec.split(",")]
        return {name.strip(): encoding.strip() for name, encoding in pairs}
    except ValueError:
        raise GammonError(f"nets spec {spec!r}: write NAME=ENCODING pairs joined by commas, "
                         "e.g. contact=contact-v1,race=race-v1") from None


def build_model(spec: str, hidden: tuple[int, ...]) -> ClassNets:
    """A fresh model from a spec like ``contact=contact-v1,race=race-v1`` (or ``all=tesauro198+race``)."""
    return ClassNets({name: TDNet(encoding, hidden) for name, encoding in net_encodings(spec).items()})


def seed_from(target: ClassNets, source: ClassNets) -> list[str]:
    """Copy ``source``'s weights into ``target`` where the shapes allow; returns the nets seeded.

    Each target net takes the source net of the same name (else ``all``, else ``contact``)
    when the hidden layers match and the target's encoding extends the source's: the
    first-layer weights of the shared inputs carry over and the new inputs start at zero.
    """
    seeded = []
    for name, net in target.nets.items():
        src = next((source.nets[k] for k in (name, "all", "contact") if k in source.nets), None)
        if not isinstance(net, TDNet) or not isinstance(src, TDNet) or src.hidden != net.hidden \
                or not extends(net.encoding, src.encoding):
            continue
        state = {k: v.clone() for k, v in src.state_dict().items()}
        first = net.layers[0].weight
        widened = torch.zeros_like(first)
        widened[:, : state["layers.0.weight"].shape[1]] = state["layers.0.weight"]
        state["layers.0.weight"] = widened
        net.load_state_dict(state)
        seeded.append(name)
    return seeded


class NetEvaluator(ResultsEvaluator):
    """A torch model (ClassNets, or one TDNet) as an engine evaluator (numpy in, numpy out, no gradients):
    for training, whose nets change as it goes; analysis uses the numpy twin (:func:`numpy_evaluator`)."""

    def __init__(self, model: ClassNets | TDNet, name: str = "net", meta: dict | None = None,
                 variant: Variant = STANDARD):
        super().__init__(name, meta, variant)
        self.net = (model if isinstance(model, ClassNets) else ClassNets({"all": model})).eval()

    @torch.no_grad()
    def results(self, boards: np.ndarray) -> np.ndarray:
        """(N, 6) exclusive-result probabilities for the player on roll."""
        return torch.softmax(self.net.logits(boards), dim=-1).cpu().numpy()


def _numpy_layers(net: TDNet | OneSidedRace) -> list[Layer]:
    linear = [m for m in net.layers if isinstance(m, nn.Linear)]
    return [Layer(np.ascontiguousarray(m.weight.detach().cpu().numpy().T), m.bias.detach().cpu().numpy().copy())
            for m in linear]


def numpy_model(model: ClassNets | TDNet) -> NumpyModel:
    """The numpy twin of a torch model (models/inference.py): the same float32 weights."""
    model = model if isinstance(model, ClassNets) else ClassNets({"all": model})
    return NumpyModel({name: OneSidedNet(_numpy_layers(net), net.bins) if isinstance(net, OneSidedRace)
                       else DenseNet(net.encoding, _numpy_layers(net)) for name, net in model.nets.items()})


def numpy_evaluator(evaluator: NetEvaluator) -> NumpyEvaluator:
    """A NetEvaluator's numpy twin, with its name, metadata and variant."""
    return NumpyEvaluator(numpy_model(evaluator.net), evaluator.name, evaluator.meta, evaluator.variant)


def screen_from_payload(payload: dict, variant: Variant = STANDARD, source: str = "pruning net") -> Screen:
    """The search screen (models/inference.py) of a pruning net's weights payload (:mod:`training.prune`)."""
    return Screen(numpy_model(model_from_payload(payload, source)).nets["all"], variant)


def torch_model(model: NumpyModel) -> ClassNets:
    """A numpy model back in torch (for the device paths), the same weights."""
    nets = {}
    for name, net in model.nets.items():
        torch_net = OneSidedRace(net.hidden, net.bins) if net.kind == ONE_SIDED else TDNet(net.encoding, net.hidden)
        linear = [m for m in torch_net.layers if isinstance(m, nn.Linear)]
        with torch.no_grad():
            for m, layer in zip(linear, net.layers):
                m.weight.copy_(torch.from_numpy(layer.weight.T.copy()))
                m.bias.copy_(torch.from_numpy(layer.bias))
        nets[name] = torch_net
    return ClassNets(nets)


def save_weights(path: str | Path, model: ClassNets | TDNet, **meta) -> None:
    """Write ``model`` and its metadata atomically (temporary file, fsync, rename)."""
    path = Path(path)
    model = model if isinstance(model, ClassNets) else ClassNets({"all": model})
    payload = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "nets": {name: _net_spec(net) for name, net in model.nets.items()},
        "saved": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "meta": meta,
    }
    atomic_write(path, lambda f: torch.save(payload, f))


def _net_spec(net: TDNet | OneSidedRace) -> dict:
    """A net's entry in a weights file: a TDNet's encoding, or a one-sided race net's kind and bins."""
    shape = {"kind": ONE_SIDED, "bins": net.bins} if isinstance(net, OneSidedRace) else {"encoding": net.encoding}
    return {**shape, "hidden": list(net.hidden),
            "state_dict": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}}


def load_payload(path: str | Path) -> dict:
    """Read a weights or checkpoint file safely; WeightsError says what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise WeightsError(f"weights file {str(path)!r} does not exist")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # truncated zip, pickle refused by weights_only, random bytes
        raise WeightsError((f"{str(path)!r} is not a readable gammon weights file "
                            f"({type(exc).__name__}: {exc})").split("\n")[0]) from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise WeightsError(f"{str(path)!r} is not a gammon weights file (no '{FORMAT}' header)")
    if payload.get("version") not in READABLE_VERSIONS:
        raise WeightsError(f"{str(path)!r} has format version {payload.get('version')}; "
                           f"this gammon reads {', '.join(map(str, READABLE_VERSIONS))}")
    return payload


def model_from_payload(payload: dict, source: str = "weights") -> ClassNets:
    """The model a weights payload describes (version 1: one net, ``all``); WeightsError if it does not fit."""
    try:
        specs = {"all": payload} if payload["version"] == 1 else payload["nets"]
        nets = {}
        for name, spec in specs.items():
            declared = [spec["state_dict"][f"layers.{2 * i}.weight"].shape[0] for i in range(len(spec["hidden"]))]
            if list(spec["hidden"]) != declared:  # checked before allocating what the header claims
                raise ValueError(f"net {name!r} declares hidden layers {list(spec['hidden'])} but holds {declared}")
            kind = spec.get("kind", "td")
            if kind == ONE_SIDED:
                net = OneSidedRace(tuple(spec["hidden"]), spec["bins"])
            elif kind == "td":
                net = TDNet(spec["encoding"], tuple(spec["hidden"]))
            else:
                raise ValueError(f"net {name!r} is of kind {kind!r}, unknown to this gammon")
            net.load_state_dict(spec["state_dict"])
            nets[name] = net
        return ClassNets(nets)
    except (KeyError, ValueError, RuntimeError, TypeError, AttributeError) as exc:
        raise WeightsError(f"{source}: weights do not fit the network they describe ({exc})".split("\n")[0]) from None


def load_weights(path: str | Path) -> NetEvaluator:
    """A NetEvaluator from a weights file written by :func:`save_weights`."""
    return evaluator_from_payload(load_payload(path), str(path), Path(path).stem)


def evaluator_from_payload(payload: dict, source: str = "weights", name: str = "net") -> NetEvaluator:
    """The NetEvaluator of a weights payload, for the variant it was trained on (its training config says)."""
    meta = payload.get("meta", {})
    variant = variant_named(meta.get("config", {}).get("variant", "standard"))
    return NetEvaluator(model_from_payload(payload, source), name=name, meta=meta, variant=variant)
