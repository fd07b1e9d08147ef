"""One index build's writes, pipelined with the reading of the files (see WriteJob)."""

from __future__ import annotations

import logging
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import tantivy
from wikigen.search.corpus import Document
from wikigen.search.passages import overlong_tokens, split_passages
from wikigen.search.schema import build_schema, passage_document
from wikigen.search.texts import TextStore

from wikigen.core.errors import SearchIndexError
from wikigen.core.tokens import TokenCounter, default_counter

log = logging.getLogger(__name__)

WRITER_HEAP = 128_000_000  # tantivy's writer memory: a segment is flushed when it is full
WRITER_THREADS = 0  # 0: tantivy picks its indexing threads from the cores


class WriteJob:
    """One build's writes, pipelined with the reading of the files.

    add(doc) hands the text to the token counter threads (tiktoken releases the GIL, so they run beside
    everything else) and to the TextStore's writer thread, then splits the passages and adds them to the
    tantivy writer, whose own threads index them. finish() deletes the removed ids, commits once, waits
    for the counts and for the texts to be durable, and fills the manifest records; abort() rolls back.
    Crash safety: the caller writes the manifest only after finish(), so it never points to texts or
    index entries that are not durable.
    """

    def __init__(self, tdir: Path, texts: TextStore, counter: TokenCounter | None, *, fresh: bool):
        c = counter if counter is not None else default_counter()
        try:
            index = tantivy.Index(build_schema(), path=str(tdir))
            self.writer: tantivy.IndexWriter | None = index.writer(heap_size=WRITER_HEAP, num_threads=WRITER_THREADS)
        except ValueError as e:
            raise SearchIndexError(
                f"cannot write the search index in {tdir.parent} ({e}); is another `wikigen index` running on it?"
            ) from None
        self.fresh = fresh
        self.texts = texts
        self.docs: list[Document] = []
        self.chars = 0  # characters of text added so far (the build checkpoints on it)
        self.n_passages: list[int] = []
        self.overlong: list[tuple[int, int]] = []  # per document: tokens in no passage, their characters
        self.counts: list[Future] = []
        threads = max(1, int(getattr(c, "threads", 1)))
        self._count = c.count
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="wikigen-tokens")
        self._text_writer = texts.writer()
        self._committed = False
        self._adding: str | None = None

    def _live(self) -> tantivy.IndexWriter:
        """The tantivy writer, until finish() or abort() releases it."""
        if self.writer is None:
            raise RuntimeError("this build's writes have ended (finish or abort was called)")
        return self.writer

    def add(self, d: Document) -> None:
        writer = self._live()
        self._adding = d.doc_id  # until the document is wholly added (see keep_finished)
        self.counts.append(self._pool.submit(self._count, d.text))
        self._text_writer.put(d.doc_id, d.text)
        if not self.fresh:  # re-added ids too: a crash after a commit but before the manifest left them
            writer.delete_documents_by_term("doc_id", d.doc_id)
        spans = split_passages(d.text)
        doc_id, title, text, add = d.doc_id, d.title, d.text, writer.add_document
        for s, e in spans:
            add(passage_document(doc_id, title, text, s, e))
        skipped = overlong_tokens(text)
        if skipped:
            log.info("%s: %d tokens too long to index, skipped", d.path, len(skipped))
        self.docs.append(d)
        self.chars += len(d.text)
        self.n_passages.append(len(spans))
        self.overlong.append((len(skipped), sum(e - s for s, e in skipped)))
        self._adding = None

    def keep_finished(self, records: dict[str, dict]) -> None:
        """finish() for an interrupted build (Ctrl-C): the documents wholly added are committed and get
        their records; a document interrupted half way is taken out again (the next run adds it)."""
        if self._adding is not None:
            self._live().delete_documents_by_term("doc_id", self._adding)
            for f in self.counts[len(self.docs) :]:
                f.cancel()
            self.counts = self.counts[: len(self.docs)]
            self._adding = None
        self.finish([], records)

    def finish(self, removed: list[str], records: dict[str, dict]) -> None:
        writer = self._live()
        for doc_id in removed:
            writer.delete_documents_by_term("doc_id", doc_id)
        # Commit first: it releases the GIL, so the token counts and the text sync finish beside it.
        # A count or sync that fails after the commit leaves a committed index and the old manifest,
        # the same state as a crash before the manifest (re-added ids are deleted before they are added).
        writer.commit()
        self._committed = True
        try:
            tokens = [f.result() for f in self.counts]
            self._pool.shutdown()
            self._text_writer.finish()
            # the merges the commit started end before the build returns: a segment written after it would land
            # in a folder its caller may be copying or removing (the writer is consumed, as it is let go below)
            writer.wait_merging_threads()
        finally:
            self.writer = None  # releases the index's writer lock, held while the texts were written
        for doc_id in removed:
            self.texts.remove(doc_id)
            records.pop(doc_id, None)
        for d, n, t, (o, oc) in zip(self.docs, self.n_passages, tokens, self.overlong):
            records[d.doc_id] = {
                "path": d.path,
                "sha256": d.sha256,
                "size": d.size,
                "mtime_ns": d.mtime_ns,
                "chars": len(d.text),
                "tokens": t,
                "title": d.title,
                "passages": n,
                "overlong": [o, oc],  # tokens in no passage (search.passages.overlong_tokens), their characters
            }

    def abort(self) -> None:
        for f in self.counts:
            f.cancel()
        self._pool.shutdown(wait=True)
        self._text_writer.abort()
        if self.writer is not None and not self._committed:
            try:
                self.writer.rollback()
            except Exception as e:  # the original error matters more
                log.warning("rollback failed: %s", e)
        self.writer = None
