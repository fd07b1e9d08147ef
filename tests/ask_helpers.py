"""An `Answerer` over a small corpus and a hand-written wiki, for tests of how `ask` reads pages."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from wikigen.search.index import CorpusIndex

from wikigen.ask.retrieval import Answerer
from wikigen.wiki.page import Page
from wikigen.wiki.store import Wiki


def answerer_over(root: Path, docs: dict[str, str], pages: Iterable[Page]) -> Answerer:
    """The corpus `docs` (doc id -> text, written as <doc id>.txt under root/corpus) indexed for real, and a wiki
    of `pages` written by agent-1 in session 1."""
    corpus = Path(root) / "corpus"
    for d, t in docs.items():
        p = corpus / f"{d}.txt"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(t.encode("utf-8"))
    idx, _ = CorpusIndex.build(corpus, Path(root) / "index")
    wiki = Wiki.create(Path(root) / "wiki", idx, max_ratio=10.0)
    for page in pages:
        wiki.write(page, agent="agent-1", session=1)
    return Answerer.open(Path(root) / "wiki")
