"""gammon study: the deck opens as an Anki package (its SQLite collection and media read back), one card per
error or blunder of the player, the CSV beside it, stable note guids, and one-line faults.

The matches are analysed at 0-ply, the fastest depth; the expected cards are the analysis' own count."""

import csv
import json
import sqlite3
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from gammon.app.cli import main
from gammon.app.study import chosen_player
from gammon.engine.errors import GammonError
from gammon.engine.records.match_files import load_match
from gammon.engine.review.match_analysis import analyse
from gammon.models.players import load_analyst

DATA = Path(__file__).parent / "data"
MATCH = DATA / "matches" / "gnubg-5pt.mat"  # Bob errs twice at 0-ply; Alice not at all
CUBE_MATCH = DATA / "sgf" / "beavers.sgf"  # alice: a wrong double and a wrong pass
FIELDS = ["Position", "Picture", "Question", "Answer"]


def expected_cards(path: Path, player: str) -> list:
    """The errors and blunders of ``player`` as the analysis judges them at 0-ply."""
    log = load_match(path)
    result = analyse(log, load_analyst("default"), 0)
    seat = log.players.index(player)
    stats = result.players[seat]
    judged = [j for j in result.judged if j.decision.player == seat and j.grade in ("error", "blunder")]
    assert len(judged) == stats.errors + stats.blunders > 0
    return judged


def study(tmp_path, path: Path, player: str, name: str, *more: str) -> Path:
    out = tmp_path / name
    assert main(["study", str(path), "--out", str(out), "--player", player, "--ply", "0", *more]) == 0
    return out


def notes(deck: Path) -> tuple[list[dict], dict[str, bytes]]:
    """The notes of an .apkg (guid, tags and fields by name) and its media files by name, read as Anki reads
    them: the zip's collection.anki2 in SQLite, and the ``media`` map from numbered members to names."""
    with zipfile.ZipFile(deck) as package, package.open("collection.anki2") as collection:
        database = deck.with_suffix(".anki2")
        database.write_bytes(collection.read())
        media = {name: package.read(number) for number, name in json.loads(package.read("media")).items()}
    with sqlite3.connect(database) as db:
        models = json.loads(db.execute("SELECT models FROM col").fetchone()[0])
        rows = db.execute("SELECT guid, mid, tags, flds FROM notes ORDER BY id").fetchall()
        cards = db.execute("SELECT count(*) FROM cards").fetchone()[0]
    assert cards == len(rows)  # one card per note
    found = []
    for guid, model, tags, fields in rows:
        names = [field["name"] for field in models[str(model)]["flds"]]
        found.append({"guid": guid, "tags": tags.split(), **dict(zip(names, fields.split("\x1f")))})
    return found, media


def test_the_deck_is_an_anki_package_with_one_note_per_error_and_its_pictures(tmp_path):
    pytest.importorskip("genanki")
    expected = expected_cards(MATCH, "Bob")
    found, media = notes(study(tmp_path, MATCH, "Bob", "deck.apkg"))
    assert len(found) == len(expected)
    for note, judged in zip(found, expected):
        dice = judged.decision.dice
        assert note["Question"] == f"Your play? (dice {dice[0]}-{dice[1]})"
        assert f"Best: <b>{judged.best}</b>" in note["Answer"] and f"Played: <b>{judged.played}</b>" in note["Answer"]
        assert f"{1000 * judged.loss:.0f} mp" in note["Answer"]
        assert note["Position"] == judged.decision.gnubgid
        assert {"gammon", judged.grade, "move"} == set(note["tags"])
        picture = note["Picture"].split('"')[1]  # <img src="NAME">
        assert media[picture].startswith(b'<svg xmlns="http://www.w3.org/2000/svg"')
        assert judged.decision.gnubgid.encode() in media[picture]  # the picture is of this position
    assert len(media) == len(found)


def test_running_again_keeps_the_note_guids_so_anki_updates_the_cards(tmp_path):
    pytest.importorskip("genanki")
    first, _ = notes(study(tmp_path, MATCH, "Bob", "first.apkg"))
    again, _ = notes(study(tmp_path, MATCH, "Bob", "again.apkg"))
    assert [note["guid"] for note in first] == [note["guid"] for note in again]
    assert len({note["guid"] for note in first}) == len(first)


def test_the_csv_holds_one_row_per_error_with_cube_actions_and_their_equities(tmp_path, monkeypatch):
    expected = expected_cards(CUBE_MATCH, "alice")
    monkeypatch.setitem(sys.modules, "genanki", None)  # the CSV needs no genanki
    with study(tmp_path, CUBE_MATCH, "alice", "deck.csv", "--csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(expected)
    for row, judged in zip(rows, expected):
        assert row["front"].startswith("Your cube action?")
        assert f"Best: <b>{judged.best}</b>" in row["back"] and "double, take" in row["back"]
        assert float(row["loss_mp"]) == round(1000 * judged.loss, 1)
        assert row["position"] == judged.decision.gnubgid


def test_a_missing_genanki_is_one_line_naming_the_extra_and_the_csv(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "genanki", None)  # import genanki now raises ImportError
    out = tmp_path / "deck.apkg"
    assert main(["study", str(MATCH), "--out", str(out), "--player", "Bob"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "pip install -e '.[study]'" in err and "--csv" in err
    assert not out.exists()


def test_whose_errors_one_name_in_every_file_or_a_fault_listing_the_names():
    logs = [SimpleNamespace(players=("Ann", "Bob")), SimpleNamespace(players=("Cy", "Ann"))]
    assert chosen_player(logs, None) == "Ann"
    assert chosen_player(logs, "Cy") == "Cy"
    with pytest.raises(GammonError, match="one of: Ann, Bob$"):
        chosen_player(logs[:1], None)  # one match: two names in every file
    with pytest.raises(GammonError, match="'Dee' plays in none of these files; their players: Ann, Bob, Cy"):
        chosen_player(logs, "Dee")


def test_a_match_without_the_players_errors_writes_no_deck(tmp_path, capsys):
    out = tmp_path / "deck.csv"
    assert main(["study", str(MATCH), "--out", str(out), "--player", "Alice", "--ply", "0", "--csv"]) == 0
    assert "Alice made no error or blunder" in capsys.readouterr().out
    assert not out.exists()
