"""Consolidation's `move` action: a quote that consolidation placed on one of the agent's topic pages, which
says another of its topic pages' subject and not its own page's, is moved to the page it belongs on
(see wikigen.agents.consolidate for the other actions). Only the agent's own pages change; the quote is
written to its new page before it leaves the old one, so nothing is lost.
"""

from __future__ import annotations

import re
from collections import defaultdict

from wikigen.agents.tails import FURTHER, split_tail, tail_start

from wikigen.wiki.markup import explicit_quotes, scan_quotes
from wikigen.wiki.page import Page


def subject_patterns(page: Page) -> list[tuple[re.Pattern, int]]:
    """(pattern, words) for the page's title and each alias said as a phrase (case and spacing aside)."""
    out = []
    for phrase in dict.fromkeys([page.title, *page.aliases]):
        words = re.findall(r"\w+", phrase or "")
        if words and len(words) <= 8:
            out.append((re.compile(r"\b" + r"\W+".join(map(re.escape, words)) + r"\b", re.IGNORECASE), len(words)))
    return out


def parse_page_quotes(body: str, page_doc: str | None = None):
    return [b.quote for b in scan_quotes(body, page_doc)]


class Mover:
    """The move action, mixed into the Consolidator (its pages, tools, _write, entry)."""

    def _moved_from(self) -> dict[str, set[str]]:
        """{page slug: documents whose quote a move took off that page} (from the progress log)."""
        if self._moved is None:
            self._moved = defaultdict(set)
            for e in self.tools.log_entries():
                if e.get("consolidation") == "move":
                    for item in e.get("moved") or []:
                        parts = str(item).rsplit("|", 4)
                        if len(parts) == 5:
                            self._moved[parts[3]].add(parts[0])
        return self._moved

    def move(self) -> None:
        """Quotes in a topic page's tail that say another of the agent's topic pages' subject, not their own."""
        from wikigen.core.slugs import doc_slug

        topics = self.mine("topic")
        pats = {p.slug: subject_patterns(p) for p in topics}
        moves: dict[str, list] = defaultdict(list)  # target slug -> [(source slug, block)]
        taking: dict[str, set[str]] = defaultdict(set)  # target slug -> documents it receives
        leaving: dict[str, list] = defaultdict(list)  # source slug -> blocks that go
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
                target = self.pages[best[1]]
                if b.quote.doc_id in {q.doc_id for q in target.quotes()} | taking[target.slug]:
                    continue
                if not self.maker_known(doc_slug(b.quote.doc_id)):
                    continue
                moves[target.slug].append((page.slug, b))
                taking[target.slug].add(b.quote.doc_id)
                leaving[page.slug].append(b)
                kept -= 1
        self._apply_moves(moves, leaving)

    def maker_known(self, slug: str) -> bool:
        return slug in self.pages or (self.maker is not None and self.maker.known.has(slug))

    def _apply_moves(self, moves: dict[str, list], leaving: dict[str, list]) -> None:
        """Write the targets first (the quotes land), then take the quotes off their sources; a source whose
        quotes did not land keeps them."""
        from wikigen.core.slugs import doc_slug

        landed: set[tuple[str, str, int, int]] = set()
        changed, moved = [], []
        for slug, items in sorted(moves.items()):
            page = self.pages[slug]
            lines_of = {
                src: explicit_quotes(self.pages[src].body, self.pages[src].quote_doc).split("\n") for src, _ in items
            }
            sections = [
                f"## [[{doc_slug(b.quote.doc_id)}]]\n\n"
                + "\n".join(lines_of[src][b.header_line : b.end_line]).strip("\n")
                for src, b in items
            ]
            head, tail = split_tail(page.body)
            if FURTHER not in tail:
                tail = "\n\n".join(x for x in (tail, FURTHER) if x)
            body = "\n\n".join([head, tail, *sections]) + "\n"
            sources = list(dict.fromkeys([*page.sources, *(b.quote.doc_id for _, b in items)]))
            if self._write(page.with_(body=body, sources=sources), grow=False):
                changed.append(slug)
                for src, b in items:
                    landed.add((src, b.quote.doc_id, b.quote.start, b.quote.end))
                    moved.append(f"{b.quote.doc_id}|{b.quote.start}|{b.quote.end}|{src}|{slug}")
        for slug, blocks in sorted(leaving.items()):
            go = [b for b in blocks if (slug, b.quote.doc_id, b.quote.start, b.quote.end) in landed]
            if not go:
                continue
            page = self.pages[slug]
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
            gone = {b.quote.doc_id for b in go} - {q.doc_id for q in parse_page_quotes(body, page.quote_doc)}
            sources = [d for d in page.sources if d not in gone]
            if self._write(page.with_(body=body.rstrip("\n") + "\n", sources=sources), grow=False):
                changed.append(slug)
        if moved:
            self._moved = None
        self.entry(
            "move",
            sorted(set(changed)),
            f"{len(moved)} quotes moved to the pages whose subject they say",
            moved=moved,
            quotes_moved=len(moved),
        )
