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
cut; BM25's clear leaders (at most KEEP = 4 hits scoring at least KEEP_RATIO = 0.9 of its best) are
therefore put first by `hybrid_search`, in their fused order (`keep_leaders`); the answerer passes its
own `RetrievalParams.fusion_keep`, 0 by default (the fused order as it is).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from wikigen.search.analysis import CJK_RUN
from wikigen.search.analysis import terms as analysed_terms
from wikigen.search.dense.encoder import Encoder
from wikigen.search.dense.store import VectorStore, _np
from wikigen.search.index import CorpusIndex, Hit
from wikigen.search.snippets import make_snippet

__all__ = ["DEPTH", "RRF_K", "DenseSearcher", "hybrid_search", "rrf_fuse"]

log = logging.getLogger(__name__)

RRF_K = 60
DEPTH = 100  # how deep each list is read before fusion
KEEP = 4  # BM25's best hits that come first whatever their fused rank (keep_leaders) ...
KEEP_RATIO = 0.9  # ... when they score at least this share of BM25's best score


class DenseSearcher:
    """Cosine top-k over an index's cached passage vectors."""

    def __init__(self, index: CorpusIndex, encoder: Encoder, matrix, rows: list[tuple[str, int, int]]):
        self.index = index
        self.encoder = encoder
        self.matrix = matrix
        self.rows = rows
        self._np = _np()
        self._by_doc: dict[str, list[int]] = {}
        self._queries: dict[str, object] = {}  # the last few query vectors (scoped searches repeat them)
        for i, (doc_id, _, _) in enumerate(rows):
            self._by_doc.setdefault(doc_id, []).append(i)

    @classmethod
    def open(cls, index: CorpusIndex, encoder: Encoder) -> DenseSearcher:
        matrix, rows = VectorStore(index, encoder).load()
        return cls(index, encoder, matrix, rows)

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

    def query_vector(self, query: str):
        """The query's vector, remembered for the next few calls with the same query."""
        q = self._queries.get(query)
        if q is None:
            q = self.encoder.encode([query])[0].astype(self._np.float32)
            if len(self._queries) >= 32:
                self._queries.pop(next(iter(self._queries)))
            self._queries[query] = q
        return q

    def span_scores(self, query: str, spans: Iterable[tuple[str, int, int]]) -> list[float | None]:
        """For each (doc_id, start, end): the cosine to the query of the passage that holds most of the
        span (None when its document has no vectors). Prices any piece of source text by its passage."""
        import bisect

        q = self.query_vector(query) if isinstance(query, str) and query.strip() else None
        out: list[float | None] = []
        for doc_id, start, end in spans:
            rows = self._by_doc.get(doc_id)
            if q is None or not rows:
                out.append(None)
                continue
            starts = self._starts(doc_id)
            i = max(0, bisect.bisect_right(starts, start) - 1)
            best, best_overlap = rows[i], -1
            for r in rows[i : i + 4]:
                _, a, b = self.rows[r]
                if a >= end:
                    break
                overlap = min(b, end) - max(a, start)
                if overlap > best_overlap:
                    best, best_overlap = r, overlap
            out.append(float(self.matrix[best] @ q))
        return out

    def _starts(self, doc_id: str) -> list[int]:
        cache = self.__dict__.setdefault("_starts_of", {})
        if doc_id not in cache:
            cache[doc_id] = [self.rows[r][1] for r in self._by_doc[doc_id]]
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
    lists: Iterable[list[Hit]], k: int, rrf_k: int = RRF_K, *, keep: int = 0, keep_ratio: float = 0.0
) -> list[Hit]:
    """Reciprocal rank fusion of ranked hit lists; a passage is keyed by (doc_id, start, end). The
    returned hits carry the fused score and the first list's text and snippet for that passage.
    keep > 0: the first list's best hits come first, in the fused order (see `keep_leaders`): at most
    `keep` of them, those scoring at least keep_ratio x that list's best score."""
    lists = [list(hits) for hits in lists]
    fused: dict[tuple[str, int, int], float] = {}
    first: dict[tuple[str, int, int], Hit] = {}
    order: dict[tuple[str, int, int], int] = {}
    for hits in lists:
        for rank, h in enumerate(hits, 1):
            key = (h.doc_id, h.start, h.end)
            fused[key] = fused.get(key, 0.0) + 1.0 / (rrf_k + rank)
            if key not in first:
                first[key] = h
                order[key] = len(order)
    ranked = sorted(fused, key=lambda key: (-fused[key], order[key]))
    if keep > 0 and lists:
        bar = keep_ratio * lists[0][0].score if lists[0] else 0.0
        ranked = keep_leaders(ranked, [(h.doc_id, h.start, h.end) for h in lists[0][:keep] if h.score >= bar])
    top = ranked[: max(0, k)]
    scores = [fused[key] for key in top]
    for j in range(len(scores) - 2, -1, -1):  # a kept leader scores as the hit after it: still best first
        scores[j] = max(scores[j], scores[j + 1])
    return [
        Hit(
            first[key].doc_id, first[key].path, first[key].start, first[key].end, first[key].text, s, first[key].snippet
        )
        for key, s in zip(top, scores)
    ]


def keep_leaders(ranked: list, leaders: list) -> list:
    """The leaders (a list's best few passages) first, in the fused order, then the rest in the fused order.
    Reciprocal rank fusion rewards passages both lists hold; this keeps an exact lexical match that only
    BM25 finds (a quoted phrase, a rare name) from falling below the cut."""
    lead = set(leaders)
    return [key for key in ranked if key in lead] + [key for key in ranked if key not in lead]


def hybrid_search(
    index: CorpusIndex,
    dense: DenseSearcher,
    query: str,
    k: int = 10,
    doc_ids: Iterable[str] | None = None,
    *,
    depth: int = DEPTH,
    rrf_k: int = RRF_K,
    keep: int = KEEP,
    keep_ratio: float = KEEP_RATIO,
    snippets: bool = True,
) -> list[Hit]:
    """BM25 and dense top-`depth` lists fused by reciprocal rank, best k first (see the module docstring);
    BM25's best (at most `keep`, each scoring keep_ratio x its best or more) come first (`keep_leaders`).
    Snippets are made for the k fused hits only (none with snippets=False)."""
    if doc_ids is not None and not isinstance(doc_ids, str):
        doc_ids = list(doc_ids)
    depth = max(depth, k)
    bm25 = index.search(query, k=depth, doc_ids=doc_ids, snippets=False, keep_out=False)  # ask keeps them out
    vec = dense.search(query, k=depth, doc_ids=doc_ids, snippets=False)
    fused = rrf_fuse([bm25, vec], k, rrf_k, keep=keep, keep_ratio=keep_ratio)
    if not snippets:
        return fused
    terms, runs = set(analysed_terms(query)), CJK_RUN.findall(query)
    return [Hit(h.doc_id, h.path, h.start, h.end, h.text, h.score, make_snippet(h.text, terms, runs)) for h in fused]
