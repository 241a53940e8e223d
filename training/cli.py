"""``gammon train``: TD(0) self-play into a run folder (``--resume`` after a kill), or a whole ``--recipe``."""

from __future__ import annotations

import argparse
from dataclasses import fields
from pathlib import Path

from gammon.engine.errors import GammonError
from gammon.options import config_from, config_options, worker_options
from gammon.training.recipe import RECIPES, run_recipe
from gammon.training.train import Config, train


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gammon train", description="Train a network by self-play (TD(0)), or run a whole recipe."
    )
    # No training option has a parser default: --resume keeps the run's own --games unless told, and a --recipe
    # refuses the options it would not use.
    config_options(parser, Config, unset=tuple(f.name for f in fields(Config)))
    parser.add_argument("--out", type=Path, default=Path("runs/default"), help="run folder (default runs/default)")
    parser.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    parser.add_argument("--recipe", help="run a whole training recipe into --out instead (training/recipe.py: "
                        f"{', '.join(RECIPES)}), its TD stage on --nets and every stage on other dice with --seed "
                        "if given; run the same command again to resume it")
    worker_options(parser, "labelling a --recipe's generations")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.recipe:
        ignored = [f"--{f.name.replace('_', '-')}" for f in fields(Config) if f.name not in ("nets", "seed")
                   and getattr(args, f.name) is not None]
        if ignored:
            raise GammonError(f"of the training options only --nets (its TD stage) and --seed (every stage's) apply "
                              f"to a --recipe; the recipe takes the rest from training/recipe.py: drop "
                              f"{', '.join(ignored)}")
        weights = run_recipe(args.recipe, args.out, progress=not args.no_progress, workers=args.workers or 1,
                             ray=args.ray, nets=args.nets or "", seed=args.seed)
        print(f"weights: {weights}\ncurve: {args.out / 'curve.svg'}\nlog: {args.out / 'log.jsonl'}")
        return 0
    if args.workers or args.ray:
        raise GammonError("--workers and --ray label the generations of a --recipe; TD self-play runs here")
    config = config_from(args, Config)
    config.check()
    weights = train(config, args.out, resume=args.resume, progress=not args.no_progress, games_override=args.games)
    print(f"weights: {weights}\ncurve: {args.out / 'curve.svg'}\nlog: {args.out / 'log.jsonl'}")
    return 0
