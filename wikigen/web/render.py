"""Page bodies to HTML.

* Markdown is rendered by markdown-it-py (commonmark + tables) with **raw HTML off**: a ``<script>`` in a
  page body is shown as text. ``[[slug|label]]`` links are parsed by the project's own rule
  (``wikigen.wiki.markup.wikilinks_plugin``) and rendered here as links to the page's HTML, or as a
  marked span when no such page exists.
* Quote callouts are found by ``wikigen.wiki.markup.scan_quotes`` (the same parser the store checks
  quotes with) and rendered as a figure whose caption links to the source view with the quote's span
  (``sources/<key>.html#chars=START-END``). The markdown between quotes is rendered segment by segment.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markupsafe import Markup, escape

from wikigen.core.errors import PageError
from wikigen.core.slugs import slugify
from wikigen.core.text import normalize_newlines
from wikigen.wiki.markup import Quote, scan_quotes, split_target, wikilinks_plugin


def source_key(doc_id: str) -> str:
    """The file name stem of a document's source view: readable, and unique by a hash of the doc id."""
    base = slugify(doc_id)[:60].strip("-")
    h = hashlib.sha1(doc_id.encode("utf-8")).hexdigest()[:8]
    return f"{base}-{h}" if base else h


@dataclass(frozen=True)
class Links:
    """Where things are, relative to the page being rendered (``root`` is "" or "../")."""

    root: str
    slugs: frozenset[str]  # pages that have an HTML page (content and generated ones)
    doc_ids: frozenset[str]  # documents that have a source view
    titles: Mapping[str, str] = field(default_factory=dict)  # slug -> title, for links without a label

    def page(self, slug: str) -> str | None:
        return f"{self.root}pages/{slug}.html" if slug in self.slugs else None

    def source(self, doc_id: str, start: int | None = None, end: int | None = None) -> str | None:
        if doc_id not in self.doc_ids:
            return None
        frag = f"#chars={start}-{end}" if start is not None and end is not None else ""
        return f"{self.root}sources/{source_key(doc_id)}.html{frag}"


def _render_wikilink(self, tokens, idx, options, env) -> str:
    meta, links = tokens[idx].meta, env.get("links")
    target = split_target(meta["raw"])
    href = links.page(target) if links is not None else None
    if href is None:
        text = (meta["label"] or meta["raw"]).strip()
        return f'<span class="wikilink broken" title="no such page">{escapeHtml(text)}</span>'
    text = (meta["label"] or links.titles.get(target) or meta["raw"]).strip()
    return f'<a class="wikilink" href="{escapeHtml(href)}" title="{escapeHtml(target)}">{escapeHtml(text)}</a>'


@lru_cache(maxsize=1)
def _md() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table").use(wikilinks_plugin)
    md.add_render_rule("wikilink", _render_wikilink)
    return md


def markdown_html(text: str, links: Links) -> Markup:
    """Markdown (no raw HTML) with [[links]] resolved against ``links``."""
    return Markup(_md().render(text, {"links": links}))


def quote_html(q: Quote, links: Links, verified: bool | str | None) -> Markup:
    """One quote: its text as a blockquote, its source (doc id and span) as a link to the source view."""
    href = links.source(q.doc_id, q.start, q.end)
    label = f"{q.doc_id} (chars {q.start}-{q.end})"
    cite = (
        Markup('<a class="quote-source" href="{}">{}</a>').format(href, label)
        if href
        else Markup('<span class="quote-source missing" title="document not in the index">{}</span>').format(label)
    )
    state = {
        True: ("verified", "matches the source"),
        False: ("unverified", "does not match the source at this span"),
        None: ("unknown", "source not available"),
        "stale": ("stale", "its source changed since it was indexed: it may no longer say this"),
    }[verified]
    return Markup(
        '<figure class="quote" data-doc="{}" data-start="{}" data-end="{}">'
        '<blockquote class="quote-text">{}</blockquote>'
        '<figcaption>{} <span class="badge {}" title="{}">{}</span></figcaption></figure>\n'
    ).format(q.doc_id, q.start, q.end, q.text, cite, state[0], state[1], state[0])


def body_html(
    body: str, links: Links, verify: Callable[[Quote], bool | str | None], page_doc: str | None = None
) -> tuple[Markup, str | None]:
    """A page body as HTML, and a warning when its quotes could not be parsed (then it is plain markdown).
    page_doc: the document a quote without a doc id quotes (Page.quote_doc)."""
    body = normalize_newlines(body)
    try:
        blocks = scan_quotes(body, page_doc)
    except PageError as e:
        return markdown_html(body, links), f"quotes not shown as quotes: {e}"
    lines = body.split("\n")
    parts: list[Markup] = []
    at = 0
    for b in blocks:
        if b.header_line > at:
            parts.append(markdown_html("\n".join(lines[at : b.header_line]), links))
        parts.append(quote_html(b.quote, links, verify(b.quote)))
        at = b.end_line
    if at < len(lines):
        parts.append(markdown_html("\n".join(lines[at:]), links))
    return Markup("").join(parts), None


def snippet_html(snippet: str) -> Markup:
    """A search snippet with **bold** hits: the bold markers become <b>, everything else is escaped."""
    parts = snippet.split("**")
    out = [escape(p) if i % 2 == 0 else Markup("<b>{}</b>").format(p) for i, p in enumerate(parts)]
    if len(parts) % 2 == 0:  # an unpaired marker: show it as it was
        out[-1] = escape("**" + parts[-1])
    return Markup("").join(out)
