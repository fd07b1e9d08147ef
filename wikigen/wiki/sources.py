"""What the wiki needs of a corpus: the `Sources` protocol. The wiki never imports the corpus index;
`wikigen.search.index.CorpusIndex` implements this protocol, and tests use small stand-ins."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from wikigen.core.text import Span


class SourceTexts(Protocol):
    def text(self, doc_id: str) -> str:
        """The document's extracted text; KeyError for an unknown document."""


class SourceDocument(Protocol):
    doc_id: str
    chars: int
    sha256: str


class Sources(Protocol):
    texts: SourceTexts
    corpus_chars: int
    corpus_tokens: int

    def locate(self, doc_id: str, text: str, tolerant_whitespace: bool = False) -> list[Span]: ...

    def documents(self) -> Iterable[SourceDocument]: ...
