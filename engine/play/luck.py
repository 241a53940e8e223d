"""Luck: how much each roll helped its mover, and game results with the luck taken out.

The luck of a roll is the cubeless equity of the roll's best 0-ply play, by a reference
evaluator, less the average of the same over every roll that could have come: the 21 rolls
by their weights, or the 15 non-doubles for a game's opening roll (never a double). It is
in points per unit of the cube, for the mover.

Whatever the reference, a roll's luck averages exactly zero over the dice that could have
come. So a game's result less the luck of its rolls (the winner's good rolls taken away,
the loser's bad ones given back) has the same expectation as the result itself: an unbiased
estimate of the difference in skill, with much less noise the better the reference judges
(gnubg's "luck-adjusted result"; rollouts use the same idea to cut their variance).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gammon.engine.play.game import GameRecord
from gammon.engine.rules.dice import OPENING_ROLLS
from gammon.engine.rules.groups import best_in_groups
from gammon.engine.rules.movegen import generate
from gammon.engine.rules.outcomes import cubeless_equity
from gammon.engine.search.analysis import position_probs, searched_afterstates
from gammon.engine.search.evaluator import ProbabilityEvaluator

CHUNK = 1024  # rolls judged per batch: each position spreads into 21 rolls of about 20 plays
WILD_CHUNK = 16  # ... but into tens of thousands where a wild roll may be played with any double


def best_play_equities(evaluator: ProbabilityEvaluator, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
    """The cubeless equity of each board's best 0-ply play of its roll ``dice`` (N, 2), for the mover."""
    afterstates = generate(boards, dice, check=False, variant=evaluator.variant)
    equity = cubeless_equity(searched_afterstates(evaluator, afterstates.boards, 0, afterstates.extra_roll))
    return equity[best_in_groups(equity, afterstates.offsets)]


def roll_luck(evaluator: ProbabilityEvaluator, boards: np.ndarray, dice: np.ndarray,
              opening: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(luck, before)``: each roll's luck for its mover (N,), and each position's probabilities
    before the roll (N, 5), the weighted average over the 21 rolls of their best 0-ply plays.

    ``boards`` are seen by the player about to roll ``dice``; ``opening`` marks a game's first
    roll, whose average runs over the 15 non-doubles instead.
    """
    boards, dice = np.asarray(boards), np.asarray(dice)
    before = position_probs(evaluator, boards, 1)
    average = cubeless_equity(before)
    firsts = np.flatnonzero(opening) if opening is not None else np.zeros(0, dtype=np.int64)
    if len(firsts):
        k = len(OPENING_ROLLS)
        average[firsts] = best_play_equities(evaluator, np.repeat(boards[firsts], k, axis=0),
                                             np.tile(OPENING_ROLLS, (len(firsts), 1))).reshape(-1, k).mean(axis=1)
    return best_play_equities(evaluator, boards, dice) - average, before


def games_luck(evaluator: ProbabilityEvaluator, records: list[GameRecord],
               progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Player 0's luck in each recorded game: the luck of its rolls less that of its opponent's.

    Each record is one whole game from the starting position (its first turn is the opening
    roll) in which every roll was played: a roll seen and then resigned on would go missing
    because of its own value, and the estimate would no longer be unbiased.
    ``progress(k)`` hears of every k rolls judged.
    """
    turns = [(g, i == 0, mover, rolled, board) for g, record in enumerate(records)
             for i, (mover, rolled, board, _) in enumerate(record.turns)]
    luck = np.zeros(len(records))
    if not turns:
        return luck
    game, opening, mover, dice = (np.array(column) for column in list(zip(*turns))[:4])
    boards = np.stack([board for *_, board in turns])
    sign = np.where(mover == 0, 1.0, -1.0)
    chunk = CHUNK if evaluator.variant.wild_roll is None else WILD_CHUNK
    for start in range(0, len(turns), chunk):
        part = slice(start, start + chunk)
        rolls, _ = roll_luck(evaluator, boards[part], dice[part], opening[part])
        luck += np.bincount(game[part], weights=rolls * sign[part], minlength=len(records))
        if progress:
            progress(len(rolls))
    return luck
