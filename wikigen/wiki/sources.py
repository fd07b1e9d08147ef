"""What the wiki needs of a corpus: the `Sources` protocol. The wiki never imports the corpus index;
`wikigen.search.index.CorpusIndex` implements this protocol, and tests use small stand-ins.

Members are read-only properties, so an implementation may hold them as plain or frozen attributes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from wikigen.core.text import Span


class SourceTexts(Protocol):
    def text(self, doc_id: str) -> str:
        """The document's extracted text; KeyError for an unknown document."""
        ...


class SourceDocument(Protocol):
    """A document of the corpus; the wiki also reads its `sha256` where it has one (CorpusIndex's do), to
    tell a page whose source changed (wikigen.wiki.freshness)."""

    @property
    def doc_id(self) -> str: ...

    @property
    def chars(self) -> int: ...


class SourceChanges(Protocol):
    """What changed in the corpus folder since it was indexed (wikigen.search.freshness.Changes)."""

    @property
    def changed(self) -> Sequence[str]: ...

    @property
    def removed(self) -> Sequence[str]: ...

    @property
    def missing_corpus(self) -> str:
        """Why the corpus folder cannot be read; '' when it can."""
        ...

    @property
    def any(self) -> bool: ...

    def text(self) -> str:
        """One line saying what changed."""
        ...


class Sources(Protocol):
    @property
    def texts(self) -> SourceTexts: ...

    @property
    def corpus_chars(self) -> int: ...

    @property
    def corpus_tokens(self) -> int: ...

    def locate(self, doc_id: str, text: str, tolerant_whitespace: bool = False) -> list[Span]: ...

    def documents(self) -> Iterable[SourceDocument]: ...

    def corpus_changes(self) -> SourceChanges:
        """The corpus files changed, added or removed since the index was built (by content hash)."""
        ...
