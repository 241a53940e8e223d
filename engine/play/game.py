"""Batched games: N games advance together, one move-generator call per side per ply.

A *policy* (:data:`engine.search.evaluator.Policy`) is any callable ``policy(afterstates) -> choice``
that receives the :class:`~engine.rules.movegen.Afterstates` of every game it must move in, and
returns for each game the flat index (into ``afterstates.boards``) of the afterstate it plays.
Evaluators from ``models/`` plug in through :func:`engine.search.evaluator.evaluator_policy`;
the engine itself never imports them. A player (:class:`engine.play.players.Player`) has a policy
and, optionally, the cube; it may carry a ``wild_filter`` (:data:`engine.rules.movegen.WildFilter`),
handed to the generator to prune its wild rolls' plays. Games score by
:func:`engine.rules.outcomes.result_points`.

The variant (:mod:`engine.rules.variants`) decides the starting position, the legal moves (the
generator reads its hooks), how the board is turned round between turns (its geometry),
whether the player rolls again (a wild roll and its double played in full, Acey-Deucey's 1-2:
``Afterstates.extra_roll``)
and the scoring; nothing else in the loop depends on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from gammon.engine.cube.met import MAX_AWAY
from gammon.engine.cube.state import BEAVER, PASS, TAKE, Cube
from gammon.engine.errors import GammonError
from gammon.engine.play.players import Cubeless, Player
from gammon.engine.rules.board import validate, validate_batch
from gammon.engine.rules.movegen import Afterstates, generate
from gammon.engine.rules.notation import format_move
from gammon.engine.rules.outcomes import result_points
from gammon.engine.rules.variants import variant_named
from gammon.engine.search.evaluator import Policy

# (slots, movers, boards, dice, cubes): a batch of rolls about to be played (:func:`play`'s ``before_move``)
BeforeMove = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[Cube]], None]

MAX_CUBE = 2**50
ANSWER_EVENTS = {PASS: "pass", TAKE: "take", BEAVER: "beaver"}  # a GameEvent's kind for each answer to a double


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


def random_policy(rng: np.random.Generator) -> Policy:
    """A policy that plays a uniformly random legal afterstate."""

    def choose(afterstates: Afterstates) -> np.ndarray:
        counts = afterstates.counts()
        return afterstates.offsets[:-1] + (rng.random(len(counts)) * counts).astype(np.int64)

    return choose


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

    @property
    def money(self) -> bool:
        return self.match_length == 0

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
    cube: np.ndarray | None = None  # (n,) the cube's value in ``boards``
    owner: np.ndarray | None = None  # (n,) who owns it there (-1: centered)

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


def play(players: tuple[Player, Player], n: int, seed: int | None = 0, rules: Rules = Rules(),
         start: np.ndarray | None = None, start_cube: Cube = Cube(), first_dice: np.ndarray | None = None,
         opening: np.ndarray | None = None, record: bool = False, stop_after: int | None = None,
         until_games: int | None = None,
         progress: Callable[[int], None] | None = None, watch: Callable[[GameEvent], None] | None = None,
         before_move: BeforeMove | None = None, cube_decided: bool = False,
         roll: Callable[[np.random.Generator, int], np.ndarray] | None = None, max_turns: int = 100_000) -> GameResults:
    """Play ``n`` money games (or ``n`` matches when ``rules.match_length``) between ``players[0]`` and ``players[1]``.

    The one game loop: games, rollouts and matches all come here. A player
    (:class:`engine.play.players.Player`) has a move ``policy`` and, when ``doubling``, takes
    cube decisions, ``doubles(boards, cubes)`` and ``answers(boards, cubes)``; a
    :class:`~engine.play.players.Cubeless` player never doubles.

    The dice come from ``numpy.random.default_rng(seed)``, and every pass draws the same
    amount for every slot whatever its game does, so the two seatings of a duplicate pair
    see the same dice. From the starting position the opening roll decides who starts
    (docs/rules.md): the higher die moves first with both dice; player 0 holds die 0.

    ``start`` plays games from that board (or one board per slot, (n, 26)) instead,
    player 0 on roll before rolling (so it may double first) with the cube ``start_cube``
    as player 0 sees it; in a match ``start_cube`` also gives the score (its players' away
    counts and the Crawford game), and each slot plays that one game (``GameResults.scores``
    then holds the score after it). ``first_dice`` (n, 2) is the first roll when given; ``opening``
    (n,) marks the slots whose next move is a game's first (an opening roll, no cube); ``cube_decided``:
    player 0 has made his cube decision already (not to double), so his first roll comes without one
    (a cube rollout's no double). ``roll(rng, n)`` draws each pass's (n, 2) dice instead of uniform ones
    (quasi-random dice: a variance-reduced cubeful rollout's).
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
    pass. A ``learning`` player's ``learn(before, after)`` sees each move it made: the
    boards it moved from and the afterstates it chose (the TD trainer learns there).

    A ``resigning`` player may resign: after its roll and before its move the loop asks
    ``resigns(boards, cubes, dice)`` for the points it offers in each game, per unit of the
    cube (0 = plays on, 1 single, 2 gammon, 3 backgammon). The opponent's
    ``accepts_resignation(boards, cubes, offered)`` (boards and cubes as the resigner sees
    them) decides. ``watch(event)`` hears of
    every :class:`GameEvent` (games starting, moves, cube actions, resignations, results).
    ``before_move(slots, movers, boards, dice, cubes)`` hears of every batch of rolls before they are
    played: the slots, who moves in each, the boards he moves from, the dice and the cube as he sees
    it (cubeful rollouts take each roll's luck out of their games there).
    """
    if (record or until_games) and not rules.money:
        raise GammonError("recorded games and endless slots are money games")
    rng = np.random.default_rng(seed)
    table = _Table(players, n, rng, rules, progress, watch, until_games, before_move)
    if start is not None:
        table.set_up(start, start_cube, first_dice, opening, cube_decided)
    if record:
        table.records = [GameRecord(rules.variant, (int(a), int(b))) for a, b in table.dice]
    table.openings = table.dice  # next games' opening rolls, drawn afresh each pass where games start anew
    together = players[0] is players[1] and not players[0].doubling  # self-play: one batch
    table.announce(np.flatnonzero(table.first_move))
    for _ in range(max_turns):
        if not table.active.any() or (until_games is not None and table.games.sum() >= until_games):
            break
        for sides in ((0, 1),) if together else ((0,), (1,)):
            side = sides[0]
            fresh = rng.integers(1, 7, size=(n, 2)) if roll is None else roll(rng, n)
            if not rules.money or until_games is not None:
                table.openings, _ = opening_rolls(rng, n)
            mine = np.flatnonzero(table.active & np.isin(table.player, sides))
            if len(mine) and players[side].doubling:
                mine = table.cube_turn(side, mine)
            if len(mine) and players[side].resigning:
                mine = table.resignations(side, mine, fresh)
            if len(mine):
                table.move(side, mine, fresh, stop_after)
    else:
        if table.active.any():
            raise RuntimeError(f"{int(table.active.sum())} slots still playing after {max_turns} passes")
    return table.results()


class _Table:
    """Every slot of :func:`play` as the loop keeps it: the game's parallel arrays, one row per slot, and
    the steps of a turn (the cube, resignations, the move, the end of a game)."""

    def __init__(self, players, n: int, rng: np.random.Generator, rules: Rules, progress, watch, until_games,
                 before_move=None):
        self.players, self.rules, self.progress, self.watch = players, rules, progress, watch
        self.before_move = before_move
        self.until_games = until_games
        self.variant = variant_named(rules.variant)
        self.start_board = self.variant.starting_board()
        length = rules.match_length
        self.boards = np.repeat(self.start_board[None], n, axis=0)
        self.scores = np.zeros((n, 2), dtype=np.int64)
        self.crawford = np.full(n, length == 1)  # this game is the Crawford game (a 1-point match starts with it)
        self.crawford_done = self.crawford.copy()
        self.points = np.zeros(n, dtype=np.int64)
        self.games = np.zeros(n, dtype=np.int64)
        self.turns = np.zeros(n, dtype=np.int64)
        self.active = np.ones(n, dtype=bool)  # the slot still plays (a game, or more games of a match)
        self.owner = np.full(n, -1, dtype=np.int64)  # -1 centered, else the owning player
        self.turned = np.zeros(n, dtype=bool)
        self.first_move = np.ones(n, dtype=bool)  # no cube before a game's first move
        self.dice, self.cube = opening_rolls(rng, n, rules.automatic_doubles if rules.money else 0)
        self.preset = np.ones(n, dtype=bool)  # ``dice`` already holds this turn's roll (an opening, or first_dice)
        self.player = (self.dice[:, 1] > self.dice[:, 0]).astype(np.int64)  # player 0 holds die 0
        self.extra_roll = np.zeros(n, dtype=bool)  # the player on roll rolls again: his turn goes on, no cube
        self.openings = self.dice
        self.records: list[GameRecord] | None = None
        self.cube_turns = self.passes = 0
        self.single_game = False  # a match slot ends with its game (games from a given position)

    def set_up(self, start: np.ndarray, start_cube: Cube, first_dice: np.ndarray | None,
               opening: np.ndarray | None, cube_decided: bool = False) -> None:
        """Games from ``start`` instead (see :func:`play`); in a match, one game at ``start_cube``'s score."""
        if not self.rules.money:
            self._set_score(start_cube)
        checkers, size = self.variant.checkers, self.variant.board_size
        self.boards[:] = (validate(start, checkers, size) if np.ndim(start) == 1
                          else validate_batch(start, checkers, size))
        self.cube[:], self.owner[:] = start_cube.value, start_cube.owner_index(0)
        self.player[:], self.first_move[:], self.turned[:] = 0, False, self.owner >= 0
        if first_dice is None:
            self.preset[:] = False
        else:
            self.dice = np.asarray(first_dice).copy()
        if opening is not None:  # these slots start a game: the opening roll, nobody may double first
            self.first_move[:] = self.preset[:] = opening
        self.extra_roll[:] = cube_decided  # no cube before that roll, as before a wild roll's extra roll

    def _set_score(self, cube: Cube) -> None:
        """Every slot at the score ``cube`` gives player 0 (on roll), in a match of ``rules.match_length``;
        the game played from there is the slot's only one (``single_game``)."""
        length = self.rules.match_length
        if cube.money or max(cube.away) > length:
            raise GammonError(f"a match game from a position needs its score within the {length}-point match; "
                              f"got the cube {cube}")
        self.scores[:] = (length - cube.my_away, length - cube.opp_away)
        self.crawford[:] = cube.crawford
        self.crawford_done[:] = cube.crawford or 1 in cube.away  # a player 1-away, no Crawford game: it was played
        self.single_game = True

    def cubes(self, slots: np.ndarray, side: int | np.ndarray) -> list[Cube]:
        """The cube of each slot in ``slots`` as ``side`` (one player for all, or one for each slot) sees it."""
        rules = self.rules
        jacoby, beavers = rules.jacoby and rules.money, rules.beavers and rules.money
        return [Cube.seen_by(int(who), self.cube[s], self.owner[s], rules.match_length, self.scores[s],
                             self.crawford[s], jacoby=jacoby, beavers=beavers)
                for s, who in zip(slots, np.broadcast_to(side, len(slots)))]

    def announce(self, slots: np.ndarray) -> None:
        if self.watch is not None:
            for g in slots[self.first_move[slots]]:
                dice = (int(self.dice[g, 0]), int(self.dice[g, 1]))
                self.watch(GameEvent("start", int(g), int(self.player[g]), dice, value=int(self.cube[g]),
                                     crawford=bool(self.crawford[g])))

    def new_game(self, slots: np.ndarray) -> None:
        """A fresh game in ``slots``: starting position, centered cube, this pass's opening rolls."""
        self.boards[slots] = self.start_board
        self.cube[slots], self.owner[slots], self.turned[slots], self.first_move[slots] = 1, -1, False, True
        self.extra_roll[slots] = False
        self.dice[slots], self.preset[slots] = self.openings[slots], True
        self.player[slots] = (self.openings[slots, 1] > self.openings[slots, 0]).astype(np.int64)
        self.announce(slots)

    def end_game(self, slots: np.ndarray, winner: np.ndarray, won: np.ndarray) -> None:
        """Score finished games; start the next game of unfinished matches (or of endless slots)."""
        money, length = self.rules.money, self.rules.match_length
        self.games[slots] += 1
        if self.progress:
            self.progress(len(slots))
        if not money:
            self.scores[slots, winner] += won
        if self.watch is not None:
            for g, w, v in zip(slots, winner, won):
                self.watch(GameEvent("end", int(g), int(w), value=int(v),
                                     scores=None if money else (int(self.scores[g, 0]), int(self.scores[g, 1]))))
        if money:
            self.points[slots] += np.where(winner == 0, won, -won)
            if self.until_games is None:
                self.active[slots] = False
            else:  # the slot plays on
                self.new_game(slots)
            return
        over = (self.scores[slots].max(axis=1) >= length) | self.single_game
        self.active[slots[over]] = False
        going = slots[~over]
        if len(going) == 0:
            return
        # The first time a player is one point short, the next game is the Crawford game.
        reaches = (self.scores[going].max(axis=1) == length - 1) & ~self.crawford_done[going]
        self.crawford[going] = reaches
        self.crawford_done[going] |= reaches
        self.new_game(going)

    def still_on_roll(self, mine: np.ndarray, side: int) -> np.ndarray:
        """Those of ``mine`` whose game goes on with ``side`` on roll (not ended, no new game the other opens)."""
        return mine[self.active[mine] & (self.player[mine] == side)]

    def cube_turn(self, side: int, mine: np.ndarray) -> np.ndarray:
        """Before rolling: ``side`` doubles where it has access and chooses to; returns who still rolls."""
        # Access: not on a game's first move, not in the Crawford game, not before a wild roll's extra roll.
        owner = self.owner[mine]
        access = ~self.first_move[mine] & ((owner == -1) | (owner == side)) & ~self.crawford[mine]
        asking = mine[access & ~self.extra_roll[mine]]
        if len(asking) == 0:
            return mine
        doubling = asking[np.asarray(self.players[side].doubles(self.boards[asking], self.cubes(asking, side)),
                                     dtype=bool)]
        if len(doubling) == 0:
            return mine
        self.double(side, doubling)
        return self.still_on_roll(mine, side)

    def double(self, side: int, doubling: np.ndarray) -> None:
        """The opponent's answers to ``side``'s doubles in ``doubling``: games passed end, the others go on at
        the new cube (a beaver's redouble answered by ``side`` at once)."""
        cube, players = self.cube, self.players
        self.cube_turns += len(doubling)
        cubes = self.cubes(doubling, side)
        if self.watch is not None:
            for g in doubling:
                self.watch(GameEvent("double", int(g), side, value=int(cube[g] * 2)))
        answer = np.asarray(players[1 - side].answers(self.boards[doubling], cubes))
        if not (self.rules.beavers and self.rules.money):
            answer = np.minimum(answer, TAKE)
        if self.watch is not None:
            for g, a in zip(doubling, answer):
                value = int(cube[g] * (4 if a == BEAVER else 2))
                self.watch(GameEvent(ANSWER_EVENTS[int(a)], int(g), 1 - side, value=value))
        passed = doubling[answer == PASS]
        self.passes += len(passed)
        paid = cube[passed].copy()  # a pass pays the value before the offer
        taken = doubling[answer != PASS]
        beavered = doubling[answer == BEAVER]
        cube[taken] *= 2
        self.owner[taken] = 1 - side
        self.turned[taken] = True
        beaver_passed, beaver_paid = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        if len(beavered):
            # The beaver redoubles at once and keeps the cube; the doubler takes or passes it.
            keep = np.asarray(players[side].accepts_beaver(self.boards[beavered], self.cubes(beavered, side)), bool)
            beaver_passed, beaver_paid = beavered[~keep], cube[beavered[~keep]].copy()
            if self.watch is not None:
                for g, yes in zip(beavered, keep):
                    self.watch(GameEvent("take" if yes else "pass", int(g), side, value=int(cube[g] * 2)))
            cube[beavered[keep]] *= 2
            self.passes += int((~keep).sum())
        if (cube[taken] > MAX_CUBE).any():
            raise OverflowError(f"a cube went past {MAX_CUBE}: redoubles have no limit, int64 has one")
        if len(passed):
            self.end_game(passed, np.full(len(passed), side), paid)
        if len(beaver_passed):
            self.end_game(beaver_passed, np.full(len(beaver_passed), 1 - side), beaver_paid)

    def resignations(self, side: int, mine: np.ndarray, fresh: np.ndarray) -> np.ndarray:
        """Ask ``side`` (after its roll) whether it resigns; end the accepted ones; returns who still moves."""
        asking = mine
        while len(asking):
            cubes = self.cubes(asking, side)
            roll = np.where(self.preset[asking, None], self.dice[asking], fresh[asking])
            offered = np.asarray(self.players[side].resigns(self.boards[asking], cubes, roll), dtype=np.int64)
            resigning = np.flatnonzero(offered > 0)
            if len(resigning) == 0:
                break
            slots, offered, cubes = asking[resigning], offered[resigning], [cubes[i] for i in resigning]
            accepted = np.asarray(self.players[1 - side].accepts_resignation(self.boards[slots], cubes, offered),
                                  dtype=bool)
            if self.watch is not None:
                for g, k, yes in zip(slots, offered, accepted):
                    self.watch(GameEvent("resign", int(g), side, value=int(k * self.cube[g]), accepted=bool(yes)))
            if not accepted.any():
                break
            ended = slots[accepted]
            self.end_game(ended, np.full(len(ended), 1 - side), offered[accepted] * self.cube[ended])
            mine = self.still_on_roll(mine, side)
            asking = np.intersect1d(ended, mine)  # a match's next game, opened by ``side`` at once
        return mine

    def move(self, side: int, mine: np.ndarray, fresh: np.ndarray, stop_after: int | None) -> None:
        """``side`` rolls (or plays the roll set for it) and moves in the games ``mine``; finished games end. A
        player's ``first_policy`` plays its first ``first_turns`` turns of each slot, its ``policy`` the rest."""
        player = self.players[side]
        early = self.turns[mine] < player.first_turns
        for slots, policy in ((mine[early], player.first_policy), (mine[~early], player.policy)):
            if len(slots):
                self._move(side, slots, fresh, stop_after, policy)

    def _move(self, side: int, mine: np.ndarray, fresh: np.ndarray, stop_after: int | None, policy) -> None:
        player, variant = self.players[side], self.variant
        movers = self.player[mine]
        roll = np.where(self.preset[mine, None], self.dice[mine], fresh[mine])
        before = self.boards[mine]
        if self.before_move is not None:
            self.before_move(mine, movers, before, roll, self.cubes(mine, movers))
        afterstates = generate(before, roll, check=False, variant=variant, wild_filter=player.wild_filter)
        choice = np.asarray(policy(afterstates), dtype=np.int64)
        _check_choice(choice, afterstates)
        after = afterstates.boards[choice]
        if player.learning:
            player.learn(before, after)
        if self.records is not None or self.watch is not None:
            wild = variant.is_wild(roll)  # a wild roll's play is written in its two parts
            for g, k, r, m, w in zip(mine, choice, roll, movers, wild):
                move, rolled = format_move(self.boards[g], afterstates.steps[k], w), (int(r[0]), int(r[1]))
                if self.records is not None:
                    self.records[g].turns.append((int(m), rolled, self.boards[g].copy(), move))
                if self.watch is not None:
                    self.watch(GameEvent("move", int(g), int(m), rolled, self.boards[g].copy(), move))
        won = result_points(after, variant.checkers, variant.backgammons)
        if self.rules.money and self.rules.jacoby:
            won = np.where(self.turned[mine], won, np.minimum(won, 1))
        again = afterstates.extra_roll[choice] & (won == 0)
        self.boards[mine] = variant.next_on_roll(after, again)
        self.first_move[mine] = self.preset[mine] = False
        self.extra_roll[mine] = again
        self.player[mine] = np.where(again, movers, 1 - movers)
        self.turns[mine] += 1
        finished = won > 0
        if finished.any():
            slots = mine[finished]
            self.end_game(slots, movers[finished], won[finished] * self.cube[slots])
        if stop_after is not None:
            self.active[mine[self.turns[mine] >= stop_after]] = False

    def results(self) -> GameResults:
        if self.rules.money:
            return GameResults(self.points, self.turns, self.games, self.cube_turns, self.passes, None, self.records,
                               self.boards, self.player, self.first_move, self.cube, self.owner)
        return GameResults(self.scores[:, 0] - self.scores[:, 1], self.turns, self.games, self.cube_turns,
                           self.passes, self.scores, None, self.boards, self.player, self.first_move, self.cube,
                           self.owner)


def _check_choice(choice: np.ndarray, afterstates: Afterstates) -> None:
    n = len(afterstates.offsets) - 1
    if choice.shape != (n,):
        raise ValueError(f"a policy must return one afterstate index per game ({n}); got shape {choice.shape}")
    inside = (choice >= afterstates.offsets[:-1]) & (choice < afterstates.offsets[1:])
    if not inside.all():
        g = int(np.argmin(inside))
        raise ValueError(f"policy chose afterstate {choice[g]} for game {g}, outside its range "
                         f"{afterstates.offsets[g]}..{afterstates.offsets[g + 1] - 1}")
