"""``gammon analyze``'s view of the analysis a match file brings (eXtreme Gammon's, in a .xg file) beside ours:
a few words on each error, how often and by how much the two engines disagree, and the decisions where
their best choices differ, as text (those where either engine finds the action taken doubtful or worse) and
as a section of the HTML report (all of them).

The figures are :mod:`engine.review.file_analysis`'s; ``describe(judged, names)`` names a decision the way the
rest of the printout does ("game 2, move 11, Bob rolls 6-1").
"""

from __future__ import annotations

import html

from gammon.engine.review.file_analysis import agreement, compared, same_best
from gammon.engine.review.match_analysis import DOUBTFUL, Judged, MatchAnalysis


def verdict_words(j: Judged) -> str:
    """The file's verdict on ``j`` in a few words ("XG (4-ply): best 24/18 13/10, 12.0 mp"), "" when it has none."""
    verdict = j.decision.analysis
    if verdict is None:
        return ""
    return f"{verdict.engine} ({verdict.level}): best {verdict.best}, {1000 * verdict.loss:.1f} mp"


def differences(result: MatchAnalysis) -> list[Judged]:
    """The compared decisions whose best choices differ, in the match's order."""
    return [j for j in compared(result.judged) if not same_best(j)]


def _share(tally: dict) -> str:
    return f"{tally['same_best']} of {tally['decisions']}" if tally["decisions"] else "none"


def _figure(value) -> str:
    return "-" if value is None else str(value)


def agreement_text(result: MatchAnalysis, describe) -> str:
    """The comparison for the terminal: the tallies, then each decision where the best choices differ; ""
    when the file brought no analysis."""
    summary = agreement(result.judged)
    if summary is None:
        return ""
    engine = summary["engine"]
    lines = [f"{engine}'s analysis beside ours ({summary['decisions']} decisions judged by both, forced plays left "
             f"out; losses per unit of the cube, each engine on its own scale):",
             f"  same best choice        {_share(summary)} ({100 * summary['agreement']:.1f}%): checker plays "
             f"{_share(summary['checker'])}, cube {_share(summary['cube'])}",
             f"  loss difference (mp)    mean {summary['mean_loss_difference_mp']}, largest "
             f"{summary['largest_loss_difference_mp']}"]
    differ = differences(result)
    shown = [j for j in differ if max(j.loss, j.decision.analysis.loss) >= DOUBTFUL]
    lines.append(f"where {engine} and we differ ({len(differ)}; here the {len(shown)} where either engine finds the "
                 f"action taken cost {1000 * DOUBTFUL:.0f} mp or more, all in --json and --html):")
    for j in shown:
        lines.append(f"  {describe(j, result.log.players)}: played {j.played}; ours {j.best} ({1000 * j.loss:.1f} mp), "
                     f"{verdict_words(j)}")
    return "\n".join(lines)


def agreement_html(result: MatchAnalysis, describe) -> str:
    """The same as a section of the HTML report ("" when the file brought no analysis)."""
    summary = agreement(result.judged)
    if summary is None:
        return ""
    engine = html.escape(summary["engine"])
    tallies = "".join(
        f"<tr><td>{label}</td><td>{tally['decisions']}</td><td>{tally['same_best']}</td>"
        f"<td>{_figure(tally['mean_loss_difference_mp'])}</td><td>{_figure(tally['largest_loss_difference_mp'])}</td>"
        "</tr>"
        for label, tally in (("all", summary), ("checker plays", summary["checker"]), ("cube", summary["cube"])))
    rows = "".join(
        f"<tr><td>{html.escape(describe(j, result.log.players))}</td><td>{html.escape(j.played)}</td>"
        f"<td>{html.escape(j.best)}</td>"
        f"<td>{1000 * j.loss:.1f}</td><td>{html.escape(j.decision.analysis.best)}</td>"
        f"<td>{1000 * j.decision.analysis.loss:.1f}</td><td>{html.escape(j.decision.analysis.level)}</td></tr>"
        for j in differences(result))
    return (f"<h2>{engine}'s analysis beside ours</h2><p>Decisions both engines judged (forced plays left out); "
            f"losses in mp per unit of the cube, each engine on its own scale.</p>"
            f"<table><tr><th></th><th>decisions</th><th>same best</th><th>mean loss difference</th>"
            f"<th>largest</th></tr>{tallies}</table>"
            f"<h3>Where {engine} and we differ</h3>"
            f"<table><tr><th>decision</th><th>played</th><th>our best</th><th>our loss</th><th>{engine}'s best</th>"
            f"<th>{engine}'s loss</th><th>{engine}'s depth</th></tr>{rows}</table>")
