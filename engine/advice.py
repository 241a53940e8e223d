"""Analysis answers as plain data: a parsed position (board and its Match ID / XGID state) in,
JSON-ready dicts out. The command line prints them, batch files store them.
"""

from __future__ import annotations

from .analysis import cube_efficiency, position_probs, rank_moves
from .board import flip
from .cube import Cube
from .formats import position_id
from .match import cube_decision
from .notation import format_move
from .probability import cubeless_equity


def hint_rows(net, board, state, dice, plies: int) -> list[dict]:
    """Every legal play, best first, as plain data (move, result_id, equities, plies, probs)."""
    moves = rank_moves(net, board, dice, plies=plies, cube=Cube.from_state(state).for_money())
    best = moves[0].cubeful
    return [{"move": format_move(board, m.steps), "result_id": position_id(flip(m.board)), "equity": m.cubeful,
             "cubeless": m.equity, "diff": m.cubeful - best, "plies": m.plies, "probs": m.probs.tolist()}
            for m in moves]


def cube_result(net, board, state, plies: int) -> dict:
    """The cube action for the player on roll (money, or match play with the MET), as plain data."""
    probs = position_probs(net, board[None], plies)[0]
    x = float(cube_efficiency(board)[0])
    decision = cube_decision(probs, Cube.from_state(state), x)
    return {"plies": plies, "probs": probs.tolist(), "cubeless": float(cubeless_equity(probs)), **decision.__dict__}
