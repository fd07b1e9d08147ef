"""What a page holds, in one line: for a reader choosing which page to open (the web view's home, the
export's MEMORY.md and its topic files, MCP's page list).

A topic page's own description counts its quotes ("The section under this heading, quoted from 2 of 55
documents") but does not say what the subject is or what its quotes say. `page_summary` says both, from
the page alone:

    Governing Law (also Choice of Law, Governing Laws): quoted from 8 of 173 documents; e.g. "10.11.
    Governing Law. This Agreement and any dispute or claim arising out of or in connection with it…"

* the subject: the title and, for a topic, its other names (aliases: the variant headings);
* how many documents it quotes, of how many that have it (the "Also in" list and its "and N other
  documents" count, where the page has them);
* an excerpt of its first quote (a quote is verbatim text: the excerpt is the quote's opening words).

A collection says how many documents it lists; a document page keeps its own description. Nothing here
reads the corpus: the figures are the page's.
"""

from __future__ import annotations

import re

from wikigen.core.errors import PageError
from wikigen.core.text import one_line
from wikigen.wiki.page import Page

__all__ = ["page_summary", "quoted_docs"]

ALSO_CHARS = 60  # of a topic's other names in its summary
_ALSO = re.compile(r"^Also in (?P<list>.*?)\.\s*$", re.M)
_MORE = re.compile(r"(?:^| and )(?P<more>\d+) other documents?$")
_LINK = re.compile(r"\[\[([^\[\]|\n]+?)(?:\|[^\[\]\n]+?)?\]\]")


def quoted_docs(page: Page) -> list[str]:
    """The documents the page quotes, in the order of their first quote."""
    try:
        return list(dict.fromkeys(q.doc_id for q in page.quotes()))
    except PageError:
        return []


def _also_count(body: str) -> int:
    """How many more documents an "Also in [[...]], [[...]] and N other documents." line names (or "Also in N
    other documents.": counted, none linked)."""
    m = _ALSO.search(body)
    if not m:
        return 0
    more = _MORE.search(m.group("list"))
    return len(_LINK.findall(m.group("list"))) + (int(more.group("more")) if more else 0)


def _first_quote(page: Page, limit: int) -> str:
    try:
        quotes = page.quotes()
    except PageError:
        return ""
    if not quotes:
        return ""
    text = one_line(quotes[0].text)
    return f"\u201c{one_line(text, limit)}\u201d" if text else ""


def page_summary(page: Page, limit: int = 200, *, excerpt: bool = True, title: bool = True) -> str:
    """One line (at most `limit` characters) saying what the page holds; `excerpt`: end with the opening of
    its first quote, where there is room; `title`: start with the page's title (leave it out where the line
    shows it already, as a link's text)."""
    if page.type == "document":
        return one_line(page.description or page.title, limit)
    name = one_line(page.title)
    others = [a for a in page.aliases if a.casefold() != name.casefold()]
    also = ""
    if others and page.type == "topic":  # the other names, while they take at most ALSO_CHARS
        names: list[str] = []
        for a in others:
            if len(", ".join([*names, one_line(a)])) > ALSO_CHARS:
                break
            names.append(one_line(a))
        names = names or [one_line(others[0], ALSO_CHARS)]
        also = "also " + ", ".join(names) + ("…" if len(names) < len(others) else "")
    subject = (f"{name} ({also})" if also else name) if title else also

    def said(what: str) -> str:
        return f"{subject}: {what}" if subject else what[:1].upper() + what[1:]

    if page.type == "collection":
        n = len(page.sources)
        return one_line(said(f"{n} document{'s' if n != 1 else ''} of this kind"), limit)
    quoted = quoted_docs(page)
    if not quoted:
        return one_line(said(page.description) if page.description else subject or name, limit)
    total = len(quoted) + _also_count(page.body)
    count = (
        f"quoted from {len(quoted)} of {total} documents"
        if total > len(quoted)
        else (f"quoted from {len(quoted)} document{'s' if len(quoted) != 1 else ''}")
    )
    line = said(count)
    room = limit - len(line) - 6
    quote = _first_quote(page, room) if excerpt and room >= 30 else ""
    return one_line(f"{line}; e.g. {quote}" if quote else line, limit)
