"""Chouette: rotation, per-member cubes and settlement, the score sheet, and whole sessions at the terminal."""

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from gammon.app.chouette import ChouetteSession
from gammon.app.cli import main
from gammon.engine.cube.state import PASS, TAKE
from gammon.engine.play.chouette import (
    ChouetteError,
    ChouetteGame,
    GameResult,
    Lineup,
    Sheet,
    board_result,
    next_lineup,
    seat_names,
    settle,
)

# -- rotation and settlement -----------------------------------------------------------------------


def test_a_losing_captain_goes_to_the_end_of_the_line_and_the_next_member_captains():
    lineup = Lineup("ann", ("bob", "cat", "dan"))
    assert next_lineup(lineup, captain_won=False) == Lineup("ann", ("cat", "dan", "bob"))


def test_a_winning_captain_takes_the_box_and_the_old_box_joins_the_end_of_the_line():
    lineup = Lineup("ann", ("bob", "cat", "dan"))
    assert next_lineup(lineup, captain_won=True) == Lineup("bob", ("cat", "dan", "ann"))


def test_each_member_settles_with_the_box_at_his_own_cube_and_the_game_sums_to_zero():
    # cat took the box's double (cube 2) and the team won a gammon; bob had passed at 1, dan kept a 1-cube.
    points = {"bob": -1, **board_result(2, team_won=True, cubes={"cat": 2, "dan": 1})}
    assert points == {"bob": -1, "cat": 4, "dan": 2}
    assert settle("ann", points) == {"bob": -1, "cat": 4, "dan": 2, "ann": -5}
    assert board_result(3, team_won=False, cubes={"cat": 4}) == {"cat": -12}  # a backgammon for the box


def test_the_score_sheet_rotates_adds_up_and_always_sums_to_zero():
    sheet = Sheet.new(["ann", "bot", "cat", "bot"])
    assert sheet.players == ("ann", "bot1", "cat", "bot2") and sheet.bots == {"bot1", "bot2"}
    assert sheet.lineup == Lineup("ann", ("bot1", "cat", "bot2"))
    sheet = sheet.after(GameResult(sheet.lineup, {"bot1": 2, "cat": -1, "bot2": 4}))  # the captain won
    assert sheet.lineup == Lineup("bot1", ("cat", "bot2", "ann")) and sheet.games == 1
    assert sheet.scores == {"ann": -5, "bot1": 2, "cat": -1, "bot2": 4}
    sheet = sheet.after(GameResult(sheet.lineup, {"cat": -2, "bot2": -2, "ann": 1}))  # the captain lost
    assert sheet.lineup == Lineup("bot1", ("bot2", "ann", "cat"))
    assert sheet.scores == {"ann": -4, "bot1": 5, "cat": -3, "bot2": 2} and sum(sheet.scores.values()) == 0


def test_a_result_of_another_lineup_is_refused():
    sheet = Sheet.new(["ann", "bob", "cat"])
    with pytest.raises(ValueError, match="not by the sheet's lineup"):
        sheet.after(GameResult(Lineup("bob", ("ann", "cat")), {"ann": 1, "cat": 1}))


@pytest.mark.parametrize("entries, fault", [
    (["ann", "bob"], "at least 3 players"),
    (["ann", "Ann", "bob"], "two players are named 'Ann'"),
    (["ann", "bob smith", "cat"], "got 'bob smith'"),
    (["ann", "bot1", "bot"], "two players are named 'bot1'"),
])
def test_seats_are_refused_in_one_line(entries, fault):
    with pytest.raises(ChouetteError, match=fault):
        seat_names(entries)


# -- the sheet on disk -------------------------------------------------------------------------------


def test_a_saved_sheet_reads_back_the_same():
    sheet = Sheet.new(["ann", "bot", "cat"]).after(GameResult(Lineup("ann", ("bot1", "cat")), {"bot1": 2, "cat": -1}))
    assert Sheet.from_json(sheet.to_json(), "s.json") == sheet


def _saved(**changes) -> str:
    data = json.loads(Sheet.new(["ann", "bob", "cat"]).to_json())
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize("text, fault", [
    ("{not json", "not JSON"),
    ('{"id": "p1", "dice": [3, 1]}', 'no "format"'),
    (_saved(version=2), "version 2"),
    (_saved(scores={"ann": 1, "bob": 0, "cat": 0}), "add up to 1, not 0"),
    (_saved(scores={"ann": True, "bob": 0, "cat": 0}), "whole number; got True"),
    (_saved(team=["bob", "bob"]), "not the players, each once"),
    (_saved(games=-1), "-1 games"),
    (_saved(players=[{"name": "ann", "bot": True}, {"name": "bob", "bot": False}, {"name": "cat", "bot": False}]),
     "bot1, bot2"),
    (_saved(players=[{"name": "ann"}, {"name": "bob", "bot": False}, {"name": "cat", "bot": False}]), "no 'bot'"),
])
def test_a_corrupt_or_foreign_sheet_is_refused_in_one_line(text, fault):
    with pytest.raises(ChouetteError, match=fault) as refused:
        Sheet.from_json(text, "s.json")
    assert str(refused.value).startswith("s.json: ") and "\n" not in str(refused.value)


# -- games with scripted players ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def net():
    from gammon.models.players import load_player

    return load_player("default")


class Scripted:
    """Moves by the net's 0-ply choice (or its worst), doubles on its first chance when told to, answers as told."""

    def __init__(self, net, worst=False, double_once=False, answer=TAKE, passes_against=()):
        self.net, self.worst, self.double_left = net, worst, double_once
        self.answer, self.passes_against = answer, set(passes_against)
        self.against: list[str] = []

    def policy(self, afterstates):
        values = self.net.score_afterstates(afterstates.boards) * (-1 if self.worst else 1)
        return np.array([int(np.argmax(values))])

    def facing(self, names):
        self.against = list(names)

    def doubles(self, boards, cubes):
        doubles, self.double_left = self.double_left, False
        return np.full(len(boards), doubles)

    def answers(self, boards, cubes):
        return np.array([PASS if name in self.passes_against else self.answer for name in self.against])


def _play(lineup, players, seed=0):
    events = []
    result = ChouetteGame(lineup, players, np.random.default_rng(seed), watch=events.append).play()
    return result, events


def test_the_captain_passes_the_box_double_the_next_member_takes_captains_and_wins_a_gammon(net):
    lineup = Lineup("box", ("cap", "mate"))
    players = {"box": Scripted(net, worst=True, double_once=True), "cap": Scripted(net, answer=PASS),
               "mate": Scripted(net, answer=TAKE)}
    result, events = _play(lineup, players)
    said = [(e.kind, e.who, e.other, e.value) for e in events if e.kind not in ("start", "move")]
    assert said[:5] == [("double", "box", "cap", 2), ("pass", "cap", "box", 1), ("captain", "mate", "", 0),
                        ("double", "box", "mate", 2), ("take", "mate", "box", 2)]
    end = events[-1]
    assert end.kind == "end" and end.who == "mate" and end.value in (2, 3)  # the box plays its worst: gammoned
    assert [e.who for e in events if e.kind == "move"][-1] == "mate"  # the new captain rolls for the team
    assert result.points == {"cap": -1, "mate": 2 * end.value}
    assert not result.captain_won and sum(result.gains().values()) == 0


def test_the_box_passes_one_members_double_and_takes_the_others(net):
    lineup = Lineup("box", ("cap", "mate", "last"))
    players = {"box": Scripted(net, passes_against={"cap"}), "cap": Scripted(net, double_once=True),
               "mate": Scripted(net, double_once=True), "last": Scripted(net)}
    result, events = _play(lineup, players, seed=3)
    said = [(e.kind, e.who, e.other, e.value) for e in events if e.kind not in ("start", "move", "end")]
    assert said == [("double", "cap", "box", 2), ("double", "mate", "box", 2), ("pass", "box", "cap", 1),
                    ("captain", "mate", "", 0), ("take", "box", "mate", 2)]
    won = events[-1].value * (1 if events[-1].who == "mate" else -1)
    assert result.points == {"cap": 1, "mate": 2 * won, "last": won}
    assert result.captain_won  # the captain's own game: the box passed it


def test_when_every_member_passes_the_game_ends_at_once(net):
    lineup = Lineup("box", ("cap", "mate"))
    players = {"box": Scripted(net, double_once=True), "cap": Scripted(net, answer=PASS),
               "mate": Scripted(net, answer=PASS)}
    result, events = _play(lineup, players)
    assert result.points == {"cap": -1, "mate": -1} and result.gains()["box"] == 2
    assert events[-1].kind == "pass" and "end" not in [e.kind for e in events]


# -- whole sessions ------------------------------------------------------------------------------------


def test_an_all_bot_chouette_plays_saves_and_resumes(tmp_path, capsys):
    sheet = tmp_path / "chouette.json"
    assert main(["chouette", "--players", "bot,bot,bot", "--games", "2", "--seed", "5", "--sheet", str(sheet)]) == 0
    saved = Sheet.from_json(sheet.read_text(), str(sheet))
    assert saved.games == 2 and sum(saved.scores.values()) == 0 and saved.bots == {"bot1", "bot2", "bot3"}
    out = capsys.readouterr().out
    assert "Game 1: bot1 is the box, bot2 the captain, then bot3." in out
    assert "Score sheet after 2 games: " in out and "Settlement: " in out
    assert main(["chouette", "--sheet", str(sheet), "--games", "1", "--seed", "6"]) == 0
    resumed = Sheet.from_json(sheet.read_text(), str(sheet))
    assert resumed.games == 3 and sum(resumed.scores.values()) == 0
    assert f"Game 3: {saved.lineup.box} is the box, {saved.lineup.captain} the captain" in capsys.readouterr().out


@pytest.mark.parametrize("argv, fault", [
    (["--players", "ann,bob,cat"], "already holds a chouette: drop --players to resume it"),
    ([], "damaged chouette score sheet"),
    (["--sheet", "missing.json"], "no chouette to resume at missing.json"),
    (["--sheet", "missing.json", "--players", "bot,bot,bot"], "every seat is a bot: say how many games"),
])
def test_the_command_refuses_in_one_line(argv, fault, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chouette.json").write_text(_saved(games="two"))
    assert main(["chouette", *argv]) == 2
    err = capsys.readouterr().err
    assert fault in err and err.count("\n") == 1


class Typist:
    """A person at the terminal: answers each prompt by what it ends with, keeps everything printed."""

    def __init__(self, roll_answers):
        self.out: list[str] = []
        self.roll_answers = list(roll_answers)
        self.hinted = False

    def write(self, *parts, end="\n", **_):
        self.out.append(" ".join(map(str, parts)) + end)

    def read(self) -> str:
        prompt = self.out[-1]
        if prompt.endswith("roll> "):
            return self.roll_answers.pop(0) if self.roll_answers else "roll"
        if prompt.endswith("take or pass> "):
            return "take"
        self.hinted = not self.hinted
        if self.hinted:
            return "hint"
        return next(line for line in reversed(self.out) if "  1. " in line).split("1. ")[1].split("  equity")[0]


def test_a_person_in_the_box_plays_a_whole_game_at_the_prompts(tmp_path):
    from gammon.models.players import load_analyst

    person = Typist(["pip", "resign", "double eve", "double BOT1"])
    sheet = Sheet.new(["ann", "bot", "bot"])
    session = ChouetteSession(sheet, tmp_path / "c.json", load_analyst("default"), read=person.read,
                              write=person.write, seed=2)
    assert session.run(games=1) == 0
    text = "".join(person.out)
    assert "ann (box) roll> " in text and "ann (box) move> " in text
    assert re.search(r"pips: you \d+, the team \d+", text) and "a chouette has no resignations" in text
    assert "you cannot double 'eve' now; you may double bot1, bot2" in text
    assert "ann doubles bot1 to 2." in text and "ann doubles bot2" not in text.split("ann doubles bot1")[0]
    assert "cubes against the box: bot1 1 (centred), bot2 1 (centred)" in text
    saved = Sheet.from_json((tmp_path / "c.json").read_text(), "c.json")
    assert saved.games == 1 and sum(saved.scores.values()) == 0 and saved.scores == session.sheet.scores


def test_a_person_on_the_team_doubles_the_box_and_the_end_of_input_leaves_the_game_unscored(tmp_path):
    from gammon.models.players import load_analyst

    lines = iter(["d", "24/18 13/9", "13/9 24/22"])  # seed 0: the box opens 6-4, ann (captain) doubles, rolls 4-2

    def read():
        line = next(lines, None)
        if line is None:
            raise EOFError
        return line

    out: list[str] = []
    session = ChouetteSession(Sheet.new(["bot", "ann", "bot"]), tmp_path / "c.json", load_analyst("default"),
                              read=read, write=lambda *a, end="\n", **k: out.append(" ".join(map(str, a)) + end),
                              seed=0)
    assert session.run() == 0
    text = "".join(out)
    assert "bot1 rolls 6-4 and plays" in text and "ann (captain) roll> ann doubles bot1 to 2." in text
    assert "cubes against the box: ann 2 (bot1's), bot2 1 (centred)" in text
    assert "ann (captain) move> illegal: '24/18 13/9' is not legal with 4-2" in text
    assert "ann rolls 4-2 and plays 24/22 13/9." in text
    assert text.rstrip().endswith("Session ended; the game in progress is not scored.")
    assert Sheet.from_json((tmp_path / "c.json").read_text(), "c.json").games == 0


def test_the_command_reads_persons_from_standard_input(tmp_path):
    """Seed 0, as above: the box opens, ann (captain) doubles at her first prompt; then the input ends."""
    sheet = tmp_path / "c.json"
    done = subprocess.run([sys.executable, "-m", "gammon", "chouette", "--players", "bot,ann,bot", "--seed", "0",
                           "--sheet", str(sheet)], input="double\n", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    assert "ann (captain) roll> ann doubles bot1 to 2." in done.stdout
    assert done.stdout.rstrip().endswith("Session ended; the game in progress is not scored.")
    assert Sheet.from_json(sheet.read_text(), str(sheet)).games == 0
