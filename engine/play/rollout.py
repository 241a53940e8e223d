"""Cubeless rollouts: play a position out many times, the evaluator moving for both sides.

Games run batched through :func:`engine.play.game.play`, in chunks so a caller can show
progress, each move the evaluator's 0-ply choice among the plays its screen (a pruning net,
engine/search/evaluator.py) ranks best, as gnubg's rollouts play, by the rules of the
evaluator's ``variant`` (its moves, its scoring). Variance reduction: the first roll is
stratified, game ``i`` starting with the ``i mod 36``-th of the 36 ordered rolls, so every
first roll weighs exactly its 1/36 (use a multiple of 36 games); with ``reduce_variance`` the
luck of every roll is taken out of its game as well (:func:`_reduced_games`).
Truncated rollouts stop after ``truncate`` turns and score each unfinished game with the
evaluator, or with its search ``truncate_plies`` deep. Same seed, same result.
:func:`rollout_plays` rolls out the candidate plays of one roll with the same dice, and gives
each one's difference from the best with its own interval.

:func:`rollout_positions` rolls out many positions at once, each for a few games (training
labels): its games also stop where ``settled`` says the evaluator's answer is exact (a
bear-off the databases hold), which removes the rest of the game's luck from the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gammon.engine.cube.decisions import cubeful_as_is, no_double_reason
from gammon.engine.cube.match import cubeful_mwc, from_emg, to_emg
from gammon.engine.cube.money import cube_efficiency, cubeful_equity
from gammon.engine.cube.state import Cube, best_cube_value, verdict
from gammon.engine.errors import GammonError
from gammon.engine.play.game import BeforeMove, Rules, play, play_games
from gammon.engine.play.players import Cubeless, EvaluatorPlayer
from gammon.engine.play.stats import interval95, mean_and_error
from gammon.engine.rules.dice import ORDERED_ROLLS, ROLL_WEIGHTS, roll_index
from gammon.engine.rules.movegen import generate
from gammon.engine.rules.outcomes import cubeless_equity, outcome_probs, result_points, swap_sides
from gammon.engine.search.analysis import best_play_of_every_roll, play_values, ply_policy, position_probs
from gammon.engine.search.evaluator import ProbabilityEvaluator, evaluator_policy

CHUNK = 36 * 16  # games per batched call
STOP_CHECK = 36 * 4  # games between looks at a stop rule's interval (whole 36s: the first roll stays stratified)


@dataclass(frozen=True)
class RolloutResult:
    games: int
    probs: np.ndarray  # (5,) mean probabilities for the player on roll
    equity: float  # cubeless money equity
    std_error: float
    ci95: tuple[float, float]
    truncated: int  # games scored by the evaluator because they hit the truncation
    seconds: float

    @property
    def games_per_s(self) -> float:
        return self.games / max(self.seconds, 1e-9)

    def as_dict(self) -> dict:
        return {"games": self.games, "probs": self.probs.tolist(), "equity": self.equity, "std_error": self.std_error,
                "ci95": list(self.ci95), "truncated": self.truncated, "seconds": self.seconds,
                "games_per_s": self.games_per_s}


def rollout(
    evaluator: ProbabilityEvaluator,
    board: np.ndarray,
    games: int = 1296,
    seed: int = 0,
    truncate: int | None = None,
    progress: Callable[[int], None] | None = None,
    reduce_variance: bool = False,
    until: float | None = None,
    search: tuple[int, int] | None = None,
    store=None,
    truncate_plies: int = 0,
) -> RolloutResult:
    """Roll ``board`` (player on roll) out ``games`` times; ``progress(n)`` is told of each n games done.

    ``reduce_variance`` takes each roll's luck out of every game (:func:`_reduced_games`). With
    ``until``, the stop rule: the rollout ends as soon as the 95% interval's half-width on the
    equity is ``until`` or less, looked at every :data:`STOP_CHECK` games, or at ``games``. ``search``
    (plies, turns) plays the first turns by a deeper search (:func:`_played_games`, :func:`_reduced_games`).
    ``store`` (an :class:`engine.play.shards.ChunkStore`) keeps each finished chunk of games and gives back
    those a killed run finished: the result is the unbroken run's. ``truncate_plies``: the games the
    truncation stops are scored by the search that deep (0: the evaluator alone)."""
    started = time.perf_counter()
    probs, truncated = rollout_games(evaluator, board, games, seed, truncate, progress, reduce_variance, until,
                                     search, store, truncate_plies)
    mean, std_error = mean_and_error(cubeless_equity(probs))
    return RolloutResult(len(probs), probs.mean(axis=0), mean, std_error, interval95(mean, std_error), truncated,
                         time.perf_counter() - started)


def rollout_games(evaluator: ProbabilityEvaluator, board: np.ndarray, games: int, seed: int = 0,
                  truncate: int | None = None, progress: Callable[[int], None] | None = None,
                  reduce_variance: bool = False, until: float | None = None,
                  search: tuple[int, int] | None = None, store=None,
                  truncate_plies: int = 0) -> tuple[np.ndarray, int]:
    """``(probs, truncated)``: each game's result (games, 5) for the player on roll of ``board`` (luck taken
    out with ``reduce_variance``), and how many games the truncation stopped.

    Game ``i`` starts with the ``i mod 36``-th ordered roll; in a variance-reduced rollout its second
    roll is the ``(i mod 36 + i // 36) mod 36``-th, a Latin square: every 36 games hold every second
    roll once, and 1,296 games every pair of first two rolls once; its later rolls are rotated
    (:func:`_rotated_rolls`). The rest of its dice come from ``seed`` and the chunk of games it is played
    in, the same whatever position is rolled out with the same games and stop rule (common random
    numbers: the plays of one roll compared with the same dice). With ``until`` the games stop once the
    95% half-width on the equity is that or less (see :func:`rollout`)."""
    if games < 2:
        raise GammonError(f"a rollout needs at least 2 games; got {games}")
    _check_settings(evaluator, truncate, search, reduce_variance, truncate_plies)
    per_game, truncated = [], 0
    chunk = CHUNK if until is None else STOP_CHECK
    for first in range(0, games, chunk):
        if until is not None and first and _half_width(cubeless_equity(np.concatenate(per_game))) <= until:
            break
        n = min(chunk, games - first)
        if store is not None and first in store.done:
            saved, cut = store.done[first]
            probs = np.array(saved, dtype=np.float64).reshape(n, 5)
        else:
            probs, cut = _rollout_chunk(evaluator, board, first, n, seed, truncate, reduce_variance, search,
                                        truncate_plies)
            if store is not None:
                store.add(first, [probs.tolist(), cut])
        per_game.append(probs)
        truncated += cut
        if progress:
            progress(n)
    return np.concatenate(per_game), truncated


def _rollout_chunk(evaluator, board, first: int, n: int, seed: int, truncate, reduce_variance: bool,
                   search, truncate_plies: int = 0) -> tuple[np.ndarray, int]:
    """Games ``first .. first + n - 1`` of a rollout (:func:`rollout_games`): their dice depend on these alone."""
    games_at = first + np.arange(n)  # the games' numbers
    first_dice = ORDERED_ROLLS[games_at % 36]
    if reduce_variance:
        second_dice = ORDERED_ROLLS[(games_at % 36 + games_at // 36) % 36]
        rng = np.random.default_rng([seed, first])
        return _reduced_games(evaluator, board, (first_dice, second_dice), rng, truncate, truncate_plies, search)
    return _played_games(evaluator, board, first_dice, seed * 1_000_003 + first, truncate, search, truncate_plies)


@dataclass(frozen=True)
class PlayRollout:
    """One candidate play rolled out, beside the best of them (cubeless equity for the player who moved)."""

    equity: float
    ci95: tuple[float, float]
    diff: float  # equity less the best play's, taken game by game with the same dice
    diff_ci95: tuple[float, float]
    probs: np.ndarray  # (5,) for the player who moved

    def as_dict(self) -> dict:
        return {"equity": self.equity, "ci95": list(self.ci95), "diff": self.diff, "diff_ci95": list(self.diff_ci95),
                "probs": self.probs.tolist()}


def rollout_plays(evaluator: ProbabilityEvaluator, afterstates: np.ndarray, rolls_again: np.ndarray,
                  games: int = 1296, seed: int = 0, truncate: int | None = None,
                  progress: Callable[[int], None] | None = None, reduce_variance: bool = False,
                  truncate_plies: int = 0) -> list[PlayRollout]:
    """Roll out the position after each play of one roll (``afterstates`` seen by the player who moved, who
    rolls again where ``rolls_again`` says so) with the same seed, and compare them.

    Game ``i`` of every play starts with the same roll, and in a variance-reduced rollout
    goes on with the same dice (:func:`rollout_games`), so the difference between two plays
    is taken game by game, as pairs. A play that ends the game scores its result in every game."""
    variant = evaluator.variant
    per_play = []
    for board, again in zip(np.asarray(afterstates), rolls_again):
        won = int(result_points(board[None], variant.checkers, variant.backgammons)[0])
        if won:
            probs = np.repeat(outcome_probs(np.array([won])), games, axis=0)
            if progress:
                progress(games)
        else:
            start = variant.next_on_roll(board, again)
            probs, _ = rollout_games(evaluator, start, games, seed, truncate, progress, reduce_variance,
                                     truncate_plies=truncate_plies)
            probs = probs if again else swap_sides(probs)
        per_play.append(probs)
    equities = [cubeless_equity(probs) for probs in per_play]
    best = equities[int(np.argmax([e.mean() for e in equities]))]
    results = []
    for probs, equity in zip(per_play, equities):
        mean, error = mean_and_error(equity)
        diff, diff_error = mean_and_error(equity - best)
        results.append(PlayRollout(mean, interval95(mean, error), diff, interval95(diff, diff_error),
                                   probs.mean(axis=0)))
    return results


@dataclass(frozen=True)
class CubefulRolloutResult:
    games: int
    equity: float  # cubeful money equity per unit of the starting cube, for the player on roll
    std_error: float
    ci95: tuple[float, float]
    doubles: int
    passes: int
    seconds: float
    truncated: int = 0  # games scored by the evaluator because they hit the truncation

    def as_dict(self) -> dict:
        return {"games": self.games, "cubeful_equity": self.equity, "std_error": self.std_error,
                "ci95": list(self.ci95), "doubles": self.doubles, "passes": self.passes, "seconds": self.seconds,
                "truncated": self.truncated, "games_per_s": self.games / max(self.seconds, 1e-9)}


def cubeful_rollout(
    evaluator: ProbabilityEvaluator,
    board: np.ndarray,
    cube: Cube = Cube(),
    games: int = 1296,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
    store=None,
    cube_plies: int = 0,
    reduce_variance: bool = False,
    truncate: int | None = None,
    search: tuple[int, int] | None = None,
    truncate_plies: int = 0,
    until: float | None = None,
) -> CubefulRolloutResult:
    """Rollout with the cube: both sides double, take and pass by the evaluator at 0-ply (Janowski's model
    for money, the match equity table at a match score).

    ``cube`` is the cube as the player on roll sees it (with its Jacoby and beaver rules in money
    play, or the match score). Games are played to the end, or ``truncate`` turns (:func:`_stopped_values`);
    the first roll is stratified as in :func:`rollout`. The equity is per unit of the cube: money points, or
    EMG in a match.
    ``store`` keeps finished chunks of games for a killed run to resume from (:func:`rollout`). ``cube_plies``:
    the players' cube decisions by the search that deep (gnubg's rollout setting of the cube's own ply).
    ``reduce_variance`` takes each roll's luck out of its game (:func:`_luck_of_rolls`); ``search`` (plies,
    turns) plays the first turns of every game by the search that deep (the luck still judged at 0-ply);
    ``truncate_plies``: the stopped games judged by the search that deep; ``until``: the stop rule of
    :func:`rollout`.
    """
    started = time.perf_counter()
    equity, doubles, passes, truncated = _cubeful_games(
        evaluator, board, cube, games, seed, progress, store=store, cube_plies=cube_plies,
        reduce_variance=reduce_variance, truncate=truncate, search=search, truncate_plies=truncate_plies,
        until=until)
    mean, std_error = mean_and_error(equity)
    return CubefulRolloutResult(len(equity), mean, std_error, interval95(mean, std_error), doubles, passes,
                                time.perf_counter() - started, truncated)


def _check_settings(evaluator, truncate: int | None, search: tuple[int, int] | None, reduce_variance: bool,
                    truncate_plies: int) -> None:
    """A rollout's settings, checked alike for cubeless and cubeful ones."""
    if truncate is not None and truncate < 1:
        raise GammonError(f"a rollout truncates after 1 turn or more; got {truncate}")
    if truncate_plies not in (0, 1, 2) or (truncate_plies and truncate is None):
        raise GammonError(f"a truncated rollout scores its games 0, 1 or 2 plies deep; got {truncate_plies}"
                          + ("" if truncate else " without truncation"))
    if search and not (search[0] in (1, 2) and search[1] >= 1):
        raise GammonError(f"a search inside the rollout is 1- or 2-ply for 1 turn or more; got {search}")
    if reduce_variance and evaluator.variant.wild_roll is not None:
        raise GammonError(f"variance reduction judges every play of all 21 rolls, and a {evaluator.variant.name} "
                          "1-2 has thousands: not in this variant")


def _cubeful_games(evaluator, board, cube: Cube, games: int, seed: int, progress, per: Cube | None = None,
                   store=None, cube_plies: int = 0, reduce_variance: bool = False, truncate: int | None = None,
                   search: tuple[int, int] | None = None, truncate_plies: int = 0, until: float | None = None,
                   doubles_first: bool = True) -> tuple[np.ndarray, int, int, int]:
    """``(equity, doubles, passes, truncated)``: each game's result for the player on roll of ``board``, who holds
    ``cube`` as he sees it, both sides playing and doubling by the evaluator (:func:`cubeful_rollout`):
    money points per unit of ``per`` (``cube`` by default), or in a match his match winning chance
    after the game as EMG of ``per``.

    The game loop draws the same dice for a slot whatever its game does, so game ``i`` has the
    same dice from the same seed whatever the cube: two cube actions are compared game by game.
    ``store`` keeps finished chunks, as in :func:`rollout_games`; ``cube_plies``: how deep the players search
    their cube decisions (checker plays stay 0-ply); ``reduce_variance``: each game less the luck of its rolls
    (:func:`_luck_of_rolls`), its later rolls rotated through the 36 (:func:`_rotated_rolls`); ``truncate``:
    games stop after that many turns, scored by the evaluator (:func:`_stopped_values`), and ``truncated``
    counts them; ``search`` (plies, turns): the first turns of each
    game (both players') by the search that deep, the rest at 0-ply; ``truncate_plies``: the stopped games
    judged by the search that deep; ``until``: stop once the 95% half-width is that or less, looked at every
    :data:`STOP_CHECK` games (the chunks' size then). ``doubles_first`` False: the player on roll has
    chosen not to double, so his first roll comes without a cube decision (a cube rollout's no double)."""
    if games < 2:
        raise GammonError(f"a rollout needs at least 2 games; got {games}")
    per = per or cube
    if cube_plies not in (0, 1, 2):
        raise GammonError(f"the cube decisions inside a rollout are searched 0, 1 or 2 plies deep; got {cube_plies}")
    _check_settings(evaluator, truncate, search, reduce_variance, truncate_plies)
    player = EvaluatorPlayer(evaluator, cube_plies=cube_plies, screened=True, search=search)
    variant = evaluator.variant.name
    rules = (Rules(variant=variant, jacoby=cube.jacoby, beavers=cube.beavers) if cube.money
             else Rules(variant=variant, match_length=max(cube.away)))
    before = (0, 0) if cube.money else (rules.match_length - cube.my_away, rules.match_length - cube.opp_away)
    equity, doubles, passes, truncated = [], 0, 0, 0
    chunk = CHUNK if until is None else STOP_CHECK
    for first in range(0, games, chunk):
        if until is not None and first and _half_width(np.concatenate(equity)) <= until:
            break
        n = min(chunk, games - first)
        if store is not None and first in store.done:
            saved, cube_turns, passed, *stopped = store.done[first]  # stores from before truncation: no count
            stopped = stopped[0] if stopped else 0
            equity.append(np.array(saved, dtype=np.float64))
        else:
            luck = np.zeros(n)
            result = play((player, player), n, seed=seed * 1_000_003 + first, rules=rules, start=board,
                          start_cube=cube, first_dice=ORDERED_ROLLS[(first + np.arange(n)) % 36],
                          cube_decided=not doubles_first,
                          before_move=_luck_of_rolls(evaluator, per, luck) if reduce_variance else None,
                          roll=_rotated_rolls if reduce_variance else None, stop_after=truncate)
            if cube.money:
                values = np.asarray(result.points, dtype=np.float64) / per.value
            else:  # the points won in the game, by the score it left, and what they make of the match
                points = (result.scores[:, 0] - before[0]) - (result.scores[:, 1] - before[1])
                outcomes, which = np.unique(points, return_inverse=True)  # a few: the cube times 1, 2 or 3
                values = to_emg(np.array([cube.after(int(p)) for p in outcomes])[which], per)
            unfinished = np.flatnonzero(result.games == 0)
            values[unfinished] = _stopped_values(evaluator, result, unfinished, rules, cube, before, per,
                                                 truncate_plies)
            equity.append(values - luck)
            cube_turns, passed, stopped = int(result.cube_turns), int(result.passes), len(unfinished)
            if store is not None:
                store.add(first, [equity[-1].tolist(), cube_turns, passed, stopped])
        doubles, passes, truncated = doubles + cube_turns, passes + passed, truncated + stopped
        if progress:
            progress(n)
    return np.concatenate(equity), doubles, passes, truncated


def _stopped_values(evaluator, result, slots: np.ndarray, rules: Rules, start: Cube, score: tuple[int, int],
                    per: Cube, plies: int = 0) -> np.ndarray:
    """What the games of ``result`` the truncation stopped (``slots``) are worth to player 0 per unit of ``per``:
    the evaluator's cubeful value for the player then on roll, who is yet to make his cube decision (the best of
    his cube actions by engine.cube.decisions.cube_decision, or the cube left where it is when he has none:
    Janowski's money equity or the match equity at the ``score``), turned to player 0's side. The chances come
    from the search ``plies`` deep (0: the evaluator alone)."""
    if not len(slots):
        return np.zeros(0)
    boards = result.boards[slots]
    probs = _truncation_estimate(evaluator, boards, plies)
    x = cube_efficiency(boards, geometry=evaluator.variant.geometry)
    who = result.on_roll[slots]
    cubes = [Cube.seen_by(int(w), int(result.cube[s]), int(result.owner[s]), rules.match_length, score,
                          start.crawford, jacoby=start.jacoby, beavers=start.beavers) for w, s in zip(who, slots)]
    values = np.empty(len(slots))
    for cube, rows in _rows_by_cube(cubes).items():
        values[rows] = _for_player0(_cubeful_on_roll(probs[rows], cube, x[rows]), who[rows], cube, per)
    return values


def _rows_by_cube(cubes: list[Cube]) -> dict[Cube, np.ndarray]:
    """The rows of each distinct cube among ``cubes`` (a rollout's games hold a few: values, owners, sides)."""
    rows: dict[Cube, list[int]] = {}
    for row, cube in enumerate(cubes):
        rows.setdefault(cube, []).append(row)
    return {cube: np.array(found) for cube, found in rows.items()}


def _cubeful_on_roll(probs: np.ndarray, cube: Cube, x) -> np.ndarray:
    """Positions' cubeful values for their player on roll per unit of ``cube`` (EMG at a match score), his cube
    decision yet to make: where he may double, the best of no double, double/take and double/pass (the taker
    answering best too, engine.cube.state.cube_actions), else the cube left where it is."""
    no_double = cubeful_as_is(probs, cube, x)
    if no_double_reason(cube) is not None:
        return no_double
    if cube.money:
        double_take = cubeful_equity(probs, cube.doubled(), x) / cube.value
    else:
        double_take = to_emg(cubeful_mwc(probs, cube.doubled(), x), cube)
    return best_cube_value(no_double, double_take, 1.0)


def _luck_of_rolls(evaluator, per: Cube, luck: np.ndarray) -> BeforeMove:
    """A game loop's ``before_move`` (engine.play.game.play) that adds the luck of every roll to ``luck``, one
    row per slot, for player 0 (on roll at the start, holding ``per``) per unit of ``per``.

    A roll's luck, as in :func:`_reduced_games` but cubeful: what the best 0-ply play of the roll that came is
    worth to the mover, less the same for each of the 21 rolls weighed by its chance. A play is worth what the
    opponent's position is worth to him on roll, his cube decision to come (:func:`_cubeful_on_roll`, the
    value a truncated game gets), turned round; a play that ends the game or rolls again is valued as the
    search values it (engine.search.analysis.play_values).
    It averages zero over the dice whatever the evaluator, so a game's result less its luck keeps the mean;
    the cube decisions are no dice and carry none. Each value is turned to player 0's side and scaled to
    ``per`` (a cube of 4 counts four times a cube of 1; in a match, by what winning rather than losing the
    cube is worth at each score). The game loop asks before each move, after any resignation: the rollout's
    players never resign, or a resigned roll's luck would be missed.
    """
    variant = evaluator.variant

    def judge(slots, movers, boards, dice, cubes):
        played, again_after, probs = best_play_of_every_roll(evaluator, boards)
        rolled = roll_index(dice)
        for cube, rows in _rows_by_cube(cubes).items():
            boards, again = played[rows].reshape(-1, played.shape[-1]), again_after[rows].ravel()
            chances = probs[rows].reshape(-1, 5)
            mover = np.repeat(movers[rows], len(ROLL_WEIGHTS))
            going = ~again & (result_points(boards, variant.checkers, variant.backgammons) == 0)
            values = np.empty(len(boards))
            if going.any():  # the opponent on roll
                theirs = variant.geometry.flip(boards[going])
                x = cube_efficiency(theirs, geometry=variant.geometry)
                values[going] = _for_player0(_cubeful_on_roll(swap_sides(chances[going]), cube.swapped(), x),
                                             1 - mover[going], cube.swapped(), per)
            if (~going).any():  # the game over, or the mover rolling again
                values[~going] = _for_player0(play_values(variant, boards[~going], again[~going], chances[~going],
                                                          cube), mover[~going], cube, per)
            values = values.reshape(len(rows), -1)
            luck[slots[rows]] += values[np.arange(len(rows)), rolled[rows]] - values @ ROLL_WEIGHTS

    return judge


def _for_player0(values, movers, cube: Cube, per: Cube) -> np.ndarray:
    """``values`` per unit of ``cube`` (EMG at a match score) of the players ``movers``, each holding ``cube`` as
    it says, as player 0's result per unit of ``per``, the cube he held at the start: money points scaled by the
    two cubes' values; in a match, the match winning chance the values stand for, as player 0's EMG."""
    mine = np.asarray(movers) == 0
    if cube.money:
        return np.where(mine, 1.0, -1.0) * values * (cube.value / per.value)
    chance = from_emg(values, cube)
    return to_emg(np.where(mine, chance, 1.0 - chance), per)


@dataclass(frozen=True)
class CubeRollout:
    """The three cube actions rolled out with the same dice, per unit of the cube (EMG in a match)."""

    games: int
    no_double: float
    no_double_ci95: tuple[float, float]
    double_take: float
    double_take_ci95: tuple[float, float]
    take_less_no_double_ci95: tuple[float, float]  # double/take less no double, game by game
    action: str
    response: str
    verdict: str
    double_pass: float = 1.0

    def as_dict(self) -> dict:
        return {key: list(value) if isinstance(value, tuple) else value for key, value in self.__dict__.items()}


def cube_rollout(evaluator: ProbabilityEvaluator, board: np.ndarray, cube: Cube, games: int = 1296, seed: int = 0,
                 progress: Callable[[int], None] | None = None, cube_plies: int = 0,
                 reduce_variance: bool = False, truncate: int | None = None,
                 search: tuple[int, int] | None = None, truncate_plies: int = 0) -> CubeRollout:
    """No double and double/take rolled out for the player on roll (``cube`` as he sees it: money, or a match
    score), the same dice in both; double/pass is 1. The verdict in gnubg's words (engine.cube.state.verdict).
    ``cube_plies``: the cube decisions inside the games searched that deep (:func:`cubeful_rollout`);
    ``reduce_variance``: each game less the luck of its rolls (:func:`_luck_of_rolls`); ``truncate``: games stop
    after that many turns, scored by the evaluator or its search ``truncate_plies`` deep (:func:`_stopped_values`);
    ``search``: the first turns by a deeper search (:func:`cubeful_rollout`)."""
    reason = no_double_reason(cube)
    if reason:
        raise GammonError(f"no cube action to roll out: {reason}")
    settings = {"cube_plies": cube_plies, "reduce_variance": reduce_variance, "truncate": truncate, "search": search,
                "truncate_plies": truncate_plies}
    no_double = _cubeful_games(evaluator, board, cube, games, seed, progress, doubles_first=False, **settings)[0]
    double_take = _cubeful_games(evaluator, board, cube.doubled(), games, seed, progress, per=cube, **settings)[0]
    (nd, nd_error), (dt, dt_error) = mean_and_error(no_double), mean_and_error(double_take)
    action, response, words = verdict(nd, dt, 1.0, cube)
    return CubeRollout(games, nd, interval95(nd, nd_error), dt, interval95(dt, dt_error),
                       interval95(*mean_and_error(double_take - no_double)), action, response, words)


SETTLE_TURNS = 2  # turns played between looks for settled positions


def rollout_positions(
    evaluator: ProbabilityEvaluator,
    boards: np.ndarray,
    games: int = 36,
    seed: int = 0,
    settled: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """(N, 5) mean result probabilities of ``games`` cubeless rollout games of each board (player on roll).

    Game ``i`` of a board starts with the ``i mod 36``-th ordered roll. Every game is
    played out by the evaluator's 0-ply choices (among the plays its screen ranks best, if it
    has one), and all games of all boards move in one batch. With ``settled`` (boards seen
    from the side on roll -> (M,) bool), a game whose position is settled before a roll
    (every :data:`SETTLE_TURNS` turns) stops there and scores the evaluator's probabilities for it.
    """
    boards = np.asarray(boards)
    if games < 1:
        raise GammonError(f"a rollout needs at least 1 game a position; got {games}")
    policy = evaluator_policy(evaluator, screened=True)
    n = len(boards) * games
    probs = np.zeros((n, 5))
    current, dice = np.repeat(boards, games, axis=0), ORDERED_ROLLS[np.arange(n) % 36]
    slots = np.arange(n)
    swapped = np.zeros(n, dtype=bool)  # the side on roll in ``current`` is the board's opponent
    rounds = 0
    while len(slots):
        result = play_games((policy, policy), len(slots), seed=seed * 1_000_003 + rounds,
                            variant=evaluator.variant.name, start=current, first_dice=dice,
                            stop_after=SETTLE_TURNS if settled is not None else None)
        over = result.points != 0
        probs[slots[over]] = _seen_by(outcome_probs(result.points[over]), swapped[slots[over]])
        slots, current = slots[~over], result.boards[~over]
        swapped[slots] ^= result.on_roll[~over] == 1
        # without ``settled`` the games ran to the end; any left hit the turn limit and are scored as settled ones
        done = settled(current) if settled is not None else np.ones(len(slots), dtype=bool)
        if done.any():
            estimate = np.asarray(evaluator.probabilities(current[done]), dtype=np.float64)
            probs[slots[done]] = _seen_by(estimate, swapped[slots[done]])
        slots, current, dice, rounds = slots[~done], current[~done], None, rounds + 1
    return probs.reshape(len(boards), games, 5).mean(axis=1)


def _seen_by(probs: np.ndarray, swapped: np.ndarray) -> np.ndarray:
    """``probs`` of the side on roll, turned to the rolled-out board's player where ``swapped``."""
    return np.where(swapped[:, None], swap_sides(probs), probs)


def _half_width(equities: np.ndarray) -> float:
    """The 95% interval's half-width on the mean of the games' equities so far."""
    low, high = interval95(*mean_and_error(equities))
    return (high - low) / 2


def _played_games(evaluator, board, first_dice, seed, truncate, search=None,
                  truncate_plies: int = 0) -> tuple[np.ndarray, int]:
    """(n, 5) results of games from ``board`` played by the evaluator's 0-ply choices, seen by its player on
    roll (games the truncation stopped scored by the evaluator), and how many were stopped. ``search``
    (plies, turns): the first ``turns`` turns are played by the search at ``plies`` instead (each play
    judged over the opponent's replies, engine.search.analysis.ply_policy), the rest at 0-ply; the dice are
    the same either way."""
    player = Cubeless(evaluator_policy(evaluator, screened=True),
                      *((ply_policy(evaluator, search[0]), search[1]) if search else ()))
    result = play((player, player), len(first_dice), seed=seed, rules=Rules(variant=evaluator.variant.name),
                  start=board, first_dice=first_dice, stop_after=truncate)
    over = result.points != 0  # money points won by player 0, the rolled-out board's player on roll
    probs = np.zeros((len(first_dice), 5))
    probs[over] = outcome_probs(result.points[over])
    if (~over).any():
        probs[~over] = _seen_by(_truncation_estimate(evaluator, result.boards[~over], truncate_plies),
                                result.on_roll[~over] == 1)
    return probs, int((~over).sum())


def _truncation_estimate(evaluator, boards: np.ndarray, plies: int) -> np.ndarray:
    """(n, 5) what the games the truncation stopped are worth to their player on roll: the search ``plies`` deep."""
    return np.asarray(position_probs(evaluator, boards, plies) if plies else evaluator.probabilities(boards),
                      dtype=np.float64)


MAX_TURNS = 10_000  # a game this long is stuck (no variant's game runs past a few hundred turns)


def _rotated_rolls(rng: np.random.Generator, n: int) -> np.ndarray:
    """(n, 2) the next roll of each of ``n`` games, quasi-random: every 36 games in a row take the 36 ordered rolls
    once each, in an order of their own drawn afresh every turn (each game's roll is still uniform, and its
    rolls from turn to turn independent)."""
    blocks = -(-n // 36)
    return ORDERED_ROLLS[rng.permuted(np.tile(np.arange(36), (blocks, 1)), axis=1).ravel()[:n]]


def _reduced_games(evaluator, board, stratified, rng, truncate, truncate_plies: int = 0,
                   search: tuple[int, int] | None = None) -> tuple[np.ndarray, int]:
    """(n, 5) results of games from ``board``, seen by its player on roll, each with the luck of its rolls taken
    out as gnubg's variance reduction does; and how many games the truncation stopped. ``stratified`` holds each
    game's first two rolls ((n, 2) each, quasi-random: see :func:`rollout_games`), ``rng`` the rest.

    Before each roll the evaluator finds the best 0-ply play of all 21 rolls (the play the
    rollout makes, among the plays its screen ranks best); the luck of the roll that came is
    its best play's probabilities less their average over the 21 rolls by their chances.
    Whatever the evaluator, that luck averages zero over the dice, so the game's result less
    the luck of all its rolls (each turned to the rolled-out player's side) has the same
    expectation as the plain result, with less noise the better the evaluator judges; with
    an exact one (a bear-off the databases hold) none is left. ``search`` (plies, turns): the first
    turns' plays are the search's at ``plies`` instead (the luck is still judged at 0-ply, which
    keeps its mean at zero whatever is played).
    """
    variant = evaluator.variant
    n = len(stratified[0])
    result = np.zeros((n, 5))
    current = np.repeat(np.asarray(board)[None], n, axis=0)
    live = np.arange(n)
    swapped = np.zeros(n, dtype=bool)  # the side on roll is the rolled-out board's opponent
    dice = stratified[0]
    for turn in range(truncate or MAX_TURNS):
        played, again_after, probs = best_play_of_every_roll(evaluator, current)
        rolled = roll_index(dice)
        # the roll's luck: what its best play is worth less the average over the rolls, for the rolled-out side
        average = np.einsum("nrk,r->nk", probs, ROLL_WEIGHTS)
        lucky = probs[np.arange(len(live)), rolled]
        result[live] -= _seen_by(lucky, swapped[live]) - _seen_by(average, swapped[live])
        if search and turn < search[1]:
            rolled_plays = generate(current, dice, check=False, variant=variant)
            picked = ply_policy(evaluator, search[0])(rolled_plays)
            boards, again = rolled_plays.boards[picked], rolled_plays.extra_roll[picked]
        else:
            boards, again = played[np.arange(len(live)), rolled], again_after[np.arange(len(live)), rolled]
        won = result_points(boards, variant.checkers, variant.backgammons)
        over = won != 0
        result[live[over]] += _seen_by(outcome_probs(won[over]), swapped[live[over]])
        keep = ~over
        live, boards, again = live[keep], boards[keep], again[keep]
        current = variant.next_on_roll(boards, again)
        swapped[live] ^= ~again
        if not len(live):
            return result, 0
        # drawn for every game, so that game i's dice never depend on how the others go
        dice = (stratified[1] if turn == 0 else _rotated_rolls(rng, n))[live]
    result[live] += _seen_by(_truncation_estimate(evaluator, current, truncate_plies), swapped[live])
    return result, len(live)
