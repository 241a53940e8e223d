"""GNU Backgammon's neural network (PyPI ``gnubg-nn``) as an evaluator, at 0-ply or its own n-ply.

``gnubg_nn`` sees a board as ``[[opponent x25], [mover x25]]``: each side in its own
numbering, index ``i`` = that side's point ``i+1``, index 24 = its bar, borne-off
checkers implicit. Verified conventions (gnubg-nn 1.1.0a11):

* ``gnubg_nn.probabilities(board, 0)`` scores the side in slot 1 as the player **on
  roll**, before rolling: 0.521 P(win) at the opening position; a race the slot-1 side
  leads by far gives 0.999, the same race with the slots swapped 0.004. The five values
  are gnubg's order, gammons including backgammons (as :mod:`engine.search.evaluator` wants).
* ``gnubg_nn.bestmove(board, d1, d2, 0, b"\\x00", 1)`` moves slot 1 at 0-ply and returns
  ``(moves, key)``: ``moves`` = ``((from, to), ...)`` 1-based in the mover's numbering
  (25 = bar, 0 = off; ``()`` when nothing can be played) and ``key`` a 20-character
  position key whose board (``gnubg_nn.boardfromkey``) is already turned to the next
  player: slot 0 = the side that just moved, slot 1 = its opponent, now on roll. The
  arguments are positional: ``(board, d1, d2, plies, side, key?, resign?, list?)``.
  ``bestmove(board, d1, d2, 0, b"\x00", 1, 0, 1)`` adds a third item, every legal
  play best first (empty when the play is forced), each ``(key, flat move,
  probabilities of the next player, mover's cubeless money equity)``; that equity is
  exactly ``-cubeless_equity`` of those probabilities, so gnubg's choice is this
  module's greedy choice up to exact ties (tests/test_gnubg_player.py).
* ``gnubg_nn.pub_best_move(board, d1, d2)`` is pubeval's choice for slot 1: a flat list
  ``[from, to, ...]`` 0-based in the mover's numbering (24 = bar, -1 = off), steps in
  play order; ``[]`` when nothing can be played.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.rules.board import DTYPE, MOVER_BAR, OPP_BAR
from gammon.engine.rules.variants import STANDARD
from gammon.engine.search.evaluator import afterstate_equity


def import_gnubg_nn():
    """The ``gnubg_nn`` module, or an ImportError that says how to install it."""
    try:
        import gnubg_nn
    except ImportError as exc:
        raise ImportError(
            "the gnubg evaluator needs GNU Backgammon's network from PyPI: pip install gnubg-nn"
        ) from exc
    return gnubg_nn


def to_gnubg(boards: np.ndarray) -> np.ndarray:
    """Our (N, 26) boards as gnubg arrays (N, 2, 25): [opponent, mover], each in its own numbering."""
    b = np.asarray(boards, dtype=np.int64).reshape(-1, 26)
    out = np.zeros((len(b), 2, 25), dtype=np.int64)
    out[:, 1, :24] = np.maximum(b[:, 1:25], 0)
    out[:, 1, 24] = b[:, MOVER_BAR]
    out[:, 0, :24] = np.maximum(-b[:, 24:0:-1], 0)  # mover point 25-k == opponent point k
    out[:, 0, 24] = b[:, OPP_BAR]
    return out


def from_gnubg(arrays) -> np.ndarray:
    """gnubg arrays (N, 2, 25) [opponent, mover] back to our (N, 26) int8 layout (slot 1 = our mover)."""
    g = np.asarray(arrays, dtype=np.int64).reshape(-1, 2, 25)
    out = np.zeros((len(g), 26), dtype=np.int64)
    out[:, OPP_BAR] = g[:, 0, 24]
    out[:, MOVER_BAR] = g[:, 1, 24]
    out[:, 1:25] = g[:, 1, :24] - g[:, 0, 23::-1]
    return out.astype(DTYPE)


class GnubgEvaluator:
    """gnubg's cubeless evaluation at ``plies`` (its own n-ply search, in C), one C call per board (see
    :mod:`engine.search.evaluator`). A search of ours asking it ``n`` plies deep gets gnubg's own
    search instead (``searched``): its n-ply plays each roll with its pruning nets, as gnubg does."""

    name = "gnubg"
    variant = STANDARD  # gnubg-nn plays standard backgammon

    def __init__(self, plies: int = 0):
        self._gnubg_nn = import_gnubg_nn()
        self.plies = plies

    def searched(self, plies: int) -> GnubgEvaluator:
        return GnubgEvaluator(self.plies + plies)

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(N, 5) float64 for boards seen from the player on roll, gnubg's order."""
        probabilities, plies = self._gnubg_nn.probabilities, self.plies
        return np.array([probabilities(g, plies) for g in to_gnubg(boards).tolist()],
                        dtype=np.float64).reshape(-1, 5)

    def score_afterstates(self, boards: np.ndarray) -> np.ndarray:
        return afterstate_equity(self, boards)
