"""A match file of either format, chosen by its suffix: .mat (:mod:`engine.records.matfile`) or .sgf
(:mod:`engine.records.sgf`), both read into and written from :class:`engine.records.matchlog.MatchLog`."""

from __future__ import annotations

from pathlib import Path

from gammon.engine.records.matchlog import MatchFileError, MatchLog
from gammon.engine.records.matfile import load_mat, save_mat
from gammon.engine.records.sgf import load_sgf, save_sgf

MATCH_SUFFIXES = (".mat", ".sgf")


def match_suffix(path) -> str:
    """The format of a match file by its suffix, ``.mat`` or ``.sgf``; a MatchFileError for any other."""
    suffix = Path(path).suffix.lower()
    if suffix not in MATCH_SUFFIXES:
        raise MatchFileError(f"a match file ends in .mat or .sgf; got {suffix or 'no suffix'}", str(path))
    return suffix


def load_match(path) -> MatchLog:
    """A .mat or .sgf file (by its suffix) as a MatchLog."""
    return load_mat(path) if match_suffix(path) == ".mat" else load_sgf(path)


def check_match_path(path) -> None:
    """Refuse, before playing, a match file name that :func:`save_match` could not write."""
    match_suffix(path)
    if not Path(path).resolve().parent.is_dir():
        raise MatchFileError(f"the folder {Path(path).parent} does not exist", str(path))


def save_match(log: MatchLog, path) -> None:
    """Write ``log`` as .mat or .sgf, by the suffix of ``path`` (atomically)."""
    (save_mat if match_suffix(path) == ".mat" else save_sgf)(log, path)
