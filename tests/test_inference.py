"""The nets in numpy (models/inference.py): the same answers as torch, fresh companions, no torch at start."""

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest
from positions import all_families  # tests/ is on sys.path under pytest

import gammon.models.inference as inference
from gammon.engine.errors import GammonError
from gammon.engine.rules.board import CLASS_NAMES, flip, position_class, starting_board
from gammon.engine.rules.movegen import compiled_plays, generate
from gammon.models.encoding import encoder
from gammon.models.features import escape_table
from gammon.models.inference import (
    SPARSE_FIRST_LAYER,
    DenseNet,
    Layer,
    OneSidedNet,
    companion,
    companion_path,
    file_digest,
    forward,
    load_numpy,
    native_first_layer,
    native_screen,
    point_table,
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


def _random_layers(shapes, scale=1.0):
    rng = np.random.default_rng(0)
    return [Layer(*(rng.normal(scale=scale, size=size).astype(np.float32) for size in (shape, shape[1])))
            for shape in shapes]


def test_a_wide_first_layer_reads_only_the_used_inputs_and_answers_the_same(boards):
    layers = _random_layers([(232, SPARSE_FIRST_LAYER), (SPARSE_FIRST_LAYER, 6)])

    def dense(x):
        return np.maximum(x @ layers[0].weight + layers[0].bias, 0) @ layers[1].weight + layers[1].bias

    encode, _ = encoder("contact-v1")
    hint = encode(generate(starting_board()[None], np.array([[3, 1]])).boards)  # one roll's plays, as a hint judges
    mixed = encode(boards[:500])
    for x in (hint, mixed, hint[:1]):
        np.testing.assert_allclose(forward(layers, x), dense(x), rtol=1e-5, atol=1e-4)
    assert 0 < hint.any(axis=0).sum() < hint.shape[1] // 2  # most inputs unused by every play: left out
    assert forward(layers, hint[:0]).shape == (0, 6)


def test_a_net_of_one_layer_takes_no_relu(boards):
    """Its first layer is its output: the logits as they are, negative ones too, compiled or not."""
    (layer,) = _random_layers([(240, 6)])
    encode, _ = encoder("contact-v2")
    logits = encode(boards[:300]) @ layer.weight + layer.bias
    assert (logits < 0).any()
    np.testing.assert_allclose(forward([layer], encode(boards[:300])), logits, rtol=1e-5, atol=1e-4)
    expected = np.exp(logits - logits.max(axis=1, keepdims=True))
    np.testing.assert_allclose(DenseNet("contact-v2", [layer]).results(boards[:300]),
                               expected / expected.sum(axis=1, keepdims=True), rtol=1e-4, atol=1e-6)


compiled = pytest.mark.skipif(native_first_layer is None, reason="models/_native.c was not built (no C compiler)")


def _edge_boards():
    """Boards a search rarely makes: checkers on both bars, fifteen on one point, some borne off, a race."""
    crowded = np.zeros(26, dtype=np.int8)
    crowded[[0, 25]] = [2, 1]
    crowded[6], crowded[1], crowded[19] = 12, 2, -13
    bear_off = np.zeros(26, dtype=np.int8)
    bear_off[1], bear_off[24] = 15, -4
    return np.stack([starting_board(), crowded, bear_off])


def test_the_kernels_are_compiled_where_a_c_compiler_is():
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip("no C compiler here: the install takes the numpy paths")
    assert native_first_layer is not None  # pip install built models/_native.c
    assert compiled_plays is not None  # and engine/rules/_native.c
    # the nets' module reaches the engine's generator even when it is the first of the two imported
    linked = subprocess.run([sys.executable, "-c", "import gammon.models._native as m; print(m.has_generator)"],
                            capture_output=True, text=True, check=True)
    assert linked.stdout.strip() == "1"


@compiled
def test_the_compiled_kernels_use_the_best_instruction_set_the_processor_runs():
    from gammon.models import _native

    chosen = _native.instruction_set()
    runnable = []
    for name in ("baseline", "x86-64-v3", "x86-64-v4"):  # each better than the one before
        try:
            _native.instruction_set(name)
            runnable.append(name)
        except ValueError as fault:
            assert name in str(fault)
    _native.instruction_set(chosen)
    assert runnable[0] == "baseline" and chosen == runnable[-1]
    with pytest.raises(ValueError, match="no set named avx9"):
        _native.instruction_set("avx9")


def _compiled_layer(boards, layer, relu=False):
    out = np.empty((len(boards), len(layer.bias)), dtype=np.float32)
    native_first_layer(np.ascontiguousarray(boards, dtype=np.int8), point_table(layer.weight), layer.weight,
                       layer.bias, escape_table(), out, relu)
    return out


@compiled
@pytest.mark.parametrize("encoding", ["tesauro198", "tesauro198+race", "contact-v1", "contact-v2", "contact-v3"])
def test_the_compiled_first_layer_reads_the_encoding_exactly(boards, encoding, instruction_set):
    """With the identity for weights, the layer's sums are the inputs themselves: each to the last bit."""
    encode, inputs = encoder(encoding)
    mixed = np.concatenate([boards, _edge_boards(), flip(boards[:500])])
    identity = Layer(np.eye(inputs, dtype=np.float32), np.zeros(inputs, dtype=np.float32))
    np.testing.assert_array_equal(_compiled_layer(mixed, identity), encode(mixed))


@compiled
@pytest.mark.parametrize("encoding", ["tesauro198", "tesauro198+race", "contact-v1", "contact-v2", "contact-v3"])
@pytest.mark.parametrize("width", [64, 512, 200, 70, 5])  # blocks of 128 and 64 columns, and rests
@pytest.mark.parametrize("relu", [False, True])
def test_the_compiled_first_layer_sums_the_encoded_inputs(boards, encoding, width, relu, instruction_set):
    encode, inputs = encoder(encoding)
    (layer,) = _random_layers([(inputs, width)])
    mixed = np.concatenate([boards, _edge_boards()])
    sums = encode(mixed) @ layer.weight + layer.bias
    compiled = _compiled_layer(mixed, layer, relu)
    np.testing.assert_allclose(compiled, np.maximum(sums, 0.0) if relu else sums, rtol=1e-5, atol=1e-4)
    assert (compiled < 0).any() != relu


@compiled
def test_the_compiled_first_layer_refuses_arrays_of_other_shapes(boards):
    (layer,) = _random_layers([(204, 64)])
    good = np.ascontiguousarray(boards[:10], dtype=np.int8)
    out = np.empty((10, 64), dtype=np.float32)
    table, points = escape_table(), point_table(layer.weight)
    for args in ((good[:, :25].copy(), points, layer.weight, layer.bias, table, out),
                 (good, points, layer.weight[:200].copy(), layer.bias, table, out),
                 (good, points[:, :23].copy(), layer.weight, layer.bias, table, out),
                 (good, points, layer.weight, layer.bias, table[:100].copy(), out),
                 (good, points, layer.weight, layer.bias, table, out[:9])):
        with pytest.raises(ValueError, match="first_layer"):
            native_first_layer(*args)
    second = _random_layers([(64, 6)])[0]
    with pytest.raises(ValueError, match="screen"):  # the pruning net's screen: a second layer of 6 results
        native_screen(good, layer.weight, layer.bias, second.weight[:, :5].copy(), second.bias, table,
                      np.ones(6), np.empty(10))


@compiled
@pytest.mark.parametrize("encoding", ["tesauro198", "tesauro198+race", "contact-v1", "contact-v2", "contact-v3",
                                      "race-v1"])
def test_a_net_on_the_compiled_first_layer_answers_as_on_the_encoded_inputs(boards, encoding):
    _, inputs = encoder(encoding)
    # weights of a trained net's size: float32 sums in another order differ by its rounding, not more
    net = DenseNet(encoding, _random_layers([(inputs, 64), (64, 32), (32, 6)], scale=0.2))
    assert net._native  # race-v1: the kernel's 204 columns, then numpy's features
    mixed = np.concatenate([boards, _edge_boards()])
    compiled_results = net.results(mixed)
    net._native = False  # the numpy path: encode, then the products
    np.testing.assert_allclose(compiled_results, net.results(mixed), atol=1e-6)
    assert net.results(mixed[:0]).shape == (0, 6)


def test_repeated_boards_are_answered_alike(boards):
    twin = load_player("default")
    doubled = np.concatenate([boards[:500], boards[:500][::-1]])
    probs = twin.probabilities(doubled)
    np.testing.assert_array_equal(probs[:500], probs[500:][::-1])
    np.testing.assert_array_equal(probs[:500], twin.probabilities(boards[:500]))


def test_a_batch_judged_in_pieces_answers_as_judged_whole(boards, monkeypatch):
    twin = load_player("default")
    whole = twin.probabilities(boards)
    monkeypatch.setattr(inference, "NET_PIECE", 7)  # pieces mixing contact and race boards
    np.testing.assert_allclose(twin.probabilities(boards), whole, atol=1e-6)


def test_a_one_sided_net_remembers_the_sides_it_judged_and_answers_as_if_it_did_not(monkeypatch):
    shipped = load_player("default").model.nets["race"]
    judged = []

    class Counting(OneSidedNet):
        def side_table(self, counts, dtype=np.float64):
            judged.append(len(counts))
            return super().side_table(counts, dtype)

    rng = np.random.default_rng(3)
    sides = np.zeros((200, 24), dtype=np.int8)
    for side in sides:  # up to 15 checkers anywhere on the 24 points, some all home
        np.add.at(side, rng.integers(0, rng.choice([6, 24]), size=rng.integers(1, 16)), 1)
    sides = sides[np.sort(np.unique(sides, axis=0, return_index=True)[1])][:120]  # distinct, as a batch's sides are
    plain = shipped.side_table(sides)
    monkeypatch.setattr(inference, "REMEMBERED_SIDES", 50)
    net = Counting(shipped.layers, shipped.bins)
    for rows, new in [(np.arange(30), 30), (np.arange(30), 0), (np.arange(20, 45), 15),
                      (np.r_[40:50, 45:50], 15),  # 45 + 10 > 50: all forgotten, the repeats judged twice
                      (np.arange(5), 5), (np.arange(45, 50), 0),
                      (np.arange(120), 120)]:  # more than it keeps: judged whole
        judged.clear()
        table, found = net.side_rows(sides[rows])
        np.testing.assert_allclose(table[found], plain[rows], rtol=0, atol=1e-6)
        assert sum(judged) == new
    races = np.zeros((200, 26), dtype=np.int8)  # the sides above as races: their probabilities as if never remembered
    races[:, 1:25] = sides[rng.integers(0, 120, 200)]
    races[:, 1:25] -= sides[rng.integers(0, 120, 200)][:, ::-1] * (races[:, 1:25] == 0)
    races = races[position_class(races) == CLASS_NAMES.index("race")]
    assert len(races) > 20
    np.testing.assert_allclose(net.probabilities(races), shipped.probabilities(races), rtol=0, atol=1e-6)


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


def test_fast_is_the_narrower_shipped_net_searching_through_its_own_pruning_net(boards):
    """``fast`` (models/fast.pt): a contact net of half the default's first layer, with its own pruning net;
    a net for backgammon's board only."""
    fast, default = load_player("fast"), load_player("default")
    assert fast.model.nets["contact"].hidden[0] * 2 == default.model.nets["contact"].hidden[0]
    assert fast.screen is not None and fast.screen is not default.screen
    assert not np.allclose(fast.probabilities(boards[:50]), default.probabilities(boards[:50]))
    with pytest.raises(GammonError, match="fast is a net for backgammon's board, not acey-deucey"):
        load_player("fast", variant="acey-deucey")


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
