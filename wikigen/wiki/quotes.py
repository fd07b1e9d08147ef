"""Verify quotes against the kept source texts, re-anchoring spans that drifted.

A quote is accepted when its text equals the source text at the cited span, both with line endings
normalised to ``\\n``. When it does not, the quote is looked up in its document with ``locate``:
exact first, then tolerant of whitespace (so a quote of a CRLF document is found); each candidate is
accepted only if its newline-normalised text equals the quote, and the one nearest the cited start
wins. Only the span numbers are ever rewritten, never the quoted text. Anything else is a QuoteError.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from wikigen.core.errors import QuoteError
from wikigen.core.text import Span, normalize_newlines
from wikigen.wiki.markup import Quote, rewrite_quote_spans
from wikigen.wiki.page import Page

Status = Literal["ok", "reanchored", "unknown-doc", "not-found", "whitespace"]


@dataclass(frozen=True)
class QuoteCheck:
    quote: Quote
    status: Status
    new: Quote | None = None  # the re-anchored quote (same text, new span) when status == "reanchored"
    hint: Span | None = None  # for "whitespace": where the text occurs with different whitespace

    @property
    def ok(self) -> bool:
        return self.status in ("ok", "reanchored")

    def message(self) -> str:
        q = self.quote
        if self.status == "unknown-doc":
            return f"quote {q.label()}: unknown document {q.doc_id!r}; cite a doc id from the corpus"
        if self.status == "whitespace" and self.hint is not None:
            return (
                f"quote {q.label()}: found only with different whitespace at chars {self.hint.start}-{self.hint.end}; "
                "copy the source text exactly"
            )
        if self.status == "not-found":
            return f"quote {q.label()}: not found verbatim in {q.doc_id!r}; copy the text exactly from the document"
        if self.status == "reanchored" and self.new is not None:
            return f"quote {q.label()}: span drifted, re-anchored to chars {self.new.start}-{self.new.end}"
        return f"quote {q.label()}: ok"


def _locate(sources, doc_id: str, text: str, tolerant: bool) -> list[Span]:
    locate = getattr(sources, "locate", None)
    if locate is not None:
        return list(locate(doc_id, text, tolerant_whitespace=tolerant))
    return sources.texts.locate(doc_id, text, tolerant_whitespace=tolerant)


def check_quote(q: Quote, sources) -> QuoteCheck:
    """How a quote stands against its source. ``sources`` has ``.texts`` (a TextStore) and ``locate``."""
    try:
        doc = sources.texts.text(q.doc_id)
    except KeyError:
        return QuoteCheck(q, "unknown-doc")
    want = normalize_newlines(q.text)
    if q.end <= len(doc) and normalize_newlines(doc[q.start : q.end]) == want:
        return QuoteCheck(q, "ok")
    hint: Span | None = None
    for tolerant in (False, True):
        good = []
        for span in _locate(sources, q.doc_id, q.text, tolerant):
            if normalize_newlines(doc[span.start : span.end]) == want:
                good.append(span)
            elif hint is None:
                hint = span
        if good:
            best = min(good, key=lambda s: (abs(s.start - q.start), s.start))
            return QuoteCheck(q, "reanchored", new=Quote(q.doc_id, best.start, best.end, q.text))
    if hint is not None:
        return QuoteCheck(q, "whitespace", hint=hint)
    return QuoteCheck(q, "not-found")


def check_page_quotes(page: Page, sources) -> list[QuoteCheck]:
    return [check_quote(b.quote, sources) for b in page.quote_blocks()]


def verify_page(page: Page, sources) -> tuple[Page, list[QuoteCheck]]:
    """The page with drifted spans re-anchored, and the checks. QuoteError naming the first bad quote."""
    blocks = page.quote_blocks()
    checks = [check_quote(b.quote, sources) for b in blocks]
    bad = [c for c in checks if not c.ok]
    if bad:
        more = f" (and {len(bad) - 1} more bad quotes)" if len(bad) > 1 else ""
        raise QuoteError(f"page {page.slug!r} rejected: {bad[0].message()}{more}; nothing was written")
    moved = {b.header_line: (c.new.start, c.new.end) for b, c in zip(blocks, checks) if c.new is not None}
    if moved:
        page = page.with_(body=rewrite_quote_spans(page.body, moved))
    return page, checks
