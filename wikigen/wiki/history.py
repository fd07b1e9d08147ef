"""The wiki folder as a git repository: one commit per session, so any session can be diffed and
the wiki restored to the end of any session (`wikigen rollback`). Machine state that is rebuilt or
per-process (locks, the corpus index, caches, temp files) is ignored; config.json and progress.jsonl are
committed.

The repository is private: git keeps every page ever written (quoted corpus text) in .git, so it is made
with `core.sharedRepository=0600` (git then writes its files 0600 and folders 0700 whatever the umask),
and a repository made before that is switched and tightened once (`keep_private`). The pages in the
working tree follow the umask: a wiki is meant to be read.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from wikigen.core.atomic import atomic_write, make_private
from wikigen.core.errors import WikigenError

GIT = ["git", "-c", "user.name=wikigen", "-c", "user.email=wikigen@localhost", "-c", "commit.gpgsign=false"]
GITIGNORE = """\
# wikigen machine state that is not history
.wikigen/locks/
.wikigen/index/
.wikigen/cache/
.*.tmp
*.lock
"""


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run([*GIT, *args], cwd=root, capture_output=True, text=True)
    except FileNotFoundError:
        raise WikigenError("git is not installed; install git to keep the wiki's history") from None
    if check and proc.returncode != 0:
        raise WikigenError(f"git {' '.join(args)} failed in {root}: {proc.stderr.strip() or proc.stdout.strip()}")
    return proc


def init_repo(root: Path) -> bool:
    """Make the wiki folder a git repository with the .gitignore; False when it already was one."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    gi = root / ".gitignore"
    if not gi.exists():
        atomic_write(gi, GITIGNORE, root=root)
    if (root / ".git").exists():
        keep_private(root)
        return False
    _git(root, "init", "-q", "--shared=0600")
    return True


def keep_private(root: Path) -> None:
    """A repository made before the privacy policy: switch it to 0600 files and tighten what it holds (once;
    afterwards git keeps it so). COMMIT_EDITMSG, which git writes with the umask's mode, is tightened always."""
    root = Path(root)
    if _git(root, "config", "core.sharedRepository", check=False).stdout.strip() != "0600":
        _git(root, "config", "core.sharedRepository", "0600")
        make_private(root / ".git")
    msg = root / ".git" / "COMMIT_EDITMSG"
    if msg.exists():
        os.chmod(msg, 0o600)


def commit_session(root: Path, session: int, summary: str) -> str | None:
    """Commit everything that changed in the wiki as one commit for the session; its hash, or None
    when nothing changed (no commit is made)."""
    root = Path(root)
    if not (root / ".git").exists():
        init_repo(root)
    _git(root, "add", "--all", ".")
    if _git(root, "diff", "--cached", "--quiet", check=False).returncode == 0:
        return None
    _git(root, "commit", "-q", "-m", f"session {session}: {summary}".strip())
    keep_private(root)
    return _git(root, "rev-parse", "HEAD").stdout.strip()


def session_commits(root: Path) -> list[tuple[str, str]]:
    """(hash, subject) of every commit, oldest first."""
    proc = _git(Path(root), "log", "--reverse", "--format=%H %s", check=False)
    if proc.returncode != 0:
        return []
    return [tuple(line.split(" ", 1)) for line in proc.stdout.splitlines() if line]


def diff_commit(root: Path, commit: str) -> str:
    return _git(Path(root), "show", "--format=", commit).stdout


def session_commit(root: Path, session: int) -> str | None:
    """The hash of the commit that ended `session` (the last one, if a session was committed twice)."""
    found = None
    for h, subject in session_commits(root):
        if subject.split(":", 1)[0] == f"session {session}":
            found = h
    return found


def rollback_to_session(root: Path, session: int) -> str:
    """Restore every file of the wiki to what it was at the end of `session`, as one new commit (history
    is kept: the sessions after it stay in the log of git and can be restored the same way). Pages made
    after that session go; the progress log goes back too, so the next build continues after `session`."""
    root = Path(root)
    commit = session_commit(root, session)
    if commit is None:
        have = [s.split(":", 1)[0] for _, s in session_commits(root) if s.startswith("session ")]
        raise WikigenError(f"no commit for session {session} in {root}; the wiki has: {', '.join(have) or 'none'}")
    if _git(root, "status", "--porcelain").stdout.strip():
        raise WikigenError(
            f"{root} has changes that are not committed; commit or discard them before a rollback "
            f"(see `git -C {root} status`)"
        )
    _git(root, "restore", f"--source={commit}", "--staged", "--worktree", "--", ".")
    if _git(root, "diff", "--cached", "--quiet", check=False).returncode == 0:
        return _git(root, "rev-parse", "HEAD").stdout.strip()
    _git(root, "commit", "-q", "-m", f"rollback to session {session} ({commit[:12]})")
    keep_private(root)
    return _git(root, "rev-parse", "HEAD").stdout.strip()
