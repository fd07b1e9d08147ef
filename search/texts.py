"""The kept extracted texts: what every character offset in the project refers to.

Each document's extracted text is stored once, exactly (line endings included), so any quote can be
checked against it later. Offsets are Python str indices (code points), never UTF-8 bytes.
"""

from __future__ import annotations

import hashlib
import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from wikigen.atomic import atomic_write


@dataclass(frozen=True, order=True)
class Span:
    doc_id: str
    start: int
    end: int


def normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _whitespace_pattern(needle: str) -> re.Pattern[str] | None:
    words = needle.split()
    if not words:
        return None
    return re.compile(r"\s+".join(re.escape(w) for w in words))


def find_spans(text: str, needle: str, *, tolerant_whitespace: bool = False, limit: int = 100) -> list[tuple[int, int]]:
    """Every (start, end) where needle occurs in text. Tolerant: any run of whitespace matches any other."""
    if not needle:
        return []
    out: list[tuple[int, int]] = []
    if not tolerant_whitespace:
        i = text.find(needle)
        while i != -1 and len(out) < limit:
            out.append((i, i + len(needle)))
            i = text.find(needle, i + 1)
        return out
    pat = _whitespace_pattern(needle)
    if pat is None:
        return []
    for m in pat.finditer(text):
        out.append((m.start(), m.end()))
        if len(out) >= limit:
            break
    return out


class TextStore:
    """Extracted texts on disk, one file each, named by a hash of the doc id (doc ids may hold any character)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._cache: dict[str, str] = {}

    def _path(self, doc_id: str) -> Path:
        h = hashlib.sha1(doc_id.encode("utf-8")).hexdigest()
        return self.root / h[:2] / f"{h}.txt"

    def put(self, doc_id: str, text: str) -> None:
        atomic_write(self._path(doc_id), text)
        self._cache.pop(doc_id, None)

    def put_many(self, items: Iterable[tuple[str, str]], *, workers: int = 8) -> None:
        """put() every (doc_id, text), several files at a time: each write waits on its own fsync,
        and concurrent fsyncs share the file system's journal commits."""
        items = list(items)
        if len(items) <= 1 or workers <= 1:
            for doc_id, text in items:
                self.put(doc_id, text)
            return
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="textstore-put") as pool:
            for f in [pool.submit(self.put, doc_id, text) for doc_id, text in items]:
                f.result()

    def remove(self, doc_id: str) -> None:
        self._cache.pop(doc_id, None)
        try:
            os.unlink(self._path(doc_id))
        except FileNotFoundError:
            pass

    def has(self, doc_id: str) -> bool:
        return doc_id in self._cache or self._path(doc_id).is_file()

    def text(self, doc_id: str) -> str:
        """The document's extracted text. KeyError when the store has no such document."""
        cached = self._cache.get(doc_id)
        if cached is not None:
            return cached
        try:
            with open(self._path(doc_id), encoding="utf-8", newline="") as f:
                text = f.read()
        except FileNotFoundError:
            raise KeyError(doc_id) from None
        if len(self._cache) > 512:
            self._cache.clear()
        self._cache[doc_id] = text
        return text

    def read(self, doc_id: str, start: int, end: int) -> str:
        return self.text(doc_id)[start:end]

    def locate(self, doc_id: str, needle: str, *, tolerant_whitespace: bool = False) -> list[Span]:
        """Where needle occurs verbatim in the document, as character spans; [] for an unknown document."""
        try:
            text = self.text(doc_id)
        except KeyError:
            return []
        return [Span(doc_id, s, e) for s, e in find_spans(text, needle, tolerant_whitespace=tolerant_whitespace)]
