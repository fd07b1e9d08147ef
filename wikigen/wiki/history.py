"""The wiki folder as a git repository: one commit per session, so any session can be diffed and
the wiki restored to the end of any session (`wikigen rollback`). Machine state that is rebuilt or per-process (locks, the corpus index, caches, temp
files) is ignored; config.json and progress.jsonl are committed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

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
        gi.write_text(GITIGNORE, encoding="utf-8")
    if (root / ".git").exists():
        return False
    _git(root, "init", "-q")
    return True


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
    return _git(root, "rev-parse", "HEAD").stdout.strip()


def session_commits(root: Path) -> list[tuple[str, str]]:
    """(hash, subject) of every commit, oldest first."""
    proc = _git(Path(root), "log", "--reverse", "--format=%H %s", check=False)
    if proc.returncode != 0:
        return []
    return [tuple(line.split(" ", 1)) for line in proc.stdout.splitlines() if line]


def commits_holding(root: Path, needles: list[str], limit: int = 20) -> list[str]:
    """Short hashes of the commits (on any branch) whose message, file names or changed lines hold any of the
    needles, compared case-insensitively; at most `limit`. [] when the wiki has no history."""
    root = Path(root)
    wanted = [n.lower() for n in needles if n]
    if not wanted or not (root / ".git").exists():
        return []
    proc = _git(root, "log", "--all", "-p", "--format=@@commit %h%n%s%n%b", check=False)
    found: list[str] = []
    commit = ""
    for line in proc.stdout.splitlines():
        if line.startswith("@@commit "):
            commit = line.split(" ", 1)[1]
            continue
        if commit and (not found or found[-1] != commit) and any(n in line.lower() for n in wanted):
            found.append(commit)
            if len(found) >= limit:
                break
    return found


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
    return _git(root, "rev-parse", "HEAD").stdout.strip()
