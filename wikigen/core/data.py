"""Text shown to a model as data, never instructions: corpus text in `<document ...>` tags with the exact
character span it covers, wiki pages in `<page ...>` tags.

The only change ever made to the text is that it cannot close its own wrapper (``</document`` becomes
``<\\/document``, ``</page`` becomes ``<\\/page``); attribute values are HTML-escaped. Used by the agents'
tools and by the answer a model generates from a context, so both wrap the same way.
"""

from __future__ import annotations

import html
from typing import Any


def attr(value: Any) -> str:
    """An attribute value, escaped for a double-quoted attribute."""
    return html.escape(str(value), quote=True)


def document_text(text: str) -> str:
    """Corpus text as it goes inside a <document> wrapper: it cannot close the wrapper."""
    return text.replace("</document", "<\\/document")


def page_text(text: str) -> str:
    """Page text as it goes inside a <page> wrapper: it can close neither a page nor a document wrapper."""
    return document_text(text).replace("</page", "<\\/page")


def wrap_document(doc_id: str, start: int, end: int, text: str, **attrs: Any) -> str:
    """Corpus text doc_id[start:end] as data, with extra attributes (those None or '' are left out)."""
    extra = "".join(f' {k}="{attr(v)}"' for k, v in attrs.items() if v not in (None, ""))
    return f'<document doc_id="{attr(doc_id)}" start="{start}" end="{end}"{extra}>\n{document_text(text)}\n</document>'


def wrap_page(slug: str, text: str, documents: tuple[str, ...] = ()) -> str:
    """A wiki page as data: its text, then the already wrapped documents it carries (its quotes)."""
    body = "\n\n".join([page_text(text), *(d.replace("</page", "<\\/page") for d in documents)])
    return f'<page slug="{attr(slug)}">\n{body}\n</page>'


def wrap_data(tag: str, text: str) -> str:
    """Text from the wiki or the progress log (page lists, log entries) as data in <tag> tags it cannot
    close itself; document and page wrappers inside cannot be closed either."""
    body = document_text(text).replace("</page", "<\\/page").replace(f"</{tag}", f"<\\/{tag}")
    return f"<{tag}>\n{body}\n</{tag}>"
