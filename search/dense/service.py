"""Dense vectors as part of the normal path: update them after indexing, open them for search.

    outcome = update_vectors(index, progress=bar)   # after CorpusIndex.build: embeds what is new
    outcome.note                                    # one line for the user (what was embedded, or why not)
    dense = open_dense(index)                       # a DenseSearcher, or None: then search is BM25 only

Where the encoder cannot run (numpy, safetensors, tokenizers or the model package missing, or the
model files unreadable) neither raises: `update_vectors` returns an outcome with `summary=None` and
a note saying that search stays BM25 only and how to install the model; `open_dense` returns None.
The encoder is loaded once per process (about 90 MB of weights) and shared.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from wikigen.search.dense.encoder import DenseUnavailable, Encoder, load_encoder
from wikigen.search.dense.store import DenseSummary, VectorStore
from wikigen.search.integrity import index_lock

from wikigen.core.errors import IndexLockedError

__all__ = ["DenseOutcome", "open_dense", "shared_encoder", "update_vectors"]

log = logging.getLogger(__name__)

_LOCK = threading.Lock()
_ENCODER: list = []  # [encoder] once loaded, [DenseUnavailable] when it cannot be


@dataclass
class DenseOutcome:
    summary: DenseSummary | None  # None: no vectors were made (see note)
    note: str

    @property
    def ok(self) -> bool:
        return self.summary is not None


def shared_encoder() -> Encoder:
    """The process's encoder (loaded on first use). Raises DenseUnavailable when it cannot run here."""
    with _LOCK:
        if not _ENCODER:
            try:
                _ENCODER.append(load_encoder())
            except DenseUnavailable as e:
                _ENCODER.append(e)
        got = _ENCODER[0]
    if isinstance(got, DenseUnavailable):
        raise got
    return got


def update_vectors(
    index, progress: Callable[[int, int], None] | None = None, *, encoder: Encoder | None = None
) -> DenseOutcome:
    """Embed the passages of the index's new or changed documents (cached beside the index)."""
    try:
        enc = encoder or shared_encoder()
    except DenseUnavailable as e:
        note = f"dense vectors skipped, search is BM25 only: {e}"
        log.info(note)
        return DenseOutcome(None, note)
    try:
        with index_lock(index.index_dir):  # one writer per index (search/integrity.py)
            summary = VectorStore(index, enc).update(progress=progress)
    except IndexLockedError as e:
        return DenseOutcome(None, f"dense vectors not updated now: {e}")
    return DenseOutcome(summary, summary.to_text())


def open_dense(index, *, encoder: Encoder | None = None):
    """A DenseSearcher over the index's cached vectors, or None when the encoder cannot run here or no
    document has vectors yet (search then stays BM25 only)."""
    from wikigen.search.dense.hybrid import DenseSearcher

    try:
        enc = encoder or shared_encoder()
        searcher = DenseSearcher.open(index, enc)
    except DenseUnavailable as e:
        log.info("dense search off: %s", e)
        return None
    except (OSError, ValueError) as e:
        log.warning("dense vectors of %s unreadable (%s): search is BM25 only", index.index_dir, e)
        return None
    if not len(searcher):
        log.info("no dense vectors for %s yet: search is BM25 only (run `wikigen index`)", index.index_dir)
        return None
    return searcher
