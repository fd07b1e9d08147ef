"""Page bodies to HTML.

* Markdown is rendered by markdown-it-py (commonmark + tables) with **raw HTML off**: a ``<script>`` in a
  page body is shown as text. ``[[slug|label]]`` links are parsed by the project's own rule
  (``wikigen.wiki.markup.wikilinks_plugin``) and rendered here as links to the page's HTML, or as a
  marked span when no such page exists.
* Quote callouts are found by ``wikigen.wiki.markup.scan_quotes`` (the same parser the store checks
  quotes with) and rendered as a figure whose caption links to the source view with the quote's span
  (``sources/<key>.html#chars=START-END``). The markdown between quotes is rendered segment by segment.
* Other callouts (``> [!note] ...``, ``> [!warning] ...``; Obsidian's form) are rendered as callouts: an
  aside with the type as its label and the rest of the first line as its title. HTML comments on lines of
  their own (``<!-- wikigen:amendments -->``, the markers of generated sections) are not shown, as in any
  markdown reader; with raw HTML off they would otherwise show as text.
* An answer's citations ("(chars START-END)", after its document or on its document's line) become links
  to the spans they cite (``answer_html``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
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
    stale: Mapping[str, str] = field(
        default_factory=dict
    )  # slug -> why: a link to it is marked stale (SiteData.stale_pages)

    def page(self, slug: str) -> str | None:
        return f"{self.root}pages/{slug}.html" if slug in self.slugs else None

    def source(self, doc_id: str, start: int | None = None, end: int | None = None) -> str | None:
        if doc_id not in self.doc_ids:
            return None
        frag = f"#chars={start}-{end}" if start is not None and end is not None else ""
        return f"{self.root}sources/{source_key(doc_id)}.html{frag}"


def _render_wikilink(self, tokens, idx, options, env) -> str:
    meta, links = tokens[idx].meta, env.get("links")
    raw, label = meta["raw"], meta["label"]
    target = split_target(raw)
    href = links.page(target) if links is not None else None
    if href is None:
        text = (label or raw).strip()
        return f'<span class="wikilink broken" title="no such page">{escapeHtml(text)}</span>'
    text = (label or links.titles.get(target) or raw).strip()
    link = f'<a class="wikilink" href="{escapeHtml(href)}" title="{escapeHtml(target)}">{escapeHtml(text)}</a>'
    if target in links.stale:
        link += f' <span class="badge stale" title="{escapeHtml(links.stale[target])}">stale</span>'
    return link


_CALLOUT_RE = re.compile(r"^\[!(?P<type>[A-Za-z][\w-]*)\][+-]?[ \t]*(?P<title>[^\n]*)(?:\n(?P<rest>.*))?$", re.S)
_COMMENT_LINE_RE = re.compile(r"^ {0,3}<!--.*-->[ \t]*$")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def strip_comments(text: str) -> str:
    """The markdown without the HTML comments that stand on lines of their own (outside code fences):
    the markers of generated sections, which a markdown reader does not show."""
    out, fence = [], None
    for line in text.split("\n"):
        m = _FENCE_RE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
        elif m:
            fence = m.group(1)
        elif _COMMENT_LINE_RE.match(line):
            continue
        out.append(line)
    return "\n".join(out)


def _callouts(state: StateCore) -> None:
    """A blockquote whose first line is ``[!type] title`` becomes a callout: an <aside> of class
    ``callout callout-<type>`` with a title paragraph (the type as its label, then the title) and the
    rest of the blockquote as its body. Runs before the inline rules, so the title keeps its [[links]]."""
    tokens = state.tokens
    i = 0
    while i < len(tokens) - 2:
        t = tokens[i]
        first, inline = tokens[i + 1], tokens[i + 2]
        m = (
            _CALLOUT_RE.match(inline.content)
            if t.type == "blockquote_open" and first.type == "paragraph_open"
            else None
        )
        if m is None or inline.type != "inline":
            i += 1
            continue
        kind = m.group("type").lower()
        close = next(
            j for j in range(i + 1, len(tokens)) if tokens[j].type == "blockquote_close" and tokens[j].level == t.level
        )
        t.tag = tokens[close].tag = "aside"
        t.attrSet("class", f"callout callout-{kind}")
        first.attrSet("class", "callout-title")
        title = Token(
            "html_inline", "", 0, content=f'<span class="callout-label">{escapeHtml(kind.capitalize())}</span> '
        )
        inline.content = m.group("title")
        inline.meta = {"callout_label": title}
        rest = (m.group("rest") or "").strip()
        if rest:
            body = [
                Token("paragraph_open", "p", 1),
                Token("inline", "", 0, content=rest),
                Token("paragraph_close", "p", -1),
            ]
            body[0].level, body[1].level, body[2].level = first.level, inline.level, first.level
            body[1].map, body[1].children = inline.map, []
            tokens[i + 4 : i + 4] = body
        i += 3


def _label_first(state: StateCore) -> None:
    """Put a callout's label before its title's inline content (after the inline rules parsed it)."""
    for t in state.tokens:
        if t.type == "inline" and t.meta and "callout_label" in t.meta:
            t.children = [t.meta.pop("callout_label"), *(t.children or [])]


@lru_cache(maxsize=1)
def _md() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table").use(wikilinks_plugin)
    md.add_render_rule("wikilink", _render_wikilink)
    md.core.ruler.after("block", "callouts", _callouts)
    md.core.ruler.after("inline", "callout_labels", _label_first)
    return md


def markdown_html(text: str, links: Links) -> Markup:
    """Markdown (no raw HTML) with [[links]] resolved against ``links``, callouts as callouts and comment
    lines left out."""
    return Markup(_md().render(strip_comments(text), {"links": links}))


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


# "(chars START-END)", or "(DOC_ID, chars START-END)" as the provisions table's answer cites (wikigen.ask.values)
_CITE_RE = re.compile(r"\((?:(?P<doc>[^()\n]+?), )?chars (?P<start>\d+)-(?P<end>\d+)\)")


def _md_label(text: str) -> str:
    return re.sub(r"([\\\[\]*_`<>])", r"\\\1", text)


def cite_links(answer: str, spans: Sequence[Mapping], links: Links) -> str:
    """The answer (markdown) with each citation of one of its spans as a link to that span's source view.
    A citation is "(chars START-END)", after its doc id or, without one, on the line of the document the
    answer names ("- DOC_ID: ... -- (chars START-END)"), or "(DOC_ID, chars START-END)"; ``spans`` are the answer's own
    (``AskResult.answer_spans``), so only what the answer quotes is linked."""
    by_span: dict[tuple[int, int], list[str]] = {}
    for sp in spans:
        by_span.setdefault((int(sp["start"]), int(sp["end"])), []).append(str(sp["doc_id"]))

    def one(line: str) -> str:
        out, at = [], 0
        for m in _CITE_RE.finditer(line):
            docs = by_span.get((int(m.group("start")), int(m.group("end"))), [])
            before = line[at : m.start()]
            if m.group("doc") is not None:  # the citation names its document: that one, or none of the answer's
                docs = [d for d in docs if d == m.group("doc")]
            named = next((d for d in docs if before.endswith(d + " ")), None)
            doc = named or next((d for d in docs if d in line), docs[0] if len(docs) == 1 else None)
            href = links.source(doc, int(m.group("start")), int(m.group("end"))) if doc else None
            if href is None:
                continue
            label = m.group(0)
            if named:
                before, label = before[: -len(named) - 1], f"{named} {label}"
            out += [before, f"[{_md_label(label)}](<{href}>)"]
            at = m.end()
        return "".join([*out, line[at:]])

    return "\n".join(one(line) for line in answer.split("\n"))


def answer_html(answer: str, spans: Sequence[Mapping], links: Links) -> Markup:
    """An answer rendered as markdown (raw HTML off), its citations linked to their source spans."""
    return markdown_html(cite_links(answer, spans, links), links)
