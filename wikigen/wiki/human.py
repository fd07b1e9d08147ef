"""Human edits: changes made to a wiki's pages outside a build are found, committed and kept.

`git status` in the wiki repository, against the last commit (the last session's), lists what changed
since. A page file whose body or fields changed while its `updated_session` stayed at or below the
last committed session was edited by a person (a build always stamps the session it writes in), and a
new page with no later session is a person's too. Changes a killed build left (pages stamped with a
session that never committed) are not human edits: they are folded into the next session's commit.

The policy (documented in README "What is kept safe"): a page a person edited becomes human-owned
(`owner: human`) unless the person set another owner; agents never write a page they do not own, so
the edit is kept as written. Human edits are committed first, as their own commit (author "human"),
so they are in the history before the build touches anything.
"""

from __future__ import annotations

import logging
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from wikigen.core.atomic import atomic_write
from wikigen.core.errors import PageError
from wikigen.core.slugs import is_slug
from wikigen.wiki.history import keep_private
from wikigen.wiki.page import is_reserved, parse_page, render_page

log = logging.getLogger(__name__)

HUMAN = "human"
DREAMER = "dreamer"  # the dreaming agent (wikigen.agents.dreaming): its pages are an agent's too
_AGENT_RE = re.compile(r"agent-\d+|" + DREAMER)


@dataclass
class HumanEdits:
    pages: list[str] = field(default_factory=list)  # slugs a person changed or added
    owned: list[str] = field(default_factory=list)  # of those, made human-owned now
    commit: str = ""


def _git(root: Path, *args: str, author: bool = False) -> subprocess.CompletedProcess:
    who = HUMAN if author else "wikigen"
    return subprocess.run(
        [
            "git",
            "-c",
            f"user.name={who}",
            "-c",
            f"user.email={who}@localhost",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "core.quotepath=false",
            *args,
        ],
        cwd=root,
        capture_output=True,
        text=True,
    )


def _last_session(root: Path) -> int:
    proc = _git(root, "log", "--format=%s")
    for subject in proc.stdout.splitlines():
        m = re.match(r"session (\d+):", subject)
        if m:
            return int(m.group(1))
    return 0


def _head_text(root: Path, name: str) -> str | None:
    proc = _git(root, "show", f"HEAD:{name}")
    return proc.stdout if proc.returncode == 0 else None


def changed_pages(root: Path) -> list[str]:
    """Page files (slug.md at the top of the wiki) that differ from the last commit or are new."""
    proc = _git(root, "status", "--porcelain", "-z", "--untracked-files=all", "--", "*.md")
    if proc.returncode != 0:
        return []
    out = []
    for item in proc.stdout.split("\0"):
        if len(item) < 4:
            continue
        name = item[3:]
        if "/" in name or not name.endswith(".md"):
            continue
        stem = name[:-3]
        if is_slug(stem) and not is_reserved(stem) and (root / name).is_file():
            out.append(name)
    return sorted(out)


def is_agent(owner: str) -> bool:
    return bool(_AGENT_RE.fullmatch(owner or ""))


def keep_human_edits(root: Path) -> HumanEdits:
    """Commit the pages people edited since the last commit (see the module docstring)."""
    root = Path(root)
    found = HumanEdits()
    if not (root / ".git").exists():
        return found
    last = _last_session(root)
    for name in changed_pages(root):
        path = root / name
        try:
            page = parse_page(path.read_text(encoding="utf-8"))
        except (PageError, OSError, UnicodeDecodeError):
            found.pages.append(name[:-3])  # a broken edit is still a person's: commit it, check reports it
            continue
        if page.updated_session > last:
            continue  # written by a build that was killed before its commit
        old_text = _head_text(root, name)
        old_owner = None
        if old_text is not None:
            try:
                old_owner = parse_page(old_text).owner
            except PageError:
                old_owner = None
        found.pages.append(page.slug)
        if is_agent(page.owner) and (old_owner is None or page.owner == old_owner):
            atomic_write(path, render_page(page.with_(owner=HUMAN)), root=root)
            found.owned.append(page.slug)
    if not found.pages:
        return found
    names = [f"{s}.md" for s in found.pages]
    _git(root, "add", "--", *names)
    msg = f"human edits: {', '.join(found.pages[:20])}" + (" ..." if len(found.pages) > 20 else "")
    proc = _git(root, "commit", "-q", "-m", msg, "--", *names, author=True)
    if proc.returncode == 0:
        keep_private(root)
        found.commit = _git(root, "rev-parse", "HEAD").stdout.strip()
        log.warning("kept human edits to %d pages: %s", len(found.pages), ", ".join(found.pages))
    else:
        log.warning("could not commit human edits: %s", proc.stderr.strip())
    return found
