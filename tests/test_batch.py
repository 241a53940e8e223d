"""gammon hint|cube --batch: every good line answered, every bad line reported on its own, no work lost."""

import errno
import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gammon.app.analyse as analyse
from gammon.app.analyse import batch_cube, batch_hint
from gammon.app.batch import MAX_LINE_BYTES, answer_line
from gammon.app.cli import main

OPENING = "4HPwATDgc/ABMA"
GOOD_A = json.dumps({"id": "a", "position_id": OPENING, "dice": [3, 1]})
GOOD_B = json.dumps({"id": "b", "position_id": OPENING, "dice": [6, 4]})
OPPONENT_OWNS_CUBE = "4HPwATDgc/ABMA:EQEAAAAAAAAE"  # money, a 2-cube owned by the player not on roll
CRAWFORD = "4HPwATDgc/ABMA:sAHgAGAAGAAE"  # 7-point match, 6-3, the Crawford game


def _strict(name):
    raise AssertionError(f"the output holds {name}, which is not JSON")


def run(tmp_path, lines, command="hint", capsys=None):
    """Run a batch over ``lines`` (str or bytes, joined by newlines); (exit code, output records)."""
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"".join((line if isinstance(line, bytes) else line.encode()) + b"\n" for line in lines))
    out = tmp_path / "out.jsonl"
    code = main([command, "--batch", str(source), "--out", str(out), "--ply", "0"])
    records = [json.loads(line, parse_constant=_strict) for line in out.read_text().splitlines()]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]  # no temporary file left
    return code, records


def test_bad_json_on_line_one_and_a_byte_order_mark_do_not_stop_the_run(tmp_path):
    code, records = run(tmp_path, ["not json", GOOD_A])
    assert code == 1
    assert records[0] == {"id": None, "line": 1, "error": records[0]["error"]} and "not JSON" in records[0]["error"]
    assert records[1]["id"] == "a" and records[1]["move"] == "8/5 6/5"
    code, records = run(tmp_path, [b"\xef\xbb\xbf" + GOOD_A.encode(), GOOD_B])
    assert code == 0 and [r["id"] for r in records] == ["a", "b"] and "error" not in records[0]


def test_an_error_record_carries_its_own_line_number_and_id(tmp_path):
    lines = [GOOD_A, "not json", json.dumps({"id": "c", "position_id": "not a position"}), "[1, 2]", GOOD_B,
             json.dumps({"id": "d", "position_id": OPENING})]  # no dice anywhere
    code, records = run(tmp_path, lines)
    assert code == 1
    assert [(r["id"], r.get("line")) for r in records] == [("a", None), (None, 2), ("c", 3), (None, 4), ("b", None),
                                                           ("d", 6)]
    assert "dice" in records[5]["error"]


def test_fields_a_line_does_not_read_are_named_once_and_the_lines_answered(tmp_path, capsys):
    """Issue 32: an unknown field (a comment, a tool's own) failed the whole line."""
    lines = [json.dumps({"id": k, "position_id": OPENING, "dice": [3, 1], "comment": "x", "cube": 2})
             for k in range(3)]
    code, records = run(tmp_path, lines)
    assert code == 0 and [r["move"] for r in records] == ["8/5 6/5"] * 3
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "'comment', 'cube'" in warnings[0]


def test_deeply_nested_and_overlong_lines_are_error_lines_between_kept_good_ones(tmp_path):
    lines = [GOOD_A, "[" * 60_000, "[" * 100_000, GOOD_B, json.dumps({"id": "x" * (MAX_LINE_BYTES + 10)}), GOOD_A]
    code, records = run(tmp_path, lines)
    assert code == 1 and len(records) == 6
    assert records[1] == {"id": None, "line": 2, "error": "JSON nested too deeply"}
    assert records[2]["line"] == 3 and "longer than" in records[2]["error"]
    assert records[4]["line"] == 5 and "longer than" in records[4]["error"]
    assert [r["id"] for r in records[::3]] == ["a", "b"] and records[5]["move"] == "8/5 6/5"


@pytest.mark.parametrize("dice", [[True, 2], [0, 3], [7, 1], [3], [3, 1, 2], "31", [3.0, 1], None])
def test_dice_are_two_whole_numbers_one_to_six(tmp_path, dice):
    code, records = run(tmp_path, [json.dumps({"id": "a", "position_id": OPENING, "dice": dice})])
    assert code == 1 and records[0]["line"] == 1 and records[0]["id"] == "a"
    assert ("no dice" if dice is None else "'dice' is two whole numbers 1..6") in records[0]["error"]


def test_non_finite_ids_are_refused_and_the_output_is_strict_json(tmp_path):
    position = f'"position_id": "{OPENING}", "dice": [3, 1]'
    lines = ['{"id": NaN, ' + position + "}", '{"id": Infinity}', '{"id": -Infinity}',
             '{"id": 1e400, ' + position + "}", GOOD_A]
    code, records = run(tmp_path, lines)  # run() parses the output strictly
    assert code == 1 and [r["id"] for r in records] == [None, None, None, None, "a"]
    assert "NaN is not JSON" in records[0]["error"] and "1e400 is too large" in records[3]["error"]


def test_the_output_replaces_out_atomically_through_a_unique_temporary_file(tmp_path, monkeypatch):
    (tmp_path / "out.jsonl.tmp").write_text("another run's file\n")  # the old code's fixed name
    (tmp_path / "out.jsonl").write_text("old results\n")
    source = tmp_path / "in.jsonl"
    source.write_text(GOOD_A + "\n")
    renamed = []
    real_replace = os.replace

    def replace(src, dst):
        renamed.append(str(src))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    for _ in range(2):
        assert main(["hint", "--batch", str(source), "--out", str(tmp_path / "out.jsonl"), "--ply", "0"]) == 0
    assert len(set(renamed)) == 2 and all(os.path.dirname(name) == str(tmp_path) for name in renamed)
    assert (tmp_path / "out.jsonl.tmp").read_text() == "another run's file\n"
    assert json.loads((tmp_path / "out.jsonl").read_text())["id"] == "a"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl", "out.jsonl.tmp"]


def test_a_failure_midway_leaves_out_as_it_was_and_no_temporary_file(tmp_path, monkeypatch, capsys):
    (tmp_path / "out.jsonl").write_text("old results\n")
    source = tmp_path / "in.jsonl"
    source.write_text(GOOD_A + "\n" + GOOD_B + "\n")

    def disk_full(*args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(analyse, "hint_rows", disk_full)
    assert main(["hint", "--batch", str(source), "--out", str(tmp_path / "out.jsonl"), "--ply", "0"]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert (tmp_path / "out.jsonl").read_text() == "old results\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]


def test_a_line_without_a_cube_decision_is_answered_with_the_reason(tmp_path):
    lines = [json.dumps({"id": "owned", "gnubgid": OPPONENT_OWNS_CUBE}), json.dumps({"id": "crawford",
                                                                                     "gnubgid": CRAWFORD})]
    code, records = run(tmp_path, lines, command="cube")
    assert code == 0
    assert records[0]["action"] == "no_double" and records[0]["reason"] == "the opponent owns the cube"
    assert records[0]["double_take"] is None and isinstance(records[0]["no_double"], float)
    assert records[1]["action"] == "no_double" and "Crawford" in records[1]["reason"]


def test_cube_command_says_why_there_is_no_decision(capsys):
    assert main(["cube", OPPONENT_OWNS_CUBE, "--ply", "0"]) == 0
    assert "No cube decision: the opponent owns the cube" in capsys.readouterr().out


def test_a_closing_line_and_a_progress_bar_on_stderr(tmp_path, capsys, monkeypatch):
    source = tmp_path / "in.jsonl"
    source.write_text(GOOD_A + "\nnot json\n" + GOOD_B + "\n")
    assert main(["hint", "--batch", str(source), "--out", str(tmp_path / "out.jsonl"), "--ply", "0"]) == 1
    closing = capsys.readouterr().err.strip().splitlines()[-1]
    assert "2 line(s) answered, 1 failed, in " in closing and closing.endswith(f"{tmp_path / 'out.jsonl'}")
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    assert main(["hint", "--batch", str(source), "--out", str(tmp_path / "out.jsonl"), "--ply", "0"]) == 1
    err = capsys.readouterr().err
    assert "3/3" in err and "line" in err  # tqdm's bar: lines done out of the lines in the file


def test_exit_code_zero_when_every_line_is_answered(tmp_path):
    code, records = run(tmp_path, [GOOD_A, "", GOOD_B])  # a blank line is skipped
    assert code == 0 and [r["id"] for r in records] == ["a", "b"]


@pytest.mark.parametrize("case", ["missing", "folder", "out-in-missing-folder", "out-is-a-folder"])
def test_unusable_input_or_output_paths_get_one_line_and_exit_code_2(tmp_path, capsys, case):
    good = tmp_path / "in.jsonl"
    good.write_text(GOOD_A + "\n")
    source, out = {
        "missing": (tmp_path / "nothing.jsonl", tmp_path / "out.jsonl"),
        "folder": (tmp_path, tmp_path / "out.jsonl"),
        "out-in-missing-folder": (good, tmp_path / "no-such-dir" / "out.jsonl"),
        "out-is-a-folder": (good, tmp_path),
    }[case]
    assert main(["hint", "--batch", str(source), "--out", str(out), "--ply", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err and ".tmp" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


# -- fuzz: the line handler answers or reports, it never raises ----------------------------

_ANALYSERS = {}


def _analyser(kind: str):
    if kind not in _ANALYSERS:
        from gammon.models.players import load_analyst

        net = load_analyst("default")
        _ANALYSERS[kind] = (batch_hint if kind == "hint" else batch_cube)(net, 0)
    return _ANALYSERS[kind]


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                     | st.text(max_size=20), lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
_FIELDS = st.fixed_dictionaries({}, optional={
    "id": _JSON,
    "position_id": st.sampled_from([OPENING, "4HPwATDgc/ABM!", "", "sGfwATDgc/ABMA"]) | _JSON,
    "gnubgid": st.sampled_from([OPPONENT_OWNS_CUBE, CRAWFORD, "4HPwATDgc/ABMA:cAkAAAAAAAAE", "x:y"]) | _JSON,
    "dice": st.lists(st.integers(-1, 8) | st.booleans(), max_size=3) | _JSON,
})
_POSITIONS = [OPENING, "sGfwATDgc/ABMA", OPPONENT_OWNS_CUBE, CRAWFORD, "4HPwATDgc/ABMA:cAkAAAAAAAAE", "4HPwATDgc/ABM!"]
_NEARLY_GOOD = st.builds(  # one position field and (mostly) good dice: the analysis itself gets fuzzed too
    lambda ident, key, position, dice: {"id": ident, key: position, **({} if dice is None else {"dice": dice})},
    _JSON, st.sampled_from(["position_id", "gnubgid"]), st.sampled_from(_POSITIONS),
    st.none() | st.lists(st.integers(1, 6), min_size=2, max_size=2) | st.lists(st.integers(-1, 8) | st.booleans()))
_LINES = (st.text(max_size=200) | st.binary(max_size=200) | _FIELDS.map(json.dumps) | _NEARLY_GOOD.map(json.dumps)
          | st.builds(lambda text, cut: text[:cut], _NEARLY_GOOD.map(json.dumps), st.integers(0, 80)))


@settings(max_examples=200, deadline=None)
@given(line=_LINES, number=st.integers(1, 10**6), kind=st.sampled_from(["hint", "cube"]))
def test_fuzz_the_batch_line_handler_answers_or_reports(line, number, kind):
    text, answered = answer_line(number, line, _analyser(kind))
    record = json.loads(text, parse_constant=_strict)
    assert "\n" not in text and isinstance(record, dict) and "id" in record
    if not answered:
        assert record["line"] == number and isinstance(record["error"], str) and record["error"]


@pytest.mark.parametrize("args", [
    ["hint", "--out", "{out}", "4HPwATDgc/ABMA", "--dice", "31"],
    ["cube", "--out", "{out}", "4HPwATDgc/ABMA"],
    ["rollout", "--out", "{out}", "4HPwATDgc/ABMA", "--games", "36"],
    ["hint", "--batch", "{inp}", "--out", "{out}", "4HPwATDgc/ABMA"],
    ["hint", "--batch", "{inp}", "--out", "{out}", "--dice", "31"],
    ["cube", "--batch", "{inp}", "--out", "{out}", "4HPwATDgc/ABMA"],
    ["rollout", "--batch", "{inp}", "--out", "{out}", "4HPwATDgc/ABMA"],
], ids=lambda a: " ".join(a[:3]))
def test_options_one_way_would_ignore_are_a_usage_error(tmp_path, capsys, args):
    """Issue 32 row 12: --out without --batch, or a position or --dice beside it, was silently dropped."""
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    inp.write_text('{"id": 1, "position_id": "4HPwATDgc/ABMA", "dice": [3, 1]}\n')
    code = main([a.format(inp=inp, out=out) for a in args])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and ("goes with" in err or "not both" in err), err
    assert not out.exists()
