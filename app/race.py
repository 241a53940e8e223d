"""``gammon race POS``: a race's pip counts and effective pip counts, the counts players use at the board
with each one's cube advice (engine/search/race_counts.py), and our own evaluation beside them.

``race_report`` is the one answer: ``--json`` prints it, the web board's ``/api/race`` returns it.
"""

from __future__ import annotations

import json
import math

from gammon.app.analyse import PROB_HEADER, prob_row
from gammon.app.arguments import draw, position_in_variant
from gammon.engine.cube.state import Cube
from gammon.engine.records.formats import describe_state
from gammon.engine.review.advice import cube_result
from gammon.engine.rules.board import pip_counts
from gammon.engine.search.race_counts import RaceCount, effective_pip_counts, race_counts, require_race
from gammon.options import model_option, ply_option

EPC_NOTE = ("EPC: the expected rolls to bear off x 49/6, exact from the one-sided database; '-' for a side with "
            "checkers outside its home board, beyond the database")


def count_advice(count: RaceCount, cube: Cube, evaluation: dict) -> str | None:
    """A count's advice for the cube as it stands, in gnubg's words; None where the player on roll has no
    cube decision (``evaluation``, engine.review.advice.cube_result, says why)."""
    if evaluation["double_take"] is None or "reason" in evaluation:  # closed, or no gain (the Crawford game)
        return None
    word = "redouble" if cube.owner == "me" else "double"
    doubles = count.redouble[0] if cube.owner == "me" else count.double[0]
    answer = "take" if count.take[0] else "pass"
    return f"{word.capitalize()}, {answer}" if doubles else f"No {word}, {answer}"


def _figure(values, row: int = 0):
    """One board's number as JSON takes it: a float, or None for a figure the method lacks or cannot give."""
    if values is None:
        return None
    value = float(values[row])
    return value if math.isfinite(value) else None


def count_row(count: RaceCount, cube: Cube, evaluation: dict) -> dict:
    """One count of one race (row 0 of its arrays) as plain data."""
    return {"counts": None if count.counts is None else [_figure(count.counts[0], side) for side in range(2)],
            "value": _figure(count.value), "win": _figure(count.win), "double": bool(count.double[0]),
            "redouble": bool(count.redouble[0]), "take": bool(count.take[0]),
            "advice": count_advice(count, cube, evaluation)}


def race_report(net, position: str, board, state, plies: int) -> dict:
    """Pips, EPC and wastage (null beyond the database), each count with its advice, and ``net``'s cube
    analysis at ``plies`` (engine.review.advice.cube_result); a position with contact is refused in one line."""
    require_race(board)
    boards = board[None]
    pips = pip_counts(boards)[0]
    epc = effective_pip_counts(boards)[0]
    cube, evaluation = Cube.from_state(state), cube_result(net, board, state, plies)
    return {"position": position, "situation": describe_state(state), "pips": pips.tolist(),
            "epc": [_figure(epc, side) for side in range(2)],
            "wastage": [_figure(epc - pips, side) for side in range(2)],
            "counts": {name: count_row(count, cube, evaluation) for name, count in race_counts(boards).items()},
            "evaluation": evaluation}


# -- the terminal ---------------------------------------------------------------------------------


def _cell(value, form: str) -> str:
    return "-" if value is None else format(value, form)


def _count_cells(name: str, row: dict) -> str:
    """The count columns of a row: both sides' counts, or the method's one figure (Kleinman's K, the lead)."""
    if row["counts"] is not None:
        forms = (".1f", ".0f") if name == "Thorp" else (".0f", ".0f")  # only the mover's Thorp count has tenths
        return "".join(f"{_cell(value, form):>8}" for value, form in zip(row["counts"], forms))
    if name == "Kleinman":
        figure = "K infinite" if row["value"] is None else f"K = {row['value']:.2f}"
    else:
        figure = f"lead {row['value']:.1%}"
    return f"{figure:>16}"


def print_report(report: dict) -> None:
    pips, epc, wastage = report["pips"], report["epc"], report["wastage"]
    print(f"\n{'':<12}{'X':>8}{'O':>8}")
    print(f"{'pips':<12}{pips[0]:>8}{pips[1]:>8}")
    print(f"{'EPC':<12}{_cell(epc[0], '.1f'):>8}{_cell(epc[1], '.1f'):>8}")
    print(f"{'wastage':<12}{_cell(wastage[0], '.1f'):>8}{_cell(wastage[1], '.1f'):>8}")
    print(f"\n{'count':<12}{'X':>8}{'O':>8}{'X wins':>9}   advice (money play)")
    for name, row in report["counts"].items():
        print(f"{name:<12}{_count_cells(name, row)}{_cell(row['win'], '8.1%'):>9}   {row['advice'] or '-'}")
    evaluation = report["evaluation"]
    depth = f"{evaluation['plies']}-ply"
    print(f"{'our net':<12}{depth:>16}{evaluation['probs'][0]:>9.1%}   {evaluation['verdict']}")
    print(f"\n{PROB_HEADER}\n{prob_row(depth, evaluation['probs'], evaluation['cubeless'])}")
    print("\nX's Keith and Thorp counts include the on-roll step (+1/7; +10% above 30).")
    print(f"{EPC_NOTE}.")


def cmd_race(args) -> int:
    from gammon.models.players import load_analyst

    board, state = position_in_variant(args.position)
    require_race(board)  # before the net loads: a contact position is refused at once
    report = race_report(load_analyst(args.model), args.position, board, state, args.ply)
    if args.json:
        print(json.dumps(report))
        return 0
    print(draw(board, "standard"))
    print(describe_state(state))
    print_report(report)
    return 0


def register(sub) -> None:
    """Add ``race`` to the ``gammon`` parser's ``sub``."""
    race = sub.add_parser("race", help="a race's pip counts, EPC, the Keith, Thorp, Isight, Kleinman and 8-9-12 "
                                       "counts with their cube advice, and our own evaluation")
    race.add_argument("position", help="Position ID, PositionID:MatchID or XGID (player on roll)")
    ply_option(race)
    model_option(race)
    race.add_argument("--json", action="store_true", help="print the answer as one JSON object")
    race.set_defaults(run=cmd_race)
