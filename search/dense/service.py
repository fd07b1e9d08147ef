"""Dense vectors as part of the normal path: update them after indexing, open them for search, say what is left.

    outcome = update_vectors(index, progress=bar)   # after CorpusIndex.build: embeds what is new
    outcome.note                                    # one line for the user (what was embedded, or why not)
    dense = open_dense(index)                       # a DenseSearcher, or None: then search is BM25 only
    want_vectors(index)                             # a build: vectors are asked for, made after the pages
    pending_note(index)                             # "12 of 60 documents have no passage vectors yet; ..."
    vector_counts(index)                            # {"vectors": 1234, "vectors_unread": 56}: for `stats`

Where the encoder cannot run (onnxruntime, onnx, tokenizers or a model package missing, or the model
files unreadable) none of these raises: `update_vectors` returns an outcome with `summary=None` and a
note saying that search stays BM25 only and how to install the model; `open_dense` returns None;
`pending_note` says nothing. The encoder is loaded once per process and shared.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from wikigen.search.dense import encoder as encoder_files  # model_files() through the module: tests stand in for it
from wikigen.search.dense.encoder import DenseUnavailable, Encoder, encoder_name, load_encoder
from wikigen.search.dense.store import UNREAD_REASON, DenseSummary, VectorStore, finish_command
from wikigen.search.integrity import index_lock

from wikigen.core.engine import Engine
from wikigen.core.errors import IndexLockedError

__all__ = [
    "DenseOutcome",
    "check_model",
    "finish_command",
    "open_dense",
    "pending_note",
    "shared_encoder",
    "update_vectors",
    "vector_counts",
    "vectors_line",
    "want_vectors",
]

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


class _Named:
    """The default encoder by name only, for the cache's bookkeeping (which documents lack vectors) without
    loading the model; it encodes nothing."""

    dim = 384

    def __init__(self, name: str):
        self.name = name

    def encode(self, texts):
        raise DenseUnavailable("the encoder is named here for bookkeeping only; load_encoder() embeds")


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


def check_model() -> None:
    """Raises DenseUnavailable (naming the install command) when the model's files are not installed;
    cheap (nothing is loaded), so a command can refuse before any heavy step."""
    encoder_files.model_files()


def update_vectors(
    index,
    progress: Callable[[int, int], None] | None = None,
    *,
    encoder: Encoder | None = None,
    engine: Engine | None = None,
) -> DenseOutcome:
    """Embed the passages of the index's new or changed documents (cached beside the index).
    progress(done_passages, total_passages), see VectorStore.update; engine: where the passages are
    embedded (`wikigen.core.engine`; None: this process)."""
    try:
        enc = encoder or shared_encoder()
    except DenseUnavailable as e:
        note = f"dense vectors skipped, search is BM25 only: {e}"
        log.info(note)
        return DenseOutcome(None, note)
    try:
        with index_lock(index.index_dir):  # one writer per index (search/integrity.py)
            summary = VectorStore(index, enc).update(progress=progress, engine=engine)
    except IndexLockedError as e:
        return DenseOutcome(None, f"dense vectors not updated now: {e}")
    return DenseOutcome(summary, summary.to_text())


def want_vectors(index) -> None:
    """Record that the index wants passage vectors (see VectorStore.begin), when the model is installed."""
    try:
        encoder_files.model_files()
    except DenseUnavailable:
        return
    VectorStore(index, _Named(encoder_name())).begin()


def pending_note(index) -> str | None:
    """One line when documents of the index still lack the passage vectors that were asked for (an
    interrupted build or `wikigen index`), naming the command that finishes them; else None."""
    try:
        encoder_files.model_files()
    except DenseUnavailable:
        return None
    missing, total = VectorStore(index, _Named(encoder_name())).pending()
    if not missing:
        return None
    return (
        f"{missing} of {total} documents have no passage vectors yet, so search ranks them by their words only; "
        f"`{finish_command(index.index_dir)}` computes them"
    )


def open_dense(index, *, encoder: Encoder | None = None):
    """A DenseSearcher over the index's cached vectors, or None when the encoder cannot run here or no
    document has vectors yet (search then stays BM25 only). The vectors are read first, by the encoder's
    name: an index without them costs no model load (about 2 s a process)."""
    from wikigen.search.dense.hybrid import DenseSearcher

    try:
        matrix, rows, unread = VectorStore(index, encoder or _Named(encoder_name())).load_unread()
    except (OSError, ValueError) as e:
        log.warning("dense vectors of %s unreadable (%s): search is BM25 only", index.index_dir, e)
        return None
    if not rows:
        log.info("no dense vectors for %s yet: search is BM25 only (run `wikigen index`)", index.index_dir)
        return None
    try:
        enc = encoder or shared_encoder()
    except DenseUnavailable as e:
        log.info("dense search off: %s", e)
        return None
    return DenseSearcher(index, enc, matrix, rows, unread)


def vector_counts(index) -> dict:
    """What `wikigen stats` says of the passage vectors: {"vectors": passages with a vector (None when none
    were made here), "vectors_unread": passages without one because the encoder cannot read their text (they
    are searched by BM25 alone)}. From the cache's meta.json: nothing is loaded."""
    counts = VectorStore(index, _Named(encoder_name())).counts()
    if counts is None:
        return {"vectors": None, "vectors_unread": 0}
    return {"vectors": counts[0], "vectors_unread": counts[1]}


def vectors_line(stats: dict) -> str | None:
    """One line of `vector_counts` for people: "1,234 passages; 56 without (text the encoder cannot read: BM25
    alone)"; None when no vectors were made."""
    if stats.get("vectors") is None:
        return None
    line = f"{stats['vectors']:,} passages"
    if stats.get("vectors_unread"):
        line += f"; {stats['vectors_unread']:,} without ({UNREAD_REASON})"
    return line
