"""Players by name, as users type them: a weights file, ``pubeval``, ``random``, ``heuristic``, ``gnubg``."""

from __future__ import annotations

from pathlib import Path

from engine.errors import GammonError
from engine.variants import variant_named

DEFAULT_MODEL = Path(__file__).resolve().parent / "default.pt"
NAMES = ("default", "pubeval", "random", "heuristic", "gnubg")


def load_player(spec: str, seed: int = 0, variant: str = "standard"):
    """An evaluator (see engine.evaluator) for ``spec``; ValueError names what is accepted.

    ``default`` is the shipped network (models/default.pt); ``gnubg`` is GNU Backgammon's
    0-ply net through PyPI gnubg-nn; anything else that names a file is loaded as weights.
    Players that estimate results score finished games of ``variant`` (its checker count).
    """
    if spec == "pubeval":
        from .pubeval import PubevalEvaluator

        return PubevalEvaluator()
    if spec == "random":
        from .baselines import RandomEvaluator

        return RandomEvaluator(seed)
    if spec == "heuristic":
        from .baselines import HeuristicEvaluator

        return HeuristicEvaluator()
    if spec == "gnubg":
        from .gnubg import GnubgEvaluator

        if variant != "standard":
            raise GammonError(f"gnubg plays standard backgammon only, not {variant}")
        return GnubgEvaluator()
    from .network import load_weights

    path = DEFAULT_MODEL if spec == "default" else Path(spec)
    if spec != "default" and not path.exists():
        raise GammonError(f"unknown player {spec!r}: give a weights file or one of {', '.join(NAMES)}")
    net = load_weights(path)
    net.variant = variant_named(variant)
    return net


def load_analyst(spec: str, seed: int = 0, variant: str = "standard"):
    """``load_player`` for analysis: a network (or gnubg) answers bear-offs from the exact databases.

    The databases (engine/bearoff.py) are built on first use (a few seconds) and cached.
    """
    player = load_player(spec, seed, variant)
    if not hasattr(player, "probabilities"):
        return player
    from engine.bearoff import WithBearoff

    return WithBearoff(player)
