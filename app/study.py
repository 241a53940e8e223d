"""``gammon study``: a deck of flash cards, one per error or blunder of a player, from the analysis of his matches.

    gammon study matches/ --out deck.apkg [--player NAME] [--ply 0]   # an Anki package (pip install -e '.[study]')
    gammon study match.mat --out deck.csv --csv                        # a CSV for Anki's import, no genanki

The matches are read (:func:`app.review.readable_matches`) and analysed
(:func:`engine.review.match_analysis.analyse`) as ``gammon analyze`` does. A card's front is the position
as a picture (engine/records/svg.py, an SVG media file of the package) with the question; its back the best
play or cube action, the one played, the equities and the loss. Each note's guid comes from the position
and the kind of decision, so that importing a newer deck updates the cards already in Anki (their review
history kept) instead of adding them twice; one position asked twice (the same error in two matches) is one
card. The web board's Study tab shows the same cards from an uploaded match.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import html
import io
import itertools
import json
import sqlite3
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import NamedTuple

from tqdm import tqdm

from gammon.app.arguments import counted, rules_options
from gammon.app.review import choices_table, decision_words, match_files, readable_matches
from gammon.engine.errors import GammonError
from gammon.engine.files import atomic_text, atomic_write, check_output
from gammon.engine.records.svg import board_svg
from gammon.engine.review.match_analysis import MISTAKES, Judged, analyse
from gammon.options import MATCH_PLY, model_option, ply_option

# Anki knows a note type by its id: a fixed one makes a newer deck's notes update the older ones.
MODEL_ID = 1_734_081_934
FIELDS = ["Position", "Picture", "Question", "Answer"]  # the first is the one Anki's browser lists and sorts by
FRONT = '{{Picture}}<p class="question">{{Question}}</p>'
BACK = '{{FrontSide}}<hr id="answer">{{Answer}}<p class="position">{{Position}}</p>'
STYLE = """
.card { font-family: system-ui, sans-serif; text-align: center; color: #222; background: #fbf9f4; }
img { max-width: 100%; height: auto; }
.question { font-size: 1.3em; font-weight: 600; }
table { border-collapse: collapse; margin: 0.5em auto; }
td, th { padding: 0.2em 0.6em; border-bottom: 1px solid #ddd; text-align: right; }
td:first-child, th:first-child { text-align: left; }
.blunder { color: #b00020; } .error { color: #c25e00; }
.where, .position { color: #6b5f55; font-size: 0.85em; }
"""


class Card(NamedTuple):
    judged: Judged  # the decision and its verdict
    players: tuple[str, str]  # the match's, as its decisions number them
    source: str  # the file's name


def cmd_study(args) -> int:
    from gammon.models.players import load_analyst

    genanki = None if args.csv else anki_library()  # refused before the long part, as is a bad --out
    check_output(args.out, "--out")
    paths = [file for given in args.files for file in match_files(Path(given))]
    paths, logs, decisions, refused = readable_matches(paths, "study")
    if not paths:
        return 1
    player = chosen_player(logs, args.player)
    cards = mistakes(zip(paths, logs, decisions), player, load_analyst(args.model), args.ply)
    if not cards:
        print(f"{player} made no error or blunder at {args.ply}-ply: no cards, {args.out} not written")
    elif args.csv:
        atomic_text(args.out, csv_text(cards))
    else:
        write_package(genanki, args.out, player, cards)
    if cards:
        print(f"wrote {counted(len(cards), 'card')} of {player}'s errors and blunders to {args.out}")
    return 1 if refused else 0


def mistakes(matches, player: str, evaluator, plies: int) -> dict[str, Card]:
    """The cards of ``player``'s errors and blunders in ``matches`` (path, log, decisions), by :func:`card_key`:
    the first time a question comes, as it stays one card in Anki."""
    cards = {}
    for path, log, replayed in matches:
        if player not in log.players:
            continue
        seat = log.players.index(player)
        own = [d for d in replayed if d.player == seat]  # the opponent's decisions would be judged for nothing
        with tqdm(total=len(own), unit="decision", desc=path.name, disable=not sys.stderr.isatty(),
                  leave=False) as bar:
            result = analyse(log, evaluator, plies, progress=bar.update, decisions=own)
        for j in result.judged:
            if j.grade in MISTAKES:
                cards.setdefault(card_key(j), Card(j, log.players, path.name))
    return cards


def anki_library():
    try:
        import genanki
    except ImportError:
        raise GammonError("an Anki deck needs genanki: pip install -e '.[study]', or write a CSV with --csv") from None
    return genanki


def chosen_player(logs, asked: str | None) -> str:
    """``--player``, which must play in one of the files; without it the one name in every file (one's own
    matches), and where there is none (a single match has two) the fault lists the names to choose from."""
    names = sorted({name for log in logs for name in log.players})
    if asked is not None:
        if asked not in names:
            raise GammonError(f"--player {asked!r} plays in none of these files; their players: {', '.join(names)}")
        return asked
    everywhere = set.intersection(*(set(log.players) for log in logs))
    if len(everywhere) == 1:
        return everywhere.pop()
    raise GammonError(f"say whose errors with --player, one of: {', '.join(names)}")


def card_key(j: Judged) -> str:
    """What a card asks: the position (with its dice, cube and score) and the kind of decision."""
    return f"{j.decision.gnubgid} {j.decision.kind}"


def question(j: Judged) -> str:
    d = j.decision
    if d.kind == "move":
        return f"Your play? (dice {d.dice[0]}-{d.dice[1]})"
    return "Your cube action?" if d.kind == "cube" else "Your cube action? (doubled: take or pass)"


def picture(j: Judged, players: tuple[str, str]) -> str:
    """The position as the player on roll sees it (the doubler, when the question is a take), as an SVG."""
    d = j.decision
    on_roll = d.state.on_roll
    return board_svg(d.board, d.state, title=d.gnubgid, names=(players[on_roll], players[1 - on_roll]))


def answer(j: Judged, players: tuple[str, str], source: str) -> str:
    """The back of the card, in HTML: best and played, the loss, the equities of the choices, where it was."""
    verdict = f"{j.grade}: {1000 * j.loss:.0f} mp" + (f", {j.cube_error}" if j.cube_error else "")
    where = f"{source}: {decision_words(j, players)}"
    return (f"<p>Best: <b>{html.escape(j.best)}</b><br>Played: <b>{html.escape(j.played)}</b></p>"
            f'<p class="{j.grade}">{verdict}</p>{choices_table(j)}<p class="where">{html.escape(where)}</p>')


def picture_name(key: str) -> str:
    return f"gammon-{hashlib.sha256(key.encode()).hexdigest()[:16]}.svg"


def stable_id(text: str) -> int:
    """An id for Anki that is always the same for ``text``: 48 bits, exact in Anki's JavaScript too."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big")


def csv_text(cards: dict[str, Card]) -> str:
    """One row per card: the question (with its position ID alone in the last column, to set it up), the back
    in HTML as Anki's CSV import takes it, the loss in mp."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["front", "back", "loss_mp", "position"])
    for j, players, source in cards.values():
        writer.writerow([question(j), answer(j, players, source), round(1000 * j.loss, 1), j.decision.gnubgid])
    return out.getvalue()


def write_package(genanki, out, player: str, cards: dict[str, Card]) -> None:
    """The cards as an Anki package: genanki's collection (schema, note type, notes, cards) in SQLite, zipped
    with the pictures. The zip is made here, not by genanki's write_to_file, which (0.13) leaves its SQLite
    file behind in the temporary folder and wants each picture as a file on disk."""
    model = genanki.Model(MODEL_ID, "gammon study card", fields=[{"name": name} for name in FIELDS],
                          templates=[{"name": "Decision", "qfmt": FRONT, "afmt": BACK}], css=STYLE)
    name = f"gammon: {player}'s errors"
    deck = genanki.Deck(stable_id(name), name)  # the same deck again for the same player
    pictures = {}
    for key, (j, players, source) in cards.items():
        pictures[picture_name(key)] = picture(j, players)
        fields = {"Position": j.decision.gnubgid, "Picture": f'<img src="{picture_name(key)}">',
                  "Question": question(j), "Answer": answer(j, players, source)}
        deck.add_note(genanki.Note(model, [fields[field] for field in FIELDS], guid=genanki.guid_for(key),
                                   tags=["gammon", j.grade, j.decision.kind]))
    with tempfile.TemporaryDirectory(prefix="gammon-study-") as folder:
        collection = Path(folder) / "collection.anki2"
        now = time.time()  # a newer modification time is what makes Anki update a note it already has
        with contextlib.closing(sqlite3.connect(collection)) as db:
            genanki.Package(deck).write_to_db(db.cursor(), now, itertools.count(int(now * 1000)))
            db.commit()
        atomic_write(out, lambda f: zip_package(f, collection, pictures))


def zip_package(f, collection: Path, pictures: dict[str, str]) -> None:
    """Anki's .apkg layout: the collection, ``media`` mapping numbered members to file names, the media."""
    with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as package:
        package.write(collection, "collection.anki2")
        package.writestr("media", json.dumps({str(i): name for i, name in enumerate(pictures)}))
        for i, svg in enumerate(pictures.values()):
            package.writestr(str(i), svg)


def register(sub) -> None:
    parser = sub.add_parser("study", help="an Anki deck (or CSV) of a player's errors and blunders in his matches")
    parser.add_argument("files", nargs="+", metavar="MATCH", help="a .mat, .sgf or .xg file, or a folder of them")
    parser.add_argument("--out", required=True, help="the deck to write: an Anki package (.apkg), or with --csv a CSV")
    parser.add_argument("--player", help="whose errors (default: the one name in every file)")
    parser.add_argument("--csv", action="store_true", help="write a CSV for Anki's import instead (no genanki needed)")
    ply_option(parser, MATCH_PLY)
    rules_options(parser, money=False)  # --met, as gammon analyze takes it
    model_option(parser)
    parser.set_defaults(run=cmd_study)
