"""The wiki folder as a git repository: one commit per session, so any session can be diffed and
the wiki restored to the end of any session (`wikigen rollback`). Machine state that is rebuilt or
per-process (locks, the corpus index, caches, temp files) is ignored, and so is the question log (what
people asked is not part of the wiki); config.json and progress.jsonl are committed.

The machine state is ignored twice: by the .gitignore a new wiki gets (it travels with a clone), and by
.git/info/exclude, rewritten with the same patterns whenever the repository is opened, so a wiki whose
.gitignore predates a state folder (.wikigen/page-index/, made by `ask`) does not see it as a change.

Session numbers never repeat: a build numbers its sessions after every session the history holds
(`last_session`), rolled-back ones included, so `rollback --session N` names one commit; a wiki that got
two commits of one number before (a rollback, then a build) is refused with both commits named.
A rollback is a write like a build: it takes the build lock (wikigen.wiki.buildlock; refused while a
build runs) and removes a stale `.git/index.lock` the way a build does.

The repository is private: git keeps every page ever written (quoted corpus text) in .git, so it is made
with `core.sharedRepository=0600` (git then writes its files 0600 and folders 0700 whatever the umask),
and a repository made before that is switched and tightened once (`keep_private`). The pages in the
working tree follow the umask: a wiki is meant to be read.

A change can also wait for review (`wikigen dream WIKI --review`): `start_review` checks the current commit
out into a second working tree of the same repository, WIKI/.wikigen/review, on the branch REVIEW_BRANCH;
the change is written and committed there (`finish_review`), so the wiki's own branch and its working pages
stay as they were. `apply_review` fast-forwards the wiki to that commit (`wikigen dream WIKI --apply`);
`discard_review` drops it.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from wikigen.core import confine
from wikigen.core.atomic import atomic_write, make_private
from wikigen.core.errors import WikigenError

GIT = ["git", "-c", "user.name=wikigen", "-c", "user.email=wikigen@localhost", "-c", "commit.gpgsign=false"]
GITIGNORE = """\
# wikigen machine state that is not history
.wikigen/locks/
.wikigen/index/
.wikigen/cache/
.wikigen/page-index/
.wikigen/questions.jsonl
.wikigen/review/
.*.tmp
*.lock
"""
REVIEW_BRANCH = "wikigen-review"
REVIEW_DIR = ".wikigen/review"


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
        ignore_machine_state(root)
        return False
    _git(root, "init", "-q", "--shared=0600")
    ignore_machine_state(root)
    return True


def ignore_machine_state(root: Path) -> None:
    """.git/info/exclude holds the machine-state patterns of GITIGNORE (whatever the wiki's .gitignore says)."""
    root = Path(root)
    exclude = root / ".git" / "info" / "exclude"
    text = "# written by wikigen: its machine state is not history\n" + GITIGNORE
    try:
        if exclude.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    if (root / ".git").is_dir():
        atomic_write(exclude, text, root=root, private=True)


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
    init_repo(root)  # makes the repository if needed; keeps private state out of it either way
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


_SESSION = re.compile(r"session (\d+):")


def last_session(root: Path) -> int:
    """The highest session number any commit of the wiki names (0 for none): the next build numbers after it."""
    numbers = [int(m.group(1)) for _, s in session_commits(root) if (m := _SESSION.match(s))]
    return max(numbers, default=0)


def session_commit(root: Path, session: int) -> str | None:
    """The hash of the commit that ended `session`; None when no commit names it. WikigenError when two
    commits name it (a wiki built again after a rollback before sessions were numbered apart)."""
    found = [(h, s) for h, s in session_commits(root) if s.split(":", 1)[0] == f"session {session}"]
    if len(found) > 1:
        shown = "; ".join(f"{h[:12]} ({s[:60]})" for h, s in found)
        raise WikigenError(
            f"session {session} names {len(found)} commits in {root}: {shown}; restore the one you mean with "
            f"`git -C {root} restore --source=COMMIT --staged --worktree -- . && git -C {root} commit -m "
            f'"rollback to COMMIT"`'
        )
    return found[0][0] if found else None


def rollback_to_session(root: Path, session: int) -> str:
    """Restore every file of the wiki to what it was at the end of `session`, as one new commit (history
    is kept: the sessions after it stay in the log of git and can be restored the same way). Pages made
    after that session go; the progress log goes back too; the next build numbers its sessions after the
    highest one the history holds. Holds the build lock (BuildLockedError while a build runs)."""
    from wikigen.wiki.buildlock import build_lock, recover_git_lock

    root = Path(root)
    with build_lock(root):
        recover_git_lock(root)
        ignore_machine_state(root)
        return _rollback(root, session)


def _rollback(root: Path, session: int) -> str:
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


# --- a change waiting for review ----------------------------------------------------------------------


@dataclass(frozen=True)
class Review:
    commit: str  # the reviewed change's commit on REVIEW_BRANCH
    base: str  # the wiki's commit it was made on
    subject: str
    summary: str  # the commit message's body: what the change does

    def to_dict(self) -> dict:
        return {"commit": self.commit, "base": self.base, "subject": self.subject, "summary": self.summary}


def _has_branch(root: Path, branch: str) -> bool:
    return _git(root, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", check=False).returncode == 0


def discard_review(root: Path) -> bool:
    """Drop the change waiting for review (its working tree and branch); False when there was none."""
    root = Path(root)
    had = _has_branch(root, REVIEW_BRANCH)
    _git(root, "worktree", "remove", "--force", REVIEW_DIR, check=False)
    confine.remove_tree(root / REVIEW_DIR, root)
    _git(root, "worktree", "prune", check=False)
    if had:
        _git(root, "branch", "-D", REVIEW_BRANCH)
    return had


def start_review(root: Path) -> Path:
    """A second working tree of the wiki's repository at its current commit (WIKI/.wikigen/review, branch
    REVIEW_BRANCH), for a change to be written and committed apart; an older review is dropped first."""
    root = Path(root)
    init_repo(root)
    if _git(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False).returncode != 0:
        raise WikigenError(f"{root} has no commit yet; build the wiki before reviewing a change to it")
    discard_review(root)
    _git(root, "worktree", "add", "-q", "-b", REVIEW_BRANCH, REVIEW_DIR, "HEAD")
    return root / REVIEW_DIR


def finish_review(root: Path, subject: str, summary: str) -> str | None:
    """Commit what changed in the review working tree (subject, then the summary as the body); the commit,
    or None when nothing changed (the review is then dropped)."""
    root = Path(root)
    tree = root / REVIEW_DIR
    _git(tree, "add", "--all", ".")
    if _git(tree, "diff", "--cached", "--quiet", check=False).returncode == 0:
        discard_review(root)
        return None
    _git(tree, "commit", "-q", "-m", subject, "-m", summary)
    commit = _git(tree, "rev-parse", "HEAD").stdout.strip()
    _git(root, "worktree", "remove", "--force", REVIEW_DIR, check=False)  # the branch keeps the commit
    confine.remove_tree(tree, root)
    _git(root, "worktree", "prune", check=False)
    return commit


def pending_review(root: Path) -> Review | None:
    """The change waiting for review, or None."""
    root = Path(root)
    if not (root / ".git").exists() or not _has_branch(root, REVIEW_BRANCH):
        return None
    commit = _git(root, "rev-parse", REVIEW_BRANCH).stdout.strip()
    base = _git(root, "rev-parse", f"{REVIEW_BRANCH}~1", check=False).stdout.strip()
    subject = _git(root, "log", "-1", "--format=%s", REVIEW_BRANCH).stdout.strip()
    summary = _git(root, "log", "-1", "--format=%b", REVIEW_BRANCH).stdout.strip()
    return Review(commit, base, subject, summary)


def apply_review(root: Path) -> Review:
    """Take the change waiting for review: the wiki fast-forwards to its commit (its pages change now), and
    the review branch goes. Refused when there is none, when the wiki has uncommitted changes, or when the
    wiki moved on since the review was made (make the review again)."""
    root = Path(root)
    review = pending_review(root)
    if review is None:
        raise WikigenError(f"no change is waiting for review in {root}; make one with `wikigen dream {root} --review`")
    if _git(root, "status", "--porcelain", "--untracked-files=no").stdout.strip():
        raise WikigenError(
            f"{root} has changes that are not committed; commit or discard them before applying a review "
            f"(see `git -C {root} status`)"
        )
    head = _git(root, "rev-parse", "HEAD").stdout.strip()
    if review.base != head:
        raise WikigenError(
            f"the wiki changed since the review was made (it was made on {review.base[:12]}, the wiki is at "
            f"{head[:12]}); make it again with `wikigen dream {root} --review`"
        )
    _git(root, "merge", "-q", "--ff-only", REVIEW_BRANCH)
    discard_review(root)
    return review
