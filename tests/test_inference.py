"""The nets in numpy (models/inference.py): the same answers as torch, fresh companions, no torch at start."""

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from positions import all_families  # tests/ is on sys.path under pytest

from gammon.engine.errors import GammonError
from gammon.engine.rules.board import CLASS_NAMES, position_class, starting_board
from gammon.engine.rules.movegen import generate
from gammon.models.encoding import encoder
from gammon.models.inference import (
    SPARSE_FIRST_LAYER,
    Layer,
    companion,
    companion_path,
    file_digest,
    forward,
    load_numpy,
)
from gammon.models.network import build_model, load_weights, numpy_evaluator, numpy_model, torch_model
from gammon.models.players import load_analyst, load_player

MODELS = Path(__file__).resolve().parents[1] / "models"


@pytest.fixture(scope="module")
def boards():
    return np.concatenate([b for b, _ in all_families(5).values()])[:3000]


def test_the_numpy_twin_answers_as_torch_does(boards):
    torch_net = load_weights(MODELS / "default.pt")
    twin = numpy_evaluator(torch_net)
    assert set(CLASS_NAMES) - {"crashed"} <= {CLASS_NAMES[c] for c in position_class(boards)}  # contact and race
    np.testing.assert_allclose(twin.probabilities(boards), torch_net.probabilities(boards), atol=1e-6)


def test_a_wide_first_layer_reads_only_the_used_inputs_and_answers_the_same(boards):
    rng = np.random.default_rng(0)
    shapes = ((232, SPARSE_FIRST_LAYER), (SPARSE_FIRST_LAYER, 6))
    layers = [Layer(rng.normal(size=s).astype(np.float32), rng.normal(size=s[1]).astype(np.float32)) for s in shapes]

    def dense(x):
        return np.maximum(x @ layers[0].weight + layers[0].bias, 0) @ layers[1].weight + layers[1].bias

    encode, _ = encoder("contact-v1")
    hint = encode(generate(starting_board()[None], np.array([[3, 1]])).boards)  # one roll's plays, as a hint judges
    mixed = encode(boards[:500])
    for x in (hint, mixed, hint[:1]):
        np.testing.assert_allclose(forward(layers, x), dense(x), rtol=1e-5, atol=1e-4)
    assert 0 < hint.any(axis=0).sum() < hint.shape[1] // 2  # most inputs unused by every play: left out
    assert forward(layers, hint[:0]).shape == (0, 6)


def test_repeated_boards_are_answered_alike(boards):
    twin = load_player("default")
    doubled = np.concatenate([boards[:500], boards[:500][::-1]])
    probs = twin.probabilities(doubled)
    np.testing.assert_array_equal(probs[:500], probs[500:][::-1])
    np.testing.assert_array_equal(probs[:500], twin.probabilities(boards[:500]))


@pytest.mark.parametrize("weights", sorted(MODELS.glob("*.pt")), ids=lambda p: p.stem)
def test_every_shipped_net_has_a_fresh_numpy_companion(weights):
    """A retrained .pt needs `python -m gammon.models.export models/X.pt`; this fails until it is run."""
    evaluator, digest = load_numpy(companion_path(weights))
    assert digest == file_digest(weights), f"{companion_path(weights).name} is stale"
    torch_model_ = load_weights(weights).net
    for name, net in numpy_model(torch_model_).nets.items():
        for mine, theirs in zip(evaluator.model.nets[name].layers, net.layers):
            np.testing.assert_array_equal(mine.weight, theirs.weight)
            np.testing.assert_array_equal(mine.bias, theirs.bias)


def test_a_stale_companion_is_ignored(tmp_path):
    weights = tmp_path / "net.pt"
    shutil.copy(MODELS / "hypergammon.pt", weights)
    shutil.copy(MODELS / "hypergammon.npz", tmp_path / "net.npz")
    assert companion(weights) is not None
    weights.write_bytes(weights.read_bytes() + b"\0")  # other bytes than the companion was made from
    assert companion(weights) is None


def test_a_bad_numpy_file_is_one_line_naming_it(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(GammonError, match="bad.npz") as info:
        load_numpy(bad)
    assert "\n" not in str(info.value)


def test_a_model_goes_to_numpy_and_back_unchanged(boards):
    model = build_model("contact=contact-v1,race=race-v1", (16,))
    back = torch_model(numpy_model(model))
    for (name, a), (_, b) in zip(model.nets.items(), back.nets.items()):
        for key, value in a.state_dict().items():
            assert (value == b.state_dict()[key]).all(), (name, key)


def test_weights_without_a_companion_are_read_through_torch(tmp_path, boards):
    weights = tmp_path / "net.pt"
    shutil.copy(MODELS / "default.pt", weights)
    net = load_player(str(weights))
    np.testing.assert_allclose(net.probabilities(boards[:200]), load_player("default").probabilities(boards[:200]),
                               atol=1e-6)


def test_analysis_with_the_shipped_net_never_imports_torch():
    code = ("import sys; from gammon.models.players import load_analyst; import numpy as np;"
            "from gammon.engine.rules.board import starting_board;"
            "load_analyst('default').probabilities(starting_board()[None]);"
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_bear_offs_still_come_from_the_databases():
    from gammon.engine.search.bearoff import bearoff_probabilities

    board = np.zeros(26, dtype=np.int8)
    board[1], board[2], board[24] = 2, 1, -3  # both sides bearing off
    probs = load_analyst("default").probabilities(board[None])
    expected, applies = bearoff_probabilities(board[None])
    assert applies.all()
    np.testing.assert_array_equal(probs, expected)
