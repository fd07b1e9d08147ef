"""One lock helper for every cross-process lock: a blocking flock(2) on POSIX, filelock elsewhere.

A flock on a fresh descriptor: waiters sleep in the kernel instead of polling, the lock is exclusive across
processes and threads (each holder opens its own descriptor), and it is released if the holder dies.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

if sys.platform != "win32":
    import fcntl

LOCK_TIMEOUT = 120.0
LOCK_POLL = 0.002  # seconds between attempts where filelock has to poll


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing, parents too) for the duration of the block."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if sys.platform == "win32":  # not POSIX: filelock's polling lock
        from filelock import FileLock

        with FileLock(str(path), timeout=LOCK_TIMEOUT, poll_interval=LOCK_POLL):
            yield
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
