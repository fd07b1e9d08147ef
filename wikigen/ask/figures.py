"""Figure pages in answers: for a question about a figure in some documents ("Apple's R&D in Q3 2022") or
about how it changed or compares across documents, the quotes of the figure page the question names, in the
page's (time) order, come first, in the context and at the head of the answer (retrieval.Answerer.ask).

A figure page (type ``figure``, written by the offline agent from `wikigen.agents.figures`) quotes
one labelled line from each document that states it. A question uses it when both hold:

* the scope names documents (their lines only), or its wording asks across documents or over time
  (`asks_across`): it asks about many documents ("in each quarter", "across the reports", "which quarter"),
  speaks of several periods ("over time", "the prior year", "Q1 2023 and Q2 2023"), or names a change or a
  comparison ("how did X change", "compare X", "trend"); English and Korean, no corpus vocabulary; and
* it names the page: the idf-weighted share of the page's title (or alias) terms found in the question
  (`PageIndex.title_match`) is at least `min_share`; pages naming more of the question's terms first.

When the wiki's scope resolved the question to some documents, only their quotes are given. Called
from `retrieval.Answerer.retrieve` in the ``wiki`` and ``wiki+search`` modes, before the other
candidates; a small path of its own so the rest of retrieval does not depend on it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from wikigen.ask.context import Unit
from wikigen.ask.page_index import PageIndex, terms
from wikigen.ask.periods import names_several_periods
from wikigen.ask.wording import asks_many

__all__ = ["CHANGE", "FigurePages", "asks_across"]

FIGURE_TYPE = "figure"

# a change or a comparison named: the words of the concept, English and Korean
CHANGE = re.compile(
    r"\b(?:chang\w*|compar\w*|differ\w*|vary|var(?:ies|ied|iation)|trend\w*|increas\w*|decreas\w*|grow\w*"
    r"|declin\w*|versus|vs)\b|변화|변동|비교|차이|추이|추세|증감|증가|감소",
    re.IGNORECASE,
)


def asks_across(question: str, many: bool | None = None) -> bool:
    """The question's wording asks about a figure across documents or over time: it asks about many documents
    (`many`, as the reading found; None: wikigen.ask.wording.asks_many), speaks of several periods
    (wikigen.ask.periods.names_several_periods), or names a change or a comparison (CHANGE)."""
    q = question or ""
    return (asks_many(q) if many is None else many) or names_several_periods(q) or bool(CHANGE.search(q))


class FigurePages:
    """The wiki's figure pages and their quotes, for questions that ask across documents."""

    def __init__(self, pages: Sequence, page_index: PageIndex, *, min_share: float = 0.6, max_pages: int = 2):
        self.page_index = page_index
        self.min_share = min_share
        self.max_pages = max_pages
        self.pages = {p.slug: p for p in pages if getattr(p, "type", "") == FIGURE_TYPE}
        self._units: dict[str, list[Unit]] = {}

    def named(self, question: str) -> list[str]:
        """Slugs of the figure pages the question names, best first (at most max_pages)."""
        if not self.pages:
            return []
        q_set = set(terms(question))
        scored = []
        for slug in self.pages:
            share, hit = self.page_index.title_match(slug, q_set)
            if share >= self.min_share and hit:
                scored.append((-len(hit), -share, slug))
        return [slug for *_, slug in sorted(scored)[: self.max_pages]]

    def quotes_of(self, slug: str) -> list[Unit]:
        if slug not in self._units:
            page = self.pages[slug]
            out = []
            for b in page.quote_blocks():
                q = b.quote
                if q.end > q.start:
                    out.append(Unit("quote", q.doc_id, q.start, q.end, q.text, page=slug, label=page.title))
            self._units[slug] = out
        return self._units[slug]

    def asked(self, question: str, doc_ids: Sequence[str] | None = None, many: bool | None = None) -> list[str]:
        """The figure pages a question asks of: those it names, when it names documents (`doc_ids`, its scope) or
        asks across documents (`asks_across`, given whether it asks about many: `many`); none otherwise. Read
        once, with the question (wikigen.ask.reading)."""
        if not self.pages or not (doc_ids or asks_across(question, many)):
            return []
        return self.named(question)

    def units(self, slugs: Sequence[str], doc_ids: Sequence[str] | None = None) -> list[Unit]:
        """The quotes of the figure pages asked of (`asked`), in the documents in scope: a question about some
        documents ("Apple's R&D in Q3 2022") gets each one's line, a question across documents without a scope
        every document's."""
        keep = set(doc_ids or [])
        out: list[Unit] = []
        for slug in slugs:
            units = [Unit(u.kind, u.doc_id, u.start, u.end, u.text, u.page, u.label) for u in self.quotes_of(slug)]
            if keep:
                units = [u for u in units if u.doc_id in keep]
            out.extend(units)
        return out
