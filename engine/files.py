"""Files written whole or not at all: a crash or a kill never leaves half a file behind."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(path, write) -> None:
    """Call ``write(binary_file)`` and put the result at ``path`` whole or not at all
    (unique temporary file beside it, fsync, rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; weights, data and reports are meant to be shared
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_text(path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all."""
    atomic_write(path, lambda f: f.write(text.encode("utf-8")))
