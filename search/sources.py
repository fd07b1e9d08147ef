"""The corpus index as a wiki's sources: open a wiki with the corpus index its config.json records."""

from __future__ import annotations

from pathlib import Path

from wikigen.search.index import CorpusIndex

from wikigen.core.errors import SearchIndexError
from wikigen.core.tokens import TokenCounter
from wikigen.wiki.store import Wiki


def open_wiki(root: Path, *, counter: TokenCounter | None = None) -> Wiki:
    """The wiki at root; its corpus index (from config.json) opens on first use."""
    return Wiki.open(Path(root), counter=counter, open_sources=CorpusIndex.open)


def corpus_index(wiki: Wiki) -> CorpusIndex:
    """The wiki's sources as the corpus index (opened now if it was not yet): what searches the corpus
    needs more of it than the wiki's `Sources`. SearchIndexError when the wiki has other sources."""
    src = wiki.sources
    if not isinstance(src, CorpusIndex):
        raise SearchIndexError(f"wiki {wiki.root} is not opened with a corpus index; open it with open_wiki(root)")
    return src
