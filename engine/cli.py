"""The ``gammon`` command line.

Each sub-command imports what it needs when it runs, so ``engine`` stays free of torch
and ``gammon --help`` is instant. Bad input ends with one clear line on stderr and exit
code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time

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


def _policy(name: str, seed: int):
    from models.players import load_player

    from .evaluator import evaluator_policy

    return evaluator_policy(load_player(name, seed))


def cmd_demo(args) -> int:
    from .game import play_games

    players = (_policy(args.x, args.seed + 1), _policy(args.o, args.seed + 2))
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


def cmd_train(args) -> int:
    from training.train import main as train_main

    return train_main(args.rest)


BENCHMARKS = ("movegen", "strength", "selfplay")


def cmd_bench(args) -> int:
    if args.what not in BENCHMARKS:
        raise BoardError(f"unknown benchmark {args.what!r}; choose one of {', '.join(BENCHMARKS)}")
    module = importlib.import_module(f"benchmarks.{args.what}")
    return module.main(args.rest)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gammon",
        description="Backgammon engine: exact vectorized rules, position formats, bots.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="watch a bot-vs-bot game drawn in the terminal")
    demo.add_argument("--x", default="default", help="player X: default (the shipped net), a weights file, pubeval, "
                      "heuristic, random, gnubg (default: default)")
    demo.add_argument("--o", default="pubeval", help="player O, as for --x (default: pubeval)")
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

    train = sub.add_parser("train", help="train a network by self-play (gammon train --help for options)", add_help=False)
    train.add_argument("rest", nargs=argparse.REMAINDER, help="options for the trainer")
    train.set_defaults(run=cmd_train)

    bench = sub.add_parser("bench", help="run a benchmark: movegen, strength A B, selfplay")
    bench.add_argument("what", choices=BENCHMARKS)
    bench.add_argument("rest", nargs=argparse.REMAINDER, help="options passed to the benchmark")
    bench.set_defaults(run=cmd_bench)
    return parser


# Sub-commands with their own option parsers: everything after the name is theirs.
DELEGATED = {"train": cmd_train, "bench": cmd_bench}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in DELEGATED:
        args = argparse.Namespace(command=argv[0], run=DELEGATED[argv[0]], rest=argv[1:])
        if argv[0] == "bench":
            args.what, args.rest = (argv[1] if len(argv) > 1 else None), argv[2:]
    else:
        args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except ValueError as exc:  # BoardError, FormatError, MoveError: the user's input
        print(f"gammon {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
