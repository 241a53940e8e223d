"""Playing sub-commands: demo, play (you against the bot), match (bot against bot), serve (for gnubg).

Models load when a command runs (``models`` imports torch), so ``gammon --help`` stays instant.
"""

from __future__ import annotations

import json
import logging
import sys
import time

from tqdm import tqdm

from gammon.app.arguments import check_record_variant, counted, draw, is_loopback, rules_options
from gammon.app.external import Bot, ExternalPlayerServer
from gammon.app.terminal import TerminalGame, stdin_reader
from gammon.engine.errors import GammonError
from gammon.engine.play.duel import duel
from gammon.engine.play.game import Rules, play_games
from gammon.engine.play.players import Cubeless, EvaluatorPlayer
from gammon.engine.records.match_files import check_match_path, save_match
from gammon.engine.records.matchlog import Recorder
from gammon.engine.review.match_analysis import DOUBTFUL
from gammon.engine.rules.board import VARIANTS as BOARD_VARIANTS
from gammon.engine.rules.variants import variant_named
from gammon.engine.search.evaluator import evaluator_policy
from gammon.options import MAX_PLY, at_least, between, model_option, positive_float, variant_option

SERIES_CHUNK = 500  # games or matches with the cube are played this many slots at a time


def _policy(name: str, seed: int, variant: str):
    from gammon.models.players import load_player

    return evaluator_policy(load_player(name, seed, variant))


def demo_players(variant: str, x: str | None, o: str | None) -> tuple[str, str]:
    """The demo's two players: those given, else the variant's shipped net (its heuristic while no net is
    shipped) against pubeval on backgammon's board, or against the variant's heuristic elsewhere (the
    same-direction games, Acey-Deucey's checkers off the board)."""
    from gammon.models.players import shipped_model

    default_x = "default" if shipped_model(variant) else "heuristic"
    default_o = "pubeval" if variant in BOARD_VARIANTS else "heuristic"
    return x or default_x, o or default_o


def cmd_demo(args) -> int:
    x, o = demo_players(args.variant, args.x, args.o)
    players = (_policy(x, args.seed + 1, args.variant), _policy(o, args.seed + 2, args.variant))
    result = play_games(players, 1, seed=args.seed, variant=args.variant, record=True)
    record = result.records[0]
    names = (f"X ({x})", f"O ({o})")
    if args.x is None and x == "heuristic":
        print(f"no net is shipped for {args.variant} yet: X is its heuristic (--x FILE.pt plays a trained net)")
    print(f"{args.variant} game, {names[0]} vs {names[1]}; opening roll X {record.opening[0]}, O {record.opening[1]}\n")
    flip = variant_named(args.variant).geometry.flip
    for number, (side, dice, before, move) in enumerate(record.turns, 1):
        if args.quiet:
            continue
        seen_from_x = before if side == 0 else flip(before)
        print(draw(seen_from_x, args.variant, names=("X", "O")))
        print(f"\nturn {number}: {names[side]} rolls {dice[0]}-{dice[1]} and plays {move or '(no move)'}\n")
        if args.delay:
            time.sleep(args.delay)
    points = int(result.points[0])
    kind = {1: "a single game", 2: "a gammon", 3: "a backgammon"}[abs(points)]
    print(f"{names[0 if points > 0 else 1]} wins {kind} ({counted(abs(points), 'point')}) "
          f"after {len(record.turns)} turns")
    return 0


def cmd_play(args) -> int:
    from gammon.models.players import load_analyst

    if args.warn is not None and not args.tutor:
        raise GammonError("--warn sets the tutor's threshold: add --tutor")
    read = stdin_reader()
    bot = load_analyst(args.model, variant=args.variant, estimates=False)
    warn = (args.warn or DOUBTFUL) if args.tutor else None  # --warn is above 0, never falsy
    game = TerminalGame(bot, length=args.length, seed=args.seed, read=read, write=print, record_path=args.record,
                        variant=args.variant, warn=warn)
    return game.run()


def cmd_match(args) -> int:
    from gammon.models.players import load_analyst, load_player

    rules = Rules(match_length=args.length, jacoby=args.jacoby, beavers=args.beavers,
                  automatic_doubles=args.automatic_doubles, variant=args.variant)
    evaluators = [load_player(args.a, seed=args.seed + 1, variant=args.variant),
                  load_player(args.b, seed=args.seed + 2, variant=args.variant)]
    a = EvaluatorPlayer(evaluators[0], cube_plies=args.cube_ply, move_plies=args.ply)
    b = EvaluatorPlayer(evaluators[1], cube_plies=args.cube_ply,
                        move_plies=args.ply if args.b_ply is None else args.b_ply)
    n = args.matches if args.length else args.games
    judge = None
    if args.luck:
        if args.length or not args.cubeless:
            raise GammonError("--luck adjusts cubeless money games: add --cubeless (and drop --length)")
        judge = load_analyst(args.luck, variant=args.variant)
    recorder = None
    if args.record:
        if args.cubeless and not args.length:
            raise GammonError("--record writes cubeful games or matches (.mat, .sgf); drop --cubeless")
        check_match_path(args.record)
        check_record_variant(args.record, args.variant)
        recorder = Recorder((args.a, args.b), args.length, jacoby=args.jacoby, beavers=args.beavers,
                            variant=args.variant)
    with tqdm(total=n, unit="match" if args.length else "game", disable=args.json or not sys.stderr.isatty()) as bar:
        if args.length or not args.cubeless:
            stats = duel(a, b, n, seed=args.seed, rules=rules, chunk=SERIES_CHUNK, progress=bar.update, watch=recorder)
        else:
            with tqdm(unit="roll", desc="luck", disable=judge is None or args.json or not sys.stderr.isatty()) as rolls:
                stats = duel(Cubeless(a.policy), Cubeless(b.policy), n, seed=args.seed,
                             rules=Rules(variant=args.variant), progress=bar.update, luck=judge,
                             luck_progress=rolls.update)
    report = {"a": args.a, "b": args.b, "seed": args.seed, "cubeless": bool(args.cubeless and not args.length),
              **stats.as_dict()}
    if recorder is not None:
        save_match(recorder.log, args.record)
        print(f"the first {'match' if args.length else 'game'} is saved in {args.record}", file=sys.stderr)
    if args.json:
        print(json.dumps(report))
        return 0
    low, high = report["ci95"]
    if args.length:
        print(f"{args.a} vs {args.b}: {n} matches to {args.length} (duplicate dice, seed {args.seed}), "
              f"{report['games']} games")
        print(f"  {args.a} wins {report['match_win_rate']:.1%} of matches (95% CI {low:.1%} .. {high:.1%}); "
              f"{report['doubles']} doubles, {report['passes']} passed")
    else:
        kind = "cubeless" if report["cubeless"] else "cubeful"
        print(f"{args.a} vs {args.b}: {n} {kind} money games (duplicate dice, seed {args.seed})")
        print(f"  points per game for {args.a}: {report['ppg']:+.3f} (95% CI {low:+.3f} .. {high:+.3f})")
        if judge is not None:
            low, high = report["luck_adjusted_ci95"]
            print(f"  luck-adjusted (judged by {args.luck}): {report['luck_adjusted_ppg']:+.3f} "
                  f"(95% CI {low:+.3f} .. {high:+.3f})")
    return 0


def _listening(address: tuple[str, int], bot: Bot, **limits) -> ExternalPlayerServer:
    """The server bound to ``address``; an address that cannot be used is the user's fault, in one line."""
    try:
        return ExternalPlayerServer(address, bot, **limits)
    except (OSError, OverflowError) as exc:  # a bad host name, a port in use or out of range
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise GammonError(f"cannot listen on {address[0]}:{address[1]}: {reason}") from None


def cmd_serve(args) -> int:
    from gammon.models.players import load_analyst

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(asctime)s %(message)s")
    bot = Bot(load_analyst(args.model, estimates=False), plies=args.ply, met=args.met)
    limits = {"idle_timeout": args.idle_timeout, "max_connections": args.max_connections}
    with _listening((args.host, args.port), bot, **limits) as server:
        host, port = server.server_address[:2]
        if not is_loopback(host):
            # gnubg's external-player protocol has no authentication: anyone who can reach the port gets the bot.
            print(f"gammon serve: WARNING: listening on {host}, not loopback; the protocol has no authentication, "
                  f"anyone who can reach port {port} can use this server", file=sys.stderr, flush=True)
        print(f"gammon external player on {host}:{port}; in gnubg: set player 1 external {host}:{port}", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0


def register(sub) -> None:
    """Add the playing sub-commands to the ``gammon`` parser's ``sub``."""
    demo = sub.add_parser("demo", help="watch a bot-vs-bot game drawn in the terminal")
    demo.add_argument("--x", help="player X: default (the variant's shipped net), a weights file, pubeval, "
                      "heuristic, random, gnubg (default: default, or heuristic while no net is shipped)")
    demo.add_argument("--o", help="player O, as for --x (default: pubeval; in Fevga, Moultezim and Acey-Deucey "
                      "heuristic)")
    variant_option(demo, "the variant played")
    demo.add_argument("--seed", type=int, default=1, help="dice seed (default 1)")
    demo.add_argument("--delay", type=float, default=0.0, help="seconds to pause after each move")
    demo.add_argument("--quiet", action="store_true", help="print only the result")
    demo.set_defaults(run=cmd_demo)

    serve = sub.add_parser("serve", help="play for GNU Backgammon as its external player (gnubg connects to us)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default loopback)")
    serve.add_argument("--port", type=between(0, 65535), default=8765,
                       help="TCP port (default 8765; 0 picks a free one)")
    model_option(serve)
    serve.add_argument("--ply", type=between(0, MAX_PLY), default=0,
                       help=f"move search depth 0..{MAX_PLY} (default 0); the cube at this depth, 1-ply at least")
    serve.add_argument("--max-connections", type=between(1, 1024), default=16,
                       help="connections served at once; more are closed at once (default 16)")
    serve.add_argument("--idle-timeout", type=between(1, 10**6), default=3600,
                       help="seconds a silent connection is kept (default 3600: gnubg waits while its side thinks)")
    serve.add_argument("--verbose", action="store_true", help="log connections and bad board strings")
    rules_options(serve, money=False)  # gnubg's board line says the money rules
    serve.set_defaults(run=cmd_serve)

    match = sub.add_parser("match",
                           help="bot against bot: money games (cubeful or cubeless) or matches, duplicate dice")
    match.add_argument("a", help="player A: default, a weights file, pubeval, heuristic, random, gnubg")
    match.add_argument("b", help="player B")
    match.add_argument("--games", type=at_least(4, 2), default=1000,
                       help="money games, played in pairs with the same dice: even, 4 or more (default 1000)")
    match.add_argument("--cubeless", action="store_true", help="money games without the cube")
    match.add_argument("--length", type=int, default=0, help="play matches to this many points instead of money games")
    match.add_argument("--matches", type=at_least(4, 2), default=100,
                       help="matches with --length, played in pairs with the same dice: even, 4 or more (default 100)")
    match.add_argument("--jacoby", action="store_true", help="money: gammons count single until the cube is turned")
    match.add_argument("--beavers", action="store_true", help="money: a doubled player may beaver")
    match.add_argument("--automatic-doubles", type=at_least(0), default=0,
                       help="money: automatic doubles per game (default 0)")
    variant_option(match, "the variant played")
    match.add_argument("--ply", type=int, default=0, choices=range(0, 3),
                       help="move search depth of A (and B; default 0)")
    match.add_argument("--b-ply", type=int, default=None, choices=range(0, 3),
                       help="move search depth of B if different")
    match.add_argument("--cube-ply", type=int, default=0, choices=range(0, 3), help="cube decision depth (default 0)")
    match.add_argument("--seed", type=int, default=0, help="dice seed: the same seed, the same games (default 0)")
    match.add_argument("--json", action="store_true", help="print the results as one JSON object")
    match.add_argument("--luck", metavar="PLAYER",
                       help="cubeless money games: judge every roll's luck with this net (default, a weights file) "
                            "and report the luck-adjusted points per game too, an unbiased estimate with a much "
                            "narrower interval")
    match.add_argument("--record", help="save the first match (or money game) to this .mat or .sgf file")
    match.set_defaults(run=cmd_match)

    play = sub.add_parser("play", help="play against the bot in the terminal (type moves like 24/18 13/11)")
    model_option(play)
    play.add_argument("--length", type=int, default=0, help="play a match to this many points (default: money games)")
    play.add_argument("--seed", type=int, default=None, help="dice seed, for a reproducible session")
    variant_option(play, "the variant played")
    play.add_argument("--record", help="save the session to this file at the end: a .mat or .sgf match file "
                                       "(GNU Backgammon opens it), or any other name for the text transcript")
    play.add_argument("--tutor", action="store_true",
                      help="before a checker play or cube action that loses more than --warn is made, name the "
                           "better one and ask whether to keep it")
    play.add_argument("--warn", type=positive_float, metavar="LOSS",
                      help=f"the tutor's threshold: cubeful equity lost per unit of the cube, EMG in a match "
                           f"(default {DOUBTFUL}, gnubg's 'doubtful')")
    play.set_defaults(run=cmd_play)
