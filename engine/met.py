"""The match equity table: Kazaross-XG2, as GNU Backgammon ships it (``data/kazaross_xg2.json``).

Match winning chances (MWC) before a game, pre-Crawford (a square table) and
post-Crawford (the trailer's chances against a 1-away leader), 1- to 25-away.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from .errors import GammonError

MET_PATH = Path(__file__).with_name("data") / "kazaross_xg2.json"
MAX_AWAY = 25  # the table's size; longer matches are outside it


@lru_cache(maxsize=1)
def _tables() -> tuple[np.ndarray, np.ndarray]:
    """The pre-Crawford (MAX_AWAY, MAX_AWAY) and post-Crawford (MAX_AWAY,) tables."""
    doc = json.loads(MET_PATH.read_text())
    pre = np.array(doc["pre_crawford"], dtype=np.float64)
    post = np.array(doc["post_crawford"], dtype=np.float64)
    if pre.shape != (MAX_AWAY, MAX_AWAY) or post.shape != (MAX_AWAY,):
        raise ValueError(f"{MET_PATH}: expected {MAX_AWAY}x{MAX_AWAY} and {MAX_AWAY} entries")
    return pre, post


def match_equity(my_away: int, opp_away: int, crawford_done: bool = False) -> float:
    """My match winning chance needing ``my_away`` points against ``opp_away``, before a game.

    0-away means the match is won. ``crawford_done`` matters only when a player is
    1-away: False means the next game is the Crawford game, True that it has been played
    (the game is post-Crawford).
    """
    if min(my_away, opp_away) < 0 or my_away == opp_away == 0:
        raise GammonError(f"no match score is {my_away}-away vs {opp_away}-away")
    if my_away == 0:
        return 1.0
    if opp_away == 0:
        return 0.0
    if max(my_away, opp_away) > MAX_AWAY:
        raise GammonError(f"the Kazaross-XG2 table stops at {MAX_AWAY}-away; got {my_away} vs {opp_away}")
    pre, post = _tables()
    if crawford_done and my_away == 1:
        return float(1.0 - post[opp_away - 1])
    if crawford_done and opp_away == 1:
        return float(post[my_away - 1])
    return float(pre[my_away - 1, opp_away - 1])
