"""One writer per index, and the index's passages held to its manifest.

    with index_lock(index_dir):          # IndexLockedError naming the holder's pid if another process writes
        ...
    find_damage(tantivy_index, docs)     -> Damage | None: documents whose passages in tantivy are not the
                                            manifest's count (indexed twice, half gone), ids it does not list
    repair(tantivy_dir, texts, docs, damage) -> ids dropped from the index (text missing: index them again)

Every write to an index folder (tantivy/, texts/, manifest.json, dense/) happens under its lock,
INDEX/.write.lock: a kernel lock taken before any work and never waited for (`wikigen.core.locks.
holder_lock`), so a second `wikigen index`, or a build of another wiki sharing the index, is refused at
once with the writer's pid instead of racing it (two writers interleaved used to index every passage
twice, or fail on tantivy's own "LockBusy"). A lock left by a killed writer is taken over.

An index damaged before that (or by a crash between tantivy's commit and the manifest) is repaired
where it is found: by the next index run, or on open when no writer holds it. The check is one count
(tantivy's live passages against the manifest's sum); only when they differ is each document counted,
and each wrong one deleted and indexed again from its kept text (the TextStore: no file is read again).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import tantivy
from tantivy import Query
from wikigen.search.passages import split_passages
from wikigen.search.schema import passage_document
from wikigen.search.texts import TextStore

from wikigen.core.errors import IndexLockedError
from wikigen.core.locks import holder_lock

__all__ = ["LOCK_NAME", "Damage", "find_damage", "index_lock", "repair"]

log = logging.getLogger(__name__)

LOCK_NAME = ".write.lock"  # hidden: an index folder that is also the corpus folder does not scan it
REPAIR_HEAP = 50_000_000  # tantivy's writer memory for a repair, which only deletes (tantivy's floor is 15 MB)


@contextmanager
def index_lock(index_dir: Path) -> Iterator[int | None]:
    """Hold the index's writer lock for the block, or raise IndexLockedError at once (never waits).
    Yields the pid of a writer that died holding it, if any."""
    index_dir = Path(index_dir)

    def refuse(pid: int | None) -> IndexLockedError:
        who = f"pid {pid}" if pid else "another process"
        return IndexLockedError(
            f"another process is writing the search index {index_dir} ({who}: a `wikigen index` or a build); "
            f"wait for it to finish, or stop it (kill {pid if pid else 'PID'}) and run this again"
        )

    with holder_lock(index_dir / LOCK_NAME, refuse) as previous:
        if previous:
            log.warning("took over the lock of an index writer that is gone (pid %d)", previous)
        yield previous


@dataclass
class Damage:
    expected: int  # passages the manifest lists
    found: int  # live passages in the tantivy index
    docs: list[str] = field(default_factory=list)  # manifest documents with the wrong number of passages
    strays: list[str] = field(default_factory=list)  # ids in the index that the manifest does not list

    def text(self) -> str:
        parts = [f"{self.found:,} passages indexed where the manifest lists {self.expected:,}"]
        if self.docs:
            parts.append(f"{len(self.docs)} documents indexed wrongly (e.g. {self.docs[0]})")
        if self.strays:
            parts.append(f"{len(self.strays)} documents not in the manifest")
        return "; ".join(parts)


def _count(searcher, schema, doc_id: str) -> int:
    return searcher.search(Query.term_query(schema, "doc_id", doc_id), 1, count=True).count


def find_damage(index: tantivy.Index, docs: dict[str, dict]) -> Damage | None:
    """None when the index holds exactly the manifest's passages (one count when it does)."""
    index.reload()
    searcher = index.searcher()
    expected = sum(int(r.get("passages", 0)) for r in docs.values())
    found = searcher.num_docs
    if found == expected:
        return None
    schema = index.schema
    counts = {d: _count(searcher, schema, d) for d in docs}
    damage = Damage(expected, found, sorted(d for d, n in counts.items() if n != docs[d].get("passages")))
    if sum(counts.values()) != found:  # passages of ids the manifest does not list: read them all (rare)
        hits = searcher.search(Query.all_query(), found).hits
        ids = {str(searcher.doc(addr).get_first("doc_id")) for _, addr in hits}
        damage.strays = sorted(i for i in ids if i not in docs)
    return damage


def repair(tdir: Path, texts: TextStore, docs: dict[str, dict], damage: Damage) -> list[str]:
    """Delete the passages of every damaged document and stray id, and index each damaged document again
    from its kept text; call it holding the index lock. Returns the documents whose text is missing: they
    are left out of the index, and the caller drops them from the manifest so the next run reads them."""
    writer = tantivy.Index.open(str(tdir)).writer(heap_size=REPAIR_HEAP, num_threads=1)
    dropped = []
    for doc_id in [*damage.docs, *damage.strays]:
        writer.delete_documents_by_term("doc_id", doc_id)
    for doc_id in damage.docs:
        try:
            text = texts.text(doc_id)
        except KeyError:
            dropped.append(doc_id)
            continue
        title = docs[doc_id].get("title", "")
        for s, e in split_passages(text):
            writer.add_document(passage_document(doc_id, title, text, s, e))
    writer.commit()
    writer.wait_merging_threads()
    log.warning("repaired the search index in %s: %s", tdir.parent, damage.text())
    return dropped
