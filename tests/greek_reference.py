"""A deliberately simple move generator for Fevga and Moultezim, written from the rule text.

It shares no code with :mod:`engine.rules.movegen` or :mod:`engine.rules.variants`: plain Python, one
die at a time, each rule written out as the rule book (docs/rules.md) states it. It is
slow, and exists only to be compared with the vectorized generator.

A board is a tuple of 26 ints in the layout of :mod:`engine.rules.board`, seen from the mover,
who moves from his 24-point (where all his checkers start) down to his 1-point and bears
off from 1..6. Both sides move the same way round the board: the opponent starts on the
mover's 12-point and passes the mover's 12 down to 1, then 24 down to 13.
"""

from __future__ import annotations

CHECKERS = 15
START = 24
OPPONENT_PATH = tuple(range(12, 0, -1)) + tuple(range(24, 12, -1))  # the opponent's points 24 down to 1
RULES = {
    # the point the first checker must reach before another leaves the start, the quadrant
    # the mover may never fill (in both, his starting quadrant), whether a prime in front of
    # every opposing checker is banned
    "moultezim": {"first_checker_reaches": 12, "never_fill": range(19, 25), "no_full_prime": False},
    "fevga": {"first_checker_reaches": 11, "never_fill": range(19, 25), "no_full_prime": True},
}


def may_move_from(board: tuple, point: int, rules: dict) -> bool:
    """The first-checker rule: while one checker alone has left the start and it has not yet
    reached its point, no other checker may move."""
    away = [p for p in range(1, START) if board[p] > 0]
    if board[START] == CHECKERS - 1 and len(away) == 1 and away[0] > rules["first_checker_reaches"]:
        return point == away[0]
    return True


def fills_quadrant(board: tuple, rules: dict) -> bool:
    """The mover has checkers on every point of the quadrant he must never fill."""
    return all(board[p] > 0 for p in rules["never_fill"])


def primes_every_opposing_checker(board: tuple) -> bool:
    """Six points in a row, all the mover's, ahead of the opponent's most advanced checker."""
    theirs = [i for i, p in enumerate(OPPONENT_PATH) if board[p] < 0]
    ahead = OPPONENT_PATH[theirs[-1] + 1 :] if theirs else OPPONENT_PATH
    run = 0
    for p in ahead:
        run = run + 1 if board[p] > 0 else 0
        if run == 6:
            return True
    return False


def steps(board: tuple, die: int, rules: dict) -> set:
    """Every position one checker moving ``die`` pips can legally reach."""
    out = set()
    all_home = all(board[p] <= 0 for p in range(7, 25))
    for point in range(1, 25):
        if board[point] <= 0 or not may_move_from(board, point, rules):
            continue
        target = point - die
        if target >= 1:
            if board[target] < 0:  # a single opposing checker holds a point; nothing is hit
                continue
        elif not all_home:  # bearing off only with every checker home
            continue
        elif target < 0 and any(board[p] > 0 for p in range(point + 1, 7)):
            continue  # a die larger than the point bears off only from the highest point
        child = list(board)
        child[point] -= 1
        if target >= 1:
            child[target] += 1
        child = tuple(child)
        if fills_quadrant(child, rules):
            continue
        if rules["no_full_prime"] and primes_every_opposing_checker(child):
            continue
        out.add(child)
    return out


def reachable(board: tuple, dice: list, rules: dict) -> list[set]:
    """Positions after playing the first 0, 1, 2, ... of ``dice`` in this order."""
    levels = [{board}]
    for die in dice:
        nxt = set().union(*(steps(b, die, rules) for b in levels[-1]))
        if not nxt:
            break
        levels.append(nxt)
    return levels


def legal_afterstates(board, dice, variant: str) -> set:
    """Every position a legal play of ``dice`` leads to; the board itself when nothing can move.

    Compulsory play as in backgammon: use as many dice as possible; if only one of two
    different dice can be used, the larger one when it can be.
    """
    rules = RULES[variant]
    board = tuple(int(v) for v in board)
    high, low = max(dice), min(dice)
    if high == low:
        return reachable(board, [high] * 4, rules)[-1]
    high_first, low_first = reachable(board, [high, low], rules), reachable(board, [low, high], rules)
    both = [levels[2] for levels in (high_first, low_first) if len(levels) == 3]
    if both:
        return set().union(*both)
    if len(high_first) == 2:
        return high_first[1]
    return low_first[-1]
