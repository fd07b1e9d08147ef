"""The wiki alone fills its budget with the quotes closest to the question by meaning (dense cosine, where the
index has vectors). A small corpus built here, real index."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

np = pytest.importorskip("numpy", reason="dense search needs numpy (a core dependency)")

from wikigen.search.dense.hybrid import DenseSearcher  # noqa: E402
from wikigen.search.dense.store import VectorStore  # noqa: E402
from wikigen.search.index import CorpusIndex  # noqa: E402

from wikigen.ask.retrieval import Answerer  # noqa: E402

FILLER = (
    "The parties shall cooperate in good faith on the matters described in the schedule. "
    "Each party bears its own costs of preparing this document. "
)


def _corpus(root: Path, docs: dict[str, str]) -> CorpusIndex:
    corpus = root / "corpus"
    corpus.mkdir()
    for name, text in docs.items():
        (corpus / f"{name}.txt").write_text(text, encoding="utf-8")
    idx, _ = CorpusIndex.build(corpus, root / "index")
    return idx


WORDS = ["terminate", "agreement", "law", "governs", "delaware", "england", "notice", "days", "payment", "royalty"]


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
