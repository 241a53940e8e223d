"""How the engine talks to evaluators without knowing what they are (no torch here).

An *evaluator* is any object with

- ``score_afterstates(boards) -> (M,) float``: boards in the layout of
  :mod:`engine.rules.board`, each the position just after the *mover* played (the mover
  still in the mover's slots); higher is better for the mover. This is all a player
  needs to choose a move (pubeval, the heuristic and random players have only this).

and, for evaluators that estimate game outcomes (the neural networks),

- ``probabilities(boards) -> (N, 5) float``: boards seen from the player **on roll**,
  before rolling; columns in gnubg's order P(win), P(win gammon), P(win backgammon),
  P(lose gammon), P(lose backgammon), the gammon columns including backgammons.

and, optionally, a ``screen`` (None or a callable ``screen(boards) -> (M,) float``): a cheap
guess at the mover's equity of afterstates, NaN where it has none, with which a search
ranks one roll's plays and judges only the best few with ``probabilities``
(:func:`engine.search.evaluator.zero_ply_choice`; the shipped model's pruning net, built by
``training/prune.py``). A screen may also have ``played(boards, origins, parent)``: the same
answers for afterstates given with the boards their plays started from (``origins[parent]``),
which the compiled pruning net sums from those boards' inputs plus the few a play changes;

and, optionally, ``searched(plies)``: the same evaluator searching ``plies`` deeper with a search of
its own (GNU Backgammon's n-ply, run in C by gnubg-nn), or None where it has none. The engine's
n-ply (:func:`engine.search.analysis.position_probs`) then asks that evaluator at 0-ply instead of
searching itself, so that "gnubg at 1-ply" means gnubg's own 1-ply in a match, a hint or a benchmark;

and ``variant``, the :class:`engine.rules.variants.Variant` of the game it evaluates: its
checkers a side (15; 3 in hypergammon), how the board turns round to the other side, and
its scoring. Finished positions (the mover has borne off every checker) are scored
exactly with it (:mod:`engine.rules.outcomes`) and never reach an evaluator.

``score_afterstates`` values every afterstate as the turn passing to the opponent. After a
wild roll played in full (Acey-Deucey's 1-2 and its double, ``Afterstates.extra_roll``) the mover
rolls again instead:
:func:`afterstate_scores`, the one way players score a generator's afterstates, then values
them as his own position on roll when the evaluator estimates probabilities. A scorer
without probabilities (pubeval, the heuristic, random) judges the board as it stands, from
the mover's side either way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from gammon.engine.rules.groups import best_in_groups, best_k_in_groups
from gammon.engine.rules.movegen import Afterstates, WildFilter
from gammon.engine.rules.outcomes import afterstate_probs, cubeless_equity
from gammon.engine.rules.variants import Variant

# A move policy: given the afterstates of every game it must move in (grouped by game), the flat index
# (into ``afterstates.boards``) of the afterstate it plays in each. The game loop asks one of each player.
Policy = Callable[[Afterstates], np.ndarray]


class Evaluator(Protocol):
    name: str

    def score_afterstates(self, boards: np.ndarray) -> np.ndarray: ...


class ProbabilityEvaluator(Evaluator, Protocol):
    variant: Variant  # the game it evaluates: finished games are scored by its rules, boards turned by its geometry

    def probabilities(self, boards: np.ndarray) -> np.ndarray: ...


def afterstate_equity(evaluator: ProbabilityEvaluator, boards: np.ndarray,
                      extra_roll: np.ndarray | None = None) -> np.ndarray:
    """The mover's cubeless equity of each afterstate (a finished game exactly: +1, +2 or +3); where
    ``extra_roll`` ((M,) bool) marks it, the mover rolls again and is on roll in it."""
    return cubeless_equity(afterstate_probs(evaluator.probabilities, boards, evaluator.variant, extra_roll))


def afterstate_scores(evaluator: Evaluator, afterstates: Afterstates) -> np.ndarray:
    """(M,) scores of every afterstate for its mover: ``score_afterstates``, except that after a wild
    roll a probability evaluator values the position with the mover on roll again."""
    return board_scores(evaluator, afterstates.boards, afterstates.extra_roll)


def board_scores(evaluator: Evaluator, boards: np.ndarray, again: np.ndarray) -> np.ndarray:
    """(M,) scores of positions just moved for their mover, who plays again where ``again`` says so."""
    if again.any() and hasattr(evaluator, "probabilities"):
        return afterstate_equity(evaluator, boards, again)
    return np.asarray(evaluator.score_afterstates(boards), dtype=np.float64)


# Plays of one roll judged in full inside a search, of those a pruning net ranks best (gnubg keeps 10 with a
# net 8 times cheaper than ours; benchmarks/RESULTS.md has what this costs in accuracy and gains in time).
SCREEN_KEEP = 5


def zero_ply_choice(evaluator: ProbabilityEvaluator, afterstates: Afterstates, again: np.ndarray,
                    keep: int = SCREEN_KEEP) -> tuple[np.ndarray, np.ndarray]:
    """``(best, probs)``: each group's best afterstate at 0-ply (flat index) and its (G, 5) probabilities for
    the mover.

    With an evaluator that has a ``screen`` (a pruning net, above), as gnubg
    prunes inside its searches: only the ``keep`` plays of each group that the screen ranks
    best are judged in full, with every play the screen does not judge (NaN) and every play
    after which the mover rolls again. A screen with ``played`` judges each play from the board it started
    from (``afterstates.origins``, where the generator gave them).
    """
    boards, offsets = afterstates.boards, afterstates.offsets
    screen = getattr(evaluator, "screen", None)
    rows = np.arange(len(boards))
    sizes = np.diff(offsets)
    crowded = [] if screen is None else np.flatnonzero(np.repeat(sizes > keep, sizes) & ~again)
    if len(crowded):  # groups with plays to prune
        scores = np.full(len(boards), np.nan)
        played = getattr(screen, "played", None)
        origins = afterstates.origins
        scores[crowded] = (screen(boards[crowded]) if origins is None or played is None
                           else played(boards[crowded], origins, afterstates.parent[crowded]))
        unjudged = np.isnan(scores)
        group = np.repeat(np.arange(len(sizes)), sizes)
        rows = np.flatnonzero(unjudged | best_k_in_groups(np.where(unjudged, -np.inf, scores), group, keep))
    judged = afterstate_probs(evaluator.probabilities, boards[rows], evaluator.variant, again[rows])
    equity = np.full(len(boards), -np.inf)
    equity[rows] = cubeless_equity(judged)
    best = best_in_groups(equity, offsets)
    return best, judged[np.searchsorted(rows, best)]  # rows ascend: each best's place among the judged


# A wild roll's two dice can be played a few dozen ways, each followed by any of six doubles:
# 10,000 to 17,000 afterstates a turn. The bots go on to the doubles from the best few only.
WILD_KEEP = 3


def wild_filter(evaluator: Evaluator, keep: int = WILD_KEEP) -> WildFilter:
    """A bot's :data:`engine.rules.movegen.WildFilter`: of a wild roll's plays of its own two dice, the
    ``keep`` best for the mover (valued as his position on roll, for he moves again) go on."""

    def best_few(boards: np.ndarray, group: np.ndarray) -> np.ndarray:
        return best_k_in_groups(board_scores(evaluator, boards, np.ones(len(boards), dtype=bool)), group, keep)

    return best_few


def evaluator_policy(evaluator: Evaluator, screened: bool = False) -> Policy:
    """0-ply play: the afterstate with the best score for the mover (first one on ties). ``screened``, with
    an evaluator that has a screen: the best of the plays it ranks best (:func:`zero_ply_choice`), as
    gnubg's rollouts play; rollouts ask for it, a bot that plays a game does not.

    The policy carries its :func:`wild_filter` (``choose.wild_filter``), which the game loop hands
    to the move generator; only a variant with a wild roll uses it."""
    screening = screened and getattr(evaluator, "screen", None) is not None

    def choose(afterstates: Afterstates) -> np.ndarray:
        if screening:
            return zero_ply_choice(evaluator, afterstates, afterstates.extra_roll)[0]
        return best_in_groups(afterstate_scores(evaluator, afterstates), afterstates.offsets)

    choose.wild_filter = wild_filter(evaluator)
    return choose
