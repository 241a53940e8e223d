"""The ``gammon`` command line: one parser, sub-commands by theme, one way to report faults.

The themes live beside this file: :mod:`app.analyse` (show, moves, eval, hint, cube,
rollout), :mod:`app.review` (analyze: whole matches), :mod:`app.play` (demo, play, match,
serve), :mod:`app.chouette`, :mod:`app.tools` (train, bench), :mod:`app.odds` and
:mod:`app.web` (the board in the browser). A fault in what the user gave (:class:`engine.errors.GammonError`, or a file
that cannot be read or written) ends with one line on stderr and exit code 2; any
other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import os
import sys

from gammon.app import analyse, chouette, odds, play, review, tools, web
from gammon.engine.errors import GammonError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gammon",
        description="Backgammon engine: exact vectorized rules, position formats, analysis, bots.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for theme in (analyse, review, play, chouette, tools, odds, web):
        theme.register(sub)
    return parser


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = argv[0] if argv else None
    try:
        if command in tools.TOOLS:
            return tools.run_tool(command, argv[1:])  # their own parsers take the rest
        args = build_parser().parse_args(argv)
        return args.run(args)
    except GammonError as exc:  # a bad position, move, file or option: the user's to fix
        print(f"gammon {command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (`gammon hint ... | head`): end quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
        return 0
    except OSError as exc:  # a path that cannot be read or written: the user's to fix, one line
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"gammon {command}: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
