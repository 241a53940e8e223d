"""Run logs: JSON Lines files that training runs append a record to at each step, fsynced, so that a
killed run can be resumed from what its log says was done."""

from __future__ import annotations

import json
import os
from pathlib import Path

from gammon.engine.files import atomic_write


def append_log(path: Path, record: dict) -> None:
    with open(path, "a") as f:
        f.write(json.dumps(record) + "\n")
        f.flush()
        os.fsync(f.fileno())


def read_log(path: Path) -> list[dict]:
    """The records of a JSONL log; a line cut short by a crash is skipped (its step is redone)."""
    rows = []
    for line in path.read_text().splitlines() if path.exists() else []:
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def truncate_log(path: Path, games: int) -> None:
    """Drop log lines written after the checkpoint we resume from (they will be redone)."""
    if not path.exists():
        return
    kept = [row for row in read_log(path) if isinstance(row.get("games"), int) and row["games"] <= games]
    atomic_write(path, lambda f: f.write("".join(json.dumps(row) + "\n" for row in kept).encode()))
