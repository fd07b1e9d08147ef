"""One atomic_write for every page and record: a temp file in the same folder, fsync, then os.replace."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from wikigen.core.confine import STATE_DIR, inside

# Read once at import: os.umask() is process-wide, so toggling it per write would race between threads.
_UMASK = os.umask(0)
os.umask(_UMASK)


def is_private(path: Path) -> bool:
    return STATE_DIR in Path(path).parts


def private_dir(path: Path) -> Path:
    """Make (or keep) a folder private: 0700, parents created as needed (never through a link out of a wiki)."""
    path = inside(Path(path))
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)
    return path


def make_private(root: Path) -> None:
    """0700 for root and every folder under it, 0600 for every file (an existing state folder or index)."""
    root = Path(root)
    if not root.is_dir():
        return
    private_dir(root)  # refuses a state folder that is a link out of its wiki (wikigen.core.confine)
    for dirpath, dirnames, filenames in os.walk(root):
        for names, mode in ((dirnames, 0o700), (filenames, 0o600)):
            for name in names:
                p = os.path.join(dirpath, name)
                try:
                    if not os.path.islink(p):
                        os.chmod(p, mode)
                except FileNotFoundError:  # a temporary file the index's writer removed meanwhile: nothing to keep
                    continue


def atomic_write_bytes(
    path: Path, write: Callable[[BinaryIO], object], *, private: bool | None = None, root: Path | None = None
) -> None:
    """write(f) into a temp file in path's folder, fsync, then os.replace: readers see the old file or the
    whole new one (what write returns is ignored). private (default: the path is in a wiki's state folder)
    keeps mkstemp's 0600; otherwise the file gets the usual umask mode. root: the folder the write must stay
    in, symlinks followed (wikigen.core.confine.inside; a path under a wiki's .wikigen is kept to its wiki
    unasked); OutsideRootError before anything is written otherwise."""
    path = inside(Path(path), root)
    private = is_private(path) if private is None else private
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700 if private else 0o777)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        if not private:
            os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; other files get the usual mode
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write(
    path: Path, text: str, *, encoding: str = "utf-8", private: bool | None = None, root: Path | None = None
) -> None:
    """Write text to path atomically (see atomic_write_bytes); line endings are written as given."""
    data = text.encode(encoding)
    atomic_write_bytes(path, lambda f: f.write(data), private=private, root=root)
