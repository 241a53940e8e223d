"""The command-line options every program shares: ``gammon``'s sub-commands (app/), the trainers run as
``python -m gammon.training.X`` (training/) and the benchmarks (benchmarks/). One way to write each:
whole numbers in a range, ``--model``, ``--variant``, ``--workers`` and ``--ray``, and a config
dataclass as options. It knows the engine's variants and argparse, nothing else."""

from __future__ import annotations

import argparse
import inspect
import re
from dataclasses import fields
from pathlib import Path

from gammon.engine.rules.variants import VARIANTS


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


def positive_float(text: str) -> float:
    """An argparse type: a number above 0, else one line saying so."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be above 0; got {text}")
    return value


def between(low: int, high: int):
    """An argparse type: an integer from ``low`` to ``high``, else one line saying so."""

    def parse(text: str) -> int:
        value = _whole_number(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low}..{high}; got {value}")
        return value

    return parse


# The depth policy, one for every command: a position asked about (eval, hint, cube, and the web board's
# buttons) is searched at 2-ply, gnubg's World Class; a whole match (analyze) at 0-ply, since it judges
# hundreds of decisions; all of them take 0..3.
POSITION_PLY, MATCH_PLY, MAX_PLY = 2, 0, 3


def ply_option(parser: argparse.ArgumentParser, default: int = POSITION_PLY) -> None:
    parser.add_argument("--ply", type=between(0, MAX_PLY), default=default,
                        help=f"search depth 0..{MAX_PLY} (default %(default)s)")


def model_option(parser: argparse.ArgumentParser, required: bool = False,
                 help: str = "a weights file or player name (default: the shipped net, models/default.pt)") -> None:
    """``--model``: a player as users name them (models/players.py), the shipped net unless ``required``."""
    parser.add_argument("--model", required=required, default=None if required else "default", help=help)


VARIANT_CHOICES = sorted(VARIANTS)  # every variant the engine plays; one list for every program's --variant


def variant_option(parser: argparse.ArgumentParser, what: str = "the variant of the position") -> None:
    parser.add_argument("--variant", default="standard", choices=VARIANT_CHOICES, help=f"{what} (default standard)")


def worker_options(parser: argparse.ArgumentParser, what: str, ray: bool = True) -> None:
    """``--workers K`` (processes doing ``what``; None when not given: one, this process) and, unless ``ray``
    is False, ``--ray [ADDRESS]`` (Ray tasks instead: 'auto', the default, joins this machine's Ray or
    starts one; ADDRESS joins a cluster). The results are the same wherever the work runs."""
    parser.add_argument("--workers", type=at_least(1), default=None,
                        help=f"processes {what} (default 1: this one)" + ("; with --ray, the most tasks in flight"
                                                                           if ray else ""))
    if ray:
        parser.add_argument("--ray", nargs="?", const="auto", metavar="ADDRESS",
                            help=f"{what} as Ray tasks: 'auto' (the default) joins this machine's Ray or starts one; "
                                 "ADDRESS joins a cluster; needs pip install -e '.[distributed]'")


_FIELD_LINE = re.compile(r"\s+(\w+)\s*:[^=]*=[^#]*(?:#\s*(.*))?$")


def field_comments(config) -> dict[str, str]:
    """Each field's comment in the source of the dataclass ``config``: the one after it on its line, else the
    comment lines just above it. A config is read top to bottom, its comments are its documentation, and
    its options' help is taken from them rather than written twice."""
    comments, above = {}, []
    for line in inspect.getsource(config).splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            above.append(stripped.lstrip("# "))
            continue
        field = _FIELD_LINE.match(line)
        if field:
            comments[field[1]] = field[2] or " ".join(above)
        above = []
    return comments


def config_options(parser: argparse.ArgumentParser, config, unset: tuple[str, ...] = ()) -> None:
    """One option per field of the dataclass ``config`` (``--field-name``, its type, its default; a bool as a
    ``--name/--no-name`` switch), its help the field's comment; the fields in ``unset`` default to None, to
    tell "not given" apart."""
    comments = field_comments(config)
    for field in fields(config):
        flag, value = f"--{field.name.replace('_', '-')}", field.default
        default = None if field.name in unset else value
        text = f"{comments.get(field.name, '')} (default {value!r})".lstrip()
        if isinstance(value, bool):  # type=bool would read "False" as true
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default, help=text)
        else:
            parser.add_argument(flag, type=type(value), default=default, help=text.replace("%", "%%"))


def config_from(args: argparse.Namespace, config):
    """The dataclass ``config`` from parsed options (:func:`config_options`); options left None keep the default."""
    given = {f.name: getattr(args, f.name) for f in fields(config) if getattr(args, f.name) is not None}
    return config(**given)


def model_stage_main(argv, prog: str, description: str, config, model_help: str, run) -> int:
    """The command line of a training step that makes a run folder from a model (the pruning net, calibration):
    the dataclass ``config``'s options, ``--model``, ``--out`` and ``--no-progress``; runs ``run(model path, out,
    config, progress)``, which returns the file it wrote, and prints that file and the folder's report.json."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    config_options(parser, config)
    model_option(parser, required=True, help=model_help)
    parser.add_argument("--out", type=Path, required=True, help="run folder")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    print(run(Path(args.model), args.out, config_from(args, config), not args.no_progress))
    print((args.out / "report.json").read_text(), end="")
    return 0
