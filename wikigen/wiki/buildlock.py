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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from wikigen.core import confine
from wikigen.core.errors import BuildLockedError
from wikigen.core.locks import held_by, holder_lock

log = logging.getLogger(__name__)

LOCK_NAME = "build.lock"


@dataclass
class LockInfo:
    path: Path
    previous_pid: int | None = None  # the pid a stale lock file named (a dead build), if any


def lock_path(root: Path) -> Path:
    return Path(root) / ".wikigen" / "locks" / LOCK_NAME


def _refusal(root: Path, path: Path, pid: int | None) -> BuildLockedError:
    who = f"pid {pid}" if pid else "another process"
    return BuildLockedError(
        f"another build is running on {root} ({who}, lock {path}); wait for it to finish, "
        f"or stop it (kill {pid if pid else 'PID'}) and run this build again"
    )


def check_unlocked(root: Path) -> None:
    """BuildLockedError, as `build_lock` would raise it, when a build holds the wiki now; writes nothing (for
    a dry run: a lock file that is not there is not made)."""
    path = lock_path(root)
    held, pid = held_by(path)
    if held:
        raise _refusal(root, path, pid)


@contextmanager
def build_lock(root: Path) -> Iterator[LockInfo]:
    """Hold the wiki's build lock for the block, or raise BuildLockedError at once (never waits)."""
    path = confine.inside(lock_path(root), root)  # a state folder linked out of the wiki is refused here

    def refuse(pid: int | None) -> BuildLockedError:
        return _refusal(root, path, pid)

    with holder_lock(path, refuse) as previous:
        info = LockInfo(path, previous)
        if previous:
            log.warning("took over the build lock of a build that is gone (pid %d)", previous)
        yield info


def recover_git_lock(root: Path) -> bool:
    """Remove a stale `.git/index.lock` (call only while holding the build lock); True if one was removed."""
    lock = Path(root) / ".git" / "index.lock"
    if not lock.exists():
        return False
    confine.remove(lock, root)
    log.warning("removed a stale %s left by a git command that was killed (no build held the wiki)", lock)
    return True
