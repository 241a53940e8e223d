"""A deliberately simple move generator for Acey-Deucey, written from the rule text.

It shares no code with :mod:`engine.rules.movegen`, :mod:`engine.rules.board` or :mod:`engine.rules.variants`:
plain Python, one die at a time, recursive, each rule written out as the rule book
(docs/rules.md, "Acey-Deucey") states it. It is slow, and exists only to be compared with
the vectorized generator.

A position is a tuple of 28 ints seen from the mover: ``[0]`` opposing checkers on the bar,
``[1..24]`` the points in the mover's numbering (> 0 his checkers, < 0 the opponent's),
``[25]`` the mover's checkers on the bar, ``[26]`` the mover's checkers still off the board
(not yet entered), ``[27]`` the opponent's. The mover moves from 24 down to 1, enters on
point ``25 - die`` and bears off from 1..6.
"""

from __future__ import annotations

from functools import cache

OPPONENT_BAR, BAR, TO_ENTER = 0, 25, 26
HOME = range(1, 7)


def can_land(position: tuple, point: int) -> bool:
    """A checker may stop on an empty point, on its own checkers, or on a lone opposing checker (hitting it)."""
    return position[point] >= -1


def moved(position: tuple, source: int, target: int | None) -> tuple:
    """``position`` after one checker leaves ``source`` (a cell) for ``target`` (None: borne off), hitting a blot."""
    child = list(position)
    child[source] -= 1
    if target is not None:
        if child[target] == -1:  # a blot is hit and goes to its owner's bar
            child[target] = 0
            child[OPPONENT_BAR] += 1
        child[target] += 1
    return tuple(child)


def may_bear_off(position: tuple) -> bool:
    """Bearing off needs all fifteen home: none on the bar, none still to enter, none on 7..24."""
    return position[BAR] == 0 and position[TO_ENTER] == 0 and all(position[p] <= 0 for p in range(7, 25))


@cache
def single_moves(position: tuple, die: int) -> frozenset:
    """Every position one checker moving ``die`` pips can legally reach."""
    entry = 25 - die  # the opponent's ``die`` point, where checkers enter
    if position[BAR] > 0:  # a hit checker must enter before anything else moves
        return frozenset({moved(position, BAR, entry)} if can_land(position, entry) else ())
    out = set()
    if position[TO_ENTER] > 0 and can_land(position, entry):  # entering from off the board is a choice
        out.add(moved(position, TO_ENTER, entry))
    for point in range(1, 25):
        if position[point] <= 0:
            continue
        target = point - die
        if target >= 1:
            if can_land(position, target):
                out.add(moved(position, point, target))
        elif may_bear_off(position):
            exact = target == 0
            highest = all(position[p] <= 0 for p in range(point + 1, 7))
            if exact or highest:  # a larger die bears off only from the highest point
                out.add(moved(position, point, None))
    return frozenset(out)


def longest_plays(positions: frozenset, dice: tuple) -> tuple[int, frozenset]:
    """Play ``dice`` in this order, one die at a time, from every position in ``positions`` (all
    reached by the same number of dice): how many more dice can be used, and the positions
    reached by the plays that use that many."""
    if not dice:
        return 0, positions
    reached = frozenset().union(*(single_moves(p, dice[0]) for p in positions))
    if not reached:
        return 0, positions
    used, ends = longest_plays(reached, dice[1:])
    return used + 1, ends


def roll_afterstates(position: tuple, dice: tuple) -> tuple[int, set]:
    """A roll played as in backgammon: as many dice as possible; if only one of two different
    dice can be used, the larger one when it can be; the position itself when nothing moves.
    Returns how many dice the plays use (a double's four steps count four), and where they end."""
    high, low = max(dice), min(dice)
    start = frozenset({position})
    if high == low:
        used, ends = longest_plays(start, (high,) * 4)
        return used, set(ends)
    high_used, high_first = longest_plays(start, (high, low))
    low_used, low_first = longest_plays(start, (low, high))
    if max(high_used, low_used) == 2:
        return 2, set().union(*(ends for used, ends in ((high_used, high_first), (low_used, low_first))
                                if used == 2))
    if high_used == 1:
        return 1, set(high_first)
    return low_used, set(low_first)


def legal_afterstates(position, dice) -> set:
    """Every choice the mover has after rolling ``dice``: (the position he leaves, whether he
    rolls again).

    The 1-2 is played as a roll. If both its dice were played, the player names any double
    and plays as much of it as he can: the union, over every position after the 1-2 and
    every double, of that double's plays; he rolls again only after playing all four steps
    of it. If the 1-2 could not be played in full, the turn ends there: no double, no extra
    roll. No other roll rolls again.
    """
    single_moves.cache_clear()  # the cache holds one position's work: little is shared between positions
    position = tuple(int(v) for v in position)
    if sorted(int(d) for d in dice) == [1, 2]:
        used, after_1_2 = roll_afterstates(position, (1, 2))
        if used < 2:
            return {(after, False) for after in after_1_2}
        return {(end, steps == 4) for after in after_1_2 for double in range(1, 7)
                for steps, ends in [roll_afterstates(after, (double, double))] for end in ends}
    return {(after, False) for after in roll_afterstates(position, tuple(int(d) for d in dice))[1]}
