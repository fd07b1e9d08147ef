"""The page graph: [[links]] parsed with markdown-it-py, a networkx DiGraph, broken links, orphans,
dead ends, and a deterministic repair pass.

Decisions:
* Links in code (fences, indented code, inline code) are not links; neither is anything inside a
  quote callout (a quote is data). A ``[[slug#heading|label]]`` link targets ``slug``.
* The graph holds content pages only. index.md, index-*.md and log.md are generated and are not part
  of it, so a page linked only from the index is still an orphan. Self-links are ignored.
* A dead end is a page with no link to another existing page.
* Repair (runs as the system between sessions) points a broken link at the page it most plausibly
  meant, trying in order: ``slug`` (the target normalised: case, accents, spaces/underscores ->
  '-'), ``redirect`` (a page merged into another, wikigen.wiki.merge), ``title``, ``alias`` (only when exactly one page matches), ``close-match`` (difflib, cutoff
  0.85); otherwise ``unlinked``: the link becomes its label as plain text. It rewrites link targets
  only, writing each page through the store on behalf of its owner.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

import networkx as nx

from wikigen.core.errors import WikigenError
from wikigen.core.slugs import slugify, strip_accents
from wikigen.wiki.markup import WIKI_RE, body_links, split_target, wikilink
from wikigen.wiki.page import Page, render_page, split_front_matter

CLOSE_MATCH_CUTOFF = 0.85


@dataclass(frozen=True)
class PageLink:
    source: str
    target: str
    line: int  # 1-based line in the page file


def page_links(page: Page) -> list[PageLink]:
    _, _, offset = split_front_matter(render_page(page))
    return [PageLink(page.slug, ln.target, ln.line + offset + 1) for ln in body_links(page.body)]


def build_graph(pages: list[Page]) -> nx.DiGraph:
    """Nodes: pages (exists=True) and missing targets (exists=False); edges carry the first link's line."""
    g: nx.DiGraph[str] = nx.DiGraph()
    for p in sorted(pages, key=lambda p: p.slug):
        g.add_node(p.slug, exists=True)
    for p in sorted(pages, key=lambda p: p.slug):
        for link in page_links(p):
            if link.target == p.slug:
                continue
            if link.target not in g:
                g.add_node(link.target, exists=False)
            if not g.has_edge(p.slug, link.target):
                g.add_edge(p.slug, link.target, line=link.line)
    return g


def page_edges(pages: list[Page], graph: nx.DiGraph | None = None) -> list[tuple[str, str]]:
    """The links between pages, the one definition every surface counts (`stats`, the web view's figures and
    graph): distinct (source, target) pairs of two existing pages, sorted; a link repeated on a page counts
    once, a page's link to itself not at all, and a broken link is not a link between pages (LinkReport.broken
    counts those)."""
    g = build_graph(pages) if graph is None else graph
    return sorted((u, v) for u, v in g.edges if g.nodes[v]["exists"])


@dataclass
class LinkReport:
    links: int = 0  # len(page_edges(pages))
    broken: list[PageLink] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)
    dead_ends: list[str] = field(default_factory=list)


def analyze_links(pages: list[Page]) -> LinkReport:
    slugs = {p.slug for p in pages}
    report = LinkReport()
    for p in sorted(pages, key=lambda p: p.slug):
        for link in page_links(p):
            if link.target not in slugs:
                report.broken.append(link)
    g = build_graph(pages)
    report.links = len(page_edges(pages, g))
    exists = [n for n, d in g.nodes(data=True) if d["exists"]]
    report.orphans = sorted(n for n in exists if g.in_degree(n) == 0)
    report.dead_ends = sorted(n for n in exists if not any(g.nodes[t]["exists"] for t in g.successors(n)))
    return report


# --- repair ------------------------------------------------------------------------------------


class Resolver:
    """Where a broken target most plausibly points, by the rules in the module docstring."""

    def __init__(self, pages: list[Page], redirects: dict[str, str] | None = None):
        self.slugs = sorted(p.slug for p in pages)
        self.redirects = redirects or {}  # merged page -> the page it was merged into (wiki.merge)
        self._slugset = set(self.slugs)
        self._unaccented: dict[str, set[str]] = {}
        for s in self.slugs:
            self._unaccented.setdefault(strip_accents(s), set()).add(s)
        self._titles: dict[str, set[str]] = {}
        self._aliases: dict[str, set[str]] = {}
        for p in pages:
            for key in {p.title.casefold().strip(), slugify(p.title)} - {""}:
                self._titles.setdefault(key, set()).add(p.slug)
            for a in p.aliases:
                for key in {a.casefold().strip(), slugify(a)} - {""}:
                    self._aliases.setdefault(key, set()).add(p.slug)

    def resolve(self, target: str) -> tuple[str | None, str]:
        if target in self._slugset:
            return target, "exists"
        norm = slugify(target)
        if norm in self._slugset:
            return norm, "slug"
        plain = self._unaccented.get(strip_accents(norm), set())
        if len(plain) == 1:
            return next(iter(plain)), "slug"
        for key in (target, norm):
            if self.redirects.get(key) in self._slugset:
                return self.redirects[key], "redirect"
        for rule, table in (("title", self._titles), ("alias", self._aliases)):
            for key in (target.casefold().strip(), norm):
                hits = table.get(key, set())
                if len(hits) == 1:
                    return next(iter(hits)), rule
        if norm:
            close = difflib.get_close_matches(norm, self.slugs, n=1, cutoff=CLOSE_MATCH_CUTOFF)
            if close:
                return close[0], "close-match"
        return None, "unlinked"


@dataclass(frozen=True)
class RepairEntry:
    page: str
    line: int  # 1-based line in the page file
    old_target: str
    new_target: str | None  # None: the link became plain text
    rule: str  # slug | title | alias | close-match | unlinked

    def line_text(self) -> str:
        new = f"[[{self.new_target}]]" if self.new_target else "plain text"
        return f"{self.page}.md:{self.line}: [[{self.old_target}]] -> {new} ({self.rule})"


@dataclass
class RepairReport:
    entries: list[RepairEntry] = field(default_factory=list)
    pages_changed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.entries)

    def by_rule(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for e in self.entries:
            out[e.rule] = out.get(e.rule, 0) + 1
        return dict(sorted(out.items()))

    def lines(self) -> list[str]:
        head = f"repaired {self.count} links in {len(self.pages_changed)} pages"
        if self.entries:
            head += ": " + ", ".join(f"{k} {v}" for k, v in self.by_rule().items())
        return [head] + [e.line_text() for e in self.entries] + [f"error: {e}" for e in self.errors]


def _code_ranges(line: str) -> list[tuple[int, int]]:
    """Column ranges of inline code spans on one line (backtick runs of equal length)."""
    out: list[tuple[int, int]] = []
    i = 0
    while True:
        m = re.compile(r"`+").search(line, i)
        if not m:
            return out
        close = re.compile(r"(?<!`)" + re.escape(m.group()) + r"(?!`)").search(line, m.end())
        if not close:
            return out
        out.append((m.start(), close.end()))
        i = close.end()


def repair_body(body: str, resolver: Resolver, slug: str, line_offset: int = 0) -> tuple[str, list[RepairEntry]]:
    """The body with every broken link re-pointed or unlinked, and what was done (deterministic)."""
    broken_lines = sorted({ln.line for ln in body_links(body) if ln.target not in resolver._slugset})
    if not broken_lines:
        return body, []
    lines = body.split("\n")
    entries: list[RepairEntry] = []
    for idx in broken_lines:
        line = lines[idx]
        code = _code_ranges(line)

        def sub(m: re.Match) -> str:
            if any(a <= m.start() < b for a, b in code):  # noqa: B023
                return m.group(0)
            raw, label = m.group(1), m.group(2)
            target = split_target(raw)
            if not target or target in resolver._slugset:
                return m.group(0)
            new, rule = resolver.resolve(target)
            entries.append(RepairEntry(slug, idx + line_offset + 1, target, new, rule))  # noqa: B023
            visible = (label or raw).strip()
            if new is None:
                return visible
            suffix = raw.strip()[len(target) :] if raw.strip().startswith(target) else ""
            return wikilink(f"{new}{suffix}", visible, like=m)

        lines[idx] = WIKI_RE.sub(sub, line)
    return "\n".join(lines), entries


def repair_links(wiki, *, session: int) -> RepairReport:
    """Repair every broken link in the wiki; each changed page is written through the store as its owner."""
    from wikigen.wiki.merge import read_redirects

    pages = wiki.pages()
    resolver = Resolver(pages, read_redirects(wiki.root))
    report = RepairReport()
    for page in sorted(pages, key=lambda p: p.slug):
        _, _, offset = split_front_matter(render_page(page))
        body, entries = repair_body(page.body, resolver, page.slug, offset)
        if not entries:
            continue
        try:
            wiki.write(page.with_(body=body), agent=page.owner, session=session)
        except WikigenError as e:
            report.errors.append(f"{page.slug}: {e}")
            continue
        report.entries.extend(entries)
        report.pages_changed.append(page.slug)
    return report
