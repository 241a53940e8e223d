"""Bear-off databases, generated here with our own move generator and cached on disk.

Two tables, both indexed by the *home-board position* of one side: its checker counts
on points 1..6 (``counts[k]`` = checkers on point ``k + 1``), borne-off checkers implicit.

- **One-sided** (:class:`OneSided`, up to 15 checkers: C(21, 6) = 54,264 positions with
  the empty one). For every position, the distribution of the number of rolls needed to
  bear off all its checkers when each roll is played to minimise the expected number of
  rolls (as gnubg's one-sided database), and the distribution of the number of rolls
  until the *first* checker is off, each roll played to minimise that expectation (for
  gammon chances). Distributions are stored for 0..``MAX_ROLLS - 1`` rolls; the build
  checks that the mass cut off beyond is negligible.
- **Two-sided** (:class:`TwoSided`, up to 6 checkers per side: 924 positions, 853,776
  pairs). The exact cubeless P(win) of the player on roll for every pair, each roll
  played to maximise it.

Both are built by dynamic programming in which every turn strictly lowers the mover's
pip count (with all checkers home and no opponent in the way every die can be played),
so positions are processed level by level, lowest pips first, each level as one batch:
afterstates of (position, roll) come from :func:`engine.rules.movegen.generate` on one-sided
boards and are mapped to database indices with :func:`position_index`.

:func:`race_probabilities` turns two sides' roll-count distributions (:class:`RaceDistributions`:
the database's, or estimates for sides still outside the home board) into a race's
probabilities; :func:`bearoff_probabilities` evaluates positions where both sides have
every remaining checker in their own home board, and :class:`WithBearoff` wraps an
evaluator so that such positions are answered from the databases.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import math
import os
import time
import warnings
import zipfile
from dataclasses import dataclass, fields
from itertools import combinations
from pathlib import Path
from typing import NamedTuple

import numpy as np

from gammon.engine.files import atomic_write
from gammon.engine.rules.board import BOARD_SIZE, MAX_CHECKERS, mover_counts, opponent_counts
from gammon.engine.rules.dice import ROLL_WEIGHTS, ROLLS
from gammon.engine.rules.movegen import generate
from gammon.engine.rules.variants import MIRRORED, Geometry
from gammon.engine.search.evaluator import ProbabilityEvaluator, afterstate_equity

log = logging.getLogger("gammon.bearoff")

POINTS = 6  # the home board
MAX_ROLLS = 32  # distributions cover 0..31 rolls (gnubg's one-sided database keeps 32 too)
LOST_MASS_TOLERANCE = 1e-12  # largest probability the MAX_ROLLS cap may drop from any position
TWO_SIDED_CHECKERS = 6  # default two-sided size: C(12, 6) = 924 positions per side
CACHE_VERSION = 2  # bump when the content or layout of the cached databases changes (2: stored uncompressed)

# _BINOM[n, k] = C(n, k) for the combinatorial number system of position_index.
_BINOM = np.array([[math.comb(n, k) for k in range(POINTS + 1)] for n in range(MAX_CHECKERS + POINTS)], dtype=np.int64)


# -- indexing ----------------------------------------------------------------------------


def position_index(counts) -> np.ndarray:
    """Database index of home-board checker counts ``(..., 6)`` (points 1..6).

    A position with at most C checkers is the P-subset ``b_j = S_j + j - 1`` (j = 1..6,
    ``S_j`` the checkers on points 1..j) of ``{0, .., C + 5}``; its index is the subset's
    rank in the combinatorial number system, ``sum_j C(b_j, j)``. The rank does not depend
    on C, and positions with at most c checkers take exactly the indices below
    C(c + 6, 6): a smaller database is a prefix of a larger one.
    """
    prefix = np.cumsum(np.asarray(counts, dtype=np.int64), axis=-1)
    j = np.arange(1, POINTS + 1)
    return _BINOM[prefix + j - 1, j].sum(axis=-1)


def database_size(max_checkers: int) -> int:
    """Number of positions of up to ``max_checkers`` checkers on the 6 home points."""
    return math.comb(max_checkers + POINTS, POINTS)


def positions(max_checkers: int) -> np.ndarray:
    """(n, 6) checker counts of every position with up to ``max_checkers`` checkers, in index order."""
    subsets = np.array(list(combinations(range(max_checkers + POINTS), POINTS)), dtype=np.int64)
    prefix = subsets - np.arange(POINTS)
    counts = np.diff(prefix, axis=1, prepend=0)
    out = np.empty_like(counts)
    out[position_index(counts)] = counts
    return out


def _pips(counts: np.ndarray) -> np.ndarray:
    return counts @ np.arange(1, POINTS + 1)


def _afterstate_table(counts: np.ndarray, chunk: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """Afterstates of every (position, roll): their database indices and group offsets.

    Group ``k * 21 + r`` holds the afterstates of ``counts[k]`` with ``ROLLS[r]``: indices
    ``after[offsets[g]:offsets[g + 1]]``, never empty. Generated in chunks to bound memory.
    """
    boards = np.zeros((len(counts), BOARD_SIZE), dtype=np.int8)
    boards[:, 1 : POINTS + 1] = counts  # no opponent checkers: nothing can block or be hit
    after, sizes = [], []
    for start in range(0, len(boards), chunk):
        part = boards[start : start + chunk]
        result = generate(np.repeat(part, len(ROLLS), axis=0), np.tile(ROLLS, (len(part), 1)), check=False)
        after.append(position_index(result.boards[:, 1 : POINTS + 1]).astype(np.int32))
        sizes.append(result.counts())
    offsets = np.concatenate([[0], np.cumsum(np.concatenate(sizes))])
    return np.concatenate(after), offsets


def _first_min(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Flat index of the first smallest value of each group ``values[offsets[i]:offsets[i+1]]``."""
    starts = offsets[:-1]
    group = np.repeat(np.arange(len(starts)), np.diff(offsets))
    smallest = np.minimum.reduceat(values, starts)
    candidates = np.where(values == smallest[group], np.arange(len(values)), len(values))
    return np.minimum.reduceat(candidates, starts)


def one_more_roll(chosen: np.ndarray) -> tuple[np.ndarray, float]:
    """Distributions after one more roll: the 21 rolls' chosen distributions ``(g * 21, B)``
    mixed by their chances and shifted by one roll; also the largest mass pushed past the cap."""
    mixed = np.einsum("grk,r->gk", chosen.reshape(-1, len(ROLLS), chosen.shape[-1]), ROLL_WEIGHTS)
    shifted = np.zeros_like(mixed)
    shifted[:, 1:] = mixed[:, :-1]
    return shifted, float(mixed[:, -1].max())


# -- one-sided database ------------------------------------------------------------------------


@dataclass(frozen=True)
class OneSided:
    """One-sided bear-off database: row ``position_index(counts)`` describes that position.

    ``rolls[i, n]``: P(all checkers off in exactly n rolls), playing to minimise the
    expected rolls ``mean_rolls[i]``. ``first[i, n]``: P(the first checker off in exactly n
    rolls), playing to minimise ``mean_first[i]``. The empty position (index 0) has
    everything off in 0 rolls. Means are exact; distributions stop at ``MAX_ROLLS - 1``.
    """

    max_checkers: int
    rolls: np.ndarray  # (n, MAX_ROLLS) float64
    first: np.ndarray  # (n, MAX_ROLLS) float64
    mean_rolls: np.ndarray  # (n,) float64
    mean_first: np.ndarray  # (n,) float64

    @staticmethod
    def shapes(max_checkers: int) -> dict[str, tuple]:
        n = database_size(max_checkers)
        return {"rolls": (n, MAX_ROLLS), "first": (n, MAX_ROLLS), "mean_rolls": (n,), "mean_first": (n,)}


def build_one_sided(max_checkers: int = MAX_CHECKERS) -> OneSided:
    """Build the one-sided database for up to ``max_checkers`` checkers (see :class:`OneSided`).

    One pass over pip levels, lowest first: every afterstate has fewer pips than its
    position, so its row is final when the position's level is processed.
    """
    started = time.perf_counter()
    counts = positions(max_checkers)
    n = len(counts)
    pips, checkers = _pips(counts), counts.sum(axis=1)
    order = np.argsort(pips, kind="stable")  # table rows in pip order: each level is one slice
    after, offsets = _afterstate_table(counts[order])
    bounds = np.searchsorted(pips[order], np.arange(pips.max() + 2))
    rolls, first = np.zeros((n, MAX_ROLLS)), np.zeros((n, MAX_ROLLS))
    mean_rolls, mean_first = np.zeros(n), np.zeros(n)
    rolls[0, 0] = first[0, 0] = 1.0  # index 0 is the empty position: nothing left to bear off
    off_now = np.zeros(MAX_ROLLS)
    off_now[0] = 1.0
    lost = 0.0
    for level in range(1, pips.max() + 1):
        lo, hi = bounds[level], bounds[level + 1]
        if lo == hi:
            continue
        here = order[lo:hi]
        groups = offsets[lo * len(ROLLS) : hi * len(ROLLS) + 1]
        a = after[groups[0] : groups[-1]]
        groups = groups - groups[0]

        best = a[_first_min(mean_rolls[a], groups)]
        mean_rolls[here] = 1.0 + mean_rolls[best].reshape(-1, len(ROLLS)) @ ROLL_WEIGHTS
        rolls[here], dropped = one_more_roll(rolls[best])
        lost = max(lost, dropped)

        # First checker off: an afterstate that bore one off ends the count this roll.
        parent = np.repeat(np.repeat(here, len(ROLLS)), np.diff(groups))
        bore_off = checkers[a] < checkers[parent]
        to_go = np.where(bore_off, 0.0, mean_first[a])
        pick = _first_min(to_go, groups)
        mean_first[here] = 1.0 + to_go[pick].reshape(-1, len(ROLLS)) @ ROLL_WEIGHTS
        chosen = np.where(bore_off[pick, None], off_now, first[a[pick]])
        first[here], dropped = one_more_roll(chosen)
        lost = max(lost, dropped)
    if lost > LOST_MASS_TOLERANCE:
        raise RuntimeError(f"MAX_ROLLS = {MAX_ROLLS} cuts off probability {lost:.3g}; raise it")
    log.info("one-sided bear-off database (%d checkers, %d positions) built in %.1f s",
             max_checkers, n, time.perf_counter() - started)
    return OneSided(max_checkers, rolls, first, mean_rolls, mean_first)


# -- two-sided database ------------------------------------------------------------------------


@dataclass(frozen=True)
class TwoSided:
    """Two-sided bear-off database: ``p_win[i, j]`` is the exact cubeless P(win) of the player
    on roll with position ``i`` against the opponent's position ``j`` (both position indices).

    Row and column 0 are the empty position (game over) and are not evaluations, except
    ``p_win[j, 0] = 0``: the player on roll has already lost when the opponent is off.
    """

    max_checkers: int
    p_win: np.ndarray  # (n, n) float64

    @staticmethod
    def shapes(max_checkers: int) -> dict[str, tuple]:
        n = database_size(max_checkers)
        return {"p_win": (n, n)}


def _segments(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(starts[i], starts[i] + lengths[i])`` for every i."""
    ends = np.cumsum(lengths)
    return np.arange(ends[-1]) + np.repeat(starts - (ends - lengths), lengths)


def build_two_sided(max_checkers: int = TWO_SIDED_CHECKERS) -> TwoSided:
    """Build the two-sided database for up to ``max_checkers`` checkers per side.

    ``P(me, opp) = sum_roll w * max_a (1 if a is empty else 1 - P(opp, a))`` over my
    afterstates ``a``. Each term has a lower pip total than (me, opp), so the pairs are
    processed by increasing pip total, each total as one batch.
    """
    started = time.perf_counter()
    counts = positions(max_checkers)
    n, rolls = len(counts), len(ROLLS)
    after, offsets = _afterstate_table(counts)
    group_starts = offsets[:-1].reshape(n, rolls)
    first_after = group_starts[:, 0]
    n_after = offsets[rolls::rolls] - first_after
    roll_starts = group_starts - first_after[:, None]  # where each roll's afterstates begin
    pips = _pips(counts)
    me, opp = (index.ravel() for index in np.meshgrid(np.arange(1, n), np.arange(1, n), indexing="ij"))
    total = pips[me] + pips[opp]
    order = np.argsort(total, kind="stable")
    me, opp, total = me[order], opp[order], total[order]
    bounds = np.searchsorted(total, np.arange(total[-1] + 2))
    p_win = np.zeros((n, n))  # column 0 stays 0: the opponent has borne everything off
    for level in range(total[0], total[-1] + 1):
        i, j = me[bounds[level] : bounds[level + 1]], opp[bounds[level] : bounds[level + 1]]
        if len(i) == 0:
            continue
        lengths = n_after[i]
        a = after[_segments(first_after[i], lengths)]
        value = 1.0 - p_win[np.repeat(j, lengths), a]
        starts = ((np.cumsum(lengths) - lengths)[:, None] + roll_starts[i]).ravel()
        best = np.maximum.reduceat(value, starts)
        p_win[i, j] = best.reshape(-1, rolls) @ ROLL_WEIGHTS
    log.info("two-sided bear-off database (%d checkers, %d pairs) built in %.1f s",
             max_checkers, (n - 1) ** 2, time.perf_counter() - started)
    return TwoSided(max_checkers, p_win)


# -- cache -----------------------------------------------------------------------------------


class CorruptCache(ValueError):
    """A cache file that cannot be trusted (says why)."""


def cache_dir() -> Path:
    """Where the databases are cached: ``$GAMMON_CACHE`` if set, else ``~/.cache/gammon``."""
    return Path(os.environ.get("GAMMON_CACHE") or Path.home() / ".cache" / "gammon")


def cache_path(kind: type, max_checkers: int) -> Path:
    """Default cache file of a database: ``bearoff1.npz`` (15 checkers) or ``bearoff2.npz``
    (6 per side); other sizes add theirs, e.g. ``bearoff1-4.npz``."""
    stem, default = ("bearoff1", MAX_CHECKERS) if kind is OneSided else ("bearoff2", TWO_SIDED_CHECKERS)
    return cache_dir() / (f"{stem}.npz" if max_checkers == default else f"{stem}-{max_checkers}.npz")


def _arrays(db) -> dict[str, np.ndarray]:
    return {f.name: np.asarray(getattr(db, f.name)) for f in fields(db)}


def _checksum(kind: type, arrays: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256(f"{kind.__name__} v{CACHE_VERSION}".encode())
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        digest.update(f"{name} {a.dtype.str} {a.shape}".encode())
        digest.update(a)  # the array's own buffer: a copy of 29 MB cost as much as the hash
    return digest.hexdigest()


def save(db, path: Path) -> None:
    """Write a database whole or not at all (engine/files.py), uncompressed: every command that meets a race
    reads both databases, and inflating them took 120 of the 160 ms that cost (36 MB on disk instead of 11)."""
    arrays = _arrays(db)
    atomic_write(path, lambda f: np.savez(f, version=CACHE_VERSION, checksum=_checksum(type(db), arrays), **arrays))


def load(kind: type, max_checkers: int, path: Path):
    """Read a cached database of ``kind`` (OneSided or TwoSided) for ``max_checkers``.

    Raises CorruptCache unless the file has the expected version, size, shapes and checksum.
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            stored = {name: data[name] for name in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise CorruptCache(f"unreadable: {exc}") from None
    expected = {"max_checkers": (), **kind.shapes(max_checkers)}
    if set(stored) != {"version", "checksum", *expected}:
        raise CorruptCache(f"holds {sorted(stored)}, not the arrays of a {kind.__name__} database")
    version = int(stored.pop("version"))
    if version != CACHE_VERSION:
        raise CorruptCache(f"written in cache format {version}, where this version reads {CACHE_VERSION}")
    checksum = str(stored.pop("checksum"))
    if int(stored["max_checkers"]) != max_checkers:
        raise CorruptCache(f"holds {int(stored['max_checkers'])} checkers, not {max_checkers}")
    for name, shape in expected.items():
        if stored[name].shape != shape:
            raise CorruptCache(f"{name} has shape {stored[name].shape}, not {shape}")
    if _checksum(kind, stored) != checksum:
        raise CorruptCache("checksum mismatch")
    return kind(max_checkers=int(stored.pop("max_checkers")), **stored)


def _cached(kind: type, build, max_checkers: int, path: Path | None):
    """Load a database from its cache file, or build it and cache it (a bad file is rebuilt, with a warning)."""
    path = Path(path) if path is not None else cache_path(kind, max_checkers)
    if path.exists():
        try:
            return load(kind, max_checkers, path)
        except CorruptCache as exc:
            warnings.warn(f"bear-off cache {path} is unusable ({exc}); rebuilding it", stacklevel=3)
    db = build(max_checkers)
    try:
        save(db, path)
    except OSError as exc:  # a read-only cache still leaves a working database
        warnings.warn(f"could not cache the bear-off database at {path}: {exc}", stacklevel=3)
    return db


def one_sided_database(max_checkers: int = MAX_CHECKERS, path: Path | None = None) -> OneSided:
    """The one-sided database from its cache file (default :func:`cache_path`), built on first use."""
    return _cached(OneSided, build_one_sided, max_checkers, path)


def two_sided_database(max_checkers: int = TWO_SIDED_CHECKERS, path: Path | None = None) -> TwoSided:
    """The two-sided database from its cache file (default :func:`cache_path`), built on first use."""
    return _cached(TwoSided, build_two_sided, max_checkers, path)


class Databases(NamedTuple):
    """The databases an evaluation uses; ``two`` may be None (one-sided estimates only)."""

    one: OneSided
    two: TwoSided | None = None


@functools.cache
def default_databases() -> Databases:
    """The 15-checker one-sided and 6-checker two-sided databases, loaded once per process."""
    return Databases(one_sided_database(), two_sided_database())


# -- evaluation ------------------------------------------------------------------------------


def _survival(dist: np.ndarray) -> np.ndarray:
    """``out[..., n] = P(count >= n)`` for distributions over 0..B-1 (the last axis)."""
    return np.cumsum(dist[..., ::-1], axis=-1)[..., ::-1]


def _beyond(survival: np.ndarray) -> np.ndarray:
    """``out[..., n] = P(count > n)`` from :func:`_survival`'s ``P(count >= n)``."""
    out = np.zeros_like(survival)
    out[..., :-1] = survival[..., 1:]
    return out


class RaceDistributions(NamedTuple):
    """One side's roll counts in a race, each ``(N, B)``: row ``[i, n]`` = P(exactly n rolls).

    ``rolls``: until every checker is off; ``first``: until the first checker is off;
    ``clear``: until none is left in the other side's home board (its own points 19..24).
    Each count is the one reached when every roll is played to minimise its own expectation,
    as in gnubg's one-sided database. B may differ between sides.
    """

    rolls: np.ndarray
    first: np.ndarray
    clear: np.ndarray


def database_distributions(one: OneSided, counts: np.ndarray) -> RaceDistributions:
    """The one-sided database's distributions of home-board positions ``(N, 6)`` (nothing to clear)."""
    index = position_index(counts)
    clear = np.zeros((len(index), MAX_ROLLS))
    clear[:, 0] = 1.0
    return RaceDistributions(one.rolls[index], one.first[index], clear)


def _padded(dist: np.ndarray, bins: int) -> np.ndarray:
    """``dist`` (N, b) widened to ``bins`` columns with zeros (np.pad costs a search more than the copy)."""
    if dist.shape[1] == bins:
        return dist
    out = np.zeros((len(dist), bins), dtype=dist.dtype)
    out[:, : dist.shape[1]] = dist
    return out


def race_probabilities(mine: RaceDistributions, theirs: RaceDistributions, my_none_off: np.ndarray,
                       their_none_off: np.ndarray, my_rows: np.ndarray | None = None,
                       their_rows: np.ndarray | None = None) -> np.ndarray:
    """gnubg's five probabilities ``(N, 5)`` of the player on roll in a race, from each side's roll counts.

    The two sides' counts are taken as independent (the one-sided approximation). I roll
    first, so I win when I need no more rolls than the opponent: ``P(win) = sum_n P_me(n) *
    P_opp(>= n)``. I win a gammon if I finish before the opponent's first checker is off
    (only while it has none off: ``their_none_off``), a backgammon if also before it clears
    my home board; losses mirror this with ``P_me_first(> n)``: the opponent's n-th roll
    comes after my n-th. Gammon and backgammon chances are capped by the wins (losses) and
    gammons they belong to, which independent estimates need not respect.

    ``my_rows`` and ``their_rows`` ((N,) indices, both or neither) pick each position's sides
    out of ``mine`` and ``theirs`` when these hold each distinct side once: a search's batch
    repeats sides, and each side's tails are then summed once.
    """
    one_set = mine is theirs
    bins = max(d.shape[1] for d in (*mine, *theirs))
    mine = RaceDistributions(*(_padded(d, bins) for d in mine))
    theirs = mine if one_set else RaceDistributions(*(_padded(d, bins) for d in theirs))
    if my_rows is None:
        my_rows, their_rows = np.arange(len(mine.rolls)), np.arange(len(theirs.rolls))
    # each side's tails summed once, (sides, 3, bins): P(rolls >= n), P(first >= n), P(clear >= n)
    their_tails = _survival(np.stack(theirs, axis=1))
    my_tails = their_tails if one_set else _survival(np.stack(mine, axis=1))
    # I win (a gammon, a backgammon) when I finish within as many rolls as it needs (to bear one off, to clear)
    won = np.einsum("nb,nkb->nk", mine.rolls[my_rows], their_tails[their_rows])
    # I lose (...) when it finishes in fewer rolls than I need (to bear one off, to clear): its n-th roll comes
    # after my n-th
    lost = np.einsum("nb,nkb->nk", theirs.rolls[their_rows], _beyond(my_tails[:, 1:])[my_rows])
    probs = np.zeros((len(my_rows), 5))
    probs[:, 0] = won[:, 0]
    probs[:, 1:3] = np.where(their_none_off[:, None], won[:, 1:], 0.0)
    probs[:, 3:5] = np.where(my_none_off[:, None], lost, 0.0)
    probs[:, 1] = np.minimum(probs[:, 1], probs[:, 0])
    probs[:, 2] = np.minimum(probs[:, 2], probs[:, 1])
    probs[:, 3] = np.minimum(probs[:, 3], np.maximum(1.0 - probs[:, 0], 0.0))
    probs[:, 4] = np.minimum(probs[:, 4], probs[:, 3])
    return probs


def bearing_off(boards: np.ndarray, geometry: Geometry = MIRRORED) -> np.ndarray:
    """(N,) bool: both sides have checkers left, every one of them in its own home board (none on the bar)."""
    mine, theirs = mover_counts(boards), opponent_counts(boards, geometry)
    return ((mine[:, POINTS:].sum(axis=1) == 0) & (theirs[:, POINTS:].sum(axis=1) == 0)
            & (mine.sum(axis=1) > 0) & (theirs.sum(axis=1) > 0))


def bearoff_probabilities(boards, checkers: int = MAX_CHECKERS, databases: Databases | None = None,
                          geometry: Geometry = MIRRORED):
    """Bear-off probabilities for the player on roll: ``(probs (N, 5), applies (N,) bool)``.

    A position applies when both sides have checkers left, every one in their own home
    board (none on the bar), and no more than the one-sided database holds; other rows of
    ``probs`` are 0. Columns are gnubg's P(win), P(win gammon), P(win bg), P(lose gammon),
    P(lose bg). ``checkers`` is the number per side in the game (for "borne off nothing");
    ``geometry`` says where the opponent's home board lies (in the same-direction games the
    two home boards are apart, so a bear-off there is a race all the same).

    The one-sided database's roll counts give every probability by
    :func:`race_probabilities` (each side playing to minimise its expected rolls, as gnubg
    does with a one-sided database alone). When both sides fit the two-sided database
    P(win) is exact instead. Backgammons are impossible: no loser's checker can be in the
    winner's home board or on the bar.
    """
    b = np.asarray(boards)
    b = b.reshape(-1, b.shape[-1])  # 26 cells, or 28: checkers still to enter count as on the bar (no bear-off)
    probs, home = np.zeros((len(b), 5)), bearing_off(b, geometry)
    if not home.any():  # nothing for the databases: they need not even be loaded
        return probs, home
    one, two = databases if databases is not None else default_databases()
    mine, theirs = mover_counts(b), opponent_counts(b, geometry)
    my_left, their_left = mine.sum(axis=1), theirs.sum(axis=1)
    applies = home & (np.maximum(my_left, their_left) <= one.max_checkers)
    rows = np.flatnonzero(applies)
    if len(rows) == 0:
        return probs, applies
    me, opp = mine[rows, :POINTS], theirs[rows, :POINTS]
    probs[rows] = race_probabilities(database_distributions(one, me), database_distributions(one, opp),
                                     my_left[rows] == checkers, their_left[rows] == checkers)
    if two is not None:
        exact = np.maximum(my_left[rows], their_left[rows]) <= two.max_checkers
        probs[rows[exact], 0] = two.p_win[position_index(me[exact]), position_index(opp[exact])]
    return probs, applies


class WithBearoff:
    """An evaluator that answers bear-off positions from the databases and the rest from ``evaluator``.

    Same interface as the wrapped evaluator (``name``, ``checkers``, ``probabilities``,
    ``score_afterstates``); each batch is split by :func:`bearoff_probabilities`'s mask
    and the wrapped evaluator sees only the positions the databases do not cover.
    """

    def __init__(self, evaluator: ProbabilityEvaluator, databases: Databases | None = None):
        self.evaluator = evaluator
        self.name = f"{evaluator.name}+bearoff"
        self.variant = evaluator.variant
        self._databases = databases

    @property
    def databases(self) -> Databases:
        """The databases, loaded (or built) when a bear-off first asks for them: a command that meets
        none never pays for reading them."""
        if self._databases is None:
            self._databases = default_databases()
        return self._databases

    @property
    def screen(self):
        """The wrapped evaluator's screen (a pruning net, engine/search/evaluator.py), or None: it judges no
        bear-off, so the databases change nothing in it."""
        return getattr(self.evaluator, "screen", None)

    def searched(self, plies: int):
        """The wrapped evaluator's own search ``plies`` deeper (engine/search/evaluator.py), bear-offs still
        answered exactly here; None where it has none."""
        own_search = getattr(self.evaluator, "searched", None)
        deeper = own_search(plies) if own_search is not None else None
        return None if deeper is None else WithBearoff(deeper, self._databases)

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        boards = np.asarray(boards)
        # the private field: bearoff_probabilities loads the databases only when a row needs them
        probs, applies = bearoff_probabilities(boards, self.variant.checkers, self._databases, self.variant.geometry)
        if not applies.any():
            return self.evaluator.probabilities(boards)
        if not applies.all():
            probs[~applies] = self.evaluator.probabilities(boards[~applies])
        return probs

    def score_afterstates(self, boards: np.ndarray) -> np.ndarray:
        return afterstate_equity(self, boards)

    def settled(self, boards: np.ndarray) -> np.ndarray:
        """(N,) bool: the positions the databases answer (a rollout may stop there, see engine.play.rollout)."""
        return bearoff_probabilities(boards, self.variant.checkers, self._databases, self.variant.geometry)[1]
