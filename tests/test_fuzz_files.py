"""Fuzzing the match files and batch lines with a seeded generator: thousands of near-valid inputs a run.

Each input is a shipped fixture (a .mat, an .sgf, a batch line) with a few random edits: a
byte changed, inserted or deleted, a stretch cut out or repeated, the text cut short. Every
one must give a valid result or the reader's own one-line error (a GammonError), never a
traceback; a batch of them must leave no file behind but its answer. With tests/test_fuzz.py
(IDs, move notation, FIBS lines for ``serve``) a run feeds well over 10,000 generated inputs.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np
import pytest

from gammon.app.batch import answer_line, run_batch
from gammon.engine.errors import GammonError
from gammon.engine.records.matfile import read_mat
from gammon.engine.records.sgf import read_sgf
from gammon.engine.review.replay import replay

DATA = Path(__file__).parent / "data"
ALPHABET = b" \n\t0123456789:/()[];-*abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ{}\",\\\x00\xff"


def mutants(text: str, count: int, seed: int):
    """``count`` copies of ``text``, each with one to four random edits (seeded), as str."""
    rng = np.random.default_rng(seed)
    raw = text.encode()
    for _ in range(count):
        b = bytearray(raw)
        for _ in range(rng.integers(1, 5)):
            at = int(rng.integers(0, max(len(b), 1)))
            kind = rng.integers(0, 6)
            if kind == 0 and b:
                b[at % len(b)] = ALPHABET[rng.integers(len(ALPHABET))]
            elif kind == 1:
                b.insert(at, ALPHABET[rng.integers(len(ALPHABET))])
            elif kind == 2 and b:
                del b[at % len(b)]
            elif kind == 3:
                del b[at:at + int(rng.integers(1, 40))]
            elif kind == 4:
                b[at:at] = b[at:at + int(rng.integers(1, 40))]
            else:
                del b[at:]
        yield b.decode("utf-8", errors="replace")


@pytest.mark.parametrize("fixture, read, count", [
    ("matches/gnubg-beaver.mat", read_mat, 2500),
    ("matches/gnubg-nackgammon.mat", read_mat, 1500),
    ("sgf/rolled.sgf", read_sgf, 1500),
])
def test_edited_match_files_are_read_or_refused_in_one_line(fixture, read, count):
    text = (DATA / fixture).read_text()
    read_ok = replayed = 0
    for k, mutant in enumerate(mutants(text, count, seed=zlib.crc32(fixture.encode()))):
        try:
            log = read(mutant, "fuzz")
        except GammonError as exc:
            assert "\n" not in str(exc), (k, str(exc))
            continue
        read_ok += 1
        if replayed < 25:  # the rules' replay is slower: a sample of the files that read
            replayed += 1
            try:
                replay(log)
            except GammonError as exc:
                assert "\n" not in str(exc), (k, str(exc))
    assert 0 < read_ok < count  # the edits both keep and break files


def test_edited_batch_lines_each_get_an_answer_or_an_error_record():
    good = json.dumps({"id": "a", "gnubgid": "4HPwATDgc/ABMA:cAkAAAAAAAAA", "dice": [3, 1]})
    answered = 0
    for k, line in enumerate(mutants(good, 4000, seed=7), 1):
        text, ok = answer_line(k, line.encode(), lambda board, state, dice: {"dice": list(dice or ())})
        record = json.loads(text)
        assert ok or (record["line"] == k and "\n" not in record["error"]), record
        answered += ok
    assert 0 < answered < 4000


def test_a_batch_of_edited_lines_leaves_only_its_answer(tmp_path):
    good = json.dumps({"id": "a", "position_id": "4HPwATDgc/ABMA", "dice": [3, 1]})
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text("\n".join(line.replace("\n", " ") for line in mutants(good, 1000, seed=8)) + "\n")
    code = run_batch("hint", source, out, "standard", lambda: lambda board, state, dice: {})
    assert code in (0, 1) and sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]
    blank = sum(not line.strip() for line in source.read_text().split("\n")[:-1])
    assert len(out.read_text().splitlines()) == 1000 - blank  # a record for every line but the blank ones
