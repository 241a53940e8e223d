"""Games with the doubling cube, batched: money games and matches to N points (docs/rules.md).

Many game *slots* advance together, one move-generator call per side per ply. Before
rolling, a player with access to the cube (centered, or owned by him; never in the
Crawford game) may double; the opponent takes (the cube doubles and he owns it), passes
(he pays the value before the offer and the game ends) or, with beavers, beavers
(redoubles at once and keeps the cube; the doubler then takes or passes). Redoubles
have no limit. In a match, a slot starts a new game until someone reaches the length;
the first time a player gets to one point short of it, the next game is the Crawford
game, without the cube.

Money options: Jacoby (gammons count single while the cube was never turned; automatic
doubles do not turn it), beavers, automatic doubles (equal opening dice double the
centered cube, up to a limit, and are rolled again).

A player here has a move ``policy`` (see :mod:`engine.game`) and two cube methods,
``doubles(boards, cubes) -> bool`` for the player on roll and
``answers(boards, cubes) -> 0 pass / 1 take / 2 beaver`` for the player doubled, where
``boards`` are always seen from the player on roll (the doubler) and ``cubes`` is the
list of their :class:`engine.cube.Cube` as the doubler sees it, one per row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .board import flip, starting_board, validate, variant_checkers
from .cube import BEAVER, PASS, TAKE, Cube, cube_actions
from .errors import GammonError
from .game import _check_choice, result_points
from .met import MAX_AWAY
from .movegen import generate

MAX_CUBE = 2**50


@dataclass(frozen=True)
class Rules:
    match_length: int = 0  # 0 = money
    jacoby: bool = False  # money only
    beavers: bool = False  # money only
    automatic_doubles: int = 0  # money only: how many per game (0 = off)
    variant: str = "standard"

    def __post_init__(self):
        if not 0 <= self.match_length <= MAX_AWAY:
            raise GammonError(f"match length must be 1..{MAX_AWAY} (the match equity table's size), or 0 for money; "
                             f"got {self.match_length}")


@dataclass
class CubefulResults:
    """Per slot, from player 0's side."""

    points: np.ndarray  # money: points won by player 0 (negative when lost); match: final score difference
    games: np.ndarray  # games played in the slot
    cube_turns: int  # doubles offered over all slots
    passes: int  # doubles passed
    scores: np.ndarray | None = None  # matches: (n, 2) final scores
    winner: np.ndarray | None = None  # matches: 0 or 1


def _opening(rng, n, automatic: int):
    """Opening rolls (different dice) and the automatic doubles each game starts with."""
    dice = rng.integers(1, 7, size=(n, 2))
    cube = np.ones(n, dtype=np.int64)
    doubled = np.zeros(n, dtype=np.int64)
    while True:
        ties = dice[:, 0] == dice[:, 1]
        if not ties.any():
            return dice, cube
        bump = ties & (doubled < automatic)
        cube[bump] *= 2
        doubled[bump] += 1
        dice[ties] = rng.integers(1, 7, size=(int(ties.sum()), 2))


def play_cubeful(players, n: int, seed: int = 0, rules: Rules = Rules(), max_turns: int = 100_000,
                 position: tuple[np.ndarray, int, int] | None = None,
                 first_dice: np.ndarray | None = None) -> CubefulResults:
    """Play ``n`` money games (or ``n`` matches when ``rules.match_length``) between ``players[0]`` and ``players[1]``.

    ``position`` = (board, cube value, cube owner: -1 centered, 0 or 1) plays money games from
    that position instead, player 0 on roll before rolling (so it may double first), with
    ``first_dice`` (n, 2) as its roll when given.
    """
    rng = np.random.default_rng(seed)
    checkers = variant_checkers(rules.variant)
    start = starting_board(rules.variant)
    length = rules.match_length
    money = length == 0

    boards = np.repeat(start[None], n, axis=0)
    scores = np.zeros((n, 2), dtype=np.int64)
    crawford = np.full(n, length == 1)  # this game is the Crawford game (a 1-point match starts with it)
    crawford_done = crawford.copy()
    points = np.zeros(n, dtype=np.int64)
    games = np.zeros(n, dtype=np.int64)
    active = np.ones(n, dtype=bool)  # the slot still plays (a game, or more games of a match)
    cube = np.ones(n, dtype=np.int64)
    owner = np.full(n, -1, dtype=np.int64)  # -1 centered, else the owning player
    turned = np.zeros(n, dtype=bool)
    first_move = np.ones(n, dtype=bool)  # no cube before a game's first move
    dice, opening_cube = _opening(rng, n, rules.automatic_doubles if money else 0)
    preset = np.ones(n, dtype=bool)  # ``dice`` already holds this turn's roll (an opening, or first_dice)
    cube[:] = opening_cube
    player = (dice[:, 1] > dice[:, 0]).astype(np.int64)  # player 0 holds die 0
    if position is not None:
        if not money:
            raise GammonError("games from a given position are money games")
        board, cube[:], owner[:] = position
        boards[:] = validate(board, checkers)
        player[:], first_move[:], turned[:] = 0, False, owner >= 0
        if first_dice is None:
            preset[:] = False
        else:
            dice = np.asarray(first_dice).copy()
    counts = {"turns": 0, "passes": 0}
    openings = dice  # next games' opening rolls in a match, drawn for every slot each pass

    def end_game(slots: np.ndarray, winner: np.ndarray, won: np.ndarray) -> None:
        """Score finished games; start the next game of unfinished matches."""
        signed = np.where(winner == 0, won, -won)
        games[slots] += 1
        if money:
            points[slots] = signed
            active[slots] = False
            return
        scores[slots, winner] += won
        over = scores[slots].max(axis=1) >= length
        active[slots[over]] = False
        going = slots[~over]
        if len(going) == 0:
            return
        # The first time a player is one point short, the next game is the Crawford game.
        reaches = (scores[going].max(axis=1) == length - 1) & ~crawford_done[going]
        crawford[going] = reaches
        crawford_done[going] |= reaches
        boards[going] = start
        cube[going], owner[going], turned[going], first_move[going] = 1, -1, False, True
        dice[going], preset[going] = openings[going], True
        player[going] = (openings[going, 1] > openings[going, 0]).astype(np.int64)

    for _ in range(max_turns):
        if not active.any():
            break
        for side in (0, 1):
            # Every pass draws the same amount of randomness for every slot, whatever the games
            # do, so the two seatings of a duplicate pair see the same dice in each slot.
            fresh = rng.integers(1, 7, size=(n, 2))
            if not money:
                openings, _ = _opening(rng, n, 0)
            mine = np.flatnonzero(active & (player == side))
            if len(mine) == 0:
                continue
            # Cube: before rolling, with access, not on a game's first move, not in the Crawford game.
            access = ~first_move[mine] & ((owner[mine] == -1) | (owner[mine] == side)) & ~crawford[mine]
            asking = mine[access]
            if len(asking):
                context = _context(asking, side, cube, owner, scores, crawford, length, rules)
                doubling = asking[np.asarray(players[side].doubles(boards[asking], context), dtype=bool)]
                if len(doubling):
                    result = _double(players, side, doubling, boards, cube, owner, turned, scores, crawford,
                                         length, rules, money, counts)
                    if len(result.passed):
                        end_game(result.passed, np.full(len(result.passed), side), result.paid)
                    if len(result.beaver_passed):
                        end_game(result.beaver_passed, np.full(len(result.beaver_passed), 1 - side), result.beaver_paid)
                    mine = mine[active[mine] & (player[mine] == side)]
            if len(mine) == 0:
                continue
            roll = np.where(preset[mine, None], dice[mine], fresh[mine])
            afterstates = generate(boards[mine], roll, check=False)
            choice = np.asarray(players[side].policy(afterstates), dtype=np.int64)
            _check_choice(choice, afterstates)
            after = afterstates.boards[choice]
            won = result_points(after, checkers)
            if money and rules.jacoby:
                won = np.where(turned[mine], won, np.minimum(won, 1))
            boards[mine] = flip(after)
            first_move[mine] = preset[mine] = False
            finished = won > 0
            player[mine] = 1 - side
            if finished.any():
                slots = mine[finished]
                end_game(slots, np.full(len(slots), side), won[finished] * cube[slots])
    else:
        raise RuntimeError(f"{int(active.sum())} slots still playing after {max_turns} turns")
    if money:
        return CubefulResults(points, games, counts["turns"], counts["passes"])
    winner = (scores[:, 1] > scores[:, 0]).astype(np.int64)
    return CubefulResults(scores[:, 0] - scores[:, 1], games, counts["turns"], counts["passes"], scores, winner)


@dataclass
class _Doubled:
    passed: np.ndarray  # slots whose double was passed (the doubler wins ``paid``)
    paid: np.ndarray
    beaver_passed: np.ndarray  # slots where the doubler passed a beaver (the beaverer wins ``beaver_paid``)
    beaver_paid: np.ndarray


def _double(players, side, doubling, boards, cube, owner, turned, scores, crawford, length, rules, money, counts):
    """The opponent's answer to ``side``'s doubles in ``doubling``; updates the cube of the games that go on."""
    counts["turns"] += len(doubling)
    context = _context(doubling, side, cube, owner, scores, crawford, length, rules)
    answer = np.asarray(players[1 - side].answers(boards[doubling], context))
    if not (rules.beavers and money):
        answer = np.minimum(answer, TAKE)
    passed = doubling[answer == PASS]
    counts["passes"] += len(passed)
    paid = cube[passed].copy()  # a pass pays the value before the offer
    taken = doubling[answer != PASS]
    beavered = doubling[answer == BEAVER]
    cube[taken] *= 2
    owner[taken] = 1 - side
    turned[taken] = True
    beaver_passed = np.zeros(0, dtype=np.int64)
    beaver_paid = np.zeros(0, dtype=np.int64)
    if len(beavered):
        # The beaver redoubles at once and keeps the cube; the doubler takes or passes it.
        context = _context(beavered, side, cube, owner, scores, crawford, length, rules)
        accepts = getattr(players[side], "accepts_beaver", None)
        keep = (np.ones(len(beavered), dtype=bool) if accepts is None
                else np.asarray(accepts(boards[beavered], context), bool))
        beaver_passed, beaver_paid = beavered[~keep], cube[beavered[~keep]].copy()
        cube[beavered[keep]] *= 2
        counts["passes"] += int((~keep).sum())
    if (cube[taken] > MAX_CUBE).any():
        raise OverflowError(f"a cube went past {MAX_CUBE}: redoubles have no limit, int64 has one")
    return _Doubled(passed, paid, beaver_passed, beaver_paid)


def _context(slots, side, cube, owner, scores, crawford, length, rules) -> list[Cube]:
    """The cube of each slot in ``slots`` as ``side`` (the doubler) sees it."""
    money = not length
    return [Cube.seen_by(side, cube[s], owner[s], length, scores[s], crawford[s], jacoby=rules.jacoby and money,
                         beavers=rules.beavers and money) for s in slots]


class EvaluatorPlayer:
    """A cube-aware player from an evaluator: moves at ``move_plies``; the cube at ``cube_plies``
    by Janowski's model in money play, or with the match equity table (engine/match.py) in matches.

    Evaluators without probabilities (pubeval, heuristic, random) never double and
    always take.
    """

    def __init__(self, evaluator, cube_plies: int = 0, move_plies: int = 0):
        from .analysis import ply_policy
        from .evaluator import evaluator_policy

        self.evaluator = evaluator
        self.name = getattr(evaluator, "name", "player")
        self.has_probabilities = hasattr(evaluator, "probabilities")
        if move_plies and not self.has_probabilities:
            raise GammonError(f"{self.name} cannot search ahead: it has no probability estimates")
        self.policy = ply_policy(evaluator, move_plies) if move_plies else evaluator_policy(evaluator)
        self.cube_plies = cube_plies

    def _decisions(self, boards: np.ndarray, cubes: list[Cube]):
        """(doubles, answer, double/take) for each row: money rows batched (Janowski), match rows one by one (MET)."""
        from .analysis import cube_efficiency, money_cube_equities, position_probs
        from .match import cube_decision

        probs = position_probs(self.evaluator, boards, self.cube_plies)
        x = cube_efficiency(boards)
        if cubes[0].money:
            owned = np.array([c.owner == "me" for c in cubes])
            no_double, double_take = money_cube_equities(probs, owned, x, cubes[0].jacoby)
            doubles, answer = cube_actions(no_double, double_take, 1.0, cubes[0].beavers)
            return doubles, answer, double_take
        decisions = [cube_decision(p, c, float(xi)) for p, xi, c in zip(probs, x, cubes)]
        no_double, double_take = (np.array([getattr(d, k) for d in decisions]) for k in ("no_double", "double_take"))
        _, answer = cube_actions(no_double, double_take, 1.0)  # double/pass is +1 in EMG too
        return np.array([d.action == "double" for d in decisions]), answer, double_take

    def doubles(self, boards: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        if not self.has_probabilities:
            return np.zeros(len(boards), dtype=bool)
        return self._decisions(boards, cubes)[0]

    def accepts_beaver(self, boards: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        """The doubler (on roll) facing a beaver: play on for twice the cube, or pay the cube."""
        if not self.has_probabilities:
            return np.ones(len(boards), dtype=bool)
        return self._decisions(boards, cubes)[2] >= -1.0

    def answers(self, boards: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        if not self.has_probabilities:
            return np.full(len(boards), TAKE)
        return self._decisions(boards, cubes)[1]


def duplicate_series(player_a, player_b, n: int, seed: int = 0, rules: Rules = Rules(), chunk: int = 500,
                     progress=None) -> dict:
    """A against B over ``n`` money games or matches (even), duplicate dice, from A's side.

    Each dice stream is played twice with the seats swapped; the 95% CI is over those
    pairs. Games run in chunks of ``chunk`` slots; ``progress(k)`` hears of each k done.
    """
    if n < 4 or n % 2:
        raise GammonError(f"duplicate play comes in pairs: n must be even and >= 4; got {n}")
    half = n // 2
    a_results, turns, passes, games = [], 0, 0, 0
    for first in range(0, half, chunk):
        size = min(chunk, half - first)
        runs = [play_cubeful(pair, size, seed=seed * 1_000_003 + first, rules=rules)
                for pair in ((player_a, player_b), (player_b, player_a))]
        if rules.match_length:
            a_results.append(((runs[0].winner == 0).astype(float) + (runs[1].winner == 1)) / 2)
        else:
            a_results.append((runs[0].points - runs[1].points) / 2.0)
        turns += runs[0].cube_turns + runs[1].cube_turns
        passes += runs[0].passes + runs[1].passes
        games += int(runs[0].games.sum() + runs[1].games.sum())
        if progress:
            progress(2 * size)
    pairs = np.concatenate(a_results)
    mean = float(pairs.mean())
    half_width = 1.96 * float(pairs.std(ddof=1)) / np.sqrt(len(pairs))
    key = "match_win_rate" if rules.match_length else "ppg"
    return {key: mean, "ci95": [mean - half_width, mean + half_width], "n": n, "games": games,
            "doubles": turns, "passes": passes, "match_length": rules.match_length}
