"""Analysis sub-commands: show, moves, eval, hint, cube, rollout (and their --batch files).

Models load when a command runs (``models`` imports torch), so ``gammon --help`` stays instant.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from dataclasses import replace

from tqdm import tqdm

from gammon.app.arguments import (
    counted,
    dice_for,
    draw,
    is_batch,
    need_position,
    parse_dice,
    position_in_variant,
    rules_options,
    with_rules,
)
from gammon.app.batch import run_batch
from gammon.app.rollouts import batch_rollout, kept_on_stop, refuse_batch_options, single_options
from gammon.engine.cube.money import cube_efficiency, cubeful_equity
from gammon.engine.cube.state import Cube
from gammon.engine.errors import GammonError
from gammon.engine.play.rollout import cube_rollout, cubeful_rollout, rollout
from gammon.engine.play.shards import ChunkStore
from gammon.engine.records.formats import describe_state, position_id
from gammon.engine.records.svg import write_board_svg
from gammon.engine.review.advice import LEVELS, cube_result, hint_rows, rollout_rows
from gammon.engine.rules.board import BoardError
from gammon.engine.rules.notation import legal_plays
from gammon.engine.rules.outcomes import cubeless_equity
from gammon.engine.rules.variants import Variant, variant_named
from gammon.engine.search.analysis import DEEP_FILTERS, MOVE_FILTERS, position_probs
from gammon.options import at_least, model_option, ply_option, positive_float, variant_option, worker_options


def cmd_show(args) -> int:
    board, state = position_in_variant(args.position, args.variant)
    if args.svg:
        variant = variant_named(args.variant)
        write_board_svg(args.svg, board, state, variant.checkers, title=args.position, geometry=variant.geometry)
        print(f"wrote {args.svg}")
        return 0
    print(draw(board, args.variant))
    print(describe_state(state))
    return 0


# -- the JSON of each operation: ``--json`` prints it, ``gammon web``'s API returns it ------------


def moves_report(board, dice, variant: str | Variant = "standard") -> dict:
    """Every legal play of ``dice`` in ``variant``, with the Position ID of the next roll: the opponent's,
    or the mover's own when he rolls again (a wild roll's play)."""
    variant = variant_named(variant)
    rows = [{"move": p.notation,
             "result_id": position_id(variant.next_on_roll(p.board, p.rolls_again), variant)}
            for p in legal_plays(board, dice, variant)]
    return {"dice": list(dice), "moves": rows}


def eval_report(net, position: str, board, state, plies: int) -> dict:
    """Cubeless probabilities, cubeless and cubeful equity (money, per unit of the cube) at 0..``plies`` ply."""
    cube = Cube.from_state(state).for_money()
    x = cube_efficiency(board, geometry=net.variant.geometry)[0]
    rows = []
    for depth in range(plies + 1):
        probs = position_probs(net, board[None], depth)[0]
        cubeful = float(cubeful_equity(probs, cube, x)) / cube.value
        rows.append({"plies": depth, "probs": probs.tolist(), "equity": float(cubeless_equity(probs)),
                     "cubeful": cubeful})
    return {"position": position, "situation": describe_state(state), "evaluations": rows}


def hint_report(net, position: str, board, state, dice, plies: int, filters=None) -> dict:
    """Every legal play of ``dice``, best first (see engine.review.advice.hint_rows)."""
    return {"position": position, "situation": describe_state(with_roll(state, dice)), "dice": list(dice),
            "moves": hint_rows(net, board, state, dice, plies, filters)}


def with_roll(state, dice):
    """``state`` with the roll asked about (``--dice``), not the one its ID holds: what the situation line says."""
    return replace(state, dice=tuple(dice)) if state is not None and not state.doubled else state


def rollout_report(net, position: str, board, state, dice, plies: int, top: int, games: int, seed: int = 0,
                   truncate: int | None = None, vr: bool = False, progress=None, filters=None,
                   truncate_ply: int = 0) -> dict:
    """The best ``top`` plays of ``dice`` by the search at ``plies``, rolled out with the same dice, and the
    rollout's settings (see engine.review.advice.rollout_rows); ``progress(n)`` is told of each n games done."""
    rows = rollout_rows(net, board, state, dice, plies, top, games, seed, truncate, vr, progress, filters,
                        truncate_ply)
    return {"position": position, "situation": describe_state(with_roll(state, dice)), "dice": list(dice),
            "games": games,
            "seed": seed, "truncate": truncate, "truncate_ply": truncate_ply, "variance_reduced": vr,
            "rollout": rows}


# What hint --rollout (and the web board's Roll out) plays when not told: the best 4 plays, 1,296 plain games each.
ROLLOUT_DEFAULTS = {"top": 4, "games": 1296, "seed": 0, "truncate": None, "truncate_ply": 0, "vr": False}


def rollout_games_total(board, dice, variant: str, settings: dict) -> int:
    """Every game of every play a ``hint --rollout`` plays (a roll may have fewer plays than ``top``): the
    progress's end."""
    return settings["games"] * min(settings["top"], len(legal_plays(board, dice, variant)))


def level_settings(name: str) -> dict:
    """The plays, games and truncation a named rollout level sets (engine.review.advice.LEVELS), as
    :func:`rollout_report` takes them; every level is variance-reduced."""
    level = LEVELS[name]
    return {"top": level.candidates, "games": level.games, "truncate": level.truncate, "vr": True}


def take_level(args, sets: str, also_given: list[str]) -> None:
    """``hint`` or ``cube --level``: the level's settings in ``args``; rollout options given beside it (and
    ``also_given``) are refused, for the level ``sets`` them."""
    given = rollout_options_given(args) + also_given + (["--rollout"] if args.rollout else [])
    if given:
        raise GammonError(f"--level {args.level} sets {sets} of the rollout; drop {', '.join(given)}")
    vars(args).update(level_settings(args.level))


def search_option(parser) -> None:
    parser.add_argument("--search", type=parse_search, default=None, metavar="PLY:TURNS",
                        help="play the first TURNS turns of every game by the PLY-ply search (1 or 2), then 0-ply, "
                             "plain or --vr (gnubg's rollouts at a deeper setting)")


def parse_search(text: str) -> tuple[int, int]:
    """``1:4`` -> (1, 4): the first 4 turns of each rollout game at 1-ply."""
    try:
        plies, turns = (int(part) for part in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a search is PLY:TURNS, e.g. 1:4; got {text!r}") from None
    if not (1 <= plies <= 2 and turns >= 1):
        raise argparse.ArgumentTypeError(f"a search's PLY is 1 or 2 and TURNS at least 1; got {text!r}")
    return plies, turns


def parse_filters(text: str) -> dict[int, tuple[int, float]]:
    """``0:8:0.16,2:2:0.04`` -> {0: (8, 0.16), 2: (2, 0.04)} (engine.search.analysis.rank_moves' filters)."""
    filters = {}
    for item in text.split(","):
        try:
            ply, keep, margin = item.split(":")
            ply, keep, margin = int(ply), int(keep), float(margin)
        except ValueError:
            raise argparse.ArgumentTypeError(f"a filter is PLY:KEEP:MARGIN, e.g. 0:8:0.16; got {item!r}") from None
        if not (0 <= ply <= 2 and keep >= 1 and 0 <= margin < float("inf")):
            raise argparse.ArgumentTypeError(f"a filter's ply is 0..2, KEEP at least 1, MARGIN 0 or more; "
                                             f"got {item!r}")
        filters[ply] = (keep, margin)
    return filters


def filters_text(filters: dict[int, tuple[int, float]]) -> str:
    """{0: (8, 0.16), 2: (2, 0.04)} -> ``0:8:0.16,2:2:0.04``: what :func:`parse_filters` reads."""
    return ",".join(f"{ply}:{keep}:{margin:g}" for ply, (keep, margin) in sorted(filters.items()))


def cube_report(net, position: str, board, state, plies: int) -> dict:
    """The cube action for the player on roll (see engine.review.advice.cube_result)."""
    return {"position": position, "situation": describe_state(state), **cube_result(net, board, state, plies)}


# -- the commands ------------------------------------------------------------------------------


def cmd_moves(args) -> int:
    board, state = position_in_variant(args.position, args.variant)
    report = moves_report(board, dice_for(args.dice, state), args.variant)
    if args.json:
        print(json.dumps(report))
        return 0
    dice = report["dice"]
    print(f"{len(report['moves'])} legal play(s) with {dice[0]}-{dice[1]}:")
    for i, row in enumerate(report["moves"], 1):
        print(f"{i:>4}. {row['move'] or '(no move: the turn passes)':<28} {row['result_id']}")
    return 0


PROB_HEADER = "         Win     W(g)    W(bg)   L(g)    L(bg)   Equity"


def prob_row(label: str, probs, equity: float) -> str:
    return f"{label:<8}" + " ".join(f"{p:7.3f}" for p in probs) + f"  {equity:+7.3f}"


def cmd_eval(args) -> int:
    from gammon.models.players import load_analyst

    board, state = position_in_variant(args.position, args.variant)
    state = with_rules(state, args.jacoby, args.beavers)
    report = eval_report(load_analyst(args.model, variant=args.variant), args.position, board, state, args.ply)
    if args.json:
        print(json.dumps(report))
        return 0
    print(draw(board, args.variant))
    print(describe_state(state))
    print(PROB_HEADER + "   Cubeful")
    for row in report["evaluations"]:
        print(prob_row(f"{row['plies']}-ply", row["probs"], row["equity"]) + f"  {row['cubeful']:+7.3f}")
    return 0


def batch_hint(net, plies: int):
    """The answer to one ``hint --batch`` line: the best move, its Position ID and equity."""

    def analyse(board, state, dice) -> dict:
        if dice is None:
            raise BoardError("no dice: give 'dice' or a gnubgid whose Match ID has dice")
        best = hint_rows(net, board, state, dice, plies)[0]
        return {"move": best["move"], "result_id": best["result_id"], "equity": best["equity"]}

    return analyse


CUBE_FIELDS = ("action", "response", "no_double", "double_take", "double_pass")


def batch_cube(net, plies: int):
    """The answer to one ``cube --batch`` line: the action, the answer and the three equities
    (null where the player cannot double), and a ``reason`` when doubling is closed or useless."""

    def analyse(board, state, dice) -> dict:
        result = cube_result(net, board, state, plies)
        return {key: result[key] for key in (*CUBE_FIELDS, "reason") if key in result}

    return analyse


def _run_batch(args, answer) -> int:
    from gammon.models.players import load_analyst

    def analyser():
        analyse = answer(load_analyst(args.model, variant=args.variant), args.ply)
        return lambda board, state, dice: analyse(board, with_rules(state, args.jacoby, args.beavers), dice)

    return run_batch(args.command, args.batch, args.out, args.variant, analyser)


def cmd_hint(args) -> int:
    from gammon.models.players import load_analyst

    given = rollout_options_given(args)
    if given and not (args.rollout or args.level):
        raise GammonError(f"{', '.join(given)}: rollout options; add --rollout, "
                          "or drop them (a hint searches)")
    if args.batch and (args.rollout or args.level):
        raise GammonError("--rollout and --level roll out one position's plays; a batch line is searched "
                          "(gammon rollout --batch rolls positions out)")
    if is_batch(args):
        return _run_batch(args, batch_hint)
    board, state = position_in_variant(need_position(args), args.variant)
    state = with_rules(state, args.jacoby, args.beavers)
    net = load_analyst(args.model, variant=args.variant)
    if args.rollout or args.level:
        return hint_rollout(args, net, board, state)

    report = hint_report(net, args.position, board, state, dice_for(args.dice, state), args.ply, args.filters)
    if args.json:
        print(json.dumps(report))
        return 0
    dice, rows = report["dice"], report["moves"]
    print(draw(board, args.variant))
    print(report["situation"])
    print(f"\n{dice[0]}-{dice[1]} to play; {len(rows)} legal play(s), cubeful equity after the move (EMG in a match):")
    print(f"{'#':>3}  {'depth':<6} {'move':<26} {'equity':>7} {'(to best)':>9}")
    print(f"{'':>12}{'Win':>5}  {'W(g)':>5}  {'W(bg)':>5}  {'L(g)':>5}  {'L(bg)':>5}")
    for i, row in enumerate(rows[: args.top or 10], 1):
        move = row["move"] or "(no move)"
        print(f"{i:>3}. {str(row['plies']) + '-ply':<6} {move:<26} {row['equity']:+7.3f} ({row['diff']:+.3f})")
        print(f"{'':>12}" + "  ".join(f"{p:.3f}" for p in row["probs"]))
    return 0


def refuse_truncate_ply(args) -> None:
    if args.truncate_ply and not args.truncate:
        raise GammonError("--truncate-ply scores the games --truncate stops; give --truncate")


def hint_rollout(args, net, board, state) -> int:
    """``hint --rollout`` or ``--level``: the best plays by the search at --ply, rolled out with the same dice."""
    refuse_truncate_ply(args)
    if args.until:
        raise GammonError("--until stops a rollout of one position (gammon rollout); the plays compared here "
                          "play --games each, game for game")
    if args.level:
        take_level(args, "the plays, games and truncation", ["--top"] if args.top else [])
    dice, top = dice_for(args.dice, state), args.top or ROLLOUT_DEFAULTS["top"]
    total = rollout_games_total(board, dice, args.variant, {"games": args.games, "top": top})
    with tqdm(total=total, unit="game", disable=args.json or not sys.stderr.isatty()) as bar:
        report = rollout_report(net, args.position, board, state, dice, args.ply, top, args.games, args.seed,
                                args.truncate, args.vr, bar.update, args.filters, args.truncate_ply)
    if args.json:
        print(json.dumps(report))
        return 0
    rows = report["rollout"]
    print(draw(board, args.variant))
    print(report["situation"])
    how = rollout_how(args)
    value = "match equity at the score (EMG)" if state is not None and state.match_length else "cubeful equity"
    print(f"\n{dice[0]}-{dice[1]}: the best {len(rows)} plays at {args.ply}-ply rolled out, {args.games} games each "
          f"({how}, seed {args.seed}); for the mover, the {value} of the rolled-out chances and its distance "
          "to the best, then the cubeless equity and its distance to the best game by game, with 95% intervals:")
    print(f"{'#':>3}  {'move':<26} {'value':>7} {'to best':>7}   {'cubeless':>8} {'± 95%':>7}   {'to best':>7} "
          f"{'± 95%':>7}")
    for i, row in enumerate(rows, 1):
        half, diff_half = (row["ci95"][1] - row["ci95"][0]) / 2, (row["diff_ci95"][1] - row["diff_ci95"][0]) / 2
        print(f"{i:>3}. {row['move'] or '(no move)':<26} {row['cubeful']:+7.3f} {row['cubeful_diff']:+7.3f}   "
              f"{row['equity']:+8.3f} {half:>7.3f}   {row['diff']:+7.3f} {diff_half:>7.3f}")
    return 0


def rollout_how(args, truncated: int | None = None) -> str:
    """How the games were played, in words: the truncation (and the games it stopped), the variance reduction,
    a search on the first turns."""
    plies = getattr(args, "truncate_ply", 0)
    judge = f"the net's {plies}-ply search" if plies else "the net"
    cut = (f" ({truncated} games scored by {judge})" if truncated is not None
           else f", scored by {judge}" if plies else "")
    search = getattr(args, "search", None)
    return ((f"truncated at {counted(args.truncate, 'turn')}{cut}" if args.truncate else "played to the end")
            + (", variance-reduced" if args.vr else "")
            + (f", the first {counted(search[1], 'turn')} at {search[0]}-ply" if search else ""))


def rollout_options_given(args) -> list[str]:
    """The rollout options set away from their defaults (see rollout_options)."""
    defaults = {**ROLLOUT_DEFAULTS, "until": None}
    return [f"--{name.replace('_', '-')}" for name in ("games", "truncate", "truncate_ply", "vr", "seed", "until")
            if getattr(args, name) != defaults[name]]


def cmd_cube(args) -> int:
    from gammon.models.players import load_analyst

    given = rollout_options_given(args) + [name for name, on in (("--cube-ply", args.cube_ply),
                                                                 ("--search", args.search)) if on]
    if given and not (args.rollout or args.level):
        raise GammonError(f"{', '.join(given)}: rollout options; add --rollout, or drop them")
    if args.batch and (args.rollout or args.level):
        raise GammonError("--rollout and --level roll out one position's cube actions; a batch line is searched")
    if is_batch(args):
        return _run_batch(args, batch_cube)
    board, state = position_in_variant(need_position(args), args.variant)
    state = with_rules(state, args.jacoby, args.beavers)
    if args.rollout or args.level:
        return cube_rollout_report(args, load_analyst(args.model, variant=args.variant), board, state)
    result = cube_report(load_analyst(args.model, variant=args.variant), args.position, board, state, args.ply)
    if args.json:
        print(json.dumps(result))
        return 0
    print(draw(board, args.variant))
    print(describe_state(state))
    print(PROB_HEADER)
    print(prob_row(f"{args.ply}-ply", result["probs"], result["cubeless"]))
    if result["double_take"] is None:  # no decision to make: say why, and what the position is worth as it is
        print(f"\nNo cube decision: {result['reason']}; cubeful equity {result['no_double']:+.3f}")
        return 0
    print("\nCubeful equities:")
    options = [("No double", result["no_double"]), ("Double, take", result["double_take"]),
               ("Double, pass", result["double_pass"])]
    best = max(result["no_double"], min(result["double_take"], result["double_pass"]))
    for i, (name, equity) in enumerate(options, 1):
        print(f"{i}. {name:<14} {equity:+.3f}  ({equity - best:+.3f})")
    print(f"Proper cube action: {result['verdict']}   (take point {result['take_point']:.1%})")
    if state is not None and state.doubled:  # the double is made: what matters now is O's answer
        print(f"X has doubled to {2 * state.cube}; O's proper answer: {result['response']}")
    if "reason" in result:
        print(f"({result['reason']})")
    return 0


def cube_rollout_json(net, position: str, board, state, level: str | None = None, games: int = 1296,
                      seed: int = 0, truncate: int | None = None, truncate_ply: int = 0, vr: bool = False,
                      cube_ply: int = 0, search: tuple[int, int] | None = None, progress=None) -> dict:
    """``gammon cube --rollout --json``'s answer (the web's too): no double and double/take rolled out with the
    same dice (engine.play.rollout.cube_rollout), with the settings they were rolled out by."""
    result = cube_rollout(net, board, Cube.from_state(state), games, seed, progress, cube_plies=cube_ply,
                          reduce_variance=vr, truncate=truncate, search=search, truncate_plies=truncate_ply)
    return {"position": position, "situation": describe_state(state), "seed": seed, "level": level,
            "truncate": truncate, "truncate_ply": truncate_ply, "cube_plies": cube_ply,
            "search": list(search) if search else None, "variance_reduced": vr, **result.as_dict()}


def cube_rollout_report(args, net, board, state) -> int:
    """``cube --rollout`` or ``--level``: no double and double/take rolled out with the same dice (money, or the
    match score)."""
    if args.level:
        take_level(args, "the games, truncation and variance reduction", [])
    refuse_truncate_ply(args)
    if args.until:
        raise GammonError("cube --rollout plays --games for both cube actions, game for game; drop --until")
    with tqdm(total=2 * args.games, unit="game", disable=args.json or not sys.stderr.isatty()) as bar:
        report = cube_rollout_json(net, args.position, board, state, args.level, args.games, args.seed, args.truncate,
                                   args.truncate_ply, args.vr, args.cube_ply, args.search, bar.update)
    if args.json:
        print(json.dumps(report))
        return 0
    print(draw(board, args.variant))
    print(describe_state(state))
    level = f"level {args.level}: " if args.level else ""
    print(f"\n{level}No double and double/take rolled out, {args.games} cubeful games each with the same dice "
          f"({rollout_how(args)}, cube decisions inside at {args.cube_ply}-ply, seed {args.seed}); "
          f"equity per unit of the cube ({'money' if Cube.from_state(state).money else 'EMG'}), 95% intervals:")
    for name, key in (("No double", "no_double"), ("Double, take", "double_take")):
        low, high = report[f"{key}_ci95"]
        print(f"  {name:<14} {report[key]:+.3f}  ({low:+.3f} .. {high:+.3f})")
    print(f"  {'Double, pass':<14} +1.000")
    low, high = report["take_less_no_double_ci95"]
    print(f"Double/take less no double, game by game: {report['double_take'] - report['no_double']:+.3f} "
          f"({low:+.3f} .. {high:+.3f})")
    print(f"Proper cube action: {report['verdict']}")
    if state is not None and state.doubled:  # the double is made: what matters now is O's answer
        print(f"X has doubled to {2 * state.cube}; O's proper answer: {report['response']}")
    return 0


def device_rollout(net, board, args):
    """The cubeless rollout with the games side by side in torch on ``args.device`` (training/device_rollout.py)."""
    import torch

    from gammon.training.device_rollout import DeviceAnalyst
    from gammon.training.device_rollout import rollout as rollout_on

    if args.device == "cuda" and not torch.cuda.is_available():
        raise GammonError("--device cuda: torch sees no GPU here; leave --device out to roll out in numpy")
    analyst = DeviceAnalyst.of(net, torch.device(args.device))
    return rollout_on(analyst, board, games=args.games, seed=args.seed, truncate=args.truncate)


def cmd_rollout(args) -> int:
    from gammon.models.players import load_analyst

    if args.device and (args.cubeful or args.batch or args.vr):
        raise GammonError("--device rolls one position out cubeless, without --vr; --cubeful, --batch and --vr "
                          "run in numpy")
    if args.search and (args.device or args.batch):
        raise GammonError("--search plays a rollout of one position in numpy; drop --device and --batch, or "
                          "--search")
    if args.until and (args.device or args.batch):
        raise GammonError("--until stops a rollout of one position in numpy; drop --device and --batch, or --until")
    refuse_truncate_ply(args)
    if args.cube_ply and not args.cubeful:
        raise GammonError("--cube-ply sets how deep the cube decisions inside --cubeful games are searched; "
                          "give --cubeful")
    if args.device and (args.truncate_ply or args.save):
        raise GammonError("--device plays plain games scored by the net alone, kept nowhere; drop --truncate-ply "
                          "and --save")
    if is_batch(args):
        return batch_rollout(args)
    refuse_batch_options(args)
    board, state = position_in_variant(need_position(args), args.variant)
    net = load_analyst(args.model, variant=args.variant)
    cube = Cube.from_state(state)
    store = ChunkStore(args.save, single_options(args, board, cube)) if args.save else None
    with contextlib.nullcontext() if store is None else kept_on_stop(store, "chunk(s) of games"), \
            tqdm(total=args.games, unit="game", disable=args.json or not sys.stderr.isatty()) as bar:
        if store is not None and store.done:
            print(f"gammon rollout: resuming from {args.save} ({len(store.done)} chunk(s) of games finished)",
                  file=sys.stderr)
        if args.cubeful:
            result = cubeful_rollout(net, board, cube, games=args.games, seed=args.seed, progress=bar.update,
                                     store=store, cube_plies=args.cube_ply, reduce_variance=args.vr,
                                     truncate=args.truncate, search=args.search, truncate_plies=args.truncate_ply,
                                     until=args.until)
        elif args.device:
            result = device_rollout(net, board, args)
            bar.update(result.games)
        else:
            result = rollout(net, board, games=args.games, seed=args.seed, truncate=args.truncate,
                             progress=bar.update, reduce_variance=args.vr, until=args.until, search=args.search,
                             store=store, truncate_plies=args.truncate_ply)
    if args.json:
        print(json.dumps({"position": args.position, **result.as_dict(),
                          **({"cube_plies": args.cube_ply, "variance_reduced": args.vr} if args.cubeful else {})}))
        return 0
    print(draw(board, args.variant))
    low, high = result.ci95
    if args.cubeful:
        kind = "money games" if state is None or not state.match_length else "games at the match score (EMG)"
        print(f"\n{result.games} cubeful {kind} ({rollout_how(args, result.truncated if args.truncate else None)}), "
              f"cube decisions at {args.cube_ply}-ply, seed {args.seed}: "
              f"equity {result.equity:+.3f} "
              f"± {result.std_error:.3f} (95% CI {low:+.3f} .. {high:+.3f}); "
              f"{result.doubles} doubles, {result.passes} passed")
        return 0
    print(PROB_HEADER)
    print(prob_row("rollout", result.probs, result.equity))
    kind = rollout_how(args, result.truncated)
    print(f"\n{result.games} games, {kind}, seed {args.seed}: cubeless equity {result.equity:+.3f} "
          f"± {result.std_error:.3f} (95% CI {low:+.3f} .. {high:+.3f}); {result.games_per_s:.0f} games/s")
    return 0


def rollout_options(parser) -> None:
    """How games are rolled out: ``gammon rollout`` and ``gammon hint --rollout``."""
    parser.add_argument("--games", type=at_least(36, 36), default=ROLLOUT_DEFAULTS["games"],
                        help="games (a multiple of 36; default %(default)s)")
    parser.add_argument("--truncate", type=at_least(1), default=None,
                        help="stop after N turns and score with the net (or its search: --truncate-ply)")
    parser.add_argument("--truncate-ply", type=int, choices=(0, 1, 2), default=0,
                        help="with --truncate: score the games it stops by the search this deep (default 0: the net)")
    parser.add_argument("--vr", action="store_true",
                        help="variance reduction: take each roll's luck, judged by the net, out of every game, "
                             "cubeless or cubeful (10 to 33 times the time a game, for an interval 5-9 times "
                             "narrower)")
    parser.add_argument("--seed", type=at_least(0), default=0,
                        help="dice seed: the same seed, the same games (default 0)")
    parser.add_argument("--until", type=positive_float, default=None, metavar="HALF_WIDTH",
                        help="stop rule: end once the 95%% interval on the equity is +- HALF_WIDTH or narrower "
                             "(looked at every 144 games), or at --games")


def cube_ply_option(parser) -> None:
    """``--cube-ply``: how deep the players inside cubeful rollout games search their cube decisions."""
    parser.add_argument("--cube-ply", type=int, choices=(0, 1, 2), default=0,
                        help="cubeful games: the players' cube decisions searched this deep (checker plays 0-ply; "
                             "default 0)")


def register(sub) -> None:
    """Add the analysis sub-commands to the ``gammon`` parser's ``sub``."""
    show = sub.add_parser("show", help="draw a position (Position ID, PositionID:MatchID or XGID)")
    show.add_argument("position", help="Position ID, PositionID:MatchID or XGID (player on roll)")
    show.add_argument("--svg", help="write the position as an SVG picture to this file instead")
    variant_option(show)
    show.set_defaults(run=cmd_show)

    moves = sub.add_parser("moves", help="list the legal plays of a position and roll")
    moves.add_argument("position", help="Position ID, PositionID:MatchID or XGID")
    moves.add_argument("--dice", type=parse_dice, help="the roll, e.g. 64 (default: the dice in the Match ID/XGID)")
    variant_option(moves)
    moves.add_argument("--json", action="store_true", help="print the plays as one JSON object")
    moves.set_defaults(run=cmd_moves)

    for name, run, text in (
        ("eval", cmd_eval, "evaluate a position (cubeless probabilities, cubeless and cubeful equity) at 0..N ply"),
        ("hint", cmd_hint, "rank the legal moves of a roll by equity"),
        ("cube", cmd_cube, "the cube action for the player on roll (money, or match play with the MET)"),
    ):
        command = sub.add_parser(name, help=text)
        command.add_argument("position", nargs="?", help="Position ID, PositionID:MatchID or XGID (player on roll)")
        ply_option(command)
        model_option(command)
        variant_option(command)
        rules_options(command)
        command.add_argument("--json", action="store_true", help="print the answer as one JSON object")
        if name == "hint":
            command.add_argument("--dice", type=parse_dice,
                                 help="the roll, e.g. 31 (default: the dice in the Match ID/XGID)")
            command.add_argument("--top", type=at_least(1), default=None,
                                 help="moves to show (default 10), or to roll out with --rollout (default 4)")
            command.add_argument("--rollout", action="store_true",
                                 help="roll out the best plays (cubeless games, each play valued cubeful or at the "
                                      "match score) with the same dice and compare them")
            command.add_argument("--level", choices=tuple(LEVELS),
                                 help="a named rollout level (variance-reduced, truncated): "
                                      + "; ".join(f"{n}: the best {v.candidates} plays, {v.games} games, "
                                                  f"{v.truncate} turns" for n, v in LEVELS.items()))
            rollout_options(command)
            command.add_argument("--filters", type=parse_filters, default=None, metavar="PLY:KEEP:MARGIN,...",
                                 help="move filters: after judging the candidates at PLY, up to KEEP within MARGIN "
                                      f"go on deeper (default gnubg's, {filters_text(MOVE_FILTERS)}; at 3-ply "
                                      f"{filters_text(DEEP_FILTERS)})")
        if name == "cube":
            command.add_argument("--rollout", action="store_true",
                                 help="roll out no double and double/take (money, cubeful) with the same dice")
            command.add_argument("--level", choices=tuple(LEVELS),
                                 help="a named rollout level: no double and double/take rolled out, "
                                      "variance-reduced, truncated: "
                                      + "; ".join(f"{n}: {v.games} games, {v.truncate} turns"
                                                  for n, v in LEVELS.items()))
            rollout_options(command)
            cube_ply_option(command)
            search_option(command)
        if name in ("hint", "cube"):
            command.add_argument("--batch", help="JSON Lines of positions (id, gnubgid or position_id [+ dice])")
            command.add_argument("--out", help="where --batch writes its JSON Lines results")
        command.set_defaults(run=run)

    roll = sub.add_parser("rollout", help="roll a position out (cubeless, or --cubeful), the net playing both sides")
    roll.add_argument("position", nargs="?", help="Position ID, PositionID:MatchID or XGID (player on roll)")
    rollout_options(roll)
    search_option(roll)
    roll.add_argument("--cubeful", action="store_true",
                      help="rollout with the cube: the position's cube, money or its match score")
    cube_ply_option(roll)
    roll.add_argument("--device", choices=("cpu", "cuda"), help="cubeless: play the games side by side in torch on "
                      "this device (default: numpy)")
    model_option(roll)
    variant_option(roll, "the variant of the position, whose rules the games follow")
    roll.add_argument("--json", action="store_true", help="print the result as one JSON object")
    roll.add_argument("--save", metavar="FILE",
                      help="keep each finished chunk of games in FILE: after a kill, the same command resumes to "
                           "the numbers of an unbroken run; FILE is deleted when the rollout completes")
    roll.add_argument("--batch", help="JSON Lines of positions (id, gnubgid or position_id), rolled out in shards")
    roll.add_argument("--out", help="where --batch writes its JSON Lines results (OUT.shards keeps finished work)")
    worker_options(roll, "playing --batch's shards")
    roll.set_defaults(run=cmd_rollout)
