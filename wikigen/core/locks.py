"""The cross-process locks: a flock(2) on POSIX (filelock elsewhere), on a fresh descriptor each time.

    file_lock(path)                 wait for the lock (short critical sections: a page write, a log append)
    holder_lock(path, refuse)       never wait: the lock of one long job (a build, an index write), whose
                                    file names the holder's pid; held elsewhere -> raise refuse(that pid)

A flock on a fresh descriptor: waiters sleep in the kernel instead of polling, the lock is exclusive across
processes and threads (each holder opens its own descriptor), and it is released if the holder dies, so a
lock file left by a killed process is simply taken (its pid tells whose it was).
"""

from __future__ import annotations

import os
import socket
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from wikigen.core import confine

if sys.platform != "win32":
    import fcntl

LOCK_TIMEOUT = 120.0
LOCK_POLL = 0.002  # seconds between attempts where filelock has to poll


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing, parents too) for the duration of the block."""
    path = confine.inside(Path(path))  # a lock under a wiki's .wikigen stays in the wiki
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


def _read_pid(fd: int) -> int | None:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        data = os.read(fd, 200).decode("ascii", "replace").split()
        return int(data[0]) if data else None
    except (OSError, ValueError):
        return None


def _running_holder(fd: int, wait: float = 0.5) -> int | None:
    """The pid of the process that holds the lock: it writes its pid just after taking the lock, so a file
    still empty is read again for a moment (else the refusal could not name the process to wait for)."""
    end = time.monotonic() + wait
    while (pid := _read_pid(fd)) is None and time.monotonic() < end:
        time.sleep(0.02)
    return pid


def lock_holder(path: Path) -> int | None:
    """The pid written in a holder_lock's file (the running holder's, or a dead one's), or None."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return _read_pid(fd)
    finally:
        os.close(fd)


def held_by(path: Path) -> tuple[bool, int | None]:
    """Whether a process holds the holder_lock on `path` now, and the pid in its file; opens the file read-only
    and creates nothing (a dry run's look at a lock)."""
    if sys.platform == "win32" or not Path(path).is_file():
        return False, None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False, None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True, _read_pid(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False, None
    finally:
        os.close(fd)


@contextmanager
def holder_lock(path: Path, refuse: Callable[[int | None], Exception]) -> Iterator[int | None]:
    """Hold the lock on `path` for the block, writing this process's pid, host and time into it; when another
    process holds it, raise refuse(its pid, or None if unknown) at once, never waiting. Yields the pid that a
    dead holder left in the file (None when the last holder ended cleanly or there was none)."""
    path = confine.inside(Path(path))
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if sys.platform != "win32":  # not POSIX: no flock, the lock file alone
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise refuse(_running_holder(fd)) from None
        previous = _read_pid(fd)
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()} {socket.gethostname()} {int(time.time())}\n".encode("ascii", "replace"))
        os.fsync(fd)
        try:
            yield previous if previous != os.getpid() else None
        finally:
            # Every end this process lives to see is an orderly one and leaves no pid: done, an error (a
            # refused rollback) or Ctrl-C. Only a holder killed inside the block leaves its pid for the next
            # holder to report as gone.
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)
