"""Replay a :class:`~engine.records.matchlog.MatchLog` through the rules: every decision with its position.

Each game starts from the starting position with a centred cube (1, or what automatic
doubles made it) at the score before it. Every move must be legal for its dice
(:func:`engine.rules.notation.find_play`), every cube
action allowed (access to the cube, not in the Crawford game), and each recorded result
must be what the actions give; otherwise a :class:`~engine.records.matchlog.MatchFileError`
names the file, the game and the line. What comes out is the list of decisions the
players made (:class:`Decision`): checker plays, cube decisions (whether to double, made
at every turn where the player on roll had access to the cube, doubling or not) and
answers to doubles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gammon.engine.cube.state import Cube
from gammon.engine.errors import GammonError
from gammon.engine.records.formats import MatchState, gnubgid
from gammon.engine.records.matchlog import Action, GameLog, MatchFileError, MatchLog, Verdict
from gammon.engine.rules.board import flip, starting_board, variant_checkers
from gammon.engine.rules.notation import find_play
from gammon.engine.rules.outcomes import result_points


@dataclass
class Decision:
    """One decision of ``player``: ``kind`` is ``move``, ``cube`` (double or not) or ``take`` (answer a double).

    ``board`` is seen from the player on roll (the mover, the doubler; for ``take`` the
    doubler, as cube analysis wants it) and ``cube`` is that player's view of the cube
    before the decision. ``move``: ``dice``, the ``move`` as written, the afterstate
    ``after`` (mover's side). ``cube``: ``doubled``. ``take``: ``took`` (a beaver is a take).
    """

    game: int
    line: int
    player: int
    kind: str
    board: np.ndarray
    cube: Cube
    score: tuple[int, int]  # before the game
    dice: tuple[int, int] | None = None
    move: str = ""
    after: np.ndarray | None = None
    doubled: bool = False
    took: bool = False
    state: MatchState | None = None  # the same moment as gnubg records it (for its GNUbgID)
    opening: bool = False  # the game's first move (its roll cannot be a double)
    row: int = 0  # the move number as a player reads it: the numbered row of the game's .mat text
    analysis: Verdict | None = None  # what the file's own analysis (XG's) said of this decision

    @property
    def gnubgid(self) -> str:
        return gnubgid(self.board, self.state)


class _Table:
    """The state of one game while its actions are replayed."""

    def __init__(self, log: MatchLog, game: GameLog, crawford: bool):
        self.log, self.game, self.crawford = log, game, crawford
        self.board = starting_board(log.variant)  # seen from ``on_roll``
        self.on_roll: int | None = None  # unknown until the first move
        self.cube, self.owner, self.turned = game.cube, -1, False
        self.moves = 0
        self.offer: Action | None = None  # a double or resignation waiting for its answer
        self.doubled = False  # the player on roll doubled this turn (the cube decision is made)
        self.beaverer: int | None = None  # just beavered: the doubler may answer (take or drop) or play on
        self.result: tuple[int, int] | None = None  # (winner, points) once the game is over
        self.cells, self.opener = 0, None  # the .mat cells written so far (two to a row), who wrote the first

    def row_of(self, action: Action) -> int:
        """The numbered row of the game's .mat text that holds ``action`` (or, if it is written in none, the
        next one), counting the cells as engine.records.matfile writes them: a roll, a double, a beaver, a
        take or a drop, player 0's on the left; the take of a beaver is not written."""
        if self.opener is None:
            self.opener = action.player
        row = (self.cells + self.opener) // 2 + 1  # player 1 opening leaves row 1's left cell empty
        beaver_taken = action.kind == "take" and self.beaverer is not None and action.player != self.beaverer
        if action.kind in ("move", "double", "beaver", "take", "drop") and not beaver_taken:
            self.cells += 1
        return row

    def fault(self, action: Action | None, reason: str) -> MatchFileError:
        line = action.line if action is not None and action.line else self.game.line
        return MatchFileError(reason, self.log.file, self.game.number, line or None, self.log.unit)

    def seen_by(self, player: int) -> Cube:
        money = not self.log.length
        return Cube.seen_by(player, self.cube, self.owner, self.log.length, self.game.score, self.crawford,
                            jacoby=self.log.jacoby and money, beavers=self.log.beavers and money)

    def name(self, player: int) -> str:
        return self.log.players[player]

    def state(self, on_roll: int, dice=(0, 0), doubled: bool = False) -> MatchState:
        """The moment as a Match ID has it: ``on_roll`` to act (or, ``doubled``, its opponent to answer)."""
        money = not self.log.length
        return MatchState(cube=self.cube, cube_owner=self.owner, on_roll=on_roll, crawford=self.crawford,
                          turn=1 - on_roll if doubled else on_roll, doubled=doubled, dice=dice,
                          match_length=self.log.length, score=self.game.score, jacoby=self.log.jacoby and money,
                          beavers=self.log.beavers and money)


def _crawford_games(log: MatchLog) -> set[int]:
    """Numbers of the games that are Crawford games by the scores before them (none in money play, and
    none in a 1-point match, where nobody can gain by doubling anyway)."""
    if log.length <= 1 or not log.crawford:
        return set()
    for game in log.games:
        if max(game.score) == log.length - 1:
            return {game.number}
    return set()


def replay(log: MatchLog) -> list[Decision]:
    """Every decision of ``log``, in order; a MatchFileError at the first thing the rules forbid."""
    decisions: list[Decision] = []
    score = list(log.games[0].score) if log.games else [0, 0]  # a file may hold one game from mid-match
    crawford_games = _crawford_games(log)
    for game in log.games:
        if tuple(game.score) != tuple(score):
            raise MatchFileError(f"the score before this game is {game.score[0]}-{game.score[1]}, but the games "
                                 f"before add up to {score[0]}-{score[1]}", log.file, game.number, game.line or None,
                                 log.unit)
        table = _Table(log, game, game.number in crawford_games)
        for action, following in zip(game.actions, game.actions[1:] + [None]):
            if table.result is not None:
                raise table.fault(action, f"{action.kind} after the game ended")
            if _rolled_then_resigned(action, following):
                continue  # the roll was never played: no move to judge
            row = table.row_of(action)
            for decision in _act(table, action):
                decision.row = row
                decision.analysis = action.analysis.get(decision.kind)
                decisions.append(decision)
        if game.winner is None:
            if game is not log.games[-1]:
                raise table.fault(None, "the game has no result, yet another game follows")
            continue
        if table.result is None:
            raise table.fault(None, f"the record says {table.name(game.winner)} wins, but the game is not over")
        if table.result != (game.winner, game.points):
            winner, points = table.result
            raise table.fault(None, f"the record says {table.name(game.winner)} wins {game.points}, but the play "
                                    f"gives {table.name(winner)} {points}")
        score[game.winner] += game.points
    return decisions


def _rolled_then_resigned(action: Action, following: Action | None) -> bool:
    """A roll written with no move, and the same player's resignation next (how .mat files show it)."""
    return (action.kind == "move" and not action.move and following is not None and following.kind == "resign"
            and following.player == action.player)


def _act(table: _Table, action: Action) -> list[Decision]:
    """Apply one action to ``table``; the decisions it was."""
    if table.offer is not None:
        return _answer(table, action)
    if table.beaverer is not None and action.kind in ("take", "drop") and action.player == 1 - table.beaverer:
        if action.kind == "drop":  # the doubler pays the doubled cube rather than play on for the beavered one
            table.result = (table.beaverer, table.cube // 2)
        table.beaverer = None
        return []
    if action.kind == "move":
        return _move(table, action)
    if action.kind == "double":
        return _double(table, action)
    if action.kind == "resign":
        if action.value not in (1, 2, 3):
            raise table.fault(action, f"a resignation offers 1, 2 or 3 points per cube; got {action.value}")
        table.offer = action
        return []
    raise table.fault(action, f"{table.name(action.player)} {action.kind}s, but nothing was offered")


def _cube_decision(table: _Table, player: int, doubled: bool, line: int) -> list[Decision]:
    """The decision to double or not, when ``player`` (on roll, before the roll) has access to the cube."""
    if table.moves == 0 or table.crawford or table.owner == 1 - player:
        return []
    return [Decision(table.game.number, line, player, "cube", table.board.copy(), table.seen_by(player),
                     table.game.score, doubled=doubled, state=table.state(player))]


def _move(table: _Table, action: Action) -> list[Decision]:
    player = action.player
    if table.on_roll is None:
        table.on_roll = player
    if player != table.on_roll:
        raise table.fault(action, f"{table.name(player)} moves, but {table.name(table.on_roll)} is on roll")
    if action.dice is None or len(action.dice) != 2 or not all(1 <= d <= 6 for d in action.dice):
        raise table.fault(action, f"a move needs two dice 1..6; got {action.dice}")
    if table.moves == 0 and action.dice[0] == action.dice[1]:
        raise table.fault(action, f"the opening roll cannot be a double; got {action.dice[0]}-{action.dice[1]}")
    decided = [] if table.doubled else _cube_decision(table, player, False, action.line)
    table.doubled, table.beaverer = False, None
    try:
        play = find_play(table.board, action.dice, action.move)
    except GammonError as exc:
        raise table.fault(action, f"{table.name(player)}'s {action.dice[0]}{action.dice[1]}: {exc}") from None
    decided.append(Decision(table.game.number, action.line, player, "move", table.board.copy(),
                            table.seen_by(player), table.game.score, tuple(action.dice), action.move,
                            play.board.copy(), state=table.state(player, tuple(action.dice)),
                            opening=table.moves == 0))
    won = int(result_points(play.board[None], variant_checkers(table.log.variant))[0])
    if won:
        if table.log.jacoby and not table.log.length and not table.turned:
            won = 1
        table.result = (player, won * table.cube)
    table.board, table.on_roll = flip(play.board), 1 - player
    table.moves += 1
    return decided


def _double(table: _Table, action: Action) -> list[Decision]:
    player = action.player
    if table.on_roll is not None and player != table.on_roll:
        raise table.fault(action, f"{table.name(player)} doubles, but {table.name(table.on_roll)} is on roll")
    if table.moves == 0:
        raise table.fault(action, "no double before the opening roll is played")
    if table.crawford:
        raise table.fault(action, "no doubling in the Crawford game")
    if table.owner == 1 - player:
        raise table.fault(action, f"{table.name(player)} doubles, but {table.name(1 - player)} owns the cube")
    if action.value and action.value != 2 * table.cube:
        raise table.fault(action, f"the cube is at {table.cube}; a double turns it to {2 * table.cube}, "
                                  f"not {action.value}")
    decided = _cube_decision(table, player, True, action.line)
    table.offer, table.doubled = action, True
    return decided


def _answer(table: _Table, action: Action) -> list[Decision]:
    """The answer to the pending double or resignation."""
    offer = table.offer
    if action.player != 1 - offer.player:
        raise table.fault(action, f"{table.name(action.player)} answers their own {offer.kind}")
    if offer.kind == "resign":
        if action.kind not in ("accept", "reject"):
            raise table.fault(action, f"a resignation is accepted or rejected; got {action.kind}")
        table.offer = None
        if action.kind == "accept":
            table.result = (action.player, offer.value * table.cube)
        return []
    if action.kind not in ("take", "drop", "beaver"):
        raise table.fault(action, f"a double is taken or dropped; got {action.kind}")
    doubler = offer.player
    decision = Decision(table.game.number, action.line, action.player, "take", table.board.copy(),
                        table.seen_by(doubler), table.game.score, took=action.kind != "drop",
                        state=table.state(doubler, doubled=True))
    if action.kind == "drop":
        table.result = (doubler, table.cube)
        table.offer = None
        return [decision]
    if action.kind == "beaver" and not (table.log.beavers and not table.log.length):
        raise table.fault(action, "a beaver, but beavers are not allowed here")
    table.cube *= 4 if action.kind == "beaver" else 2
    table.owner, table.turned, table.offer = action.player, True, None
    table.beaverer = action.player if action.kind == "beaver" else None
    return [decision]
