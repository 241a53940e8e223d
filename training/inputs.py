"""A model with nets moved onto inputs that extend theirs, answering as before until a fit teaches the new inputs.

    python -m gammon.training.inputs runs/calibrate2/model.pt runs/student-v3/start.pt --nets contact=contact-v3

Each named net takes an encoding that extends its own (``models.encoding.EXTENDS``, such as
contact-v3 over contact-v1: the same first columns, more after them). Its weights carry over,
the first layer's weights of the new inputs start at zero, so the model gives the same
probabilities (to float rounding) and a distillation fit from it (``training/distill.py``)
starts where the model was instead of from random weights. The stage is kept in the weights'
metadata.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gammon.engine.errors import GammonError
from gammon.models.encoding import extends
from gammon.models.network import (
    ClassNets,
    TDNet,
    evaluator_from_payload,
    load_payload,
    net_encodings,
    save_weights,
    seed_from,
)


def moved_inputs(model: ClassNets, spec: str) -> ClassNets:
    """``model`` with the nets of ``spec`` (NAME=ENCODING,...) on those encodings, the others as they are."""
    nets = dict(model.nets)
    for name, encoding in net_encodings(spec).items():
        net = nets.get(name)
        if not isinstance(net, TDNet):
            raise GammonError(f"--nets {spec!r}: the model has no net {name!r} on encoded inputs "
                              f"(it has {', '.join(model.nets)})")
        if encoding == net.encoding or not extends(encoding, net.encoding):
            raise GammonError(f"--nets {spec!r}: {encoding} does not extend {name}'s {net.encoding}: a net moves "
                              "only onto inputs that keep its own first")
        nets[name] = TDNet(encoding, net.hidden)
    moved = ClassNets(nets)
    seed_from(moved, model)  # the nets not moved are the model's own, copied onto themselves
    return moved


def move_inputs(model_path: Path, out: Path, spec: str) -> Path:
    """Write ``model_path``'s model with the nets of ``spec`` moved (:func:`moved_inputs`) to ``out``."""
    payload = load_payload(model_path)
    model = evaluator_from_payload(payload, str(model_path)).net
    meta = dict(payload.get("meta", {}))
    meta["stages"] = list(meta.get("stages", [])) + [{"inputs": net_encodings(spec)}]
    save_weights(out, moved_inputs(model, spec), **meta)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gammon.training.inputs", description=__doc__.split("\n")[0])
    parser.add_argument("model", type=Path, help="the weights to start from (a .pt file)")
    parser.add_argument("out", type=Path, help="where the moved model is written (a .pt file)")
    parser.add_argument("--nets", required=True, help="NAME=ENCODING,...: the nets to move and their new inputs")
    args = parser.parse_args(argv)
    try:
        print(move_inputs(args.model, args.out, args.nets))
    except GammonError as fault:
        parser.exit(2, f"error: {fault}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
