"""Whole matches: replayed through the rules (faults named by game and line) and judged decision by decision."""

import json
from dataclasses import replace

import numpy as np
import pytest

from gammon.engine.play.game import Rules, play
from gammon.engine.play.players import EvaluatorPlayer
from gammon.engine.records.matchlog import Action, MatchFileError, Recorder
from gammon.engine.review.match_analysis import BLUNDER, analyse
from gammon.engine.review.replay import replay
from gammon.models.players import load_analyst, load_player

NET = load_analyst("default")


def recorded(players, length: int, seed: int, names=("alice", "bob")):
    recorder = Recorder(names, length)
    result = play(players, 1, seed=seed, rules=Rules(match_length=length), watch=recorder)
    return recorder.log, result


class Blundering(EvaluatorPlayer):
    """The net, except that it never doubles and plays the worst move once: on the first of its turns from
    the ``blunder_at``-th on whose worst play the net scores at least twice a blunder below its best (a turn
    with few plays may have no blunder to make). ``blundered`` is that turn (counted from 1)."""

    def __init__(self, blunder_at: int):
        super().__init__(NET)
        self.turn, self.blunder_at, self.blundered, best = 0, blunder_at, None, self.policy

        def policy(afterstates):
            self.turn += 1
            if self.blundered is not None or self.turn < self.blunder_at:
                return best(afterstates)
            scores = NET.score_afterstates(afterstates.boards)
            if scores.max() - scores.min() < 2 * BLUNDER:
                return best(afterstates)
            self.blundered = self.turn
            return np.array([int(np.argmin(scores))])

        self.policy = policy

    def doubles(self, boards, cubes):
        return np.zeros(len(boards), dtype=bool)


def test_a_recorded_match_replays_to_its_own_score():
    player = EvaluatorPlayer(NET)
    log, result = recorded((player, player), 5, seed=1)
    decisions = replay(log)
    assert log.final_score == tuple(result.scores[0]) and max(log.final_score) >= 5
    assert sum(d.kind == "move" for d in decisions) == sum(a.kind == "move" for g in log.games for a in g.actions)
    assert sum(d.kind == "take" for d in decisions) == sum(a.kind == "double" for g in log.games for a in g.actions)
    assert all(d.gnubgid.count(":") == 1 for d in decisions)


def test_replay_names_the_game_and_line_of_what_the_rules_forbid():
    player = EvaluatorPlayer(NET)
    log, _ = recorded((player, player), 5, seed=2)
    game = log.games[0]
    first = next(i for i, a in enumerate(game.actions) if a.kind == "move" and a.dice[0] != a.dice[1])
    game.actions[first] = replace(game.actions[first], move="24/1", line=17)
    with pytest.raises(MatchFileError, match=r"game 1, line 17: .*'s \d\d: "):
        replay(log)

    log, _ = recorded((player, player), 5, seed=2)
    log.games[1].score = (5, 0)
    with pytest.raises(MatchFileError, match="game 2: the score before this game is 5-0"):
        replay(log)

    log, _ = recorded((player, player), 5, seed=2)
    log.games[0].points += 1
    with pytest.raises(MatchFileError, match="game 1: the record says .* wins"):
        replay(log)

    log, _ = recorded((player, player), 5, seed=2)
    log.games[0].actions.insert(0, Action(0, "double", value=2, line=4))
    with pytest.raises(MatchFileError, match="line 4: no double before the opening roll"):
        replay(log)


def test_the_analysis_finds_a_planted_blunder():
    blundering = Blundering(blunder_at=6)
    log, _ = recorded((blundering, EvaluatorPlayer(NET)), 0, seed=7)
    result = analyse(log, NET, plies=0)
    alice, bob = result.players
    blunders = [j for j in result.judged if j.grade == "blunder" and j.decision.kind == "move"]
    assert [j.decision.player for j in blunders] == [0]  # the planted one, and nothing by the net itself
    alices = [j for j in result.judged if j.decision.kind == "move" and j.decision.player == 0]
    planted = alices[blundering.blundered - 1]
    assert blunders[0] is planted and planted.played != planted.best
    assert alice.wrong_doubles == 0
    assert bob.blunders == 0 and bob.error_rate_mp < 5 and alice.error_rate_mp > bob.error_rate_mp
    report = result.as_dict()
    assert {"name", "decisions", "error_rate_mp", "pr", "luck_mp"} <= set(report["players"][0])
    assert {"position", "action", "best", "loss_mp"} <= set(report["decisions"][0])


def test_the_analysis_finds_the_doubles_a_player_never_offers():
    """The net that never doubles, far ahead of pubeval (which plays weakly), misses doubles and makes
    no wrong ones: in 9 of 10 seeded games it did, and 14 times in this one with the model of the day."""
    class Passive(EvaluatorPlayer):
        def doubles(self, boards, cubes):
            return np.zeros(len(boards), dtype=bool)

    log, _ = recorded((Passive(NET), EvaluatorPlayer(load_player("pubeval"))), 0, seed=6)
    alice = analyse(log, NET, plies=0).players[0]
    assert alice.missed_doubles >= 1 and alice.wrong_doubles == 0


def test_gammon_analyze_reports_a_gnubg_match_as_text_json_and_html(tmp_path, capsys):
    import json
    import shutil
    from pathlib import Path

    from gammon.app.cli import main

    match = Path(__file__).parent / "data" / "sgf" / "match5.sgf"
    out, page = tmp_path / "a.json", tmp_path / "a.html"
    assert main(["analyze", str(match), "--json", str(out), "--html", str(page), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "5-point match" in printed and "error rate (mp/decision)" in printed
    report = json.loads(out.read_text())
    assert [p["name"] for p in report["players"]] == ["gnubg", "root"]
    assert all(d["position"].count(":") == 1 for d in report["decisions"])
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and html.count("<svg") >= 2 and "http" not in html.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")  # nothing fetched from a network

    folder = tmp_path / "matches"
    folder.mkdir()
    shutil.copy(match, folder / "one.sgf")
    (folder / "two.sgf").write_text(match.read_text()[:-40])  # cut short: refused, the rest analysed (rc 1)
    assert main(["analyze", str(folder), "--quiet"]) == 1
    captured = capsys.readouterr()
    assert "two.sgf" in captured.err and "one.sgf: 5-point match" in captured.out


def test_analyze_checks_its_output_paths_before_the_work_and_draws_no_bar_into_a_file(tmp_path, capsys):
    """Issue 32 rows 15 and 6: a missing folder was made (or the run failed after the analysis naming a
    temporary file); the progress bar was written into redirected stderr with a wrong total."""
    from pathlib import Path

    from gammon.app.cli import main

    match = Path(__file__).parent / "data" / "sgf" / "match5.sgf"
    missing = tmp_path / "no" / "such" / "r.html"
    assert main(["analyze", str(match), "--html", str(missing)]) == 2
    assert "does not exist" in capsys.readouterr().err and not (tmp_path / "no").exists()
    assert main(["analyze", str(match), "--json", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err and list(tmp_path.iterdir()) == []
    assert main(["analyze", str(match)]) == 0
    assert capsys.readouterr().err == ""  # stderr is no terminal here: no bar


def test_every_gnubg_fixture_and_a_one_point_match_replay_through_the_rules():
    from pathlib import Path

    from gammon.engine.records.match_files import load_match

    data = Path(__file__).parent / "data"
    files = sorted((data / "matches").glob("*.mat")) + sorted((data / "sgf").glob("*.sgf"))
    assert len(files) >= 8
    for path in files:
        assert replay(load_match(path)), path
    player = EvaluatorPlayer(NET)
    log, result = recorded((player, player), 1, seed=5)
    assert replay(log) and max(log.final_score) >= 1


def test_each_decision_carries_the_move_number_of_its_mat_row_and_keeps_it_through_sgf():
    """Issue 32: the analysis said "line 16" where a player reads "move 11" (the .mat file's numbered row)."""
    import re
    from pathlib import Path

    from gammon.engine.records.matfile import load_mat
    from gammon.engine.records.sgf import read_sgf, write_sgf

    for path in sorted((Path(__file__).parent / "data" / "matches").glob("*.mat")):
        lines, log = path.read_text().splitlines(), load_mat(path)
        decisions = replay(log)
        rows = [int(re.match(r"\s*(\d+)\)", lines[d.line - 1])[1]) for d in decisions]
        assert [d.row for d in decisions] == rows, path.name
        assert [d.row for d in replay(read_sgf(write_sgf(log)))] == rows, path.name


def test_analyze_lists_the_errors_by_move_number_and_the_report_shows_the_choices(tmp_path, capsys):
    import json
    from pathlib import Path

    from gammon.app.cli import main

    match = Path(__file__).parent / "data" / "matches" / "gnubg-5pt.mat"
    out, page = tmp_path / "a.json", tmp_path / "a.html"
    assert main(["analyze", str(match), "--json", str(out), "--html", str(page), "--quiet"]) == 0
    listed = capsys.readouterr().out.split("errors and blunders (")[1].splitlines()
    report = json.loads(out.read_text())
    worst = [d for d in report["decisions"] if d["grade"] in ("error", "blunder")]
    assert int(listed[0].split(";")[0]) == len(worst) > 0
    for line, d in zip(listed[1:], worst):
        assert line.startswith(f"  game {d['game']}, move {d['move']}, ") and f"played {d['action']}, best" in line
    moves = [d for d in report["decisions"] if d["kind"] == "move" and d["counted"]]
    assert all(d["alternatives"][0]["move"] == d["best"] for d in moves)
    assert all(d["action"] in [a["move"] for a in d["alternatives"]] for d in moves)
    html = page.read_text()
    assert html.count('<table class="choices">') == len(worst) and "line " not in html.split("<h2>Errors")[1]


def test_a_rollout_level_judges_again_only_the_close_checker_plays_and_finds_the_planted_blunder_still():
    """Issue 30: analyze --level rolls out the doubtful decisions. With a tiny level (2 plays, 36 games, 2 turns):
    a margin of 0 rolls out nothing and changes nothing; a wide one judges every unforced play by its rollout,
    whose values are those of rolling the same candidates out directly, and the planted blunder stays a mistake."""
    from gammon.engine.review.advice import Level, rolled_out
    from gammon.engine.review.match_analysis import RollingOut
    from gammon.engine.search.analysis import rank_moves

    blundering = Blundering(blunder_at=2)
    log, _ = recorded((blundering, EvaluatorPlayer(NET)), 3, seed=7)  # a match: a money game may end in a pass
    decisions = replay(log)[:14]
    assert blundering.blundered is not None and sum(d.player == 0 and d.kind == "move" for d in decisions) >= \
        blundering.blundered  # the planted play is among them
    plain = analyse(log, NET, plies=0, decisions=decisions, cube=False)
    level = Level("T", 2, 36, 2)
    none = analyse(log, NET, plies=0, decisions=decisions, cube=False, rolling_out=RollingOut(level, 0.0))
    assert none.rolled_out_decisions == 0 and [j.loss for j in none.judged] == [j.loss for j in plain.judged]
    wide = analyse(log, NET, plies=0, decisions=decisions, cube=False, rolling_out=RollingOut(level, 10.0))
    unforced = [j for j in wide.judged if j.counted]
    assert wide.rolled_out_decisions == len(unforced) >= 5
    assert wide.as_dict()["rollout_level"]["rolled_out"] == len(unforced)
    blunder = [j for j in wide.judged if j.decision.player == 0][blundering.blundered - 1]  # the planted one
    assert blunder.grade in ("error", "blunder") and blunder.equity["rolled_out"] == "T"
    d = blunder.decision
    ranked = rank_moves(NET, d.board, d.dice, 0, d.cube, also=d.after)
    played = next(m for m in ranked if np.array_equal(m.board, d.after))
    number = next(i for i, e in enumerate(decisions) if e is d)
    candidates = ranked[:2] + [played]
    _, values = rolled_out(NET, d.cube, np.stack([m.board for m in candidates]), np.zeros(3, dtype=bool), 36, number,
                           2, reduce_variance=True)
    assert blunder.loss == pytest.approx(values.max() - values[2], abs=1e-12)
    assert [equity for _, equity in blunder.alternatives] == sorted(values, reverse=True)


def test_a_rollout_level_judges_the_close_cube_decisions_by_their_rolled_out_actions():
    """analyze --level rolls out the close cube decisions too: no double and double/take at the level's games,
    variance-reduced, truncated, the dice following the decision's number; a double and its answer share one."""
    from gammon.engine.cube.state import Cube
    from gammon.engine.play.rollout import cube_rollout
    from gammon.engine.review.advice import Level
    from gammon.engine.review.match_analysis import RollingOut

    log, _ = recorded((EvaluatorPlayer(NET), EvaluatorPlayer(NET)), 0, seed=3)
    decisions = replay(log)
    level = Level("T", 2, 36, 2)
    wide = analyse(log, NET, plies=0, decisions=decisions, rolling_out=RollingOut(level, 10.0))
    cubes = [j for j in wide.judged if j.decision.kind != "move"]
    assert cubes and all(j.equity["rolled_out"] == "T" for j in cubes)
    first = next(j for j in cubes if j.decision.kind == "cube")
    d: Cube = first.decision
    number = next(i for i, e in enumerate(decisions) if e is d)
    direct = cube_rollout(NET, d.board, d.cube, 36, number, truncate=2, reduce_variance=True)
    assert (first.equity["no_double"], first.equity["double_take"]) == (round(direct.no_double, 4),
                                                                         round(direct.double_take, 4))
    best = max(direct.no_double, min(direct.double_take, 1.0))
    assert first.loss == pytest.approx(best - (min(direct.double_take, 1.0) if d.doubled else direct.no_double))
    answers = [j for j in cubes if j.decision.kind != "cube"]
    for answer in answers:  # its double's figures
        double = cubes[cubes.index(answer) - 1]
        assert answer.equity["double_take"] == double.equity["double_take"]
    narrow = analyse(log, NET, plies=0, decisions=decisions, rolling_out=RollingOut(level, 0.0))
    assert narrow.rolled_out_decisions == 0


def test_analyze_refuses_a_doubtful_margin_without_a_level(capsys):
    from gammon.app.cli import main

    assert main(["analyze", "tests/data/matches/gnubg-5pt.mat", "--doubtful", "0.05"]) == 2
    assert "--doubtful says which decisions --level rolls out" in capsys.readouterr().err


def test_analyze_level_gives_the_same_report_on_two_worker_processes_as_in_one(tmp_path):
    """Issue 30: a match's close plays shared out as tasks give one process's answers (each one's dice follow its
    decision's number). A short money session at 0-ply, R1 on its close plays."""
    from gammon.app.cli import main
    from gammon.engine.records.matfile import save_mat

    log, _ = recorded((EvaluatorPlayer(NET), EvaluatorPlayer(NET)), 0, seed=11)
    match = tmp_path / "session.mat"
    save_mat(log, match)
    reports = []
    for extra in ([], ["--workers", "2"]):
        out = tmp_path / f"report{len(reports)}.json"
        assert main(["analyze", str(match), "--level", "R1", "--doubtful", "0.0013", "--quiet", "--json", str(out),
                     "--no-cube"] + extra) == 0
        reports.append(json.loads(out.read_text()))
    assert reports[0]["rollout_level"]["rolled_out"] >= 2
    assert reports[0]["decisions"] == reports[1]["decisions"]


def test_a_close_play_at_double_match_point_is_worth_its_chance_to_win_the_match():
    """analyze --level at a match score: the rolled-out candidates are valued with the mover's match cube. At
    double match point a play is worth 2p - 1 EMG whatever its gammons; the same play for money is not."""
    from gammon.engine.cube.state import Cube
    from gammon.engine.play.rollout import rollout_plays
    from gammon.engine.review.advice import Level
    from gammon.engine.review.match_analysis import ClosePlay, roll_close
    from gammon.engine.rules.board import starting_board
    from gammon.engine.search.analysis import rank_moves

    candidates = rank_moves(NET, starting_board(), (3, 1), 0)[:2]
    boards = tuple(tuple(int(x) for x in m.board) for m in candidates)
    level = Level("T", 2, 36, 2)
    dmp = ClosePlay(7, boards, (False, False), Cube(away=(1, 1)), level)
    values = roll_close(NET, dmp)
    rolled = rollout_plays(NET, np.array(boards, dtype=np.int8), np.zeros(2, dtype=bool), 36, 7, 2,
                           reduce_variance=True)
    assert values == pytest.approx([2 * r.probs[0] - 1 for r in rolled], abs=1e-9)
    money = roll_close(NET, ClosePlay(7, boards, (False, False), Cube(), level))
    assert not np.allclose(money, values)
