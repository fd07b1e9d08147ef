"""One atomic_write for every page and record: a temp file in the same folder, fsync, then os.replace."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

# Read once at import: os.umask() is process-wide, so toggling it per write would race between threads.
_UMASK = os.umask(0)
os.umask(_UMASK)


def atomic_write(path: Path, text: str, *, encoding: str = "utf-8") -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; files should get the usual mode
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
