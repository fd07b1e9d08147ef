"""The corpus index as a wiki's sources: open a wiki with the corpus index its config.json records."""

from __future__ import annotations

from pathlib import Path

from wikigen.search.index import CorpusIndex

from wikigen.core.errors import SearchIndexError
from wikigen.core.tokens import TokenCounter
from wikigen.wiki.progress import Coverage
from wikigen.wiki.store import Wiki


def open_wiki(root: Path, *, counter: TokenCounter | None = None) -> Wiki:
    """The wiki at root; its corpus index (from config.json) opens on first use."""
    return Wiki.open(Path(root), counter=counter, open_sources=CorpusIndex.open)


def stats_report(wiki: Wiki) -> tuple[dict, Coverage]:
    """What `wikigen stats` (and MCP's stats) report: the wiki's figures and coverage map
    (wikigen.wiki.lint.wiki_report), then what its corpus index's passage vectors cover
    (wikigen.search.dense.service.vector_counts: passages with a vector, and those without one because the
    encoder cannot read their text, which search ranks by BM25 alone)."""
    from wikigen.search.dense.service import vector_counts

    from wikigen.wiki.lint import wiki_report

    stats, cov = wiki_report(wiki)
    return {**stats, **vector_counts(wiki.sources)}, cov


def corpus_index(wiki: Wiki) -> CorpusIndex:
    """The wiki's sources as the corpus index (opened now if it was not yet): what searches the corpus
    needs more of it than the wiki's `Sources`. SearchIndexError when the wiki has other sources."""
    src = wiki.sources
    if not isinstance(src, CorpusIndex):
        raise SearchIndexError(f"wiki {wiki.root} is not opened with a corpus index; open it with open_wiki(root)")
    return src
