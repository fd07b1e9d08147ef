"""Text shown to a model as data, never instructions: corpus text in `<document ...>` tags with the exact
character span it covers, wiki pages in `<page ...>` tags.

The only change ever made to the text is that it cannot close its own wrapper (``</document`` becomes
``<\\/document``, ``</page`` becomes ``<\\/page``, in any letter case); attribute values are HTML-escaped.
Used by the agents' tools and by the answer a model generates from a context, so both wrap the same way.
"""

from __future__ import annotations

import html
import re
from typing import Any


def attr(value: Any) -> str:
    """An attribute value, escaped for a double-quoted attribute."""
    return html.escape(str(value), quote=True)


def _closers(*tags: str) -> re.Pattern[str]:
    return re.compile(r"</(?=\s*(?:" + "|".join(re.escape(t) for t in tags) + r")(?![\w-]))", re.I)


_DOCUMENT_CLOSE = _closers("document")
_PAGE_CLOSE = _closers("document", "page")


def document_text(text: str) -> str:
    """Corpus text as it goes inside a <document> wrapper: it cannot close the wrapper (in any letter case,
    with any space before the name: `</DOCUMENT>`, `</ document>` become `<\\/...`)."""
    return _DOCUMENT_CLOSE.sub("<\\/", text)


def page_text(text: str) -> str:
    """Page text as it goes inside a <page> wrapper: it can close neither a page nor a document wrapper."""
    return _PAGE_CLOSE.sub("<\\/", text)


def wrap_document(doc_id: str, start: int, end: int, text: str, **attrs: Any) -> str:
    """Corpus text doc_id[start:end] as data, with extra attributes (those None or '' are left out)."""
    extra = "".join(f' {k}="{attr(v)}"' for k, v in attrs.items() if v not in (None, ""))
    return f'<document doc_id="{attr(doc_id)}" start="{start}" end="{end}"{extra}>\n{document_text(text)}\n</document>'


def wrap_page(slug: str, text: str, documents: tuple[str, ...] = ()) -> str:
    """A wiki page as data: its text, then the already wrapped documents it carries (its quotes)."""
    body = "\n\n".join([page_text(text), *(_closers("page").sub("<\\/", d) for d in documents)])
    return f'<page slug="{attr(slug)}">\n{body}\n</page>'


def wrap_data(tag: str, text: str) -> str:
    """Text from the wiki or the progress log (page lists, log entries) as data in <tag> tags it cannot
    close itself; document and page wrappers inside cannot be closed either."""
    body = _closers("document", "page", tag).sub("<\\/", text)
    return f"<{tag}>\n{body}\n</{tag}>"
