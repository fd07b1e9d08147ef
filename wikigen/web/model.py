"""SiteData: one read of a wiki for the web view: its pages, its generated pages (index, log), its
corpus index (documents and their extracted texts), the documents table (`wikigen.search.documents`), its
progress log and git history.

Both modes render from it: the static site once, the live server again whenever the wiki's files change
(``wikigen.wiki.store.fingerprint``).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from wikigen.core.errors import WikigenError
from wikigen.core.slugs import SLUG_PATTERN
from wikigen.core.text import normalize_newlines
from wikigen.search.documents import DocumentRow, columns, document_rows
from wikigen.search.index import CorpusIndex
from wikigen.search.sources import corpus_index, open_wiki
from wikigen.web.growth import SessionRow, session_rows
from wikigen.web.layout import graph_positions
from wikigen.web.render import Links, source_key
from wikigen.wiki.freshness import changed_sources, refresh_command
from wikigen.wiki.history import session_commits
from wikigen.wiki.links import page_edges
from wikigen.wiki.markup import WIKI_RE, Quote, split_target
from wikigen.wiki.page import Page, count_quotes
from wikigen.wiki.progress import Coverage, ProgressLog, coverage
from wikigen.wiki.provisions import read_table
from wikigen.wiki.size_guard import WARN_FRACTION
from wikigen.wiki.summary import page_summary

log = logging.getLogger(__name__)

GENERATED_RE = re.compile(r"(index|log|conflicts|(?:index|provisions)-" + SLUG_PATTERN + ")")
_TERM_RE = re.compile(r"\w+", re.UNICODE)
MAX_TERMS_PER_PAGE = 2000  # the client-side search index stays small
# the graph's clusters: a document sits beside the kind (collection) it is in, else a topic, else a figure
HUB_RANK = {"collection": 0, "topic": 1, "figure": 2}


@dataclass(frozen=True)
class DocView:
    doc_id: str
    key: str
    title: str
    path: str
    chars: int
    tokens: int


@dataclass
class SiteData:
    root: Path
    title: str
    pages: dict[str, Page]  # content pages by slug, sorted
    generated: dict[str, str]  # stem -> markdown of index.md, index-*.md, log.md, conflicts.md
    page_errors: list[str]
    docs: dict[str, DocView]  # doc id -> document, sorted
    max_ratio: float
    warn_fraction: float
    sessions: list[SessionRow]
    cov: Coverage | None
    sources: CorpusIndex | None = None  # the corpus index, None when it cannot open
    sources_error: str | None = None
    quotes_by_doc: dict[str, list[tuple[str, Quote]]] = field(default_factory=dict)
    stale: dict[str, str] = field(default_factory=dict)  # doc id -> why: its corpus file changed since indexing
    rows: list[DocumentRow] = field(default_factory=list)  # the documents table, one row per document
    _graph: dict | None = field(default=None, repr=False)
    _edges: list[tuple[str, str]] | None = field(default=None, repr=False)
    _backlinks: dict[str, list[str]] | None = field(default=None, repr=False)
    _by_key: dict[str, DocView] | None = field(default=None, repr=False)
    _row_of: dict[str, DocumentRow] | None = field(default=None, repr=False)

    # --- loading -------------------------------------------------------------------------------

    @classmethod
    def load(cls, wiki_root: Path) -> SiteData:
        root = Path(wiki_root)
        wiki = open_wiki(root)
        pages, errors = wiki.load()
        sources: CorpusIndex | None = None
        sources_error: str | None = None
        docs: dict[str, DocView] = {}
        try:
            sources = corpus_index(wiki)
            for d in sources.documents():
                docs[d.doc_id] = DocView(d.doc_id, source_key(d.doc_id), d.title or d.doc_id, d.path, d.chars, d.tokens)
        except WikigenError as e:
            sources_error = str(e)
            log.warning("web view without the corpus: %s", e)
        generated = {}
        for path in sorted(root.glob("*.md")):
            if GENERATED_RE.fullmatch(path.stem):
                generated[path.stem] = normalize_newlines(path.read_text(encoding="utf-8", errors="replace"))
        progress = ProgressLog(root).read()
        cov = coverage(progress, pages, list(docs)) if docs else None
        rows = session_rows(progress.entries, session_commits(root))
        data = cls(
            root=root,
            title=root.resolve().name,
            pages={p.slug: p for p in sorted(pages, key=lambda p: p.slug)},
            generated=generated,
            page_errors=errors,
            docs=docs,
            max_ratio=wiki.max_ratio,
            warn_fraction=WARN_FRACTION,
            sessions=rows,
            cov=cov,
            sources=sources,
            sources_error=sources_error,
        )
        data._index_quotes()
        data.rows = document_rows(list(data.pages.values()), sources, read_table(root))
        data.check_sources()
        return data

    def check_sources(self) -> None:
        """Look again at which documents changed in the corpus since indexing (wikigen.wiki.freshness; a file is
        hashed again only when its stat changed): their quotes, their rows of the documents table and their values
        on generated pages are shown as stale."""
        if self.sources is not None:
            try:
                self.stale = changed_sources(self.sources)
            except WikigenError as e:
                log.warning("cannot tell whether the corpus changed: %s", e)
        for r in self.rows:
            r.stale = self.stale.get(r.doc_id, "")

    def stale_pages(self, text: str) -> dict[str, str]:
        """{slug: why} of the document pages the markdown links to whose document changed since indexing: what a
        generated page (a provisions table, the index) shows of them was read from the old text."""
        out = {}
        for m in WIKI_RE.finditer(text):  # (a table row's labelled links too, which a markdown parse splits)
            slug = split_target(m.group(1))
            p = self.pages.get(slug)
            if p is not None and p.type == "document":
                why = next((self.stale[d] for d in p.sources if d in self.stale), "")
                if why:
                    out[slug] = why
        return out

    @property
    def refresh(self) -> str:
        """The command that refreshes the wiki after its corpus changed."""
        return refresh_command(self.sources, self.root)

    def _index_quotes(self) -> None:
        for p in self.pages.values():
            try:
                quotes = p.quotes()
            except WikigenError:
                continue
            for q in quotes:
                self.quotes_by_doc.setdefault(q.doc_id, []).append((p.slug, q))

    # --- lookups -------------------------------------------------------------------------------

    def links(self, root: str) -> Links:
        return Links(
            root,
            frozenset(self.pages) | frozenset(self.generated),
            frozenset(self.docs),
            {s: p.title for s, p in self.pages.items()},
        )

    def text(self, doc_id: str) -> str:
        """The document's extracted text, exactly as the offsets count it (KeyError when unknown): for checking
        quotes; what is shown comes from `excerpt`."""
        if self.sources is None or doc_id not in self.docs:
            raise KeyError(doc_id)
        return self.sources.texts.text(doc_id)

    def excerpt(self, doc_id: str, start: int = 0, end: int | None = None):
        """The document's text [start, end) as a reader may see it: secrets kept out (CorpusIndex.excerpt)."""
        if self.sources is None or doc_id not in self.docs:
            raise KeyError(doc_id)
        return self.sources.excerpt(doc_id, start, end)

    def verify(self, q: Quote) -> bool | str | None:
        """Whether the quote's text is the source's text at its span; None when the source is unknown; "stale"
        when it is, as indexed, but the corpus file changed since (it may no longer say this)."""
        try:
            text = self.text(q.doc_id)
        except (KeyError, OSError):
            return None
        ok = 0 <= q.start <= q.end <= len(text) and normalize_newlines(text[q.start : q.end]) == q.text
        return "stale" if ok and q.doc_id in self.stale else ok

    def doc_by_key(self, key: str) -> DocView | None:
        if self._by_key is None:
            self._by_key = {d.key: d for d in self.docs.values()}
        return self._by_key.get(key)

    # --- derived views -------------------------------------------------------------------------

    def graph(self) -> dict:
        """Pages as nodes (type, title, degree and a position from `wikigen.web.layout`) and the links
        between existing pages as edges, sorted."""
        if self._graph is None:
            edges = self.edges()
            hubs = {
                s: HUB_RANK.get(p.type or "topic", len(HUB_RANK)) for s, p in self.pages.items() if p.type != "document"
            }
            pos = graph_positions(list(self.pages), edges, hubs=hubs)
            degree: dict[str, int] = {}
            for u, v in edges:
                degree[u] = degree.get(u, 0) + 1
                degree[v] = degree.get(v, 0) + 1
            nodes = [
                {
                    "id": s,
                    "title": self.doc_label(p.sources[0]) if p.type == "document" and len(p.sources) == 1 else p.title,
                    "type": p.type or "topic",
                    "deg": degree.get(s, 0),
                    "x": pos[s][0],
                    "y": pos[s][1],
                }
                for s, p in self.pages.items()
            ]
            self._graph = {"nodes": nodes, "edges": [{"source": u, "target": v} for u, v in edges]}
        return self._graph

    def edges(self) -> list[tuple[str, str]]:
        """The links between existing pages, sorted: the links `stats` counts (wikigen.wiki.links.page_edges)."""
        if self._edges is None:
            self._edges = page_edges(list(self.pages.values()))
        return self._edges

    def backlinks(self, slug: str) -> list[str]:
        """The pages that link to this one, sorted."""
        if self._backlinks is None:
            self._backlinks = {}
            for u, v in self.edges():
                self._backlinks.setdefault(v, []).append(u)
        return sorted(self._backlinks.get(slug, []))

    def row(self, doc_id: str) -> DocumentRow | None:
        """The document's row of the documents table."""
        if self._row_of is None:
            self._row_of = {r.doc_id: r for r in self.rows}
        return self._row_of.get(doc_id)

    def doc_label(self, doc_id: str) -> str:
        """How the view names a document: its label in the documents table, else its doc id."""
        r = self.row(doc_id)
        return r.label if r is not None else doc_id

    def extra_columns(self) -> list[str]:
        """The documents table's further columns (`DocumentRow.extra`: the provisions table's fields), the
        fullest first (`wikigen.search.documents.columns`)."""
        return columns(self.rows)

    def summary(self, slug: str) -> str:
        """What the page holds, in one line without a quote (`wikigen.wiki.summary.page_summary`)."""
        return page_summary(self.pages[slug], excerpt=False)

    def search_index(self) -> list[dict]:
        """What the static site's page search needs: per page its slug, title, type, description,
        aliases and the distinct lower-cased words of its body (quotes included)."""
        out = []
        for s, p in self.pages.items():
            words = sorted({w.casefold() for w in _TERM_RE.findall(p.body)})[:MAX_TERMS_PER_PAGE]
            out.append(
                {
                    "slug": s,
                    "title": p.title,
                    "type": p.type,
                    "description": p.description,
                    "aliases": list(p.aliases),
                    "terms": " ".join(words),
                }
            )
        return out

    def totals(self) -> dict:
        """The home page's figures, each from the function `stats` takes it from."""
        return {
            "pages": len(self.pages),
            "links": len(self.edges()),
            "quotes": count_quotes(self.pages.values()),
            "documents": len(self.docs),
            "cited": len(self.cov.cited) if self.cov else None,
            "sessions": len(self.sessions),
        }
