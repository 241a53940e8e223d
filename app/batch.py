"""Batch files for ``gammon hint|cube --batch IN --out OUT``: JSON Lines in, JSON Lines out, no work lost.

Each input line is a JSON object ``{"id": ..., "gnubgid": ...}`` or ``{"id": ..., "position_id": ...,
"dice": [6, 4]}``. Every line is handled on its own: a good line gets its answer, a bad line
(not JSON, a bad field, too long, nested too deeply, an unreadable position) gets an
error record with its own 1-based line number and its own id, and the run goes on. The
output is strict JSON, written to a uniquely named temporary file beside OUT that replaces
OUT atomically at the end (after an fsync), so OUT is always either the old file or a
complete new one, and two runs writing the same OUT never mix. A closing line on stderr
gives the lines answered, the lines failed and the time taken; the exit code is 1 when
any line failed.
"""

from __future__ import annotations

import codecs
import json
import math
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from tqdm import tqdm

from gammon.app.arguments import position_in_variant
from gammon.engine.errors import GammonError
from gammon.engine.files import atomic_file, check_distinct, check_output
from gammon.engine.rules.variants import Variant

MAX_LINE_BYTES = 64 * 1024  # a position line is under 200 bytes; anything this long is not one
FIELDS = ("id", "gnubgid", "position_id", "dice")
# What a bad line can raise while it is read or analysed; anything else (OSError, a bug) ends the run.
LINE_FAULTS = (ValueError, TypeError, KeyError, IndexError, RecursionError, OverflowError)


class LineError(GammonError):
    """A fault in one batch line; the line gets an error record and the run goes on."""


class TooLong:
    """Stands for a line over MAX_LINE_BYTES, which is skipped without being kept."""


# -- reading -------------------------------------------------------------------------------


def read_lines(stream) -> Iterator[tuple[int, bytes | type[TooLong]]]:
    """(1-based line number, raw bytes) of each line of a binary ``stream``, never more than
    MAX_LINE_BYTES of one line in memory: a longer line is read past in pieces and given as TooLong.
    A UTF-8 byte-order mark at the start of the file is dropped."""
    number = 0
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if number == 1 and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8):]
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # the rest of the long line, a piece at a time
                raw = stream.readline(MAX_LINE_BYTES)
            yield number, TooLong
            continue
        yield number, raw


def _no_constant(name: str):
    raise LineError(f"{name} is not JSON (strict JSON has no NaN or Infinity)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 reads as inf, which strict JSON cannot write back
        raise LineError(f"the number {text} is too large")
    return value


def parse_line(raw: bytes | str) -> object:
    """The JSON value of one line, strictly: UTF-8, no NaN or Infinity, not nested too deeply."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        raise LineError(f"not UTF-8 text (byte {exc.start + 1})") from None
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except LineError:  # from the hooks above, already in words
        raise
    except RecursionError:
        raise LineError("JSON nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise LineError(f"not JSON: {exc.msg} at column {exc.colno}") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise LineError(f"not usable JSON: {exc}") from None


# -- the fields of a line ------------------------------------------------------------------


def _dice(value) -> tuple[int, int]:
    # bool is an int in Python, but true is not a die
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in value)):
        raise LineError(f"'dice' is two whole numbers 1..6 like [6, 4]; got {_shown(value)}")
    return value[0], value[1]


def _shown(value) -> str:
    """A short, one-line picture of a JSON value for an error message."""
    text = json.dumps(value, allow_nan=False)
    return text if len(text) <= 60 else text[:60] + "..."


def batch_position(item: dict, variant: str | Variant = "standard"):
    """(board, state, dice) of a batch line: ``gnubgid`` or ``position_id`` of ``variant``, and ``dice``
    (else the dice of the Match ID, else None). Other fields are not read (:func:`answer_line` names them)."""
    given = [key for key in ("gnubgid", "position_id") if key in item]
    if len(given) != 1:
        raise LineError("a batch line needs one of 'gnubgid' or 'position_id'" + (", not both" if given else ""))
    text = item[given[0]]
    if not isinstance(text, str):
        raise LineError(f"'{given[0]}' is a string; got {_shown(text)}")
    board, state = position_in_variant(text, variant)
    if item.get("dice") is not None:
        return board, state, _dice(item["dice"])
    return board, state, (state.dice if state is not None and state.dice[0] else None)


# -- one line ------------------------------------------------------------------------------


def _describe(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc) or type(exc).__name__


def answer_line(number: int, raw, analyse: Callable, variant: str | Variant = "standard",
                ignored: set[str] | None = None) -> tuple[str, bool]:
    """The output line (strict JSON, no newline) for input line ``number``, and whether it was answered.

    ``analyse(board, state, dice)`` gives the answer's fields for the line's position of ``variant``.
    Never raises for a bad line: its record is ``{"id", "line", "error"}``, with the line's own id
    (None when it has none). Fields other than FIELDS (a comment, a tool's own) are not read; their
    names go into ``ignored``, for one warning a run (:func:`warn_ignored`).
    """
    item = None
    try:
        if raw is TooLong:
            raise LineError(f"the line is longer than {MAX_LINE_BYTES} bytes")
        item = parse_line(raw)
        if not isinstance(item, dict):
            raise LineError(f"a batch line is a JSON object {{...}}; got {type(item).__name__}")
        if ignored is not None:
            ignored.update(str(key) for key in item if key not in FIELDS)
        return json.dumps({"id": item.get("id"), **analyse(*batch_position(item, variant))}, allow_nan=False), True
    except LINE_FAULTS as exc:
        ident = item.get("id") if isinstance(item, dict) else None
        record = {"id": ident, "line": number, "error": _describe(exc)}
        try:
            return json.dumps(record, allow_nan=False), False
        except LINE_FAULTS:  # the id itself cannot be written back
            return json.dumps({**record, "id": None}, allow_nan=False), False


def warn_ignored(command: str, ignored: set[str]) -> None:
    """One line on stderr naming the fields a run did not read, if any."""
    if ignored:
        names = ", ".join(repr(name) for name in sorted(ignored)[:10]) + (", ..." if len(ignored) > 10 else "")
        print(f"gammon {command}: warning: fields not read (a batch line reads {', '.join(FIELDS)}): {names}",
              file=sys.stderr)


# -- the output file -----------------------------------------------------------------------


def _count_lines(path: Path) -> int:
    with open(path, "rb") as f:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))


def run_batch(command: str, batch, out, variant: str | Variant, analyser: Callable[[], Callable]) -> int:
    """Answer every line of the file ``batch`` (positions of ``variant``) into ``out``; the exit code is 1
    when any line failed.

    ``analyser()`` gives the ``analyse(board, state, dice)`` of :func:`answer_line`; it is
    called once the input is open, so that a missing input fails before a model loads. An
    input that cannot be opened, or an output that cannot be written, raises OSError (one
    line and exit code 2 from the command line) and leaves no temporary file behind.
    """
    if not out:
        raise GammonError("--batch needs --out FILE")
    out = Path(out)
    check_output(out, "--out")
    check_distinct(batch, out)
    started = time.monotonic()
    answered = failed = 0
    ignored: set[str] = set()
    with open(batch, "rb") as source:  # a missing file or a folder: OSError, before anything is written
        analyse = analyser()
        show_bar = sys.stderr.isatty()
        total = _count_lines(Path(batch)) if show_bar and Path(batch).is_file() else None
        bar = tqdm(total=total, unit="line", disable=not show_bar)
        with atomic_file(out, "w", make_folders=False) as sink, bar:
            for number, raw in read_lines(source):
                bar.update(1)
                if raw is not TooLong and not raw.strip():
                    continue  # blank lines are allowed and skipped
                text, ok = answer_line(number, raw, analyse, variant, ignored)
                sink.write(text + "\n")
                if ok:
                    answered += 1
                else:
                    failed += 1
    warn_ignored(command, ignored)
    seconds = time.monotonic() - started
    where = f"; see the 'error' field of the failed lines in {out}" if failed else f"; results in {out}"
    print(f"gammon {command}: {answered} line(s) answered, {failed} failed, in {seconds:.1f} s{where}",
          file=sys.stderr)
    return 1 if failed else 0
