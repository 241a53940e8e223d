"""Network input encodings, by versioned name (numpy; boards in the layout of :mod:`engine.rules.board`).

Every encoding sees the board from the player **on roll** (the mover slots) and
returns float32 rows. A weights file records the encoding it was trained with.

``tesauro198``: Tesauro's TD-Gammon inputs. For each of the 24 points and each side,
four units for n checkers: n >= 1, n >= 2, n >= 3, (n - 3) / 2 for n > 3 (192 units);
then per side checkers on the bar / 2 and borne off / 15; then two side-to-move units
(here always "on roll", kept for fidelity to the original layout).

``tesauro198+race``: the above plus six hand-crafted units that gnubg-style nets use
to separate race from contact and to read the race: pip counts / 100 for both sides,
their difference / 20, a contact flag, and each side's back checker position / 24.

``contact-v1``: ``tesauro198+race`` followed by the 14 contact features of
:mod:`models.features` for the player on roll, then the same 14 for the opponent
(hit chances, escapes, containment, primes, anchors, mobility, timing, pips to break
contact, bar entry, home points, back checkers): 232 inputs.

``contact-v2``: ``contact-v1`` followed by four more contact features of each side, the
mover's then the opponent's (pips it can expect to lose to a hit, the chance of being hit
twice, how freely its outfield checkers escape, how far its stragglers trail): 240 inputs.
It extends ``contact-v1``, so a net trained on that can seed it.

``contact-v3``: ``contact-v2`` followed by five more features of each side, the mover's then the
opponent's, the rest of gnubg's contact ideas (:mod:`models.features`): how well the opponent holds its
rearmost checker where it stands (``active_containment``), the pips of its checkers already past every
opposing one (``free_pips``), the shape of a back game and of a one-point holding game (``back_game``),
and how loosely its points back up its rearmost one (``backbone``): 250 inputs.

``race-v1``: ``tesauro198+race`` followed by the race features of :mod:`models.features`
(crossovers, checkers on the low points, gaps in the home board) for each side: 210 inputs.

Both start with the ``tesauro198+race`` columns (``extends``), so a net trained on that
encoding can seed one of them: its weights carry over and the new inputs start at zero.

``tesauro198+enter`` (Acey-Deucey's boards of 28 cells, :mod:`engine.rules.variants`):
``tesauro198`` of the points, the bars (hit checkers only) and the checkers truly borne off,
then per side the checkers still to enter / 15 and whether any are left (while one is,
its owner cannot bear off): 202 inputs. A board of 26 cells has none to enter, so the
first 198 columns are ``tesauro198``'s (``extends``).
"""

from __future__ import annotations

import numpy as np

from gammon.engine.errors import GammonError
from gammon.engine.rules.board import (
    BOARD_SIZE,
    MAX_CHECKERS,
    flip,
    mover_counts,
    opponent_counts,
    pips_of,
    race_of_back_checkers,
    rearmost,
)
from gammon.engine.rules.variants import MOVER_UNENTERED
from gammon.models.features import (
    CONTACT_EXTRA_NAMES,
    CONTACT_NAMES,
    CONTACT_V3_NAMES,
    RACE_NAMES,
    Sides,
    contact_extra_features,
    contact_features,
    contact_v3_features,
    race_features,
)

TESAURO_RACE_WIDTH = 204  # tesauro198+race's columns, which the encodings below (FEATURE_SETS) open with
# Tesauro's four units of a point holding n = 0..MAX_CHECKERS checkers: n >= 1, n >= 2, n >= 3, (n - 3) / 2 for n > 3.
_UNITS = np.array([[n >= 1, n >= 2, n >= 3, max(n - 3, 0) / 2] for n in range(MAX_CHECKERS + 1)], dtype=np.float32)


def _point_units(counts: np.ndarray) -> np.ndarray:
    """(N, k) checker counts -> (N, 4k) Tesauro units, four per point (looked up: the encoding's hot loop).

    ``np.take`` on native integers, not ``_UNITS[counts]``: numpy copies fancy-indexed rows
    one by one, about 20 times slower here.
    """
    return np.take(_UNITS, counts.astype(np.intp), axis=0).reshape(len(counts), 4 * counts.shape[1])


def tesauro198(boards: np.ndarray) -> np.ndarray:
    b = np.asarray(boards)
    return _tesauro_units(mover_counts(b), opponent_counts(b))


def _tesauro_units(mine: np.ndarray, theirs: np.ndarray, width: int = 198) -> np.ndarray:
    """tesauro198 of each side's (N, 25) counts (points 1..24 in its own numbering, then the bar), in the
    first 198 columns of a new (N, ``width``) float32 array whose other columns the caller fills: an
    encoding is written in place, not concatenated (the searches encode a hundred thousand boards a hint)."""
    n = len(mine)
    out = np.empty((n, width), dtype=np.float32)
    out[:, :192] = _point_units(np.concatenate([mine[:, :24], theirs[:, :24]], axis=1))  # both sides at once
    out[:, 192] = mine[:, 24] / 2.0
    out[:, 193] = theirs[:, 24] / 2.0
    out[:, 194] = (MAX_CHECKERS - mine.sum(1)) / 15.0
    out[:, 195] = (MAX_CHECKERS - theirs.sum(1)) / 15.0
    out[:, 196] = 1.0
    out[:, 197] = 0.0
    return out


OFF_UNITS = slice(194, 196)  # tesauro198's borne-off units, the mover's then the opponent's


def tesauro198_enter(boards: np.ndarray) -> np.ndarray:
    b = np.asarray(boards)
    to_enter = (b[:, MOVER_UNENTERED:] if b.shape[1] > BOARD_SIZE else np.zeros((len(b), 2))).astype(np.float32)
    units = tesauro198(b[:, :BOARD_SIZE])
    units[:, OFF_UNITS] -= to_enter / 15  # the 26 cells alone count the checkers still to enter as borne off
    return np.concatenate([units, to_enter / 15, to_enter > 0], axis=1, dtype=np.float32)


def _race_units(mine: np.ndarray, theirs: np.ndarray, out: np.ndarray) -> None:
    """Pips, their difference, contact and the back checkers, from each side's (N, 25) counts (taken once:
    the encoding is hot), written into the six columns of ``out``."""
    pips = np.stack([pips_of(mine), pips_of(theirs)], axis=1).astype(np.float32)
    my_back, their_back = rearmost(mine), rearmost(theirs)
    out[:, 0] = pips[:, 0] / 100
    out[:, 1] = pips[:, 1] / 100
    out[:, 2] = (pips[:, 1] - pips[:, 0]) / 20
    out[:, 3] = ~race_of_back_checkers(np.stack([my_back, their_back], axis=1))  # contact
    out[:, 4] = my_back / 24
    out[:, 5] = their_back / 24


def _tesauro_race(boards: np.ndarray, width: int) -> np.ndarray:
    """tesauro198+race in the first 204 columns of a new (N, ``width``) float32 array."""
    b = np.asarray(boards)
    mine, theirs = mover_counts(b), opponent_counts(b)
    out = _tesauro_units(mine, theirs, width)
    _race_units(mine, theirs, out[:, 198:204])
    return out


def tesauro198_race(boards: np.ndarray) -> np.ndarray:
    return _tesauro_race(boards, TESAURO_RACE_WIDTH)


def _both_sides(boards: np.ndarray) -> Sides:
    """The boards, then their flips, as one batch: each side's features in one pass (half the numpy calls)."""
    b = np.asarray(boards)
    return Sides(np.concatenate([b, flip(b)]))


def _write_sides(features: np.ndarray, out: np.ndarray) -> None:
    """Features of the boards then of their flips (rows of :func:`_both_sides`) into ``out``: the mover's
    columns, then the opponent's."""
    half, k = len(features) // 2, features.shape[1]
    out[:, :k], out[:, k:] = features[:half], features[half:]


# The feature sets an encoding adds after tesauro198+race's columns, each for the mover then the opponent:
# (function, columns of one side).
FEATURE_SETS = {
    "tesauro198+race": (),
    "contact-v1": ((contact_features, len(CONTACT_NAMES)),),
    "contact-v2": ((contact_features, len(CONTACT_NAMES)), (contact_extra_features, len(CONTACT_EXTRA_NAMES))),
    "contact-v3": ((contact_features, len(CONTACT_NAMES)), (contact_extra_features, len(CONTACT_EXTRA_NAMES)),
                   (contact_v3_features, len(CONTACT_V3_NAMES))),
    "race-v1": ((race_features, len(RACE_NAMES)),),
}


def _write_features(boards: np.ndarray, feature_sets, out: np.ndarray) -> None:
    """Each of ``feature_sets`` for both sides in turn (each side's Sides made once), written into ``out``."""
    if not feature_sets:
        return
    sides, column = _both_sides(boards), 0
    for features, k in feature_sets:
        _write_sides(features(sides), out[:, column:column + 2 * k])  # the mover's k columns, then the opponent's
        column += 2 * k


def features_after(name: str, boards: np.ndarray, start: int) -> np.ndarray:
    """The columns of encoding ``name`` (one of :data:`FEATURE_SETS`) from ``start`` on, where a feature set begins,
    as a new float32 array: for a first layer that sums the columns before them itself (models/_native.c)."""
    sets, column = list(FEATURE_SETS[name]), TESAURO_RACE_WIDTH
    while column < start:
        column += 2 * sets.pop(0)[1]
    if column != start:
        raise ValueError(f"no feature set of {name} begins at column {start}")
    out = np.empty((len(boards), ENCODINGS[name][1] - start), dtype=np.float32)
    _write_features(boards, sets, out)
    return out


def _encoded(name: str, boards: np.ndarray, width: int) -> np.ndarray:
    """tesauro198+race, then the feature sets of ``name``, written into one new (N, ``width``) float32 array."""
    out = _tesauro_race(boards, width)
    _write_features(boards, FEATURE_SETS[name], out[:, TESAURO_RACE_WIDTH:])
    return out


def contact_v1(boards: np.ndarray) -> np.ndarray:
    return _encoded("contact-v1", boards, 232)


def contact_v2(boards: np.ndarray) -> np.ndarray:
    return _encoded("contact-v2", boards, 240)


def contact_v3(boards: np.ndarray) -> np.ndarray:
    return _encoded("contact-v3", boards, 250)


def race_v1(boards: np.ndarray) -> np.ndarray:
    return _encoded("race-v1", boards, 210)


ENCODINGS = {
    "tesauro198": (tesauro198, 198),
    "tesauro198+race": (tesauro198_race, TESAURO_RACE_WIDTH),
    "contact-v1": (contact_v1, 232),
    "contact-v2": (contact_v2, 240),
    "contact-v3": (contact_v3, 250),
    "race-v1": (race_v1, 210),
    "tesauro198+enter": (tesauro198_enter, 202),
}
ENTERING_ENCODING = "tesauro198+enter"  # the one that reads Acey-Deucey's checkers still to enter
# Encodings whose first columns are another encoding's, in the same order.
EXTENDS = {"tesauro198+race": "tesauro198", "contact-v1": "tesauro198+race", "race-v1": "tesauro198+race",
           "contact-v2": "contact-v1", "contact-v3": "contact-v2", "tesauro198+enter": "tesauro198"}


def extends(encoding: str, base: str) -> bool:
    """Whether the columns of ``base`` open ``encoding`` (an encoding extends itself)."""
    while encoding != base and encoding in EXTENDS:
        encoding = EXTENDS[encoding]
    return encoding == base


def encoder(name: str):
    """(function, width) of the encoding ``name``; ValueError naming the known ones otherwise."""
    try:
        return ENCODINGS[name]
    except KeyError:
        raise GammonError(f"unknown encoding {name!r}; known: {', '.join(ENCODINGS)}") from None
