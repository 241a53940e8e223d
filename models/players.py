"""Players by name, as users type them: a weights file, ``default``, ``fast``, ``pubeval``, ``random``, ``heuristic``,
``gnubg``."""

from __future__ import annotations

import threading
from functools import cache
from pathlib import Path

from gammon.engine.errors import GammonError
from gammon.engine.rules.board import VARIANTS as BOARD_VARIANTS
from gammon.engine.rules.variants import Variant, variant_named

MODELS = Path(__file__).resolve().parent
DEFAULT_MODEL = MODELS / "default.pt"
# the standard nets shipped, by name: ``fast`` is the narrow model the wide default replaced, less than half its
# evaluation's cost
SHIPPED = {"default": DEFAULT_MODEL, "fast": MODELS / "fast.pt"}
NAMES = (*SHIPPED, "pubeval", "random", "heuristic", "gnubg")


def shipped_model(variant: str | Variant = "standard", name: str = "default") -> Path | None:
    """The shipped net ``name`` (one of SHIPPED) of ``variant``: for ``default`` the variant's own,
    models/<variant>.pt, where it has one; else (on backgammon's own board) the standard net,
    models/<name>.pt; None when there is none."""
    variant = variant_named(variant)
    own = MODELS / f"{variant.name}.pt"
    if name == "default" and own.exists():
        return own
    return SHIPPED[name] if variant.name in BOARD_VARIANTS else None


def weights_path(spec: str, variant: str | Variant = "standard") -> Path | None:
    """The weights file a net player ``spec`` stands for: a shipped net by name (:func:`shipped_model`), else the
    file ``spec`` names."""
    return shipped_model(variant, spec) if spec in SHIPPED else Path(spec)


def load_player(spec: str, seed: int = 0, variant: str | Variant = "standard"):
    """An evaluator (see engine.search.evaluator) for ``spec`` playing ``variant``; GammonError names what is accepted.

    ``default`` is the variant's shipped network (:func:`shipped_model`); ``fast`` the narrower, quicker
    standard net (models/fast.pt, for backgammon's board); ``heuristic`` the
    variant's heuristic (models/heuristic.py); ``gnubg`` is GNU Backgammon's 0-ply net through
    PyPI gnubg-nn; anything else that names a file is loaded as weights. A net plays the
    variant it was trained for, or, trained on backgammon's board, any variant on that board.
    """
    variant = variant_named(variant)
    if spec == "pubeval":
        from gammon.models.pubeval import PubevalEvaluator

        if variant.name not in BOARD_VARIANTS:
            raise GammonError(f"pubeval plays on backgammon's board only, not {variant.name}")
        return PubevalEvaluator()
    if spec == "random":
        from gammon.models.baselines import RandomEvaluator

        return RandomEvaluator(seed)
    if spec == "heuristic":
        from gammon.models.baselines import HeuristicEvaluator

        return HeuristicEvaluator(variant)
    if spec == "gnubg":
        from gammon.models.gnubg import GnubgEvaluator

        if variant.name != "standard":
            raise GammonError(f"gnubg plays standard backgammon only, not {variant.name}")
        return GnubgEvaluator()
    path = weights_path(spec, variant)
    if path is None and spec == "fast":
        raise GammonError(f"fast is a net for backgammon's board, not {variant.name}")
    if path is None:
        raise GammonError(f"no shipped net for {variant.name}: train one with gammon train --variant {variant.name} "
                          f"--out DIR and pass --model DIR/model.pt")
    if not path.exists():
        raise GammonError(f"unknown player {spec!r}: give a weights file or one of {', '.join(NAMES)}")
    net = numpy_weights(path)
    on_one_board = {net.variant.name, variant.name} <= set(BOARD_VARIANTS)  # backgammon's: one net plays them all
    if net.variant is not variant and not on_one_board:
        raise GammonError(f"{path} is a net for {net.variant.name}, not {variant.name}: "
                          f"give --variant {net.variant.name} or a net trained for {variant.name}")
    net.variant = variant
    if path.suffix == ".pt":
        from gammon.models.inference import load_screen

        net.screen = load_screen(path, variant)
    return net


def numpy_weights(path: Path):
    """The numpy evaluator (models/inference.py) of a weights file: from its ``.npz`` companion while that
    matches the ``.pt`` (no torch to import), else read through torch and turned into numpy."""
    from gammon.models.inference import companion, load_numpy

    if path.suffix == ".npz":
        return load_numpy(path)[0]
    net = companion(path)
    if net is None:
        from gammon.models.network import load_weights, numpy_evaluator

        net = numpy_evaluator(load_weights(path))
    return net


def load_analyst(spec: str, seed: int = 0, variant: str | Variant = "standard", estimates: bool = True):
    """``load_player`` for analysis: a network (or gnubg) answers bear-offs from the exact databases.

    Analysis (eval, hint, cube, rollouts, reviews) needs the player's probability estimates:
    a player without them (pubeval, heuristic, random) is refused in one line, unless
    ``estimates`` is False (a bot to play against).

    The databases (engine/search/bearoff.py) are built on first use (a few seconds) and cached. They
    hold one side's bear-off alone, so they serve every variant whose bear-offs are races: in
    the same-direction games too the two home boards lie apart (``WithBearoff`` places the
    opponent's by the variant's geometry).
    """
    player = load_player(spec, seed, variant)
    if not hasattr(player, "probabilities"):
        if estimates:
            raise GammonError(f"{spec} has no probability estimates to analyse with: give a net (default, a "
                              f"weights file) or gnubg")
        return player
    from gammon.engine.search.bearoff import WithBearoff

    return WithBearoff(player)


_LOADING = threading.Lock()  # functools.cache does not lock: threads asking at once would each load a net


def shared_analyst(spec: str, variant: str = "standard"):
    """``load_analyst(spec, variant=variant)``, loaded once per process, whichever thread asks first: for servers,
    pool workers and runner threads, which answer many requests with one net (its evaluations are read-only,
    so sharing is safe)."""
    with _LOADING:
        return _loaded_analyst(spec, variant)


@cache
def _loaded_analyst(spec: str, variant: str):
    return load_analyst(spec, variant=variant)
