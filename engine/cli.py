"""The ``gammon`` command line.

Each sub-command imports what it needs when it runs, so ``engine`` stays free of torch
and ``gammon --help`` is instant. Bad input ends with one clear line on stderr and exit
code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
import time

from .board import VARIANTS, BoardError, flip, render, variant_checkers
from .formats import parse_position


def _at_least(low: int, multiple: int = 1):
    """An argparse type: an integer >= ``low`` (and a multiple of ``multiple``), else one line saying so."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or value % multiple:
            rule = f"at least {low}" + (f" and a multiple of {multiple}" if multiple > 1 else "")
            raise argparse.ArgumentTypeError(f"must be {rule}; got {value}")
        return value

    return parse


_DICE = re.compile(r"\s*([1-6])\s*[-,/ ]?\s*([1-6])\s*", re.ASCII)


def _dice(text: str) -> tuple[int, int]:
    match = _DICE.fullmatch(text)
    if not match:
        raise argparse.ArgumentTypeError(f"dice are two digits 1..6 like 64, 6-4 or 6,4; got {text!r}")
    return int(match[1]), int(match[2])


def cmd_show(args) -> int:
    board, state = parse_position(args.position)
    if args.svg:
        from .svg import write_board_svg

        write_board_svg(args.svg, board, state, title=args.position)
        print(f"wrote {args.svg}")
        return 0
    print(render(board))
    if state is not None:
        print(f"cube {state.cube} ({'centered' if state.cube_owner < 0 else f'owned by player {state.cube_owner}'}), "
              f"player {state.on_roll} on roll, dice {state.dice}, "
              f"{'money' if state.match_length == 0 else f'match to {state.match_length}'}, score {state.score}")
    return 0


def _dice_for(args, state) -> tuple[int, int]:
    dice = args.dice or (state.dice if state is not None and state.dice[0] else None)
    if dice is None:
        raise BoardError("no dice: give --dice (e.g. --dice 64) or a Match ID / XGID with dice")
    return dice


def _money_cube(state):
    """The cube of a parsed position as the player on roll sees it, valued as in money play.

    In a match the move ranking uses this money view of the cube (the cube decision
    itself, ``gammon cube``, uses the match equity table).
    """
    from .analysis import Cube

    if state is None:
        return Cube()
    owner = "centered" if state.cube_owner < 0 else "me" if state.cube_owner == state.on_roll else "opponent"
    return Cube(state.cube, owner, jacoby=state.jacoby)


PROB_HEADER = "         Win     W(g)    W(bg)   L(g)    L(bg)   Equity"


def _prob_row(label: str, probs, equity: float) -> str:
    return f"{label:<8}" + " ".join(f"{p:7.3f}" for p in probs) + f"  {equity:+7.3f}"


def cmd_eval(args) -> int:
    from models.players import load_analyst

    from .analysis import cube_efficiency, cubeful_equity, position_probs
    from .probability import cubeless_equity

    board, state = parse_position(args.position)
    cube = _money_cube(state)
    net = load_analyst(args.model)
    rows = []
    for plies in range(args.ply + 1):
        probs = position_probs(net, board[None], plies)[0]
        cubeful = float(cubeful_equity(probs, cube, cube_efficiency(board)[0])) / cube.value
        rows.append({"plies": plies, "probs": probs.tolist(), "equity": float(cubeless_equity(probs)), "cubeful": cubeful})
    if args.json:
        print(json.dumps({"position": args.position, "evaluations": rows}))
        return 0
    print(render(board))
    print(PROB_HEADER + "   Cubeful")
    for row in rows:
        print(_prob_row(f"{row['plies']}-ply", row["probs"], row["equity"]) + f"  {row['cubeful']:+7.3f}")
    return 0


def hint_rows(net, board, state, dice, plies: int) -> list[dict]:
    """Every legal play, best first, as plain data (move, result_id, equities, plies, probs)."""
    from .analysis import rank_moves
    from .formats import position_id
    from .notation import format_move

    moves = rank_moves(net, board, dice, plies=plies, cube=_money_cube(state))
    best = moves[0].cubeful
    return [{"move": format_move(board, m.steps), "result_id": position_id(flip(m.board)), "equity": m.cubeful,
             "cubeless": m.equity, "diff": m.cubeful - best, "plies": m.plies, "probs": m.probs.tolist()} for m in moves]


def cube_result(net, board, state, plies: int) -> dict:
    """The cube action for the player on roll (money, or match play with the MET), as plain data."""
    from .analysis import cube_decision, cube_efficiency, position_probs
    from .probability import cubeless_equity
    from .match import MatchScore, match_cube_decision

    probs = position_probs(net, board[None], plies)[0]
    x = float(cube_efficiency(board)[0])
    if state is not None and state.match_length:
        decision = match_cube_decision(probs, MatchScore.from_state(state), x)
    else:
        decision = cube_decision(probs, _money_cube(state), x)
    return {"plies": plies, "probs": probs.tolist(), "cubeless": float(cubeless_equity(probs)), **decision.__dict__}


def _batch_position(item: dict):
    """(board, state, dice) of a batch line: ``gnubgid``, or ``position_id`` (+ ``dice``)."""
    if "gnubgid" in item:
        board, state = parse_position(item["gnubgid"])
    elif "position_id" in item:
        board, state = parse_position(item["position_id"])
    else:
        raise BoardError("a batch line needs 'gnubgid' or 'position_id'")
    dice = item.get("dice") or (state.dice if state is not None and state.dice[0] else None)
    return board, state, dice


def run_batch(args, analyse) -> int:
    """Analyse every line of ``args.batch`` into ``args.out`` (JSON Lines, written atomically).

    A line that cannot be analysed gets an ``error`` field instead; the exit code is 1
    when any line failed.
    """
    from pathlib import Path

    from tqdm import tqdm

    from models.players import load_analyst

    if not args.out:
        raise BoardError("--batch needs --out FILE")
    net = load_analyst(args.model)
    lines = Path(args.batch).read_text().splitlines()
    failures = 0
    out = Path(args.out)
    tmp = out.with_name(out.name + ".tmp")
    with open(tmp, "w") as f:
        for number, line in enumerate(tqdm(lines, unit="position", disable=not sys.stderr.isatty()), 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                record = {"id": item.get("id"), **analyse(net, *_batch_position(item))}
            except (ValueError, TypeError, AttributeError) as exc:
                failures += 1
                record = {"id": item.get("id") if isinstance(item, dict) else None, "line": number, "error": str(exc)}
            f.write(json.dumps(record) + "\n")
    os.replace(tmp, out)
    if failures:
        print(f"gammon {args.command}: {failures} of {len(lines)} line(s) failed; see their 'error' fields in {out}", file=sys.stderr)
    return 1 if failures else 0


def cmd_hint(args) -> int:
    from models.players import load_analyst

    if args.batch:
        def analyse(net, board, state, dice):
            if dice is None:
                raise BoardError("no dice: give 'dice' or a gnubgid whose Match ID has dice")
            best = hint_rows(net, board, state, dice, args.ply)[0]
            return {"move": best["move"], "result_id": best["result_id"], "equity": best["equity"]}

        return run_batch(args, analyse)
    board, state = parse_position(_need_position(args))
    dice = _dice_for(args, state)
    rows = hint_rows(load_analyst(args.model), board, state, dice, args.ply)
    if args.json:
        print(json.dumps({"position": args.position, "dice": list(dice), "moves": rows}))
        return 0
    print(render(board))
    print(f"\n{dice[0]}-{dice[1]} to play; {len(rows)} legal play(s), cubeful money equity after the move:")
    for i, row in enumerate(rows[: args.top], 1):
        move = row["move"] or "(no move)"
        print(f"{i:>3}. {row['plies']}-ply  {move:<26} Eq.: {row['equity']:+.3f} ({row['diff']:+.3f})")
        print("      " + "  ".join(f"{p:.3f}" for p in row["probs"]))
    return 0


def cmd_cube(args) -> int:
    from models.players import load_analyst

    if args.batch:
        def analyse(net, board, state, dice):
            result = cube_result(net, board, state, args.ply)
            return {key: result[key] for key in ("action", "response", "no_double", "double_take", "double_pass")}

        return run_batch(args, analyse)
    board, state = parse_position(_need_position(args))
    result = {"position": args.position, **cube_result(load_analyst(args.model), board, state, args.ply)}
    if args.json:
        print(json.dumps(result))
        return 0
    print(render(board))
    print(PROB_HEADER)
    print(_prob_row(f"{args.ply}-ply", result["probs"], result["cubeless"]))
    print("\nCubeful equities:")
    options = [("No double", result["no_double"]), ("Double, take", result["double_take"]), ("Double, pass", result["double_pass"])]
    best = max(result["no_double"], min(result["double_take"], result["double_pass"]))
    for i, (name, equity) in enumerate(options, 1):
        print(f"{i}. {name:<14} {equity:+.3f}  ({equity - best:+.3f})")
    print(f"Proper cube action: {result['verdict']}   (take point {result['take_point']:.1%})")
    return 0


def cmd_rollout(args) -> int:
    from tqdm import tqdm

    from models.players import load_analyst

    from .rollout import cubeful_rollout, rollout

    board, state = parse_position(_need_position(args))
    net = load_analyst(args.model)
    with tqdm(total=args.games, unit="game", disable=args.json or not sys.stderr.isatty()) as bar:
        if args.cubeful:
            cube = _money_cube(state)
            owner = {"centered": -1, "me": 0, "opponent": 1}[cube.owner]
            result = cubeful_rollout(net, board, cube.value, owner, games=args.games, seed=args.seed, progress=bar.update)
        else:
            result = rollout(net, board, games=args.games, seed=args.seed, truncate=args.truncate, progress=bar.update)
    if args.json:
        print(json.dumps({"position": args.position, **result.as_dict()}))
        return 0
    print(render(board))
    low, high = result.ci95
    if args.cubeful:
        print(f"\n{result.games} cubeful money games, seed {args.seed}: equity {result.equity:+.3f} ± {result.std_error:.3f} "
              f"(95% CI {low:+.3f} .. {high:+.3f}); {result.doubles} doubles, {result.passes} passed")
        return 0
    print(PROB_HEADER)
    print(_prob_row("rollout", result.probs, result.equity))
    kind = f"truncated at {args.truncate} turns ({result.truncated} games scored by the net)" if args.truncate else "played to the end"
    print(f"\n{result.games} games, {kind}, seed {args.seed}: cubeless equity {result.equity:+.3f} "
          f"± {result.std_error:.3f} (95% CI {low:+.3f} .. {high:+.3f}); {result.games_per_s:.0f} games/s")
    return 0


def cmd_serve(args) -> int:
    import logging

    from models.players import load_analyst

    from .external import Bot, ExternalPlayerServer

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(asctime)s %(message)s")
    bot = Bot(load_analyst(args.model), plies=args.ply)
    with ExternalPlayerServer((args.host, args.port), bot) as server:
        host, port = server.server_address[:2]
        print(f"gammon external player on {host}:{port}; in gnubg: set player 1 external {host}:{port}", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0


def cmd_match(args) -> int:
    from tqdm import tqdm

    from models.players import load_player

    from .cubeful import EvaluatorPlayer, Rules, duplicate_series

    rules = Rules(match_length=args.length, jacoby=args.jacoby, beavers=args.beavers,
                  automatic_doubles=args.automatic_doubles, variant=args.variant)
    evaluators = [load_player(args.a, seed=args.seed + 1, variant=args.variant),
                  load_player(args.b, seed=args.seed + 2, variant=args.variant)]
    a = EvaluatorPlayer(evaluators[0], cube_plies=args.cube_ply, move_plies=args.ply)
    b = EvaluatorPlayer(evaluators[1], cube_plies=args.cube_ply, move_plies=args.ply if args.b_ply is None else args.b_ply)
    n = args.matches if args.length else args.games
    with tqdm(total=n, unit="match" if args.length else "game", disable=args.json or not sys.stderr.isatty()) as bar:
        if args.length or not args.cubeless:
            stats = duplicate_series(a, b, n, seed=args.seed, rules=rules, progress=bar.update)
        else:
            from .game import duplicate_duel

            stats = duplicate_duel(a.policy, b.policy, n, seed=args.seed, variant=args.variant).as_dict()
            bar.update(n)
    report = {"a": args.a, "b": args.b, "seed": args.seed, "cubeless": bool(args.cubeless and not args.length), **stats}
    if args.json:
        print(json.dumps(report))
        return 0
    low, high = report["ci95"]
    if args.length:
        print(f"{args.a} vs {args.b}: {n} matches to {args.length} (duplicate dice, seed {args.seed}), {report['games']} games")
        print(f"  {args.a} wins {report['match_win_rate']:.1%} of matches (95% CI {low:.1%} .. {high:.1%}); "
              f"{report['doubles']} doubles, {report['passes']} passed")
    else:
        kind = "cubeless" if report["cubeless"] else "cubeful"
        print(f"{args.a} vs {args.b}: {n} {kind} money games (duplicate dice, seed {args.seed})")
        print(f"  points per game for {args.a}: {report['ppg']:+.3f} (95% CI {low:+.3f} .. {high:+.3f})")
    return 0


def cmd_play(args) -> int:
    from models.players import load_analyst

    from .terminal import TerminalGame

    def read() -> str:
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line

    game = TerminalGame(load_analyst(args.model), length=args.length, seed=args.seed, read=read, write=print,
                        record_path=args.record)
    return game.run()


def _need_position(args) -> str:
    if not args.position:
        raise BoardError("give a position (Position ID, PositionID:MatchID or XGID), or --batch IN.jsonl --out OUT.jsonl")
    return args.position


def cmd_moves(args) -> int:
    from .formats import position_id
    from .notation import legal_plays

    board, state = parse_position(args.position)
    dice = _dice_for(args, state)
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


def _model_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default="default",
                        help="a weights file or player name (default: the shipped net, models/default.pt)")


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
    show.add_argument("--svg", help="write the position as an SVG picture to this file instead")
    show.set_defaults(run=cmd_show)

    moves = sub.add_parser("moves", help="list the legal plays of a position and roll")
    moves.add_argument("position", help="Position ID, PositionID:MatchID or XGID")
    moves.add_argument("--dice", type=_dice, help="the roll, e.g. 64 (default: the dice in the Match ID/XGID)")
    moves.add_argument("--json", action="store_true")
    moves.set_defaults(run=cmd_moves)

    train = sub.add_parser("train", help="train a network by self-play (gammon train --help for options)", add_help=False)
    train.add_argument("rest", nargs=argparse.REMAINDER, help="options for the trainer")
    train.set_defaults(run=cmd_train)

    for name, run, text in (
        ("eval", cmd_eval, "evaluate a position (cubeless probabilities, cubeless and cubeful equity) at 0..N ply"),
        ("hint", cmd_hint, "rank the legal moves of a roll by equity"),
        ("cube", cmd_cube, "the cube action for the player on roll (money, or match play with the MET)"),
    ):
        command = sub.add_parser(name, help=text)
        command.add_argument("position", nargs="?", help="Position ID, PositionID:MatchID or XGID (player on roll)")
        command.add_argument("--ply", type=int, default=0 if name == "eval" else 2 if name == "cube" else 1,
                             choices=range(0, 4), help="search depth (default %(default)s)")
        _model_option(command)
        command.add_argument("--json", action="store_true")
        if name == "hint":
            command.add_argument("--dice", type=_dice, help="the roll, e.g. 31 (default: the dice in the Match ID/XGID)")
            command.add_argument("--top", type=_at_least(1), default=10, help="moves to show (default 10)")
        if name in ("hint", "cube"):
            command.add_argument("--batch", help="JSON Lines of positions (id, gnubgid or position_id [+ dice])")
            command.add_argument("--out", help="where --batch writes its JSON Lines results")
        command.set_defaults(run=run)

    roll = sub.add_parser("rollout", help="roll a position out (cubeless, or --cubeful), the net playing both sides")
    roll.add_argument("position", nargs="?", help="Position ID, PositionID:MatchID or XGID (player on roll)")
    roll.add_argument("--games", type=_at_least(36, 36), default=1296, help="games (a multiple of 36; default 1296)")
    roll.add_argument("--truncate", type=_at_least(1), default=None, help="stop after N turns and score with the net")
    roll.add_argument("--cubeful", action="store_true", help="money rollout with the cube (the position's cube state)")
    roll.add_argument("--seed", type=int, default=0)
    _model_option(roll)
    roll.add_argument("--json", action="store_true")
    roll.set_defaults(run=cmd_rollout)

    serve = sub.add_parser("serve", help="play for GNU Backgammon as its external player (gnubg connects to us)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default loopback)")
    serve.add_argument("--port", type=int, default=8765, help="TCP port (default 8765; 0 picks a free one)")
    _model_option(serve)
    serve.add_argument("--ply", type=int, default=0, choices=range(0, 3), help="move search depth (default 0)")
    serve.add_argument("--verbose", action="store_true", help="log connections and bad board strings")
    serve.set_defaults(run=cmd_serve)

    match = sub.add_parser("match", help="bot against bot: money games (cubeful or cubeless) or matches, duplicate dice")
    match.add_argument("a", help="player A: default, a weights file, pubeval, heuristic, random, gnubg")
    match.add_argument("b", help="player B")
    match.add_argument("--games", type=int, default=1000, help="money games, an even number (default 1000)")
    match.add_argument("--cubeless", action="store_true", help="money games without the cube")
    match.add_argument("--length", type=int, default=0, help="play matches to this many points instead of money games")
    match.add_argument("--matches", type=int, default=100, help="matches with --length, an even number (default 100)")
    match.add_argument("--jacoby", action="store_true", help="money: gammons count single until the cube is turned")
    match.add_argument("--beavers", action="store_true", help="money: a doubled player may beaver")
    match.add_argument("--automatic-doubles", type=_at_least(0), default=0, help="money: automatic doubles per game (default 0)")
    match.add_argument("--variant", default="standard", choices=sorted(VARIANTS))
    match.add_argument("--ply", type=int, default=0, choices=range(0, 3), help="move search depth of A (and B; default 0)")
    match.add_argument("--b-ply", type=int, default=None, choices=range(0, 3), help="move search depth of B if different")
    match.add_argument("--cube-ply", type=int, default=0, choices=range(0, 3), help="cube decision depth (default 0)")
    match.add_argument("--seed", type=int, default=0)
    match.add_argument("--json", action="store_true")
    match.set_defaults(run=cmd_match)

    play = sub.add_parser("play", help="play against the bot in the terminal (type moves like 24/18 13/11)")
    _model_option(play)
    play.add_argument("--length", type=int, default=0, help="play a match to this many points (default: money games)")
    play.add_argument("--seed", type=int, default=None, help="dice seed, for a reproducible session")
    play.add_argument("--record", help="save the game record to this file at the end")
    play.set_defaults(run=cmd_play)

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
    except BrokenPipeError:  # the reader went away (`gammon hint ... | head`): end quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
        return 0
    except OSError as exc:  # a path that cannot be read or written: the user's to fix, one line
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"gammon {args.command}: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
