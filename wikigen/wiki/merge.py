"""Merge two pages that turn out to be one subject; the merged page redirects, and links follow.

    merge_pages(wiki, keep, gone, agent=..., session=...) -> MergeReport

The kept page takes the quotes of the gone page that it does not already carry (same document and
span), under a ``## Merged from TITLE (gone)`` section, and the gone page's title and aliases as aliases;
its sources become the union. The gone page is never deleted: it becomes ``deprecated`` and moves to
WIKI/archive/ (as wikigen.wiki.freshness does for pages whose documents left the corpus), its body
opening with ``Merged into [[keep]].``; WIKI/.wikigen/redirects.json records gone -> keep, so the
link repair (wikigen.wiki.links) sends any later [[gone]] link to the kept page. Links to the gone page
in other pages are repaired at once, each page written through the store as its owner.

Ownership holds: the acting agent must own both pages (OwnershipError otherwise), and every write goes
through Wiki.write (quotes verified, size guard).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from wikigen.core.atomic import atomic_write
from wikigen.core.errors import OwnershipError, PageError, WikigenError
from wikigen.core.locks import file_lock
from wikigen.wiki.freshness import archive_page
from wikigen.wiki.markup import WIKI_RE, explicit_quotes, format_quote, scan_quotes, split_target, wikilink
from wikigen.wiki.page import Page, validate_slug

REDIRECTS = "redirects.json"
MERGED_HEADING = "## Merged from "


@dataclass
class MergeReport:
    keep: str
    gone: str
    quotes_moved: int = 0
    quotes_shared: int = 0  # quotes of the gone page the kept page already had
    links_repaired: list[str] = field(default_factory=list)  # pages whose [[gone]] links now point at keep
    errors: list[str] = field(default_factory=list)


def redirects_path(root: Path) -> Path:
    return Path(root) / ".wikigen" / REDIRECTS


def read_redirects(root: Path) -> dict[str, str]:
    """gone slug -> kept slug, followed to the end of a chain (a -> b -> c gives a -> c)."""
    try:
        raw = json.loads(redirects_path(root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    table = {k: v for k, v in (raw.get("redirects") or {}).items() if isinstance(k, str) and isinstance(v, str)}
    out = {}
    for k in table:
        seen, v = {k}, table[k]
        while v in table and v not in seen:
            seen.add(v)
            v = table[v]
        out[k] = v
    return out


def _write_redirects(root: Path, table: dict[str, str]) -> None:
    atomic_write(
        redirects_path(root),
        json.dumps({"version": 1, "redirects": dict(sorted(table.items()))}, indent=1) + "\n",
        root=root,
    )


def _relink(body: str, gone: str, keep: str) -> str:
    """[[gone]] and [[gone|label]] become links to keep (outside quotes: quote lines are left as they are)."""
    quote_lines: set[int] = set()
    try:
        for b in scan_quotes(body, page_doc=""):
            quote_lines.update(range(b.header_line, b.end_line))
    except PageError:
        return body
    lines = body.split("\n")

    def sub(m: re.Match) -> str:
        raw, label = m.group(1), m.group(2)
        if split_target(raw) != gone:
            return m.group(0)
        rest = raw[len(raw.split("#", 1)[0].split("^", 1)[0]) :]
        return wikilink(f"{keep}{rest}", label, like=m)

    return "\n".join(line if i in quote_lines else WIKI_RE.sub(sub, line) for i, line in enumerate(lines))


def merged_body(keep: Page, gone: Page) -> tuple[str, int, int]:
    """The kept page's body with the gone page's new quotes appended; (body, moved, shared)."""
    have = {(b.quote.doc_id, b.quote.start, b.quote.end) for b in keep.quote_blocks()}
    new = [b.quote for b in gone.quote_blocks() if (b.quote.doc_id, b.quote.start, b.quote.end) not in have]
    shared = len(gone.quote_blocks()) - len(new)
    body = _relink(explicit_quotes(keep.body, keep.quote_doc) if new else keep.body, gone.slug, keep.slug)
    if new:
        parts = [body.rstrip("\n"), f"{MERGED_HEADING}{gone.title} ({gone.slug})", *(format_quote(q) for q in new)]
        body = "\n\n".join(parts) + "\n"
    return body, len(new), shared


def merge_pages(wiki, keep: str, gone: str, *, agent: str, session: int) -> MergeReport:
    """Merge page `gone` into page `keep` (see the module docstring). Raises OwnershipError when `agent`
    does not own both, PageError for a missing page or a page merged into itself; nothing is changed then."""
    validate_slug(keep), validate_slug(gone)
    if keep == gone:
        raise PageError(f"cannot merge page {keep!r} into itself")
    kp, gp = wiki.read(keep), wiki.read(gone)
    for p in (kp, gp):
        if p.owner != agent:
            raise OwnershipError(
                f"agent {agent!r} cannot merge page {p.slug!r}, owned by {p.owner!r}; "
                "a merge changes pages its agent owns"
            )
    body, moved, shared = merged_body(kp, gp)
    aliases = list(dict.fromkeys([*kp.aliases, gp.title, *gp.aliases]))
    aliases = [a for a in aliases if a and a != kp.title]
    sources = list(dict.fromkeys([*kp.sources, *gp.sources]))
    wiki.write(kp.with_(body=body, aliases=aliases, sources=sources, status="draft"), agent=agent, session=session)
    archive_page(wiki, gp, f"Merged into [[{keep}]] in session {session}.")
    with file_lock(wiki.locks / "redirects.lock"):  # agents merge at once: no redirect written beside is lost
        table = read_redirects(wiki.root)
        table = {k: (keep if v == gone else v) for k, v in table.items()}
        table[gone] = keep
        _write_redirects(wiki.root, table)
    report = MergeReport(keep, gone, moved, shared)
    for page in wiki.pages():
        if gone not in page.links():
            continue
        try:
            wiki.write(page.with_(body=_relink(page.body, gone, keep)), agent=page.owner, session=session)
            report.links_repaired.append(page.slug)
        except WikigenError as e:
            report.errors.append(f"{page.slug}: {e}")
    return report
