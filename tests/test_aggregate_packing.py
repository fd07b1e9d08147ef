"""Packing a question about many documents: sentence windows chosen with a prior, a window's passage closeness by
meaning (dense cosine, where the index has vectors) in its score, and the wiki alone filling its budget by
meaning. Small corpora built here, real index."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

np = pytest.importorskip("numpy", reason="dense search needs numpy (a core dependency)")

from test_dense_store import FakeEncoder  # noqa: E402  (a bag of known words, as the sentence model)
from wikigen.search.dense.hybrid import DenseSearcher  # noqa: E402
from wikigen.search.dense.store import VectorStore  # noqa: E402
from wikigen.search.index import CorpusIndex, Hit  # noqa: E402

from wikigen.ask.candidates import Candidates  # noqa: E402
from wikigen.ask.page_index import PageIndex  # noqa: E402
from wikigen.ask.params import RetrievalParams  # noqa: E402
from wikigen.ask.retrieval import Answerer  # noqa: E402
from wikigen.ask.windows import pick_windows  # noqa: E402

FILLER = (
    "The parties shall cooperate in good faith on the matters described in the schedule. "
    "Each party bears its own costs of preparing this document. "
)


def _hit(start: int, text: str, score: float) -> Hit:
    return Hit("d", "d.txt", start, start + len(text), text, score, "")


def test_a_prior_decides_between_windows_with_the_same_terms():
    a = _hit(0, "Orion may audit the records once a year.", 10.0)
    b = _hit(500, "Beta may audit the books on notice.", 10.0)
    weights = {"audit": 3.0}
    first = pick_windows([a, b], weights, 200, 1)
    assert [(u.start, u.text) for u in first] == [(0, a.text)]  # a tie keeps the better-ranked passage
    second = pick_windows([a, b], weights, 200, 1, priors=[0.0, 1.0])
    assert [(u.start, u.text) for u in second] == [(500, b.text)]
    both = pick_windows([a, b], weights, 200, 2, priors=[0.0, 1.0])
    assert [u.start for u in both] == [500, 0]


def _corpus(root: Path, docs: dict[str, str]) -> CorpusIndex:
    corpus = root / "corpus"
    corpus.mkdir()
    for name, text in docs.items():
        (corpus / f"{name}.txt").write_text(text, encoding="utf-8")
    idx, _ = CorpusIndex.build(corpus, root / "index")
    return idx


WORDS = ["terminate", "agreement", "law", "governs", "delaware", "england", "notice", "days", "payment", "royalty"]


def test_windows_weigh_their_passage_closeness_by_meaning(tmp_path):
    """Two clauses hold the question's one word once each; BM25 prefers the shorter passage, whose words are
    about other things (law, notice, payment); the passage closest to the question by meaning wins once
    its cosine counts (window_dense), and only then."""
    near_words = "The supply runs for the initial period agreed. " * 22
    far_words = "The law of Delaware governs notice, payment and royalty days under this agreement. " * 10
    doc = (
        "1. NOTICES. The supplier may terminate the supply. "
        + far_words
        + "\n\n"
        + "9. ENDING. Either party may terminate for convenience. "
        + near_words
        + "\n"
    )
    idx = _corpus(tmp_path, {"d": doc})
    enc = FakeEncoder(WORDS)
    VectorStore(idx, enc).update()
    dense = DenseSearcher.open(idx, enc)
    pages = PageIndex.build([])
    known = {"d"}

    passages = idx.search("terminate", k=5, doc_ids=["d"], snippets=False)
    assert [h.text[:11] for h in passages] == ["1. NOTICES.", "9. ENDING. "]  # BM25: the shorter passage first

    def best(params):
        cands = Candidates(idx, pages, known, params, dense=dense)
        rounds = cands.scoped_passages("terminate", ["d"], per_doc=1, window=60)
        return rounds[0][0].text

    assert "The supplier may terminate the supply." in best(RetrievalParams(window_dense=0.0))
    assert "Either party may terminate for convenience." in best(RetrievalParams(window_dense=8.0))


class SynonymEncoder:
    """Meaning as groups of words: a word of a group counts for the whole group (fee ~ royalty)."""

    name = "fake-synonyms/v1"
    groups: ClassVar = [("fee", "royalty"), ("court", "tribunal")]
    dim = len(groups) + 1

    def encode(self, texts):
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, t in enumerate(texts):
            low = t.lower()
            for j, words in enumerate(self.groups):
                out[i, j] = sum(low.count(w) for w in words)
            out[i, -1] = 0.1
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_the_wiki_alone_fills_its_budget_with_the_quotes_closest_by_meaning(tmp_path):
    """Wiki mode: the quotes sharing a word with the question come first; the room left goes to the other
    quotes, closest by meaning first (a royalty clause for a question about fees, before a court clause)."""
    from wikigen.wiki.markup import Quote, format_quote
    from wikigen.wiki.page import Page

    texts = {
        "a": "The fee is paid monthly by the licensee.",
        "b": "A royalty of five percent applies to sales.",
        "c": "The tribunal of Ruritania hears every dispute.",
    }
    idx = _corpus(tmp_path, texts)
    enc = SynonymEncoder()
    VectorStore(idx, enc).update()
    dense = DenseSearcher.open(idx, enc)
    body = "\n\n".join(f"## {d}\n\n" + format_quote(Quote(d, 0, len(t), t)) for d, t in texts.items()) + "\n"
    page = Page(
        slug="topic-terms", title="Terms", owner="agent-1", description="Terms.", body=body, sources=sorted(texts)
    )
    q = "What fee does the licensee pay?"

    def quoted(dense_searcher):
        answerer = Answerer(idx, [page], cache_dir=None, dense=dense_searcher)
        items, _, _ = answerer.retrieve(q, "wiki", 4000)
        return [s["doc_id"] for c in items for s in c.spans]

    assert quoted(None) == ["a"]  # by words alone: the one quote naming a fee
    assert quoted(dense) == ["a", "b", "c"]  # then by meaning: royalty before the tribunal
