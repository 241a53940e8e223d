"""Files written whole or not at all: a crash or a kill never leaves half a file behind."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from gammon.engine.errors import GammonError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _target(path: Path) -> Path:
    """Where writing ``path`` lands: through a symbolic link to the file it names, so that the link stays."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def check_distinct(reading, writing, what: str = "--out") -> None:
    """Refuse to write the file being read (the answer would replace the question)."""
    try:
        same = os.path.samefile(reading, writing)
    except OSError:  # one of them does not exist yet
        return
    if same:
        raise GammonError(f"{what} {writing} is the input file {reading}: give another name")


@contextlib.contextmanager
def atomic_file(path, mode: str = "wb", make_folders: bool = True):
    """A file to write that becomes ``path`` whole, or not at all, when the block ends (a unique
    temporary file beside the target, fsync, rename); an error or Ctrl-C inside the block leaves
    ``path`` as it was and no temporary file.

    A symbolic link is written through (the file it names is replaced, the link stays); a
    target that exists and is not a regular file (``/dev/stdout``, a pipe) is written straight
    into. The file gets the usual mode (0666 less the umask), not mkstemp's private 0600.
    Missing folders on the way are made, unless ``make_folders`` is False (then OSError).
    """
    path = _target(Path(path))
    if path.exists() and not stat.S_ISREG(path.stat().st_mode):
        if path.is_dir():
            raise IsADirectoryError(21, "is a folder; give a file name", str(path))
        with open(path, mode, encoding=None if "b" in mode else "utf-8") as f:
            yield f
        return
    if make_folders:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:  # name the user's file, not a temporary one he never asked for
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_output(path, what: str = "output") -> None:
    """Refuse, before any long work, an output path that names a folder or lies in a folder that does not
    exist (GammonError naming the user's path): the work would be lost when the file could not be written."""
    target = _target(Path(path))
    if target.is_dir():
        raise GammonError(f"{what} {str(path)!r} is a folder; give a file name")
    if not target.parent.is_dir():
        raise GammonError(f"{what} {str(path)!r}: the folder {str(target.parent)!r} does not exist")


def atomic_write(path, write) -> None:
    """Call ``write(binary_file)`` and put the result at ``path`` whole or not at all (:func:`atomic_file`)."""
    with atomic_file(path) as f:
        write(f)


def atomic_text(path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all."""
    atomic_write(path, lambda f: f.write(text.encode("utf-8")))
