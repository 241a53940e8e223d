"""Deterministic test positions for cross-checks of the move generator (and other tests).

Every public function takes a size and a ``seed`` and returns ``(boards, dice)``:
``boards`` int8 ``(N, 26)`` in the layout of :mod:`engine.rules.board` (mover to play) and
``dice`` int8 ``(N, 2)``. The same arguments always give the same arrays (seeded
``numpy.random.default_rng``; nothing depends on global state).

Families:

* :func:`random_play` -- every turn of games played with uniformly random legal moves
  (standard, nackgammon, hypergammon);
* built corner cases (:data:`CORNER_FAMILIES`): bar entry with blocked points, closed
  boards, primes, bear-offs with high dice, last checkers that must hit on the way off,
  single-die plays (larger-die rule), doubles that play 1..3 times, fewer checkers per
  side, random legal boards.

Only numpy and ``engine`` are used (no gnubg), so any test may import this module.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.rules.board import (
    BOARD_SIZE,
    DTYPE,
    MAX_CHECKERS,
    MOVER_BAR,
    OPP_BAR,
    checkers_off,
    flip,
    starting_board,
    variant_checkers,
)
from gammon.engine.rules.movegen import generate

VARIANTS = ("standard", "nackgammon", "hypergammon")
ENTRY_POINTS = tuple(range(19, 25))  # where the mover enters: its point 25 - die
HOME = tuple(range(1, 7))


def random_dice(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` rolls, uniform over the 36 ordered rolls."""
    return rng.integers(1, 7, size=(n, 2)).astype(DTYPE)


def _pack(boards: list, dice: list) -> tuple[np.ndarray, np.ndarray]:
    b = np.asarray(boards, dtype=np.int64).reshape(-1, BOARD_SIZE)
    d = np.asarray(dice, dtype=np.int64).reshape(-1, 2)
    return b.astype(DTYPE), d.astype(DTYPE)


# --------------------------------------------------------------------------- random play


def random_play(variant: str = "standard", games: int = 32, seed: int = 0, max_turns: int = 5000):
    """(board, dice) at every turn of ``games`` random-play games, played in parallel.

    Each turn picks a uniformly random afterstate of :func:`engine.rules.movegen.generate`; the
    board is flipped after every move. A game ends when the side that just moved has
    borne off all its checkers. The first roll of each game is never a double.
    """
    rng = np.random.default_rng([seed, VARIANTS.index(variant), games])
    checkers = variant_checkers(variant)
    boards = np.repeat(starting_board(variant)[None], games, axis=0)
    active = np.arange(games)
    out_boards, out_dice = [], []
    for turn in range(max_turns):
        if len(active) == 0:
            break
        dice = random_dice(rng, len(active))
        if turn == 0:  # opening roll: the two single dice differ
            while np.any(same := dice[:, 0] == dice[:, 1]):
                dice[same] = random_dice(rng, int(same.sum()))
        current = boards[active]
        out_boards.append(current)
        out_dice.append(dice)
        after = generate(current, dice, check=False)
        pick = after.offsets[:-1] + (rng.random(len(active)) * after.counts()).astype(np.int64)
        moved = after.boards[pick]
        done = checkers_off(moved, checkers)[:, 0] == checkers
        boards[active] = flip(moved)
        active = active[~done]
    return np.concatenate(out_boards).astype(DTYPE), np.concatenate(out_dice).astype(DTYPE)


# --------------------------------------------------------------------------- board building


class _Builder:
    """One board under construction, with the checker budgets of both sides."""

    def __init__(self, rng: np.random.Generator, mover: int = MAX_CHECKERS, opp: int = MAX_CHECKERS):
        self.rng = rng
        self.b = np.zeros(BOARD_SIZE, dtype=np.int64)
        self.mover_left = mover  # checkers still to place (the rest end up borne off)
        self.opp_left = opp

    def mover(self, point: int, n: int = 1) -> None:
        """Put ``n`` mover checkers on ``point`` (1..24, or 25 = mover bar)."""
        assert point == MOVER_BAR or self.b[point] >= 0, (point, self.b)
        n = min(n, self.mover_left)
        self.b[point] += n
        self.mover_left -= n

    def opp(self, point: int, n: int = 1) -> None:
        """Put ``n`` opponent checkers on mover point ``point`` (1..24, or 0 = opponent bar)."""
        assert point == OPP_BAR or self.b[point] <= 0, (point, self.b)
        n = min(n, self.opp_left)
        if point == OPP_BAR:
            self.b[point] += n
        else:
            self.b[point] -= n
        self.opp_left -= n

    def block(self, point: int, n: int = 2) -> bool:
        """Opponent point of ``n`` (>= 2) checkers on ``point`` if the budget allows."""
        if self.opp_left < 2 or self.b[point] > 0:
            return False
        self.opp(point, max(2, n) if self.opp_left >= max(2, n) else 2)
        return True

    def empty_points(self, points) -> list[int]:
        return [p for p in points if self.b[p] == 0]

    def scatter_mover(self, n: int, points, max_points: int = 6) -> None:
        """Spread ``n`` mover checkers over some of ``points`` (empty or own ones)."""
        self._scatter(n, [p for p in points if self.b[p] >= 0], max_points, self.mover)

    def scatter_opp(self, n: int, points, max_points: int = 6) -> None:
        """Spread ``n`` opponent checkers over some of ``points`` (empty or own ones)."""
        self._scatter(n, [p for p in points if self.b[p] <= 0], max_points, self.opp)

    def _scatter(self, n, candidates, max_points, put) -> None:
        if n <= 0 or not candidates:
            return
        k = int(self.rng.integers(1, min(max_points, len(candidates), n) + 1))
        chosen = self.rng.choice(candidates, size=k, replace=False)
        # at least one on each chosen point, the rest multinomially
        counts = 1 + self.rng.multinomial(n - k, np.full(k, 1.0 / k))
        for p, c in zip(chosen, counts):
            put(int(p), int(c))

    def board(self) -> np.ndarray:
        """The board; a side left without any checker gets one on its bar (no game over)."""
        if not np.any(self.b[1:25] < 0) and self.b[OPP_BAR] == 0:
            self.b[OPP_BAR] = 1
        if not np.any(self.b[1:26] > 0):
            self.b[MOVER_BAR] = 1
        return self.b.copy()


def _rng(name: str, seed: int, n: int) -> np.random.Generator:
    return np.random.default_rng([seed, n, sum(map(ord, name)) * 7919 + len(name)])


def _roll_with(rng, want) -> tuple[int, int]:
    """A uniform roll satisfying ``want(a, b)`` (rejection sampling)."""
    while True:
        a, b = (int(x) for x in rng.integers(1, 7, size=2))
        if want(a, b):
            return a, b


# --------------------------------------------------------------------------- corner families


def bar_entry(n: int = 900, seed: int = 0):
    """Mover on the bar (mostly 2+ checkers) against a partly blocked home board.

    Some entry points blocked, some with blots, some held by the mover; a third of the
    rolls are doubles (enter 1..4 checkers, rest of the play often blocked), a third are
    built so that exactly one die enters, the rest uniform.
    """
    rng = _rng("bar_entry", seed, n)
    boards, dice = [], []
    for i in range(n):
        g = _Builder(rng)
        on_bar = int(rng.choice([1, 2, 2, 3, 3, 4, 5]))
        g.mover(MOVER_BAR, on_bar)
        entry = list(ENTRY_POINTS)
        rng.shuffle(entry)
        n_blocked = int(rng.integers(0, 6))  # 0..5 blocked here; all six is closed_board
        for p in entry[:n_blocked]:
            g.block(p, int(rng.integers(2, 4)))
        for p in entry[n_blocked:]:
            r = rng.random()
            if r < 0.25:
                g.opp(p, 1)  # blot to hit on entry
            elif r < 0.4:
                g.mover(p, int(rng.integers(1, 3)))
        # more blocks in front, so entered checkers may be stuck
        for p in rng.choice(np.arange(7, 19), size=int(rng.integers(0, 4)), replace=False):
            if g.b[p] == 0:
                g.block(int(p))
        g.scatter_mover(g.mover_left - int(rng.integers(0, 3)), range(1, 25))
        g.scatter_opp(g.opp_left - int(rng.integers(0, 3)), range(1, 25))
        g.opp(OPP_BAR, int(rng.random() < 0.15))
        b = g.board()
        kind = i % 3
        if kind == 0:
            open_dice = [d for d in range(1, 7) if b[25 - d] >= -1]
            d = int(rng.choice(open_dice)) if open_dice and rng.random() < 0.85 else int(rng.integers(1, 7))
            roll = (d, d)
        elif kind == 1:
            open_dice = [d for d in range(1, 7) if b[25 - d] >= -1]
            shut = [d for d in range(1, 7) if b[25 - d] < -1]
            if open_dice and shut:
                roll = (int(rng.choice(open_dice)), int(rng.choice(shut)))
            else:
                roll = _roll_with(rng, lambda a, c: True)
        else:
            roll = _roll_with(rng, lambda a, c: True)
        boards.append(b)
        dice.append(roll)
    return _pack(boards, dice)


def closed_board(n: int = 300, seed: int = 0):
    """All six entry points held by the opponent and the mover on the bar: no play."""
    rng = _rng("closed_board", seed, n)
    boards, dice = [], []
    for _ in range(n):
        g = _Builder(rng)
        for p in ENTRY_POINTS:
            g.block(p, 2)
        g.scatter_opp(g.opp_left, range(1, 19), max_points=3)
        g.mover(MOVER_BAR, int(rng.integers(1, 5)))
        g.scatter_mover(g.mover_left - int(rng.integers(0, 4)), range(1, 19))
        g.opp(OPP_BAR, int(rng.random() < 0.1))
        boards.append(g.board())
        dice.append(_roll_with(rng, lambda a, c: True))
    return _pack(boards, dice)


def primes(n: int = 700, seed: int = 0):
    """A 4- to 6-point opponent prime with mover back checkers (or bar checkers) behind it."""
    rng = _rng("primes", seed, n)
    boards, dice = [], []
    for _ in range(n):
        g = _Builder(rng)
        length = int(rng.integers(4, 7))
        start = int(rng.integers(2, 25 - length))  # prime on start .. start+length-1, something behind
        prime = range(start, start + length)
        for p in prime:
            g.block(p, int(rng.choice([2, 2, 2, 3])))
        behind = list(range(start + length, min(24, start + length + 5) + 1))
        back = int(rng.integers(1, 5))
        g.scatter_mover(back, behind, max_points=3)
        if rng.random() < 0.2:
            g.mover(MOVER_BAR, 1)
        g.scatter_mover(g.mover_left - int(rng.integers(0, 3)), range(1, start), max_points=5)
        g.scatter_mover(g.mover_left, [p for p in range(1, 25) if p not in prime], max_points=3)
        g.scatter_opp(g.opp_left, [p for p in range(1, 25) if p not in prime and g.b[p] <= 0], max_points=3)
        boards.append(g.board())
        dice.append(_roll_with(rng, lambda a, c: True))
    return _pack(boards, dice)


def bearoff_high_dice(n: int = 900, seed: int = 0):
    """Bear-offs where at least one die is higher than the highest mover checker.

    Four equal sub-families (by index mod 4): no opponent checker in the mover's home
    board; opponent blot(s) there; opponent checkers on the bar; both.
    """
    rng = _rng("bearoff_high_dice", seed, n)
    boards, dice = [], []
    for i in range(n):
        g = _Builder(rng, mover=int(rng.integers(1, 16)))
        highest = int(rng.integers(1, 6))
        g.mover(highest, 1)
        g.scatter_mover(g.mover_left, range(1, highest + 1), max_points=highest)
        kind = i % 4
        if kind in (1, 3):  # blots on free home points
            free = g.empty_points(HOME)
            if free:
                for p in rng.choice(free, size=min(len(free), int(rng.integers(1, 3))), replace=False):
                    g.opp(int(p), 1)
        if kind in (2, 3):
            g.opp(OPP_BAR, int(rng.integers(1, 4)))
        g.scatter_opp(g.opp_left - int(rng.integers(0, 5)), range(7, 25), max_points=5)
        boards.append(g.board())
        dice.append(_roll_with(rng, lambda a, c, highest=highest: max(a, c) > highest))
    return _pack(boards, dice)


def last_checkers_hit(n: int = 600, seed: int = 0):
    """One or two mover checkers left, opponent blots below them in the home board.

    Most rolls are built so that one die hits a blot exactly and the other would bear
    that checker off from the blot's point (e.g. checker on 3, blot on 2, roll 6-1: only
    3/2*/off uses both dice).
    """
    rng = _rng("last_checkers_hit", seed, n)
    boards, dice = [], []
    for i in range(n):
        g = _Builder(rng, mover=int(rng.integers(1, 3)))
        pts = sorted(int(p) for p in rng.choice(np.arange(2, 7), size=g.mover_left, replace=False))
        for p in pts:
            g.mover(p, 1)
        top = pts[-1]
        lower = g.empty_points(range(1, top))
        n_blots = min(len(lower), int(rng.integers(1, 3)))
        blots = sorted(int(p) for p in rng.choice(lower, size=n_blots, replace=False))
        for p in blots:
            g.opp(p, 1)
        for p in g.empty_points(range(1, 7)):
            if rng.random() < 0.2:
                g.block(p)
        g.opp(OPP_BAR, int(rng.random() < 0.2))
        g.scatter_opp(g.opp_left - int(rng.integers(0, 6)), range(7, 25), max_points=5)
        if i % 5 != 4:
            src = int(rng.choice(pts))
            targets = [q for q in blots if q < src]
            if targets:
                q = int(rng.choice(targets))
                hit = src - q
                other = int(rng.integers(q, 7)) if rng.random() < 0.8 else int(rng.integers(1, 7))
                roll = (hit, other) if rng.random() < 0.5 else (other, hit)
            else:
                roll = _roll_with(rng, lambda a, c: True)
        else:
            roll = _roll_with(rng, lambda a, c: True)
        boards.append(g.board())
        dice.append(roll)
    # the textbook case, first: checker on 3, opponent blot on 2, roll 6-1
    textbook = np.zeros(BOARD_SIZE, dtype=np.int64)
    textbook[3], textbook[2], textbook[13] = 1, -1, -14
    boards[0], dice[0] = textbook, (6, 1)
    return _pack(boards, dice)


def _stuck_checkers(g: _Builder, dice: tuple[int, ...], avoid: set[int], count: int) -> None:
    """Mover stacks outside the home board that cannot move any of ``dice`` (landings blocked)."""
    rng = g.rng
    for r in rng.permutation(np.arange(8, 25)):
        if count <= 0 or g.mover_left <= 0:
            break
        r = int(r)
        if r in avoid or g.b[r] < 0:
            continue
        lands = [r - d for d in set(dice)]
        if any(q < 1 or q in avoid or g.b[q] > 0 for q in lands):
            continue
        needed = sum(2 for q in lands if g.b[q] > -2)
        if needed > g.opp_left:
            continue
        for q in lands:
            if g.b[q] > -2:
                g.opp(q, 2 + int(g.b[q]))  # up to two opponent checkers
        g.mover(r, int(rng.integers(1, 4)))
        avoid |= {r, *lands}
        count -= 1


def one_die_only(n: int = 700, seed: int = 0):
    """Two different dice of which only one can be played (the larger-die rule decides).

    One free checker on ``p`` (or the bar); ``p-a`` and/or ``p-b`` open and ``p-a-b``
    blocked, so no play uses both dice; when only one of the dice can move it, often a
    second checker that can move that same die only; the other mover checkers cannot
    move at all.
    """
    rng = _rng("one_die_only", seed, n)
    boards, dice = [], []
    for i in range(n):
        a, b = _roll_with(rng, lambda x, y: x != y)
        hi, lo = max(a, b), min(a, b)
        g = _Builder(rng, mover=int(rng.integers(1, 16)))
        from_bar = rng.random() < 0.2
        p = MOVER_BAR if from_bar else int(rng.integers(hi + lo + 1, 25))
        if p != MOVER_BAR and p < 7:
            p = 7
        pattern = ("both_single", "both_single", "only_high", "only_low")[i % 4]
        land_hi, land_lo, land_both = p - hi, p - lo, p - hi - lo
        g.mover(p, 1)
        g.block(land_both)
        if pattern == "only_high":
            g.block(land_lo)
        elif pattern == "only_low":
            g.block(land_hi)
        for q in (land_hi, land_lo):
            if g.b[q] == 0 and rng.random() < 0.3:
                g.opp(q, 1)
        avoid = {p, land_hi, land_lo, land_both}
        if pattern != "both_single" and not from_bar and rng.random() < 0.6:
            # a second checker that can play the same die only: two or more choices
            step, other = (hi, lo) if pattern == "only_high" else (lo, hi)
            for p2 in rng.permutation(np.arange(max(8, hi + lo + 1), 25)):
                p2 = int(p2)
                opened, shut = p2 - step, (p2 - other, p2 - hi - lo)
                if g.b[p2] < 0 or g.b[opened] < -1 or any(g.b[q] > 0 or q in avoid for q in shut):
                    continue
                if sum(2 for q in shut if g.b[q] > -2) > g.opp_left:
                    continue
                for q in shut:
                    if g.b[q] > -2:
                        g.opp(q, 2 + int(g.b[q]))
                g.mover(p2, 1)
                avoid |= {p2, opened, *shut}
                break
        _stuck_checkers(g, (hi, lo), avoid, int(rng.integers(0, 3)))
        # the rest of the opponent: on its blocks, or borne off
        blocks = [q for q in range(1, 25) if g.b[q] <= -2]
        for _ in range(g.opp_left):
            if rng.random() < 0.5 and blocks:
                g.opp(int(rng.choice(blocks)), 1)
        if rng.random() < 0.3 and not from_bar:
            g.opp(OPP_BAR, 1)
        boards.append(g.board())
        dice.append((a, b))
    return _pack(boards, dice)


def doubles_partial(n: int = 800, seed: int = 0):
    """Doubles that can be played only 1, 2 or 3 times (0 and 4 now and then).

    One free checker (on a point or the bar) whose path is open for ``t`` steps and then
    blocked; every other mover checker is stuck. A third of the family is bar entry: 1..3
    checkers on the bar all enter, then the point ``d`` beyond the entry is blocked.
    """
    rng = _rng("doubles_partial", seed, n)
    boards, dice = [], []
    for i in range(n):
        d = int(rng.integers(1, 7))
        g = _Builder(rng, mover=int(rng.integers(1, 16)))
        if i % 3 == 2:
            # k checkers on the bar enter on 25-d, then the entered ones are blocked
            k = int(rng.integers(1, 4))
            g.mover(MOVER_BAR, k)
            entry = 25 - d
            if rng.random() < 0.3:
                g.opp(entry, 1)
            g.block(entry - d)
            avoid = {entry, entry - d}
        else:
            t = int(rng.choice([1, 2, 3, 1, 2, 3, 0, 4]))
            lo = (t + 1) * d + 1 if t < 4 else 4 * d + 1
            lo = max(lo, 8)
            if lo > 25:
                t, lo = 1, max(2 * d + 1, 8)
            p = int(rng.integers(lo, 26))
            if p == MOVER_BAR:
                g.mover(MOVER_BAR, 1)
            else:
                g.mover(p, 1)
            path = [p - j * d for j in range(1, t + 1)]
            avoid = {p, *path}
            if t < 4:
                g.block(p - (t + 1) * d)
                avoid.add(p - (t + 1) * d)
            for q in path:
                if g.b[q] == 0 and rng.random() < 0.2:
                    g.opp(q, 1)
        _stuck_checkers(g, (d,), avoid, int(rng.integers(0, 3)))
        blocks = [q for q in range(1, 25) if g.b[q] <= -2]
        for _ in range(g.opp_left):
            if rng.random() < 0.5 and blocks:
                g.opp(int(rng.choice(blocks)), 1)
        boards.append(g.board())
        dice.append((d, d))
    return _pack(boards, dice)


def _random_board(rng: np.random.Generator, mover: int, opp: int) -> np.ndarray:
    """``mover`` and ``opp`` checkers placed at random: no shared point, bars included."""
    g = _Builder(rng, mover=mover, opp=opp)
    if rng.random() < 0.15:
        g.mover(MOVER_BAR, int(rng.integers(1, 4)))
    if rng.random() < 0.15:
        g.opp(OPP_BAR, int(rng.integers(1, 4)))
    points = rng.permutation(np.arange(1, 25))
    k_m = int(rng.integers(1, 13))
    k_o = int(rng.integers(1, 13))
    g.scatter_mover(g.mover_left, points[:k_m], max_points=k_m)
    g.scatter_opp(g.opp_left, points[k_m : k_m + k_o], max_points=k_o)
    # leftovers (when a side already filled its points) go on own points
    g.scatter_mover(g.mover_left, [p for p in range(1, 25) if g.b[p] > 0])
    g.scatter_opp(g.opp_left, [p for p in range(1, 25) if g.b[p] < 0])
    if g.mover_left:
        g.mover(MOVER_BAR, g.mover_left)
    if g.opp_left:
        g.opp(OPP_BAR, g.opp_left)
    return g.board()


def few_checkers(n: int = 900, seed: int = 0):
    """Random legal boards with 1..15 checkers per side (each count drawn uniformly)."""
    rng = _rng("few_checkers", seed, n)
    boards = []
    for _ in range(n):
        b = _random_board(rng, int(rng.integers(1, 16)), int(rng.integers(1, 16)))
        if rng.random() < 0.3:  # often a race or bear-off: mover checkers into the home board
            movers = np.flatnonzero(b[1:25] > 0) + 1
            count = int(b[movers].sum() + b[MOVER_BAR])
            b[1:26] = np.where(b[1:26] > 0, 0, b[1:26])
            home_free = [p for p in HOME if b[p] >= 0]
            if home_free:
                for p in rng.choice(home_free, size=count):
                    b[p] += 1
            else:
                b[MOVER_BAR] += count
        boards.append(b)
    return _pack(boards, random_dice(rng, n))


def random_legal(n: int = 1600, seed: int = 0):
    """Random legal boards: checkers placed at random, no shared point, <= 15 per side."""
    rng = _rng("random_legal", seed, n)
    boards = []
    for _ in range(n):
        mover = MAX_CHECKERS if rng.random() < 0.7 else int(rng.integers(1, 16))
        opp = MAX_CHECKERS if rng.random() < 0.7 else int(rng.integers(1, 16))
        boards.append(_random_board(rng, mover, opp))
    return _pack(boards, random_dice(rng, n))


CORNER_FAMILIES = {
    "bar_entry": bar_entry,
    "closed_board": closed_board,
    "primes": primes,
    "bearoff_high_dice": bearoff_high_dice,
    "last_checkers_hit": last_checkers_hit,
    "one_die_only": one_die_only,
    "doubles_partial": doubles_partial,
    "few_checkers": few_checkers,
    "random_legal": random_legal,
}

# Games per variant for :func:`all_families` (about 6,100 / 5,300 / 3,600 positions).
RANDOM_PLAY_GAMES = {"standard": 64, "nackgammon": 40, "hypergammon": 160}


def all_families(seed: int = 0, scale: float = 1.0) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every family at its default size times ``scale``: {name: (boards, dice)}.

    Random-play families are named ``play_<variant>``.
    """
    out = {}
    for variant, games in RANDOM_PLAY_GAMES.items():
        out[f"play_{variant}"] = random_play(variant, games=max(1, round(games * scale)), seed=seed)
    for name, build in CORNER_FAMILIES.items():
        default = build.__defaults__[0]
        out[name] = build(max(1, round(default * scale)), seed=seed)
    return out
