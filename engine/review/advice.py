"""Analysis answers as plain data: a parsed position (board and its Match ID / XGID state) in,
JSON-ready dicts out. The command line prints them, batch files store them. The tutor of ``gammon play``
and the web board weighs a decision against the best here too (:func:`play_choice`, :func:`cube_choice`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gammon.engine.cube.state import Cube
from gammon.engine.play.rollout import rollout_plays
from gammon.engine.records.formats import position_id
from gammon.engine.rules.notation import LegalPlay, format_move
from gammon.engine.rules.outcomes import cubeless_equity
from gammon.engine.search.analysis import cube_advice, play_values, rank_moves


def hint_rows(net, board, state, dice, plies: int, filters=None) -> list[dict]:
    """Every legal play, best first, as plain data (move, result_id, equities, plies, probs); ``filters`` as
    engine.search.analysis.rank_moves takes them (None: gnubg's)."""
    moves = rank_moves(net, board, dice, plies=plies, cube=Cube.from_state(state), filters=filters)
    best = moves[0].cubeful
    variant = net.variant
    wild = bool(variant.is_wild(np.asarray(dice)))  # a wild roll's play is written in its two parts
    # The result's Position ID is the next roll's, in the variant's own numbering: the opponent's view, or
    # the mover's own when he rolls again (a wild roll and its double played in full).
    return [{"move": format_move(board, m.steps, wild),
             "result_id": position_id(variant.next_on_roll(m.board, m.rolls_again), variant),
             "equity": m.cubeful,
             "cubeless": m.equity, "diff": m.cubeful - best, "plies": m.plies, "probs": m.probs.tolist()}
            for m in moves]


def cube_result(net, board, state, plies: int) -> dict:
    """The cube action for the player on roll (money, or match play with the MET), as plain data.

    Where the player cannot double (the opponent owns the cube) the answer is ``no_double``
    with a ``reason`` and the cubeful equity as things stand, instead of an error: a batch of
    positions taken from games holds such positions. Where doubling is allowed but cannot gain
    (the Crawford game, a cube that already wins the match) the full decision comes with a
    ``reason`` too.
    """
    advice = cube_advice(net, board, Cube.from_state(state), plies)
    probs, reason = advice.probs, advice.reason
    common = {"plies": plies, "probs": probs.tolist(), "cubeless": float(cubeless_equity(probs))}
    if advice.decision is None:
        return {**common, "no_double": advice.as_is, "double_take": None, "double_pass": None,
                "action": "no_double", "response": None, "verdict": f"No double: {reason}", "take_point": None,
                "reason": reason}
    return {**common, **advice.decision.__dict__, **({"reason": reason} if reason else {})}


def rollout_rows(net, board, state, dice, plies: int, top: int, games: int, seed: int = 0,
                 truncate: int | None = None, reduce_variance: bool = False, progress=None,
                 filters=None, truncate_plies: int = 0) -> list[dict]:
    """The ``top`` plays of ``dice`` by the search at ``plies`` (with ``filters``, as hint_rows), rolled out with
    the same dice (:func:`rolled_out`), best first by the rollout's value: ``cubeful`` (money per unit of the
    cube, or EMG at a match score) and its difference from the best, beside the cubeless equity and its
    difference from the best, taken game by game, with their 95% intervals."""
    cube = Cube.from_state(state)
    moves = rank_moves(net, board, dice, plies=plies, cube=cube, filters=filters)[:top]
    wild = bool(net.variant.is_wild(np.asarray(dice)))
    rolled, values = rolled_out(net, cube, np.stack([m.board for m in moves]), np.array([m.rolls_again for m in moves]),
                                games, seed, truncate, reduce_variance, progress, truncate_plies)
    rows = [{"move": format_move(board, m.steps, wild),
             "result_id": position_id(net.variant.next_on_roll(m.board, m.rolls_again), net.variant),
             "plies": m.plies, "searched": m.cubeful,
             "cubeful": float(value), "cubeful_diff": float(value - values.max()), **r.as_dict()}
            for m, r, value in zip(moves, rolled, values)]
    return sorted(rows, key=lambda row: -row["cubeful"])


def rolled_out(net, cube: Cube, boards: np.ndarray, again: np.ndarray, games: int, seed: int = 0,
               truncate: int | None = None, reduce_variance: bool = False, progress=None,
               truncate_plies: int = 0) -> tuple[list, np.ndarray]:
    """The plays of one roll (their afterstates ``boards``, the mover rolling again where ``again`` says)
    rolled out as cubeless games with the same dice (engine.play.rollout.rollout_plays), and what each is
    worth by its rolled-out probabilities, as the search values a play (engine.search.analysis.play_values):
    money per unit of ``cube``, or the match equity it leads to in EMG. At a match score the games are
    cubeless, as gnubg's cubeless rollouts; the score prices their gammons."""
    rolled = rollout_plays(net, boards, again, games, seed, truncate, progress, reduce_variance, truncate_plies)
    return rolled, play_values(net.variant, boards, again, np.stack([r.probs for r in rolled]), cube)


@dataclass(frozen=True)
class Level:
    """A named analysis level, as eXtreme Gammon's Roller levels: the best few plays of a search, rolled out
    with variance reduction and truncation (:func:`rollout_rows`)."""

    name: str
    candidates: int
    games: int
    truncate: int | None


# Each level rolls out more plays, more games, deeper (their time a decision: benchmarks/RESULTS.md, "Rollouts").
LEVELS = {level.name: level for level in (Level("R1", 3, 108, 5), Level("R2", 4, 324, 8), Level("R3", 5, 1296, 12))}


@dataclass(frozen=True)
class Choice:
    """A decision weighed against the best one: each one's cubeful equity per unit of the cube (EMG in a match)
    for the player deciding."""

    chosen: str
    best: str
    chosen_equity: float
    best_equity: float

    @property
    def loss(self) -> float:
        return self.best_equity - self.chosen_equity


def play_choice(net, board, dice, cube: Cube, chosen: LegalPlay, plies: int) -> Choice:
    """The checker play ``chosen`` against the best play of ``dice``, ranked as ``hint`` ranks them."""
    ranked = rank_moves(net, board, dice, plies, cube, also=chosen.board)
    # The same board may be left with and without an extra roll (Acey-Deucey's 1-2 and its double).
    played = next(m for m in ranked
                  if np.array_equal(m.board, chosen.board) and m.rolls_again == chosen.rolls_again)
    wild = bool(net.variant.is_wild(np.asarray(dice)))  # a wild roll's play is written in its two parts
    return Choice(format_move(board, played.steps, wild), format_move(board, ranked[0].steps, wild),
                  played.cubeful, ranked[0].cubeful)


def cube_choice(net, board, cube: Cube, action: str, plies: int) -> Choice | None:
    """The cube action ``action`` against the best one: "double" or "no double" by the player on roll in
    ``board`` holding ``cube``; "take" or "pass" by his opponent, answering that double (``board`` and ``cube``
    still the doubler's). None where the cube cannot gain anything (engine.cube.decisions.no_double_reason)."""
    advice = cube_advice(net, board, cube, plies)
    decision = advice.decision
    if decision is None or advice.reason:
        return None
    if action in ("take", "pass"):  # the taker's side of the doubler's equities
        equities = {"take": -decision.double_take, "pass": -decision.double_pass}
    else:  # a double is answered as is best for the opponent
        equities = {"double": min(decision.double_take, decision.double_pass), "no double": decision.no_double}
    best = max(equities, key=equities.get)
    return Choice(action, best, equities[action], equities[best])
