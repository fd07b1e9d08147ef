"""Where context candidates come from: the quotes of the wiki's topic pages, search passages of the
corpus (whole, or as sentence windows per document), and the query expansion the wiki suggests.

Every candidate is a `Unit` carrying its exact source span; the retrieval modes (`retrieval.py`)
decide in which order they are offered to the `ContextBuilder`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from wikigen.ask.context import Unit
from wikigen.ask.page_index import PageIndex, QuoteUnit, terms
from wikigen.ask.params import DEFAULT_PARAMS, RetrievalParams
from wikigen.ask.scope import Scope
from wikigen.ask.windows import pick_windows
from wikigen.core.slugs import doc_slug

# A scope is read by one search over its documents, which reads at most this many hits (a resource bound: no
# dev corpus's scope reaches it; a document beyond them gets none, the scope's weakest)
MAX_SCOPE_HITS = 2000


def diversify(units: Sequence[Unit]) -> list[Unit]:
    """Keep the order, but one unit per document first, then a second per document, and so on
    (and never the same span twice)."""
    seen: set = set()
    rounds: list[list[Unit]] = []
    per_doc: dict[str, int] = {}
    for u in units:
        if u.key() in seen:
            continue
        seen.add(u.key())
        r = per_doc.get(u.doc_id, 0)
        per_doc[u.doc_id] = r + 1
        while len(rounds) <= r:
            rounds.append([])
        rounds[r].append(u)
    return [u for rnd in rounds for u in rnd]


class NamedTopic(NamedTuple):
    """A topic page the query names by its title terms (for pseudo-relevance feedback)."""

    weight: float  # the idf of the title terms the query holds
    score: float  # the page's search score
    slug: str


class ExpansionTerm(NamedTuple):
    value: float  # share of the named topics' quotes holding the term, times its idf
    term: str
    idf: float


class Candidates:
    """Candidate units for a question, from the corpus index and the page index."""

    def __init__(
        self, index, page_index: PageIndex, known_docs: set[str], params: RetrievalParams = DEFAULT_PARAMS, dense=None
    ):
        self.index = index
        self.dense = dense  # a DenseSearcher over the index's passage vectors, or None (BM25 only)
        self.page_index = page_index
        self.known_docs = known_docs
        self.params = params
        self._idf_cache: dict[str, float] = {}

    # --- quotes ----------------------------------------------------------------------------------

    def quote_unit(self, u: QuoteUnit) -> Unit:
        """A quote as a context unit, labelled with its heading unless the heading only names the quote's own
        document (a topic page's heading per document): the quote's header names it already, and a long
        document name would cost as many tokens again."""
        label = "" if u.heading == doc_slug(u.doc_id) else u.heading
        return Unit("quote", u.doc_id, u.start, u.end, u.text, page=u.slug, label=label)

    def valid(self, u: QuoteUnit) -> bool:
        return u.doc_id in self.known_docs and u.end > u.start

    def quotes(
        self, query: str, k: int, *, slugs: Iterable[str] | None = None, doc_ids: Sequence[str] | None = None
    ) -> list[Unit]:
        """The quotes best matching the query (of some pages, in some documents), one per document first."""
        qhits = self.page_index.search_quotes(query, k=k, slugs=slugs, doc_ids=doc_ids)
        return diversify([self.quote_unit(h.unit) for h in qhits if self.valid(h.unit)])

    def topic_quotes(self, query: str, hits, scope: Scope, k: int, *, extra_slugs: Iterable[str] = ()) -> list[Unit]:
        """Quotes from the best topic pages (and extra pages), ranked by relevance to the query,
        one per document before a second from the same document."""
        slugs = [h.slug for h in hits if h.type == "topic"]
        slugs.extend(s for s in extra_slugs if s not in slugs)
        if not slugs:
            return []
        return self.quotes(query, k, slugs=slugs, doc_ids=scope.doc_ids if scope.doc_ids else None)

    def quotes_by_meaning(
        self, query: str, doc_ids: Sequence[str] | None = None, slugs: Sequence[str] | None = None
    ) -> list[Unit]:
        """Every quote of the wiki (in doc_ids, on the pages `slugs`, when given), closest by meaning to the
        query first (its passage's cosine), one per document first; [] without passage vectors. Finds the
        quotes that share no word with the question."""
        if self.dense is None:
            return []
        wanted = set(doc_ids) if doc_ids else None
        pages = set(slugs) if slugs is not None else None
        units = [
            u
            for u in self.page_index.units
            if self.valid(u) and (wanted is None or u.doc_id in wanted) and (pages is None or u.slug in pages)
        ]
        scores = self.dense.span_scores(query, [(u.doc_id, u.start, u.end) for u in units])
        ranked = sorted((i for i, s in enumerate(scores) if s is not None), key=lambda i: (-scores[i], i))
        return diversify([self.quote_unit(units[i]) for i in ranked])

    # --- passages --------------------------------------------------------------------------------

    def idf(self, term: str) -> float:
        """BM25 idf of an analysed term over the corpus passages (1.0 when the index cannot say)."""
        if term not in self._idf_cache:
            try:
                self._idf_cache[term] = self.index.idf(term)
            except Exception:
                self._idf_cache[term] = 1.0
        return self._idf_cache[term]

    def search(self, query: str, k: int, doc_ids=None, *, hybrid: bool = True) -> list:
        """The k best passages: BM25 and dense fused by reciprocal rank when vectors exist, else BM25."""
        if hybrid and self.dense is not None:
            from wikigen.search.dense.hybrid import hybrid_search

            return hybrid_search(self.index, self.dense, query, k=k, doc_ids=doc_ids, snippets=False)
        return self.index.search(query, k=k, doc_ids=doc_ids, snippets=False, keep_out=False)

    def search_units(self, query: str, k: int, doc_ids=None) -> list[Unit]:
        return [Unit("passage", h.doc_id, h.start, h.end, h.text) for h in self.search(query, k, doc_ids)]

    def earned(self, question: str, units: Sequence[Unit], k: int) -> list[Unit]:
        """The units that earn a share of the budget: those whose passage is at least as close to the
        question (dense cosine) as the search passage at rank params.wiki_gate_rank among the question's
        k best, and those whose passage has no vector (the gate cannot judge them: text the encoder cannot
        read). All of them when there is no gate or no vectors, or the encoder cannot read the question."""
        rank = self.params.wiki_gate_rank
        if rank <= 0 or self.dense is None or not units:
            return list(units)
        found = self.search(question, k)
        bar_scores = sorted(
            (s for s in self.dense.span_scores(question, [(h.doc_id, h.start, h.end) for h in found]) if s is not None),
            reverse=True,
        )
        if not bar_scores:
            return list(units)
        bar = bar_scores[min(rank, len(bar_scores)) - 1]
        scores = self.dense.span_scores(question, [u.key() for u in units])
        return [u for u, s in zip(units, scores) if s is None or s >= bar]

    def _passages_by_doc(self, query: str, doc_ids: Sequence[str], k_doc: int, hybrid: bool) -> dict[str, list]:
        """Each in-scope document's best `k_doc` passages for the query, from one search over the scope: a document
        whose passages rank below the others' gets fewer, or none (a search per document, each given its
        best passages however weak, read cuad-dev's aggregate questions with less precision: docs/benchmarks.md,
        Knobs)."""
        by_doc: dict[str, list] = {}
        for h in self.search(query, min(MAX_SCOPE_HITS, k_doc * len(doc_ids)), doc_ids, hybrid=hybrid):
            lst = by_doc.setdefault(h.doc_id, [])
            if len(lst) < k_doc:
                lst.append(h)
        return by_doc

    def _add_expanded(
        self, by_doc: dict[str, list], query: str, expansion: dict[str, float], doc_ids: Sequence[str], k_doc: int
    ) -> None:
        """Add the passages the expanded query finds (params.prf_search per document at most)."""
        n = self.params.prf_search
        extra = self.index.search(
            query + " " + " ".join(expansion),
            k=min(MAX_SCOPE_HITS, n * len(doc_ids)),
            doc_ids=doc_ids,
            keep_out=False,
        )
        for h in extra:
            lst = by_doc.setdefault(h.doc_id, [])
            if len(lst) < k_doc + n and all(h.start != g.start for g in lst):
                lst.append(h)

    def scoped_passages(
        self,
        query: str,
        doc_ids: Sequence[str],
        per_doc: int = 3,
        window: int | None = None,
        passages: int = 0,
        expansion: dict[str, float] | None = None,
    ) -> list[list[Unit]]:
        """Per round r: the r-th best unit of each in-scope document, documents ordered by their best
        score. Without `window` a unit is a whole passage (the r-th best passage). With `window`, the
        units are windows of whole sentences (about `window` characters) inside the document's best
        `per_doc` passages (or `passages`, when more: the dreamer's one window per document), ranked by the
        query terms they hold (idf-weighted), so a document's best unit is the clause that matches rather
        than the passage around it."""
        p = self.params
        k_doc = max(per_doc, passages) if window else per_doc
        # a many-document scope's windows come from BM25's passages: fused ones served them worse
        by_doc = self._passages_by_doc(query, doc_ids, k_doc, not window)
        if window:
            weights = {t: self.idf(t) for t in dict.fromkeys(terms(query))}
            for t, w in (expansion or {}).items():
                weights.setdefault(t, w)
            if expansion and p.prf_search:
                self._add_expanded(by_doc, query, expansion, doc_ids, k_doc)
        order = sorted((d for d in by_doc if by_doc[d]), key=lambda d: -by_doc[d][0].score)
        if window:
            units_of = {
                d: pick_windows(
                    by_doc[d],
                    weights,
                    window,
                    per_doc,
                )
                for d in order
            }
            order = sorted(order, key=lambda d: -(len(units_of[d]) > 0))
        else:
            units_of = {
                d: [Unit("passage", h.doc_id, h.start, h.end, h.text) for h in by_doc[d][:per_doc]] for d in order
            }
        return [[units_of[d][r] for d in order if len(units_of[d]) > r] for r in range(per_doc)]

    # --- query expansion -------------------------------------------------------------------------

    def _named_topics(self, q_set: set[str], hits) -> list[str]:
        """The topic pages the query names well, by title terms that are not all common words."""
        named = []
        for h in hits:
            if h.type != "topic":
                continue
            share, matched = self.page_index.title_match(h.slug, q_set)
            weight = sum(self.idf(t) for t in matched)
            # named as a topic page is (named_share), and not by common words only: those say little
            if share >= self.params.named_share and weight >= self.params.prf_min_idf:
                named.append(NamedTopic(weight, h.score, h.slug))
        named.sort(key=lambda n: (-n.weight, -n.score, n.slug))
        return [n.slug for n in named[:1]]  # the best-named topic (its quotes: the subject in many documents)

    def expansion_terms(self, query: str, hits) -> dict[str, float]:
        """Pseudo-relevance feedback from the wiki: the topic pages the query names (title/aliases) quote
        the subject in many documents; the terms most of those quotes share (weighted by idf), which the
        query lacks, with a lower weight than the query's own terms. Finds clauses phrased differently."""
        p = self.params
        if not p.prf_terms:
            return {}
        q_set = set(terms(query))
        quotes = [u for s in self._named_topics(q_set, hits) for u in self.page_index.units_about.get(s, [])]
        if len(quotes) < 3:  # terms that two quotes share are no evidence of how the subject is written
            return {}
        qdf: dict[str, int] = {}
        for u in quotes:
            for t in set(terms(u.text)):
                qdf[t] = qdf.get(t, 0) + 1
        cands = []
        for t, n in qdf.items():
            if t in q_set or n < max(2, p.prf_min_share * len(quotes)) or not t.isalpha():  # shared: in two at least
                continue
            idf = self.idf(t)
            cands.append(ExpansionTerm(n / len(quotes) * idf, t, idf))
        cands.sort(key=lambda c: (c.value, c.term, c.idf), reverse=True)
        return {c.term: c.idf for c in cands[: p.prf_terms]}
