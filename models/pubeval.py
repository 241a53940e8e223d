"""Tesauro's pubeval (1993), the public benchmark evaluator, batched in numpy.

pubeval is a linear function ``score = w . x`` of a 122-input encoding ``x`` of the
position after the move, with one weight vector for races (``WR``) and one for contact
positions (``WC``). It plays a weak but sensible game and is the usual yardstick for
backgammon programs.

Board mapping
-------------
Tesauro's ``pos[0..27]`` is seen from the "computer", the side whose move is scored:
``pos[1..24]`` its points (it moves 24 -> 1), > 0 its checkers, < 0 the opponent's;
``pos[25]`` its bar (> 0), ``pos[0]`` the opponent's bar (< 0), ``pos[26]`` its
checkers off (> 0), ``pos[27]`` the opponent's off (< 0). The computer is our *mover*
of the afterstate, so our layout maps one to one:

=================  ===========================================
pubeval            engine board ``b`` (afterstate)
=================  ===========================================
``pos[1..24]``     ``b[1..24]``
``pos[25]``        ``b[25]`` (not an input of pubeval)
``pos[0]``         ``-b[0]``
``pos[26]``        ``15 - (mover checkers on points and bar)``
``pos[27]``        opponent's off (not an input of pubeval)
=================  ===========================================

Inputs (Tesauro's ``setx``), block ``k = 24 - p`` of five for point ``p``:
``x[5k] = 1`` for an opponent blot (larger opponent points are not encoded),
``x[5k+1] = 1`` for one mover checker, ``x[5k+2] = 1`` for two or more,
``x[5k+3] = 1`` for exactly three, ``x[5k+4] = (n - 3) / 2`` for ``n >= 4``;
``x[120]`` = opponent checkers on the bar / 2, ``x[121]`` = mover checkers off / 15.

Race test: Tesauro asks for the race flag of the position *before* the move; an
afterstate evaluator sees only the position after it, so (as gnubg does) the flag is
taken from the afterstate: a race when every mover checker has passed every opponent
checker. A play that breaks contact is therefore scored with the race weights.

Weights: Tesauro's published ``WT.race`` / ``WT.cntc`` values, as in the pubeval.c
copies of github.com/markusfreyr/Backgammon and weekend37/Backgammon (``pubeval.c``)
and, pre-scaled by 1/2 and 1/15, in gnubg-nn's ``eggmoveg.c``.

``gnubg_nn.pub_eval_score([mover x25, opponent x25])`` (each side in its own numbering,
index 24 its bar) gives the same scores: gnubg takes the board after the move already
turned to the next player on roll (slot 1) and scores the side that just moved (slot 0).
"""

from __future__ import annotations

import numpy as np

from gammon.engine.errors import GammonError
from gammon.engine.rules.board import BOARD_SIZE, MAX_CHECKERS, is_race, mover_counts

# Tesauro's race weights, five per point (blocks for points 24..1), then bar and off.
WR = np.array([
    0.00000, -0.17160, 0.27010, 0.29906, -0.08471,
    0.00000, -1.40375, -1.05121, 0.07217, -0.01351,
    0.00000, -1.29506, -2.16183, 0.13246, -1.03508,
    0.00000, -2.29847, -2.34631, 0.17253, 0.08302,
    0.00000, -1.27266, -2.87401, -0.07456, -0.34240,
    0.00000, -1.34640, -2.46556, -0.13022, -0.01591,
    0.00000, 0.27448, 0.60015, 0.48302, 0.25236,
    0.00000, 0.39521, 0.68178, 0.05281, 0.09266,
    0.00000, 0.24855, -0.06844, -0.37646, 0.05685,
    0.00000, 0.17405, 0.00430, 0.74427, 0.00576,
    0.00000, 0.12392, 0.31202, -0.91035, -0.16270,
    0.00000, 0.01418, -0.10839, -0.02781, -0.88035,
    0.00000, 1.07274, 2.00366, 1.16242, 0.22520,
    0.00000, 0.85631, 1.06349, 1.49549, 0.18966,
    0.00000, 0.37183, -0.50352, -0.14818, 0.12039,
    0.00000, 0.13681, 0.13978, 1.11245, -0.12707,
    0.00000, -0.22082, 0.20178, -0.06285, -0.52728,
    0.00000, -0.13597, -0.19412, -0.09308, -1.26062,
    0.00000, 3.05454, 5.16874, 1.50680, 5.35000,
    0.00000, 2.19605, 3.85390, 0.88296, 2.30052,
    0.00000, 0.92321, 1.08744, -0.11696, -0.78560,
    0.00000, -0.09795, -0.83050, -1.09167, -4.94251,
    0.00000, -1.00316, -3.66465, -2.56906, -9.67677,
    0.00000, -2.77982, -7.26713, -3.40177, -12.32252,
    0.00000, 3.42040,
])

# Tesauro's contact weights, same layout.
WC = np.array([
    0.25696, -0.66937, -1.66135, -2.02487, -2.53398,
    -0.16092, -1.11725, -1.06654, -0.92830, -1.99558,
    -1.10388, -0.80802, 0.09856, -0.62086, -1.27999,
    -0.59220, -0.73667, 0.89032, -0.38933, -1.59847,
    -1.50197, -0.60966, 1.56166, -0.47389, -1.80390,
    -0.83425, -0.97741, -1.41371, 0.24500, 0.10970,
    -1.36476, -1.05572, 1.15420, 0.11069, -0.38319,
    -0.74816, -0.59244, 0.81116, -0.39511, 0.11424,
    -0.73169, -0.56074, 1.09792, 0.15977, 0.13786,
    -1.18435, -0.43363, 1.06169, -0.21329, 0.04798,
    -0.94373, -0.22982, 1.22737, -0.13099, -0.06295,
    -0.75882, -0.13658, 1.78389, 0.30416, 0.36797,
    -0.69851, 0.13003, 1.23070, 0.40868, -0.21081,
    -0.64073, 0.31061, 1.59554, 0.65718, 0.25429,
    -0.80789, 0.08240, 1.78964, 0.54304, 0.41174,
    -1.06161, 0.07851, 2.01451, 0.49786, 0.91936,
    -0.90750, 0.05941, 1.83120, 0.58722, 1.28777,
    -0.83711, -0.33248, 2.64983, 0.52698, 0.82132,
    -0.58897, -1.18223, 3.35809, 0.62017, 0.57353,
    -0.07276, -0.36214, 4.37655, 0.45481, 0.21746,
    0.10504, -0.61977, 3.54001, 0.04612, -0.18108,
    0.63211, -0.87046, 2.47673, -0.48016, -1.27157,
    0.86505, -1.11342, 1.24612, -0.82385, -2.77082,
    1.23606, -1.59529, 0.10438, -1.30206, -4.11520,
    5.62596, -2.75800,
])

N_INPUTS = 122
# pubeval's score for a move that bears off the last checker: "best possible move".
WIN_SCORE = 99999999.0


def _backgammon_boards(boards: np.ndarray) -> np.ndarray:
    """``boards`` as (M, 26) int64; GammonError for boards of another size (Acey-Deucey's 28 cells hold
    checkers still to enter, which pubeval never saw)."""
    b = np.asarray(boards, dtype=np.int64)
    if b.shape[-1] != BOARD_SIZE:
        raise GammonError(f"pubeval reads backgammon's boards of {BOARD_SIZE} cells; got {b.shape[-1]}")
    return b.reshape(-1, BOARD_SIZE)


def pubeval_inputs(boards: np.ndarray) -> np.ndarray:
    """(M, 122) float64 inputs of Tesauro's ``setx`` (see the module docstring)."""
    b = _backgammon_boards(boards)
    n = b[:, 24:0:-1]  # block k holds point 24 - k
    x = np.zeros((len(b), N_INPUTS))
    blocks = x[:, :120].reshape(len(b), 24, 5)  # a view: writes land in x
    blocks[..., 0] = n == -1
    blocks[..., 1] = n == 1
    blocks[..., 2] = n >= 2
    blocks[..., 3] = n == 3
    blocks[..., 4] = np.where(n >= 4, (n - 3) / 2.0, 0.0)
    x[:, 120] = b[:, 0] / 2.0
    x[:, 121] = (MAX_CHECKERS - mover_counts(b).sum(-1)) / 15.0
    return x


def pubeval_scores(boards: np.ndarray) -> np.ndarray:
    """(M, 26) afterstates -> (M,) float64 pubeval scores for the mover (higher is better).

    A board where the mover has no checker left scores ``WIN_SCORE``, as in pubeval.c.
    """
    b = _backgammon_boards(boards)
    x = pubeval_inputs(b)
    weights = np.where(is_race(b)[:, None], WR, WC)
    # A row-wise sum, not a matrix product: each score then does not depend on the batch.
    scores = (x * weights).sum(-1)
    return np.where(mover_counts(b).sum(-1) == 0, WIN_SCORE, scores)


class PubevalEvaluator:
    """Tesauro's pubeval as an evaluator (see :mod:`engine.search.evaluator`)."""

    name = "pubeval"

    def score_afterstates(self, boards: np.ndarray) -> np.ndarray:
        return pubeval_scores(boards)
