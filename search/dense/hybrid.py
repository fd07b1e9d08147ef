"""Dense top-k over the cached passage vectors, and hybrid search: BM25 and dense fused by reciprocal rank.

    index = CorpusIndex.open(index_dir)
    encoder = load_encoder()
    VectorStore(index, encoder).update()           # once, then after each re-index (incremental)
    dense = DenseSearcher.open(index, encoder)
    dense.search("which law governs", k=10)         # -> [Hit], cosine scores
    hybrid_search(index, dense, "which law governs", k=10)   # -> [Hit], fused scores

Both return the same `Hit` records as `CorpusIndex.search` (offsets into the TextStore's text, the
passage text, a snippet with the query's words in bold). The dense top-k is a brute-force matmul
over every passage vector (0.2 ms for 12,000 passages here, plus about 10 ms to encode the query;
see store.py for memory).
Reciprocal rank fusion (Cormack et al. 2009): each list contributes 1 / (RRF_K + rank) for a passage
it ranks (rank from 1), RRF_K = 60; ties keep the BM25 order. Fusion favours passages both lists hold,
so an exact lexical match only BM25 finds (a quoted phrase, a rare name) can fall below the budget's
cut; the fused order is kept as it is all the same (putting BM25's clear leaders first cost the
multi-document questions of a report corpus and was never turned on).

Text the encoder cannot read (Korean, for the English model: encoder.py) is ranked by BM25 alone. A query it
cannot read has no dense half: `hybrid_search` returns BM25's hits as they are, `search` finds nothing and
`span_scores` prices nothing (None), as without vectors. A passage it cannot read has no vector (store.py);
where it is among BM25's hits, its BM25 reciprocal rank stands in for the dense one it cannot have (it counts
once per list), so that having no dense rank neither drops it nor pushes it below passages both lists hold.
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Collection, Iterable

from wikigen.search.analysis import CJK_RUN
from wikigen.search.analysis import terms as analysed_terms
from wikigen.search.dense.encoder import Encoder, can_read
from wikigen.search.dense.store import VectorStore, _np
from wikigen.search.index import CorpusIndex, Hit
from wikigen.search.snippets import make_snippet

__all__ = ["RRF_K", "DenseSearcher", "hybrid_search", "rrf_fuse"]

log = logging.getLogger(__name__)

RRF_K = 60  # Cormack et al.'s constant: the method's own, not tuned here (0, i.e. 1 / rank, measured mixed)


class DenseSearcher:
    """Cosine top-k over an index's cached passage vectors. unread: the passages (doc_id, start, end) of those
    documents that have no vector because the encoder cannot read them (VectorStore.load_unread)."""

    def __init__(
        self,
        index: CorpusIndex,
        encoder: Encoder,
        matrix,
        rows: list[tuple[str, int, int]],
        unread: Iterable[tuple[str, int, int]] = (),
    ):
        self.index = index
        self.encoder = encoder
        self.matrix = matrix
        self.rows = rows
        self.unread = frozenset(unread)
        self._np = _np()
        self._by_doc: dict[str, list[int]] = {}
        self._queries: dict[str, object] = {}  # the last few query vectors (scoped searches repeat them)
        for i, (doc_id, _, _) in enumerate(rows):
            self._by_doc.setdefault(doc_id, []).append(i)
        # per document, every passage with a vector or without one, by start: (start, end, row or None)
        self._passages: dict[str, list[tuple[int, int, int | None]]] = {}
        for i, (doc_id, a, b) in enumerate(rows):
            self._passages.setdefault(doc_id, []).append((a, b, i))
        for doc_id, a, b in self.unread:
            self._passages.setdefault(doc_id, []).append((a, b, None))
        for spans in self._passages.values():
            spans.sort(key=lambda p: (p[0], p[1]))

    @classmethod
    def open(cls, index: CorpusIndex, encoder: Encoder) -> DenseSearcher:
        matrix, rows, unread = VectorStore(index, encoder).load_unread()
        return cls(index, encoder, matrix, rows, unread)

    def __len__(self) -> int:
        return len(self.rows)

    def search(
        self, query: str, k: int = 10, doc_ids: Iterable[str] | None = None, *, snippets: bool = True
    ) -> list[Hit]:
        """The k passages nearest to the query by cosine, best first. Never raises on user input.
        snippets=False leaves each hit's snippet empty (faster, for callers that read only the text)."""
        np = self._np
        if not isinstance(query, str) or not query.strip() or k <= 0 or not self.rows:
            return []
        q = self.query_vector(query)
        if q is None:  # a query the encoder cannot read: no dense half
            return []
        if doc_ids is not None:
            ids = [doc_ids] if isinstance(doc_ids, str) else list(doc_ids)
            sel = np.array(sorted(i for d in dict.fromkeys(ids) for i in self._by_doc.get(d, ())), dtype=np.int64)
            if not len(sel):
                return []
            scores = self.matrix[sel] @ q
        else:
            sel = None
            scores = self.matrix @ q
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((top, -scores[top]))]  # by score, then by row (deterministic)
        terms, runs = (set(analysed_terms(query)), CJK_RUN.findall(query)) if snippets else (None, None)
        hits = []
        for j in top:
            row = int(sel[j]) if sel is not None else int(j)
            hit = self._hit(row, float(scores[j]), terms, runs)
            if hit is not None:
                hits.append(hit)
        return hits

    def readable(self, query: str) -> bool:
        """Whether the encoder can read the query (encoder.can_read): one it cannot has no dense half."""
        return self.query_vector(query) is not None

    def query_vector(self, query: str):
        """The query's vector, remembered for the next few calls with the same query; None for a query the
        encoder cannot read (its vector would say only which script it is in: encoder.py)."""
        if query in self._queries:
            return self._queries[query]
        q = self.encoder.encode([query])[0].astype(self._np.float32) if can_read(self.encoder, [query])[0] else None
        if len(self._queries) >= 32:
            self._queries.pop(next(iter(self._queries)))
        self._queries[query] = q
        return q

    def span_scores(self, query: str, spans: Iterable[tuple[str, int, int]]) -> list[float | None]:
        """For each (doc_id, start, end): the cosine to the query of the passage that holds most of the
        span; None when that passage has no vector (its document has none yet, or the encoder cannot read
        it) or the encoder cannot read the query. Prices any piece of source text by its passage."""
        q = self.query_vector(query) if isinstance(query, str) and query.strip() else None
        out: list[float | None] = []
        for doc_id, start, end in spans:
            passages = self._passages.get(doc_id)
            if q is None or not passages:
                out.append(None)
                continue
            i = max(0, bisect.bisect_right(self._starts(doc_id), start) - 1)
            best, best_overlap = passages[i][2], -1
            for a, b, row in passages[i : i + 4]:
                if a >= end:
                    break
                overlap = min(b, end) - max(a, start)
                if overlap > best_overlap:
                    best, best_overlap = row, overlap
            out.append(float(self.matrix[best] @ q) if best is not None else None)
        return out

    def _starts(self, doc_id: str) -> list[int]:
        cache = self.__dict__.setdefault("_starts_of", {})
        if doc_id not in cache:
            cache[doc_id] = [a for a, _, _ in self._passages[doc_id]]
        return cache[doc_id]

    def _hit(self, row: int, score: float, terms: set[str] | None, runs: list[str] | None) -> Hit | None:
        """The hit of one row; its snippet from `terms` and `runs` (no snippet when terms is None)."""
        doc_id, start, end = self.rows[row]
        info = self.index.document(doc_id)
        if info is None:
            return None
        try:
            text = self.index.texts.read(doc_id, start, end)
        except KeyError:
            return None
        snippet = make_snippet(text, terms, runs or ()) if terms is not None else ""
        return Hit(doc_id, info.path, start, end, text, score, snippet)


def rrf_fuse(
    lists: Iterable[list[Hit]], k: int, rrf_k: int = RRF_K, unread: Collection[tuple[str, int, int]] = ()
) -> list[Hit]:
    """Reciprocal rank fusion of ranked hit lists; a passage is keyed by (doc_id, start, end). The
    returned hits carry the fused score and the first list's text and snippet for that passage.
    unread: passages only the first list can rank (no vector: the encoder cannot read them); the first
    list's reciprocal rank of such a passage counts once for every list."""
    lists = [list(hits) for hits in lists]
    fused: dict[tuple[str, int, int], float] = {}
    first: dict[tuple[str, int, int], Hit] = {}
    order: dict[tuple[str, int, int], int] = {}
    for n, hits in enumerate(lists):
        for rank, h in enumerate(hits, 1):
            key = (h.doc_id, h.start, h.end)
            if key in unread:
                if n:
                    continue
                fused[key] = len(lists) / (rrf_k + rank)
            else:
                fused[key] = fused.get(key, 0.0) + 1.0 / (rrf_k + rank)
            if key not in first:
                first[key] = h
                order[key] = len(order)
    top = sorted(fused, key=lambda key: (-fused[key], order[key]))[: max(0, k)]
    return [
        Hit(
            first[key].doc_id,
            first[key].path,
            first[key].start,
            first[key].end,
            first[key].text,
            fused[key],
            first[key].snippet,
        )
        for key in top
    ]


def hybrid_search(
    index: CorpusIndex,
    dense: DenseSearcher,
    query: str,
    k: int = 10,
    doc_ids: Iterable[str] | None = None,
    *,
    snippets: bool = True,
) -> list[Hit]:
    """BM25's and the dense k best fused by reciprocal rank, best k first (see the module docstring): each list
    is read as deep as the answer asks (reading both 100 deep was measured mixed, docs/benchmarks.md, Knobs).
    Snippets are made for the k fused hits only (none with snippets=False). A query the encoder cannot read
    gets BM25's k best as they are; a passage it cannot read is ranked by its BM25 rank alone."""
    if doc_ids is not None and not isinstance(doc_ids, str):
        doc_ids = list(doc_ids)
    if isinstance(query, str) and query.strip() and not dense.readable(query):
        return index.search(query, k=k, doc_ids=doc_ids, snippets=snippets, keep_out=False)
    bm25 = index.search(query, k=k, doc_ids=doc_ids, snippets=False, keep_out=False)  # ask keeps them out
    vec = dense.search(query, k=k, doc_ids=doc_ids, snippets=False)
    fused = rrf_fuse([bm25, vec], k, RRF_K, dense.unread)
    if not snippets:
        return fused
    terms, runs = set(analysed_terms(query)), CJK_RUN.findall(query)
    return [Hit(h.doc_id, h.path, h.start, h.end, h.text, h.score, make_snippet(h.text, terms, runs)) for h in fused]
