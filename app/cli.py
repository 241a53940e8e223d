"""The ``gammon`` command line: one parser, sub-commands by theme, one way to report faults.

The themes live beside this file: :mod:`app.analyse` (show, moves, eval, hint, cube,
rollout; a position may be an .xgp file), :mod:`app.review` (analyze: whole matches), :mod:`app.study`
(a deck of a player's errors), :mod:`app.convert`
(match files from one format to another), :mod:`app.play` (demo, play, match,
serve), :mod:`app.chouette`, :mod:`app.tools` (train, bench), :mod:`app.odds`, :mod:`app.race` and
:mod:`app.web` (the board in the browser). A fault in what the user gave (:class:`engine.errors.GammonError`, or a file
that cannot be read or written) ends with one line on stderr and exit code 2; Ctrl-C with
one line and 130, SIGTERM with one line and 143, each after the file being written is removed
(engine/files.py cleans up on any exception); any other exception is a bug: its traceback and exit
code 3 (README, "Exit codes").
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
import traceback
from importlib import metadata

from gammon.app import analyse, chouette, convert, odds, play, race, review, study, tools, web
from gammon.app.arguments import position_file
from gammon.engine.cube.met import DEFAULT_MET, using_met
from gammon.engine.errors import GammonError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gammon",
        description="Backgammon engine: exact vectorized rules, position formats, analysis, bots.",
    )
    parser.add_argument("--version", action="version", version=f"gammon {metadata.version('gammon')}")
    sub = parser.add_subparsers(dest="command", required=True)
    for theme in (analyse, review, study, convert, play, chouette, tools, odds, race, web):
        theme.register(sub)
    return parser


class Terminated(BaseException):
    """SIGTERM, raised in the command's process like Ctrl-C's KeyboardInterrupt, so that what it was
    writing is cleaned up on the way out."""


@contextlib.contextmanager
def sigterm_raises():
    """SIGTERM raises :class:`Terminated` in this process while the block runs (in the main thread only; a
    process forked meanwhile, a pool's worker, ends at SIGTERM as usual)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pid = os.getpid()

    def terminate(signum, frame):
        if os.getpid() != pid:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
        raise Terminated

    before = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = argv[0] if argv else None
    try:
        with sigterm_raises():
            if command in tools.TOOLS:
                return tools.run_tool(command, argv[1:])  # their own parsers take the rest
            args = build_parser().parse_args(argv)
            position_file(args)  # a position given as an .xgp file
            with using_met(getattr(args, "met", DEFAULT_MET)):  # the table a match analysis reads
                return args.run(args)
    except KeyboardInterrupt:
        print(f"gammon {command}: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print(f"gammon {command}: terminated", file=sys.stderr)
        return 143
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
    except Exception:  # a bug: its traceback, and a code of its own (1 says some batch lines failed)
        traceback.print_exc()
        print(f"gammon {command}: internal error (a bug in gammon; the traceback above says where)", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
