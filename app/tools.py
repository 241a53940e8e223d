"""Tool sub-commands with option parsers of their own: ``gammon train ...`` and ``gammon bench WHAT ...``.

Everything after the tool's name goes to its own parser (``gammon train --help``). The
``gammon`` parser lists them only so that ``gammon --help`` shows them.
"""

from __future__ import annotations

import importlib

from gammon.engine.errors import GammonError

BENCHMARKS = ("movegen", "strength", "selfplay")

TOOLS = {
    "train": "train a network: self-play, or a whole --recipe (gammon train --help for options)",
    "bench": f"run a benchmark: {', '.join(BENCHMARKS)} (gammon bench WHAT --help)",
}


def run_tool(name: str, rest: list[str]) -> int:
    """Run tool ``name`` (a key of TOOLS) on the rest of the command line."""
    if name == "train":
        from gammon.training.cli import main as train_main

        return train_main(rest)
    what = rest[0] if rest else None
    if what in ("-h", "--help"):
        print(f"usage: gammon bench {{{','.join(BENCHMARKS)}}} [options]   (gammon bench WHAT --help for each)")
        return 0
    if what not in BENCHMARKS:
        raise GammonError(f"unknown benchmark {what!r}; choose one of {', '.join(BENCHMARKS)}")
    return importlib.import_module(f"gammon.benchmarks.{what}").main(rest[1:])


def register(sub) -> None:
    """List the tools in the ``gammon`` parser's ``sub`` (``app.cli.main`` hands their arguments over)."""
    for name, text in TOOLS.items():
        sub.add_parser(name, help=text, add_help=False)
