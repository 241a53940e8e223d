"""Our bot against GNU Backgammon itself, through gnubg's external-player protocol.

    python -m gammon.benchmarks.vs_gnubg --games 100 --length 5 --matches 2 [--model default] [--ply 0] [--json]

Starts ``gammon serve`` in-process on a free loopback port, then runs the Debian
``gnubg`` in tty mode with commands on standard input: gnubg (0-ply, player 0) plays
``--games`` cubeless money games against us (player 1), one ``new session`` each, then
``--matches`` matches to ``--length`` points with the cube. Points per game come with a
95% confidence interval (gnubg's dice, no duplicate play).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np

from gammon.app.external import Bot, ExternalPlayerServer
from gammon.engine.play.stats import mean_ci95
from gammon.models.players import load_analyst

GNUBG = Path("/usr/games/gnubg")
RESULT = re.compile(r"(gnubg|bot) wins an? (single game|gammon|backgammon) and (\d+) points?")
MATCH = re.compile(r"(gnubg|bot) has won the match")


def gnubg_commands(port: int, games: int, length: int, matches: int, seed: int) -> str:
    setup = [
        "set rng mersenne", f"set seed {seed}", "set display off", "set jacoby off", "set beavers 0",
        "set player 0 gnubg", "set player 0 chequerplay evaluation plies 0",
        "set player 0 cubedecision evaluation plies 0",
        "set defaultnames gnubg bot", f"set player 1 external 127.0.0.1:{port}", "set player 1 name bot",
        "set automatic game off", "set cube use off",
    ]
    money = ["new session"] * games
    match = ["set cube use on", "set automatic game on"] + [f"new match {length}"] * matches if matches else []
    return "\n".join(setup + money + match + ["quit"]) + "\n"


def play(model: str, plies: int, games: int, length: int, matches: int, seed: int) -> dict:
    if not GNUBG.exists():
        raise SystemExit("the Debian gnubg package is not installed (apt-get install gnubg)")
    server = ExternalPlayerServer(("127.0.0.1", 0), Bot(load_analyst(model), plies=plies))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        out = subprocess.run([str(GNUBG), "-t", "-q", "-r"],
                             input=gnubg_commands(server.server_address[1], games, length, matches, seed),
                             capture_output=True, text=True, timeout=3 * 3600).stdout
    finally:
        server.shutdown()
        server.server_close()
    results = RESULT.findall(out)
    money = np.array([int(p) * (1 if who == "bot" else -1) for who, _, p in results[:games]], dtype=float)
    winners = MATCH.findall(out)
    return {
        "model": model, "plies": plies, "seed": seed,
        "money_games": len(money), "ppg": float(money.mean()) if len(money) else None,
        "ci95": list(mean_ci95(money)[1]) if len(money) > 1 else None,
        "win_rate": float((money > 0).mean()) if len(money) else None,
        "match_length": length, "matches": len(winners), "matches_won": sum(w == "bot" for w in winners),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100, help="cubeless money games (default 100)")
    parser.add_argument("--length", type=int, default=5, help="match length (default 5)")
    parser.add_argument("--matches", type=int, default=1, help="matches with the cube (default 1)")
    parser.add_argument("--model", default="default")
    parser.add_argument("--ply", type=int, default=0, help="our move search depth (default 0)")
    parser.add_argument("--seed", type=int, default=1, help="gnubg's dice seed (default 1)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = play(args.model, args.ply, args.games, args.length, args.matches, args.seed)
    if args.json:
        print(json.dumps(report))
        return 0
    low, high = report["ci95"] or (float("nan"), float("nan"))
    print(f"{args.model} ({args.ply}-ply) vs gnubg 0-ply: {report['money_games']} cubeless money games: "
          f"{report['ppg']:+.3f} ppg (95% CI {low:+.3f} .. {high:+.3f}), wins {report['win_rate']:.1%}")
    print(f"matches to {args.length} with the cube: won {report['matches_won']} of {report['matches']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
