"""Bear-off databases: brute force on small cases, known values, cache safety, evaluator routing.

Only small databases are built here (up to 6 checkers, well under a second); they are
exact prefixes of the full ones (see ``position_index``).
"""

import functools
import os

import numpy as np
import pytest

import gammon.engine.search.bearoff as bearoff
from gammon.engine.rules.board import flip, starting_board
from gammon.engine.rules.dice import ROLL_WEIGHTS, ROLLS
from gammon.engine.rules.notation import legal_plays
from gammon.engine.rules.outcomes import cubeless_equity
from gammon.engine.rules.variants import STANDARD
from gammon.engine.search.bearoff import (
    CorruptCache,
    Databases,
    OneSided,
    TwoSided,
    WithBearoff,
    bearoff_probabilities,
    build_one_sided,
    build_two_sided,
    cache_path,
    database_size,
    load,
    one_sided_database,
    position_index,
    positions,
    save,
    two_sided_database,
)


@functools.cache
def small_one_sided(max_checkers: int) -> OneSided:
    return build_one_sided(max_checkers)


@functools.cache
def small_two_sided(max_checkers: int) -> TwoSided:
    return build_two_sided(max_checkers)


def index(*counts) -> int:
    """Database index of checker counts on points 1..6."""
    return int(position_index(np.array(counts)))


def bearoff_board(mine, theirs) -> np.ndarray:
    """Board on roll: my counts on points 1..6 and the opponent's on its own points 1..6."""
    board = np.zeros(26, dtype=np.int8)
    board[1:7] = mine
    board[24:18:-1] = -np.asarray(theirs)
    return board


# -- brute force: plain recursion over legal_plays, positions as tuples ------------------------


@functools.cache
def afterstates(counts: tuple, roll: tuple) -> tuple:
    board = np.zeros(26, dtype=np.int8)
    board[1:7] = counts
    return tuple({tuple(int(x) for x in play.board[1:7]) for play in legal_plays(board, roll)})


def over_rolls(value) -> float:
    return sum(w * value(tuple(int(d) for d in roll)) for roll, w in zip(ROLLS, ROLL_WEIGHTS))


@functools.cache
def expected_rolls(counts: tuple) -> float:
    if sum(counts) == 0:
        return 0.0
    return 1.0 + over_rolls(lambda roll: min(expected_rolls(a) for a in afterstates(counts, roll)))


@functools.cache
def expected_first_off(counts: tuple) -> float:
    def to_go(a):
        return 0.0 if sum(a) < sum(counts) else expected_first_off(a)

    return 1.0 + over_rolls(lambda roll: min(to_go(a) for a in afterstates(counts, roll)))


@functools.cache
def exact_win(me: tuple, opp: tuple) -> float:
    def after(a):
        return 1.0 if sum(a) == 0 else 1.0 - exact_win(opp, a)

    return over_rolls(lambda roll: max(after(a) for a in afterstates(me, roll)))


def small_positions(max_checkers: int) -> list[tuple]:
    return [tuple(int(x) for x in p) for p in positions(max_checkers)]


# -- indexing ----------------------------------------------------------------------------------


def test_the_index_numbers_every_position_once_and_small_databases_are_prefixes():
    assert database_size(15) == 54_264 and database_size(6) == 924
    six = positions(6)
    assert len(six) == 924 and len({tuple(p) for p in six}) == 924
    assert np.array_equal(position_index(six), np.arange(924))
    assert six.min() >= 0 and six.sum(axis=1).max() == 6
    assert np.array_equal(positions(4), six[: database_size(4)])
    assert index(0, 0, 0, 0, 0, 0) == 0


# -- one-sided ---------------------------------------------------------------------------------


def test_known_one_sided_values():
    db = small_one_sided(4)
    assert db.rolls[index(1, 0, 0, 0, 0, 0)] == pytest.approx([0.0, 1.0] + [0.0] * 30)  # any roll bears it off
    # One checker on the 6-point needs 6 pips: 11, 12, 13, 14, 23 (9 of 36) fall short.
    assert db.rolls[index(0, 0, 0, 0, 0, 1), 1] == pytest.approx(27 / 36)
    # Two on the 6-point in one roll: only 33, 44, 55, 66 carry both (22 has 8 of 12 pips).
    assert db.rolls[index(0, 0, 0, 0, 0, 2), 1] == pytest.approx(4 / 36)
    assert db.mean_first[index(0, 0, 0, 0, 0, 4)] > 1.0 > 0.0 == db.mean_first[0]


def test_one_sided_database_matches_brute_force():
    db = small_one_sided(3)
    for counts in small_positions(3):
        i = index(*counts)
        assert db.mean_rolls[i] == pytest.approx(expected_rolls(counts), abs=1e-12), counts
        if sum(counts):
            assert db.mean_first[i] == pytest.approx(expected_first_off(counts), abs=1e-12), counts
    for dist, mean in ((db.rolls, db.mean_rolls), (db.first, db.mean_first)):
        assert np.allclose(dist.sum(axis=1), 1.0, atol=1e-12) and dist.min() >= 0
        assert np.allclose(dist @ np.arange(bearoff.MAX_ROLLS), mean, atol=1e-12)  # nothing lost at the cap


def test_one_checker_distributions_match_brute_force():
    """One checker has a single afterstate per roll, so its whole distribution is forced."""
    db = small_one_sided(1)

    def dist(point: int) -> np.ndarray:
        out = np.zeros(bearoff.MAX_ROLLS)
        if point == 0:
            out[0] = 1.0
            return out
        for roll, w in zip(ROLLS, ROLL_WEIGHTS):
            (after,) = afterstates(tuple(int(p == point) for p in range(1, 7)), tuple(int(d) for d in roll))
            out[1:] += w * dist(after.index(1) + 1 if sum(after) else 0)[:-1]
        return out

    for point in range(1, 7):
        assert np.allclose(db.rolls[index(*(int(p == point) for p in range(1, 7)))], dist(point), atol=1e-15)


def test_expected_rolls_never_fall_when_a_checker_is_added():
    db = small_one_sided(6)
    counts = positions(6)
    room = counts.sum(axis=1) < 6
    for point in range(6):
        more = counts[room].copy()
        more[:, point] += 1
        assert np.all(db.mean_rolls[position_index(more)] >= db.mean_rolls[room])


def test_the_roll_cap_is_checked(monkeypatch):
    monkeypatch.setattr(bearoff, "MAX_ROLLS", 3)
    with pytest.raises(RuntimeError, match="MAX_ROLLS"):
        build_one_sided(3)


# -- two-sided ---------------------------------------------------------------------------------


def test_two_sided_database_matches_brute_force():
    db = small_two_sided(3)
    nonempty = [p for p in small_positions(3) if sum(p)]
    exact = np.array([[exact_win(me, opp) for opp in nonempty] for me in nonempty])
    rows = position_index(np.array(nonempty))
    assert np.allclose(db.p_win[np.ix_(rows, rows)], exact, atol=1e-12)
    assert np.all(db.p_win[1:, 0] == 0.0)


def test_one_sided_estimate_is_close_to_the_exact_two_sided_value():
    one, two = small_one_sided(4), small_two_sided(4)
    boards = np.array([bearoff_board(m, o) for m in positions(4)[1:] for o in positions(4)[1:]])
    estimate, applies = bearoff_probabilities(boards, 15, Databases(one))
    exact, _ = bearoff_probabilities(boards, 15, Databases(one, two))
    assert applies.all()
    mine, theirs = position_index(positions(4)[1:]), position_index(positions(4)[1:])
    assert np.array_equal(exact[:, 0], two.p_win[np.ix_(mine, theirs)].ravel())
    gap = np.abs(estimate[:, 0] - exact[:, 0])
    assert gap.max() < 0.02 and gap.mean() < 0.002  # measured 0.012 and 0.0009 at 6 checkers


# -- evaluation --------------------------------------------------------------------------------


def test_bearoff_probabilities_gammons_and_mask():
    dbs = Databases(small_one_sided(4), small_two_sided(4))
    boards = np.array([
        bearoff_board([1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 4]),  # I'm off at once, they have all 4 on
        bearoff_board([0, 0, 0, 0, 0, 4], [1, 0, 0, 0, 0, 0]),  # they're off next roll, mine all on
    ])
    probs, applies = bearoff_probabilities(boards, 4, dbs)
    assert applies.all()
    assert probs[0] == pytest.approx([1.0, 1.0, 0.0, 0.0, 0.0])
    # I win only with 66. Only a 6, 51, 42, 33 or 22 bears a checker off (17 of 36): 55,
    # 44, 54, 53, 43 must move checkers from the 6-point, the rest fall short.
    assert probs[1] == pytest.approx([1 / 36, 0.0, 0.0, 19 / 36, 0.0])

    contact = starting_board()
    on_bar = bearoff_board([1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])
    on_bar[25] = 1
    outside = bearoff_board([1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])
    outside[18] = -1  # the opponent's 7-point
    too_many = bearoff_board([5, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])  # the database holds 4
    finished = bearoff_board([0] * 6, [1, 0, 0, 0, 0, 0])
    probs, applies = bearoff_probabilities(np.array([contact, on_bar, outside, too_many, finished]), 15, dbs)
    assert not applies.any() and not probs.any()


def test_gammons_never_exceed_wins_and_backgammons_are_zero():
    dbs = Databases(small_one_sided(6), small_two_sided(4))
    rng = np.random.default_rng(0)
    counts = positions(6)[1:]
    boards = np.array([bearoff_board(counts[i], counts[j]) for i, j in rng.integers(0, len(counts), (2000, 2))])
    probs, applies = bearoff_probabilities(boards, 6, dbs)
    assert applies.all() and (probs[:, 1] > 0).any() and (probs[:, 3] > 0).any()
    assert np.all(probs[:, 1] <= probs[:, 0] + 1e-12) and np.all(probs[:, 3] <= 1 - probs[:, 0] + 1e-12)
    assert not probs[:, [2, 4]].any()


class ConstantEvaluator:
    """A numpy stand-in for a network that records what it was asked."""

    name = "constant"
    ROW = [0.5, 0.1, 0.01, 0.1, 0.01]
    variant = STANDARD

    def __init__(self):
        self.seen = []

    def probabilities(self, boards):
        self.seen.append(np.array(boards))
        return np.tile(self.ROW, (len(boards), 1))


def test_with_bearoff_routes_bearoff_positions_to_the_databases():
    dbs = Databases(small_one_sided(4), small_two_sided(4))
    inner = ConstantEvaluator()
    evaluator = WithBearoff(inner, dbs)
    race = bearoff_board([0, 2, 0, 1, 0, 0], [1, 1, 0, 0, 0, 2])
    ending = bearoff_board([1, 1, 1, 1, 0, 0], [0, 0, 0, 0, 0, 1])
    boards = np.array([race, starting_board(), ending])
    probs = evaluator.probabilities(boards)
    expected, _ = bearoff_probabilities(boards[[0, 2]], 15, dbs)
    assert np.array_equal(probs[[0, 2]], expected)
    assert probs[1].tolist() == ConstantEvaluator.ROW
    assert len(inner.seen) == 1 and np.array_equal(inner.seen[0], boards[[1]])
    assert evaluator.name == "constant+bearoff"

    inner.seen.clear()
    evaluator.probabilities(boards[[0, 2]])
    assert inner.seen == []  # nothing left for the wrapped evaluator

    won = bearoff_board([0] * 6, [2, 0, 0, 0, 0, 0])  # the mover just bore off its last checker
    scores = evaluator.score_afterstates(np.array([won, race]))
    opponent_on_roll, _ = bearoff_probabilities(flip(race[None]), 15, dbs)
    assert scores[0] == 1.0
    assert scores[1] == pytest.approx(-cubeless_equity(opponent_on_roll)[0])


# -- cache -------------------------------------------------------------------------------------


def test_cache_round_trip_loads_without_rebuilding(tmp_path, monkeypatch):
    path = tmp_path / "one.npz"
    built = one_sided_database(3, path)
    assert path.exists() and os.listdir(tmp_path) == ["one.npz"]  # no temporary file left behind

    def no_build(_):
        raise AssertionError("rebuilt although the cache is good")

    monkeypatch.setattr(bearoff, "build_one_sided", no_build)
    loaded = one_sided_database(3, path)
    for name in ("rolls", "first", "mean_rolls", "mean_first"):
        assert np.array_equal(getattr(loaded, name), getattr(built, name))
    assert loaded.max_checkers == 3
    two = two_sided_database(2, tmp_path / "two.npz")
    assert np.array_equal(load(TwoSided, 2, tmp_path / "two.npz").p_win, two.p_win)


def test_default_cache_location_follows_gammon_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_CACHE", str(tmp_path))
    assert cache_path(OneSided, 15) == tmp_path / "bearoff1.npz"
    assert cache_path(TwoSided, 6) == tmp_path / "bearoff2.npz"
    assert cache_path(OneSided, 4) == tmp_path / "bearoff1-4.npz"
    one_sided_database(2)
    assert (tmp_path / "bearoff1-2.npz").exists()


def tamper(path, **changes):
    """Rewrite a cache file with some arrays changed and the old checksum kept."""
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    arrays.update(changes)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "edited", "other size", "old version"])
def test_a_bad_cache_is_rebuilt_with_a_warning(tmp_path, damage):
    path = tmp_path / "one.npz"
    good = one_sided_database(3, path)
    if damage == "garbage":
        path.write_bytes(b"not a database")
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:1000])
    elif damage == "edited":
        rolls = good.rolls.copy()
        rolls[5, 1] += 1e-9
        tamper(path, rolls=rolls)
    elif damage == "other size":
        save(build_one_sided(2), path)
    else:
        tamper(path, version=bearoff.CACHE_VERSION + 1)
    with pytest.raises(CorruptCache):
        load(OneSided, 3, path)
    with pytest.warns(UserWarning, match="unusable"):
        rebuilt = one_sided_database(3, path)
    assert np.array_equal(rebuilt.rolls, good.rolls)
    assert np.array_equal(load(OneSided, 3, path).rolls, good.rolls)  # the file is good again


# -- against GNU Backgammon's own databases -----------------------------------------------------


def test_databases_agree_with_gnubg():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    from gammon.models.gnubg import to_gnubg

    one = small_one_sided(4)
    for i, counts in enumerate(positions(4)[1:], start=1):
        theirs = np.array(gnubg_nn.bearoff_probabilities(tuple(int(c) for c in counts)))
        ours = one.rolls[i, 1 : 1 + len(theirs)]
        assert np.abs(ours - theirs).max() < 5e-4, counts  # gnubg stores 16-bit fractions

    dbs = Databases(one, small_two_sided(4))
    rng = np.random.default_rng(1)
    counts = positions(4)[1:]
    boards = np.array([bearoff_board(counts[i], counts[j]) for i, j in rng.integers(0, len(counts), (300, 2))])
    ours, _ = bearoff_probabilities(boards, 15, dbs)
    theirs = np.array([gnubg_nn.probabilities(b, 0) for b in to_gnubg(boards).tolist()])
    assert np.abs(ours - theirs).max() < 1e-4
