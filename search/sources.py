"""The corpus index as a wiki's sources: open a wiki with the corpus index its config.json records."""

from __future__ import annotations

from pathlib import Path

from wikigen.search.index import CorpusIndex

from wikigen.core.tokens import TokenCounter
from wikigen.wiki.store import Wiki


def open_wiki(root: Path, *, counter: TokenCounter | None = None) -> Wiki:
    """The wiki at root; its corpus index (from config.json) opens on first use."""
    return Wiki.open(Path(root), counter=counter, open_sources=CorpusIndex.open)
