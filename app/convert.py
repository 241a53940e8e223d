"""``gammon convert IN OUT``: a match file from one format to another, so that (for one) an eXtreme Gammon library
opens in GNU Backgammon.

    gammon convert match.xg match.sgf      # .xg, .mat or .sgf in; .mat or .sgf out

The file is read (:func:`engine.records.match_files.load_match`) and replayed through the rules
(:func:`engine.review.replay.replay`) before anything is written, so an illegal move, a wrong score or a result
the play does not give is refused in one line naming the file, the game and the line or record, as ``gammon
analyze`` refuses it; then the same :class:`MatchLog` is written (every move, cube action, score and result).
What the target format cannot hold is refused by its writer in one line (docs/mat-format.md,
docs/sgf-format.md); XG's own analysis is not written (neither format has a place for it).
"""

from __future__ import annotations

from gammon.app.arguments import counted
from gammon.engine.files import check_distinct
from gammon.engine.records.match_files import READ_SUFFIXES, check_match_path, load_match, match_suffix, save_match
from gammon.engine.review.replay import replay


def cmd_convert(args) -> int:
    match_suffix(args.input, READ_SUFFIXES)
    check_match_path(args.output)
    check_distinct(args.input, args.output, "the output")
    log = load_match(args.input)
    replay(log)
    save_match(log, args.output)
    kinds = [a.kind for game in log.games for a in game.actions]
    cube = sum(kind in ("double", "take", "drop", "beaver") for kind in kinds)
    print(f"wrote {args.output}: {counted(len(log.games), 'game')}, {counted(kinds.count('move'), 'move')}, "
          f"{counted(cube, 'cube action')}; {log.players[0]} {log.final_score[0]} - {log.players[1]} "
          f"{log.final_score[1]}")
    return 0


def register(sub) -> None:
    parser = sub.add_parser("convert", help="convert a match file: .xg, .mat or .sgf to .mat or .sgf")
    parser.add_argument("input", help="the match to read: .xg (eXtreme Gammon), .mat or .sgf")
    parser.add_argument("output", help="the file to write: .mat or .sgf (by its suffix)")
    parser.set_defaults(run=cmd_convert)
