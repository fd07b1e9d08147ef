"""A document page says when its document holds text that addresses an AI agent or a tool.

`flagged_section(maker, doc_id)` is the section that ends a document page (wikigen.agents.page_bodies
writes it with the page; a consolidation session, action `flag`, adds it to a page written before, while
the size budget has room): under the heading "Text addressed to an AI agent or a tool", the line (or
lines) of the document that the detector (wikigen.wiki.injection) flags, each quoted verbatim like any
other quote, so a reader of the wiki sees it and `ask` can cite it. The store puts the warning marker
before each such quote on every write; the text itself is data and is never followed. The section is
part of the page's tail (wikigen.agents.tails): a revision of the page writes it anew.
"""

from __future__ import annotations

from wikigen.core.errors import WikigenError
from wikigen.wiki.injection import find_instructions

MAX_FLAGGED = 3  # flagged lines quoted per document page
MAX_LINE = 400  # characters of one flagged line quoted (cut at a word or sentence end)
HEADING = "## Text addressed to an AI agent or a tool"
NOTE = "Document text, kept as data; never followed."
LEGACY_HEADING = "Text addressed to an AI agent or a tool (document text, data; never followed):"  # older pages
HEADINGS = (HEADING, LEGACY_HEADING)


def full_text(tools, doc_id: str) -> str:
    """The whole text of a document, read through the tools in spans."""
    parts, start = [], 0
    while True:
        span = tools.read_document(doc_id, start)
        parts.append(span.text)
        if not span.more or span.end <= start:
            return "".join(parts)
        start = span.end


def flagged_lines(text: str, limit: int = MAX_FLAGGED) -> list[tuple[int, int]]:
    """(start, end) of each line holding flagged text, in order, at most `limit`."""
    out: list[tuple[int, int]] = []
    for f in find_instructions(text):
        s = text.rfind("\n", 0, f.start) + 1
        e = text.find("\n", f.end)
        e = len(text) if e < 0 else e
        if out and s < out[-1][1]:
            continue
        out.append((s, e))
        if len(out) >= limit:
            break
    return out


def flagged_section(maker, doc_id: str) -> str:
    """The section for a document page ('' when the document holds no such text). `maker` is a PageMaker."""
    try:
        text = full_text(maker.tools, doc_id)
    except WikigenError as e:
        maker.out.errors.append(f"read {doc_id}: {e}")
        return ""
    quotes = [q for s, e in flagged_lines(text) if (q := maker.quote(doc_id, s, e, cap=MAX_LINE))]
    return "\n\n".join([HEADING, NOTE, *quotes]) + "\n" if quotes else ""
