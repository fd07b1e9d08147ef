"""The web view's pages, rendered with jinja2 (autoescape on) from a SiteData.

Every page has a relative path, the same in both modes, and links only by relative URLs, so the
static site opens from disk (file://) and the live server serves the same tree:

    index.html                  home: the documents table (sortable, filterable), then topics, collections,
                                figures and other pages, each with what it holds
    pages/<slug>.html           a page (and index.md, index-*.md, log.md as pages/index.html, ...)
    sources/<key>.html          a document's extracted text; #chars=START-END highlights a span
    graph.html, growth.html     the link graph (cytoscape) and the growth view
    search.html, ask.html       search (live: pages and corpus on the server; static: pages in the browser)
    static/...                  css, scripts, the vendored cytoscape

``live`` is True for `wikigen serve`, False for the static site; only search and ask differ.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from functools import lru_cache

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from wikigen.ask.modes import MODES
from wikigen.core.text import normalize_newlines
from wikigen.web.growth import growth_chart
from wikigen.web.model import SiteData
from wikigen.web.render import answer_html, body_html, markdown_html, snippet_html
from wikigen.wiki.provisions import CHECK, POSSIBLE, mark

# The Content-Security-Policy of every page: only the package's own scripts, styles and images run or load (a
# link, an image or a script in a page's text - a question a person asked, a document's own HTML - does nothing).
# `wikigen serve` sends CSP as a header; each page carries CSP_META in a <meta http-equiv>, so the static site
# has it too, from disk or any host. A <meta> cannot carry frame-ancestors (browsers ignore it there).
CSP_META = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'"
)
CSP = CSP_META + "; frame-ancestors 'none'"
STATIC_FILES = (
    "wikigen.css",
    "graph.js",
    "source.js",
    "search.js",
    "table.js",
    "cytoscape.min.js",
    "cytoscape.LICENSE",
)
PAGE_FIELDS = ("type", "status", "owner", "created_session", "updated_session")
EXTRA_SHOWN = 4  # the provisions columns the home table shows at first; the others are a click away ("Columns")
GRAPH_TYPES = ("document", "collection", "topic", "figure")  # each its colour in graph.js; the rest are "other"
HOME_SECTIONS = (  # page type -> the home page's heading for its list, in this order after the documents
    ("topic", "Topics"),
    ("collection", "Collections"),
    ("figure", "Figures"),
)


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("wikigen.web", "templates"),
        autoescape=select_autoescape(default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["csp"] = CSP_META  # base.html's <meta http-equiv="Content-Security-Policy">
    env.filters["snippet"] = snippet_html
    env.filters["json_script"] = json_script
    env.filters["thousands"] = lambda v: "—" if v is None else f"{v:,}"
    env.filters["ratio"] = lambda v: "—" if v is None else f"{v:.3f}"
    return env


@dataclass
class Views:
    data: SiteData
    live: bool

    def _render(self, template: str, path: str, **ctx) -> str:
        root = "../" * path.count("/")
        return (
            environment()
            .get_template(template)
            .render(site=self.data, root=root, live=self.live, links=self.data.links(root), path=path, **ctx)
        )

    def paths(self) -> list[str]:
        """Every page of the static site."""
        out = ["index.html", "graph.html", "growth.html", "search.html", "ask.html"]
        out += [f"pages/{s}.html" for s in [*self.data.pages, *self.data.generated]]
        out += [f"sources/{d.key}.html" for d in self.data.docs.values()]
        return out

    def render(
        self, path: str, *, search=None, answer=None, query: str = "", mode: str = "", error: str | None = None
    ) -> str | None:
        """The page at ``path``, or None when there is none. In live mode the server passes the
        search results or the answer it computed for ``query``."""
        if path == "index.html":
            return self.home()
        if path == "graph.html":
            return self.graph()
        if path == "growth.html":
            return self.growth()
        if path == "search.html":
            index = None if self.live else self.data.search_index()
            return self._render("search.html", path, query=query, results=search, index=index, error=error)
        if path == "ask.html":
            rendered = None
            if answer is not None:
                rendered = answer_html(answer["answer"], answer.get("answer_spans") or [], self.data.links(""))
            return self._render(
                "ask.html",
                path,
                query=query,
                answer=answer,
                answer_html=rendered,
                mode=mode or MODES[0],
                modes=MODES,
                error=error,
            )
        if path.startswith("pages/") and path.endswith(".html"):
            return self.page(path, path[len("pages/") : -len(".html")])
        if path.startswith("sources/") and path.endswith(".html"):
            return self.source(path, path[len("sources/") : -len(".html")])
        return None

    def home(self) -> str:
        """The documents as a table (the reviewer's first view), then the other pages by type, each with
        what it holds."""
        d = self.data
        kinds: dict[str, int] = {}
        for r in d.rows:
            kinds[r.kind] = kinds.get(r.kind, 0) + 1
        listed = {t for t, _ in HOME_SECTIONS} | {"document"}
        sections = []
        for kind, heading in [*HOME_SECTIONS, ("", "Other pages")]:
            pages = [p for p in d.pages.values() if (p.type == kind if kind else p.type not in listed)]
            if pages:
                pages.sort(key=lambda p: (p.title.casefold(), p.slug))
                sections.append((kind or "other", heading, [(p, d.summary(p.slug)) for p in pages]))
        return self._render(
            "home.html",
            "index.html",
            totals=d.totals(),
            rows=d.rows,
            stale=[r for r in d.rows if r.stale],
            extra=d.extra_columns(),
            shown=EXTRA_SHOWN,
            possible=mark(POSSIBLE),
            check=CHECK,
            kinds=sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0].casefold())),
            sections=sections,
        )

    def page(self, path: str, slug: str) -> str | None:
        links = self.data.links("../")
        p = self.data.pages.get(slug)
        if p is not None:
            body, warning = body_html(p.body, links, self.data.verify, p.quote_doc)
            fields = [(f.replace("_", " "), getattr(p, f)) for f in PAGE_FIELDS]
            sources = [(d, self.data.doc_label(d), links.source(d)) for d in p.sources]
            backlinks = self.data.backlinks(slug)
            stale = sorted({q.doc_id for q in p.quotes() if q.doc_id in self.data.stale} if not warning else set())
            row = self.data.row(p.sources[0]) if p.type == "document" and len(p.sources) == 1 else None
            return self._render(
                "page.html",
                path,
                page=p,
                body=body,
                warning=warning,
                stale=stale,
                fields=fields,
                sources=sources,
                row=row,
                backlinks=[(s, self.data.pages[s].title) for s in backlinks],
            )
        text = self.data.generated.get(slug)
        if text is None:
            return None
        shown = self.data.stale_pages(text)  # documents it shows values of that changed since indexing
        return self._render(
            "page.html",
            path,
            page=None,
            title=f"{slug}.md",
            body=markdown_html(text, replace(links, stale=shown)),
            warning=None,
            stale=sorted({d for s in shown for d in self.data.pages[s].sources if d in self.data.stale}),
            fields=[],
            sources=[],
            row=None,
            backlinks=[],
        )

    def source(self, path: str, key: str) -> str | None:
        doc = self.data.doc_by_key(key)
        if doc is None:
            return None
        raw = self.data.text(doc.doc_id)
        ex = self.data.excerpt(doc.doc_id)  # every secret kept out (wikigen.wiki.secrets)
        # The page shows the text with each secret replaced by its mark and with LF line ends (the browser's
        # HTML parser turns CRLF into LF); it lists each such edit as [raw start, raw end, shown length], so
        # the script maps the wiki's offsets (into the raw text) to the shown text exactly.
        kept = [(s, e) for s, e, _ in ex.edits()]
        crs = [(m.start(), m.start() + 1, 0) for m in re.finditer("\r\n", raw)]
        edits = sorted([*ex.edits(), *(c for c in crs if not any(s <= c[0] < e for s, e in kept))])
        quotes = sorted(self.data.quotes_by_doc.get(doc.doc_id, []), key=lambda sq: (sq[1].start, sq[1].end, sq[0]))
        return self._render(
            "source.html",
            path,
            doc=doc,
            text=normalize_newlines(ex.text),
            edits=[list(e) for e in edits],
            kept_out=len(ex.kept_out),
            quotes=quotes,
            raw_chars=len(raw),
            stale=self.data.stale.get(doc.doc_id, ""),
        )

    def graph(self) -> str:
        graph = self.data.graph()
        counts: dict[str, int] = {}
        for n in graph["nodes"]:
            t = n["type"] if n["type"] in GRAPH_TYPES else "other"
            counts[t] = counts.get(t, 0) + 1
        types = [(t, counts[t]) for t in (*GRAPH_TYPES, "other") if t in counts]
        return self._render("graph.html", "graph.html", graph=graph, types=types)

    def growth(self) -> str:
        d = self.data
        chart = growth_chart(d.sessions, d.max_ratio, d.warn_fraction)
        missing = sorted({f for r in d.sessions for f in r.missing})
        return self._render("growth.html", "growth.html", chart=chart, rows=d.sessions, cov=d.cov, missing=missing)


def json_script(obj) -> Markup:
    """JSON for a <script type="application/json"> block: '<', '>', '&' escaped so no text can end it."""
    s = json.dumps(obj, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(s)
