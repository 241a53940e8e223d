"""The cube decision of the player on roll, money or match, from the cubeless probabilities: the one
place that chooses between Janowski's money model (:mod:`engine.cube.money`) and the match equity
table (:mod:`engine.cube.match`)."""

from __future__ import annotations

import numpy as np

from gammon.engine.cube.match import cubeful_mwc, match_cube_decision, to_emg
from gammon.engine.cube.money import cubeful_equity, money_cube_decision
from gammon.engine.cube.state import Cube, CubeDecision


def cube_decision(probs: np.ndarray, cube: Cube, x: float) -> CubeDecision:
    """The cube decision for the player on roll: money (Janowski) or, with a match score, the MET."""
    if cube.money:
        return money_cube_decision(probs, cube, x)
    return match_cube_decision(probs, cube, x)


def cubeful_as_is(probs: np.ndarray, cube: Cube, x: np.ndarray | float) -> np.ndarray:
    """Cubeful equity per unit of the cube (EMG in a match) of the player on roll, the cube left where it is."""
    if cube.money:
        return cubeful_equity(probs, cube, x) / cube.value
    return to_emg(cubeful_mwc(probs, cube, x), cube)


def no_double_reason(cube: Cube) -> str | None:
    """Why the player on roll has no cube decision to make, or None when doubling is open to them."""
    if cube.owner == "opponent":
        return "the opponent owns the cube"
    if cube.crawford:
        return "the Crawford game: no doubling"
    if not cube.money and cube.my_away <= cube.value:
        return "the cube already wins the match"
    return None
