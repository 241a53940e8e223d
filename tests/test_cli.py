"""The gammon command line: help, demo, show, moves, and clear errors on bad input."""

import json
import shutil
import subprocess
import sys

import pytest

from engine.cli import main


def test_installed_console_script_shows_help():
    command = [shutil.which("gammon")] if shutil.which("gammon") else [sys.executable, "-m", "engine.cli"]
    out = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    assert "demo" in out.stdout and "moves" in out.stdout


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
