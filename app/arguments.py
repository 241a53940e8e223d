"""What the sub-commands share: argument types and how a position's dice and model are given."""

from __future__ import annotations

import argparse
import ipaddress
import re

from engine.board import BoardError


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def at_least(low: int, multiple: int = 1):
    """An argparse type: an integer >= ``low`` (and a multiple of ``multiple``), else one line saying so."""

    def parse(text: str) -> int:
        value = _whole_number(text)
        if value < low or value % multiple:
            rule = f"at least {low}" + (f" and a multiple of {multiple}" if multiple > 1 else "")
            raise argparse.ArgumentTypeError(f"must be {rule}; got {value}")
        return value

    return parse


def between(low: int, high: int):
    """An argparse type: an integer from ``low`` to ``high``, else one line saying so."""

    def parse(text: str) -> int:
        value = _whole_number(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low}..{high}; got {value}")
        return value

    return parse


DICE = re.compile(r"\s*([1-6])\s*[-,/ ]?\s*([1-6])\s*", re.ASCII)


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


def need_position(args) -> str:
    if not args.position:
        raise BoardError("give a position (Position ID, PositionID:MatchID or XGID), "
                         "or --batch IN.jsonl --out OUT.jsonl")
    return args.position


def model_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default="default",
                        help="a weights file or player name (default: the shipped net, models/default.pt)")


def is_loopback(host: str) -> bool:
    """Whether a server listening on ``host`` is reachable from this machine only."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # getsockname gives an IP literal; a name would be a surprise, judged by its spelling
        return host == "localhost"
