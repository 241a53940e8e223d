"""Outputs are written whole, through links, with the usual mode, and never over the input (engine/files.py)."""

import json
import os
import threading

import pytest

from gammon.app.cli import main
from gammon.engine.errors import GammonError
from gammon.engine.files import atomic_file, atomic_text, check_distinct

LINE = json.dumps({"id": "a", "position_id": "4HPwATDgc/ABMA", "dice": [3, 1]}) + "\n"


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_a_written_file_has_the_usual_mode(tmp_path, umask_022):
    atomic_text(tmp_path / "a.txt", "x")
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o644


def test_the_svg_picture_has_the_usual_mode(tmp_path, umask_022, capsys):
    assert main(["show", "4HPwATDgc/ABMA", "--svg", str(tmp_path / "p.svg")]) == 0
    assert (tmp_path / "p.svg").stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.svg"]


def test_a_link_is_written_through_and_stays_a_link(tmp_path, capsys):
    target, link = tmp_path / "target.svg", tmp_path / "link.svg"
    target.write_text("old")
    link.symlink_to(target.name)
    assert main(["show", "4HPwATDgc/ABMA", "--svg", str(link)]) == 0
    assert link.is_symlink() and target.read_text().startswith("<svg")
    (tmp_path / "in.jsonl").write_text(LINE)
    out_target, out_link = tmp_path / "answers.jsonl", tmp_path / "out.jsonl"
    out_link.symlink_to(out_target)
    assert main(["hint", "--batch", str(tmp_path / "in.jsonl"), "--out", str(out_link), "--ply", "0"]) == 0
    assert out_link.is_symlink() and json.loads(out_target.read_text())["move"] == "8/5 6/5"


def test_a_target_that_is_no_regular_file_is_written_into_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)  # a failure must not hang
    reader.start()
    atomic_text(fifo, "through the pipe")
    reader.join(timeout=10)
    assert got == ["through the pipe"] and fifo.is_fifo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_failure_leaves_the_old_file_and_no_temporary_one(tmp_path):
    path = tmp_path / "keep.txt"
    path.write_text("old")
    with pytest.raises(RuntimeError), atomic_file(path) as f:
        f.write(b"half")
        raise RuntimeError("stop")
    assert path.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_the_output_may_not_be_the_input(tmp_path, capsys):
    source = tmp_path / "same.jsonl"
    source.write_text(LINE)
    assert main(["hint", "--batch", str(source), "--out", str(source), "--ply", "0"]) == 2
    assert "is the input file" in capsys.readouterr().err
    assert source.read_text() == LINE
    link = tmp_path / "alias.jsonl"
    link.symlink_to(source)
    assert main(["rollout", "--batch", str(source), "--out", str(link), "--games", "36"]) == 2
    assert source.read_text() == LINE
    with pytest.raises(GammonError):
        check_distinct(source, link)
    check_distinct(source, tmp_path / "new.jsonl")  # a file yet to be made is another file
