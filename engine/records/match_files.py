"""A match file of any format we read, chosen by its suffix: .mat (:mod:`engine.records.matfile`), .sgf
(:mod:`engine.records.sgf`) and, read only, eXtreme Gammon's .xg (:mod:`engine.records.xg`), all read into
:class:`engine.records.matchlog.MatchLog`; .mat and .sgf are written from one too."""

from __future__ import annotations

from pathlib import Path

from gammon.engine.records.matchlog import MatchFileError, MatchLog
from gammon.engine.records.matfile import load_mat, save_mat
from gammon.engine.records.sgf import load_sgf, save_sgf
from gammon.engine.records.xg import load_xg

MATCH_SUFFIXES = (".mat", ".sgf")  # the formats we write (and read)
LOADERS = {".mat": load_mat, ".sgf": load_sgf, ".xg": load_xg}
READ_SUFFIXES = tuple(LOADERS)  # the formats we read


def match_suffix(path, suffixes: tuple[str, ...] = MATCH_SUFFIXES) -> str:
    """The format of a match file by its suffix, one of ``suffixes``; a MatchFileError for any other."""
    suffix = Path(path).suffix.lower()
    if suffix not in suffixes:
        names = f"{', '.join(suffixes[:-1])} or {suffixes[-1]}"
        raise MatchFileError(f"a match file ends in {names}; got {suffix or 'no suffix'}", str(path))
    return suffix


def load_match(path) -> MatchLog:
    """A .mat, .sgf or .xg file (by its suffix) as a MatchLog."""
    return LOADERS[match_suffix(path, READ_SUFFIXES)](path)


def check_match_path(path) -> None:
    """Refuse, before playing, a match file name that :func:`save_match` could not write."""
    match_suffix(path)
    if not Path(path).resolve().parent.is_dir():
        raise MatchFileError(f"the folder {Path(path).parent} does not exist", str(path))


def save_match(log: MatchLog, path) -> None:
    """Write ``log`` as .mat or .sgf, by the suffix of ``path`` (atomically)."""
    (save_mat if match_suffix(path) == ".mat" else save_sgf)(log, path)
