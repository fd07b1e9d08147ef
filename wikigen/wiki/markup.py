"""The wiki's markup, in one place: the quote form and [[wikilinks]].

A quote is an Obsidian ``quote`` callout (plain markdown shows it as a blockquote)::

    > [!quote] contracts/acme-msa (chars 1200-1350)
    > Either party may terminate this Agreement
    > upon ninety (90) days' written notice.

Every following line that starts with ``>`` belongs to the quote; the quote ends at the first line
that does not (or at the next quote header). Quotes inside fenced code blocks are not quotes.

On a page with exactly one source (a document's own page) a quote may leave out the document:
``> [!quote] (chars 1200-1350)`` quotes that source (`Page.quote_doc`). Long file names made the
repeated doc id a third of a document page's tokens.

Links are ``[[slug]]`` or ``[[slug|label]]``, parsed with markdown-it-py: links in code are not
links, and neither is anything inside a quote (a quote is data).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt

from wikigen.core.errors import PageError
from wikigen.core.text import normalize_newlines

QUOTE_HEADER_RE = re.compile(r"^> \[!quote\] (?:(?P<doc_id>.+) )?\(chars (?P<start>\d+)-(?P<end>\d+)\)$")
_QUOTE_ATTEMPT_RE = re.compile(r"^>\s*\[!quote\]", re.IGNORECASE)
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# [[raw]] or [[raw|label]]; inside a table cell the '|' is written '\|' (as Obsidian does), which markdown's table
# rule reads as a '|' of the cell's text, not as the cell's end. Group 1 is raw, group 2 the label.
WIKI_RE = re.compile(r"\[\[([^\[\]\|\n]+?)(?:\\?\|([^\[\]\n]+?))?\]\]")


def wikilink(target: str, label: str | None, like: re.Match | None = None) -> str:
    """[[target|label]] ([[target]] without a label), its '|' escaped as in `like` (a link it rewrites), so a
    link rewritten inside a table cell stays in its cell."""
    if not label:
        return f"[[{target}]]"
    sep = "\\|" if like is not None and "\\|" in like.group(0) else "|"
    return f"[[{target}{sep}{label}]]"


def table_row(cells: Iterable[str]) -> str:
    """One row of a markdown table: each cell on one line, its '|' escaped, so a [[link|label]] or a value holding
    '|' stays in its cell."""
    return "| " + " | ".join(" ".join(c.split()).replace("|", "\\|") for c in cells) + " |"


@dataclass(frozen=True)
class Quote:
    doc_id: str
    start: int
    end: int
    text: str

    def short(self, n: int = 60) -> str:
        t = self.text.replace("\n", " ")
        return t if len(t) <= n else t[:n] + "..."

    def label(self) -> str:
        return f'{self.doc_id} (chars {self.start}-{self.end}) "{self.short()}"'


@dataclass(frozen=True)
class QuoteBlock:
    """A quote and where it sits in the body: header line index and the line after its last line (0-based)."""

    quote: Quote
    header_line: int
    end_line: int


def quote_header(doc_id: str | None, start: int, end: int) -> str:
    """A quote's header line; doc_id None for a quote of the page's only source."""
    return f"> [!quote] (chars {start}-{end})" if doc_id is None else f"> [!quote] {doc_id} (chars {start}-{end})"


def format_quote(q: Quote, *, implicit: bool = False) -> str:
    """The quote form, without a trailing newline. Separate it from other blocks by a blank line.
    implicit: leave the doc id out (only on a page whose one source is q.doc_id)."""
    if "\n" in q.doc_id or "\r" in q.doc_id or not q.doc_id.strip():
        raise PageError(f"bad doc id in quote: {q.doc_id!r}")
    lines = [quote_header(None if implicit else q.doc_id, q.start, q.end)]
    for line in normalize_newlines(q.text).split("\n"):
        lines.append(f"> {line}" if line else ">")
    return "\n".join(lines)


def scan_quotes(body: str, page_doc: str | None = None) -> list[QuoteBlock]:
    """Every quote in a body, in order. A header without a doc id quotes page_doc (the page's only
    source); PageError on a malformed header, or one without a doc id when there is no page_doc."""
    lines = normalize_newlines(body).split("\n")
    out: list[QuoteBlock] = []
    fence: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _FENCE_RE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            i += 1
            continue
        if m:
            fence = m.group(1)
            i += 1
            continue
        if not _QUOTE_ATTEMPT_RE.match(line):
            i += 1
            continue
        h = QUOTE_HEADER_RE.match(line)
        if not h:
            raise PageError(
                f"malformed quote header on body line {i + 1}: {line[:100]!r}; "
                "use '> [!quote] DOC_ID (chars START-END)'"
            )
        start, end = int(h.group("start")), int(h.group("end"))
        if end < start:
            raise PageError(f"malformed quote header on body line {i + 1}: end {end} is before start {start}")
        doc_id = h.group("doc_id") or page_doc
        if doc_id is None:
            raise PageError(
                f"quote on body line {i + 1} names no document: {line[:100]!r}; only a page with exactly "
                "one source may leave it out (use '> [!quote] DOC_ID (chars START-END)')"
            )
        j = i + 1
        text_lines: list[str] = []
        while j < len(lines) and lines[j].startswith(">") and not _QUOTE_ATTEMPT_RE.match(lines[j]):
            t = lines[j]
            text_lines.append(t[2:] if t.startswith("> ") else t[1:])
            j += 1
        text = "\n".join(text_lines)
        if not text:
            raise PageError(
                f"empty quote on body line {i + 1}: {line[:100]!r}; put the quoted text on '> ' lines below"
            )
        out.append(QuoteBlock(Quote(doc_id, start, end, text), i, j))
        i = j
    return out


def rewrite_quote_spans(body: str, spans: dict[int, tuple[int, int]]) -> str:
    """Change only the span numbers of the quotes whose header is at the given body line indexes."""
    lines = normalize_newlines(body).split("\n")
    for idx, (start, end) in spans.items():
        m = QUOTE_HEADER_RE.match(lines[idx])
        if not m:
            raise PageError(f"body line {idx + 1} is not a quote header")
        lines[idx] = quote_header(m.group("doc_id"), start, end)
    return "\n".join(lines)


def explicit_quotes(body: str, page_doc: str | None) -> str:
    """The body with every quote header naming its document (for text that moves to a page of other sources)."""
    lines = normalize_newlines(body).split("\n")
    for b in scan_quotes(body, page_doc):
        lines[b.header_line] = quote_header(b.quote.doc_id, b.quote.start, b.quote.end)
    return "\n".join(lines)


def wikilinks_plugin(md: MarkdownIt) -> None:
    """A markdown-it-py inline rule: ``[[raw|label]]`` becomes one ``wikilink`` token whose meta holds
    ``raw`` and ``label`` (None without '|'). It adds no render rule: each user renders links its own way."""

    def rule(state, silent):
        if not state.src.startswith("[[", state.pos):
            return False
        m = WIKI_RE.match(state.src, state.pos)
        if not m:
            return False
        if not silent:
            tok = state.push("wikilink", "a", 0)
            tok.meta = {"raw": m.group(1), "label": m.group(2)}
        state.pos = m.end()
        return True

    md.inline.ruler.before("link", "wikilink", rule)


@lru_cache(maxsize=1)
def _md() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table").use(wikilinks_plugin)


@dataclass(frozen=True)
class BodyLink:
    target: str  # the slug part of the link, stripped ("" for a link to a heading of the same page)
    raw: str  # what stood before '|', e.g. "Acme MSA#Term"
    label: str | None  # what stood after '|'
    line: int  # 0-based line in the body

    @property
    def text(self) -> str:
        return (self.label or self.raw).strip()


def split_target(raw: str) -> str:
    return re.split(r"[#^]", raw, maxsplit=1)[0].strip()


def body_links(body: str) -> list[BodyLink]:
    """Every [[link]] of a body in order, with its 0-based body line; not in code, not in quotes."""
    return list(_body_links(body))


@lru_cache(maxsize=4096)
def _body_links(body: str) -> tuple[BodyLink, ...]:
    """body_links, remembered by body: a build reads each unchanged page's links in several stages
    (link repair per session, the index page, the final check), and parsing is most of that cost."""
    quote_lines: set[int] = set()
    try:
        blocks = scan_quotes(body, page_doc="")  # only where quotes sit matters here
    except PageError:
        blocks = []  # a malformed quote is reported by quote checks; links are still read
    for b in blocks:
        quote_lines.update(range(b.header_line, b.end_line))
    out: list[BodyLink] = []
    for tok in _md().parse(body):
        if tok.type != "inline" or tok.map is None or not tok.children:
            continue
        line = tok.map[0]
        for child in tok.children:
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.type == "wikilink" and line not in quote_lines:
                raw = child.meta["raw"]
                target = split_target(raw)
                if target:
                    out.append(BodyLink(target, raw, child.meta["label"], line))
    return tuple(out)
