"""eXtreme Gammon's .xg matches and .xgp positions: read move for move with XG's analysis, replayed, analysed beside
ours, converted for GNU Backgammon; damaged, cut and oversized files refused in one line.

No file XG itself wrote may live in this repository, so the files here are written byte by byte
(tests/xg_builder.py) from our reading of the layout XG's authors published. Our reader is checked two ways:

* on those files, that it reads back every move, cube action, score and result we wrote (these tests need
  nothing installed);
* against an independent reader, the oracle: the XG structures of ``ankigammon`` (MIT; its bundled copy of
  Michael Petch's xgdatatools, written from the same published layout and used on real XG files), imported
  without its GUI. For every record of our files, every field we read must equal what it reads, which checks
  our offsets, and the builder's, against a third reading. The tests that need it are skipped when it is
  missing (``pip install --no-deps ankigammon``: its own dependencies are the GUI's, not the reader's).
"""

import json
import re
import struct
import subprocess
import zlib
from pathlib import Path

import numpy as np
import pytest
from test_sgf import GNUBG, random_game, random_match, random_session, without_lines  # tests/ is on sys.path
from xg_builder import (
    container,
    cube_record,
    game_footer,
    game_header,
    log_records,
    match_header,
    move_record,
    play_steps,
    xg_file,
    xgp_file,
)

from gammon.app.cli import main
from gammon.engine.records import xg
from gammon.engine.records.match_files import load_match
from gammon.engine.records.matchlog import Action, MatchFileError, MatchLog
from gammon.engine.records.sgf import load_sgf
from gammon.engine.records.xg import load_xgp, read_xg, read_xgp, records
from gammon.engine.review.match_analysis import analyse
from gammon.engine.review.replay import replay
from gammon.engine.rules.board import flip, starting_board
from gammon.engine.rules.notation import find_play, legal_plays


def played(log: MatchLog) -> list[list[tuple]]:
    """What a match file must keep of each game: every action but declined resignations (XG has none), moves
    spelt with bar and off (a .mat file keeps gnubg's 25 and 0)."""
    games = []
    for game in log.games:
        actions = game.actions
        declined = {i for i, a in enumerate(actions) if a.kind == "reject"} | {
            i - 1 for i, a in enumerate(actions) if a.kind == "reject"}
        games.append([(a.player, a.kind, a.dice, re.sub(r"/0\b", "/off", re.sub(r"\b25/", "bar/", a.move)), a.value)
                      for i, a in enumerate(actions) if i not in declined])
    return games


def written(tmp_path, data: bytes, name: str = "m.xg") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def dropped_session(seed=9) -> MatchLog:
    """A money session: a double passed; a beaver the doubler pays rather than play on; one resigned as a gammon."""
    rng = np.random.default_rng(seed)
    log = MatchLog(("carla", "dmitri"), 0, beavers=True)
    for number, answer in ((1, ["drop"]), (2, ["beaver", "drop"])):
        game = random_game(rng, number, log.final_score, stop_at=6)
        doubler = 1 - game.actions[-1].player
        game.actions.append(Action(doubler, "double", value=2))
        game.actions.append(Action(1 - doubler, answer[0], value=4 if answer[0] == "beaver" else 0))
        if len(answer) > 1:
            game.actions.append(Action(doubler, "drop"))
        game.winner, game.points = (doubler, 1) if len(answer) == 1 else (1 - doubler, 2)
        log.games.append(game)
    game = random_game(rng, 3, log.final_score, stop_at=8)
    loser = 1 - game.actions[-1].player
    game.actions += [Action(loser, "resign", value=2), Action(1 - loser, "accept")]
    game.winner, game.points = 1 - loser, 2
    log.games.append(game)
    return log


# ---------------------------------------------------------------- reading matches byte by byte


@pytest.mark.parametrize("make", [random_match, random_session, dropped_session],
                         ids=["match", "money with a beaver", "drops and a resignation"])
def test_every_move_cube_action_score_and_result_is_read_back(make):
    ours = make()
    back = read_xg(xg_file(log_records(ours)), "m.xg")
    assert played(back) == played(ours)
    assert [(g.number, g.score, g.winner, g.points, g.crawford) for g in back.games] == [
        (g.number, g.score, g.winner, g.points, g.crawford) for g in ours.games]
    assert (back.players, back.length, back.event, back.place, back.jacoby, back.beavers) == (
        ours.players, ours.length, ours.event, ours.place, ours.jacoby, ours.beavers)
    assert back.file == "m.xg" and back.unit == "record"
    assert len(replay(back)) >= sum(a.kind == "move" for g in ours.games for a in g.actions)


def test_the_rules_names_and_date_come_from_the_match_header():
    game = [game_header(1), cube_record(0, starting_board(), -2), game_footer(1, 1, 101)]
    header = match_header(("Zoë", "Émile"), length=0, jacoby=True, beaver=True, days=45000.5, event="Open",
                          location="Oslo", round_="Final", ansi_names=("Zoe", "Emile"))
    log = read_xg(xg_file([header, *game]))
    assert (log.players, log.length, log.jacoby, log.beavers) == (("Zoë", "Émile"), 0, True, True)
    assert (log.date, log.event, log.place, log.comment) == ("2023-03-15", "Open", "Oslo", '[Round "Final"]')
    assert log.games[0].actions == [Action(0, "resign", value=1, line=4), Action(1, "accept", line=4)]
    old = read_xg(xg_file([match_header(("Zoë", "Émile"), 7, crawford=False, version=8, ansi_names=("Zoe", "Emile")),
                           *game]))
    assert (old.players, old.length, old.crawford) == (("Zoe", "Emile"), 7, False)  # before version 24: ANSI only
    nack = read_xg(xg_file([match_header(variation=1), game_header(1, start=starting_board("nackgammon"))]))
    assert nack.variant == "nackgammon" and nack.games[0].winner is None  # a game in progress
    with pytest.raises(MatchFileError, match=r"^l.xg, record 1: variation 3 \(XG's 3 is longgammon\)"):
        read_xg(xg_file([match_header(variation=3), *game]), "l.xg")


def test_a_game_with_automatic_doubles_starts_with_the_cube_raised():
    ours = random_match()
    records_ = log_records(ours)
    records_[1] = game_header(1, auto_doubles=1)  # game 1: the cube starts at 2, its double offers 4
    back = read_xg(xg_file(records_))
    assert back.games[0].cube == 2 and [a.value for a in back.games[0].actions if a.kind == "double"] == [4]


# ---------------------------------------------------------------- XG's analysis


def planted_analysis(log: MatchLog, ours=None, plant: int = -1):
    """XG's analysis for ``log``'s moves: four candidates (the played play among them), the first XG's best.
    With ``ours`` (our analysis of the log), XG's best is our best, except for the ``plant``-th unforced move,
    where it is another play."""
    def key(board, dice):
        return tuple(int(x) for x in board), tuple(int(d) for d in dice)

    best = {key(j.decision.board, j.decision.dice): j.best for j in ours.judged if j.decision.kind == "move"} \
        if ours is not None else {}
    seen = []

    def analyse_move(board, dice, plays, played_):
        first = best.get(key(board, dice))
        order = sorted(plays, key=lambda p: p.notation != first)
        if len(plays) > 1:
            seen.append(1)
            if len(seen) == plant:
                order = [p for p in plays if p.notation not in (first, played_.notation)][:1] + order
        chosen = order[:3]
        chosen += [] if played_.notation in [p.notation for p in chosen] else [played_]
        names = [p.notation for p in chosen]
        candidates = [(play_steps(p), p.board, 0.2 - 0.05 * i) for i, p in enumerate(chosen)]
        return candidates, 0.05 * names.index(played_.notation), 3

    return analyse_move


def test_xgs_analysis_is_kept_on_each_action_and_reaches_each_decision():
    log = random_match()

    def analyse_cube(player, board, double):
        if double < 0:
            return {}
        return {"equities": (0.25, 0.5, 1.0), "cube_error": -0.2 if double == 0 else 0.0,
                "take_error": 0.0 if double == 1 else xg.NOT_ANALYSED, "level": 1002}

    back = read_xg(xg_file(log_records(log, planted_analysis(log), analyse_cube)))
    moves = [a for a in back.games[0].actions if a.kind == "move"]
    assert set(moves[0].analysis) == {"move"}  # the opening roll: no cube decision
    assert all(set(a.analysis) == {"move", "cube"} for a in moves[1:5])  # no double, then the roll
    assert set(moves[5].analysis) == {"move"}  # the doubler's roll: the cube decision went with the double
    verdict = moves[3].analysis["move"]
    assert (verdict.engine, verdict.level, verdict.best) == ("XG", "4-ply", verdict.choices[0][0])
    assert verdict.choices[0][1] == pytest.approx(0.2)
    no_double = moves[3].analysis["cube"]
    assert (no_double.best, no_double.loss, no_double.level) == ("double", 0.2, "XG Roller++")
    assert no_double.choices == [("no double", 0.25), ("double, take", 0.5), ("double, pass", 1.0)]
    double = next(a for g in back.games for a in g.actions if a.kind == "double")
    answer = next(a for g in back.games for a in g.actions if a.kind == "take")
    assert double.analysis["cube"].best == "double" and answer.analysis["take"].best == "take"
    decisions = replay(back)
    assert {d.kind for d in decisions if d.analysis is not None} == {"move", "cube", "take"}
    assert [d.analysis for d in decisions if d.kind == "move"] == [a.analysis["move"] for a in
                                                                   (a for g in back.games for a in g.actions)
                                                                   if a.kind == "move"]


def test_xgs_verdicts_stand_beside_ours_in_the_terminal_json_and_html(tmp_path, capsys):
    from gammon.models.players import load_analyst

    log = random_match(seed=4, length=3)
    ours = analyse(log, load_analyst("default"), plies=0, cube=False)
    path = written(tmp_path, xg_file(log_records(log, planted_analysis(log, ours, plant=4))))
    out, page = tmp_path / "a.json", tmp_path / "a.html"
    assert main(["analyze", str(path), "--ply", "0", "--no-cube", "--json", str(out), "--html", str(page),
                 "--quiet"]) == 0
    report = json.loads(out.read_text())
    summary = report["file_analysis"]
    unforced = [d for d in report["decisions"] if d["kind"] == "move" and d["counted"]]
    assert (summary["engine"], summary["decisions"], summary["different_best"]) == ("XG", len(unforced), 1)
    assert summary["checker"]["same_best"] == len(unforced) - 1 and summary["cube"]["decisions"] == 0
    differ = [d for d in unforced if not d["file_analysis"]["same_best"]]
    assert len(differ) == 1 and differ[0]["file_analysis"]["best"] != differ[0]["best"]
    assert all(d["file_analysis"]["best"] == d["best"] for d in unforced if d is not differ[0])
    printed = capsys.readouterr().out
    assert f"XG's analysis beside ours ({len(unforced)} decisions" in printed
    assert "where XG and we differ (1;" in printed
    assert f"XG (4-ply): best {differ[0]['file_analysis']['best']}" in printed
    assert "XG's analysis beside ours" in page.read_text()


def test_a_file_without_analysis_has_none_to_compare():
    from gammon.models.players import load_analyst

    result = analyse(random_match(length=3), load_analyst("default"), plies=0, cube=False)
    report = result.as_dict()
    assert report["file_analysis"] is None and all(d["file_analysis"] is None for d in report["decisions"])


# ---------------------------------------------------------------- .xgp positions


def test_an_xgp_position_gives_its_board_cube_score_and_dice():
    board = starting_board().copy()
    board[13], board[25], board[19], board[0] = 4, 1, -4, 1  # a checker of each side on the bar
    board, state, variant = read_xgp(xgp_file(board, player=1, dice=(5, 2), cube=1, score=(2, 4), length=7,
                                              crawford=False), "p.xgp")
    assert variant == "standard" and (board[25], board[0]) == (1, 1)
    assert (state.on_roll, state.dice, state.cube, state.cube_owner, state.score, state.match_length) == (
        1, (5, 2), 2, 1, (2, 4), 7)
    _, money, _ = read_xgp(xgp_file(starting_board(), player=0, cube=-2, length=0, jacoby=True, beaver=True))
    assert (money.cube, money.cube_owner, money.dice, money.jacoby, money.beavers) == (4, 1, (0, 0), True, True)


def test_show_hint_and_cube_read_an_xgp_file(tmp_path, capsys):
    play = written(tmp_path, xgp_file(starting_board(), player=1, dice=(3, 1), cube=1, score=(2, 4), length=7),
                   "play.xgp")
    assert main(["show", str(play)]) == 0
    shown = capsys.readouterr().out
    assert "cube 2, owned by X; 7-point match, X 4 - O 2" in shown and "X rolled 3-1" in shown
    assert main(["hint", str(play), "--ply", "0", "--json"]) == 0
    hint = json.loads(capsys.readouterr().out)
    assert hint["dice"] == [3, 1] and hint["moves"][0]["move"] == "8/5 6/5"
    cube = written(tmp_path, xgp_file(starting_board(), player=0, length=0), "cube.xgp")
    assert main(["cube", str(cube), "--ply", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["action"] == "no_double"
    hyper = written(tmp_path, xgp_file(starting_board("hypergammon"), variation=2, length=0), "h.xgp")
    assert main(["show", str(hyper)]) == 2
    assert "h.xgp is a hypergammon position; add --variant hypergammon" in capsys.readouterr().err
    assert main(["show", str(hyper), "--variant", "hypergammon"]) == 0
    assert main(["show", str(tmp_path / "none.xgp")]) == 2
    assert "none.xgp: cannot read the file" in capsys.readouterr().err


# ---------------------------------------------------------------- gammon convert, and GNU Backgammon


def test_convert_writes_every_move_as_mat_and_sgf(tmp_path, capsys):
    ours = dropped_session()
    source = written(tmp_path, xg_file(log_records(ours)))
    for suffix in (".mat", ".sgf"):
        target = tmp_path / f"out{suffix}"
        assert main(["convert", str(source), str(target)]) == 0
        assert played(load_match(target)) == played(ours), suffix
    assert "wrote" in capsys.readouterr().out
    assert main(["convert", str(tmp_path / "out.sgf"), str(tmp_path / "again.mat")]) == 0
    assert played(load_match(tmp_path / "again.mat")) == played(ours)
    assert main(["convert", str(tmp_path / "out.sgf"), str(tmp_path / "back.xg")]) == 2
    assert "ends in .mat or .sgf" in capsys.readouterr().err and not (tmp_path / "back.xg").exists()


def test_convert_refuses_an_illegal_match_before_writing(tmp_path, capsys):
    log = random_match()
    log.games[1].score = (0, 0)  # the score before game 2 does not add up
    source = written(tmp_path, xg_file(log_records(log)))
    assert main(["convert", str(source), str(tmp_path / "out.sgf")]) == 2
    error = capsys.readouterr().err
    assert "m.xg, game 2, record" in error and "the score before this game is 0-0" in error
    assert not (tmp_path / "out.sgf").exists()


@pytest.mark.skipif(not GNUBG.exists(), reason="GNU Backgammon is not installed at /usr/games/gnubg")
@pytest.mark.parametrize("make", [random_match, dropped_session], ids=["match", "money session"])
def test_gnubg_opens_a_converted_xg_file_with_every_move(make, tmp_path):
    """.xg -> .sgf (gammon convert) -> GNU Backgammon 1.07 (``load match``: its way to read .sgf; it has no
    ``import sgf``) -> its own .sgf, read back: every move, cube action and result is there."""
    ours = make()
    source = written(tmp_path, xg_file(log_records(ours)))
    assert main(["convert", str(source), str(tmp_path / "ours.sgf")]) == 0
    commands = f"set display off\nload match {tmp_path / 'ours.sgf'}\nsave match {tmp_path / 'gnubg.sgf'}\nquit\n"
    subprocess.run([str(GNUBG), "-t", "-q", "-r"], input=commands, text=True, capture_output=True, timeout=60,
                   check=True)
    back = without_lines(load_sgf(tmp_path / "gnubg.sgf"))
    assert played(back) == played(ours)
    assert [(g.winner, g.points, g.score) for g in back.games] == [(g.winner, g.points, g.score) for g in ours.games]


# ---------------------------------------------------------------- faults, named in one line


def _records_of():
    return log_records(random_match())


def _replace(records_, index, record):
    return [*records_[:index], record, *records_[index + 1:]]


def test_an_illegal_or_edited_play_is_refused_naming_file_game_and_record():
    records_ = _records_of()
    move = next(i for i, r in enumerate(records_) if r[8] == 3)
    fields = records(xg_file(records_))[move][1]
    board = xg._board(fields["before"], "standard")
    bad = move_record(0 if fields["player"] == 1 else 1, board, board, [(24, 1)], tuple(fields["dice"]))
    with pytest.raises(MatchFileError, match=rf"^m.xg, game 1, record {move + 1}: .*'s \d\d: "):
        read_xg(xg_file(_replace(records_, move, bad)), "m.xg")
    moved = board.copy()
    moved[13], moved[12] = moved[13] - 1, moved[12] + 1  # a checker moved by hand before the roll
    edited = move_record(0 if fields["player"] == 1 else 1, moved, moved, [], tuple(fields["dice"]))
    with pytest.raises(MatchFileError, match=rf"game 1, record {move + 1}: the position is not the one the game's"):
        read_xg(xg_file(_replace(records_, move, edited)), "m.xg")


START = starting_board()


@pytest.mark.parametrize("records_, reason", [
    (lambda r: [r[0], r[1], r[3], r[2], *r[4:]], "record 4: .* acts, but .* is on roll"),
    (lambda r: _replace(r, 0, match_header(length=150)), "record 1: a 150-point match"),
    (lambda r: [*r, cube_record(0, START, 0)], "a cube or move record after the game's result"),
    (lambda r: [r[0], game_header(1), cube_record(0, START, 1), cube_record(0, START, 0)],
     "record 4: a cube record while a double waits for its answer"),
    (lambda r: [r[0], game_header(2)], "record 2: game number 2, but 0 game"),
    (lambda r: [r[0], game_header(1), game_footer(0, 1, 1000)], "record 3: the game was settled"),
    (lambda r: [r[0], game_header(1), game_footer(0, 0, 1)], "record 3: the winner scores 0 points"),
    (lambda r: [r[0]], "bad.xg: the file holds no game"),
    (lambda r: [r[0], game_header(1, start=flip(starting_board("nackgammon")))], "record 2: the game starts from a "
                                                                                  "position set up by hand"),
    (lambda r: [r[0], game_header(1, score=(7, 0))], "the score before the game is 7-0 in a 7-point match"),
    (lambda r: [r[0], match_header()], "record 2: a second match header"),
    (lambda r: [r[0], move_record(0, START, START, [], (3, 1))], "record 2: a cube or move record before any game"),
])
def test_a_malformed_record_is_refused_in_one_line(records_, reason):
    with pytest.raises(MatchFileError, match=reason) as info:
        read_xg(xg_file(records_(_records_of())), "bad.xg")
    assert str(info.value).startswith("bad.xg") and "\n" not in str(info.value)


def test_a_raccoon_is_refused():
    start = starting_board()
    play = legal_plays(start, (3, 1))[0]
    records_ = [match_header(length=0, beaver=True), game_header(1), cube_record(0, start, -2),
                move_record(0, start, play.board, play_steps(play), (3, 1)), cube_record(1, flip(play.board), 1, 2, 2)]
    with pytest.raises(MatchFileError, match="record 5: a raccoon"):
        read_xg(xg_file(records_))


@pytest.mark.parametrize("damage, reason", [
    (lambda d: b"PK" + d[2:], "not an eXtreme Gammon file"),
    (lambda d: d[:5000], "not an eXtreme Gammon file"),
    (lambda d: d[:-1], "index .* does not fit|checksum"),
    (lambda d: d[:9000] + bytes([d[9000] ^ 0x10]) + d[9001:], "checksum does not match"),
    (lambda d: d[:-36] + struct.pack("<I", zlib.crc32(b"")) + d[-32:], "checksum does not match"),
])
def test_a_damaged_or_cut_file_is_refused_in_one_line(damage, reason):
    with pytest.raises(MatchFileError, match=reason) as info:
        read_xg(damage(xg_file(_records_of())), "cut.xg")
    assert str(info.value).startswith("cut.xg: ") and "\n" not in str(info.value)


def test_a_file_over_the_limit_is_refused_before_it_is_decompressed(tmp_path, monkeypatch):
    def no_inflating():
        raise AssertionError("decompressed")

    big = tmp_path / "big.xg"
    with open(big, "wb") as f:
        f.truncate(xg.MAX_FILE_BYTES + 1)  # sparse: no disk used
    monkeypatch.setattr(zlib, "decompressobj", no_inflating)
    with pytest.raises(MatchFileError, match=rf"big.xg: the file has {xg.MAX_FILE_BYTES + 1} bytes; .* refused "
                                             "before it is decompressed"):
        load_match(big)
    claims = container({"temp.xg": b"\0" * 2560}, pack_index=False, claims={"temp.xg": xg.MAX_ARCHIVED_BYTES + 1})
    with pytest.raises(MatchFileError, match="temp.xg claims .* bytes; an archived file is at most"):
        read_xg(claims, "claims.xg")


def test_a_zip_bomb_stops_at_the_size_it_claims():
    bomb = container({"temp.xg": b"\0" * (20 << 20)}, claims={"temp.xg": 2560})  # 20 MB in 20 kB
    with pytest.raises(MatchFileError, match="temp.xg does not decompress to the 2560 bytes it claims"):
        read_xg(bomb, "bomb.xg")


def test_fuzzed_files_are_read_or_refused_in_one_line():
    """Seeded: cut at random, bits flipped anywhere (the checksums catch most), and bits flipped in temp.xg's
    records under a fresh, valid checksum (so that the record reader, then the replay, sees them)."""
    rng = np.random.default_rng(33)
    log = random_session()
    game = log.games[0]
    log.games, game.actions, game.winner, game.points = [game], game.actions[:16], None, 0  # a beaver, cut short
    records_ = log_records(log, planted_analysis(log))
    good = xg_file(records_)
    games = b"".join(records_)
    outcomes = {"read": 0, "refused": 0}
    for trial in range(240):
        if trial % 3 == 0:
            data = good[:int(rng.integers(0, len(good)))]
        elif trial % 3 == 1:
            data = bytearray(good)
            for at in rng.integers(0, len(good), size=int(rng.integers(1, 9))):
                data[at] ^= 1 << int(rng.integers(8))
        else:
            flipped = bytearray(games)
            for at in rng.integers(0, len(games), size=int(rng.integers(1, 4))):
                flipped[at] ^= 1 << int(rng.integers(8))
            data = container({"temp.xg": bytes(flipped)})
        try:
            replay(read_xg(bytes(data), "f.xg"))
            outcomes["read"] += 1
        except MatchFileError as exc:
            assert str(exc).startswith("f.xg") and "\n" not in str(exc), str(exc)
            outcomes["refused"] += 1
    assert outcomes["read"] > 10 and outcomes["refused"] > 100, outcomes


def test_an_xg_file_in_a_folder_is_analysed_beside_the_others(tmp_path, capsys):
    folder = tmp_path / "library"
    folder.mkdir()
    written(folder, xg_file(log_records(random_match(length=3))), "one.xg")
    written(folder, b"RGMH" + bytes(100), "two.xg")
    assert main(["analyze", str(folder), "--ply", "0", "--no-cube", "--quiet"]) == 1
    captured = capsys.readouterr()
    assert "two.xg: not an eXtreme Gammon file" in captured.err and "one.xg: 3-point match" in captured.out


# ---------------------------------------------------------------- against the independent reader

ORACLE_NAMES = {  # our field -> xgstruct's
    0: {"player1_ansi": "SPlayer1", "player2_ansi": "SPlayer2", "length": "MatchLength", "variation": "Variation",
        "crawford": "Crawford", "jacoby": "Jacoby", "beaver": "Beaver", "event_ansi": "SEvent",
        "location_ansi": "SLocation", "round_ansi": "SRound", "version": "Version", "magic": "Magic",
        "event": "Event", "player1": "Player1", "player2": "Player2", "location": "Location", "round": "Round"},
    1: {"score1": "Score1", "score2": "Score2", "crawford": "CrawfordApply", "start": "PosInit", "number": "GameNumber",
        "auto_doubles": "NumberOfAutoDoubles"},
    2: {"player": "ActiveP", "double": "Double", "take": "Take", "beaver": "BeaverR", "cube": "CubeB",
        "board": "Position", "no_double": "Doubled.equB", "double_take": "Doubled.equDouble",
        "double_pass": "Doubled.equDrop", "cube_error": "ErrCube", "take_error": "ErrTake", "level": "AnalyzeC"},
    3: {"before": "PositionI", "after": "PositionEnd", "player": "ActiveP", "play": "Moves", "dice": "Dice",
        "cube": "CubeA", "evaluated": "NMoveEval", "candidates": "DataMoves.NMoves",
        "candidate_boards": "DataMoves.PosPlayed", "candidate_evals": "DataMoves.Eval", "error": "ErrMove",
        "level": "AnalyzeM"},
    4: {"winner": "Winner", "points": "PointsWon", "termination": "Termination"},
    5: {},
}


def oracle_records(path: Path) -> list:
    """Every record of ``path``'s temp.xg as ankigammon's xgdatatools reads it."""
    xgimport = pytest.importorskip("ankigammon.thirdparty.xgdatatools.xgimport")
    xgstruct = pytest.importorskip("ankigammon.thirdparty.xgdatatools.xgstruct")
    found, version = [], -1
    for segment in xgimport.Import(str(path)).getfilesegment():
        if segment.type == xgimport.Import.Segment.XG_GAMEFILE:
            segment.fd.seek(0)
            while (record := xgstruct.GameFileRecord(version=version).fromstream(segment.fd)) is not None:
                version = record.Version if isinstance(record, xgstruct.HeaderMatchEntry) else version
                found.append(record)
    return found


def _flat(value):
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return tuple(x for row in value for x in row)
    return value


def _theirs(record, name: str):
    value = record
    for part in name.split("."):
        value = value[part]
    return _flat(value)


def _ours(name: str, value):
    if name == "magic":
        return int.from_bytes(value, "little")
    if name in ("event", "player1", "player2", "location", "round"):
        return xg._unicode(value).encode("utf-8")  # xgstruct gives its UTF-16 names as UTF-8 bytes
    if name.endswith("_ansi"):
        return value.decode("latin-1")  # xgstruct reads a short string byte by byte
    return value


def _check_against_oracle(path: Path) -> int:
    ours, theirs = records(path.read_bytes(), str(path)), oracle_records(path)
    assert len(ours) == len(theirs)
    for number, ((kind, fields), record) in enumerate(zip(ours, theirs), 1):
        assert record.EntryType == kind, number
        for name, their_name in ORACLE_NAMES[kind].items():
            if name not in fields:
                continue
            mine, other = _ours(name, fields[name]), _theirs(record, their_name)
            if isinstance(other, float) or (isinstance(other, tuple) and other and isinstance(other[0], float)):
                assert np.allclose(mine, other), (number, name)
            else:
                assert mine == other, (number, name, mine, other)
    return len(ours)


def test_every_field_we_read_is_what_the_independent_reader_reads(tmp_path):
    pytest.importorskip("ankigammon.thirdparty.xgdatatools.xgstruct")
    log = random_match()

    def analyse_cube(player, board, double):
        return {"equities": (0.25, 0.5, 1.0), "cube_error": -0.125, "take_error": -0.0625, "level": 4}

    files = {"match.xg": xg_file(log_records(log, planted_analysis(log), analyse_cube)),
             "money.xg": xg_file(log_records(dropped_session())),
             "old.xg": xg_file(log_records(random_session(), version=8), compress=False),  # files stored as they are
             "position.xgp": xgp_file(starting_board(), player=1, dice=(6, 5), cube=-1, score=(1, 3))}
    for name, data in files.items():
        assert _check_against_oracle(written(tmp_path, data, name)) > 3, name


def test_the_independent_reader_sees_the_position_of_an_xgp_file_as_we_do(tmp_path):
    pytest.importorskip("ankigammon.thirdparty.xgdatatools.xgstruct")
    board = starting_board().copy()
    board[24], board[25], board[1], board[0] = 1, 1, -1, 1  # one on each bar
    path = written(tmp_path, xgp_file(board, player=0, dice=(4, 2), score=(3, 2), length=5), "bar.xgp")
    ours, state, _ = load_xgp(path)
    move = [r for r in oracle_records(path) if r.EntryType == 3][-1]
    assert np.array_equal(xg._board(move["PositionI"], "standard"), ours) and tuple(move["Dice"]) == state.dice


def test_the_match_log_and_its_decisions_name_records_not_lines():
    log = read_xg(xg_file(_records_of()), "r.xg")
    log.games[1].score = (1, 1)
    with pytest.raises(MatchFileError, match=r"^r.xg, game 2, record \d+: the score before this game"):
        replay(log)


def test_a_legal_play_written_with_xgs_other_spelling_of_off_is_read():
    """XG's own files end a bear-off step below 0 (ankigammon reads -1, xgdatatools' Go port -2): any below 0."""
    board = np.zeros(26, dtype=np.int8)
    board[1], board[2], board[24] = 2, 13, -15
    play = find_play(board, (2, 1), "2/off 1/off")
    for off in (-1, -2, -5):
        record = move_record(0, board, play.board, play_steps(play), (2, 1), off=off)
        fields = xg._fields(record, xg.MOVE_FIELDS)
        assert xg._play(board, (2, 1), fields["play"], "standard", "x").notation == "2/off 1/off"
