"""Training recipes: one command that reproduces a model from random weights, resumable.

    gammon train --recipe strong --out runs/strong     # the shipped model; run again after a kill
    gammon train --recipe quick --out runs/q1 --nets contact=contact-v1,race=race-v1   # on other inputs

A recipe is a list of stages run one after another, each in its own folder of ``--out``:

1. ``td``: TD(0) self-play from random weights (:mod:`training.train`), one net per
   position class with the knowledge-carrying inputs of :mod:`models.features`.
2. ``gen1``, ``gen2``, ...: supervised generations (:mod:`training.distill`): positions
   from the current model's self-play, labelled by its own 1-ply search, fitted. The
   later ones widen the contact net and fit on the labels of earlier generations too;
   the last refits the race net alone on labels from the 2-ply search.
3. ``race``: the race net replaced by a one-sided race net (:mod:`training.onesided`),
   trained by dynamic programming outward from the bear-off database on the sides of the
   races in the current model's self-play.
4. ``calibrate``: the contact net's output biases fitted to rollouts of the model's own
   play (:mod:`training.calibrate`).

A stage whose ``model.pt`` exists is done and is skipped; an unfinished one resumes
(the TD stage from its checkpoint, a generation from its last saved step). After each
stage the model plays 2,000 duplicate games against pubeval; ``OUT/log.jsonl`` gets the
result with the stage's cost, ``OUT/curve.svg`` draws them, and the last stage's weights
are copied to ``OUT/model.pt``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import torch

from gammon.engine.errors import GammonError
from gammon.engine.files import atomic_write
from gammon.engine.rules.variants import variant_named
from gammon.models.network import load_weights, net_encodings
from gammon.training.calibrate import CalibrateConfig, calibrate
from gammon.training.curve import write_curve
from gammon.training.distill import DistillConfig, generation, teacher_weights
from gammon.training.onesided import OneSidedConfig, train_one_sided
from gammon.training.prune import PruneConfig, screen_for
from gammon.training.runlog import append_log, read_log
from gammon.training.train import Config, default_nets, evaluate_vs_baseline, train


@dataclass
class Recipe:
    td: Config
    generations: list[DistillConfig] = field(default_factory=list)
    race: OneSidedConfig | None = None  # after the generations, when given
    calibrate: CalibrateConfig | None = None  # the last stage, when given
    eval_games: int = 2_000
    prune: PruneConfig = field(default_factory=PruneConfig)  # generations with ``screen``: their pruning nets, each
    # taught with its generation's seed


RECIPES = {
    # The shipped model (models/default.md): about 33 minutes of TD, then 5 to 18 per generation on one core;
    # generations 10, 11 and 14 on label every earlier position again (about an hour each on two workers).
    "strong": Recipe(
        td=Config(games=300_000, threads=1, seed=1),
        generations=[DistillConfig(positions=100_000, seed=10 + i) for i in range(1, 6)] + [
            # then a 512-unit contact net, from random weights, fitted on every generation's labels so far
            DistillConfig(positions=100_000, seed=16, replay=5, fresh="contact=512", epochs=60),
            DistillConfig(positions=100_000, seed=17, replay=6),
            # the contact net restarted once more, now held out by position (the same set in every
            # generation) so no replayed position is both trained on and judged on
            DistillConfig(positions=100_000, seed=18, replay=7, fresh="contact=512", split="hash", cosine=True,
                          epochs=80),
            # and once more from those weights, on its own search's labels too
            DistillConfig(positions=100_000, seed=19, replay=8, split="hash", cosine=True, epochs=30, lr=2e-4),
            # every earlier position labelled again by this model's search: one teacher for all the targets
            DistillConfig(positions=100_000, seed=20, replay=9, relabel=True, split="hash", cosine=True, epochs=40,
                          lr=3e-4),
            # and again, taught by generation 10's search
            DistillConfig(positions=100_000, seed=21, replay=10, relabel=True, split="hash", cosine=True, epochs=40,
                          lr=3e-4),
            # then the positions after near-best rival plays, which self-play seldom shows the net
            DistillConfig(positions=100_000, seed=22, replay=1, rivals=0.5, split="hash", cosine=True, epochs=30,
                          lr=2e-4),
            # a contact net of two hidden layers, from random weights, on generation 12's whole set and its own
            DistillConfig(positions=100_000, seed=23, replay=2, rivals=0.5, fresh="contact=512x256", split="hash",
                          cosine=True, epochs=60),
            # every position labelled again by generation 13's search, the two-layer net fine-tuned on them
            DistillConfig(positions=100_000, seed=24, replay=13, relabel=True, rivals=0.5, split="hash", cosine=True,
                          epochs=30, lr=2e-4),
            # and by generation 14's
            DistillConfig(positions=100_000, seed=25, replay=14, relabel=True, rivals=0.5, split="hash", cosine=True,
                          epochs=30, lr=2e-4),
            # and by generation 15's
            DistillConfig(positions=100_000, seed=26, replay=15, relabel=True, rivals=0.5, split="hash", cosine=True,
                          epochs=30, lr=2e-4),
            # then the race net alone, on every race position so far labelled anew by generation 16's 2-ply
            # search (where its race play is best), the new ones from 200,000 self-play positions
            DistillConfig(positions=200_000, seed=27, replay=16, relabel=True, rivals=0.5, plies=2, nets="race",
                          split="hash", cosine=True, epochs=30, lr=2e-4),
        ],
        # then a one-sided race net in its place, trained by dynamic programming from the bear-off database (about
        # 45 minutes on two cores)
        race=OneSidedConfig(),
        # then the contact net's output biases fitted to rollouts of its own play (about 20 minutes on one core):
        # stages 1-20 of models/default.md (the shipped model's later stages were run on their own, each command there)
        calibrate=CalibrateConfig(),
    ),
    # An afternoon on two cores (gammon train --recipe quick --out DIR --workers 2): what the strong recipe
    # learnt, without its detours. A short TD run, then a two-layer contact net from the first generation on,
    # and every generation labelling all positions so far anew with its own 1-ply search (one teacher, the best).
    # 300,000 TD games and five generations: +0.613 against pubeval over 10,000 games, 2 h 25 min from random
    # weights on a shared 2-core machine; 100,000 TD games and four generations had levelled off at +0.569.
    # On contact-v2's inputs (four more features a side) the same stages reached +0.641 on the same games, and
    # -0.017 against gnubg-nn 0-ply where contact-v1's reach -0.048; timed from random weights on the committed
    # code they took 2 h 40 min and reached +0.592 and -0.039 (benchmarks/RESULTS.md): runs differ that much.
    # Labelled through each teacher's pruning net (screen), a third of the labelling time, and with a sixth
    # generation: about 2 hours, +0.600 (generation 5 +0.615) and -0.031 against gnubg-nn; on other dice (--seed 2)
    # +0.631 and -0.038. A seventh generation chose 0.09 mp a move better, inside the noise. The fits and the
    # pruning nets run on two threads (1.78x faster; the labelling workers are idle meanwhile); TD stays on one
    # (1.09x). A first generation at contact=1024x256 ended 0.36 and 0.14 mp a move better on two sets of dice
    # (+0.02 ppg against pubeval and gnubg-nn), its generations about 1.3 times as long; timed from random weights
    # on a third (--seed 3): 2 h 11 min of stages, +0.619 against pubeval and -0.009 against gnubg-nn. So the
    # contact net is 1024x256 (a 2-ply hint with such a net takes about 1.4 times as long as with the shipped one).
    "quick": Recipe(
        td=Config(games=300_000, threads=1, seed=1, eval_every=50_000, eval_games=1_000,
                  nets="contact=contact-v2,race=race-v1"),
        generations=[
            DistillConfig(positions=200_000, seed=11, fresh="contact=1024x256", split="hash", cosine=True, epochs=30,
                          screen=True, threads=2),
        ] + [
            DistillConfig(positions=200_000, seed=11 + i, replay=i - 1, relabel=True, split="hash", cosine=True,
                          epochs=30, lr=3e-4, screen=True, threads=2)
            for i in range(2, 7)
        ],
        prune=PruneConfig(threads=2),
    ),
    # A few seconds of each stage, for the tests and for trying the pipeline out.
    "tiny": Recipe(
        td=Config(games=1_000, parallel=64, threads=1, seed=1, checkpoint_every=500, eval_every=1_000, eval_games=100),
        generations=[DistillConfig(positions=600, epochs=3, chunk=200, seed=11, screen=True)],
        race=OneSidedConfig(positions=1_000, hidden="16", band=40, band_steps=20, passes=1, pass_steps=100,
                            chunk=200, threads=1),
        calibrate=CalibrateConfig(positions=40, games=4, chunk=20),
        eval_games=100,
        prune=PruneConfig(positions=300, rolls=2, epochs=2, hidden=8, batch=256),
    ),
}


def td_began(out: Path) -> dict | None:
    """The config the TD stage of the recipe run in ``out`` began with (from its checkpoint), or None before it has."""
    checkpoint = out / "td" / "checkpoint.pt"
    return torch.load(checkpoint, map_location="cpu", weights_only=True)["config"] if checkpoint.exists() else None


def with_nets(recipe: Recipe, nets: str, out: Path) -> Recipe:
    """``recipe`` with its TD stage on the nets ``nets`` (NAME=ENCODING,...: ``--nets``), every later stage
    building on them; refused where the TD stage in ``out`` already began on other nets."""
    td = replace(recipe.td, nets=nets)
    td.check()
    if (began_with := td_began(out)) is not None:
        began = began_with.get("nets", "")
        if net_encodings(began or default_nets(variant_named(td.variant))) != net_encodings(nets):
            raise GammonError(f"{out / 'td'} began on --nets {began or default_nets(variant_named(td.variant))!r}; "
                              f"--nets {nets!r} would not apply to it: give another --out, or those nets to go on")
    return replace(recipe, td=td)


def with_seed(recipe: Recipe, seed: int, out: Path) -> Recipe:
    """``recipe`` on other dice: its TD stage seeded ``seed`` and every later stage's seed moved as far (``--seed``;
    the recipe's own TD seed gives the recipe as written); refused where the TD stage in ``out`` began on another."""
    shift = seed - recipe.td.seed
    began = (td_began(out) or {}).get("seed", seed)
    if began != seed:
        raise GammonError(f"{out / 'td'} began with --seed {began}; --seed {seed} would not apply to it: give "
                          f"another --out, or --seed {began} to go on")

    def moved(config):
        return None if config is None else replace(config, seed=config.seed + shift)

    return replace(recipe, td=moved(recipe.td), generations=[moved(g) for g in recipe.generations],
                   race=moved(recipe.race), calibrate=moved(recipe.calibrate), prune=moved(recipe.prune))


def run_recipe(name: str | Recipe, out: Path, progress: bool = True, workers: int = 1,
               ray: str | None = None, nets: str = "", seed: int | None = None) -> Path:
    """Run (or resume) recipe ``name`` (one of :data:`RECIPES`, or a :class:`Recipe`) into ``out``; returns the
    final weights ``out / 'model.pt'``.

    ``workers`` and ``ray`` say where the generations' positions are labelled (:func:`generation`);
    ``nets``, where given, the nets of the TD stage (:func:`with_nets`), else the recipe's own; ``seed``, where
    given, the seeds (:func:`with_seed`), else the recipe's own.
    """
    if not isinstance(name, Recipe) and name not in RECIPES:
        raise GammonError(f"unknown recipe {name!r}; choose one of {', '.join(RECIPES)}")
    recipe = name if isinstance(name, Recipe) else RECIPES[name]
    nets = nets or recipe.td.nets  # a recipe's own nets are checked against a run begun on others too
    if nets:
        recipe = with_nets(recipe, nets, out)
    recipe = with_seed(recipe, recipe.td.seed if seed is None else seed, out)  # a run begun on other dice is refused
    out.mkdir(parents=True, exist_ok=True)
    log = out / "log.jsonl"
    done = {row["stage"] for row in read_log(log)}

    stages = [("td", recipe.td)] + [(f"gen{i}", g) for i, g in enumerate(recipe.generations, 1)]
    stages += [("race", recipe.race)] if recipe.race is not None else []
    stages += [("calibrate", recipe.calibrate)] if recipe.calibrate is not None else []
    weights = None
    for index, (stage, config) in enumerate(stages):
        folder = out / stage
        if isinstance(config, Config):
            weights = folder / "model.pt"
            if not weights.exists():
                resume = (folder / "checkpoint.pt").exists()
                # a resumed run plays to the recipe's number of games, so a longer recipe extends an earlier one
                weights = train(config, folder, resume=resume, progress=progress,
                                games_override=config.games if resume else None)
        elif isinstance(config, OneSidedConfig):
            weights = train_one_sided(weights, folder, config, progress=progress, workers=workers)
        elif isinstance(config, CalibrateConfig):
            weights = calibrate(weights, folder, replace(config, workers=workers), progress=progress)
        else:
            if config.screen and not (folder / "model.pt").exists():
                screen_for(teacher_weights(config, weights), folder, replace(recipe.prune, seed=config.seed), progress)
            weights = generation(weights, folder, config, progress=progress, workers=workers, ray=ray)
        if stage not in done:
            rows = read_log(folder / "log.jsonl")  # TD logs its running time, a generation each step's
            seconds = max((r.get("elapsed_s", 0) for r in rows), default=0) + sum(r.get("seconds", 0) for r in rows)
            result = evaluate_vs_baseline(load_weights(weights), recipe.eval_games)
            append_log(log, {"stage": stage, "stage_index": index, "seconds": seconds, "config": asdict(config),
                             "eval": result})
    final = weights.read_bytes()
    atomic_write(out / "model.pt", lambda f: f.write(final))
    write_curve(log, out / "curve.svg", x_key="stage_index", x_label="stage (0 = TD self-play, then each generation)")
    return out / "model.pt"
