"""Batched games: N games advance together, one move-generator call per side per ply.

A *policy* is any callable ``policy(afterstates) -> choice`` that receives the
:class:`~engine.movegen.Afterstates` of every game it must move in, and returns for
each game the flat index (into ``afterstates.boards``) of the afterstate it plays.
Evaluators from ``models/`` plug in through :func:`engine.evaluator.evaluator_policy`;
the engine itself never imports them. A player may carry a ``wild_filter``
(:data:`engine.movegen.WildFilter`), handed to the generator to prune its wild rolls' plays.

Scoring (docs/rules.md): the game ends the moment a side bears off its last checker; the
loser pays 1 (single), 2 (gammon: nothing borne off) or 3 (backgammon: nothing borne
off and a checker on the bar, still to enter, or in the winner's home board), the last
only in variants that have backgammons (not Fevga or Moultezim).

The variant (:mod:`engine.variants`) decides the starting position, the legal moves (the
generator reads its hooks), how the board is turned round between turns (its geometry),
whether the player rolls again (a wild roll, Acey-Deucey's 1-2: ``Afterstates.extra_roll``)
and the scoring; nothing else in the loop depends on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .board import BOARD_SIZE, checkers_off, mover_counts, validate, validate_batch
from .cube import BEAVER, PASS, TAKE, Cube
from .errors import GammonError
from .met import MAX_AWAY
from .movegen import Afterstates, generate
from .notation import format_move
from .variants import OPPONENT_UNENTERED, variant_named

Policy = Callable[[Afterstates], np.ndarray]
MAX_CUBE = 2**50


def opening_rolls(rng: np.random.Generator, n: int, automatic: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(n, 2) opening rolls, one die per player (player 0 first), re-rolled while equal, and the cube each
    game starts with: in money play with ``automatic`` doubles, each tie (up to that many) doubles it."""
    dice = rng.integers(1, 7, size=(n, 2))
    cube = np.ones(n, dtype=np.int64)
    doubled = np.zeros(n, dtype=np.int64)
    while True:
        ties = dice[:, 0] == dice[:, 1]
        if not ties.any():
            return dice, cube
        bump = ties & (doubled < automatic)
        cube[bump] *= 2
        doubled[bump] += 1
        dice[ties] = rng.integers(1, 7, size=(int(ties.sum()), 2))


def result_points(boards: np.ndarray, checkers: int, backgammons: bool = True) -> np.ndarray:
    """Points won by the mover of each afterstate: 0 if it has checkers left (on the board, on
    the bar or still to enter), else 1, 2 or 3 (3 only where the variant has ``backgammons``)."""
    b = np.asarray(boards)
    won = mover_counts(b).sum(-1) == 0
    loser_off = checkers_off(b, checkers)[..., 1]
    loser_in_danger = (b[..., 0] > 0) | np.any(b[..., 1:7] < 0, axis=-1)  # bar, or winner's home board
    if b.shape[-1] > BOARD_SIZE:  # Acey-Deucey: a checker never entered is further back than the bar
        loser_in_danger |= b[..., OPPONENT_UNENTERED] > 0
    points = np.where(loser_off > 0, 1, np.where(loser_in_danger & backgammons, 3, 2))
    return np.where(won, points, 0)


def random_policy(rng: np.random.Generator) -> Policy:
    """A policy that plays a uniformly random legal afterstate."""

    def choose(afterstates: Afterstates) -> np.ndarray:
        counts = afterstates.counts()
        return afterstates.offsets[:-1] + (rng.random(len(counts)) * counts).astype(np.int64)

    return choose


def best_in_groups(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Flat index of the largest value in each group ``values[offsets[i]:offsets[i+1]]`` (first on ties)."""
    return ranked_in_groups(values, offsets)[offsets[:-1]]


def ranked_in_groups(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Flat indices in group order, best value first within each group (first on ties)."""
    group = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    return np.lexsort((-values, group))


@dataclass
class GameRecord:
    """One game turn by turn: who moved, the dice, the position before and the move played."""

    variant: str
    opening: tuple[int, int]  # the first roll (the opening roll from the starting position)
    turns: list[tuple[int, tuple[int, int], np.ndarray, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Rules:
    match_length: int = 0  # 0 = money
    jacoby: bool = False  # money only
    beavers: bool = False  # money only
    automatic_doubles: int = 0  # money only: how many per game (0 = off)
    variant: str = "standard"

    def __post_init__(self):
        variant_named(self.variant)  # an unknown name is refused here, in one line
        if not 0 <= self.match_length <= MAX_AWAY:
            raise GammonError(f"match length must be 1..{MAX_AWAY} (match equity's reach), or 0 for money; "
                             f"got {self.match_length}")


@dataclass(frozen=True)
class GameEvent:
    """One thing that happened in slot ``slot`` of :func:`play`, for its ``watch``; ``player`` is 0 or 1.

    ``kind`` is one of:
    ``start``: a game begins with the opening roll ``dice`` (player 0's die first) and the cube at ``value``
    (above 1 after automatic doubles), ``crawford`` when it is the Crawford game; ``move``: ``player``
    rolled ``dice`` and played ``move`` (gnubg notation, "" when it
    could not move) from ``board`` (seen from it); ``double``: ``player`` turns the cube to ``value``;
    ``take``, ``pass``, ``beaver``: ``player`` answers a double (a beaver turns the cube to ``value``);
    ``resign``: ``player`` offers ``value`` points and the opponent ``accepted`` or not; ``end``: ``player``
    won the game and ``value`` points, the match score is then ``scores`` (None in money play).
    """

    kind: str
    slot: int
    player: int
    dice: tuple[int, int] | None = None
    board: np.ndarray | None = None
    move: str = ""
    value: int = 0
    crawford: bool = False
    accepted: bool = False
    scores: tuple[int, int] | None = None


class Cubeless:
    """A player who never doubles: a move policy alone (the cube stays out of its games)."""

    def __init__(self, policy: Policy):
        self.policy = policy
        self.wild_filter = getattr(policy, "wild_filter", None)  # its bot's pruning of a wild roll's plays


@dataclass
class GameResults:
    """Outcome of a batch of games (or matches), from player 0's side, one slot per game or match."""

    points: np.ndarray  # money: points won by player 0 (negative: lost; 0: unfinished); match: score difference
    turns: np.ndarray  # plies played in each slot
    games: np.ndarray | None = None  # games played in each slot (more than one in a match)
    cube_turns: int = 0  # doubles offered over all slots
    passes: int = 0  # doubles passed
    scores: np.ndarray | None = None  # matches: (n, 2) final scores
    records: list[GameRecord] | None = None
    boards: np.ndarray | None = None  # (n, 26) last positions, seen from the player on roll
    on_roll: np.ndarray | None = None  # (n,) who is on roll in ``boards``
    first_move: np.ndarray | None = None  # (n,) the next move in ``boards`` is a game's first (opening roll)

    @property
    def winner(self) -> np.ndarray:
        return (self.points < 0).astype(np.int8)


def play_games(policies: tuple[Policy, Policy], n_games: int, seed: int | None = 0, variant: str = "standard",
               record: bool = False, max_turns: int = 10_000, start: np.ndarray | None = None,
               first_dice: np.ndarray | None = None, stop_after: int | None = None,
               progress: Callable[[int], None] | None = None) -> GameResults:
    """Cubeless money games between two move policies: :func:`play` with players who never double."""
    first = Cubeless(policies[0])
    second = first if policies[1] is policies[0] else Cubeless(policies[1])  # self-play: one batch a pass
    return play((first, second), n_games, seed, Rules(variant=variant), start=start,
                first_dice=first_dice, record=record, stop_after=stop_after, max_turns=max_turns, progress=progress)


def play(players, n: int, seed: int | None = 0, rules: Rules = Rules(), start: np.ndarray | None = None,
         start_cube: Cube = Cube(), first_dice: np.ndarray | None = None, opening: np.ndarray | None = None,
         record: bool = False, stop_after: int | None = None, until_games: int | None = None,
         progress: Callable[[int], None] | None = None, watch: Callable[[GameEvent], None] | None = None,
         max_turns: int = 100_000) -> GameResults:
    """Play ``n`` money games (or ``n`` matches when ``rules.match_length``) between ``players[0]`` and ``players[1]``.

    The one game loop: games, rollouts and matches all come here. A player has a move
    ``policy`` and, to use the cube, ``doubles(boards, cubes)`` and ``answers(boards, cubes)``
    (see :mod:`engine.cubeful`); a player without them (:class:`Cubeless`) never doubles.

    The dice come from ``numpy.random.default_rng(seed)``, and every pass draws the same
    amount for every slot whatever its game does, so the two seatings of a duplicate pair
    see the same dice. From the starting position the opening roll decides who starts
    (docs/rules.md): the higher die moves first with both dice; player 0 holds die 0.

    ``start`` plays money games from that board (or one board per slot, (n, 26)) instead,
    player 0 on roll before rolling (so it may double first) with the cube ``start_cube``
    as player 0 sees it, and ``first_dice`` (n, 2) as its roll when given; ``opening``
    (n,) marks the slots whose next move is a game's first (an opening roll, no cube).
    ``record`` keeps each money game turn by turn. ``stop_after`` ends each game after
    that many turns. ``until_games`` keeps every slot busy: a finished money game starts
    again in its slot until that many games have finished, and the others stop where they
    are. Unfinished games score 0; their positions are in ``GameResults.boards`` (seen
    from ``GameResults.on_roll``) with ``GameResults.first_move``. ``progress(k)`` hears of
    every k games finished.

    After a wild roll (Acey-Deucey's 1-2, played with a double of the player's choice) the
    same player rolls again in the next pass, unless the game is over; that roll continues
    his turn, so nobody may double before it. Every roll counts as a turn (``turns``,
    ``stop_after``).

    Self-play (the same cubeless player on both sides) moves every game in one batch per
    pass. A player with a ``learn(before, after)`` method sees each move it made: the
    boards it moved from and the afterstates it chose (the TD trainer learns there).

    A player may resign: after its roll and before its move the loop asks
    ``resigns(boards, cubes, dice)`` (when it has one) for the points it offers in each
    game, per unit of the cube (0 = plays on, 1 single, 2 gammon, 3 backgammon). The
    opponent's ``accepts_resignation(boards, cubes, offered)`` (boards and cubes as the
    resigner sees them) decides; a player without it accepts. ``watch(event)`` hears of
    every :class:`GameEvent` (games starting, moves, cube actions, resignations, results).
    """
    rng = np.random.default_rng(seed)
    variant = variant_named(rules.variant)
    checkers = variant.checkers
    start_board = variant.starting_board()
    length = rules.match_length
    money = length == 0
    if (start is not None or record or until_games) and not money:
        raise GammonError("games from a given position, recorded games and endless slots are money games")
    together = players[0] is players[1] and not hasattr(players[0], "doubles")  # self-play: one batch

    boards = np.repeat(start_board[None], n, axis=0)
    scores = np.zeros((n, 2), dtype=np.int64)
    crawford = np.full(n, length == 1)  # this game is the Crawford game (a 1-point match starts with it)
    crawford_done = crawford.copy()
    points = np.zeros(n, dtype=np.int64)
    games = np.zeros(n, dtype=np.int64)
    turns = np.zeros(n, dtype=np.int64)
    active = np.ones(n, dtype=bool)  # the slot still plays (a game, or more games of a match)
    owner = np.full(n, -1, dtype=np.int64)  # -1 centered, else the owning player
    turned = np.zeros(n, dtype=bool)
    first_move = np.ones(n, dtype=bool)  # no cube before a game's first move
    dice, cube = opening_rolls(rng, n, rules.automatic_doubles if money else 0)
    preset = np.ones(n, dtype=bool)  # ``dice`` already holds this turn's roll (an opening, or first_dice)
    player = (dice[:, 1] > dice[:, 0]).astype(np.int64)  # player 0 holds die 0
    extra_roll = np.zeros(n, dtype=bool)  # the player on roll rolls again: his turn goes on, no cube
    if start is not None:
        size = variant.board_size
        boards[:] = validate(start, checkers, size) if np.ndim(start) == 1 else validate_batch(start, checkers, size)
        cube[:], owner[:] = start_cube.value, start_cube.owner_index(0)
        player[:], first_move[:], turned[:] = 0, False, owner >= 0
        if first_dice is None:
            preset[:] = False
        else:
            dice = np.asarray(first_dice).copy()
        if opening is not None:  # these slots start a game: the opening roll, nobody may double first
            first_move[:] = preset[:] = opening
    records = [GameRecord(rules.variant, (int(a), int(b))) for a, b in dice] if record else None
    counts = {"turns": 0, "passes": 0}
    openings = dice  # next games' opening rolls in a match, drawn for every slot each pass

    def announce(slots: np.ndarray) -> None:
        if watch is not None:
            for g in slots[first_move[slots]]:
                watch(GameEvent("start", int(g), int(player[g]), (int(dice[g, 0]), int(dice[g, 1])),
                                value=int(cube[g]), crawford=bool(crawford[g])))

    def new_game(slots: np.ndarray) -> None:
        """A fresh game in ``slots``: starting position, centered cube, this pass's opening rolls."""
        boards[slots] = start_board
        cube[slots], owner[slots], turned[slots], first_move[slots] = 1, -1, False, True
        extra_roll[slots] = False
        dice[slots], preset[slots] = openings[slots], True
        player[slots] = (openings[slots, 1] > openings[slots, 0]).astype(np.int64)
        announce(slots)

    def end_game(slots: np.ndarray, winner: np.ndarray, won: np.ndarray) -> None:
        """Score finished games; start the next game of unfinished matches (or of endless slots)."""
        signed = np.where(winner == 0, won, -won)
        games[slots] += 1
        if progress:
            progress(len(slots))
        if not money:
            scores[slots, winner] += won
        if watch is not None:
            for g, w, v in zip(slots, winner, won):
                watch(GameEvent("end", int(g), int(w), value=int(v),
                                scores=None if money else (int(scores[g, 0]), int(scores[g, 1]))))
        if money:
            points[slots] += signed
            if until_games is None:
                active[slots] = False
            else:  # the slot plays on
                new_game(slots)
            return
        over = scores[slots].max(axis=1) >= length
        active[slots[over]] = False
        going = slots[~over]
        if len(going) == 0:
            return
        # The first time a player is one point short, the next game is the Crawford game.
        reaches = (scores[going].max(axis=1) == length - 1) & ~crawford_done[going]
        crawford[going] = reaches
        crawford_done[going] |= reaches
        new_game(going)

    def resignations(side: int, mine: np.ndarray, fresh: np.ndarray) -> np.ndarray:
        """Ask ``side`` (after its roll) whether it resigns; end the accepted ones; returns who still moves."""
        asking = mine
        while len(asking):
            cubes = _cubes(asking, side, cube, owner, scores, crawford, length, rules)
            roll = np.where(preset[asking, None], dice[asking], fresh[asking])
            offered = np.asarray(players[side].resigns(boards[asking], cubes, roll), dtype=np.int64)
            resigning = np.flatnonzero(offered > 0)
            if len(resigning) == 0:
                break
            slots, offered, cubes = asking[resigning], offered[resigning], [cubes[i] for i in resigning]
            judge = getattr(players[1 - side], "accepts_resignation", None)
            accepted = (np.ones(len(slots), dtype=bool) if judge is None
                        else np.asarray(judge(boards[slots], cubes, offered), dtype=bool))
            if watch is not None:
                for g, k, yes in zip(slots, offered, accepted):
                    watch(GameEvent("resign", int(g), side, value=int(k * cube[g]), accepted=bool(yes)))
            if not accepted.any():
                break
            end_game(slots[accepted], np.full(int(accepted.sum()), 1 - side), offered[accepted] * cube[slots[accepted]])
            mine = mine[active[mine] & (player[mine] == side)]
            asking = np.intersect1d(slots[accepted], mine)  # a match's next game, opened by ``side`` at once
        return mine

    announce(np.flatnonzero(first_move))
    for _ in range(max_turns):
        if not active.any() or (until_games is not None and games.sum() >= until_games):
            break
        for sides in ((0, 1),) if together else ((0,), (1,)):
            side = sides[0]
            fresh = rng.integers(1, 7, size=(n, 2))
            if not money or until_games is not None:
                openings, _ = opening_rolls(rng, n)
            mine = np.flatnonzero(active & np.isin(player, sides))
            if len(mine) and hasattr(players[side], "doubles"):
                # Cube: before rolling, with access, not on a game's first move, not in the Crawford game.
                access = ~first_move[mine] & ((owner[mine] == -1) | (owner[mine] == side)) & ~crawford[mine]
                access &= ~extra_roll[mine]
                asking = mine[access]
                if len(asking):
                    cubes = _cubes(asking, side, cube, owner, scores, crawford, length, rules)
                    doubling = asking[np.asarray(players[side].doubles(boards[asking], cubes), dtype=bool)]
                    if len(doubling):
                        result = _double(players, side, doubling, boards, cube, owner, turned, scores, crawford,
                                         length, rules, money, counts, watch)
                        if len(result.passed):
                            end_game(result.passed, np.full(len(result.passed), side), result.paid)
                        if len(result.beaver_passed):
                            end_game(result.beaver_passed, np.full(len(result.beaver_passed), 1 - side),
                                     result.beaver_paid)
                        mine = mine[active[mine] & (player[mine] == side)]
            if len(mine) and hasattr(players[side], "resigns"):
                mine = resignations(side, mine, fresh)
            if len(mine) == 0:
                continue
            movers = player[mine]
            roll = np.where(preset[mine, None], dice[mine], fresh[mine])
            before = boards[mine]
            afterstates = generate(before, roll, check=False, variant=variant,
                                   wild_filter=getattr(players[side], "wild_filter", None))
            choice = np.asarray(players[side].policy(afterstates), dtype=np.int64)
            _check_choice(choice, afterstates)
            after = afterstates.boards[choice]
            if hasattr(players[side], "learn"):
                players[side].learn(before, after)
            if records is not None or watch is not None:
                for g, k, r, m in zip(mine, choice, roll, movers):
                    wild = afterstates.extra_roll[afterstates.parent[k]]  # written in its two parts
                    move, rolled = format_move(boards[g], afterstates.steps[k], wild), (int(r[0]), int(r[1]))
                    if records is not None:
                        records[g].turns.append((int(m), rolled, boards[g].copy(), move))
                    if watch is not None:
                        watch(GameEvent("move", int(g), int(m), rolled, boards[g].copy(), move))
            won = result_points(after, checkers, variant.backgammons)
            if money and rules.jacoby:
                won = np.where(turned[mine], won, np.minimum(won, 1))
            again = afterstates.extra_roll & (won == 0)
            boards[mine] = np.where(again[:, None], after, variant.geometry.flip(after))
            first_move[mine] = preset[mine] = False
            extra_roll[mine] = again
            player[mine] = np.where(again, movers, 1 - movers)
            turns[mine] += 1
            finished = won > 0
            if finished.any():
                slots = mine[finished]
                end_game(slots, movers[finished], won[finished] * cube[slots])
            if stop_after is not None:
                active[mine[turns[mine] >= stop_after]] = False
    else:
        if active.any():
            raise RuntimeError(f"{int(active.sum())} slots still playing after {max_turns} passes")
    if money:
        return GameResults(points, turns, games, counts["turns"], counts["passes"], None, records, boards, player,
                           first_move)
    return GameResults(scores[:, 0] - scores[:, 1], turns, games, counts["turns"], counts["passes"], scores,
                       None, boards, player, first_move)


@dataclass
class _Doubled:
    passed: np.ndarray  # slots whose double was passed (the doubler wins ``paid``)
    paid: np.ndarray
    beaver_passed: np.ndarray  # slots where the doubler passed a beaver (the beaverer wins ``beaver_paid``)
    beaver_paid: np.ndarray


def _double(players, side, doubling, boards, cube, owner, turned, scores, crawford, length, rules, money, counts,
            watch):
    """The opponent's answer to ``side``'s doubles in ``doubling``; updates the cube of the games that go on."""
    counts["turns"] += len(doubling)
    cubes = _cubes(doubling, side, cube, owner, scores, crawford, length, rules)
    if watch is not None:
        for g in doubling:
            watch(GameEvent("double", int(g), side, value=int(cube[g] * 2)))
    answer = np.asarray(players[1 - side].answers(boards[doubling], cubes))
    if not (rules.beavers and money):
        answer = np.minimum(answer, TAKE)
    if watch is not None:
        for g, a in zip(doubling, answer):
            watch(GameEvent({PASS: "pass", TAKE: "take", BEAVER: "beaver"}[int(a)], int(g), 1 - side,
                            value=int(cube[g] * (4 if a == BEAVER else 2))))
    passed = doubling[answer == PASS]
    counts["passes"] += len(passed)
    paid = cube[passed].copy()  # a pass pays the value before the offer
    taken = doubling[answer != PASS]
    beavered = doubling[answer == BEAVER]
    cube[taken] *= 2
    owner[taken] = 1 - side
    turned[taken] = True
    beaver_passed = np.zeros(0, dtype=np.int64)
    beaver_paid = np.zeros(0, dtype=np.int64)
    if len(beavered):
        # The beaver redoubles at once and keeps the cube; the doubler takes or passes it.
        cubes = _cubes(beavered, side, cube, owner, scores, crawford, length, rules)
        accepts = getattr(players[side], "accepts_beaver", None)
        keep = (np.ones(len(beavered), dtype=bool) if accepts is None
                else np.asarray(accepts(boards[beavered], cubes), bool))
        beaver_passed, beaver_paid = beavered[~keep], cube[beavered[~keep]].copy()
        if watch is not None:
            for g, yes in zip(beavered, keep):
                watch(GameEvent("take" if yes else "pass", int(g), side, value=int(cube[g] * 2)))
        cube[beavered[keep]] *= 2
        counts["passes"] += int((~keep).sum())
    if (cube[taken] > MAX_CUBE).any():
        raise OverflowError(f"a cube went past {MAX_CUBE}: redoubles have no limit, int64 has one")
    return _Doubled(passed, paid, beaver_passed, beaver_paid)


def _cubes(slots, side, cube, owner, scores, crawford, length, rules) -> list[Cube]:
    """The cube of each slot in ``slots`` as ``side`` (the doubler) sees it."""
    money = not length
    return [Cube.seen_by(side, cube[s], owner[s], length, scores[s], crawford[s], jacoby=rules.jacoby and money,
                         beavers=rules.beavers and money) for s in slots]


def _check_choice(choice: np.ndarray, afterstates: Afterstates) -> None:
    n = len(afterstates.offsets) - 1
    if choice.shape != (n,):
        raise ValueError(f"a policy must return one afterstate index per game ({n}); got shape {choice.shape}")
    inside = (choice >= afterstates.offsets[:-1]) & (choice < afterstates.offsets[1:])
    if not inside.all():
        g = int(np.argmin(inside))
        raise ValueError(f"policy chose afterstate {choice[g]} for game {g}, outside its range "
                         f"{afterstates.offsets[g]}..{afterstates.offsets[g + 1] - 1}")


@dataclass
class DuelStats:
    """Cubeless money results of player A against player B, from A's side."""

    games: int
    ppg: float  # points per game
    ci95: tuple[float, float]  # 95% confidence interval of ppg
    win_rate: float
    gammon_rate: float  # A's wins that are gammons or backgammons, per game
    backgammon_rate: float
    lose_gammon_rate: float
    lose_backgammon_rate: float
    luck_adjusted_ppg: float | None = None  # ppg less the luck of the rolls (engine/luck.py), when asked for
    luck_adjusted_ci95: tuple[float, float] | None = None

    def as_dict(self) -> dict:
        out = {**self.__dict__, "ci95": list(self.ci95)}
        if self.luck_adjusted_ci95 is not None:
            out["luck_adjusted_ci95"] = list(self.luck_adjusted_ci95)
        return out


def duplicate_duel(policy_a: Policy, policy_b: Policy, n_games: int, seed: int = 0,
                   variant: str = "standard", progress: Callable[[int], None] | None = None,
                   luck=None, luck_progress: Callable[[int], None] | None = None) -> DuelStats:
    """Play ``n_games`` (even) with duplicate dice: each dice sequence twice, sides swapped.
    ``progress(k)`` hears of every k games finished.

    The confidence interval treats each pair of games as one sample (their mean), which
    is what makes duplicate dice cut the variance: luck largely cancels inside a pair.
    With ``luck`` (an evaluator with probabilities) every roll's luck is judged by it and
    the results less the luck give a second, unbiased estimate with a narrower interval
    (engine/luck.py); ``luck_progress(k)`` hears of every k rolls judged.
    """
    if n_games < 4 or n_games % 2:
        raise GammonError(f"duplicate games come in pairs: n_games must be even and >= 4; got {n_games}")
    half = n_games // 2
    record = luck is not None
    first = play_games((policy_a, policy_b), half, seed=seed, variant=variant, progress=progress, record=record)
    second = play_games((policy_b, policy_a), half, seed=seed, variant=variant, progress=progress, record=record)
    a_first, a_second = first.points, -second.points
    points = np.concatenate([a_first, a_second]).astype(np.float64)
    ppg, ci95 = _pair_mean((a_first + a_second) / 2.0)
    adjusted = {}
    if record:
        from .luck import games_luck  # luck judges with the analysis module, which builds on this one

        a_luck = (games_luck(luck, first.records, luck_progress)
                  - games_luck(luck, second.records, luck_progress))
        mean, interval = _pair_mean((a_first + a_second - a_luck) / 2.0)
        adjusted = {"luck_adjusted_ppg": mean, "luck_adjusted_ci95": interval}
    return DuelStats(
        games=n_games,
        ppg=ppg,
        ci95=ci95,
        win_rate=float((points > 0).mean()),
        gammon_rate=float((points >= 2).mean()),
        backgammon_rate=float((points >= 3).mean()),
        lose_gammon_rate=float((points <= -2).mean()),
        lose_backgammon_rate=float((points <= -3).mean()),
        **adjusted,
    )


def _pair_mean(pairs: np.ndarray) -> tuple[float, tuple[float, float]]:
    """The mean of the pairs' results and its 95% confidence interval (normal approximation)."""
    mean = float(pairs.mean())
    half_width = 1.96 * float(pairs.std(ddof=1)) / float(np.sqrt(len(pairs)))
    return mean, (mean - half_width, mean + half_width)
