"""Network input encodings, by versioned name (numpy; boards in the layout of :mod:`engine.board`).

Every encoding sees the board from the player **on roll** (the mover slots) and
returns float32 rows. A weights file records the encoding it was trained with.

``tesauro198``: Tesauro's TD-Gammon inputs. For each of the 24 points and each side,
four units for n checkers: n >= 1, n >= 2, n >= 3, (n - 3) / 2 for n > 3 (192 units);
then per side checkers on the bar / 2 and borne off / 15; then two side-to-move units
(here always "on roll", kept for fidelity to the original layout).

``tesauro198+race``: the above plus six hand-crafted units that gnubg-style nets use
to separate race from contact and to read the race: pip counts / 100 for both sides,
their difference / 20, a contact flag, and each side's back checker position / 24.
"""

from __future__ import annotations

import numpy as np

from engine.board import MAX_CHECKERS, back_checkers, is_race, mover_counts, opponent_counts, pip_counts


def _point_units(counts: np.ndarray) -> np.ndarray:
    """(N, 24) checker counts -> (N, 96) Tesauro units, four per point."""
    n = counts.astype(np.float32)
    units = np.stack([n >= 1, n >= 2, n >= 3, np.maximum(n - 3, 0) / 2], axis=-1)
    return units.astype(np.float32).reshape(len(counts), 96)


def tesauro198(boards: np.ndarray) -> np.ndarray:
    b = np.asarray(boards)
    mine, theirs = mover_counts(b), opponent_counts(b)  # (N, 25): points 1..24 in own numbering, bar
    off = MAX_CHECKERS - np.stack([mine.sum(1), theirs.sum(1)], axis=1)
    rest = np.concatenate(
        [
            mine[:, 24:25] / 2.0,
            theirs[:, 24:25] / 2.0,
            off / 15.0,
            np.ones((len(b), 1)),
            np.zeros((len(b), 1)),
        ],
        axis=1,
    ).astype(np.float32)
    return np.concatenate([_point_units(mine[:, :24]), _point_units(theirs[:, :24]), rest], axis=1)


def _race_units(boards: np.ndarray) -> np.ndarray:
    b = np.asarray(boards)
    pips = pip_counts(b).astype(np.float32)
    my_back, their_back = back_checkers(b).T
    contact = ~is_race(b)
    return np.stack(
        [pips[:, 0] / 100, pips[:, 1] / 100, (pips[:, 1] - pips[:, 0]) / 20, contact, my_back / 24, their_back / 24],
        axis=1,
    ).astype(np.float32)


def tesauro198_race(boards: np.ndarray) -> np.ndarray:
    return np.concatenate([tesauro198(boards), _race_units(boards)], axis=1)


ENCODINGS = {"tesauro198": (tesauro198, 198), "tesauro198+race": (tesauro198_race, 204)}


def encoder(name: str):
    """(function, width) of the encoding ``name``; ValueError naming the known ones otherwise."""
    try:
        return ENCODINGS[name]
    except KeyError:
        raise ValueError(f"unknown encoding {name!r}; known: {', '.join(ENCODINGS)}") from None
