"""Tool sub-commands with option parsers of their own: ``gammon train ...`` and ``gammon bench WHAT ...``.

Everything after the tool's name goes to its own parser (``gammon train --help``). The
``gammon`` parser lists them only so that ``gammon --help`` shows them.
"""

from __future__ import annotations

import importlib
import sys

from gammon.engine.errors import GammonError

BENCHMARKS = {  # name (the module in benchmarks/) -> what it measures
    "movegen": "move-generation speed and exactness, beside gnubg-nn's",
    "thinking": "hint latency at 0-3 ply beside gnubg-nn's, a 7-point match analysed beside gnubg's, commands' time",
    "search": "n-ply search speed by batch size",
    "filters": "move filters of a deep search compared: each setting's choices judged by the search, and its time",
    "selfplay": "self-play games/s, beside GNU Backgammon's own loop",
    "rollout_vr": "variance-reduced rollouts beside plain ones: how much narrower, at what cost, unbiased",
    "rollout_vs_gnubg": "our rollouts beside GNU Backgammon's own: the same positions, the equities and the speed",
    "strength": "playing strength: money games between two players, duplicate dice",
    "accuracy": "move and cube error against GNU Backgammon 2-ply on the dev positions",
    "cube_errors": "cube error against GNU Backgammon 2-ply on held-out self-play positions, beside gnubg 0-ply's",
    "race_accuracy": "move loss against GNU Backgammon 2-ply on held-out positions of our own, races or --class",
    "inputs": "contact encodings compared: fresh nets fitted on one generation's labels, judged by gnubg-nn",
    "calibration": "a model's 0-ply probabilities against rollouts of its own play, on held-out positions",
    "analysis_vs_gnubg": "our match analysis beside GNU Backgammon's, on the same matches",
    "vs_gnubg": "our bot against GNU Backgammon itself, through its external-player protocol",
    "device": "the device path's throughput on whatever device is present",
}

TOOLS = {
    "train": "train a network: self-play, or a whole --recipe (gammon train --help for options)",
    "bench": "run a benchmark (gammon bench alone lists them; gammon bench WHAT --help)",
}


def benchmark_list() -> str:
    return "\n".join(["usage: gammon bench WHAT [options]   (gammon bench WHAT --help for each)", "", "benchmarks:"]
                     + [f"  {name:<18} {text}" for name, text in BENCHMARKS.items()])


def run_tool(name: str, rest: list[str]) -> int:
    """Run tool ``name`` (a key of TOOLS) on the rest of the command line."""
    if name == "train":
        from gammon.training.cli import main as train_main

        return train_main(rest)
    what = rest[0] if rest else None
    if what in (None, "-h", "--help"):
        print(benchmark_list())
        return 0
    if what not in BENCHMARKS:
        raise GammonError(f"unknown benchmark {what!r}; choose one of {', '.join(BENCHMARKS)}")
    benchmark = importlib.import_module(f"gammon.benchmarks.{what}")
    program, sys.argv[0] = sys.argv[0], f"gammon bench {what}"  # argparse names the program after argv[0]
    try:
        return benchmark.main(rest[1:])
    finally:
        sys.argv[0] = program


def register(sub) -> None:
    """List the tools in the ``gammon`` parser's ``sub`` (``app.cli.main`` hands their arguments over)."""
    for name, text in TOOLS.items():
        sub.add_parser(name, help=text, add_help=False)
