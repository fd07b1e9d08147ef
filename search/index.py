"""CorpusIndex: an incremental tantivy index over passages of a corpus, BM25 search, phrase search, locate.

The index folder holds:
  tantivy/        the tantivy index, one tantivy document per passage
  texts/          the TextStore: every document's extracted text, kept exactly
  manifest.json   doc id -> path, sha256, size, mtime_ns, chars, tokens, title, passages

A re-run stats every file, hashes only files whose size or mtime changed, and re-indexes only added or
changed documents (delete by doc id, then add, in one commit). Offsets are character offsets into the
extracted text (Python str indices), never UTF-8 bytes.

Fields (all tokenizers are tantivy built-ins, so nothing has to be registered on open):
  doc_id   raw, stored        the key for deletes and the doc_ids filter
  start/end  stored integers  the passage's char offsets
  title    en_stem            the document title, on every passage (boosted a little)
  body     en_stem            the passage text (not stored: the text comes from the TextStore)
  cjk      whitespace         unigrams + bigrams of each CJK run, so 한국어 finds 한국어는
"""

from __future__ import annotations

import json
import math
import logging
import re
import shutil
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import tantivy
from tantivy import Filter, Occur, Query, TextAnalyzerBuilder, Tokenizer

from wikigen.search.corpus import Document, Skipped, load, read_and_hash, scan_corpus
from wikigen.search.extract import DEFAULT_MAX_BYTES
from wikigen.search.passages import split_passages
from wikigen.core.text import Span
from wikigen.search.texts import TextStore
from wikigen.core.atomic import atomic_write
from wikigen.core.errors import ExtractError, SearchIndexError
from wikigen.core.tokens import TokenCounter, default_counter

__all__ = ["CorpusIndex", "Hit", "DocInfo", "IndexSummary", "cjk_grams", "build_schema", "SCHEMA_VERSION"]

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
MANIFEST_VERSION = 1
WRITER_HEAP = 128_000_000
WRITER_THREADS = 0
TITLE_BOOST = 1.5
PHRASE_BOOST = 2.0
MAX_QUERY_TERMS = 256
GIL_SWITCH_SECONDS = 0.0005  # see _FastGILSwitch
SNIPPET_CHARS = 200

# Hangul (syllables, jamo, compatibility jamo), Han (CJK unified + ext A + compatibility + ext B..),
# Hiragana, Katakana (+ phonetic extensions, half-width).
CJK_RUN = re.compile(
    "[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
    "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]+"
)
_QUOTED = re.compile(r'"([^"]+)"')


def en_analyzer(stopwords: bool = False) -> tantivy.TextAnalyzer:
    """The chain of tantivy's built-in "en_stem" (simple + remove_long(40) + lowercase + english stemmer),
    optionally dropping English stopwords (for queries)."""
    b = TextAnalyzerBuilder(Tokenizer.simple()).filter(Filter.remove_long(40)).filter(Filter.lowercase())
    if stopwords:
        b = b.filter(Filter.stopword("english"))
    return b.filter(Filter.stemmer("english")).build()


_ANALYZER = en_analyzer()


def cjk_grams(text: str) -> str:
    """Space-separated unigrams and bigrams of every CJK run in text ('' when there is none)."""
    if text.isascii():  # the common case, and 100x faster than the regex scan
        return ""
    out: list[str] = []
    for run in CJK_RUN.findall(text):
        out.extend(run)
        out.extend(run[i:i + 2] for i in range(len(run) - 1))
    return " ".join(out)


def build_schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("doc_id", stored=True, tokenizer_name="raw")
    sb.add_integer_field("start", stored=True)
    sb.add_integer_field("end", stored=True)
    sb.add_text_field("title", stored=False, tokenizer_name="en_stem", index_option="freq")
    sb.add_text_field("body", stored=False, tokenizer_name="en_stem")
    sb.add_text_field("cjk", stored=False, tokenizer_name="whitespace", index_option="freq")
    return sb.build()


def passage_document(doc_id: str, title: str, text: str, start: int, end: int) -> tantivy.Document:
    """The tantivy document for one passage (used by the build and by the benchmark's bare run)."""
    body = text[start:end]
    d = tantivy.Document(doc_id=doc_id, start=start, end=end, title=title, body=body)
    grams = cjk_grams(body)
    if grams:
        d.add_text("cjk", grams)
    return d


# --- public records ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Hit:
    doc_id: str
    path: str
    start: int
    end: int
    text: str
    score: float
    snippet: str

    def to_dict(self) -> dict:
        return {"doc_id": self.doc_id, "path": self.path, "start": self.start, "end": self.end,
                "text": self.text, "score": self.score, "snippet": self.snippet}


@dataclass(frozen=True, slots=True)
class DocInfo:
    doc_id: str
    path: str
    title: str
    chars: int
    tokens: int
    sha256: str


@dataclass
class IndexSummary:
    documents: int = 0
    passages: int = 0
    characters: int = 0
    tokens: int = 0
    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0

    def to_text(self, max_skipped: int = 20) -> str:
        lines = [
            f"indexed {self.documents} documents, {self.passages} passages, "
            f"{self.characters:,} characters, {self.tokens:,} tokens in {self.seconds:.2f} s",
            f"  added {self.added}, changed {self.changed}, removed {self.removed}, unchanged {self.unchanged}",
        ]
        if self.skipped:
            lines.append(f"  skipped {len(self.skipped)} files:")
            for path, reason in self.skipped[:max_skipped]:
                lines.append(f"    {path}: {reason}")
            if len(self.skipped) > max_skipped:
                lines.append(f"    ... and {len(self.skipped) - max_skipped} more")
        return "\n".join(lines)


# --- manifest ------------------------------------------------------------------------------------

def _tantivy_exists(tdir: Path) -> bool:
    try:
        return tdir.is_dir() and tantivy.Index.exists(str(tdir))
    except ValueError:
        return False


def _manifest_path(index_dir: Path) -> Path:
    return index_dir / "manifest.json"


def _read_manifest(index_dir: Path) -> dict | None:
    try:
        with open(_manifest_path(index_dir), encoding="utf-8") as f:
            m = json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise SearchIndexError(f"the index manifest in {index_dir} is unreadable ({e}); "
                               f"delete the folder and run `wikigen index CORPUS --index {index_dir}` again") from None
    if not isinstance(m, dict) or not isinstance(m.get("docs"), dict):
        raise SearchIndexError(f"the index manifest in {index_dir} is malformed; "
                               f"delete the folder and run `wikigen index CORPUS --index {index_dir}` again")
    return m


def _write_manifest(index_dir: Path, root: Path, docs: dict[str, dict]) -> None:
    m = {"version": MANIFEST_VERSION, "schema": SCHEMA_VERSION, "root": str(root),
         "docs": {k: docs[k] for k in sorted(docs)}}
    atomic_write(_manifest_path(index_dir), json.dumps(m, ensure_ascii=False, indent=0))


# --- writing ------------------------------------------------------------------------------------

class _FastGILSwitch:
    """While a build runs, hand the GIL over every GIL_SWITCH_SECONDS instead of Python's 5 ms.

    Each token counter thread needs the GIL back for a moment after every document it counted (tiktoken
    releases it while encoding); with the default interval it waits up to 5 ms for the main thread,
    which is busy feeding tantivy, per document. Process-wide, so counted: the last build to finish
    restores the interval it found.
    """
    _lock = threading.Lock()
    _users = 0
    _saved = 0.0

    def __enter__(self) -> "_FastGILSwitch":
        with self._lock:
            cls = type(self)
            if cls._users == 0:
                cls._saved = sys.getswitchinterval()
                sys.setswitchinterval(min(cls._saved, GIL_SWITCH_SECONDS))
            cls._users += 1
        return self

    def __exit__(self, *exc) -> None:
        with self._lock:
            cls = type(self)
            cls._users -= 1
            if cls._users == 0:
                sys.setswitchinterval(cls._saved)


class _WriteJob:
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
            self.writer = index.writer(heap_size=WRITER_HEAP, num_threads=WRITER_THREADS)
        except ValueError as e:
            raise SearchIndexError(f"cannot write the search index in {tdir.parent} ({e}); "
                                   "is another `wikigen index` running on it?") from None
        self.fresh = fresh
        self.texts = texts
        self.docs: list[Document] = []
        self.n_passages: list[int] = []
        self.counts: list[Future] = []
        threads = max(1, int(getattr(c, "threads", 1)))
        self._count = c.count
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="wikigen-tokens")
        self._text_writer = texts.writer()
        self._committed = False
        self._gil = _FastGILSwitch().__enter__()

    def add(self, d: Document) -> None:
        self.counts.append(self._pool.submit(self._count, d.text))
        self._text_writer.put(d.doc_id, d.text)
        if not self.fresh:  # re-added ids too: a crash after a commit but before the manifest left them
            self.writer.delete_documents_by_term("doc_id", d.doc_id)
        spans = split_passages(d.text)
        doc_id, title, text, add = d.doc_id, d.title, d.text, self.writer.add_document
        for s, e in spans:
            add(passage_document(doc_id, title, text, s, e))
        self.docs.append(d)
        self.n_passages.append(len(spans))

    def finish(self, removed: list[str], records: dict[str, dict]) -> None:
        for doc_id in removed:
            self.writer.delete_documents_by_term("doc_id", doc_id)
        # Commit first: it releases the GIL, so the token counts and the text sync finish beside it.
        # A count or sync that fails after the commit leaves a committed index and the old manifest,
        # the same state as a crash before the manifest (re-added ids are deleted before they are added).
        self.writer.commit()
        self._committed = True
        try:
            tokens = [f.result() for f in self.counts]
            self._pool.shutdown()
            self._text_writer.finish()
        finally:
            self._release_gil_switch()
            self.writer = None  # releases the index's writer lock, held while the texts were written
        for doc_id in removed:
            self.texts.remove(doc_id)
            records.pop(doc_id, None)
        for d, n, t in zip(self.docs, self.n_passages, tokens):
            records[d.doc_id] = {"path": d.path, "sha256": d.sha256, "size": d.size, "mtime_ns": d.mtime_ns,
                                 "chars": len(d.text), "tokens": t, "title": d.title, "passages": n}

    def _release_gil_switch(self) -> None:
        if self._gil is not None:
            self._gil.__exit__(None, None, None)
            self._gil = None

    def abort(self) -> None:
        for f in self.counts:
            f.cancel()
        self._pool.shutdown(wait=True)
        self._text_writer.abort()
        self._release_gil_switch()
        if self.writer is not None and not self._committed:
            try:
                self.writer.rollback()
            except Exception as e:  # the original error matters more
                log.warning("rollback failed: %s", e)
        self.writer = None


# --- the index -----------------------------------------------------------------------------------

class CorpusIndex:
    """An opened index. Build or update one with `CorpusIndex.build`, reopen it with `CorpusIndex.open`."""

    def __init__(self, index_dir: Path, manifest: dict, index: tantivy.Index):
        self.index_dir = Path(index_dir)
        self.root = Path(manifest.get("root", ""))  # the corpus folder (absolute)
        self.corpus_dir = self.root
        self._docs: dict[str, dict] = manifest["docs"]
        self._index = index
        self._schema = index.schema
        self.texts = TextStore(self.index_dir / "texts")
        self.corpus_chars = sum(d["chars"] for d in self._docs.values())
        self.corpus_tokens = sum(d["tokens"] for d in self._docs.values())

    # -- opening and building ---------------------------------------------------------------------

    @classmethod
    def open(cls, index_dir: Path) -> "CorpusIndex":
        index_dir = Path(index_dir)
        manifest = _read_manifest(index_dir)
        tdir = index_dir / "tantivy"
        if manifest is None or not _tantivy_exists(tdir):
            raise SearchIndexError(f"no search index in {index_dir}: run `wikigen index CORPUS --index {index_dir}` first")
        if manifest.get("schema") != SCHEMA_VERSION:
            raise SearchIndexError(f"the search index in {index_dir} was made by another wikigen version: "
                                   f"run `wikigen index CORPUS --index {index_dir}` again")
        try:
            idx = tantivy.Index.open(str(tdir))
        except ValueError as e:
            raise SearchIndexError(f"the search index in {index_dir} cannot be opened ({e}); "
                                   f"run `wikigen index CORPUS --index {index_dir}` again") from None
        return cls(index_dir, manifest, idx)

    @classmethod
    def build(cls, corpus_dir: Path, index_dir: Path, *, counter: TokenCounter | None = None,
              max_bytes: int = DEFAULT_MAX_BYTES) -> tuple["CorpusIndex", IndexSummary]:
        """Index corpus_dir into index_dir, incrementally. Returns the opened index and a summary."""
        t0 = time.perf_counter()
        corpus_dir, index_dir = Path(corpus_dir), Path(index_dir)
        root = corpus_dir.resolve()
        index_dir.mkdir(parents=True, exist_ok=True)
        tdir = index_dir / "tantivy"

        manifest = _read_manifest(index_dir)
        fresh = (manifest is None or manifest.get("schema") != SCHEMA_VERSION
                 or manifest.get("version") != MANIFEST_VERSION or manifest.get("root") != str(root)
                 or not _tantivy_exists(tdir))
        old: dict[str, dict] = {} if fresh else manifest["docs"]
        if fresh:
            # Remove only what is certainly ours: a tantivy index, and texts listed by a manifest.
            if _tantivy_exists(tdir):
                shutil.rmtree(tdir)
            elif tdir.is_dir() and any(tdir.iterdir()):
                raise SearchIndexError(f"{tdir} exists and is not a search index; choose another --index folder")
            if manifest is not None and (index_dir / "texts").is_dir():
                shutil.rmtree(index_dir / "texts")
        tdir.mkdir(parents=True, exist_ok=True)
        if fresh:
            tantivy.Index(build_schema(), path=str(tdir))  # exists even when there is nothing to add
        texts = TextStore(index_dir / "texts")

        scan = scan_corpus(root, max_bytes=max_bytes, exclude=[index_dir])
        summary = IndexSummary()
        skipped: list[Skipped] = list(scan.skipped)
        new_docs: dict[str, dict] = {}
        indexed_ids: set[str] = set()
        metadata_only = False  # an mtime changed but the bytes did not: rewrite the manifest only
        job: _WriteJob | None = None  # opened at the first document to (re-)index

        try:
            for entry in scan.files:
                rec = old.get(entry.doc_id)
                same_path = rec is not None and rec.get("path") == entry.path
                if same_path and rec["size"] == entry.size and rec["mtime_ns"] == entry.mtime_ns:
                    new_docs[entry.doc_id] = rec
                    summary.unchanged += 1
                    continue
                try:
                    data, sha = read_and_hash(entry)
                except ExtractError as e:  # unreadable
                    skipped.append(Skipped(entry.path, str(e)))
                    continue
                if same_path and rec["sha256"] == sha:
                    new_docs[entry.doc_id] = dict(rec, size=entry.size, mtime_ns=entry.mtime_ns)
                    summary.unchanged += 1
                    metadata_only = True
                    continue
                r = load(entry, data, sha)
                del data
                if isinstance(r, Skipped):
                    skipped.append(r)
                    continue
                if job is None:
                    job = _WriteJob(tdir, texts, counter, fresh=fresh)
                job.add(r)  # indexed, kept and counted while the next files are read
                indexed_ids.add(r.doc_id)
                if rec is None:
                    summary.added += 1
                else:
                    summary.changed += 1

            removed = [d for d in old if d not in new_docs and d not in indexed_ids]
            summary.removed = len(removed)
            if removed and job is None:
                job = _WriteJob(tdir, texts, counter, fresh=fresh)
            if job is not None:
                job.finish(removed, new_docs)
        except BaseException:
            if job is not None:
                job.abort()
            raise
        if job is not None or metadata_only or fresh:
            _write_manifest(index_dir, root, new_docs)

        idx = CorpusIndex.open(index_dir)
        summary.documents = len(idx._docs)
        summary.passages = sum(d["passages"] for d in idx._docs.values())
        summary.characters = idx.corpus_chars
        summary.tokens = idx.corpus_tokens
        summary.skipped = [(s.path, s.reason) for s in sorted(skipped, key=lambda s: s.path)]
        summary.seconds = time.perf_counter() - t0
        log.info("index %s: %s", index_dir, summary.to_text().splitlines()[0])
        return idx, summary

    # -- reading ----------------------------------------------------------------------------------

    def documents(self) -> list[DocInfo]:
        return [self._info(k, v) for k, v in sorted(self._docs.items())]

    def document(self, doc_id: str) -> DocInfo | None:
        rec = self._docs.get(doc_id)
        return self._info(doc_id, rec) if rec is not None else None

    @staticmethod
    def _info(doc_id: str, rec: dict) -> DocInfo:
        return DocInfo(doc_id, rec["path"], rec["title"], rec["chars"], rec["tokens"], rec["sha256"])

    def __len__(self) -> int:
        return len(self._docs)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._docs

    def locate(self, doc_id: str, text: str, tolerant_whitespace: bool = False) -> list[Span]:
        return self.texts.locate(doc_id, text, tolerant_whitespace=tolerant_whitespace)

    # -- searching --------------------------------------------------------------------------------

    def search(self, query: str, k: int = 10, doc_ids: Iterable[str] | None = None) -> list[Hit]:
        """BM25 over passages (body + CJK grams + title), best first. Never raises on user input."""
        if not isinstance(query, str) or k <= 0:
            return []
        terms = _terms(query)[:MAX_QUERY_TERMS]
        clauses: list[tuple[Occur, Query]] = []
        for t in terms:
            clauses.append((Occur.Should, Query.term_query(self._schema, "body", t)))
            clauses.append((Occur.Should, Query.boost_query(Query.term_query(self._schema, "title", t), TITLE_BOOST)))
        for run in CJK_RUN.findall(query)[:MAX_QUERY_TERMS]:
            q = self._cjk_query(run)
            if q is not None:
                clauses.append((Occur.Should, q))
        for phrase in _QUOTED.findall(query)[:16]:
            words = _ANALYZER.analyze(phrase)
            if len(words) >= 2:
                clauses.append((Occur.Should, Query.boost_query(
                    Query.phrase_query(self._schema, "body", words[:64]), PHRASE_BOOST)))
        if not clauses:
            return []
        q = Query.boolean_query(clauses)
        return self._run(q, k, doc_ids, terms, CJK_RUN.findall(query))

    def phrase(self, text: str, k: int = 10, doc_ids: Iterable[str] | None = None) -> list[Hit]:
        """Passages that contain text as a phrase (after stemming and lowercasing; CJK as a substring)."""
        if not isinstance(text, str) or k <= 0:
            return []
        runs = CJK_RUN.findall(text)
        tokens = [(t.position, t.text) for t in _ANALYZER.pre_tokenize(text).tokens]
        if not tokens and not runs:
            return []
        if not runs:
            if len(tokens) == 1:
                q = Query.term_query(self._schema, "body", tokens[0][1])
            else:
                base = tokens[0][0]
                q = Query.phrase_query(self._schema, "body", [(p - base, t) for p, t in tokens])
            return self._run(q, k, doc_ids, [t for _, t in tokens], [], phrase=text)
        # CJK: every gram and every other word must be in the passage; then check the substring.
        clauses = [(Occur.Must, cq) for cq in (self._cjk_query(r) for r in runs) if cq is not None]
        clauses += [(Occur.Must, Query.term_query(self._schema, "body", t))
                    for _, t in tokens if not CJK_RUN.search(t)]
        q = Query.boolean_query(clauses)
        wanted = " ".join(text.split()).lower()
        out = []
        for h in self._run(q, max(k * 5, 50), doc_ids, [t for _, t in tokens], runs, phrase=text):
            if wanted in " ".join(h.text.split()).lower():
                out.append(h)
                if len(out) >= k:
                    break
        return out

    def _cjk_query(self, run: str) -> Query | None:
        if len(run) == 1:
            return Query.term_query(self._schema, "cjk", run)
        grams = list(dict.fromkeys(run[i:i + 2] for i in range(len(run) - 1)))[:64]
        return Query.boolean_query([(Occur.Must, Query.term_query(self._schema, "cjk", g)) for g in grams])

    def idf(self, term: str) -> float:
        """BM25 idf of an analysed (stemmed, lower-cased) body term over the passages."""
        searcher = self._index.searcher()
        n = max(1, searcher.num_docs)
        df = searcher.doc_freq("body", term)
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def _run(self, q: Query, k: int, doc_ids: Iterable[str] | None, terms: list[str], runs: list[str],
             phrase: str | None = None) -> list[Hit]:
        if doc_ids is not None:
            if isinstance(doc_ids, str):
                doc_ids = [doc_ids]
            ids = [d for d in dict.fromkeys(doc_ids) if isinstance(d, str)]
            if not ids:
                return []
            q = Query.boolean_query([(Occur.Must, q), (Occur.Must, Query.term_set_query(self._schema, "doc_id", ids))])
        searcher = self._index.searcher()
        k = min(k, searcher.num_docs)  # tantivy sizes its top-k heap by k
        if k <= 0:
            return []
        try:
            result = searcher.search(q, k, count=False)
        except ValueError as e:  # should not happen with queries built from terms; never leak to the user
            log.warning("search failed: %s", e)
            return []
        term_set = set(terms)
        hits: list[Hit] = []
        for score, addr in result.hits:
            d = searcher.doc(addr)
            doc_id, start, end = d.get_first("doc_id"), d.get_first("start"), d.get_first("end")
            rec = self._docs.get(doc_id)
            if rec is None:
                continue
            try:
                text = self.texts.read(doc_id, start, end)
            except KeyError:
                continue
            if phrase is not None:
                snippet = make_snippet(text, ranges=phrase_ranges(text, terms, phrase))
            else:
                snippet = make_snippet(text, term_set, runs)
            hits.append(Hit(doc_id, rec["path"], start, end, text, float(score), snippet))
        return hits


# --- helpers -------------------------------------------------------------------------------------

def _terms(query: str) -> list[str]:
    """The query's analyzed (en_stem) terms, unique, in order."""
    return list(dict.fromkeys(_ANALYZER.analyze(query)))


def highlight_ranges(text: str, terms: set[str], runs: Iterable[str] = ()) -> list[tuple[int, int]]:
    """Char ranges in text that match the analyzed query terms or contain a CJK query run, merged."""
    ranges: list[tuple[int, int]] = []
    if terms:
        for tok in _ANALYZER.pre_tokenize(text).tokens:
            if tok.text in terms:
                ranges.append((tok.char_offset_from, tok.char_offset_to))
    for run in runs:
        pieces = [run] if run in text else ([run[i:i + 2] for i in range(len(run) - 1)] or [run])
        for piece in pieces:
            i = text.find(piece)
            while i != -1:
                ranges.append((i, i + len(piece)))
                i = text.find(piece, i + 1)
    ranges.sort()
    merged: list[tuple[int, int]] = []
    for s, e in ranges:  # overlapping, touching or only whitespace apart: one range
        if merged and (s <= merged[-1][1] or text[merged[-1][1]:s].isspace()):
            if e > merged[-1][1]:
                merged[-1] = (merged[-1][0], e)
        else:
            merged.append((s, e))
    return merged


def phrase_ranges(text: str, terms: list[str], phrase: str) -> list[tuple[int, int]]:
    """Char ranges where the analyzed phrase occurs as consecutive tokens; else where its words occur
    (case-insensitive, any whitespace between them), which covers CJK inside longer words."""
    out: list[tuple[int, int]] = []
    if terms:
        toks = _ANALYZER.pre_tokenize(text).tokens
        n = len(terms)
        for i in range(len(toks) - n + 1):
            if all(toks[i + j].text == terms[j] for j in range(n)):
                out.append((toks[i].char_offset_from, toks[i + n - 1].char_offset_to))
    if not out and phrase.split():
        pat = re.compile(r"\s+".join(re.escape(w) for w in phrase.split()), re.IGNORECASE)
        out = [(m.start(), m.end()) for m in pat.finditer(text)]
    return out


def make_snippet(text: str, terms: set[str] = frozenset(), runs: Iterable[str] = (), width: int = SNIPPET_CHARS,
                 ranges: list[tuple[int, int]] | None = None) -> str:
    """About `width` chars of text around the densest cluster of matches, matches in **bold**, one line.

    The matches are the analyzed query terms and CJK runs (see highlight_ranges), or the given ranges.
    """
    if ranges is None:
        ranges = highlight_ranges(text, terms, runs)
    if len(text) <= width:
        ws, we = 0, len(text)
    else:
        ws = 0
        if ranges:
            best, best_n = 0, -1
            for i, (s, _) in enumerate(ranges):
                n = sum(1 for s2, e2 in ranges[i:] if e2 <= s + width - 40)
                if n > best_n:
                    best, best_n = s, n
            ws = max(0, best - 40)
        we = min(len(text), ws + width)
        if we == len(text):
            ws = max(0, we - width)
        if ws > 0:  # start at a word
            sp = text.rfind(" ", max(0, ws - 20), ws)
            ws = sp + 1 if sp != -1 else ws
        if we < len(text):
            sp = text.find(" ", we, we + 20)
            we = sp if sp != -1 else we
    parts: list[str] = []
    pos = ws
    for s, e in ranges:
        if e <= ws or s >= we:
            continue
        s, e = max(s, ws), min(e, we)
        parts.append(text[pos:s])
        parts.append("**" + text[s:e] + "**")
        pos = e
    parts.append(text[pos:we])
    out = " ".join("".join(parts).split())
    return ("…" if ws > 0 else "") + out + ("…" if we < len(text) else "")
