"""Batched games: N games advance together, one move-generator call per side per ply.

A *policy* is any callable ``policy(afterstates) -> choice`` that receives the
:class:`~engine.movegen.Afterstates` of every game it must move in, and returns for
each game the flat index (into ``afterstates.boards``) of the afterstate it plays.
Evaluators from ``models/`` plug in through :func:`greedy_policy`; the engine itself
never imports them.

Scoring (docs/rules.md): the game ends the moment a side bears off its last checker; the
loser pays 1 (single), 2 (gammon: nothing borne off) or 3 (backgammon: nothing borne
off and a checker on the bar or in the winner's home board).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .board import checkers_off, flip, mover_counts, starting_board, validate, variant_checkers
from .errors import GammonError
from .movegen import Afterstates, generate
from .notation import format_move

Policy = Callable[[Afterstates], np.ndarray]


def opening_rolls(rng: np.random.Generator, n: int) -> np.ndarray:
    """(n, 2) opening rolls: one die per player (player 0 first), re-rolled while equal."""
    rolls = rng.integers(1, 7, size=(n, 2))
    ties = rolls[:, 0] == rolls[:, 1]
    while ties.any():
        rolls[ties] = rng.integers(1, 7, size=(int(ties.sum()), 2))
        ties = rolls[:, 0] == rolls[:, 1]
    return rolls


def result_points(boards: np.ndarray, checkers: int) -> np.ndarray:
    """Points won by the mover of each afterstate: 0 if it has checkers left, else 1, 2 or 3."""
    b = np.asarray(boards)
    won = mover_counts(b).sum(-1) == 0
    loser_off = checkers_off(b, checkers)[..., 1]
    loser_in_danger = (b[..., 0] > 0) | np.any(b[..., 1:7] < 0, axis=-1)  # bar, or winner's home board
    points = np.where(loser_off > 0, 1, np.where(loser_in_danger, 3, 2))
    return np.where(won, points, 0)


def random_policy(rng: np.random.Generator) -> Policy:
    """A policy that plays a uniformly random legal afterstate."""

    def choose(afterstates: Afterstates) -> np.ndarray:
        counts = afterstates.counts()
        return afterstates.offsets[:-1] + (rng.random(len(counts)) * counts).astype(np.int64)

    return choose


def greedy_policy(evaluate: Callable[[np.ndarray], np.ndarray]) -> Policy:
    """A 0-ply policy: play the afterstate whose value for the mover is highest.

    ``evaluate(boards)`` scores afterstates seen from the side that just moved (higher is
    better for it), batched: (M, 26) in, (M,) out.
    """

    def choose(afterstates: Afterstates) -> np.ndarray:
        values = np.asarray(evaluate(afterstates.boards), dtype=np.float64)
        return best_in_groups(values, afterstates.offsets)

    return choose


def best_in_groups(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Flat index of the largest value in each group ``values[offsets[i]:offsets[i+1]]`` (first on ties)."""
    group = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    order = np.lexsort((-values, group))  # by group, then best first
    return order[offsets[:-1]]


@dataclass
class GameRecord:
    """One game turn by turn: who moved, the dice, the position before and the move played."""

    variant: str
    opening: tuple[int, int]  # the first roll (the opening roll from the starting position)
    turns: list[tuple[int, tuple[int, int], np.ndarray, str]] = field(default_factory=list)


@dataclass
class GameResults:
    """Outcome of a batch of games, from player 0's side."""

    points: np.ndarray  # (n,) +1/+2/+3 when player 0 won, -1/-2/-3 when player 1 won, 0 unfinished
    turns: np.ndarray  # (n,) plies played
    records: list[GameRecord] | None = None
    boards: np.ndarray | None = None  # (n, 26) last positions, seen from the player on roll
    on_roll: np.ndarray | None = None  # (n,) who is on roll in ``boards``

    @property
    def winner(self) -> np.ndarray:
        return (self.points < 0).astype(np.int8)


def play_games(
    policies: tuple[Policy, Policy],
    n_games: int,
    seed: int | None = 0,
    variant: str = "standard",
    record: bool = False,
    max_turns: int = 10_000,
    start: np.ndarray | None = None,
    first_dice: np.ndarray | None = None,
    stop_after: int | None = None,
) -> GameResults:
    """Play ``n_games`` games of ``variant`` between ``policies[0]`` and ``policies[1]``, all at once.

    The dice come from ``numpy.random.default_rng(seed)`` in a fixed order, so the same
    seed and deterministic policies give the same games. From the starting position the
    opening roll decides who starts (docs/rules.md): the higher die moves first with both dice.

    ``start`` plays every game from that board instead, player 0 on roll, with
    ``first_dice`` (n_games, 2) as its first roll when given. ``stop_after`` ends the
    games after that many turns: unfinished games score 0 and their positions are in
    ``GameResults.boards`` (seen from ``GameResults.on_roll``).
    """
    rng = np.random.default_rng(seed)
    checkers = variant_checkers(variant)
    if start is None:
        boards = np.repeat(starting_board(variant)[None], n_games, axis=0)
        dice = opening_rolls(rng, n_games)
        player = (dice[:, 1] > dice[:, 0]).astype(np.int8)  # player 0 holds die 0
    else:
        boards = np.repeat(validate(start, checkers)[None], n_games, axis=0)
        player = np.zeros(n_games, dtype=np.int8)
        dice = rng.integers(1, 7, size=(n_games, 2)) if first_dice is None else np.asarray(first_dice)
    points = np.zeros(n_games, dtype=np.int64)
    turns = np.zeros(n_games, dtype=np.int64)
    active = np.ones(n_games, dtype=bool)
    records = [GameRecord(variant, (int(a), int(b))) for a, b in dice] if record else None

    for _ in range(stop_after if stop_after is not None else max_turns):
        if not active.any():
            break
        for side in (0, 1):
            games = np.flatnonzero(active & (player == side))
            if len(games) == 0:
                continue
            afterstates = generate(boards[games], dice[games], check=False)
            choice = np.asarray(policies[side](afterstates), dtype=np.int64)
            _check_choice(choice, afterstates)
            after = afterstates.boards[choice]
            if records is not None:
                for g, k in zip(games, choice):
                    notation = format_move(boards[g], afterstates.steps[k])
                    records[g].turns.append((side, tuple(int(x) for x in dice[g]), boards[g].copy(), notation))
            won = result_points(after, checkers)
            finished = won > 0
            points[games[finished]] = np.where(side == 0, won[finished], -won[finished])
            active[games[finished]] = False
            boards[games] = flip(after)
            turns[games] += 1
        player = np.where(active, 1 - player, player).astype(np.int8)
        dice = rng.integers(1, 7, size=(n_games, 2))
    else:
        if stop_after is None and active.any():
            raise RuntimeError(f"{int(active.sum())} games still running after {max_turns} turns")
    return GameResults(points=points, turns=turns, records=records, boards=boards, on_roll=player)


def _check_choice(choice: np.ndarray, afterstates: Afterstates) -> None:
    n = len(afterstates.offsets) - 1
    if choice.shape != (n,):
        raise ValueError(f"a policy must return one afterstate index per game ({n}); got shape {choice.shape}")
    inside = (choice >= afterstates.offsets[:-1]) & (choice < afterstates.offsets[1:])
    if not inside.all():
        g = int(np.argmin(inside))
        raise ValueError(f"policy chose afterstate {choice[g]} for game {g}, outside its range "
                         f"{afterstates.offsets[g]}..{afterstates.offsets[g + 1] - 1}")


@dataclass
class DuelStats:
    """Cubeless money results of player A against player B, from A's side."""

    games: int
    ppg: float  # points per game
    ci95: tuple[float, float]  # 95% confidence interval of ppg
    win_rate: float
    gammon_rate: float  # A's wins that are gammons or backgammons, per game
    backgammon_rate: float
    lose_gammon_rate: float
    lose_backgammon_rate: float

    def as_dict(self) -> dict:
        return {**self.__dict__, "ci95": list(self.ci95)}


def duplicate_duel(policy_a: Policy, policy_b: Policy, n_games: int, seed: int = 0,
                   variant: str = "standard") -> DuelStats:
    """Play ``n_games`` (even) with duplicate dice: each dice sequence twice, sides swapped.

    The confidence interval treats each pair of games as one sample (their mean), which
    is what makes duplicate dice cut the variance: luck largely cancels inside a pair.
    """
    if n_games < 4 or n_games % 2:
        raise GammonError(f"duplicate games come in pairs: n_games must be even and >= 4; got {n_games}")
    half = n_games // 2
    a_first = play_games((policy_a, policy_b), half, seed=seed, variant=variant).points
    a_second = -play_games((policy_b, policy_a), half, seed=seed, variant=variant).points
    points = np.concatenate([a_first, a_second]).astype(np.float64)
    pairs = (a_first + a_second) / 2.0
    ppg = float(pairs.mean())
    half_width = 1.96 * float(pairs.std(ddof=1)) / np.sqrt(half)
    return DuelStats(
        games=n_games,
        ppg=ppg,
        ci95=(float(ppg - half_width), float(ppg + half_width)),
        win_rate=float((points > 0).mean()),
        gammon_rate=float((points >= 2).mean()),
        backgammon_rate=float((points >= 3).mean()),
        lose_gammon_rate=float((points <= -2).mean()),
        lose_backgammon_rate=float((points <= -3).mean()),
    )
