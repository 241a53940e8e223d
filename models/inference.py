"""The nets evaluated in numpy: analysis answers without importing torch.

torch trains the nets (:mod:`models.network`); judging positions with them needs only a
few matrix products, which numpy does with less overhead a call and about as fast a
position (``python -m gammon.benchmarks.thinking``), and without the two seconds that
importing torch costs every command. So every player and analyst loaded by name
(:mod:`models.players`) is a :class:`NumpyEvaluator`; the torch evaluator
(:class:`models.network.NetEvaluator`) stays with training, where the weights change.

Where the install built ``models/_native.c``, a net's first layer is summed there straight from
the boards (:func:`compiled_columns` says which inputs), and a pruning net's whole screen runs
there; the numpy products stay the reference and the fallback.

A model here is one :class:`DenseNet` (a TDNet's twin) or :class:`OneSidedNet` (a
one-sided race net's twin) per position class, routed as :class:`models.network.ClassNets`
routes them (:func:`route`). Both twins compute exactly what their torch originals do, up to
float rounding (``tests/test_inference.py`` holds them to 1e-6).

Weights travel in a ``.npz`` file beside the ``.pt`` they come from (:func:`save_numpy`,
written by ``python -m gammon.models.export``), read with ``allow_pickle=False``. The file
records the SHA-256 of its ``.pt``; :func:`companion` hands it out only while the two still
agree, so a retrained ``.pt`` is never answered by stale weights.
"""

from __future__ import annotations

import hashlib
import io
import json
import threading
from itertools import repeat
from pathlib import Path
from typing import NamedTuple

import numpy as np

from gammon.engine.errors import GammonError
from gammon.engine.files import atomic_write
from gammon.engine.rules.board import (
    BOARD_SIZE,
    CLASS_NAMES,
    CONTACT,
    CRASHED,
    MAX_CHECKERS,
    is_race,
    mover_counts,
    opponent_counts,
    position_class,
)
from gammon.engine.rules.groups import distinct_rows
from gammon.engine.rules.movegen import plain
from gammon.engine.rules.outcomes import RESULT_POINTS, cumulative_probs, exclusive_results, result_points
from gammon.engine.rules.variants import MIRRORED, STANDARD, Variant, variant_named
from gammon.engine.search.bearoff import (
    POINTS,
    Databases,
    RaceDistributions,
    database_distributions,
    default_databases,
    race_probabilities,
)
from gammon.engine.search.evaluator import afterstate_equity
from gammon.models.encoding import _point_units, encoder, extends, features_after
from gammon.models.features import escape_table

try:  # the first layer summed straight from the boards (models/_native.c); an install without a C compiler lacks it
    from gammon.models._native import first_layer as native_first_layer
    from gammon.models._native import has_generator as native_has_generator
    from gammon.models._native import instruction_set as native_instruction_set
    from gammon.models._native import race_rows as native_race_rows
    from gammon.models._native import screen as native_screen
    from gammon.models._native import screen_choices as native_screen_choices
except ImportError:
    native_first_layer = native_screen = native_instruction_set = native_screen_choices = native_race_rows = None
    native_has_generator = False


def kernels() -> str:
    """What sums the nets' first layers: the compiled kernels' instruction set (baseline, x86-64-v3 or x86-64-v4, the
    best the processor runs), or numpy where the install built no kernels. Benchmarks print it beside their figures."""
    return "numpy" if native_instruction_set is None else f"compiled, {native_instruction_set()}"


NUMPY_FORMAT = "gammon-weights-numpy"
NUMPY_VERSION = 1
ONE_SIDED = "one-sided"  # the ``kind`` of a one-sided race net, in both weight formats
HEADS = ("rolls", "first", "clear")  # RaceDistributions' fields, in a one-sided net's output order
ONE_SIDED_INPUTS = 101
OPPONENT_HOME = slice(18, 24)  # a side's points 19..24: the other side's home board
_PIPS = np.arange(1, 25)


class Layer(NamedTuple):
    """One dense layer: ``x @ weight + bias``; ``weight`` is ``(inputs, outputs)`` float32."""

    weight: np.ndarray
    bias: np.ndarray


# A first layer at least this wide reads only the inputs some row of the batch uses. Tesauro's units are mostly
# zero, and the afterstates a search judges together share most of their empty points: of the contact net's 232
# inputs about 70 are used by some play of a 0-ply hint and about 110 in a 2-ply search, and its first layer ran
# in half the time. Narrower layers (the pruning net's 64, the one-sided race net's 128) gain less than copying
# the used columns costs.
SPARSE_FIRST_LAYER = 256


# A model judges a batch this many distinct boards at a time: a piece's temporary arrays (2 MB of hidden sums at
# 512 units) stay in cache and their memory is reused, where a search's whole batch (tens of thousands of boards)
# would be fresh pages each time.
NET_PIECE = 1024


def forward(layers: list[Layer], x: np.ndarray) -> np.ndarray:
    """The layers applied in turn, ReLU between them (in place: no array beyond one a layer). Inputs that are zero
    in every row add nothing, so a wide first layer leaves them out (the same sums, without the zero terms)."""
    first = layers[0]
    if first.weight.shape[1] >= SPARSE_FIRST_LAYER:
        used = np.flatnonzero(x.any(axis=0))
        x = x[:, used] @ first.weight[used]
    else:
        x = x @ first.weight
    x += first.bias
    if len(layers) > 1:  # hidden units, not a net of one layer's outputs
        np.maximum(x, 0.0, out=x)
    return deeper(layers, x)


def deeper(layers: list[Layer], hidden: np.ndarray) -> np.ndarray:
    """The layers after the first, applied to the first layer's units ``hidden`` (after its ReLU), ReLU between them
    (in place)."""
    for k, layer in enumerate(layers[1:]):
        if k:
            np.maximum(hidden, 0.0, out=hidden)
        hidden = hidden @ layer.weight
        hidden += layer.bias
    return hidden


def softmax(logits: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, in float64 (the engine's probabilities are float64)."""
    z = logits.astype(np.float64)
    z -= z.max(axis=-1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=-1, keepdims=True)
    return z


class DenseNet:
    """A TDNet in numpy: encoded board -> hidden layers (ReLU) -> the six exclusive results."""

    kind = "td"

    def __init__(self, encoding: str, layers: list[Layer]):
        self.encoding = encoding
        self.layers = layers
        self.hidden = tuple(len(layer.bias) for layer in layers[:-1])
        self._encode, _ = encoder(encoding)
        # The compiled first layer reads the boards for the columns it computes (compiled_columns); the
        # features after them still go through numpy.
        compiled = compiled_columns(encoding) if native_first_layer is not None else 0
        self._native = compiled > 0
        if self._native:
            first = layers[0]
            self._compiled_layer = Layer(np.ascontiguousarray(first.weight[:compiled], dtype=np.float32),
                                         np.ascontiguousarray(first.bias, dtype=np.float32))
            self._point_table = point_table(first.weight)
            self._features_weight = first.weight[compiled:]

    def results(self, boards: np.ndarray) -> np.ndarray:
        """(N, 6) exclusive-result probabilities for the player on roll."""
        boards = np.asarray(boards)
        if self._native and boards.shape[1:] == (BOARD_SIZE,):
            return softmax(deeper(self.layers, self._native_first_layer(boards)))
        return softmax(forward(self.layers, self._encode(boards)))

    def _native_first_layer(self, boards: np.ndarray) -> np.ndarray:
        """The first layer's units (after its ReLU, where it is a hidden layer): the compiled kernel's sums over its
        columns, numpy's over the rest; the kernel takes the ReLU where it sums every column."""
        x = np.empty((len(boards), len(self._compiled_layer.bias)), dtype=np.float32)
        hidden, whole = len(self.layers) > 1, not len(self._features_weight)
        native_first_layer(np.ascontiguousarray(boards, dtype=np.int8), self._point_table, *self._compiled_layer,
                           escape_table(), x, hidden and whole)
        if not whole:
            x += features_after(self.encoding, boards, len(self._compiled_layer.weight)) @ self._features_weight
            if hidden:
                np.maximum(x, 0.0, out=x)
        return x


def point_table(weight: np.ndarray) -> np.ndarray:
    """(2, 24, 15, H) float32, what models/_native.c adds for a point: for n = 1..15 checkers of a side (the
    mover's, then the opponent's) on its point p, the sum of ``weight``'s rows of the Tesauro units n sets
    (the encodings' first 192 columns): one row a point for the kernels instead of up to four."""
    units = _point_units(np.arange(1, MAX_CHECKERS + 1)[:, None])  # (15, 4)
    rows = np.asarray(weight[:2 * 24 * 4], dtype=np.float64).reshape(2, 24, 4, -1)  # (side, point, unit, H)
    return np.ascontiguousarray(np.einsum("nu,spuh->spnh", units, rows), dtype=np.float32)


# The encodings models/_native.c computes whole, longest first: an encoding that extends one of them has its
# columns computed there (race-v1's first 204), the rest by numpy.
COMPILED_ENCODINGS = ("contact-v3", "contact-v2", "contact-v1", "tesauro198+race")


def compiled_columns(encoding: str) -> int:
    """How many of ``encoding``'s first columns models/_native.c computes (0 for none)."""
    if encoding == "tesauro198":  # not the encodings extending it: Acey-Deucey's reads other boards
        return encoder(encoding)[1]
    return next((encoder(base)[1] for base in COMPILED_ENCODINGS if extends(encoding, base)), 0)


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


class OneSidedCounts:
    """A race judged one side at a time (:mod:`models.onesided` says why): the part that needs no net.

    A subclass gives ``bins`` and :meth:`side_counts`, the net's three roll-count
    distributions of sides outside the database's reach; this class answers home-board sides
    from the one-sided database and combines two sides into the race's probabilities.
    """

    bins: int
    databases: Databases | None = None  # loaded on first use

    def side_counts(self, counts: np.ndarray) -> np.ndarray:
        """(N, 3, bins) the net's roll-count probabilities (HEADS order) of sides ``(N, 24)``."""
        raise NotImplementedError

    def _databases(self) -> Databases:
        if self.databases is None:
            self.databases = default_databases()
        return self.databases

    def distributions(self, counts: np.ndarray, dtype=np.float64) -> RaceDistributions:
        """One side's roll counts ``(N, 24)`` -> its RaceDistributions, ``(N, bins)`` each (:meth:`side_table`'s)."""
        return RaceDistributions(*np.moveaxis(self.side_table(counts, dtype), 1, 0))

    def side_table(self, counts: np.ndarray, dtype=np.float64) -> np.ndarray:
        """One side's roll counts ``(N, 24)`` -> ``(N, 3, bins)`` its roll-count probabilities, HEADS order.

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
            out[outside] = self.side_counts(counts[outside])
            cleared = outside[counts[outside, OPPONENT_HOME].sum(axis=1) == 0]
            out[cleared, HEADS.index("clear")] = _certain_now(len(cleared), self.bins)
        return out

    def side_rows(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(table, rows)``: each side's :meth:`side_table` row is ``table[rows]`` (here the table itself)."""
        return self.side_table(counts), np.arange(len(counts))

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(N, 5) gnubg probabilities of the player on roll in race positions (both sides with checkers left)."""
        b = np.asarray(boards)
        mine, theirs = mover_counts(b)[:, :24], opponent_counts(b)[:, :24]
        # A search's batch repeats sides (one side's position under every play of the other):
        # each distinct side is evaluated once.
        sides = np.ascontiguousarray(np.concatenate([mine, theirs]), dtype=np.int8)
        first, which = distinct_rows(sides)
        table, rows = self.side_rows(sides[first])
        my_none_off, their_none_off = mine.sum(axis=1) == MAX_CHECKERS, theirs.sum(axis=1) == MAX_CHECKERS
        my_rows, their_rows = rows[which[: len(b)]], rows[which[len(b):]]
        if native_race_rows is not None:
            out = np.empty((len(b), 5))
            native_race_rows(table, self.bins, np.ascontiguousarray(my_rows, dtype=np.int64),
                             np.ascontiguousarray(their_rows, dtype=np.int64), my_none_off, their_none_off, out)
            return out
        # numpy sums the tails of every row of the table it is given: the rows these positions use, not a memory's
        used, rows = np.unique(np.concatenate([my_rows, their_rows]), return_inverse=True)
        dists = RaceDistributions(*np.moveaxis(table[used], 1, 0))
        return race_probabilities(dists, dists, my_none_off, their_none_off, rows[: len(b)], rows[len(b):])

    def results(self, boards: np.ndarray) -> np.ndarray:
        """(N, 6) exclusive-result probabilities for the player on roll."""
        return exclusive_results(self.probabilities(boards))


# Sides a one-sided race net remembers (about 19 MB): a search meets the same side again and again, under every
# play of the other side and in every piece of its batch. Over 20 3-ply hints in one process, nine in ten sides
# the net was asked about it had answered before (benchmarks/RESULTS.md).
REMEMBERED_SIDES = 1 << 14


class OneSidedNet(OneSidedCounts):
    """A one-sided race net in numpy: one side's inputs -> hidden layers -> three softmaxes over 0..bins-1 rolls.

    Its weights never change, so it keeps the table rows (:meth:`side_table`) of the last :data:`REMEMBERED_SIDES`
    sides it was asked about (forgetting them all when full) and works out only the sides it has not seen. A
    remembered row is the one the side got in the batch that first held it: the same to float rounding (a few 1e-7)
    as it would get in today's batch, as the products of any net differ slightly with the batch's size.
    """

    kind = ONE_SIDED

    def __init__(self, layers: list[Layer], bins: int):
        self.layers = layers
        self.bins = int(bins)
        self.hidden = tuple(len(layer.bias) for layer in layers[:-1])
        self._slots: dict[bytes, int] = {}  # a side's bytes -> its row of _rows
        self._rows = np.zeros((0, len(HEADS), self.bins))
        self._used = 0  # rows of _rows written (a side met twice in one batch takes two)
        self._lock = threading.Lock()  # a server may judge from several threads

    def side_counts(self, counts: np.ndarray) -> np.ndarray:
        logits = forward(self.layers, one_sided_inputs(counts))
        return softmax(logits.reshape(len(counts), len(HEADS), self.bins))

    def side_rows(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(table, rows)`` as :meth:`OneSidedCounts.side_rows`, the table the remembered rows (read them under
        ``_lock``, which :meth:`probabilities` holds: another thread's batch may forget them)."""
        counts = np.ascontiguousarray(counts, dtype=np.int8)
        if len(counts) > REMEMBERED_SIDES:  # more than it can keep: worked out, not remembered
            return super().side_rows(counts)
        keys = counts.view(np.dtype((np.void, counts.shape[1]))).ravel().tolist()
        slots = np.fromiter(map(self._slots.get, keys, repeat(-1)), dtype=np.int64, count=len(keys))
        unseen = np.flatnonzero(slots < 0)
        if self._used + len(unseen) > REMEMBERED_SIDES:  # full: forget every side
            self._slots.clear()
            self._used = 0
            slots[:], unseen = -1, np.arange(len(keys))
        if len(unseen):
            if len(self._rows) == 0:
                self._rows = np.zeros((REMEMBERED_SIDES, len(HEADS), self.bins))
            new = np.arange(self._used, self._used + len(unseen))
            self._used += len(unseen)
            self._rows[new] = self.side_table(counts[unseen])
            self._slots.update(zip((keys[i] for i in unseen.tolist()), new.tolist()))
            slots[unseen] = new
        return self._rows, slots

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        with self._lock:
            return super().probabilities(boards)


def check_model(nets: dict) -> None:
    """A model has one net ``all``, or nets for ``contact`` and ``race`` (and maybe ``crashed``), and only
    the race net may be one-sided (torch's nets or numpy's alike)."""
    names = set(nets)
    if not (names == {"all"} or {"contact", "race"} <= names <= set(CLASS_NAMES)):
        raise GammonError(f"a model has one net 'all', or nets for 'contact' and 'race' (and maybe 'crashed'); "
                          f"got {sorted(names)}")
    if any(getattr(net, "kind", "td") == ONE_SIDED for name, net in nets.items() if name != "race"):
        raise GammonError("only the race net may be a one-sided race net")


def route(names, boards: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """(net name, indices of the boards it answers) for every net of ``names`` with work to do:
    each board goes to its class's net, crashed ones to the contact net where there is no crashed net."""
    if "all" in names:
        return [("all", np.arange(len(boards)))]
    classes = position_class(boards)
    if "crashed" not in names:
        classes = np.where(classes == CRASHED, CONTACT, classes)
    return [(name, np.flatnonzero(classes == CLASS_NAMES.index(name))) for name in names
            if (classes == CLASS_NAMES.index(name)).any()]


class NumpyModel:
    """One numpy net per position class (or one net, ``all``), as :class:`models.network.ClassNets`."""

    def __init__(self, nets: dict[str, DenseNet | OneSidedNet]):
        check_model(nets)
        self.nets = nets

    def results(self, boards: np.ndarray) -> np.ndarray:
        """(N, 6) exclusive-result probabilities for the player on roll, each distinct board evaluated once."""
        boards = np.asarray(boards)
        if len(boards) == 0:
            return np.zeros((0, 6))
        first, inverse = distinct_rows(boards)
        out = np.empty((len(first), 6))
        for start in range(0, len(first), NET_PIECE):
            piece = boards[first[start:start + NET_PIECE]]
            for name, rows in route(self.nets, piece):
                out[start + rows] = self.nets[name].results(piece[rows])
        return out[inverse]


class ResultsEvaluator:
    """An engine evaluator (see engine.search.evaluator) built on a net's six exclusive results: a
    subclass gives :meth:`results`, in numpy (:class:`NumpyEvaluator`) or torch (``NetEvaluator``)."""

    def __init__(self, name: str = "net", meta: dict | None = None, variant: Variant = STANDARD):
        self.name = name
        self.meta = meta or {}
        self.variant = variant  # the game it evaluates: scores finished games, turns boards round

    def results(self, boards: np.ndarray) -> np.ndarray:
        """(N, 6) exclusive-result probabilities for the player on roll."""
        raise NotImplementedError

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        probs = cumulative_probs(self.results(boards))
        if not self.variant.backgammons:  # the net's six outputs include them; this game scores none
            probs[:, [2, 4]] = 0.0
        return probs

    def score_afterstates(self, boards: np.ndarray) -> np.ndarray:
        return afterstate_equity(self, boards)


def mover_equity(results: np.ndarray) -> np.ndarray:
    """Cubeless equity of the side that just moved, from the six results of the opponent on roll."""
    return -(results @ RESULT_POINTS)


class Screen:
    """A pruning net as a search's screen (``screen`` in engine/search/evaluator.py): a cheap guess at each
    afterstate's equity, to rank one roll's plays before the best few are judged in full.

    It judges what it was trained on (:mod:`training.prune`): undecided afterstates whose
    opponent, on roll, is in contact (or crashed); the others get NaN, and the search judges
    them all in full.
    """

    def __init__(self, net: DenseNet, variant: Variant):
        self.net = net
        self.variant = variant
        # The whole screen compiled (models/_native.c) for the shipped shape: tesauro198+race, one hidden layer.
        layers = net.layers
        self._compiled = (native_screen is not None and net.encoding == "tesauro198+race" and len(layers) == 2
                          and len(layers[0].bias) <= 512 and len(layers[1].bias) == 6
                          and variant.geometry is MIRRORED)
        if self._compiled:
            self._weights = [np.ascontiguousarray(array, dtype=np.float32) for layer in layers for array in layer]
        # A search's choices compiled whole (choices) where the engine's generator is too and plays this variant.
        self._choosing = self._compiled and bool(native_has_generator) and plain(variant)

    def __call__(self, boards: np.ndarray) -> np.ndarray:
        """(M,) the mover's cubeless equity of each afterstate by the pruning net; NaN where it does not judge."""
        boards = np.asarray(boards)
        first, inverse = distinct_rows(boards)
        if self._compiled and boards.shape[1:] == (BOARD_SIZE,):
            out = np.empty(len(first))
            native_screen(np.ascontiguousarray(boards[first], dtype=np.int8), *self._weights, escape_table(),
                          RESULT_POINTS, out)
            return out[inverse]
        boards = boards[first]
        on_roll = self.variant.geometry.flip(boards)
        judged = (result_points(boards, self.variant.checkers) == 0) & ~is_race(on_roll)  # contact or crashed
        out = np.full(len(boards), np.nan)
        if judged.any():
            out[judged] = mover_equity(self.net.results(on_roll[judged]))
        return out[inverse]

    def played(self, boards: np.ndarray, origins: np.ndarray, parent: np.ndarray) -> np.ndarray:
        """The answers of :meth:`__call__`, each afterstate ``boards[r]`` given with the board its play started from,
        ``origins[parent[r]]`` (the same side's view). Compiled, a starting board's first layer is summed once for all
        its plays (every roll's), and each play adds the few inputs it changed: 150 ns a play against 245."""
        if not (self._compiled and np.shape(boards)[1:] == (BOARD_SIZE,)):
            return self(boards)
        first, inverse = distinct_rows(np.asarray(boards))
        out = np.empty(len(first))
        native_screen(np.ascontiguousarray(boards[first], dtype=np.int8), *self._weights, escape_table(), RESULT_POINTS,
                      out, np.ascontiguousarray(origins, dtype=np.int8),
                      np.ascontiguousarray(parent[first], dtype=np.int64))
        return out[inverse]

    def choices(self, boards: np.ndarray, rolls: np.ndarray, keep: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The plays a search judges in full below ``boards`` (players on roll), found in one compiled pass
        (models/_native.c's screen_choices), or None where they cannot be (the search then generates and screens in
        numpy, engine.search.evaluator.zero_ply_choice): ``(rows, group)``, for each board and each of ``rolls``, the
        plays of a roll with more than ``keep`` that the screen does not judge and its ``keep`` best (first ones on
        ties; :meth:`played`'s answers to float rounding), those of another roll all; (M, 26) afterstates grouped by
        board then roll, in the generator's order, with each one's group (board * len(rolls) + roll)."""
        if not (self._choosing and np.shape(boards)[1:] == (BOARD_SIZE,)):
            return None
        rows, group = native_screen_choices(np.ascontiguousarray(boards, dtype=np.int8),
                                            np.ascontiguousarray(rolls, dtype=np.int8), keep, *self._weights,
                                            escape_table(), RESULT_POINTS)
        return np.frombuffer(rows, dtype=np.int8).reshape(-1, BOARD_SIZE), np.frombuffer(group, dtype=np.int64)


class NumpyEvaluator(ResultsEvaluator):
    """A numpy model as an engine evaluator: what every command analyses and plays with. With a
    pruning net (``screen``), searches judge in full only the plays it ranks best."""

    def __init__(self, model: NumpyModel, name: str = "net", meta: dict | None = None,
                 variant: Variant = STANDARD, screen: Screen | None = None):
        super().__init__(name, meta, variant)
        self.model = model
        self.screen = screen

    def results(self, boards: np.ndarray) -> np.ndarray:
        return self.model.results(boards)


# -- files -----------------------------------------------------------------------------------


def file_digest(path: str | Path) -> str:
    """SHA-256 of a file's bytes, read a megabyte at a time (weights, label sets, batch inputs of any size)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def companion_path(weights: str | Path) -> Path:
    """Where the numpy companion of a ``.pt`` weights file lives: beside it, suffix ``.npz``."""
    return Path(weights).with_suffix(".npz")


def save_numpy(path: str | Path, model: NumpyModel, meta: dict, source_digest: str) -> None:
    """Write ``model`` as a ``.npz`` atomically: a JSON header (format, nets, meta, the source's digest) and
    each layer's weight and bias."""
    header = {"format": NUMPY_FORMAT, "version": NUMPY_VERSION, "source_sha256": source_digest, "meta": meta,
              "nets": {name: {"kind": net.kind, "hidden": list(net.hidden),
                              **({"bins": net.bins} if net.kind == ONE_SIDED else {"encoding": net.encoding})}
                       for name, net in model.nets.items()}}
    arrays = {"header": np.array(json.dumps(header))}
    for name, net in model.nets.items():
        for k, layer in enumerate(net.layers):
            arrays[f"{name}.{k}.weight"], arrays[f"{name}.{k}.bias"] = layer.weight, layer.bias

    def write(f):
        buffer = io.BytesIO()  # np.savez seeks in the file it writes; a pipe or link target need not allow it
        np.savez(buffer, **arrays)
        f.write(buffer.getvalue())

    atomic_write(path, write)


def load_numpy(path: str | Path, name: str | None = None) -> tuple[NumpyEvaluator, str]:
    """``(evaluator, source digest)`` of a ``.npz`` written by :func:`save_numpy`; GammonError says what is wrong."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(str(data["header"]))
            if header.get("format") != NUMPY_FORMAT or header.get("version") != NUMPY_VERSION:
                raise ValueError(f"not a {NUMPY_FORMAT} file of version {NUMPY_VERSION}")
            nets = {}
            for net_name, spec in header["nets"].items():
                layers = [Layer(data[f"{net_name}.{k}.weight"], data[f"{net_name}.{k}.bias"])
                          for k in range(len(spec["hidden"]) + 1)]
                nets[net_name] = (OneSidedNet(layers, spec["bins"]) if spec["kind"] == ONE_SIDED
                                  else DenseNet(spec["encoding"], layers))
    except (OSError, KeyError, ValueError, TypeError, EOFError) as exc:
        raise GammonError(f"{str(path)!r} is not a readable gammon numpy weights file "
                          f"({type(exc).__name__}: {exc})".split("\n")[0]) from None
    meta = header.get("meta", {})
    variant = variant_named(meta.get("config", {}).get("variant", "standard"))
    return NumpyEvaluator(NumpyModel(nets), name or path.stem, meta, variant), header.get("source_sha256", "")


def companion(weights: str | Path) -> NumpyEvaluator | None:
    """The numpy evaluator of a ``.pt`` weights file from its ``.npz`` companion, or None where there is
    none or it was made from other bytes than the ``.pt`` holds now."""
    path = companion_path(weights)
    if not path.is_file():
        return None
    evaluator, digest = load_numpy(path, Path(weights).stem)
    return evaluator if digest == file_digest(weights) else None


def pruning_path(weights: str | Path) -> Path:
    """Where a model's pruning net (:mod:`training.prune`) is shipped: ``NAME-prune.pt`` beside ``NAME.pt``."""
    weights = Path(weights)
    return weights.with_name(f"{weights.stem}-prune.pt")


def load_screen(weights: str | Path, variant: Variant) -> Screen | None:
    """The screen of the pruning net shipped beside ``weights`` (from its numpy companion), or None where
    there is none or it was taught by other weights than ``weights`` holds now."""
    prune = companion(pruning_path(weights)) if pruning_path(weights).is_file() else None
    if prune is None or not taught_by(prune.meta, weights):
        return None
    return Screen(prune.model.nets["all"], variant)


def taught_by(meta: dict, weights: str | Path) -> bool:
    """Whether a pruning net's metadata (:mod:`training.prune`) names the bytes ``weights`` holds now as its teacher."""
    return meta.get("pruning", {}).get("teacher_sha256") == file_digest(weights)
