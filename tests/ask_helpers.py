"""An `Answerer` over a small corpus and a hand-written wiki, for tests of how `ask` reads pages."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from wikigen.search.index import CorpusIndex

from wikigen.ask.retrieval import Answerer
from wikigen.wiki.markup import Quote, format_quote
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


def quoted(doc_id: str, text: str, needle: str) -> Quote:
    """The quote of `needle`'s first occurrence in the document's text."""
    start = text.index(needle)
    return Quote(doc_id, start, start + len(needle), needle)


def document_page(doc_id: str, title: str, quote: Quote, description: str) -> Page:
    """A document page (doc-<doc id>) quoting one span of its document."""
    return Page(
        slug=f"doc-{doc_id}",
        title=title,
        owner="agent-1",
        description=description,
        type="document",
        sources=[doc_id],
        body=format_quote(quote) + "\n",
    )


def figure_page(slug: str, title: str, quotes: Sequence[Quote]) -> Page:
    """A figure page: each document's line, under a link to its document page."""
    return Page(
        slug=slug,
        title=title,
        owner="agent-1",
        type="figure",
        description=f"{title} as {len(quotes)} documents state it",
        sources=sorted({q.doc_id for q in quotes}),
        body="\n\n".join(f"## [[doc-{q.doc_id}]]\n\n" + format_quote(q) for q in quotes) + "\n",
    )
