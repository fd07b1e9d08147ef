"""What a build does around its sessions to keep the wiki trustworthy (called by wikigen.agents.orchestrate).

before_build (under the build lock, before anything is written):
  * a wiki built from another corpus is refused unless --force;
  * edits made outside a build since the last commit are found with `git status` and kept
    (wikigen.wiki.human): committed as a human commit before the build touches anything.
after_build: the wiki is checked (wikigen.wiki.lint.check_wiki); every BLOCKING problem (a page that
does not parse, a quote that does not verify, a stale source, a secret, a bad owner or source, a page
that is not a regular file) is returned as a line, so such a build ends non-zero.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from wikigen.core.errors import WikigenError

log = logging.getLogger(__name__)

MAX_LINES = 20
# problems a build must not leave behind; orphans, broken links and index staleness are normal between
# sessions of an unfinished wiki (the next session links and re-indexes), so they do not fail a build
BLOCKING = frozenset(
    {"page", "quote", "stale", "secret", "owner", "source", "unverified-quote", "not-a-file", "link-out"}
)


def recorded_corpus(root: Path) -> Path | None:
    """The corpus folder a wiki's config.json records (resolved), or None for a new wiki."""
    try:
        cfg = json.loads((Path(root) / ".wikigen" / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    c = cfg.get("corpus_dir") if isinstance(cfg, dict) else None
    if not c:
        return None
    p = Path(c)
    return (p if p.is_absolute() else Path(root) / p).resolve()


def check_corpus(root: Path, corpus: Path, *, force: bool = False) -> None:
    """WikigenError when the wiki was built from another corpus, unless force."""
    old = recorded_corpus(root)
    if old is not None and old != Path(corpus).resolve() and not force:
        raise WikigenError(
            f"the wiki {root} was built from another corpus ({old}); build it from that corpus, "
            f"choose a new --wiki folder, or pass --force to switch its corpus"
        )


def pending_human_edits(root: Path) -> list[str]:
    """The page files edited since the last commit, which before_build would commit as human edits (read only)."""
    from wikigen.wiki.human import changed_pages

    return changed_pages(Path(root)) if (Path(root) / ".git").is_dir() else []


def before_build(root: Path, corpus: Path, *, force: bool = False) -> list[str]:
    from wikigen.wiki.human import keep_human_edits

    check_corpus(root, corpus, force=force)
    lines = []
    kept = keep_human_edits(root)
    if kept.pages:
        lines.append(
            f"kept human edits to {len(kept.pages)} pages (commit {kept.commit[:12]}): "
            + ", ".join(kept.pages[:10])
            + (" ..." if len(kept.pages) > 10 else "")
            + (f"; now human-owned (agents leave them alone): {', '.join(kept.owned)}" if kept.owned else "")
        )
    return lines


def after_build(wiki) -> list[str]:
    """The problems `check` finds in the wiki after the build, as lines (empty when the wiki is sound)."""
    from wikigen.core.atomic import make_private
    from wikigen.wiki.lint import check_wiki

    make_private(wiki.root / ".wikigen")  # what the build added (caches, index files) is private too
    index_dir = wiki.config.get("index_dir")
    if index_dir:
        p = Path(index_dir) if Path(index_dir).is_absolute() else wiki.root / index_dir
        make_private(p / "texts")
    report = check_wiki(wiki)
    bad = [p for p in report.problems if p.kind in BLOCKING]
    if not bad:
        return []
    lines = [f"the wiki fails `wikigen check {wiki.root}`: {len(bad)} problems"]
    lines += ["  " + p.line() for p in bad[:MAX_LINES]]
    if len(bad) > MAX_LINES:
        lines.append(f"  ... and {len(bad) - MAX_LINES} more")
    return lines
