"""Cross-check of :func:`engine.rules.movegen.generate` against GNU Backgammon's move generator.

For every (board, dice) of the families in ``tests/positions.py`` (random-play games of
three variants and built corner cases; about 22,500 positions, none from the shared
workload) the SET of afterstates must equal gnubg_nn's, and ``dice_used`` must equal the
number of steps of gnubg's plays. gnubg_nn returns an empty tuple when nothing can be
played; that stands for our single unchanged board and 0 dice used.

gnubg_nn boards are ``[[opponent x25], [mover x25]]``: index i = that side's own point
i+1, index 24 = its bar. The keys of ``gnubg_nn.moves`` decode (``boardfromkey``) to the
position after the move, still with the side that moved in slot 1.
"""

from __future__ import annotations

import numpy as np
import pytest

gnubg_nn = pytest.importorskip("gnubg_nn")

from gammon.engine.rules.board import (
    MOVER_BAR,
    checkers_off,
    starting_board,
    validate,
    validate_batch,
    variant_checkers,
)
from gammon.engine.rules.movegen import generate

try:  # tests/ is on sys.path under pytest's default import mode
    import positions
except ImportError:  # pragma: no cover
    from tests import positions

SEED = 7_202_611  # our own positions; the shared workload is never read here
MIN_CHECKED = 20_000
SHOW = 5  # disagreeing positions printed per failure


# --------------------------------------------------------------------------- conversion


def to_gnubg(boards: np.ndarray) -> np.ndarray:
    """Our (N, 26) boards as gnubg arrays (N, 2, 25): [opponent, mover], own numbering."""
    b = np.asarray(boards, dtype=np.int64)
    out = np.zeros((len(b), 2, 25), dtype=np.int64)
    out[:, 1, :24] = np.maximum(b[:, 1:25], 0)
    out[:, 1, 24] = b[:, MOVER_BAR]
    out[:, 0, :24] = np.maximum(-b[:, 24:0:-1], 0)  # mover point 25-k == opponent point k
    out[:, 0, 24] = b[:, 0]
    return out


def from_gnubg(arrays: np.ndarray) -> np.ndarray:
    """gnubg arrays (M, 2, 25) [opponent, mover] back to our (M, 26) int8 layout."""
    g = np.asarray(arrays, dtype=np.int64).reshape(-1, 2, 25)
    out = np.zeros((len(g), 26), dtype=np.int64)
    out[:, 0] = g[:, 0, 24]
    out[:, 25] = g[:, 1, 24]
    out[:, 1:25] = g[:, 1, :24] - g[:, 0, 23::-1]
    return out.astype(np.int8)


def gnubg_afterstates(boards: np.ndarray, dice: np.ndarray):
    """gnubg's afterstates of every input: (boards (M, 26), parent (M,), dice used (N,))."""
    keys, parent, used = [], [], np.zeros(len(boards), dtype=np.int64)
    unchanged = []  # inputs where gnubg finds no play
    for i, (g, d) in enumerate(zip(to_gnubg(boards).tolist(), dice.tolist())):
        plays = gnubg_nn.moves(g, d[0], d[1], 1)
        if not plays:
            unchanged.append(i)
            continue
        used[i] = max(len(steps) for _, steps in plays)
        keys.extend(key for key, _ in plays)
        parent.extend([i] * len(plays))
    decoded = from_gnubg(np.array([gnubg_nn.boardfromkey(k) for k in keys], dtype=np.int64))
    after = np.concatenate([decoded, np.asarray(boards, dtype=np.int8)[unchanged]])
    parent = np.concatenate([np.asarray(parent, dtype=np.int64), np.asarray(unchanged, dtype=np.int64)])
    return after, parent, used


def _sorted(after: np.ndarray, parent: np.ndarray):
    """Rows ordered by (parent, board) so equal sets line up."""
    keys = np.vstack([after.T[::-1].astype(np.int64), parent[None].astype(np.int64)])
    order = np.lexsort(keys)
    return after[order], parent[order]


def _row_set(rows: np.ndarray) -> set[tuple[int, ...]]:
    return {tuple(int(x) for x in r) for r in rows}


def cross_check(boards: np.ndarray, dice: np.ndarray) -> dict:
    """Compare our afterstate sets and dice_used with gnubg's for every input."""
    n = len(boards)
    ours = generate(boards, dice)
    g_after, g_parent, g_used = gnubg_afterstates(boards, dice)
    o_rows, o_par = _sorted(ours.boards, ours.parent)
    g_rows, g_par = _sorted(g_after, g_parent)
    o_count = np.bincount(o_par, minlength=n)
    g_count = np.bincount(g_par, minlength=n)
    bad = o_count != g_count
    # where the counts agree, the sorted rows of both sides line up one to one
    o_sel, g_sel = ~bad[o_par], ~bad[g_par]
    differs = np.any(o_rows[o_sel] != g_rows[g_sel], axis=1)
    bad[o_par[o_sel][differs]] = True
    mismatches = []
    for i in np.flatnonzero(bad)[:SHOW]:
        mine = _row_set(o_rows[o_par == i])
        theirs = _row_set(g_rows[g_par == i])
        mismatches.append(
            f"board={boards[i].tolist()} dice={dice[i].tolist()}: ours {len(mine)}, gnubg {len(theirs)}; "
            f"missing (gnubg only) {sorted(theirs - mine)[:4]}; extra (ours only) {sorted(mine - theirs)[:4]}"
        )
    used_bad = np.flatnonzero(ours.dice_used.astype(np.int64) != g_used)
    used_msgs = [
        f"board={boards[i].tolist()} dice={dice[i].tolist()}: "
        f"dice_used ours {int(ours.dice_used[i])}, gnubg {int(g_used[i])}"
        for i in used_bad[:SHOW]
    ]
    return {
        "checked": n,
        "afterstates": len(ours),
        "n_bad": int(bad.sum()),
        "bad": mismatches,
        "n_used_bad": len(used_bad),
        "used_bad": used_msgs,
    }


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def families():
    return positions.all_families(seed=SEED)


@pytest.fixture(scope="module")
def results(families):
    return {name: cross_check(b, d) for name, (b, d) in families.items()}


FAMILY_NAMES = [f"play_{v}" for v in positions.RANDOM_PLAY_GAMES] + list(positions.CORNER_FAMILIES)


# --------------------------------------------------------------------------- cross-check tests


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_afterstate_sets_match_gnubg(results, family):
    r = results[family]
    assert r["checked"] > 0
    assert r["n_bad"] == 0, (
        f"{family}: {r['n_bad']} of {r['checked']} positions differ from gnubg:\n" + "\n".join(r["bad"])
    )


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_dice_used_matches_gnubg(results, family):
    r = results[family]
    assert r["n_used_bad"] == 0, (
        f"{family}: dice_used differs from gnubg's step count in {r['n_used_bad']} positions:\n"
        + "\n".join(r["used_bad"])
    )


def test_enough_positions_checked(results):
    total = sum(r["checked"] for r in results.values())
    assert total >= MIN_CHECKED, f"only {total} positions cross-checked; need {MIN_CHECKED}"


def test_conversion_round_trip(families):
    boards = np.concatenate([b[:300] for b, _ in families.values()])
    keys = [gnubg_nn.key_of_board(g) for g in to_gnubg(boards).tolist()]
    back = from_gnubg(np.array([gnubg_nn.boardfromkey(k) for k in keys]))
    np.testing.assert_array_equal(back, boards)


def test_gnubg_key_keeps_mover_in_slot_1():
    """Opening 6-4: gnubg's afterstates decode with the side that moved still in slot 1."""
    start = starting_board()
    keys = gnubg_nn.moves(to_gnubg(start[None]).tolist()[0], 6, 4)
    after = from_gnubg(np.array([gnubg_nn.boardfromkey(k) for k in keys]))
    played_24_18_24_20 = start.copy()
    played_24_18_24_20[24] -= 2
    played_24_18_24_20[18] += 1
    played_24_18_24_20[20] += 1
    assert any(np.array_equal(a, played_24_18_24_20) for a in after)
    assert np.all(after[:, 1:25].clip(max=0).sum(1) == -15)  # opponent untouched
    assert _row_set(after) == _row_set(generate(start, np.array([6, 4])).boards)


def test_hit_on_the_way_off():
    """Checker on 3, opponent blot on 2, roll 6-1: only 3/2*/off uses both dice."""
    board = np.zeros(26, dtype=np.int8)
    board[3], board[2], board[13] = 1, -1, -14
    for dice in ([6, 1], [1, 6]):
        ours = generate(board, np.array(dice))
        expected = np.zeros(26, dtype=np.int8)
        expected[0], expected[13] = 1, -14  # blot on the bar, our checker off
        assert len(ours) == 1 and ours.dice_used[0] == 2
        np.testing.assert_array_equal(ours.boards[0], expected)
        assert ours.steps[0, :2].tolist() == [[3, 2], [2, 0]]
        r = cross_check(board[None], np.array([dice], dtype=np.int8))
        assert r["n_bad"] == 0 and r["n_used_bad"] == 0, r


def test_no_play_is_the_unchanged_board():
    """Closed board, mover on the bar: gnubg returns () and we return the board itself."""
    board = np.zeros(26, dtype=np.int8)
    board[19:25] = -2
    board[25], board[6] = 2, 13
    assert gnubg_nn.moves(to_gnubg(board[None]).tolist()[0], 5, 3) == ()
    ours = generate(board, np.array([5, 3]))
    assert len(ours) == 1 and ours.dice_used[0] == 0
    np.testing.assert_array_equal(ours.boards[0], board)


# --------------------------------------------------------------------------- tests of positions.py


def test_families_nonempty_valid_and_typed(families):
    assert set(families) == set(FAMILY_NAMES)
    for name, (boards, dice) in families.items():
        assert len(boards) > 0 and len(boards) == len(dice), name
        assert boards.dtype == np.int8 and boards.shape[1] == 26, name
        assert dice.dtype == np.int8 and dice.shape[1] == 2, name
        assert dice.min() >= 1 and dice.max() <= 6, name
        checkers = variant_checkers("hypergammon") if name == "play_hypergammon" else 15
        validate_batch(boards, checkers)
        for row in boards:
            validate(row, checkers)
        off = checkers_off(boards, checkers)
        assert np.all(off[:, 0] < checkers) and np.all(off[:, 1] < checkers), f"{name}: a side with no checkers"


def test_positions_are_deterministic():
    for build in positions.CORNER_FAMILIES.values():
        a, b = build(40, seed=3), build(40, seed=3)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
        c = build(40, seed=4)
        assert not (np.array_equal(a[0], c[0]) and np.array_equal(a[1], c[1]))
    p, q = positions.random_play("nackgammon", games=3, seed=5), positions.random_play("nackgammon", games=3, seed=5)
    np.testing.assert_array_equal(p[0], q[0])
    np.testing.assert_array_equal(p[1], q[1])


def test_random_play_games(families):
    for variant, games in positions.RANDOM_PLAY_GAMES.items():
        boards, dice = families[f"play_{variant}"]
        assert len(boards) > 10 * games
        np.testing.assert_array_equal(boards[:games], np.repeat(starting_board(variant)[None], games, 0))
        assert np.all(dice[:games, 0] != dice[:games, 1])  # opening roll is never a double
        assert np.any(dice[:, 0] == dice[:, 1])


def test_family_shapes(families):
    b, d = families["closed_board"]
    assert np.all(b[:, 19:25] <= -2) and np.all(b[:, 25] >= 1)
    b, d = families["bar_entry"]
    assert np.all(b[:, 25] >= 1) and np.mean(b[:, 25] >= 2) > 0.5
    assert np.any(np.all(b[:, 19:25] >= -1, axis=1)) and np.any((b[:, 19:25] <= -2).sum(1) == 5)
    b, d = families["bearoff_high_dice"]
    assert np.all(b[:, 7:26] <= 0)  # every mover checker home
    highest = np.array([max(np.flatnonzero(row[1:7] > 0)) + 1 for row in b])
    assert np.all(d.max(1) > highest)
    assert np.any(b[:, 0] > 0) and np.any((b[:, 1:7] == -1).any(1)) and np.any((b[:, 1:7] >= 0).all(1) & (b[:, 0] == 0))
    b, d = families["last_checkers_hit"]
    assert np.all(b[:, 1:26].clip(min=0).sum(1) <= 2) and np.all(b[:, 7:26] <= 0)
    b, d = families["one_die_only"]
    assert np.all(d[:, 0] != d[:, 1])
    b, d = families["doubles_partial"]
    assert np.all(d[:, 0] == d[:, 1])
    b, d = families["few_checkers"]
    counts = b[:, 1:26].clip(min=0).sum(1)
    assert set(range(1, 16)) <= set(counts.tolist())


def test_targeted_families_hit_their_target(families):
    """The built families really produce the situations they are named after."""
    used = {name: generate(b, d).dice_used for name, (b, d) in families.items()}
    assert np.all(used["closed_board"] == 0)
    assert np.all(used["one_die_only"] == 1)
    dp = np.bincount(used["doubles_partial"], minlength=5)
    assert all(dp[k] >= 100 for k in (1, 2, 3)), dp
    b, d = families["bar_entry"]
    partial = (used["bar_entry"] == 1) & (d[:, 0] != d[:, 1]) & (b[:, 25] >= 2)
    assert partial.sum() >= 100
