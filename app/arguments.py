"""What the sub-commands share beyond gammon.options: how a position and its dice are given, and drawn."""

from __future__ import annotations

import argparse
import ipaddress
import re
from dataclasses import replace
from pathlib import Path

from gammon.engine.cube.met import DEFAULT_MET, METS
from gammon.engine.errors import GammonError
from gammon.engine.records.formats import MatchState, parse_position, xgid
from gammon.engine.records.match_files import MATCH_SUFFIXES
from gammon.engine.records.xg import load_xgp
from gammon.engine.rules.board import VARIANTS as BOARD_VARIANTS
from gammon.engine.rules.board import BoardError, render, validate
from gammon.engine.rules.variants import Variant, variant_named

DICE = re.compile(r"\s*([1-6])\s*[-,/ ]?\s*([1-6])\s*", re.ASCII)


def counted(n: int, noun: str) -> str:
    """``1 game``, ``2 games``: a count with its noun."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def parse_dice(text: str) -> tuple[int, int]:
    match = DICE.fullmatch(text)
    if not match:
        raise argparse.ArgumentTypeError(f"dice are two digits 1..6 like 64, 6-4 or 6,4; got {text!r}")
    return int(match[1]), int(match[2])


def dice_for(dice: tuple[int, int] | None, state) -> tuple[int, int]:
    """The roll given (``--dice``, or the web page's dice), else the dice rolled in the position's match state."""
    dice = dice or (state.dice if state is not None and state.dice[0] else None)
    if dice is None:
        raise BoardError("no dice: give the roll (--dice 64 on the command line) or a Match ID / XGID with dice")
    return dice


def is_batch(args) -> bool:
    """Whether a hint, cube or rollout command runs a batch file (``--batch``); what the other way would
    silently drop is refused in one line: a position or ``--dice`` beside ``--batch``, ``--out`` without it."""
    if args.batch:
        if args.position:
            raise GammonError("give a position or --batch IN.jsonl, not both: the batch file names its positions")
        if getattr(args, "dice", None):
            raise GammonError("--dice goes with one position: each batch line carries its own dice")
        return True
    if args.out:
        raise GammonError("--out goes with --batch IN.jsonl; one position is answered on the screen")
    return False


def rules_options(parser: argparse.ArgumentParser, money: bool = True) -> None:
    """The rules an analysis assumes where the position does not say (and, ``money``, the money rules it
    may override): ``--met`` for match play, ``--jacoby`` and ``--beavers`` for money play."""
    parser.add_argument("--met", choices=tuple(METS), default=DEFAULT_MET,
                        help=f"match play: the match equity table (default {DEFAULT_MET})")
    if money:
        parser.add_argument("--jacoby", action=argparse.BooleanOptionalAction, default=None,
                            help="money play: gammons count single while the cube is centered (default: as the "
                                 "Match ID or XGID says; off for a Position ID alone)")
        parser.add_argument("--beavers", action=argparse.BooleanOptionalAction, default=None,
                            help="money play: a doubled player may beaver (default: as the XGID says; off otherwise)")


def with_rules(state: MatchState | None, jacoby: bool | None = None, beavers: bool | None = None) -> MatchState | None:
    """``state`` under the money rules given (``--jacoby``, ``--beavers``; None keeps the position's own; a
    Position ID alone is a money game at a centered cube); a match position refuses them."""
    given = {name: value for name, value in (("jacoby", jacoby), ("beavers", beavers)) if value is not None}
    if not given:
        return state
    state = state or MatchState()
    if state.match_length:
        raise GammonError(f"--{', --'.join(given)}: money rules; this position is a {state.match_length}-point match")
    return replace(state, **given)


def position_file(args) -> None:
    """A position given as an eXtreme Gammon .xgp file (``gammon show FILE.xgp``, and every command that takes a
    position): read here, on the command line only, and put in its place as its XGID, which the command then
    reads as if pasted (board, cube, score, rules, the dice of a checker play). A position of another variant
    than ``--variant`` names is refused."""
    text = getattr(args, "position", None)
    if not (isinstance(text, str) and text.lower().endswith(".xgp")):
        return
    board, state, variant = load_xgp(text)
    wanted = getattr(args, "variant", "standard")
    if variant != wanted:
        raise GammonError(f"{text} is a {variant} position; add --variant {variant}")
    args.position = xgid(board, state, variant)


def need_position(args) -> str:
    if not args.position:
        raise BoardError("give a position (Position ID, PositionID:MatchID or XGID), "
                         "or --batch IN.jsonl --out OUT.jsonl")
    return args.position


def position_in_variant(text: str, variant: str | Variant = "standard"):
    """A pasted position of ``variant`` (board and match state, see parse_position), refused in one line
    (BoardError) when a side has more checkers than ``variant`` has."""
    board, state = parse_position(text, variant)
    variant = variant_named(variant)
    validate(board, variant.checkers, variant.board_size)
    return board, state


def draw(board, variant: str | Variant, names: tuple[str, str] = ("X (on roll)", "O")) -> str:
    """The text picture of ``board`` (seen from the player on roll) in ``variant``: its checker count
    and its geometry (the opponent's pip count along his own track)."""
    variant = variant_named(variant)
    return render(board, variant.checkers, names=names, geometry=variant.geometry)


def check_record_variant(path, variant: str) -> None:
    """Refuse, before playing, a match file (.mat, .sgf) of a variant those files cannot name: they hold
    the games on backgammon's own board."""
    if path and Path(path).suffix.lower() in MATCH_SUFFIXES and variant not in BOARD_VARIANTS:
        raise GammonError(f"--record {path}: .mat and .sgf files hold {', '.join(sorted(BOARD_VARIANTS))} only, "
                          f"not {variant}")


def is_loopback(host: str) -> bool:
    """Whether a server listening on ``host`` is reachable from this machine only."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # getsockname gives an IP literal; a name would be a surprise, judged by its spelling
        return host == "localhost"
