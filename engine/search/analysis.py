"""Position analysis: n-ply evaluation, move ranking, and the cube decision at a position.

Everything here takes an evaluator (see :mod:`engine.search.evaluator`) with ``probabilities``
and works on batches; nothing imports torch.

n-ply, as GNU Backgammon defines it: a position on roll at 0-ply is the evaluator's
own estimate; at n-ply it is the average over the 21 rolls of the move each roll would
play (chosen at 0-ply) evaluated at (n-1)-ply from the other side. Probabilities are
gnubg's five, for the player they belong to: P(win), P(win gammon), P(win backgammon),
P(lose gammon), P(lose backgammon); gammon figures include backgammons.

Cubeful equities and cube decisions are the cube layer's (:mod:`engine.cube.state`): Janowski's
model in money play, the match equity table at a match score.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gammon.engine.cube.decisions import cube_decision, cubeful_as_is, no_double_reason
from gammon.engine.cube.match import match_play_values
from gammon.engine.cube.money import cube_efficiency, cubeful_equity, money_cube_equities
from gammon.engine.cube.state import Cube, CubeDecision, cube_actions
from gammon.engine.rules.dice import ROLL_WEIGHTS, ROLLS
from gammon.engine.rules.groups import best_in_groups, distinct_rows
from gammon.engine.rules.movegen import generate
from gammon.engine.rules.outcomes import afterstate_probs, cubeless_equity, result_points, swap_sides
from gammon.engine.search.evaluator import SCREEN_KEEP, ProbabilityEvaluator, zero_ply_choice

# gnubg's default root move filter: keep up to 8 moves within 0.16 of the best at 0-ply.
FILTER_MOVES, FILTER_MARGIN = 8, 0.16
# gnubg's "normal" move filters, by the ply the candidates were judged at: after 0-ply up to 8 within
# 0.16 go on; from a 3-ply search on, after 2-ply up to 2 within 0.04 (gnubg skips the 1-ply stage).
MOVE_FILTERS = {0: (FILTER_MOVES, FILTER_MARGIN), 2: (2, 0.04)}
# The default of a search DEEP_SEARCH plies deep or more: gnubg's, with a 1-ply stage between (up to 5 within 0.10
# go on to 2-ply), which spares much of the quarter of a 3-ply's time spent at 2-ply on candidates the 3-ply never
# sees. On 500 contact positions of our own self-play (python -m gammon.benchmarks.filters) it chose the move gnubg's
# filters did in 498, 0.023 mp (± 0.024) worse by the 3-ply's own figures, in 0.92 of the time (benchmarks/RESULTS.md,
# "A 1-ply stage in a 3-ply's filters").
DEEP_FILTERS = {0: (FILTER_MOVES, FILTER_MARGIN), 1: (5, 0.10), 2: (2, 0.04)}

# Positions searched at once: each expands to about 400 afterstates a ply (21 rolls, ~20 plays). The same
# afterstates recur under the positions of one piece (a 2-ply hint judges a tenth fewer distinct boards in pieces of
# 128 than of 32), and the model judges a piece's boards a bounded number at a time (models.inference.NET_PIECE),
# so that its temporary arrays stay small enough for the allocator to reuse (benchmarks/search.py, RESULTS.md).
SEARCH_CHUNK = 128

# In a search DEEP_SEARCH plies deep or more, each roll at the deepest ply is played by the screen's first
# choice alone, judged in full (not its best SCREEN_KEEP): a 3-ply makes 9,261 such choices below each
# candidate, and their slips average out. On 200 contact positions of our own self-play the 3-ply so
# played chose the full 3-ply's move in 199 (0.001 mp lost) in 0.6 of its time; a 2-ply so played lost
# 0.23 mp to the full 2-ply, so it stays full (benchmarks/RESULTS.md, "A lighter deepest ply").
DEEP_SEARCH = 3


def position_probs(evaluator: ProbabilityEvaluator, boards: np.ndarray, plies: int, *,
                   depth: int | None = None) -> np.ndarray:
    """(N, 5) probabilities for the player on roll of each board, evaluated at ``plies``; ``depth`` is the
    whole search's (default ``plies``), which decides how its deepest ply plays (:data:`DEEP_SEARCH`)."""
    boards = np.asarray(boards)
    depth = plies if depth is None else depth
    own_search = getattr(evaluator, "searched", None)  # an evaluator with a search of its own (gnubg) runs it
    if plies and own_search is not None and (searching := own_search(plies)) is not None:
        evaluator, plies = searching, 0
    if plies == 0 or len(boards) == 0:
        return np.asarray(evaluator.probabilities(boards), dtype=np.float64).reshape(len(boards), 5)
    # Each distinct position searched once: a search meets many twice or more (every roll that dances from the
    # bar leaves the same board, and plays of different rolls can meet in one). Nearly a quarter of a 3-ply
    # hint's positions at its deepest ply are repeats (benchmarks/RESULTS.md).
    first, inverse = distinct_rows(boards)
    distinct = boards[first]
    probs = np.concatenate([_searched_piece(evaluator, distinct[i:i + SEARCH_CHUNK], plies, depth)
                            for i in range(0, len(distinct), SEARCH_CHUNK)])
    return probs[inverse]


def _searched_piece(evaluator: ProbabilityEvaluator, boards: np.ndarray, plies: int, depth: int) -> np.ndarray:
    """:func:`position_probs` of at most :data:`SEARCH_CHUNK` distinct boards, ``plies`` > 0."""
    n = len(boards)
    keep = 1 if plies == 1 and depth >= DEEP_SEARCH else SCREEN_KEEP
    played, again, static = best_play_of_every_roll(evaluator, boards, keep)
    chosen = static if plies == 1 else searched_afterstates(evaluator, played.reshape(-1, played.shape[-1]), plies - 1,
                                                            again.ravel(), depth=depth).reshape(n, len(ROLLS), 5)
    return np.einsum("nrk,r->nk", chosen, ROLL_WEIGHTS)


def best_play_of_every_roll(evaluator: ProbabilityEvaluator, boards: np.ndarray, keep: int = SCREEN_KEEP):
    """``(played, again, probs)``: for each board (player on roll) and each of the 21 rolls of ROLLS, the play the
    evaluator's 0-ply choice makes (engine.search.evaluator.zero_ply_choice, judging ``keep`` plays a roll in full):
    ``played`` (N, 21, cells) its afterstate, ``again`` (N, 21) whether the mover rolls again after it, ``probs``
    (N, 21, 5) its probabilities for the mover.

    Where the evaluator's screen finds the plays to judge in one compiled pass (its ``choices``: each roll's plays
    that it does not judge and its ``keep`` best, those of a roll with ``keep`` or fewer all), the same plays are
    judged the same way without every play of every roll passing through numpy."""
    n = len(boards)
    choices = getattr(getattr(evaluator, "screen", None), "choices", None)
    found = None if choices is None else choices(boards, ROLLS, keep)
    if found is not None:
        # grouped by board and roll, in the generator's order (every roll has a play); the plain variants it plays
        # never roll again
        rows, group = found
        judged = afterstate_probs(evaluator.probabilities, rows, evaluator.variant, np.zeros(len(rows), dtype=bool))
        best = best_in_groups(cubeless_equity(judged), np.searchsorted(group, np.arange(n * len(ROLLS) + 1)))
        played, again, probs = rows[best], np.zeros(len(best), dtype=bool), judged[best]
    else:
        afterstates = generate(np.repeat(boards, len(ROLLS), axis=0), np.tile(ROLLS, (n, 1)), check=False,
                               variant=evaluator.variant)
        best, probs = zero_ply_choice(evaluator, afterstates, afterstates.extra_roll, keep)
        played, again = afterstates.boards[best], afterstates.extra_roll[best]
    return (played.reshape(n, len(ROLLS), played.shape[-1]), again.reshape(n, len(ROLLS)),
            probs.reshape(n, len(ROLLS), 5))


def searched_afterstates(evaluator: ProbabilityEvaluator, boards: np.ndarray, plies: int,
                         extra_roll: np.ndarray | None = None, *, depth: int | None = None) -> np.ndarray:
    """(M, 5) probabilities for the side that just moved, each afterstate searched ``plies`` deep
    (from the opponent on roll, or from the mover where ``extra_roll`` says he rolls again); ``depth`` as
    :func:`position_probs` takes it."""
    return afterstate_probs(lambda on_roll: position_probs(evaluator, on_roll, plies, depth=depth), boards,
                            evaluator.variant, extra_roll)


# -- moves ---------------------------------------------------------------------------------


def filter_leaders(equity: np.ndarray, offsets: np.ndarray, keep: int = FILTER_MOVES,
                   margin: float = FILTER_MARGIN) -> np.ndarray:
    """Indices of each group's leaders: up to ``keep`` within ``margin`` of its best."""
    group = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    order = np.lexsort((-equity, group))  # by group, best first
    rank = np.arange(len(order)) - offsets[group[order]]
    best = equity[order[offsets[:-1]]]
    chosen = (rank < keep) & (equity[order] >= best[group[order]] - margin)
    return np.sort(order[chosen])


def ply_policy(evaluator: ProbabilityEvaluator, plies: int):
    """A move policy (engine.search.evaluator.Policy) choosing by cubeless equity at ``plies``, batched over games."""

    def choose(afterstates) -> np.ndarray:
        again = afterstates.extra_roll
        equity = cubeless_equity(searched_afterstates(evaluator, afterstates.boards, 0, again))
        if plies > 0:
            keep = filter_leaders(equity, afterstates.offsets)
            deep = np.full(len(equity), -np.inf)
            deep[keep] = cubeless_equity(searched_afterstates(evaluator, afterstates.boards[keep], plies, again[keep]))
            equity = deep
        return best_in_groups(equity, afterstates.offsets)

    return choose


def play_values(variant, boards: np.ndarray, again: np.ndarray, probs: np.ndarray, cube: Cube) -> np.ndarray:
    """What each play of one roll is worth to the mover, per unit of ``cube`` (EMG at a match score), from its
    afterstate's cubeless ``probs`` (mover's view): the cubeful money equity with the opponent on roll (or the
    mover, where ``again`` says he rolls again), or the match equity it leads to. A play that ends the game is
    worth its points. The search's and the rollouts' probabilities are made values the same way here."""
    won = result_points(boards, variant.checkers, variant.backgammons)
    geometry = variant.geometry
    if cube.money:
        x = cube_efficiency(geometry.flip(boards), geometry=geometry)
        cubeful = -cubeful_equity(swap_sides(probs), cube.swapped(), x) / cube.value
        if cube.jacoby and cube.owner == "centered":
            won = np.minimum(won, 1)  # gammons count single on a centered cube
        cubeful = np.where(won > 0, won, cubeful)
    else:
        cubeful = match_play_values(probs, boards, cube, variant)
    rolling = again & (won == 0)
    if rolling.any():  # the mover rolls again: still his turn, his cube as it stands
        x = cube_efficiency(boards[rolling], geometry=geometry)
        cubeful[rolling] = cubeful_as_is(probs[rolling], cube, x)
    return cubeful


@dataclass(frozen=True)
class RankedMove:
    board: np.ndarray  # the afterstate, mover's view
    steps: np.ndarray
    probs: np.ndarray  # (5,) for the mover
    equity: float  # cubeless
    cubeful: float  # money, per unit cube, opponent on roll after the move (the mover, if he rolls again)
    plies: int  # depth this move was evaluated at
    rolls_again: bool = False  # the mover rolls again (Acey-Deucey's 1-2 and its double, played in full)


def rank_moves(evaluator: ProbabilityEvaluator, board: np.ndarray, dice, plies: int = 0,
               cube: Cube = Cube(), also: np.ndarray | None = None,
               filters: dict[int, tuple[int, float]] | None = None) -> list[RankedMove]:
    """Every legal play of ``dice``, best first.

    Plays are valued by cubeful equity per unit of the cube: money equity, or at a match
    score the match equity each play leads to, in EMG (:func:`engine.cube.match.match_play_values`),
    so that gammons are priced at the score. As gnubg's move filters do, the candidates are
    judged ply by ply: ``filters`` (default :data:`MOVE_FILTERS`, or :data:`DEEP_FILTERS` in a
    search :data:`DEEP_SEARCH` plies deep or more) maps a ply to ``(keep, margin)``, the
    candidates that go on from it, deeper, after being judged there; plies without a filter
    are skipped. The choice is made among the moves searched deepest: they
    come first, by cubeful equity, and the moves a filter left behind follow them (by the
    figures of the ply they stopped at), never ranked above a move searched deeper. ``also``
    (an afterstate, e.g. the move a player chose) is searched deep whatever the filters say. Every stage
    plays its deepest ply as a search ``plies`` deep does (:data:`DEEP_SEARCH`).
    """
    afterstates = generate(np.asarray(board)[None], np.asarray(dice)[None], variant=evaluator.variant)
    again = afterstates.extra_roll
    probs = searched_afterstates(evaluator, afterstates.boards, 0, again)
    searched_to = np.zeros(len(probs), dtype=int)  # the plies each move was judged at
    if filters is None:
        filters = DEEP_FILTERS if plies >= DEEP_SEARCH else MOVE_FILTERS
    stages = sorted({0} | {p for p in filters if p < plies})
    chosen = (np.flatnonzero((afterstates.boards == np.asarray(also)).all(axis=1)) if also is not None
              else np.zeros(0, dtype=int))
    keep = np.arange(len(probs))
    for stage, deeper in zip(stages, stages[1:] + [plies]):
        if stage >= plies:
            break
        sizes = filters.get(stage, (len(keep), np.inf))
        leaders = filter_leaders(cubeless_equity(probs[keep]), np.array([0, len(keep)]), *sizes)
        keep = np.union1d(keep[leaders], chosen)
        probs[keep] = searched_afterstates(evaluator, afterstates.boards[keep], deeper, again[keep], depth=plies)
        searched_to[keep] = deeper
    equity = cubeless_equity(probs)
    cubeful = play_values(evaluator.variant, afterstates.boards, again, probs, cube)
    order = np.lexsort((-equity, -cubeful, -searched_to))  # deepest searched first, then best cubeful
    # the scalars as Python numbers in one call each, not one numpy call per move
    return [RankedMove(afterstates.boards[k], afterstates.steps[k], probs[k], *scalars)
            for k, *scalars in zip(order, equity[order].tolist(), cubeful[order].tolist(), searched_to[order].tolist(),
                                   again[order].tolist())]


# -- the cube ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CubeAdvice:
    """The cube as the player on roll faces it: what the decision rests on, and the decision."""

    probs: np.ndarray  # (5,) cubeless probabilities at the plies asked for
    efficiency: float  # Janowski's x of the position
    as_is: float  # cubeful equity per unit of the cube (EMG in a match), the cube left where it is
    decision: CubeDecision | None  # None where the opponent owns the cube: nothing to decide
    reason: str | None  # why doubling is closed or cannot gain (engine.cube.decisions.no_double_reason)


def cube_advice(evaluator: ProbabilityEvaluator, board: np.ndarray, cube: Cube, plies: int) -> CubeAdvice:
    """The cube decision of the player on roll in ``board`` holding ``cube`` (money, or the MET at a match
    score), the probabilities searched ``plies`` deep: every face (commands, the terminal, gnubg's
    external player, match analysis, the web board) asks here."""
    board = np.asarray(board)
    probs = position_probs(evaluator, board[None], plies)[0]
    x = float(cube_efficiency(board, geometry=evaluator.variant.geometry)[0])
    decision = None if cube.owner == "opponent" else cube_decision(probs, cube, x)
    return CubeAdvice(probs, x, float(cubeful_as_is(probs, cube, x)), decision, no_double_reason(cube))


def cube_actions_at(evaluator: ProbabilityEvaluator, boards: np.ndarray, cubes: list[Cube],
                    plies: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(doubles, answer, double_take)`` for each row, the doubler on roll in ``boards`` with ``cubes``: the
    game loop's players ask here. Money rows are batched (Janowski); match rows go one by one (the MET)."""
    probs = position_probs(evaluator, boards, plies)
    x = cube_efficiency(boards, geometry=evaluator.variant.geometry)
    if cubes[0].money:
        owned = np.array([c.owner == "me" for c in cubes])
        no_double, double_take = money_cube_equities(probs, owned, x, cubes[0].jacoby)
        doubles, answer = cube_actions(no_double, double_take, 1.0, cubes[0].beavers)
        return doubles, answer, double_take
    decisions = [cube_decision(p, c, float(xi)) for p, xi, c in zip(probs, x, cubes)]
    no_double, double_take = (np.array([getattr(d, k) for d in decisions]) for k in ("no_double", "double_take"))
    _, answer = cube_actions(no_double, double_take, 1.0)  # double/pass is +1 in EMG too
    return np.array([d.action == "double" for d in decisions]), answer, double_take
