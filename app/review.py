"""``gammon analyze``: a whole match (or a folder of them) judged decision by decision, printed, as JSON and as HTML.

    gammon analyze match.mat --ply 1 --json out.json --html report.html
    gammon analyze matches/                     # a summary per file and per player

The analysis is :func:`engine.review.match_analysis.analyse`; this module reads the files,
shows the progress, prints the summary and writes the reports. The HTML report is one
file with everything inline (styles, the equity graph and the boards as SVG): it opens
from disk, with no server and no network.
"""

from __future__ import annotations

import html
import json
import sys
from functools import partial
from pathlib import Path

import numpy as np
from tqdm import tqdm

from gammon.app.arguments import counted, rules_options
from gammon.app.file_analysis import agreement_html, agreement_text, verdict_words
from gammon.app.rollouts import runner_for
from gammon.engine.cube.met import using_met
from gammon.engine.errors import GammonError
from gammon.engine.files import atomic_text, check_output
from gammon.engine.records.match_files import READ_SUFFIXES, load_match
from gammon.engine.records.svg import board_svg
from gammon.engine.review.advice import LEVELS
from gammon.engine.review.match_analysis import (
    BLUNDER,
    DOUBTFUL,
    ERROR,
    MISTAKES,
    CloseCube,
    ClosePlay,
    Judged,
    MatchAnalysis,
    RollingOut,
    analyse,
    roll_close,
)
from gammon.engine.review.replay import replay
from gammon.options import MATCH_PLY, model_option, ply_option, positive_float, worker_options

SUMMARY_ROWS = [  # (label, PlayerStats field)
    ("decisions (unforced)", "decisions"), ("error rate (mp/decision)", "error_rate_mp"), ("PR", "pr"),
    ("checker loss (mp)", "checker_loss_mp"), ("cube loss (mp)", "cube_loss_mp"), ("doubtful", "doubtful"),
    ("errors", "errors"), ("blunders", "blunders"), ("missed doubles", "missed_doubles"),
    ("wrong doubles", "wrong_doubles"), ("wrong takes", "wrong_takes"), ("wrong passes", "wrong_passes"),
    ("luck (mp, total)", "luck_mp"), ("luck (mp/roll)", "luck_per_roll_mp"),
]


def match_files(path: Path) -> list[Path]:
    """``path`` itself, or the .mat, .sgf and .xg files of a folder, sorted."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in READ_SUFFIXES)
        if not files:
            raise GammonError(f"{path}: no .mat, .sgf or .xg files in this folder")
        return files
    if not path.exists():
        raise GammonError(f"{path}: no such file")
    return [path]


def summary_table(result: MatchAnalysis) -> str:
    names = [p.name for p in result.players]
    width = max(12, *(len(n) for n in names))
    lines = [f"{'':<26}" + "".join(f"{n:>{width + 2}}" for n in names)]
    for label, key in SUMMARY_ROWS:
        lines.append(f"{label:<26}" + "".join(f"{getattr(p, key):>{width + 2}}" for p in result.players))
    return "\n".join(lines)


def decision_words(j: Judged, names) -> str:
    """Where and what a decision was, as a player reads the match: "game 2, move 11, Bob rolls 6-1"."""
    d = j.decision
    what = f"rolls {d.dice[0]}-{d.dice[1]}" if d.dice else {"cube": "cube decision", "take": "answer"}[d.kind]
    return f"game {d.game}, move {d.row}, {names[d.player]} {what}"


def sentence(text: str) -> str:
    """``text`` with its first letter capital (str.capitalize would lower a player's name)."""
    return text[:1].upper() + text[1:]


def mistakes_list(result: MatchAnalysis) -> str:
    """The errors and blunders, one line each: where, what was played, what was best, the loss."""
    names = result.log.players
    worst = [j for j in result.judged if j.grade in MISTAKES]
    lines = [f"errors and blunders ({len(worst)}; loss per unit of the cube"
             f"{', in EMG' if result.log.length else ''}):"]
    for j in worst:
        other = verdict_words(j)
        lines.append(f"  {decision_words(j, names)}: played {j.played}, best {j.best}, "
                     f"{1000 * j.loss:.1f} mp ({j.cube_error or j.grade}"
                     + (f", rolled out at {j.equity['rolled_out']})" if "rolled_out" in j.equity else ")")
                     + (f"; {other}" if other else ""))
    return "\n".join(lines)


def cmd_analyze(args) -> int:
    from gammon.models.players import shared_analyst

    files = match_files(Path(args.file))
    if len(files) > 1 and (args.json or args.html):
        raise GammonError("--json and --html take one match file; give a file, not a folder")
    for output, what in ((args.json, "--json"), (args.html, "--html")):
        if output:
            check_output(output, what)
    if args.doubtful is not None and not args.level:
        raise GammonError("--doubtful says which decisions --level rolls out; give --level too")
    if (args.workers or args.ray) and not args.level:
        raise GammonError("--workers and --ray roll out the close decisions of --level; give --level too")
    rolling_out = RollingOut(LEVELS[args.level], ERROR if args.doubtful is None else args.doubtful) \
        if args.level else None
    args.doubtful = rolling_out.margin if rolling_out else None
    files, logs, decisions, refused = readable_matches(files)  # all read and checked before the long part
    if not files:
        return 1
    runner = runner_for(args, partial(roll_close_by, args.model, args.met)) if rolling_out else None
    evaluator = shared_analyst(args.model)  # the one an in-process runner's tasks use too
    totals: dict[str, list[float]] = {}  # name -> [decisions, loss in mp, luck in mp, rolls]
    for path, log, replayed in zip(files, logs, decisions):
        with tqdm(total=len(replayed), unit="decision", desc=path.name,
                  disable=args.quiet or not sys.stderr.isatty(), leave=False) as bar:
            result = analyse(log, evaluator, args.ply, cube=not args.no_cube, progress=bar.update,
                             decisions=replayed, rolling_out=rolling_out,
                             runner=counting(runner, path.name, args.quiet) if rolling_out else None)
        level = (f", {counted(result.rolled_out_decisions, 'close decision')} (within {args.doubtful:g}) rolled out at "
                 f"{args.level}" if rolling_out else "")
        print(f"{path}: {'money session' if not log.length else f'{log.length}-point match'}, "
              f"{counted(len(log.games), 'game')}, {log.players[0]} {log.final_score[0]} - {log.players[1]} "
              f"{log.final_score[1]}; analysed at {args.ply}-ply{level}")
        print(summary_table(result) + "\n")
        print(mistakes_list(result) + "\n")
        beside = agreement_text(result, decision_words)
        if beside:
            print(beside + "\n")
        for stats in result.players:
            row = totals.setdefault(stats.name, [0, 0.0, 0.0, 0])
            row[0] += stats.decisions
            row[1] += stats.error_rate_mp * stats.decisions
            row[2] += stats.luck_mp
            row[3] += stats.rolls
        if args.json:
            atomic_text(args.json, json.dumps(result.as_dict(), indent=1))
            print(f"wrote {args.json}")
        if args.html:
            atomic_text(args.html, html_report(result, path.name))
            print(f"wrote {args.html}")
    if refused:
        print(f"{refused} file(s) refused (above); the others analysed", file=sys.stderr)
    if len(files) > 1:
        print(f"{len(files)} files; per player over all of them:")
        print(f"{'player':<24}{'decisions':>10}{'error rate (mp)':>17}{'PR':>7}{'luck (mp/roll)':>16}")
        for name, (decisions, loss, luck, rolls) in sorted(totals.items()):
            rate = loss / max(decisions, 1)
            print(f"{name:<24}{decisions:>10}{rate:>17.2f}{rate / 2:>7.2f}{luck / max(rolls, 1):>16.2f}")
    return 1 if refused else 0


def roll_close_by(model: str, met: str, close: ClosePlay | CloseCube) -> np.ndarray:
    """The task every runner runs for analyze --level: one close decision, by ``model`` under the table ``met``
    (a worker process has its own default table until told)."""
    from gammon.models.players import shared_analyst

    with using_met(met):
        return roll_close(shared_analyst(model), close)


def counting(runner, name: str, quiet: bool):
    """``runner`` with a progress bar of its own over the close decisions it rolls out."""

    def run(items):
        with tqdm(total=len(items), unit="decision", desc=f"{name}: rolling out", leave=False,
                  disable=quiet or not sys.stderr.isatty()) as bar:
            for item, values in runner(items):
                bar.update(1)
                yield item, values

    return run


def readable_matches(files: list[Path], command: str = "analyze") -> tuple[list[Path], list, list[list], int]:
    """``(files, logs, decisions, refused)``: each file read and replayed through the rules, with the decisions
    analyse() reports on (moves, and cube decisions made or not: replay's). One file that fails is the
    command's error (rc 2); in a folder each failure is reported in one line and the rest go on (rc 1)."""
    kept, logs, decisions = [], [], []
    for path in files:
        try:
            log = load_match(path)
            replayed = replay(log)
        except (GammonError, OSError) as exc:
            if len(files) == 1:
                raise
            print(f"gammon {command}: error: {exc}", file=sys.stderr)
            continue
        kept.append(path)
        logs.append(log)
        decisions.append(replayed)
    return kept, logs, decisions, len(files) - len(kept)


# -- the HTML report -------------------------------------------------------------------------


STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
td, th { padding: 0.25em 0.8em; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.blunder { color: #b00020; } .error { color: #c25e00; } .doubtful { color: #7a6a00; }
.decision { display: flex; gap: 1.5em; align-items: center; margin: 1.5em 0; }
.decision svg.board { width: 30em; height: auto; }
"""


def equity_graph(result: MatchAnalysis, width: int = 900, height: int = 260) -> str:
    """An SVG line of player 0's standing before each move (MWC in a match, cubeless equity in money play)."""
    points = result.graph
    match = bool(result.log.length)
    low, high = (0.0, 1.0) if match else (min(-1.0, *(v for _, v in points)), max(1.0, *(v for _, v in points)))
    pad = 30

    def xy(i: int, v: float) -> tuple[float, float]:
        x = pad + (width - 2 * pad) * i / max(len(points) - 1, 1)
        return x, height - pad - (height - 2 * pad) * (v - low) / (high - low)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
             f'height="{height}" role="img" aria-label="equity graph">',
             f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fafafa"/>']
    middle = xy(0, 0.5 if match else 0.0)[1]
    parts.append(f'<line x1="{pad}" y1="{middle:.1f}" x2="{width - pad}" y2="{middle:.1f}" stroke="#bbb"/>')
    for i in range(1, len(points)):  # a faint line where each game starts
        if points[i][0] != points[i - 1][0]:
            x = xy(i, low)[0]
            parts.append(f'<line x1="{x:.1f}" y1="{pad}" x2="{x:.1f}" y2="{height - pad}" stroke="#ddd"/>')
    line = " ".join("{:.1f},{:.1f}".format(*xy(i, v)) for i, (_, v) in enumerate(points))
    parts.append(f'<polyline fill="none" stroke="#1565c0" stroke-width="2" points="{line}"/>')
    label = f"{result.log.players[0]}'s {'match winning chance' if match else 'cubeless equity'}"
    parts.append(f'<text x="{pad}" y="18" font-size="13">{html.escape(label)}; a faint line starts each game</text>')
    for v in ((0.0, 0.5, 1.0) if match else (low, 0.0, high)):
        parts.append(f'<text x="2" y="{xy(0, v)[1] + 4:.1f}" font-size="10">{v:.2g}</text>')
    parts.append("</svg>")
    return "".join(parts)


def choices_table(j: Judged) -> str:
    """The equities of the choices: the best few plays (and the one played), or the three cube actions."""
    if j.alternatives:
        rows = [(move, equity) for move, equity in j.alternatives]
    else:
        names = {"no_double": "no double", "double_take": "double, take", "double_pass": "double, pass"}
        rows = [(names[key], j.equity[key]) for key in names]
    best = rows[0][1] if j.alternatives else None
    cells = "".join(f"<tr><td>{html.escape(name)}</td><td>{equity:+.3f}</td>"
                    + (f"<td>{equity - best:+.3f}</td>" if best is not None else "") + "</tr>"
                    for name, equity in rows)
    judge = f" (rolled out at {j.equity['rolled_out']})" if "rolled_out" in j.equity else ""
    head = f"<tr><th>play</th><th>equity{judge}</th><th>to best</th></tr>" if best is not None else \
        f"<tr><th>cube action</th><th>equity (doubler){judge}</th></tr>"
    return f'<table class="choices">{head}{cells}</table>'


def html_report(result: MatchAnalysis, title: str) -> str:
    log = result.log
    names = [html.escape(p.name) for p in result.players]
    rows = "".join(f"<tr><td>{label}</td>" + "".join(f"<td>{getattr(p, key)}</td>" for p in result.players)
                   + "</tr>" for label, key in SUMMARY_ROWS)
    worst = [j for j in result.judged if j.grade in MISTAKES]
    items = []
    for j in worst:
        d = j.decision
        board = board_svg(d.board, d.state, title=d.gnubgid,
                          names=(result.log.players[d.state.on_roll], result.log.players[1 - d.state.on_roll]))
        board = board.replace("<svg ", '<svg class="board" ', 1)
        items.append(
            f'<div class="decision">{board}<div>'
            f'<p><b>{html.escape(sentence(decision_words(j, log.players)))}</b></p>'
            f'<p>played <b>{html.escape(j.played)}</b><br>best <b>{html.escape(j.best)}</b></p>'
            f'<p class="{j.grade}">{j.grade}: {1000 * j.loss:.0f} mp{", " + j.cube_error if j.cube_error else ""}</p>'
            + (f"<p>{html.escape(verdict_words(j))}</p>" if j.decision.analysis else "") +
            f"{choices_table(j)}</div></div>")
    kind = "money session" if not log.length else f"{log.length}-point match"
    final = log.final_score
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><p>{kind}, {counted(len(log.games), 'game')}: {names[0]} {final[0]} - "
            f"{names[1]} {final[1]}. Analysed at {result.plies}-ply. Doubtful from {1000 * DOUBTFUL:.0f} mp, "
            f"error from {1000 * ERROR:.0f}, blunder from {1000 * BLUNDER:.0f} (per unit of the cube).</p>"
            f"<table><tr><th></th><th>{names[0]}</th><th>{names[1]}</th></tr>{rows}</table>"
            f"<h2>Over the match</h2>{equity_graph(result)}"
            f"<h2>Errors and blunders ({len(worst)})</h2>{''.join(items) or '<p>None.</p>'}"
            f"{agreement_html(result, decision_words)}"
            f"</body></html>")


def register(sub) -> None:
    parser = sub.add_parser("analyze", help="analyse a whole match or session (.mat, .sgf or .xg), or a folder of them")
    parser.add_argument("file", help="a .mat, .sgf or .xg file (XG's own analysis shown beside ours), or a folder")
    ply_option(parser, MATCH_PLY)
    rules_options(parser, money=False)  # the file says a money session's rules
    parser.add_argument("--no-cube", action="store_true", help="judge the checker plays only")
    parser.add_argument("--level", choices=tuple(LEVELS),
                        help="judge the close decisions again by this rollout level (gammon hint --help lists "
                             "them): the level's best plays by the search and the played one, or no double and "
                             "double/take, rolled out")
    parser.add_argument("--doubtful", type=positive_float, default=None, metavar="MARGIN",
                        help=f"with --level: a play is close when the played move and the best lie within MARGIN "
                             f"of each other, or the best was played and the next lies within it; a cube decision "
                             f"when doubling and not doubling do, an answer when taking and passing do "
                             f"(default {ERROR})")
    worker_options(parser, "rolling out --level's close decisions")
    parser.add_argument("--json", help="write the analysis as JSON to this file")
    parser.add_argument("--html", help="write a report to look at (one HTML file, opens from disk)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    model_option(parser)
    parser.set_defaults(run=cmd_analyze)
