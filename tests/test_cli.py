"""The gammon command line: help, demo, show, moves, and clear errors on bad input."""

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gammon.app.cli import main


def test_installed_console_script_shows_help():
    command = [shutil.which("gammon")] if shutil.which("gammon") else [sys.executable, "-m", "gammon"]
    out = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    assert "demo" in out.stdout and "moves" in out.stdout


def test_a_closed_pipe_ends_quietly():
    """`gammon moves ... | head -1`: the reader leaves early; no traceback, exit 0."""
    command = [shutil.which("gammon")] if shutil.which("gammon") else [sys.executable, "-m", "gammon"]
    proc = subprocess.Popen([*command, "moves", "4HPwATDgc/ABMA", "--dice", "31"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.read(10)
    proc.stdout.close()  # the reader goes away before the output is done
    assert proc.wait(timeout=60) == 0
    assert proc.stderr.read() == b""


def test_demo_draws_the_board_and_reports_the_result(capsys):
    assert main(["demo", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "BAR" in out and "pips" in out and "turn 1:" in out
    assert " wins a" in out.splitlines()[-1]


def test_show_draws_any_position_format(capsys):
    for pos in ["4HPwATDgc/ABMA", "4HPwATDgc/ABMA:cAkAAAAAAAAA", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"]:
        assert main(["show", pos]) == 0
        assert "pips 167" in capsys.readouterr().out


def test_moves_lists_legal_plays_as_json(capsys):
    assert main(["moves", "4HPwATDgc/ABMA", "--dice", "31", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert len(result["moves"]) == 16 and {"move": "8/5 6/5", "result_id": "4HPwATDgc/ABMA"} not in result["moves"]
    assert "8/5 6/5" in [m["move"] for m in result["moves"]]


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["show", "4HPwATDgc/ABM!"], "'!'"),
        (["show", "abc"], "cannot read"),
        (["moves", "4HPwATDgc/ABMA"], "no dice"),
    ],
)
def test_bad_input_gives_one_clear_line_and_exit_code_2(capsys, argv, fragment):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_bad_dice_are_rejected_by_the_parser(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["moves", "4HPwATDgc/ABMA", "--dice", "71"])
    assert exit_info.value.code == 2
    assert "dice are two digits" in capsys.readouterr().err


def test_eval_hint_cube_with_the_shipped_model(capsys):
    assert main(["eval", "4HPwATDgc/ABMA", "--ply", "1", "--json"]) == 0
    evaluations = json.loads(capsys.readouterr().out)["evaluations"]
    assert [e["plies"] for e in evaluations] == [0, 1]
    assert 0.45 < evaluations[1]["probs"][0] < 0.6  # the opening is close to even
    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "31", "--ply", "0", "--json"]) == 0
    moves = json.loads(capsys.readouterr().out)["moves"]
    assert moves[0]["move"] == "8/5 6/5" and len(moves) == 16
    assert main(["cube", "4HPwATDgc/ABMA:cAkAAAAAAAAE", "--ply", "1"]) == 0
    assert "Proper cube action: No double, take" in capsys.readouterr().out


def test_batch_hint_and_cube_write_one_line_per_position(tmp_path, capsys):
    lines = [{"id": "a", "gnubgid": "4HPwATDgc/ABMA:cAkAAAAAAAAE", "dice": [3, 1]},
             {"id": "b", "position_id": "4HPwATDgc/ABMA", "dice": [6, 4]},
             {"id": "c", "gnubgid": "not a position"}]
    batch = tmp_path / "in.jsonl"
    batch.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["hint", "--batch", str(batch), "--out", str(tmp_path / "hints.jsonl"), "--ply", "0"]) == 1
    hints = [json.loads(line) for line in (tmp_path / "hints.jsonl").read_text().splitlines()]
    assert [h["id"] for h in hints] == ["a", "b", "c"]
    assert hints[0]["move"] == "8/5 6/5" and {"result_id", "equity"} <= set(hints[1]) and "error" in hints[2]
    assert main(["cube", "--batch", str(batch), "--out", str(tmp_path / "cube.jsonl"), "--ply", "0"]) == 1
    cube = json.loads((tmp_path / "cube.jsonl").read_text().splitlines()[0])
    assert cube["action"] == "no_double" and cube["response"] == "take" and cube["double_pass"] == 1.0
    assert "2 line(s) answered, 1 failed" in capsys.readouterr().err


def test_match_play_cube_uses_the_match_equity_table(capsys):
    # Crawford-free 7-point match at 0-0: like money; the 1-away leader never doubles (dead cube).
    assert main(["cube", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10", "--ply", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "No double, take"
    assert main(["cube", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:6:5:0:7:10", "--ply", "0", "--json"]) == 0
    assert "dead cube" in json.loads(capsys.readouterr().out)["verdict"]


def test_rollout_command_reports_equity_with_a_confidence_interval(capsys):
    assert main(["rollout", "4HPwATDgc/ABMA", "--games", "72", "--truncate", "4", "--seed", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 72 and result["ci95"][0] <= result["equity"] <= result["ci95"][1]
    assert main(["rollout", "4HPwATDgc/ABMA", "--games", "72", "--truncate", "4", "--seed", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["equity"] == result["equity"]


def test_rollout_on_the_torch_device_path_repeats_itself_and_refuses_what_it_cannot_do(capsys):
    pytest.importorskip("torch")
    command = ["rollout", "4HPwATDgc/ABMA", "--games", "72", "--truncate", "4", "--seed", "1", "--json",
               "--device", "cpu"]
    assert main(command) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 72 and result["ci95"][0] <= result["equity"] <= result["ci95"][1]
    assert main(command) == 0 and json.loads(capsys.readouterr().out)["equity"] == result["equity"]
    assert main(command[:-3] + ["--cubeful", "--device", "cpu"]) == 2
    assert "--device rolls one position out cubeless" in capsys.readouterr().err


def test_show_writes_an_svg_picture(tmp_path, capsys):
    assert main(["show", "4HPwATDgc/ABMA:cAkAAAAAAAAE", "--svg", str(tmp_path / "board.svg")]) == 0
    assert (tmp_path / "board.svg").read_text().lstrip().startswith(("<svg", "<?xml"))


def test_match_command_plays_duplicate_cubeful_games_and_matches(capsys):
    assert main(["match", "heuristic", "random", "--games", "40", "--json"]) == 0
    money = json.loads(capsys.readouterr().out)
    assert money["ppg"] > 0 and money["ci95"][0] <= money["ppg"] <= money["ci95"][1]
    assert main(["match", "heuristic", "random", "--length", "3", "--matches", "10", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["match_win_rate"] > 0.5


def test_match_adjusts_cubeless_games_for_luck_and_refuses_it_elsewhere(capsys):
    assert main(["match", "default", "pubeval", "--games", "8", "--cubeless", "--luck", "default"]) == 0
    out = capsys.readouterr().out
    assert "points per game for default" in out and "luck-adjusted (judged by default)" in out
    assert main(["match", "default", "pubeval", "--games", "8", "--luck", "default"]) == 2
    assert "--luck adjusts cubeless money games: add --cubeless" in capsys.readouterr().err
    assert main(["match", "default", "pubeval", "--games", "8", "--cubeless", "--luck", "pubeval"]) == 2
    assert "pubeval has no probability estimates" in capsys.readouterr().err


def test_bad_training_options_and_unusable_paths_get_one_line(capsys, tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    cases = [
        (["train", "--threads", "0", "--out", str(tmp_path / "a")], "--threads must be at least 1"),
        (["train", "--lr", "-1", "--out", str(tmp_path / "b")], "--lr must be positive"),
        (["train", "--device", "tpu", "--out", str(tmp_path / "c")], "--device is auto, cpu or cuda"),
        (["train", "--out", str(tmp_path / "a-file" / "run"), "--games", "10"], "Not a directory"),
        (["show", "4HPwATDgc/ABMA", "--svg", str(tmp_path / "no-such-dir" / "x.svg")], "No such file or directory"),
    ]
    for argv, fragment in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert fragment in err and len(err.splitlines()) == 1, (argv, err)


@pytest.mark.parametrize("argv, fragment", [
    (["hint", "4HPwATDgc/ABMA", "--dice", "31", "--top", "0"], "--top: must be at least 1"),
    (["hint", "4HPwATDgc/ABMA", "--dice", "31", "--top", "-1"], "--top: must be at least 1"),
    (["rollout", "4HPwATDgc/ABMA", "--truncate", "0"], "--truncate: must be at least 1"),
    (["rollout", "4HPwATDgc/ABMA", "--truncate", "-1"], "--truncate: must be at least 1"),
    (["serve", "--port", "70000"], "--port: must be 0..65535; got 70000"),
    (["serve", "--port", "-1"], "--port: must be 0..65535; got -1"),
    (["serve", "--port", "http"], "--port: 'http' is not a whole number"),
    (["serve", "--max-connections", "0"], "--max-connections: must be 1..1024; got 0"),
    (["serve", "--idle-timeout", "0"], "--idle-timeout: must be 1..1000000; got 0"),
    (["serve", "--ply", "4"], "--ply: must be 0..3; got 4"),
    (["rollout", "4HPwATDgc/ABMA", "--games", "37"], "--games: must be at least 36 and a multiple of 36"),
    (["match", "pubeval", "random", "--automatic-doubles", "-1"], "--automatic-doubles: must be at least 0"),
])
def test_out_of_range_options_are_refused(capsys, argv, fragment):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and fragment in capsys.readouterr().err


def test_dice_are_two_digits_one_to_six(capsys):
    for text in ("64", "6-4", "6,4", "6 4"):
        assert main(["moves", "4HPwATDgc/ABMA", "--dice", text]) == 0
        assert "24/14" in capsys.readouterr().out
    for text in ("x6y4", "6x4", "7-7", "0-3", "\u0666\u0664", "644"):
        with pytest.raises(SystemExit) as stop:
            main(["moves", "4HPwATDgc/ABMA", "--dice", text])
        assert stop.value.code == 2 and "dice are two digits" in capsys.readouterr().err


def test_analysis_refuses_players_without_probability_estimates_in_one_line(capsys):
    for argv in (["hint", "4HPwATDgc/ABMA", "--dice", "31", "--model", "heuristic"],
                 ["eval", "4HPwATDgc/ABMA", "--model", "pubeval"], ["cube", "4HPwATDgc/ABMA", "--model", "random"]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.endswith("has no probability estimates to analyse with: give a net (default, a weights file) "
                            "or gnubg") and len(err.splitlines()) == 1


def test_serve_on_an_unusable_host_gives_one_line(capsys):
    assert main(["serve", "--host", "999.1.1.1", "--port", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("gammon serve: error: cannot listen on 999.1.1.1:0") and len(err.splitlines()) == 1


def _stop_at_once(self):
    raise KeyboardInterrupt  # as Ctrl-C would, right after start-up


@pytest.mark.parametrize("host, warned", [("0.0.0.0", True), ("127.0.0.1", False), ("localhost", False)])
def test_serve_warns_loudly_off_loopback(capsys, monkeypatch, host, warned):
    from gammon.app.play import ExternalPlayerServer

    monkeypatch.setattr(ExternalPlayerServer, "serve_forever", _stop_at_once)
    assert main(["serve", "--host", host, "--port", "0"]) == 0
    err = capsys.readouterr().err
    assert ("WARNING" in err and "no authentication" in err) == warned


def test_serve_passes_its_limits_to_the_server(monkeypatch):
    from gammon.app.play import ExternalPlayerServer

    seen = {}

    def record(self):
        seen.update(idle=self.idle_timeout, connections=self.max_connections)
        raise KeyboardInterrupt

    monkeypatch.setattr(ExternalPlayerServer, "serve_forever", record)
    assert main(["serve", "--port", "0", "--idle-timeout", "30", "--max-connections", "2"]) == 0
    assert seen == {"idle": 30, "connections": 2}


def test_serve_searches_as_deep_as_the_other_commands(monkeypatch):
    from gammon.app.play import ExternalPlayerServer

    seen = {}

    def record(self):
        seen["plies"] = self.bot.plies
        raise KeyboardInterrupt

    monkeypatch.setattr(ExternalPlayerServer, "serve_forever", record)
    assert main(["serve", "--port", "0", "--ply", "3"]) == 0
    assert seen == {"plies": 3}


def test_eval_hint_and_cube_take_a_variant_and_refuse_a_position_that_does_not_fit_it(capsys):
    hyper = "AACgAgAAKgAAAA"  # hypergammon's starting position: three checkers a side
    assert main(["eval", hyper, "--variant", "hypergammon", "--json"]) == 0
    probs = json.loads(capsys.readouterr().out)["evaluations"][0]["probs"]
    assert len(probs) == 5 and 0 < probs[0] < 1
    assert main(["hint", hyper, "--dice", "31", "--variant", "hypergammon", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["moves"][0]["move"]
    assert main(["cube", "4HPwATDgc/ABMA", "--variant", "hypergammon"]) == 2
    assert "a side has only 3" in capsys.readouterr().err


@pytest.mark.parametrize("sig, code, word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_a_batch_stopped_by_a_signal_says_so_in_one_line_and_leaves_no_file(tmp_path, sig, code, word):
    """Issue 32 row 13: Ctrl-C printed a 40-line traceback; SIGTERM left a 0-byte temporary file."""
    rows = [json.loads(line) for line in (Path(__file__).parent / "data" / "dev_positions.jsonl").open()][:100]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"id": i, "gnubgid": r["gnubgid"], "dice": r["dice"]}) + "\n"
                              for i, r in enumerate(rows)))
    out = tmp_path / "out.jsonl"
    # SIGINT as at a terminal: a job a script starts in the background inherits SIGINT ignored, and Python keeps that
    proc = subprocess.Popen([sys.executable, "-m", "gammon", "hint", "--batch", str(source), "--out", str(out),
                             "--ply", "2"], stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not any(p.name.startswith(".out.jsonl.") for p in tmp_path.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)  # the answers are being written
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code and err.strip() == f"gammon hint: {word}", err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


def test_a_bug_keeps_its_traceback_and_an_exit_code_of_its_own(monkeypatch, capsys):
    """Issue 32: a crash exited 1, the code of a batch with failed lines."""
    import gammon.app.analyse as analyse

    def broken(*args, **kwargs):
        raise RuntimeError("a planted bug")

    monkeypatch.setattr(analyse, "moves_report", broken)
    assert main(["moves", "4HPwATDgc/ABMA", "--dice", "31"]) == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and "a planted bug" in err and "internal error" in err


def test_show_eval_hint_and_cube_say_who_is_who_and_the_rules_in_force(capsys):
    """Issue 32: Jacoby changed answers silently; the board said "X (on roll)", the line under it "player 0"."""
    for command in (["show"], ["eval"], ["hint", "--dice", "31", "--ply", "0"], ["cube", "--ply", "0"]):
        assert main([command[0], "4HPwATDgc/ABMA", *command[1:]]) == 0
        assert "money: Jacoby off, beavers off (a Position ID alone)" in capsys.readouterr().out
        assert main([command[0], "4HPwATDgc/ABMA:cAkAAAAAAAAA", *command[1:]]) == 0
        assert "X is player 1, on roll; O is player 0; cube 1, centered; money: Jacoby on" in capsys.readouterr().out
    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "31", "--ply", "0", "--json"]) == 0
    assert "Jacoby off" in json.loads(capsys.readouterr().out)["situation"]


def test_hint_heads_its_columns_and_gives_each_rows_depth(capsys):
    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "31", "--ply", "1", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert "depth  move" in out and "Win   W(g)  W(bg)   L(g)  L(bg)" in out
    assert "  1. 1-ply  8/5 6/5" in out


def test_cube_with_a_double_pending_gives_the_answer_to_it(capsys):
    """Issue 32: with a double pending, `cube` answered as if none had been offered."""
    from gammon.engine.records.formats import MatchState, match_id

    pending = match_id(MatchState(on_roll=0, turn=1, doubled=True))
    assert main(["cube", f"4HPwATDgc/ABMA:{pending}", "--ply", "0"]) == 0
    out = capsys.readouterr().out
    assert "X doubles to 2: O to take or pass" in out and "X has doubled to 2; O's proper answer: take" in out


def test_an_xgid_allowing_beavers_is_answered_with_them(capsys):
    """The XGID's rules field (3: Jacoby and beavers) reached the cube analysis without the beavers."""
    verdicts = {}
    for rules in (1, 3):
        assert main(["cube", f"XGID=-b----E-C---eE---c-e----B-:1:1:1:00:0:0:{rules}:0:10", "--ply", "0", "--json"]) == 0
        verdicts[rules] = json.loads(capsys.readouterr().out)["verdict"]
    assert "beaver" in verdicts[3].lower() and "beaver" not in verdicts[1].lower()


def _options_without_help(parser, path=()):
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _options_without_help(sub, (*path, name))
        elif not action.help and not isinstance(action, argparse._HelpAction):
            yield " ".join(path), action.option_strings or action.dest


def test_every_option_of_every_command_has_help_text(capsys):
    """Issue 32: --json, --seed, show's position and train's options had none."""
    from gammon.app.cli import build_parser
    from gammon.training.cli import main as train_main

    assert list(_options_without_help(build_parser())) == []
    with pytest.raises(SystemExit):
        train_main(["--help"])
    listed = capsys.readouterr().out
    assert "--replay-window REPLAY_WINDOW\n                        the plies --replay draws from" in listed
    assert "  --seed SEED           dice, first weights" in listed


def test_version_bench_alone_and_an_odd_number_of_matches(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out.startswith("gammon ")
    assert main(["bench"]) == 0
    assert "  thinking           hint latency" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["match", "default", "heuristic", "--length", "1", "--matches", "1"])
    assert "argument --matches: must be at least 4 and a multiple of 2; got 1" in capsys.readouterr().err


def test_hint_rolls_out_the_best_plays_and_compares_them(capsys):
    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "31", "--ply", "0", "--rollout", "--top", "3", "--games", "36",
                 "--truncate", "2", "--vr", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = report["rollout"]
    assert len(rows) == 3 and report["variance_reduced"] and report["games"] == 36
    assert [r["equity"] for r in rows] == sorted((r["equity"] for r in rows), reverse=True)
    assert rows[0]["diff"] == 0.0 and all(r["ci95"][0] <= r["equity"] <= r["ci95"][1] for r in rows)
    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "31", "--ply", "0", "--rollout", "--top", "2", "--games", "36",
                 "--truncate", "1"]) == 0
    assert "the best 2 plays at 0-ply rolled out, 36 games each (truncated at 1 turn" in capsys.readouterr().out


def test_a_rollout_stops_by_its_rule_and_rollout_options_need_a_rollout(capsys):
    assert main(["rollout", "4HPwATDgc/ABMA", "--games", "1296", "--truncate", "1", "--until", "0.5", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 144 and (result["ci95"][1] - result["ci95"][0]) / 2 <= 0.5  # the first look stops it
    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "31", "--vr", "--games", "36"]) == 2
    assert "--games, --vr: rollout options; add --rollout" in capsys.readouterr().err
    assert main(["rollout", "4HPwATDgc/ABMA", "--cubeful", "--games", "1296", "--truncate", "1", "--until", "0.5",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 144  # the cubeful rollout stops at its first look too


def test_cube_rolls_out_its_actions_for_money_and_at_a_match_score(capsys):
    assert main(["cube", "4HPwATDgc/ABMA", "--rollout", "--games", "36", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 36 and result["double_pass"] == 1.0 and result["action"] in ("double", "no_double")
    low, high = result["no_double_ci95"]
    assert low <= result["no_double"] <= high
    assert main(["cube", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10", "--rollout", "--games", "36"]) == 0
    assert "equity per unit of the cube (EMG)" in capsys.readouterr().out  # a match score: its MET
    assert main(["cube", "4HPwATDgc/ABMA", "--rollout", "--until", "0.01"]) == 2
    assert "drop --until" in capsys.readouterr().err
    assert main(["cube", "4PPgAyDgc+ABAA", "--rollout", "--vr", "--games", "36", "--json"]) == 0
    reduced = json.loads(capsys.readouterr().out)
    assert reduced["variance_reduced"] and reduced["games"] == 36
    assert main(["rollout", "4HPwATDgc/ABMA", "--cubeful", "--vr", "--games", "36"]) == 0
    assert "variance-reduced" in capsys.readouterr().out


def test_a_named_level_rolls_out_its_plays_and_takes_no_rollout_options(capsys):
    from gammon.engine.review.advice import LEVELS

    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "31", "--ply", "0", "--level", "R1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    r1 = LEVELS["R1"]
    assert len(report["rollout"]) == r1.candidates and report["games"] == r1.games
    assert report["truncate"] == r1.truncate and report["variance_reduced"]
    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "31", "--level", "R1", "--games", "36"]) == 2
    assert "--level R1 sets the plays, games and truncation of the rollout; drop --games" in capsys.readouterr().err


def test_a_cube_level_rolls_out_both_cube_actions_truncated_and_variance_reduced(capsys):
    from gammon.engine.review.advice import LEVELS

    r1 = LEVELS["R1"]
    assert main(["cube", "4PPgAyDgc+ABAA", "--level", "R1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["level"] == "R1" and report["games"] == r1.games and report["truncate"] == r1.truncate
    assert report["variance_reduced"] and report["action"] in ("double", "no_double")
    low, high = report["take_less_no_double_ci95"]
    assert low < report["double_take"] - report["no_double"] < high
    assert main(["cube", "4PPgAyDgc+ABAA", "--level", "R1", "--vr"]) == 2
    assert "--level R1 sets the games, truncation and variance reduction of the rollout; drop --vr" in \
        capsys.readouterr().err
    assert main(["cube", "4PPgAyDgc+ABAA", "--level", "R1", "--batch", "x.jsonl"]) == 2
    assert "a batch line is searched" in capsys.readouterr().err
    assert main(["rollout", "4HPwATDgc/ABMA", "--cubeful", "--truncate", "2", "--vr", "--games", "36"]) == 0
    assert "truncated at 2 turns (36 games scored by the net), variance-reduced" in capsys.readouterr().out
    assert main(["cube", "4PPgAyDgc+ABAA", "--rollout", "--games", "36", "--search", "1:1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["search"] == [1, 1]
    assert main(["cube", "4PPgAyDgc+ABAA", "--search", "1:1"]) == 2
    assert "--search: rollout options; add --rollout" in capsys.readouterr().err
    assert main(["rollout", "4HPwATDgc/ABMA", "--cubeful", "--truncate", "2", "--truncate-ply", "1", "--games", "36",
                 "--until", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "truncated at 2 turns" in out and "by the net's 1-ply search" in out


def test_the_money_rules_and_the_match_equity_table_are_settings_that_change_answers_where_they_must(capsys):
    """Issue 34: Jacoby, beavers and the MET are choices of the analysis, stated in the answer."""
    cubes = {}
    for rules in ([], ["--jacoby"], ["--jacoby", "--beavers"]):
        assert main(["cube", "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:0:0:0:0:10", "--ply", "0", "--json",
                     *rules]) == 0
        cubes[" ".join(rules)] = json.loads(capsys.readouterr().out)
    assert "Jacoby off, beavers off" in cubes[""]["situation"]
    assert "Jacoby on, beavers on" in cubes["--jacoby --beavers"]["situation"]
    assert "beaver" in cubes["--jacoby --beavers"]["verdict"].lower() and "beaver" not in cubes["--jacoby"]["verdict"]
    centered = "4HPwATDgc/ABMA"  # Jacoby matters only while the cube is centered
    assert main(["cube", centered, "--ply", "0", "--json", "--jacoby"]) == 0
    jacoby = json.loads(capsys.readouterr().out)
    assert main(["cube", centered, "--ply", "0", "--json", "--no-jacoby"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert jacoby["no_double"] != plain["no_double"]
    match = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:3:0:7:10"
    found = {}
    for met in ("kazaross-xg2", "rockwell-kazaross"):
        assert main(["cube", match, "--ply", "0", "--json", "--met", met]) == 0
        found[met] = json.loads(capsys.readouterr().out)
        assert f"match equity table {met}" in found[met]["situation"]
    assert found["kazaross-xg2"]["double_take"] != found["rockwell-kazaross"]["double_take"]
    assert main(["cube", centered, "--ply", "0", "--met", "rockwell-kazaross", "--json"]) == 0  # money: no MET
    assert json.loads(capsys.readouterr().out)["no_double"] == plain["no_double"]
    assert main(["cube", match, "--ply", "0", "--jacoby"]) == 2
    assert "--jacoby: money rules; this position is a 7-point match" in capsys.readouterr().err


def test_rollouts_refuse_what_they_would_drop_or_misjudge(capsys, tmp_path):
    """Review of issue 30: --rollout/--level beside --batch were dropped; --device beside --cubeful."""
    batch = tmp_path / "in.jsonl"
    batch.write_text(json.dumps({"id": "a", "position_id": "4HPwATDgc/ABMA", "dice": [3, 1]}) + "\n")
    for argv in (["hint", "--batch", str(batch), "--out", str(tmp_path / "o.jsonl"), "--level", "R1"],
                 ["cube", "--batch", str(batch), "--out", str(tmp_path / "o.jsonl"), "--rollout"],
                 ["rollout", "4HPwATDgc/ABMA", "--cubeful", "--device", "cpu"]):
        assert main(argv) == 2, argv
        assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert main(["hint", "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10", "--dice", "66", "--ply", "0"]) == 0
    out = capsys.readouterr().out
    assert "X rolled 6-6" in out and "6-6 to play" in out  # the roll asked about, not the ID's 3-1


def test_plays_rolled_out_at_a_match_score_are_worth_match_equity(capsys):
    """Issue 30: levels at any score. Double match point: a play is worth its chance to win the match, 2p - 1 EMG,
    gammons nothing; the plays come best first by that value."""
    assert main(["hint", "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:6:6:0:7:10", "--level", "R1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rollout"]
    assert len(rows) == 3 and [r["cubeful"] for r in rows] == sorted((r["cubeful"] for r in rows), reverse=True)
    for row in rows:
        assert row["cubeful"] == pytest.approx(2 * row["probs"][0] - 1, abs=1e-9)
        assert row["cubeful_diff"] == pytest.approx(row["cubeful"] - rows[0]["cubeful"], abs=1e-12)


def test_a_benchmarks_help_names_the_command_that_runs_it(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "rollout_vr", "--help"])
    assert capsys.readouterr().out.startswith("usage: gammon bench rollout_vr")
