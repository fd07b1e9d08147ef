"""Passage vectors cached beside a CorpusIndex, one file per document, updated incrementally.

Layout, under the index folder::

    dense/<model key>/meta.json            {"version", "model", "dim",
                                            "docs": {doc_id: {"sha256", "passages", "spans", "file",
                                                              "unread", "read_rule"}}}
    dense/<model key>/vectors/<sha256>-<spans>.npy  float16, one row per passage of that document

The passages are the index's own (`split_passages` over the TextStore's text, as the tantivy index
has them), so a dense hit and a BM25 hit of the same passage have the same offsets. A document's
vectors are keyed by its sha256 from the index manifest AND a hash of its passage spans (`spans_key`):
an update embeds only the documents whose (sha256, spans) pair has no file yet - a changed document,
or an unchanged one whose passages a changed passage or sentence rule cuts differently - drops the
entries of removed documents and deletes the files no document refers to. (Caches of version 1 were
keyed by sha256 alone; their records are taken over once, when the passage count still matches, with
the spans of the rule in force at the upgrade.) Files and meta.json are written through a temp file and a rename; meta.json is rewritten
after each group of documents, so an interrupted update keeps what it finished. The model key is a
hash of the encoder's name: vectors of another model (or other settings) are never mixed in.

A passage the encoder cannot read (Korean, for the English model: encoder.py, `can_read`) gets no vector: it is
not embedded, its row of the file is zeros, "unread" lists those rows and `load` leaves them out, so search
ranks it by BM25 alone (hybrid.py). "read_rule" names the rule that chose them (encoder.READ_RULE); a record of
another rule, or of a version-2 cache, which had none, is brought to the rule in force by `update` without
embedding again (the rows it now finds unread become zeros; a document with a passage it now reads is embedded
again); until then `load` leaves its document out.

Memory for search: the vectors are held as one float32 matrix, 1.5 KB a passage (384 dims), about
1.5 GB per million passages (0.77 GB on disk as float16).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock
from wikigen.search.dense.encoder import READ_RULE, DenseUnavailable, Encoder, can_read
from wikigen.search.index import CorpusIndex
from wikigen.search.passages import split_passages

from wikigen.core import confine
from wikigen.core.atomic import atomic_write, atomic_write_bytes, private_dir
from wikigen.core.engine import Engine
from wikigen.core.workers import Workers

if TYPE_CHECKING:  # numpy is imported when vectors are read or written
    import numpy as np

__all__ = [
    "STORE_VERSION",
    "UNREAD_REASON",
    "DenseSummary",
    "VectorStore",
    "document_vectors",
    "embed_documents",
    "embed_groups",
    "finish_command",
]

log = logging.getLogger(__name__)

STORE_VERSION = 3  # 3: records say which passages have no vector ("unread", "read_rule"); 1 and 2 are taken over
GROUP_PASSAGES = 256  # passages embedded together (batched by length across documents), then saved
SLICE = 32  # passages per encoder call: the progress bar moves every second or two even on a loaded machine


@dataclass
class DenseSummary:
    documents: int = 0
    passages: int = 0
    embedded_documents: int = 0
    embedded_passages: int = 0
    reused: int = 0
    removed: int = 0
    seconds: float = 0.0
    unread: int = 0  # passages of the index without a vector: text the encoder cannot read

    def to_text(self) -> str:
        rate = self.embedded_passages / self.seconds if self.seconds > 0 else 0.0
        return (
            f"dense vectors for {self.documents} documents, {self.passages} passages: embedded "
            f"{self.embedded_documents} documents ({self.embedded_passages} passages, {rate:.1f}/s), "
            f"reused {self.reused}, removed {self.removed}, in {self.seconds:.1f} s"
            + (f"; {self.unread} passages without a vector ({UNREAD_REASON})" if self.unread else "")
        )


UNREAD_REASON = "text the encoder cannot read: BM25 alone"


def _np():
    try:
        import numpy as np
    except ImportError:
        raise DenseUnavailable("dense search needs numpy (a dependency of wikigen-memory): pip install numpy") from None
    return np


def model_key(name: str) -> str:
    return hashlib.sha1(name.encode("utf-8")).hexdigest()[:12]


def spans_key(spans: list[tuple[int, int]]) -> str:
    """A short hash of a document's passage spans: vectors are only reused for the same passages."""
    return hashlib.sha1(",".join(f"{a}-{b}" for a, b in spans).encode("ascii")).hexdigest()[:16]


class VectorStore:
    """The cached passage vectors of one index for one encoder (see the module docstring)."""

    def __init__(self, index: CorpusIndex, encoder: Encoder):
        self.index = index
        self.encoder = encoder
        self.root = Path(index.index_dir) / "dense" / model_key(encoder.name)
        self._vectors_dir = self.root / "vectors"

    # -- meta -------------------------------------------------------------------------------------

    def _read_meta(self) -> dict:
        try:
            m = json.loads((self.root / "meta.json").read_text(encoding="utf-8"))
        except FileNotFoundError:
            m = None
        except (OSError, ValueError) as e:
            log.warning("dense meta.json in %s unreadable (%s): re-embedding everything", self.root, e)
            m = None
        fresh = {"version": STORE_VERSION, "model": self.encoder.name, "dim": self.encoder.dim, "docs": {}}
        if (
            not isinstance(m, dict)
            or m.get("version") not in (1, 2, STORE_VERSION)
            or m.get("model") != self.encoder.name
            or m.get("dim") != self.encoder.dim
            or not isinstance(m.get("docs"), dict)
        ):
            return fresh
        if m.get("version") == 1:  # keyed by sha256 alone: see the module docstring
            m = dict(fresh, docs={d: dict(r, legacy=True) for d, r in m["docs"].items() if isinstance(r, dict)})
        return dict(m, version=STORE_VERSION)  # version 2's records have no read_rule: update applies it

    def _write_meta(self, meta: dict) -> None:
        meta = dict(meta, docs={k: meta["docs"][k] for k in sorted(meta["docs"])})
        atomic_write(self.root / "meta.json", json.dumps(meta, ensure_ascii=False, indent=0), private=True)

    def _file(self, rec: dict) -> Path:
        return self._vectors_dir / str(rec.get("file") or f"{rec.get('sha256')}.npy")

    def _usable(self, rec: dict | None, sha256: str, spans: list[tuple[int, int]]) -> bool:
        """Whether rec holds vectors of exactly these passages of this document version (a version-1
        record, keyed by sha256 alone, is taken over when its passage count matches; see the docstring),
        whatever rule chose its unread passages (`_current`)."""
        if not isinstance(rec, dict) or rec.get("sha256") != sha256 or rec.get("passages") != len(spans):
            return False
        if rec.get("legacy"):
            rec.pop("legacy")
            rec["spans"] = spans_key(spans)
        return rec.get("spans") == spans_key(spans) and self._file(rec).is_file()

    @staticmethod
    def _current(rec: dict) -> bool:
        """Whether the record's unread passages were chosen by the rule in force (encoder.READ_RULE)."""
        return rec.get("read_rule") == READ_RULE and isinstance(rec.get("unread"), list)

    # -- update -----------------------------------------------------------------------------------

    def passages(self, doc_id: str) -> list[tuple[int, int]]:
        return split_passages(self.index.texts.text(doc_id))

    def pending(self) -> tuple[int, int]:
        """(documents of the index without current vectors, documents), by sha256 alone (cheap: no passage
        is split; a changed passage rule is found by `update`). (0, n) when vectors were never asked for
        here: no meta.json of this or another model (`wikigen index --no-dense`, or no model installed)."""
        docs = self.index.documents()
        try:
            meta = json.loads((self.root / "meta.json").read_text(encoding="utf-8"))
            recs = meta["docs"] if meta.get("model") == self.encoder.name else {}
        except FileNotFoundError:  # vectors of another model (an older encoder) ask for these too
            return (len(docs) if any(self.root.parent.glob("*/meta.json")) else 0), len(docs)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return len(docs), len(docs)
        missing = sum(
            1
            for d in docs
            if not isinstance(recs.get(d.doc_id), dict)
            or recs[d.doc_id].get("sha256") != d.sha256
            or not self._current(recs[d.doc_id])
        )
        return missing, len(docs)

    def begin(self) -> None:
        """Record that this index wants vectors (an empty meta.json when there is none), so that until they
        are all made every command that reads the wiki says how many documents still lack them."""
        if not (self.root / "meta.json").is_file():
            self.root.mkdir(parents=True, exist_ok=True)
            self._write_meta(
                {"version": STORE_VERSION, "model": self.encoder.name, "dim": self.encoder.dim, "docs": {}}
            )

    def update(self, progress: Callable[[int, int], None] | None = None, engine: Engine | None = None) -> DenseSummary:
        """Embed the passages of every document that has no vectors for its current sha256; drop the
        vectors of documents no longer in the index. progress(done_passages, total_passages) is called
        when the work is known (0, total) and then every SLICE passages: the passages of this run only
        (reused documents are not counted). engine: where the passages are embedded (`wikigen.core.engine`;
        None: in this process, on the encoder's threads); the vectors are saved here, the same with any."""
        t0 = time.perf_counter()
        np = _np()
        private_dir(self._vectors_dir)  # vectors are derived from corpus text: private like the texts
        with FileLock(str(self.root / ".lock")):
            meta = self._read_meta()
            docs = self.index.documents()
            summary = DenseSummary(documents=len(docs))
            todo: list[tuple[str, str, list[tuple[int, int]]]] = []
            keep: dict[str, dict] = {}
            for d in docs:
                spans = self.passages(d.doc_id)
                summary.passages += len(spans)
                rec = meta["docs"].get(d.doc_id)
                if self._usable(rec, d.sha256, spans) and (self._current(rec) or self._apply_rule(np, d.doc_id, rec)):
                    keep[d.doc_id] = rec
                    summary.reused += 1
                else:
                    todo.append((d.doc_id, d.sha256, spans))
            summary.removed = len([k for k in meta["docs"] if k not in self.index])
            meta["docs"] = keep
            self._write_meta(meta)
            total = sum(len(s) for _, _, s in todo)
            if todo:
                log.info("dense: embedding %d documents (%d passages) with %s", len(todo), total, self.encoder.name)
            counter = _Progress(progress, total)
            for group, vectors in embed_groups(self.encoder, self._groups(todo), engine or Workers(1, 0), counter):
                self._save_group(np, group, vectors, meta, summary)
                log.info("dense: %d/%d passages embedded", counter.done, counter.total)
            self._write_meta(meta)
            self._drop_unreferenced(meta)
        summary.unread = sum(len(r.get("unread") or ()) for r in meta["docs"].values())
        summary.seconds = time.perf_counter() - t0
        log.info("dense %s: %s", self.root, summary.to_text())
        return summary

    def _apply_rule(self, np, doc_id: str, rec: dict) -> bool:
        """Bring a record of another read rule (or none: a version-2 cache) to the rule in force without
        embedding: the rows of the passages the encoder cannot read become zeros and are listed. False (the
        document is embedded again) when a passage it can read has no vector, or the file cannot be read."""
        text = self.index.texts.text(doc_id)
        readable = can_read(self.encoder, [text[a:b] for a, b in self.passages(doc_id)])
        try:
            m = np.load(self._file(rec), allow_pickle=False)
        except (OSError, ValueError):
            return False
        if m.shape != (len(readable), self.encoder.dim):
            return False
        if any(ok and not m[i].any() for i, ok in enumerate(readable)):
            return False
        unread = [i for i, ok in enumerate(readable) if not ok]
        if unread:
            m[unread] = 0
            _save_npy(np, self._file(rec), m)
        rec.update(unread=unread, read_rule=READ_RULE)
        return True

    def _groups(self, todo: list[tuple[str, str, list[tuple[int, int]]]]) -> Iterator[list[_Doc]]:
        """The documents to embed in groups of at least GROUP_PASSAGES passages (saved together), each
        group's passage texts read from the TextStore only when the group's turn comes."""
        group: list[tuple[str, str, list[tuple[int, int]]]] = []
        for n, item in enumerate(todo, 1):
            group.append(item)
            if sum(len(s) for _, _, s in group) >= GROUP_PASSAGES or n == len(todo):
                texts = {doc_id: self.index.texts.text(doc_id) for doc_id, _, _ in group}
                yield [_Doc(d, sha, spans, [texts[d][a:b] for a, b in spans]) for d, sha, spans in group]
                group = []

    def _save_group(self, np, group: list[_Doc], vectors: list, meta: dict, summary: DenseSummary) -> None:
        """Save a group's vectors (one file a document) and record them in meta.json: a run interrupted
        after this keeps them."""
        for doc, part in zip(group, vectors, strict=True):
            key = spans_key(doc.spans)
            rec = {
                "sha256": doc.sha256,
                "passages": len(doc.spans),
                "spans": key,
                "file": f"{doc.sha256}-{key}.npy",
                "unread": [i for i in range(len(part)) if not part[i].any()],  # not embedded (embed_groups)
                "read_rule": READ_RULE,
            }
            _save_npy(np, self._file(rec), np.asarray(part, dtype=np.float16))
            meta["docs"][doc.doc_id] = rec
            summary.embedded_documents += 1
            summary.embedded_passages += len(doc.spans)
        self._write_meta(meta)

    def _drop_unreferenced(self, meta: dict) -> None:
        wanted = {self._file(r).name for r in meta["docs"].values()}
        for p in self._vectors_dir.glob("*.npy"):
            if p.name not in wanted:
                try:
                    confine.remove(p)  # kept inside its wiki when the index is (wikigen.core.confine)
                except OSError as e:
                    log.warning("cannot remove %s: %s", p, e)

    # -- loading ----------------------------------------------------------------------------------

    def load(self) -> tuple[np.ndarray, list[tuple[str, int, int]]]:
        """(float32 matrix of every cached passage vector, [(doc_id, start, end)] per row), for the
        documents of the index whose vectors are current. Documents without them are left out (logged);
        so are the passages the encoder cannot read, which have no vector (`load_unread` names them)."""
        matrix, rows, _ = self.load_unread()
        return matrix, rows

    def load_unread(self) -> tuple[np.ndarray, list[tuple[str, int, int]], list[tuple[str, int, int]]]:
        """`load`, and [(doc_id, start, end)] of the passages of those documents that have no vector because
        the encoder cannot read them (search ranks them by BM25 alone, hybrid.py)."""
        np = _np()
        meta = self._read_meta()
        mats, missing = [], 0
        rows: list[tuple[str, int, int]] = []
        unread_rows: list[tuple[str, int, int]] = []
        for d in self.index.documents():
            rec = meta["docs"].get(d.doc_id)
            spans = self.passages(d.doc_id) if rec is not None else []
            if not self._usable(rec, d.sha256, spans) or not self._current(rec):
                missing += 1
                continue
            m = np.load(self._file(rec), allow_pickle=False)
            if m.shape != (len(spans), self.encoder.dim):
                missing += 1
                continue
            unread = {i for i in rec["unread"] if isinstance(i, int) and 0 <= i < len(spans)}
            keep = [i for i in range(len(spans)) if i not in unread]
            mats.append(m[keep] if unread else m)
            rows.extend((d.doc_id, *spans[i]) for i in keep)
            unread_rows.extend((d.doc_id, *spans[i]) for i in sorted(unread))
        if missing:  # every command that reads a wiki says so to its user (wikigen.search.dense.service.pending_note)
            log.info(
                "dense: %d documents have no current vectors, so search ranks them by their words only; `%s` computes them",
                missing,
                finish_command(self.index.index_dir),
            )
        matrix = np.concatenate(mats).astype(np.float32) if mats else np.zeros((0, self.encoder.dim), np.float32)
        return matrix, rows, unread_rows

    def counts(self) -> tuple[int, int] | None:
        """(passages with a vector, passages without one because the encoder cannot read them) over the
        documents of the index whose vectors are current, from meta.json alone (nothing is split or loaded);
        None when vectors were never made here."""
        try:
            meta = json.loads((self.root / "meta.json").read_text(encoding="utf-8"))
            recs = meta["docs"] if meta.get("model") == self.encoder.name else {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        with_vector = without = 0
        for d in self.index.documents():
            rec = recs.get(d.doc_id)
            if not isinstance(rec, dict) or rec.get("sha256") != d.sha256 or not self._current(rec):
                continue
            unread = len(rec["unread"])
            with_vector += max(0, int(rec.get("passages") or 0) - unread)
            without += unread
        return with_vector, without


def finish_command(index_dir: Path | str) -> str:
    """The command that computes the vectors an index still lacks."""
    return f"wikigen index --dense --index {index_dir}"


class _Progress:
    """progress(done, total) over the passages of one update, reported as slices finish."""

    def __init__(self, progress: Callable[[int, int], None] | None, total: int):
        self.progress, self.total, self.done = progress, total, 0
        if progress is not None:
            progress(0, total)

    def __call__(self, n: int) -> None:
        self.done += n
        if self.progress is not None:
            self.progress(self.done, self.total)


@dataclass(frozen=True, slots=True)
class _Doc:
    """One document to embed: its passages' spans and texts."""

    doc_id: str
    sha256: str
    spans: list[tuple[int, int]]
    passages: list[str]


def document_vectors(encoder: Encoder, doc_id: str, passages: list[str]):
    """The vectors of one document's passages (float32, one row each, in order): the per-document unit of
    embedding, a plain function of its arguments so that any engine can run it where the encoder is."""
    return embed_documents(encoder, [(doc_id, passages)])[0]


def embed_documents(encoder: Encoder, docs: list[tuple[str, list[str]]], progress: Callable[[int], None] | None = None):
    """The vectors of several documents' passages, [matrix per document] in order, embedded together in
    this process (see `embed_groups`)."""
    group = [_Doc(doc_id, "", [], passages) for doc_id, passages in docs]
    return next(embed_groups(encoder, [group], Workers(1, 0), progress))[1]


def encode_slice(texts: list[str], encoder: Encoder):
    """One slice's vectors (the item an engine runs: `encoder.encode`, named so that it pickles)."""
    return encoder.encode(texts)


def embed_groups(
    encoder: Encoder, groups: Iterable[list[_Doc]], engine: Engine, progress: Callable[[int], None] | None = None
) -> Iterator[tuple[list[_Doc], list]]:
    """(group, [matrix per document]) for each group of documents, in order, as each is done. A group's
    distinct passage texts are sorted by length and cut in slices of SLICE (the encoder batches each by its
    token counts): a text that recurs in the group (page furniture, boilerplate repeated across documents)
    is embedded once and its vector given to every passage of that text. The engine encodes the slices of
    every group as one stream, so its workers never wait at a group's end, and progress(n) is called as
    each slice comes back with the passages it stood for. The groups are taken only as the engine needs
    more slices. A passage's vector does not depend on the slice or the batch it is encoded in
    (tests/test_dense_store.py), so neither the grouping, the sharing nor the engine changes a vector.
    A text the encoder cannot read (`can_read`) is not embedded: its row is zeros, no vector."""
    np = _np()
    pending: deque[tuple[_Group, list[int]]] = deque()  # per slice handed to the engine: its group, its rows

    def slices() -> Iterator[list[str]]:
        for docs in groups:
            texts = [t for d in docs for t in d.passages]
            row = {t: i for i, t in enumerate(dict.fromkeys(texts))}  # each distinct text's row, first seen first
            distinct = list(row)
            readable = can_read(encoder, distinct)
            order = sorted((i for i in range(len(distinct)) if readable[i]), key=lambda i: len(distinct[i]))
            cuts = [order[at : at + SLICE] for at in range(0, len(order), SLICE)] or [[]]  # an empty group: one
            uses = np.bincount([row[t] for t in texts], minlength=len(distinct))  # passages per distinct text
            out = np.zeros((len(distinct), encoder.dim), dtype=np.float32)
            skipped = int(sum(uses[i] for i in range(len(distinct)) if not readable[i]))
            group = _Group(docs, out, [row[t] for t in texts], uses, len(cuts), skipped)  # empty slice
            for idx in cuts:
                pending.append((group, idx))
                yield [distinct[i] for i in idx]

    for vectors in engine.map(encode_slice, slices(), encoder):
        group, idx = pending.popleft()  # the slice's bookkeeping was queued as the engine took it
        if idx:
            group.out[idx] = vectors
            if progress is not None:
                progress(int(group.uses[idx].sum()))
        group.left -= 1
        if not group.left:
            if progress is not None and group.skipped:
                progress(group.skipped)  # the passages not embedded are done too
            full = group.out[group.rows]
            parts, at = [], 0
            for d in group.docs:
                parts.append(full[at : at + len(d.passages)])
                at += len(d.passages)
            yield group.docs, parts


@dataclass
class _Group:
    docs: list[_Doc]
    out: np.ndarray  # one row per distinct passage text of the group's documents
    rows: list[int]  # per passage of the group's documents, in order: its text's row of out
    uses: np.ndarray  # per row of out: how many passages have that text
    left: int  # slices not yet back
    skipped: int = 0  # passages of texts the encoder cannot read (not embedded: no vector)


def _save_npy(np, path: Path, array) -> None:
    """np.save, atomically (wikigen.core.atomic)."""
    atomic_write_bytes(path, lambda f: np.save(f, array, allow_pickle=False), private=True)
