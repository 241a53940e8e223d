"""``gammon train``: TD(0) self-play into a run folder (``--resume`` after a kill), or a whole ``--recipe``."""

from __future__ import annotations

import argparse
from pathlib import Path

from gammon.engine.errors import GammonError
from gammon.options import config_from, config_options, worker_options
from gammon.training.recipe import run_recipe
from gammon.training.train import Config, train


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gammon train", description="Train a network by self-play (TD(0)), or run a whole recipe."
    )
    # --games has no parser default so that --resume keeps the run's own target unless told.
    config_options(parser, Config, unset=("games",))
    parser.add_argument("--out", type=Path, default=Path("runs/default"), help="run folder (default runs/default)")
    parser.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    parser.add_argument("--recipe", help="run a whole training recipe into --out instead (training/recipe.py: "
                        "strong, tiny); run the same command again to resume it")
    worker_options(parser, "labelling a --recipe's generations")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.recipe:
        weights = run_recipe(args.recipe, args.out, progress=not args.no_progress, workers=args.workers or 1,
                             ray=args.ray)
        print(f"weights: {weights}\ncurve: {args.out / 'curve.svg'}\nlog: {args.out / 'log.jsonl'}")
        return 0
    if args.workers or args.ray:
        raise GammonError("--workers and --ray label the generations of a --recipe; TD self-play runs here")
    config = config_from(args, Config)
    config.check()
    weights = train(config, args.out, resume=args.resume, progress=not args.no_progress, games_override=args.games)
    print(f"weights: {weights}\ncurve: {args.out / 'curve.svg'}\nlog: {args.out / 'log.jsonl'}")
    return 0
