"""One build per wiki: WIKI/.wikigen/locks/build.lock, a non-blocking flock that holds the builder's pid.

    with build_lock(wiki_root) as info:   # BuildLockedError naming the running build's pid if held
        ...                                # info.previous_pid: a dead build whose stale lock was taken over

The kernel releases a flock when its holder dies (kill -9 included), so a lock file left by a dead
process is simply taken: the flock succeeds and the old pid in the file tells whose it was. Holding the
build lock also means no wikigen git command runs in the wiki, so a leftover `.git/index.lock` is stale
(a git killed mid-add/commit) and is removed (`recover_git_lock`), with a warning in the log.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from wikigen.core import confine
from wikigen.core.errors import BuildLockedError

if sys.platform != "win32":  # not POSIX: no flock, the lock file alone
    import fcntl

log = logging.getLogger(__name__)

LOCK_NAME = "build.lock"


@dataclass
class LockInfo:
    path: Path
    previous_pid: int | None = None  # the pid a stale lock file named (a dead build), if any


def lock_path(root: Path) -> Path:
    return Path(root) / ".wikigen" / "locks" / LOCK_NAME


def _read_pid(fd: int) -> int | None:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        data = os.read(fd, 200).decode("ascii", "replace").split()
        return int(data[0]) if data else None
    except (OSError, ValueError):
        return None


@contextmanager
def build_lock(root: Path) -> Iterator[LockInfo]:
    """Hold the wiki's build lock for the block, or raise BuildLockedError at once (never waits)."""
    path = confine.inside(lock_path(root), root)  # a state folder linked out of the wiki is refused here
    confine.make_dirs(path.parent, root, mode=0o700)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if sys.platform != "win32":
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = _read_pid(fd)
                who = f"pid {pid}" if pid else "another process"
                raise BuildLockedError(
                    f"another build is running on {root} ({who}, lock {path}); wait for it to finish, "
                    f"or stop it (kill {pid if pid else 'PID'}) and run this build again"
                ) from None
        info = LockInfo(path, _read_pid(fd))
        if info.previous_pid and info.previous_pid != os.getpid():
            log.warning("took over the build lock of a build that is gone (pid %d)", info.previous_pid)
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()} {socket.gethostname()} {int(time.time())}\n".encode("ascii", "replace"))
        os.fsync(fd)
        yield info
        os.ftruncate(fd, 0)  # a clean end leaves no pid; a killed build's pid stays for the next holder to see
    finally:
        os.close(fd)


def recover_git_lock(root: Path) -> bool:
    """Remove a stale `.git/index.lock` (call only while holding the build lock); True if one was removed."""
    lock = Path(root) / ".git" / "index.lock"
    if not lock.exists():
        return False
    confine.remove(lock, root)
    log.warning("removed a stale %s left by a git command that was killed (no build held the wiki)", lock)
    return True
