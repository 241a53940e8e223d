"""The torch input encodings (training/torch_encoding.py) against models/encoding.py, on CPU torch.

Every encoding, column for column (allclose), and the position classes that route boards
to the nets, on the positions of every family of ``tests/positions.py`` and on the
afterstates the nets are asked about (flipped: the opponent on roll).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gammon.training.torch_encoding as torch_encoding
from gammon.engine.errors import GammonError
from gammon.engine.rules.board import flip, position_class
from gammon.engine.rules.movegen import generate
from gammon.models import encoding

try:  # tests/ is on sys.path under pytest's default import mode
    import positions
except ImportError:  # pragma: no cover
    from tests import positions

SEED = 6_020_417
AFTERSTATE_STRIDE = 7  # about 16,000 of the random-play afterstates


@pytest.fixture(scope="module")
def boards() -> np.ndarray:
    """Every family's positions (about 11,000), then flipped afterstates of the random-play ones."""
    families = positions.all_families(seed=SEED, scale=0.5)
    before = np.concatenate([b for b, _ in families.values()])
    play = [families[f"play_{variant}"] for variant in positions.VARIANTS]
    after = np.concatenate([flip(generate(b, d, variant=v).boards) for (b, d), v in zip(play, positions.VARIANTS)])
    return np.concatenate([before, after[::AFTERSTATE_STRIDE]])


@pytest.mark.parametrize("name", sorted(encoding.ENCODINGS))
def test_same_inputs_as_numpy(boards, name):
    ours, width = torch_encoding.encoder(name)
    theirs, their_width = encoding.encoder(name)
    got = ours(torch.from_numpy(boards))
    expected = theirs(boards)
    assert width == their_width and got.dtype == torch.float32 and got.shape == expected.shape
    wrong = np.argwhere(~np.isclose(got.numpy(), expected, rtol=1e-5, atol=1e-6))
    assert len(wrong) == 0, f"{name}: {len(wrong)} inputs differ, first (board, column) {wrong[:5].tolist()}"


def test_same_position_classes_as_numpy(boards):
    got = torch_encoding.position_class(torch.from_numpy(boards)).numpy()
    assert np.array_equal(got, position_class(boards))
    assert set(np.unique(got)) == {0, 1, 2}  # every class is among the positions checked


def test_unknown_encoding_is_named():
    with pytest.raises(GammonError, match="unknown encoding 'nonesuch'; the torch encodings are tesauro198, "):
        torch_encoding.encoder("nonesuch")
