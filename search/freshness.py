"""Has the corpus changed since it was indexed? Decided by content hashes (sha256 of every file), never by
size or mtime, so an edit that keeps both (or a restored mtime) is still seen.

    corpus_changes(index) -> Changes(changed, added, removed)   # doc ids / paths; .any, .text()
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field

from wikigen.search.corpus import read_and_hash, scan_corpus

from wikigen.core.errors import CorpusError, ExtractError

log = logging.getLogger(__name__)


@dataclass
class Changes:
    changed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    missing_corpus: str = ""
    # corpus files skipped because their name holds a secret: (the name as shown, the secrets); for check
    secret_names: list[tuple[str, tuple[str, ...]]] = field(default_factory=list, repr=False)

    @property
    def any(self) -> bool:
        return bool(self.changed or self.added or self.removed or self.missing_corpus)

    def text(self, n: int = 8) -> str:
        if self.missing_corpus:
            return f"the corpus folder cannot be read ({self.missing_corpus})"
        parts = []
        for name, items in (("changed", self.changed), ("added", self.added), ("removed", self.removed)):
            if items:
                parts.append(f"{len(items)} {name} ({', '.join(items[:n])}{' ...' if len(items) > n else ''})")
        return "the corpus changed since it was indexed: " + "; ".join(parts)


def _stat_key(entry) -> tuple | None:
    """What changes whenever a file's bytes may have: size, mtime, ctime (which a restored mtime does not
    restore) and inode. None when the file cannot be stat'ed."""
    try:
        st = os.stat(entry.abs_path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def corpus_changes(index, memo: dict | None = None) -> Changes:
    """Compare every file of the index's corpus folder, by sha256, with what the index holds. memo: a dict
    kept by the caller between calls (CorpusIndex keeps one); a file whose size, mtime, ctime and inode are
    those of its last hash is not read again, so a long-running server can ask before every answer."""
    out = Changes()
    docs = {d.doc_id: d for d in index.documents()}
    try:
        scan = scan_corpus(
            index.root, exclude=[index.index_dir, index.index_dir / "tantivy", index.index_dir / "texts"]
        )
    except CorpusError as e:
        out.missing_corpus = str(e)
        return out
    out.secret_names = scan.secret_names
    seen = set()
    for entry in scan.files:
        seen.add(entry.doc_id)
        info = docs.get(entry.doc_id)
        if info is None:
            out.added.append(entry.doc_id)
            continue
        key = _stat_key(entry) if memo is not None else None
        known = memo.get(entry.path) if memo is not None and key is not None else None
        if known is not None and known[0] == key:
            sha = known[1]
        else:
            try:
                _, sha = read_and_hash(entry)
            except ExtractError:
                out.changed.append(entry.doc_id)
                continue
            if memo is not None and key is not None:
                memo[entry.path] = (key, sha)
        if sha != info.sha256:
            out.changed.append(entry.doc_id)
    out.removed = sorted(d for d in docs if d not in seen)
    # files the index skipped (unsupported, empty...) are not documents: they are not "added"
    return out
