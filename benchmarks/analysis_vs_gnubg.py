"""Our match analysis beside GNU Backgammon's, on the same matches.

    python -m gammon.benchmarks.analysis_vs_gnubg --matches 24 --length 5 --out runs/analysis [--ply 0] [--json]

The Debian ``gnubg`` plays ``--matches`` matches against itself at 0-ply, each player with
its own amount of chequer-play noise (so that the players' error rates spread), analyses
each match at 0-ply (``analyse match``) and prints its statistics; each match is saved as
.sgf and exported as .mat in ``--out``. We then read each file (``--format``) with our reader, analyse it
(:func:`engine.review.match_analysis.analyse`, our net at ``--ply``) and put the two error rates
per player side by side: gnubg's overall and chequer-play "Error rate mEMG" against our
``error_rate_mp`` and our checker-play loss per unforced move, with the Pearson
correlation over all players of all matches.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import time
from pathlib import Path

import numpy as np

from gammon.engine.records.match_files import load_match
from gammon.engine.review.match_analysis import analyse
from gammon.models.players import load_analyst

GNUBG = Path("/usr/games/gnubg")
NOISE = (0.0, 0.02, 0.04, 0.08, 0.12)  # gnubg's chequer-play noise, drawn per player and match
RATE = re.compile(r"Error rate mEMG \(MWC\)\s+(-?[\d.]+)\s+\(\s*-?[\d.]+%\)\s+(-?[\d.]+)")


def gnubg_commands(matches: int, length: int, seed: int, out: Path) -> str:
    lines = ["set rng mersenne", f"set seed {seed}", "set display off", "set automatic game on",
             "set analysis chequerplay evaluation plies 0", "set analysis cubedecision evaluation plies 0",
             "set player 0 gnubg", "set player 1 gnubg", "set defaultnames alice bob"]
    for player in (0, 1):
        lines += [f"set player {player} chequerplay evaluation plies 0",
                  f"set player {player} cubedecision evaluation plies 0",
                  f"set player {player} chequerplay evaluation deterministic off"]
    noise = np.random.default_rng(seed).choice(NOISE, size=(matches, 2))  # each player's, drawn per match
    for m in range(matches):
        for player in (0, 1):
            lines.append(f"set player {player} chequerplay evaluation noise {noise[m, player]}")
        lines += [f"new match {length}", "analyse match", "show statistics match",
                  f"save match {out / f'm{m:03d}.sgf'}", f"export match mat {out / f'm{m:03d}.mat'}"]
    return "\n".join(lines + ["quit"]) + "\n"


def gnubg_statistics(text: str) -> list[dict]:
    """Per match: gnubg's chequer-play, cube and overall error rates (mEMG) of both players."""
    matches = []
    for block in text.split("Chequerplay statistics")[1:]:
        rates = RATE.findall(block)  # chequer play, cube, overall
        if len(rates) < 3:
            continue
        matches.append({"checker": [float(rates[0][0]), float(rates[0][1])],
                        "overall": [float(rates[2][0]), float(rates[2][1])]})
    return matches


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=24)
    parser.add_argument("--length", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ply", type=int, default=0)
    parser.add_argument("--model", default="default")
    parser.add_argument("--out", type=Path, default=Path("runs/analysis"))
    parser.add_argument("--format", choices=("sgf", "mat"), default="sgf", help="which of gnubg's files we read")
    parser.add_argument("--reuse", action="store_true",
                        help="analyse the matches already in --out again (another model or ply) instead of new ones")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not GNUBG.exists():
        raise SystemExit("the Debian gnubg package is not installed (apt-get install gnubg)")
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if args.reuse:
        text = (args.out / "gnubg.out").read_text()
    else:
        text = subprocess.run([str(GNUBG), "-t", "-q", "-r"],
                              input=gnubg_commands(args.matches, args.length, args.seed, args.out.resolve()),
                              capture_output=True, text=True, timeout=3 * 3600).stdout
        (args.out / "gnubg.out").write_text(text)
    theirs = gnubg_statistics(text)
    gnubg_seconds = time.perf_counter() - started
    net = load_analyst(args.model)
    rows, ours_seconds = [], 0.0
    for m, stats in enumerate(theirs):
        log = load_match(args.out / f"m{m:03d}.{args.format}")
        started = time.perf_counter()
        result = analyse(log, net, args.ply)
        ours_seconds += time.perf_counter() - started
        for p, mine in enumerate(result.players):
            checker = mine.checker_loss_mp / max(mine.moves, 1)
            rows.append({"match": m, "player": mine.name, "gnubg_overall": -stats["overall"][p],
                         "gnubg_checker": -stats["checker"][p], "ours_overall": mine.error_rate_mp,
                         "ours_checker": round(checker, 2), "decisions": mine.decisions})
    overall = np.corrcoef([r["gnubg_overall"] for r in rows], [r["ours_overall"] for r in rows])[0, 1]
    checker = np.corrcoef([r["gnubg_checker"] for r in rows], [r["ours_checker"] for r in rows])[0, 1]
    report = {"matches": len(theirs), "length": args.length, "ply": args.ply, "model": args.model,
              "correlation_overall": round(float(overall), 3), "correlation_checker": round(float(checker), 3),
              "gnubg_play_and_analysis_s": round(gnubg_seconds, 1), "our_analysis_s": round(ours_seconds, 1),
              "rows": rows}
    (args.out / "comparison.json").write_text(json.dumps(report, indent=1))
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{len(theirs)} matches to {args.length}, gnubg 0-ply analysis against ours at {args.ply}-ply")
    print(f"{'match':>5} {'player':<8}{'gnubg overall':>14}{'ours overall':>13}{'gnubg checker':>14}"
          f"{'ours checker':>13}")
    for r in rows:
        print(f"{r['match']:>5} {r['player']:<8}{r['gnubg_overall']:>14.1f}{r['ours_overall']:>13.1f}"
              f"{r['gnubg_checker']:>14.1f}{r['ours_checker']:>13.1f}")
    print(f"correlation: overall {overall:.3f}, checker play {checker:.3f}; our analysis took {ours_seconds:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
