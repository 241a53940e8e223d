"""Write the numpy companion (``.npz``) of weights files, so that commands answer without importing torch.

    python -m gammon.models.export models/*.pt      # after training or shipping a net

Each ``X.pt`` gets ``X.npz`` beside it (:func:`models.inference.save_numpy`): the same float32
weights, the metadata, and the SHA-256 of ``X.pt``, so a companion that no longer matches
its ``.pt`` is ignored (and ``tests/test_inference.py`` fails on a shipped one).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gammon.models.inference import companion_path, file_digest, save_numpy
from gammon.models.network import load_weights, numpy_model


def export(weights: Path) -> Path:
    """Write ``weights``' numpy companion; returns its path."""
    net = load_weights(weights)
    out = companion_path(weights)
    save_numpy(out, numpy_model(net.net), net.meta, file_digest(weights))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("weights", nargs="+", type=Path, help="gammon weights files (.pt)")
    args = parser.parse_args(argv)
    for path in args.weights:
        print(f"{path} -> {export(path)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
