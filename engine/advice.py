"""Analysis answers as plain data: a parsed position (board and its Match ID / XGID state) in,
JSON-ready dicts out. The command line prints them, batch files store them.
"""

from __future__ import annotations

from .analysis import cube_efficiency, cubeful_equity, position_probs, rank_moves
from .cube import Cube
from .formats import position_id
from .match import cube_decision, cubeful_mwc, to_emg
from .notation import format_move
from .probability import cubeless_equity


def hint_rows(net, board, state, dice, plies: int) -> list[dict]:
    """Every legal play, best first, as plain data (move, result_id, equities, plies, probs)."""
    moves = rank_moves(net, board, dice, plies=plies, cube=Cube.from_state(state))
    best = moves[0].cubeful
    variant = net.variant
    # The result's Position ID is the next roll's, in the variant's own numbering: the opponent's view, or
    # the mover's own when he rolls again (a wild roll's play).
    return [{"move": format_move(board, m.steps, m.rolls_again),
             "result_id": position_id(m.board if m.rolls_again else variant.geometry.flip(m.board), variant),
             "equity": m.cubeful,
             "cubeless": m.equity, "diff": m.cubeful - best, "plies": m.plies, "probs": m.probs.tolist()}
            for m in moves]


def no_double_reason(cube: Cube) -> str | None:
    """Why the player on roll has no cube decision to make, or None when doubling is open to them."""
    if cube.owner == "opponent":
        return "the opponent owns the cube"
    if cube.crawford:
        return "the Crawford game: no doubling"
    if not cube.money and cube.my_away <= cube.value:
        return "the cube already wins the match"
    return None


def _equity_as_is(probs, cube: Cube, x: float) -> float:
    """Cubeful equity per unit of the cube, the cube left where it is (EMG in a match)."""
    if cube.money:
        return float(cubeful_equity(probs, cube, x)) / cube.value
    return float(to_emg(cubeful_mwc(probs, cube, x), cube))


def cube_result(net, board, state, plies: int) -> dict:
    """The cube action for the player on roll (money, or match play with the MET), as plain data.

    Where the player cannot double (the opponent owns the cube) the answer is ``no_double``
    with a ``reason`` and the cubeful equity as things stand, instead of an error: a batch of
    positions taken from games holds such positions. Where doubling is allowed but cannot gain
    (the Crawford game, a cube that already wins the match) the full decision comes with a
    ``reason`` too.
    """
    probs = position_probs(net, board[None], plies)[0]
    x = float(cube_efficiency(board, geometry=net.variant.geometry)[0])
    cube = Cube.from_state(state)
    reason = no_double_reason(cube)
    common = {"plies": plies, "probs": probs.tolist(), "cubeless": float(cubeless_equity(probs))}
    if cube.owner == "opponent":
        return {**common, "no_double": _equity_as_is(probs, cube, x), "double_take": None, "double_pass": None,
                "action": "no_double", "response": None, "verdict": f"No double: {reason}", "take_point": None,
                "reason": reason}
    decision = cube_decision(probs, cube, x)
    return {**common, **decision.__dict__, **({"reason": reason} if reason else {})}
