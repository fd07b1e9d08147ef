"""Topic discovery's per-document work, persisted as it is computed, so an interrupted run resumes.

Discovery reads every document twice (`wikigen.agents.topics`): once for its evidence and outline
(`DocEvidence`), once for where the picked phrases occur. Both are per document and cost about the
same. `ShardCache.map` runs such a pass over the documents in order and writes what it computes in
shard files of a few dozen documents each, under the wiki's cache folder::

    .wikigen/cache/discovery/<kind>-<key>-<run>-<n>.json.gz

`kind` is the pass ("evidence" or "hits"); `key` a hash of this format's version, the discovery knobs
and (for the second pass) the phrases it looks for. Each entry is keyed by the document's id and a
hash of its text and title, so a changed document is read again and the others are not. A shard file
is gzip'd JSON (data only: reading a cache never runs code) written atomically: its first line lists
the entries' keys, so the run finds what is done without decompressing everything, and loads one
shard at a time as the documents come in order (memory stays one shard, not the corpus).

A shard that cannot be read, is not JSON or has another version is ignored (its documents are read
again). When a pass completes, shard files of its kind that it neither read nor wrote are removed.
Same input, same output: the catalog does not depend on what came from the cache.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from wikigen.agents.catalog import Heading, Outline

from wikigen.core import confine
from wikigen.core.atomic import atomic_write_bytes

__all__ = ["SHARD_VERSION", "DocEvidence", "ShardCache", "evidence_from_data", "evidence_to_data"]

log = logging.getLogger(__name__)

SHARD_VERSION = 1
SHARD_DOCS = 48  # documents per shard file at most
SHARD_CHARS = 3_000_000  # ... or this much text, whichever comes first


@dataclass
class DocEvidence:
    """What one document contributes, computed on its own (so documents can be read in worker processes)."""

    doc_id: str
    heads: list[Heading]
    terms: list[tuple[str, str, int, int]]  # (key, surface, span start, span end), first per key
    names: dict[str, tuple[str, int, int]]
    ngrams: Counter
    outline: Outline


def _heading_data(h: Heading) -> list:
    return [h.label, h.key, h.start, h.level, h.head_end, list(h.span)]


def _heading(v: list) -> Heading:
    label, key, start, level, head_end, span = v
    return Heading(
        label=str(label),
        key=str(key),
        start=int(start),
        level=int(level),
        head_end=int(head_end),
        span=(int(span[0]), int(span[1])),
    )


def evidence_to_data(d: DocEvidence) -> dict:
    o = d.outline
    by_count: dict[int, list[str]] = {}
    for g, c in d.ngrams.items():  # grouped by count: about half the size of a {gram: count} map
        by_count.setdefault(c, []).append(g)
    return {
        "doc_id": d.doc_id,
        "heads": [_heading_data(h) for h in d.heads],
        "terms": [list(t) for t in d.terms],
        "names": {k: list(v) for k, v in d.names.items()},
        "ngrams": [[c, "\n".join(gs)] for c, gs in by_count.items()],
        "outline": {
            "title": o.title,
            "opening": list(o.opening) if o.opening else None,
            "chars": o.chars,
            "headings": [_heading_data(h) for h in o.headings],
            "terms": list(o.terms),
            "dates": list(o.dates),
        },
    }


def evidence_from_data(v: dict) -> DocEvidence:
    """ValueError when v does not have evidence_to_data's shape."""
    try:
        grams: Counter = Counter()
        for c, joined in v["ngrams"]:
            for g in str(joined).split("\n"):
                grams[g] = int(c)
        o = v["outline"]
        outline = Outline(
            doc_id=str(v["doc_id"]),
            title=str(o["title"]),
            opening=(int(o["opening"][0]), int(o["opening"][1])) if o["opening"] else None,
            chars=int(o["chars"]),
            headings=[_heading(h) for h in o["headings"]],
            terms=[str(t) for t in o["terms"]],
            dates=[str(t) for t in o["dates"]],
        )
        return DocEvidence(
            doc_id=str(v["doc_id"]),
            heads=[_heading(h) for h in v["heads"]],
            terms=[(str(k), str(s), int(a), int(b)) for k, s, a, b in v["terms"]],
            names={str(k): (str(s), int(a), int(b)) for k, (s, a, b) in v["names"].items()},
            ngrams=grams,
            outline=outline,
        )
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise ValueError(f"not a document's evidence: {type(e).__name__}: {e}") from None


def doc_hash(text: str, title: str) -> str:
    return hashlib.blake2b(f"{title}\0{text}".encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


class ShardCache:
    """Shard files of per-document results in one folder (see the module docstring). `key` names what
    the results depend on besides each document (the knobs); `map` adds the pass's own key."""

    def __init__(self, folder: Path, key: str):
        self.folder = Path(folder)
        self.key = key
        self.stats: dict[str, int] = {}  # per kind: documents taken from shards, documents computed
        self._run = os.urandom(4).hex()  # this run's shards never overwrite another's

    def _prefix(self, kind: str, extra: str) -> str:
        h = hashlib.sha256(f"v{SHARD_VERSION}\0{self.key}\0{extra}".encode()).hexdigest()[:16]
        return f"{kind}-{h}-"

    def _index(self, prefix: str) -> dict[str, Path]:
        """entry key -> the shard file holding it, from each shard's first line."""
        found: dict[str, Path] = {}
        for p in sorted(self.folder.glob(prefix + "*.json.gz")):
            try:
                with gzip.open(p, "rt", encoding="utf-8") as f:
                    head = json.loads(f.readline())
                if head.get("version") != SHARD_VERSION or not isinstance(head.get("keys"), list):
                    raise ValueError("another version")
            except (OSError, EOFError, ValueError, AttributeError) as e:
                log.warning("discovery shard %s unreadable (%s): its documents are read again", p, e)
                continue
            for k in head["keys"]:
                found.setdefault(str(k), p)
        return found

    @staticmethod
    def _load(path: Path) -> dict[str, object]:
        try:
            with gzip.open(path, "rt", encoding="utf-8") as f:
                keys = json.loads(f.readline())["keys"]
                values = json.loads(f.readline())
            if len(values) != len(keys):
                raise ValueError("keys and entries differ in number")
            return dict(zip(keys, values))
        except (OSError, EOFError, ValueError, KeyError, TypeError) as e:
            log.warning("discovery shard %s unreadable (%s): its documents are read again", path, e)
            return {}

    def _write(self, prefix: str, n: int, entries: list[tuple[str, object]]) -> Path:
        path = self.folder / f"{prefix}{self._run}-{n:05d}.json.gz"
        body = (
            json.dumps({"version": SHARD_VERSION, "keys": [k for k, _ in entries]})
            + "\n"
            + json.dumps([v for _, v in entries], ensure_ascii=False)
            + "\n"
        ).encode("utf-8")
        atomic_write_bytes(path, lambda f: f.write(gzip.compress(body, compresslevel=1)))
        return path

    def map(
        self,
        kind: str,
        extra: str,
        items: Sequence[tuple[str, str, str]],
        compute: Callable[[list], Iterable],
        encode: Callable[[object], object],
        decode: Callable[[object], object],
    ) -> Iterator:
        """The results of one pass over items [(doc_id, text, title)], in their order: from the shards
        where present, else from compute(the items not done) (which yields in its input's order); each
        computed result is encoded and written to a new shard once SHARD_DOCS or SHARD_CHARS are pending."""
        confine.make_dirs(self.folder)  # kept inside its wiki (wikigen.core.confine)
        prefix = self._prefix(kind, extra)
        keys = [f"{d}\0{doc_hash(text, title)}" for d, text, title in items]
        where = self._index(prefix)
        todo = [it for it, k in zip(items, keys) if k not in where]
        computed = iter(compute(todo))
        used: set[Path] = set()
        loaded: tuple[Path | None, dict] = (None, {})
        pending: list[tuple[str, object]] = []
        chars, written, fresh = 0, 0, 0
        for item, k in zip(items, keys):
            got = None
            if k in where:
                if loaded[0] != where[k]:
                    loaded = (where[k], self._load(where[k]))
                    used.add(where[k])
                try:
                    got = decode(loaded[1][k]) if k in loaded[1] else None
                except ValueError as e:
                    log.warning("discovery shard %s: %s; reading %s again", where[k], e, item[0])
            if got is None:
                if k in where:  # in the index but not usable: compute it alone, out of the batch
                    got = next(iter(compute([item])))
                else:
                    got = next(computed)
                fresh += 1
                pending.append((k, encode(got)))
                chars += len(item[1])
                if len(pending) >= SHARD_DOCS or chars >= SHARD_CHARS:
                    used.add(self._write(prefix, written, pending))
                    pending, chars, written = [], 0, written + 1
            yield got
        if pending:
            used.add(self._write(prefix, written, pending))
        self.stats[kind + " computed"] = fresh
        self.stats[kind + " cached"] = len(items) - fresh
        for p in self.folder.glob(kind + "-*.json.gz"):  # the pass is complete: drop what it did not use
            if p not in used:
                confine.remove(p)
