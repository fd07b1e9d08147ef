"""Stale sources: a page remembers the sha256 of every document it quotes (front matter `source_hashes`);
when the corpus changes, `check` names the stale pages and the next build refreshes them.

    stamp_hashes(page, sources)        -> page with source_hashes of the documents it quotes (store.write)
    stale_sources(page, sources)       -> [(doc_id, why)] where the page's recorded hash is not the source's
    changed_sources(sources)           -> {doc_id: why} whose corpus file changed since it was indexed
    refresh_command(sources, wiki)     -> "wikigen build CORPUS --wiki WIKI", what every surface says to run
    SourceWatch(sources).changed()     -> changed_sources, looked at again at most every STALE_CHECK_SECONDS
    stale_note(docs, changed, sources, wiki) -> {"docs": {doc_id: why}, "run": command} of the docs shown that
                                          changed (None when none did): how a reply marks what it shows as stale
    refresh_wiki(wiki, session)        -> RefreshReport; run by a build right after it re-indexed:
        * a document page whose documents are all gone from the corpus becomes `deprecated` and moves to
          WIKI/archive/ (never deleted; status draft -> confirmed -> deprecated);
        * quotes of text that vanished (unknown document, or text no longer in it) are removed from the
          page, drifted ones re-anchored, and the page's source hashes re-stamped, through the store as
          the page's owner. Human-owned pages are left as they are (check keeps reporting them).
Content hashes, never size or mtime, decide whether a source changed. A page keeps the first HASH_CHARS
hex digits of each sha256 (64 bits: ample to tell a changed source, and small, since every page counts
against the wiki's size limit).
"""

from __future__ import annotations

import logging
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

from wikigen.core import confine
from wikigen.core.atomic import atomic_write
from wikigen.core.errors import WikigenError
from wikigen.wiki.page import Page, render_page
from wikigen.wiki.quotes import check_quote

log = logging.getLogger(__name__)

ARCHIVE_DIR = "archive"
STALE_CHECK_SECONDS = 2.0  # a long-running reader (server, MCP, an eval) looks at the corpus files again after this
HASH_CHARS = 8
HUMAN = "human"


def _doc_hashes(sources) -> dict[str, str]:
    try:
        return {d.doc_id: d.sha256 for d in sources.documents()}
    except (AttributeError, TypeError):
        return {}


def stamp_hashes(page: Page, sources, hashes: dict[str, str] | None = None) -> Page:
    """The page with source_hashes = the current sha256 of every document it quotes (or lists as a source)."""
    quoted = {b.quote.doc_id for b in page.quote_blocks()} | set(page.sources)
    if hashes is None:
        one = getattr(sources, "document", None)
        if one is None:
            hashes = _doc_hashes(sources)
        else:
            hashes = {d: info.sha256 for d in quoted if (info := one(d)) is not None}
    return page.with_(source_hashes={d: hashes[d][:HASH_CHARS] for d in sorted(quoted) if d in hashes})


def changed_sources(sources, changes=None) -> dict[str, str]:
    """{doc id: why} of the documents whose file changed or went away since the corpus index was built (by
    content hash; wikigen.search.freshness): the quotes citing them verify against the text as indexed, which
    the corpus no longer holds. {} when the sources cannot tell. changes: the corpus changes, if known."""
    if changes is None:
        changes_of = getattr(sources, "corpus_changes", None)
        if changes_of is None:
            return {}
        changes = changes_of()
    out = dict.fromkeys(changes.changed, "its source changed since it was indexed")
    out.update(dict.fromkeys(changes.removed, "its source was deleted since it was indexed"))
    return out


class SourceWatch:
    """changed_sources(sources) for a long-running reader (a server, MCP, an eval): the corpus folder is looked at
    again at most every STALE_CHECK_SECONDS (a file hashed again only when its stat changed); a corpus that
    cannot be looked at counts as unchanged, with a warning."""

    def __init__(self, sources, every: float = STALE_CHECK_SECONDS):
        self.sources = sources
        self.every = every
        self._seen: tuple[float, dict[str, str]] | None = None

    def changed(self) -> dict[str, str]:
        now = time.monotonic()
        if self._seen is None or now - self._seen[0] > self.every:
            try:
                changed = changed_sources(self.sources)
            except WikigenError as e:
                log.warning("cannot tell whether the corpus changed: %s", e)
                changed = {}
            self._seen = (now, changed)
        return self._seen[1]


def refresh_command(sources, wiki_root) -> str:
    """The command that refreshes a wiki after its corpus changed: a build re-indexes and re-anchors."""
    corpus = getattr(sources, "root", None) or "CORPUS"
    return f"wikigen build {shlex.quote(str(corpus))} --wiki {shlex.quote(str(wiki_root))}"


def stale_note(docs, changed: dict[str, str], sources, wiki_root) -> dict | None:
    """What a reply showing text or values of `docs` says of those whose corpus file changed (`changed`, from
    changed_sources): {"docs": {doc id: why}, "run": the command that refreshes the wiki}; None when none did.
    The one shape `ask`, MCP and the web view mark stale text with."""
    cited = {d: changed[d] for d in sorted(set(docs)) if d in changed}
    if not cited:
        return None
    return {"docs": cited, "run": refresh_command(sources, wiki_root)}


def stale_sources(page: Page, hashes: dict[str, str]) -> list[tuple[str, str]]:
    """(doc id, why) for each recorded source hash that the corpus index no longer has."""
    out = []
    for d, h in sorted(page.source_hashes.items()):
        now = hashes.get(d)
        if now is None:
            out.append((d, "the document is gone from the corpus"))
        elif not now.startswith(h):
            out.append((d, f"the document changed (sha256 {h[:12]} -> {now[:12]})"))
    return out


@dataclass
class RefreshReport:
    archived: list[str] = field(default_factory=list)  # slugs moved to archive/ as deprecated
    refreshed: list[str] = field(default_factory=list)  # slugs rewritten (re-anchored, re-stamped)
    removed_quotes: list[str] = field(default_factory=list)  # "slug: doc_id (chars a-b)"
    left: list[str] = field(default_factory=list)  # stale pages not touched (human-owned, unwritable)

    def lines(self) -> list[str]:
        out = []
        if self.archived:
            out.append(
                f"sources gone: {len(self.archived)} pages deprecated and moved to {ARCHIVE_DIR}/: "
                + ", ".join(self.archived[:10])
            )
        if self.removed_quotes:
            out.append(
                f"sources changed: removed {len(self.removed_quotes)} quotes of text that vanished: "
                + "; ".join(self.removed_quotes[:10])
            )
        if self.refreshed:
            out.append(f"sources changed: refreshed {len(self.refreshed)} pages: " + ", ".join(self.refreshed[:10]))
        if self.left:
            out.append("stale pages left as they are: " + "; ".join(self.left[:10]))
        return out


def archive_page(wiki, page: Page, note: str = "") -> Path:
    """The page, `deprecated`, at WIKI/archive/<slug>.md (with `note` opening its body); removed from the
    wiki. Both steps are kept inside the wiki (wikigen.core.confine): an archive/ that is a symlink out of
    it refuses the move with OutsideRootError before anything is written or removed."""
    dest = confine.inside(wiki.root / ARCHIVE_DIR / f"{page.slug}.md", wiki.root)
    src = confine.inside(wiki.root / f"{page.slug}.md", wiki.root)
    confine.make_dirs(dest.parent, wiki.root)
    body = f"{note}\n\n{page.body}" if note else page.body
    atomic_write(dest, render_page(page.with_(status="deprecated", body=body)), root=wiki.root)
    confine.remove(src, wiki.root)
    wiki.files_changed()
    return dest


def _drop_vanished(page: Page, sources) -> tuple[Page, list[str]]:
    lines = page.body.split("\n")
    drop: set[int] = set()
    removed: list[str] = []
    for b in page.quote_blocks():
        c = check_quote(b.quote, sources)
        if not c.ok:
            drop.update(range(b.header_line, b.end_line))
            removed.append(f"{page.slug}: {b.quote.doc_id} (chars {b.quote.start}-{b.quote.end})")
    if not drop:
        return page, []
    body = "\n".join(line for i, line in enumerate(lines) if i not in drop)
    while "\n\n\n" in body:
        body = body.replace("\n\n\n", "\n\n")
    return page.with_(body=body), removed


def refresh_wiki(wiki, session: int) -> RefreshReport:
    """Bring every page in line with the corpus as indexed now (see the module docstring)."""
    sources = wiki.sources
    hashes = _doc_hashes(sources)
    report = RefreshReport()
    if not hashes:
        return report
    for page in wiki.pages():
        stale = stale_sources(page, hashes)
        quoted = {b.quote.doc_id for b in page.quote_blocks()}
        unknown = [d for d in quoted | set(page.sources) if d not in hashes]
        if not stale and not unknown and (page.source_hashes or not (quoted or page.sources)):
            continue
        if page.owner == HUMAN:
            if stale or unknown:
                names = sorted({d for d, _ in stale} | set(unknown))
                report.left.append(f"{page.slug} (human-owned): " + ", ".join(names))
            continue
        if page.type == "document" and page.sources and all(d not in hashes for d in page.sources):
            archive_page(wiki, page)
            report.archived.append(page.slug)
            continue
        new, removed = _drop_vanished(page, sources)
        new = new.with_(sources=[d for d in new.sources if d in hashes])
        try:
            wiki.write(new, agent=page.owner, session=session)
        except WikigenError as e:
            report.left.append(f"{page.slug}: {e}")
            continue
        report.removed_quotes += removed
        if stale or unknown or removed:
            report.refreshed.append(page.slug)
    return report
