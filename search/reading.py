"""Reading a corpus's files for an index build, in worker processes when it pays.

For each file the scan found: unchanged by size and mtime (and no rehash asked for) it is not read;
otherwise it is read and hashed, and extracted only when its bytes changed. Extraction is the costly
part (a PDF extracts at about 0.2 million characters a second here, plain text at 16 million), so the
files to read go to worker processes (`wikigen.core.workers`), a bounded window of them at a time: at
most READ_WINDOW texts wait in memory for the index writer. The results come back in the scan's order,
so the index, its checkpoints and the progress reported are the same with any number of workers.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass

from wikigen.search.corpus import Document, FileEntry, Skipped, load, read_and_hash

from wikigen.core.engine import Parallel, engine_for
from wikigen.core.errors import ExtractError

__all__ = ["FileRead", "read_files"]

READ_WINDOW = 8  # files in flight per worker process


@dataclass(frozen=True, slots=True)
class FileRead:
    """What reading one file gave: its unchanged manifest record (`same_bytes`: read, but only its mtime
    changed), a Document to index, or a Skipped file with its reason."""

    entry: FileEntry
    record: dict | None = None
    same_bytes: bool = False
    document: Document | None = None
    skipped: Skipped | None = None


def _stat_unchanged(entry: FileEntry, old: Mapping[str, dict], rehash: bool) -> dict | None:
    rec = old.get(entry.doc_id)
    if rec is None or rehash or rec.get("path") != entry.path:
        return None
    return rec if rec["size"] == entry.size and rec["mtime_ns"] == entry.mtime_ns else None


def read_file(entry: FileEntry, old: Mapping[str, dict]) -> FileRead:
    """Read, hash and (when its bytes changed) extract one file. Never raises for a bad file."""
    try:
        data, sha = read_and_hash(entry)
    except ExtractError as e:  # unreadable
        return FileRead(entry, skipped=Skipped(entry.path, str(e)))
    rec = old.get(entry.doc_id)
    if rec is not None and rec.get("path") == entry.path and rec["sha256"] == sha:
        return FileRead(entry, record=dict(rec, size=entry.size, mtime_ns=entry.mtime_ns), same_bytes=True)
    r = load(entry, data, sha)
    return FileRead(entry, skipped=r) if isinstance(r, Skipped) else FileRead(entry, document=r)


def read_files(
    entries: Sequence[FileEntry], old: Mapping[str, dict], *, rehash: bool = False, workers: Parallel = 1
) -> Generator[FileRead, None, None]:
    """What reading each entry gives, in the entries' order. old: the manifest's records by doc id;
    workers: processes for the reading (None: one per core; few bytes to read stay in this process), or an
    engine (`wikigen.core.engine`: its workers read the files by their absolute paths)."""
    same = [_stat_unchanged(e, old, rehash) for e in entries]
    todo = [e for e, rec in zip(entries, same) if rec is None]
    pool = engine_for(workers, sum(e.size for e in todo))
    reads = pool.map(read_file, todo, old, window=READ_WINDOW * pool.n)
    try:
        for entry, rec in zip(entries, same):
            yield FileRead(entry, record=rec) if rec is not None else next(reads)
    finally:
        reads.close()  # the worker processes end here, also when the caller stops early
