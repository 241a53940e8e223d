"""The analysis a match file brings (eXtreme Gammon's, in a .xg file) beside ours: decision by decision, and how
often and by how much the two engines disagree.

A decision is compared when the file's analysis judged it (:attr:`engine.review.replay.Decision.analysis`) and we
did too, forced plays (one legal play) left out: every other checker play, every cube decision (including the
clear no-doubles our error rate leaves out: the other engine may not find them clear) and every answer to a
double. The two agree when their best choice is the same: the same play (both in our notation, from the same
position) or the same cube action ("double", "no double", "take", "pass"). How much they differ is the loss of
the action taken, ours less theirs, in millipoints per unit of the cube: each engine on its own scale (both
money equity, or EMG in a match), so small differences are the engines' own noise.

The decisions here are :class:`engine.review.match_analysis.Judged` (this module reads their ``decision``,
``best``, ``loss`` and ``counted``; it imports nothing from that module, which uses it).
"""

from __future__ import annotations

from gammon.engine.records.matchlog import Verdict


def compared(judged: list) -> list:
    """The judged decisions the file's analysis judged too, forced plays left out."""
    return [j for j in judged if j.decision.analysis is not None and (j.counted or j.decision.kind != "move")]


def same_best(j) -> bool:
    """Whether the file's engine and ours name the same best choice for judged decision ``j``."""
    return j.best == j.decision.analysis.best


def loss_difference_mp(j) -> float:
    """Our loss for the action taken less the file's engine's, in millipoints."""
    return 1000 * (j.loss - j.decision.analysis.loss)


def verdict_report(j) -> dict:
    """The file's verdict on judged decision ``j`` as JSON: its engine, depth, best, loss and choices, and
    whether its best is ours."""
    verdict: Verdict = j.decision.analysis
    return {"engine": verdict.engine, "level": verdict.level, "best": verdict.best,
            "loss_mp": round(1000 * verdict.loss, 1), "same_best": same_best(j),
            "choices": [{"choice": choice, "equity": round(equity, 4)} for choice, equity in verdict.choices]}


def _tally(decisions: list) -> dict:
    same = sum(same_best(j) for j in decisions)
    gaps = [abs(loss_difference_mp(j)) for j in decisions]
    return {"decisions": len(decisions), "same_best": same, "different_best": len(decisions) - same,
            "agreement": round(same / len(decisions), 3) if decisions else None,
            "mean_loss_difference_mp": round(sum(gaps) / len(gaps), 1) if gaps else None,
            "largest_loss_difference_mp": round(max(gaps), 1) if gaps else None}


def agreement(judged: list) -> dict | None:
    """How often and by how much the file's engine and ours disagree, over all compared decisions and split into
    checker plays and cube decisions (doubles and answers); None when the file brought no analysis."""
    both = compared(judged)
    if not both:
        return None
    moves = [j for j in both if j.decision.kind == "move"]
    cube = [j for j in both if j.decision.kind != "move"]
    return {"engine": both[0].decision.analysis.engine, **_tally(both), "checker": _tally(moves),
            "cube": _tally(cube)}
