""".mat match files: gnubg's own exports read move by move and written back byte for byte; gnubg reads ours."""

import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.engine.cube.state import BEAVER, PASS, TAKE
from gammon.engine.play.game import Rules, play, random_policy
from gammon.engine.play.players import Player
from gammon.engine.records.matchlog import Action, GameLog, MatchFileError, MatchLog, Recorder
from gammon.engine.records.matfile import load_mat, read_mat, save_mat, write_mat
from gammon.engine.rules.board import flip, starting_board
from gammon.engine.rules.notation import find_play

MATCHES = Path(__file__).parent / "data" / "matches"
FIXTURES = sorted(MATCHES.glob("*.mat"))
GNUBG = Path("/usr/games/gnubg")


def kinds(log: MatchLog) -> dict[str, int]:
    counts: dict[str, int] = {}
    for game in log.games:
        for action in game.actions:
            counts[action.kind] = counts.get(action.kind, 0) + 1
    return counts


def afterstates(log: MatchLog, game: GameLog) -> list[np.ndarray]:
    """Every move of ``game`` played with find_play from the start, each from its mover's side."""
    board, mover, boards = starting_board(log.variant), None, []
    for action in game.actions:
        if action.kind != "move":
            continue
        assert mover is None or action.player == 1 - mover, f"game {game.number}, line {action.line}"
        play_ = find_play(board, action.dice, action.move)
        boards.append(play_.board)
        board, mover = flip(play_.board), action.player
    return boards


# ---------------------------------------------------------------- gnubg's exports


def test_a_gnubg_five_point_match_reads_with_every_move_cube_action_and_result():
    log = load_mat(MATCHES / "gnubg-5pt.mat")
    assert (log.players, log.length, log.date, log.file) == (("Alice", "Bob"), 5, "2026.11.30",
                                                             str(MATCHES / "gnubg-5pt.mat"))
    assert kinds(log) == {"move": 190, "double": 5, "take": 2, "drop": 3, "resign": 3, "accept": 3}
    assert [g.score for g in log.games] == [(0, 0), (0, 1), (0, 3), (1, 3), (1, 4), (2, 4)]
    assert [(g.winner, g.points) for g in log.games] == [(1, 1), (1, 2), (0, 1), (1, 1), (0, 1), (1, 6)]
    assert [g.line for g in log.games] == [5, 22, 48, 58, 79, 104]
    first = log.games[0]
    assert first.actions[0] == Action(1, "move", (2, 1), "13/11 24/23", line=7)
    assert first.actions[1] == Action(0, "move", (5, 2), "13/8 24/22", line=8)
    assert first.actions[-3:] == [Action(0, "move", (5, 4), "25/21", line=19), Action(1, "double", value=2, line=19),
                                  Action(0, "drop", line=20)]
    assert log.games[1].actions[4:6] == [Action(1, "double", value=2, line=26), Action(0, "take", value=2, line=27)]
    assert Action(1, "move", (5, 1), "1/0 5/0", line=40) in log.games[1].actions  # off written as 0


def test_the_crawford_game_is_the_first_at_one_point_away_and_post_crawford_games_double():
    log = load_mat(MATCHES / "gnubg-5pt.mat")
    assert [g.crawford for g in log.games] == [False, False, False, False, True, False]
    assert not any(a.kind == "double" for a in log.games[4].actions)
    assert log.games[5].actions[1] == Action(0, "double", value=2, line=107)  # at once, after the Crawford game


def test_a_resignation_is_a_wins_that_neither_a_drop_nor_the_last_checker_explains():
    log = load_mat(MATCHES / "gnubg-5pt.mat")
    # Alice bore off 14 checkers, then Bob gave up the single game (left column: Alice wins)
    assert log.games[4].actions[-2:] == [Action(1, "resign", value=1, line=102), Action(0, "accept", line=102)]
    # Alice gave up a single game with the cube at 2 (right column: Bob wins 2), and later a backgammon at 2
    assert log.games[1].actions[-3:] == [Action(1, "move", (6, 2), "1/0 1/0", line=45),
                                         Action(0, "resign", value=1, line=46), Action(1, "accept", line=46)]
    assert log.games[5].actions[-2:] == [Action(0, "resign", value=3, line=129), Action(1, "accept", line=129)]
    assert (log.games[5].winner, log.games[5].points) == (1, 6)
    money = load_mat(MATCHES / "gnubg-money.mat")  # Dave's last checker off: the game is over, nobody resigned
    assert money.games[2].actions[-1] == Action(1, "move", (5, 4), "4/0", line=85)
    assert (money.games[2].winner, money.games[2].points) == (1, 2)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_move_of_gnubgs_exports_is_legal_for_its_dice(path):
    log = load_mat(path)
    moves = sum(len(afterstates(log, game)) for game in log.games)
    assert moves == kinds(log)["move"] > 50


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_writing_a_gnubg_export_read_in_gives_back_the_same_bytes(path):
    text = path.read_text()
    assert write_mat(read_mat(text, path.name)) == text


def test_a_money_session_keeps_the_running_score_and_has_no_crawford_game():
    log = load_mat(MATCHES / "gnubg-money.mat")
    assert (log.length, log.players, len(log.games)) == (0, ("Carol", "Dave"), 5)
    assert [g.score for g in log.games] == [(0, 0), (0, 2), (2, 2), (2, 4), (4, 4)]
    assert [(g.winner, g.points) for g in log.games] == [(1, 2), (0, 2), (1, 2), (0, 2), (0, 2)]
    assert not any(g.crawford for g in log.games)
    assert kinds(log) == {"move": 224, "double": 6, "take": 5, "drop": 1, "resign": 2, "accept": 2}


def test_a_beaver_is_taken_when_the_doubler_plays_on():
    log = load_mat(MATCHES / "gnubg-beaver.mat")
    game = log.games[0]
    assert log.beavers  # gnubg writes no [Beaver] tag: the beaver shows it
    assert game.actions[1:5] == [Action(0, "double", value=2, line=8), Action(1, "beaver", value=4, line=8),
                                 Action(0, "take", value=4, line=9), Action(0, "move", (6, 5), "24/18 18/13", line=9)]
    assert (game.winner, game.points) == (0, 8)


BEAVER_DROPPED = "".join(line + "\n" for line in [  # gnubg's export, its trailing spaces and all
    '; [EventDate "2026.11.30"]', "", " 0 point match", "", " Game 1",
    " Erin : 0                       Frank : 0",
    "  1)                             31: 8/5 6/5 ",
    "  2)  Doubles => 2                Beavers => 4",
    "  3)  Drops                       Wins 2 points ", ""])


def test_a_dropped_beaver_pays_the_doubled_cube_and_raccoons_are_beavers_of_beavers():
    game = read_mat(BEAVER_DROPPED).games[0]
    assert [a.kind for a in game.actions] == ["move", "double", "beaver", "drop"]
    assert (game.winner, game.points) == (1, 2)
    raccoons = BEAVER_DROPPED.replace("  3)  Drops                       Wins 2 points \n",
                                      "  3)  Beavers => 8                Beavers => 16\n"
                                      "  4) 65: 24/18 18/13             21: 13/11 6/5 \n")
    game = read_mat(raccoons).games[0]
    assert [(a.player, a.kind, a.value) for a in game.actions[1:6]] == [
        (0, "double", 2), (1, "beaver", 4), (0, "beaver", 8), (1, "beaver", 16), (0, "take", 16)]
    assert game.winner is None  # a record cut short after its last game's moves is a match in progress


def test_gnubgs_header_tags_and_comment_fill_the_match_details():
    log = load_mat(MATCHES / "gnubg-nackgammon.mat")
    assert (log.place, log.event, log.date, log.variant) == ("Oslo Club", "Winter Open", "2024.05.01", "nackgammon")
    assert log.comment == '[Round "3"]\n[Transcriber "Ivy"]\nFirst line'
    assert log.length == 1 and log.games[0].crawford  # a one-point match is its Crawford game, as we play it


XG_STYLE = """; [Site "XG Mobile"]
; [Player 1 "Ann Lee"]
; [Player 2 "Bo"]
; [Player 1 Elo "1600.00/0"]
; [EventDate "2024.01.02"]
; [Variation "Backgammon"]
; [Jacoby "Off"]
; [Beaver "Off"]
; [Unrated "Off"]
; [Crawford "Off"]
; [CubeLimit "1024"]

 1 point match

 Game 1
 Ann Lee : 0                    Bo : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2)  Doubles => 2                Drops
      Wins 1 point and the match
"""


def test_other_programs_tags_are_read_and_the_ones_we_have_no_field_for_kept_as_comment():
    log = read_mat(XG_STYLE)
    assert (log.players, log.place, log.date, log.variant) == (("Ann Lee", "Bo"), "XG Mobile", "2024.01.02", "standard")
    assert (log.jacoby, log.beavers, log.crawford) == (False, False, False)
    assert log.comment == '[Player 1 Elo "1600.00/0"]\n[Unrated "Off"]\n[CubeLimit "1024"]'
    assert not log.games[0].crawford and (log.games[0].winner, log.games[0].points) == (0, 1)
    again = read_mat(write_mat(log))
    assert (again.comment, again.crawford, again.players) == (log.comment, False, log.players)


def test_an_opening_roller_who_resigns_at_once_is_credited_with_the_roll():
    # gnubg writes the roll in the left column and the winner's "Wins" after it on the same line
    text = " 0 point match\n\n Game 1\n Erin : 0                       Frank : 0\n  1) 31:       Wins 2 points\n\n"
    game = read_mat(text).games[0]
    assert game.actions == [Action(1, "move", (3, 1), "", line=5), Action(1, "resign", value=2, line=5),
                            Action(0, "accept", line=5)]
    assert [replace(a, line=0) for a in read_mat(write_mat(read_mat(text))).games[0].actions] == \
        [replace(a, line=0) for a in game.actions]


# ---------------------------------------------------------------- our matches


class Erratic(Player):
    """Random moves and cube actions, now and then a resignation: every kind of action in a few short games."""

    doubling = resigning = True

    def __init__(self, seed: int, beaver: bool = False):
        self.rng = np.random.default_rng(seed)
        self.policy = random_policy(self.rng)
        self.answer_choices = [PASS, TAKE, TAKE, BEAVER] if beaver else [PASS, TAKE, TAKE]

    def doubles(self, boards, cubes):
        return self.rng.random(len(boards)) < 0.08

    def answers(self, boards, cubes):
        return self.rng.choice(self.answer_choices, len(boards))

    def accepts_beaver(self, boards, cubes):
        return np.ones(len(boards), dtype=bool)  # gnubg 1.07 loses the rest of a file after a dropped beaver

    def resigns(self, boards, cubes, dice):
        draw = self.rng.random(len(boards))
        return np.where(draw < 0.01, 1 + (draw * 300).astype(int) % 3, 0)

    def accepts_resignation(self, boards, cubes, offered):
        return self.rng.random(len(boards)) < 0.5


def recorded_match() -> MatchLog:
    recorder = Recorder(("Ann Lee", "Bo"), 5, event="Club night", place="Oslo", date="2024-05-01",
                        comment="friendly\nno clock")
    play((Erratic(1), Erratic(2)), 1, seed=9, rules=Rules(match_length=5), watch=recorder)
    return recorder.log


def recorded_session() -> MatchLog:
    recorder = Recorder(("Ann", "Bo"), 0, beavers=True)
    play((Erratic(4, True), Erratic(5, True)), 1, seed=6, rules=Rules(beavers=True), watch=recorder, until_games=6)
    return recorder.log


def as_gnubg_keeps_it(log: MatchLog) -> list:
    """The games without file lines, with bar and off spelled 25 and 0, and without rejected resignations."""
    games = []
    for game in log.games:
        actions = [replace(a, line=0, move=a.move.replace("bar", "25").replace("off", "0")) for a in game.actions]
        rejected = {i for i, a in enumerate(actions) if a.kind == "reject"}
        actions = [a for i, a in enumerate(actions) if i not in rejected and i + 1 not in rejected]
        games.append(replace(game, actions=actions, line=0))
    return games


def test_a_recorded_match_survives_writing_and_reading():
    log = recorded_match()
    assert {"double", "take", "drop", "resign", "accept"} <= set(kinds(log))
    assert any(g.crawford for g in log.games) and max(log.final_score) >= 5
    assert any("bar" in a.move or "off" in a.move or "(" in a.move for g in log.games for a in g.actions)
    back = read_mat(write_mat(log))
    assert as_gnubg_keeps_it(back) == as_gnubg_keeps_it(log)
    assert (back.players, back.length, back.event, back.place, back.comment) == \
        (log.players, 5, "Club night", "Oslo", "friendly\nno clock")
    assert back.date == "2024.05.01"  # gnubg's own spelling of the date


def test_a_recorded_money_session_with_beavers_survives_writing_and_reading():
    log = recorded_session()
    assert {"beaver", "take", "drop", "reject"} <= set(kinds(log)) and log.games[-1].winner is None
    back = read_mat(write_mat(log))
    assert as_gnubg_keeps_it(back) == as_gnubg_keeps_it(log)
    assert (back.length, back.beavers, back.jacoby) == (0, True, False)


def test_the_rules_and_the_variant_survive_in_tags():
    log = MatchLog(("X", "Y"), 0, [GameLog(1, actions=[Action(0, "move", (3, 1), "bar/22 bar/24")])],
                   jacoby=True, beavers=True, variant="hypergammon")
    text = write_mat(log)
    assert '; [Variation "HyperGammon (3)"]\n; [Jacoby "On"]\n; [Beaver "On"]\n' in text
    back = read_mat(text)
    assert (back.jacoby, back.beavers, back.variant) == (True, True, "hypergammon")
    assert back.games[0].actions == [Action(0, "move", (3, 1), "25/22 25/24", line=9)]


def test_save_writes_the_whole_file_and_load_names_it(tmp_path):
    log = recorded_match()
    path = tmp_path / "match.mat"
    save_mat(log, path)
    assert [p.name for p in tmp_path.iterdir()] == ["match.mat"]
    back = load_mat(path)
    assert back.file == str(path) and as_gnubg_keeps_it(back) == as_gnubg_keeps_it(log)
    with pytest.raises(MatchFileError, match="match.mat/x.mat: cannot write it"):
        save_mat(log, path / "x.mat")
    with pytest.raises(MatchFileError, match="missing.mat: cannot read it"):
        load_mat(tmp_path / "missing.mat")
    old = tmp_path / "latin.mat"  # a Windows file from an older program, and one with a byte-order mark
    old.write_bytes(GOOD.replace("Alice", "Zoë").encode("latin-1"))
    assert load_mat(old).players == ("Zoë", "Bob")
    old.write_bytes(b"\xef\xbb\xbf" + GOOD.encode("utf-8"))
    assert load_mat(old).players == ("Alice", "Bob")


def test_what_a_mat_file_cannot_hold_is_refused_when_writing():
    game = GameLog(1, actions=[Action(0, "move", (3, 1), "8/5 6/5"), Action(0, "move", (4, 2), "8/4 6/4")])
    with pytest.raises(MatchFileError, match="game 1: cannot write it: X acts twice in a row"):
        write_mat(MatchLog(("X", "Y"), 0, [game]))
    with pytest.raises(MatchFileError, match="name 'A:B' cannot stand in a .mat file"):
        write_mat(MatchLog(("A:B", "Y"), 0, [GameLog(1)]))
    with pytest.raises(MatchFileError, match="the date 'May 1st' is not YYYY-MM-DD"):
        write_mat(MatchLog(("X", "Y"), 0, [GameLog(1)], date="May 1st"))
    with pytest.raises(MatchFileError, match="game 1: cannot write it: the game starts with the cube at 2"):
        write_mat(MatchLog(("X", "Y"), 0, [GameLog(1, cube=2)]))
    won = GameLog(1, actions=[Action(0, "move", (3, 1), "8/5 6/5")], winner=1, points=1)
    with pytest.raises(MatchFileError, match="Y wins, but neither their last move, a drop nor a resignation"):
        write_mat(MatchLog(("X", "Y"), 0, [won]))


# ---------------------------------------------------------------- faults


GOOD = (MATCHES / "gnubg-5pt.mat").read_text()


def broken(old: str, new: str, count: int = 1) -> str:
    assert GOOD.count(old) >= count
    return GOOD.replace(old, new, count)


MALFORMED = [
    (GOOD[:GOOD.index("13/8 24/22") + 8], ", game 1, line 8: the move after 52: move '13/8 24/' ends with '/'"),
    (broken("  5) 31: 22/21 24/21", "  5) 31: 22/21 hello"),
     ", game 1, line 11: the move after 31: cannot read ' hello' in move '22/21 hello'"),
    (broken("  5) 31: 22/21 24/21", "  5) 71: 22/21 24/21"), ", game 1, line 11: unreadable roll 71:"),
    (broken(" Alice : 0                      Bob : 1", " Alice : 0                      Bob : 2"),
     ", game 2, line 23: the score is 0-2, but the games before add up to 0-1"),
    (broken(" Alice : 1                      Bob : 3", " Alice : 1                      Carl : 3"),
     ", game 4, line 59: the players are 'Alice' and 'Carl', but game 1 has 'Alice' and 'Bob'"),
    (broken(" Doubles => 2", " Doubles => 4"), ", game 1, line 19: 'Doubles => 4', but the cube is at 1"),
    (broken(" 14)  Drops                       Wins 1 point ", " 14)  Drops       Wins 1 point "),
     ", game 1, line 20: Alice dropped, so Bob wins; the 'Wins' stands in Alice's column"),
    (broken("                                  Wins 2 points\n", ""),
     ", game 2, line 22: the game has no 'Wins' line, yet another game follows"),
    (broken(" Game 3\n", " Game 4\n"), ", game 3, line 48: expected 'Game 3', found 'Game 4'"),
    (broken("  3) 53: 8/3 6/3", "  4) 53: 8/3 6/3"), ", game 1, line 9: row 4 follows row 2"),
    (broken("  3) 53: 8/3 6/3                 62: 13/7 7/5", "  3) 53: 8/3 6/3"),
     ", game 1, line 10: Alice acts twice in a row (roll, then roll)"),
    (broken(" 5 point match", " 5 point match\n  1) 52: 13/8 24/22"),
     ", line 4: '1) 52: 13/8 24/22' stands before any 'Game 1' line"),
    (GOOD[:GOOD.index(" 5 point match")], ": no 'N point match' line: the file is empty or cut short"),
    (GOOD[:GOOD.index(" Game 1")], ": no 'Game 1' line: the file has no games (truncated?)"),
    (broken("; [EventDate", '; [Player 3 "Zed"]\n; [EventDate'), ", line 1: there is no player 3"),
    (broken("; [EventDate", '; [Player 2 "Zed"]\n; [EventDate'),
     ", line 1: the header names player 2 'Zed', but the games name 'Bob'"),
    (broken(" 5 point match", " 2 point match"), ", game 3, line 49: the score 0-3 is past the end of a 2-point match"),
    (broken(" 5 point match", " 100 point match"),  # issue 32 row 8: the replay refused it, naming no file
     ", line 3: a 100-point match: matches are 1 to 99 points long here"),
]


@pytest.mark.parametrize("text, message", MALFORMED, ids=[m.split(": ")[1][:40] for _, m in MALFORMED])
def test_a_malformed_file_is_refused_with_its_name_game_and_line(text, message):
    with pytest.raises(MatchFileError) as caught:
        read_mat(text, "bad.mat")
    assert str(caught.value).startswith("bad.mat" + message)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, len(GOOD) - 1), st.integers(0, 40), st.text(max_size=12))
def test_any_damage_to_a_file_is_read_or_refused_in_one_line(at, cut, junk):
    try:
        log = read_mat(GOOD[:at] + junk + GOOD[at + cut:], "bad.mat")
    except MatchFileError as exc:
        assert str(exc).startswith("bad.mat") and "\n" not in str(exc)
    else:
        assert log.games and all(g.winner is not None for g in log.games[:-1])


# ---------------------------------------------------------------- gnubg reads ours


def gnubg_round_trip(tmp_path: Path, log: MatchLog, name: str) -> MatchLog:
    """``log`` written, imported by gnubg, exported again by gnubg and read back."""
    ours, theirs = tmp_path / f"{name}.mat", tmp_path / f"{name}-gnubg.mat"
    save_mat(log, ours)
    commands = f"import mat {ours}\nexport match mat {theirs}\nquit\n"
    run = subprocess.run([str(GNUBG), "-t", "-q", "-r"], input=commands, capture_output=True, text=True, timeout=60)
    said = run.stdout + run.stderr
    assert "Invalid move" not in said and "Take record found" not in said and "Unrecognised" not in said, said[-2000:]
    return load_mat(theirs)


def summary(log: MatchLog) -> list:
    """What each game is, whatever the notation: score, cube actions and resignations, dice, positions after the
    moves, result (rejected resignations left out: gnubg keeps none)."""
    out = []
    for game in as_gnubg_keeps_it(log):
        actions = [(a.player, a.kind, a.value) for a in game.actions if a.kind != "move"]
        dice = [a.dice for a in game.actions if a.kind == "move"]
        boards = [b.tolist() for b in afterstates(log, game)]
        out.append((game.score, game.winner, game.points, actions, dice, boards))
    return out


@pytest.mark.skipif(not GNUBG.exists(), reason="GNU Backgammon is not installed at /usr/games/gnubg")
def test_gnubg_imports_our_files_with_every_move_and_cube_action(tmp_path):
    for name, log in (("match", recorded_match()), ("session", recorded_session())):
        back = gnubg_round_trip(tmp_path, log, name)
        assert back.players == log.players and back.length == log.length
        assert summary(back) == summary(log), name
