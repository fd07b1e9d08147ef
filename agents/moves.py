"""Consolidation's `move` rule: a quote that consolidation placed on one of the agent's topic pages, which
says another of its topic pages' subject and not its own page's, belongs on that other page (see
wikigen.agents.consolidate, whose Consolidator applies the moves: it writes the quote to its new page
before taking it off the old one, so nothing is lost).

Pure functions of the pages: which quotes move where (`plan_moves`), the pages with the moved quotes
added (`with_moved_in`) and taken off (`without_moved_out`), and where past moves took quotes from
(`moved_from`, read from the progress log's entries).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping

from wikigen.agents.tails import FURTHER, split_tail, tail_start

from wikigen.core.slugs import doc_slug
from wikigen.wiki.markup import QuoteBlock, explicit_quotes, scan_quotes
from wikigen.wiki.page import Page

Moves = dict[str, list[tuple[str, QuoteBlock]]]  # target slug -> [(source slug, the quote's block there)]


def subject_patterns(page: Page) -> list[tuple[re.Pattern, int]]:
    """(pattern, words) for the page's title and each alias said as a phrase (case and spacing aside)."""
    out = []
    for phrase in dict.fromkeys([page.title, *page.aliases]):
        words = re.findall(r"\w+", phrase or "")
        if words and len(words) <= 8:
            out.append((re.compile(r"\b" + r"\W+".join(map(re.escape, words)) + r"\b", re.IGNORECASE), len(words)))
    return out


def moved_from(entries: Iterable[dict]) -> dict[str, set[str]]:
    """{page slug: documents whose quote a move took off that page}, from the progress log's entries
    (a move logs each quote as "doc|start|end|from|to")."""
    out: dict[str, set[str]] = defaultdict(set)
    for e in entries:
        if e.get("consolidation") == "move":
            for item in e.get("moved") or []:
                parts = str(item).rsplit("|", 4)
                if len(parts) == 5:
                    out[parts[3]].add(parts[0])
    return out


def plan_moves(
    topics: list[Page], pages: Mapping[str, Page], known: Callable[[str], bool]
) -> tuple[Moves, dict[str, list[QuoteBlock]]]:
    """Which quotes in the tails of the agent's topic pages `topics` move, and where: a quote that does not
    say its page's title or an alias but says another of these pages' (the longest such phrase decides)
    goes to that page, unless it quotes that document already; a page keeps at least one quote, and a
    quote moves only when its document's page is `known`. (moves, {source slug: the blocks that go}).
    `pages`: every page by slug."""
    pats = {p.slug: subject_patterns(p) for p in topics}
    moves: Moves = defaultdict(list)
    taking: dict[str, set[str]] = defaultdict(set)  # target slug -> documents it receives
    leaving: dict[str, list[QuoteBlock]] = defaultdict(list)
    for page in topics:
        offset = tail_start(page.body)
        if offset is None:
            continue
        blocks = [b for b in page.quote_blocks() if b.header_line >= offset]
        kept = len(page.quotes())
        for b in blocks:
            text = b.quote.text
            if kept <= 1 or any(p.search(text) for p, _ in pats[page.slug]):
                continue
            best = max(
                ((n, s) for s, ps in pats.items() if s != page.slug for p, n in ps if p.search(text)), default=None
            )
            if best is None:
                continue
            target = pages[best[1]]
            if b.quote.doc_id in {q.doc_id for q in target.quotes()} | taking[target.slug]:
                continue
            if not known(doc_slug(b.quote.doc_id)):
                continue
            moves[target.slug].append((page.slug, b))
            taking[target.slug].add(b.quote.doc_id)
            leaving[page.slug].append(b)
            kept -= 1
    return moves, leaving


def with_moved_in(page: Page, items: list[tuple[str, QuoteBlock]], pages: Mapping[str, Page]) -> Page:
    """The target page with the moved quotes added to its tail (under FURTHER), each under its document's
    heading and naming its document; `pages`: the source pages by slug."""
    lines_of = {src: explicit_quotes(pages[src].body, pages[src].quote_doc).split("\n") for src, _ in items}
    sections = [
        f"## [[{doc_slug(b.quote.doc_id)}]]\n\n" + "\n".join(lines_of[src][b.header_line : b.end_line]).strip("\n")
        for src, b in items
    ]
    head, tail = split_tail(page.body)
    if FURTHER not in tail:
        tail = "\n\n".join(x for x in (tail, FURTHER) if x)
    body = "\n\n".join([head, tail, *sections]) + "\n"
    sources = list(dict.fromkeys([*page.sources, *(b.quote.doc_id for _, b in items)]))
    return page.with_(body=body, sources=sources)


def without_moved_out(page: Page, go: list[QuoteBlock]) -> Page:
    """The source page without the blocks that went (and a document's heading with nothing else under it);
    a document it no longer quotes leaves its sources."""
    lines = page.body.split("\n")
    cut = {i for b in go for i in range(b.header_line, b.end_line)}
    for b in go:  # the document's heading goes with its quote when nothing else is under it
        h = b.header_line - 1
        while h >= 0 and not lines[h].strip():
            h -= 1
        if h >= 0 and lines[h].startswith(f"## [[{doc_slug(b.quote.doc_id)}]]"):
            nxt = b.end_line
            while nxt < len(lines) and not lines[nxt].strip():
                nxt += 1
            if nxt >= len(lines) or lines[nxt].startswith("## "):
                cut.add(h)
    body = "\n".join(x for i, x in enumerate(lines) if i not in cut)
    while "\n\n\n" in body:
        body = body.replace("\n\n\n", "\n\n")
    gone = {b.quote.doc_id for b in go} - {b.quote.doc_id for b in scan_quotes(body, page.quote_doc)}
    sources = [d for d in page.sources if d not in gone]
    return page.with_(body=body.rstrip("\n") + "\n", sources=sources)
