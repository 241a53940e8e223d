"""The ``gammon`` command line.

Each sub-command imports what it needs when it runs, so ``engine`` stays free of torch
and ``gammon --help`` is instant. Bad input ends with one clear line on stderr and exit
code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from .board import VARIANTS, BoardError, flip, render, variant_checkers
from .formats import parse_position


def _dice(text: str) -> tuple[int, int]:
    digits = [c for c in text if c.isdigit()]
    if len(digits) != 2 or not all("1" <= c <= "6" for c in digits):
        raise argparse.ArgumentTypeError(f"dice are two digits 1..6 like 64 or 6-4; got {text!r}")
    return int(digits[0]), int(digits[1])


def cmd_show(args) -> int:
    board, state = parse_position(args.position)
    print(render(board))
    if state is not None:
        print(f"cube {state.cube} ({'centered' if state.cube_owner < 0 else f'owned by player {state.cube_owner}'}), "
              f"player {state.on_roll} on roll, dice {state.dice}, "
              f"{'money' if state.match_length == 0 else f'match to {state.match_length}'}, score {state.score}")
    return 0


def cmd_moves(args) -> int:
    from .formats import position_id
    from .notation import legal_plays

    board, state = parse_position(args.position)
    dice = args.dice or (state.dice if state is not None and state.dice[0] else None)
    if dice is None:
        raise BoardError("no dice: give --dice (e.g. --dice 64) or a Match ID / XGID with dice")
    plays = legal_plays(board, dice)
    rows = [{"move": p.notation, "result_id": position_id(flip(p.board))} for p in plays]
    if args.json:
        print(json.dumps({"dice": list(dice), "moves": rows}))
    else:
        print(f"{len(rows)} legal play(s) with {dice[0]}-{dice[1]}:")
        for i, row in enumerate(rows, 1):
            print(f"{i:>4}. {row['move'] or '(no move: the turn passes)':<28} {row['result_id']}")
    return 0


def _policy(name: str, rng: np.random.Generator):
    from .game import greedy_policy, random_policy

    if name == "random":
        return random_policy(rng)
    if name == "heuristic":
        from models.heuristic import heuristic_value

        return greedy_policy(heuristic_value)
    raise BoardError(f"unknown player {name!r}; choose random or heuristic")


def cmd_demo(args) -> int:
    from .game import play_games

    rng = np.random.default_rng(args.seed)
    players = (_policy(args.x, rng), _policy(args.o, rng))
    result = play_games(players, 1, seed=args.seed, variant=args.variant, record=True)
    record = result.records[0]
    names = (f"X ({args.x})", f"O ({args.o})")
    checkers = variant_checkers(args.variant)
    print(f"{args.variant} game, {names[0]} vs {names[1]}; opening roll X {record.opening[0]}, O {record.opening[1]}\n")
    for number, (side, dice, before, move) in enumerate(record.turns, 1):
        if args.quiet:
            continue
        seen_from_x = before if side == 0 else flip(before)
        print(render(seen_from_x, checkers, names=("X", "O")))
        print(f"\nturn {number}: {names[side]} rolls {dice[0]}-{dice[1]} and plays {move or '(no move)'}\n")
        if args.delay:
            time.sleep(args.delay)
    points = int(result.points[0])
    kind = {1: "a single game", 2: "a gammon", 3: "a backgammon"}[abs(points)]
    print(f"{names[0 if points > 0 else 1]} wins {kind} ({abs(points)} point{'s' if abs(points) > 1 else ''}) after {len(record.turns)} turns")
    return 0


def cmd_bench(args) -> int:
    if args.what == "movegen":
        from benchmarks.movegen import main as movegen_main

        return movegen_main(args.rest)
    raise BoardError(f"unknown benchmark {args.what!r}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gammon",
        description="Backgammon engine: exact vectorized rules, position formats, bots.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="watch a bot-vs-bot game drawn in the terminal")
    demo.add_argument("--x", default="heuristic", help="player X: heuristic or random (default heuristic)")
    demo.add_argument("--o", default="heuristic", help="player O: heuristic or random (default heuristic)")
    demo.add_argument("--variant", default="standard", choices=sorted(VARIANTS))
    demo.add_argument("--seed", type=int, default=1, help="dice seed (default 1)")
    demo.add_argument("--delay", type=float, default=0.0, help="seconds to pause after each move")
    demo.add_argument("--quiet", action="store_true", help="print only the result")
    demo.set_defaults(run=cmd_demo)

    show = sub.add_parser("show", help="draw a position (Position ID, PositionID:MatchID or XGID)")
    show.add_argument("position")
    show.set_defaults(run=cmd_show)

    moves = sub.add_parser("moves", help="list the legal plays of a position and roll")
    moves.add_argument("position", help="Position ID, PositionID:MatchID or XGID")
    moves.add_argument("--dice", type=_dice, help="the roll, e.g. 64 (default: the dice in the Match ID/XGID)")
    moves.add_argument("--json", action="store_true")
    moves.set_defaults(run=cmd_moves)

    bench = sub.add_parser("bench", help="run a benchmark (movegen)")
    bench.add_argument("what", choices=["movegen"])
    bench.add_argument("rest", nargs=argparse.REMAINDER, help="options passed to the benchmark")
    bench.set_defaults(run=cmd_bench)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except ValueError as exc:  # BoardError, FormatError, MoveError: the user's input
        print(f"gammon {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
