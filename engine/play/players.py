"""Players of the game loop (:func:`engine.play.game.play`): what it asks of them, a player that never
doubles, and cube-aware players from evaluators, batched (docs/rules.md).

The cube rules (access, take, pass, beavers, redoubles, Jacoby, automatic doubles, Crawford)
are the loop's. A player has a move ``policy`` (:data:`engine.search.evaluator.Policy`) and,
when the loop is told it takes cube decisions (``doubling``), two cube methods,
``doubles(boards, cubes) -> bool`` for the player on roll and ``answers(boards, cubes) ->
0 pass / 1 take / 2 beaver`` for the player doubled, where ``boards`` are always seen from
the player on roll (the doubler) and ``cubes`` is the list of their
:class:`engine.cube.state.Cube` as the doubler sees it, one per row.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from gammon.engine.cube.state import TAKE, Cube
from gammon.engine.errors import GammonError
from gammon.engine.rules.movegen import WildFilter
from gammon.engine.rules.outcomes import cubeless_equity
from gammon.engine.search.analysis import cube_actions_at, ply_policy, position_probs
from gammon.engine.search.evaluator import Policy, evaluator_policy


class Player(Protocol):
    """What the game loop asks of a player; derive from it to inherit the answers of a player who takes no
    part beyond moving (never doubles, takes, never resigns, accepts resignations and beavers).

    The loop asks only what the flags open: ``doubles`` before a roll with access to the cube
    when ``doubling`` (such a player also answers doubles), ``resigns`` after each roll when
    ``resigning``, and shows ``learn(before, after)`` each move made when ``learning`` (the TD
    trainer learns there). ``wild_filter`` (:data:`engine.rules.movegen.WildFilter`) prunes the
    plays of its wild rolls. ``first_policy`` plays instead of ``policy`` while the game slot has had fewer
    than ``first_turns`` turns (both players', counted from where the loop started it): a rollout's deeper
    search on its first turns. Boards are seen from the
    player asked, but for ``answers`` and the resignation's judge, who see the opponent's (doubler's,
    resigner's) side.
    """

    policy: Policy
    first_policy: Policy | None = None
    first_turns: int = 0
    wild_filter: WildFilter | None = None
    doubling: bool = False
    resigning: bool = False
    learning: bool = False

    def doubles(self, boards: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        """(N,) bool: double in each game (boards and cubes as the player on roll sees them)."""
        return np.zeros(len(boards), dtype=bool)

    def answers(self, boards: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        """(N,) the answer to each double: PASS, TAKE or BEAVER (engine.cube.state)."""
        return np.full(len(boards), TAKE)

    def accepts_beaver(self, boards: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        """(N,) bool: the doubler, beavered, plays on for twice the cube (else pays the cube)."""
        return np.ones(len(boards), dtype=bool)

    def resigns(self, boards: np.ndarray, cubes: list[Cube], dice: np.ndarray) -> np.ndarray:
        """(N,) points offered per unit of the cube after rolling ``dice`` (0 plays on, 1, 2 or 3)."""
        return np.zeros(len(boards), dtype=np.int64)

    def accepts_resignation(self, boards: np.ndarray, cubes: list[Cube], offered: np.ndarray) -> np.ndarray:
        """(N,) bool: accept the points ``offered`` (boards and cubes as the resigner sees them)."""
        return np.ones(len(boards), dtype=bool)

    def learn(self, before: np.ndarray, after: np.ndarray) -> None:
        """The boards moved from and the afterstates chosen, each move made (``learning`` players)."""


class Cubeless(Player):
    """A player who never doubles: a move policy alone (the cube stays out of its games)."""

    def __init__(self, policy: Policy, first_policy: Policy | None = None, first_turns: int = 0):
        if first_turns and first_policy is None:
            raise GammonError(f"a player's first {first_turns} turns need a policy of their own")
        self.policy = policy
        self.wild_filter = getattr(policy, "wild_filter", None)  # its bot's pruning of a wild roll's plays
        self.first_policy, self.first_turns = first_policy, first_turns


class EvaluatorPlayer(Player):
    """A cube-aware player from an evaluator: moves at ``move_plies`` (its first turns of each game slot by the
    search ``search = (plies, turns)``); the cube at ``cube_plies``
    by Janowski's model in money play, or with the match equity table (engine/cube/match.py) in matches.

    Evaluators without probabilities (pubeval, heuristic, random) never double and
    always take.
    """

    doubling = True  # asked before every roll with access, also when it never doubles: it answers doubles

    def __init__(self, evaluator, cube_plies: int = 0, move_plies: int = 0, screened: bool = False,
                 search: tuple[int, int] | None = None):
        self.evaluator = evaluator
        self.name = getattr(evaluator, "name", "player")
        self.has_probabilities = hasattr(evaluator, "probabilities")
        if move_plies and not self.has_probabilities:
            raise GammonError(f"{self.name} cannot search ahead: it has no probability estimates")
        # ``screened``: 0-ply moves among the plays the evaluator's screen ranks best, as rollouts play
        self.policy = ply_policy(evaluator, move_plies) if move_plies else evaluator_policy(evaluator, screened)
        self.wild_filter = getattr(self.policy, "wild_filter", None)
        self.cube_plies = cube_plies
        if search:  # (plies, turns): the first turns played by the search that deep
            self.first_policy, self.first_turns = ply_policy(evaluator, search[0]), search[1]

    def doubles(self, boards: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        if not self.has_probabilities:
            return super().doubles(boards, cubes)
        return cube_actions_at(self.evaluator, boards, cubes, self.cube_plies)[0]

    def accepts_beaver(self, boards: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        """The doubler (on roll) facing a beaver: play on for twice the cube, or pay the cube."""
        if not self.has_probabilities:
            return super().accepts_beaver(boards, cubes)
        return cube_actions_at(self.evaluator, boards, cubes, self.cube_plies)[2] >= -1.0

    def answers(self, boards: np.ndarray, cubes: list[Cube]) -> np.ndarray:
        if not self.has_probabilities:
            return super().answers(boards, cubes)
        return cube_actions_at(self.evaluator, boards, cubes, self.cube_plies)[1]

    def accepts_resignation(self, boards: np.ndarray, cubes: list[Cube], offered: np.ndarray) -> np.ndarray:
        """Accept when the offer (points per cube unit) is at least what this player expects to win
        from the resigner's position (``boards``, resigner on roll): cubeless, 0-ply."""
        if not self.has_probabilities:
            return super().accepts_resignation(boards, cubes, offered)
        expected = -cubeless_equity(position_probs(self.evaluator, boards, 0))
        return np.asarray(offered) >= expected
