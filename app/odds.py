"""``gammon odds``: the shot and entering tables, counted with our move generator (:mod:`engine.rules.odds`)."""

from __future__ import annotations

import json

from gammon.engine.rules.odds import OddsError, check_blocked, entering_table, hit_chances


def parse_blocked(text: str) -> list[int]:
    """``"3,5"`` -> [3, 5]; an OddsError (one line) for anything but whole numbers 1..24."""
    try:
        distances = [int(part) for part in text.split(",")]
    except ValueError:
        raise OddsError(f"--blocked takes distances in pips 1..24 separated by commas, like 3,5; "
                        f"got {text!r}") from None
    return check_blocked(distances)


def _cell(entry: dict) -> str:
    return f"{entry['rolls']:>2}/36 {entry['probability']:6.1%}"


def print_hits(rows: list[dict], blocked: list[int], show_rolls: bool) -> None:
    where = f"; points made at {', '.join(map(str, blocked))} pips" if blocked else ""
    print(f"To hit (or reach) a blot d pips away{where}:")
    print("   d  rolls  percent" + ("  rolls that hit" if show_rolls else ""))
    for row in rows:
        if row["rolls"] is None:
            print(f"  {row['distance']:>2}  (a made point, not a blot)")
            continue
        dice = f"  {' '.join(row['dice'])}" if show_rolls else ""
        print(f"  {row['distance']:>2}  {_cell(row)}{dice}".rstrip())  # no trailing blanks where nothing hits


def print_entering(rows: list[dict]) -> None:
    print("To enter from the bar against k open points:")
    print("   k  one checker     two checkers: both  at least one")
    for row in rows:
        print(f"   {row['open_points']}  {_cell(row['one'])}    {_cell(row['two_both'])}"
              f"     {_cell(row['two_at_least_one'])}")


def cmd_odds(args) -> int:
    blocked = parse_blocked(args.blocked) if args.blocked else []
    hits, entering = hit_chances(blocked=blocked), entering_table()
    if args.json:
        print(json.dumps({"blocked": blocked, "hit": hits, "enter": entering}))
        return 0
    print_hits(hits, blocked, args.rolls)
    print()
    print_entering(entering)
    return 0


def register(sub) -> None:
    """Add ``odds`` to the ``gammon`` parser's ``sub``."""
    odds = sub.add_parser("odds", help="rolls out of 36 that hit a blot 1..24 pips away, and that enter from the bar")
    odds.add_argument("--blocked", metavar="D,D,...",
                      help="opposing points made at these distances (pips from the checker), e.g. 3,5")
    odds.add_argument("--rolls", action="store_true", help="list the rolls that hit each distance")
    odds.add_argument("--json", action="store_true", help="print the odds as one JSON object")
    odds.set_defaults(run=cmd_odds)
