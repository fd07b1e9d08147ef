"""CorpusIndex: an incremental tantivy index over passages of a corpus, BM25 search, phrase search, locate.

The index folder holds:
  tantivy/        the tantivy index, one tantivy document per passage
  texts/          the TextStore: every document's extracted text, kept exactly
  manifest.json   doc id -> path, sha256, size, mtime_ns, chars, tokens, title, passages

A re-run stats every file, hashes only files whose size or mtime changed, and re-indexes only added or
changed documents (delete by doc id, then add, in one commit). Offsets are character offsets into the
extracted text (Python str indices), never UTF-8 bytes.

One process writes an index at a time: a build holds INDEX/.write.lock from before it reads the manifest
to after it writes it, and another is refused naming its pid (search/integrity.py); passages that an
earlier race indexed twice are repaired by the next build, or on open when no writer holds the index.

The fields of a passage are in search/schema.py.
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import tantivy
from tantivy import Occur, Query
from wikigen.search.analysis import ANALYZER, CJK_RUN
from wikigen.search.analysis import terms as analysed_terms
from wikigen.search.corpus import Skipped, scan_corpus
from wikigen.search.extract import DEFAULT_MAX_BYTES
from wikigen.search.integrity import find_damage, index_lock, repair
from wikigen.search.manifest import MANIFEST_VERSION, read_manifest, tantivy_exists, write_manifest
from wikigen.search.passages import MAX_CHARS
from wikigen.search.reading import read_files
from wikigen.search.schema import SCHEMA_VERSION, build_schema
from wikigen.search.snippets import make_snippet, phrase_ranges
from wikigen.search.texts import TextStore
from wikigen.search.writer import WriteJob

from wikigen.core import confine
from wikigen.core.atomic import make_private, private_dir
from wikigen.core.engine import Parallel
from wikigen.core.errors import IndexLockedError, SearchIndexError
from wikigen.core.text import Span, one_edit_apart, one_edit_spellings, without_particle
from wikigen.core.tokens import TokenCounter
from wikigen.wiki import secrets
from wikigen.wiki.secrets import Excerpt

if TYPE_CHECKING:  # imported when asked: checking the corpus folder is not every caller's work
    from wikigen.search.freshness import Changes

__all__ = ["CorpusIndex", "DocInfo", "Hit", "IndexSummary", "index_lock"]

log = logging.getLogger(__name__)

CHECKPOINT_CHARS = 32_000_000  # commit and write the manifest after this much new text: a run that is
# interrupted resumes from there instead of redoing finished documents
MAX_QUERY_TERMS = 256  # a longer query keeps its first terms: tantivy's query grows with each
TIE_REACH = 256  # at most this many passages past the k-th are read to order a tie at the cut (_top)


@dataclass(frozen=True, slots=True)
class Hit:
    """A passage found. `text` is the document's text at [start, end), with each secret kept out by default
    (wikigen.wiki.secrets.keep_out); `spans` are then its verbatim parts (the document's text at each is in
    `text`), and () when `text` is exactly the document's text there."""

    doc_id: str
    path: str
    start: int
    end: int
    text: str
    score: float
    snippet: str
    spans: tuple[Span, ...] = ()

    def verbatim(self) -> list[dict]:
        """The source spans whose text the hit's text holds verbatim: its own span, or its parts around a secret."""
        spans = self.spans or (Span(self.doc_id, self.start, self.end),)
        return [{"doc_id": s.doc_id, "start": s.start, "end": s.end} for s in spans]

    def to_dict(self) -> dict:
        return {
            "doc_id": self.doc_id,
            "path": self.path,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "spans": self.verbatim(),
            "score": self.score,
            "snippet": self.snippet,
        }


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
    decoded: list[tuple[str, str]] = field(default_factory=list)  # (path, legacy encoding) of files not UTF-8
    # (path, tokens, their characters) of the documents with tokens too long to index (search.passages)
    overlong: list[tuple[str, int, int]] = field(default_factory=list)
    seconds: float = 0.0
    extract_seconds: float = 0.0  # of `seconds`: reading, hashing and extracting the files
    repaired: str = ""  # what was wrong with the index and is now repaired (passages indexed twice), if anything

    def to_text(self, max_skipped: int = 20) -> str:
        lines = [
            f"indexed {self.documents} documents, {self.passages} passages, "
            f"{self.characters:,} characters, {self.tokens:,} tokens in {self.seconds:.2f} s",
            f"  added {self.added}, changed {self.changed}, removed {self.removed}, unchanged {self.unchanged}",
        ]
        if self.repaired:
            lines.append(f"  repaired the index: {self.repaired}")
        if self.decoded:
            lines.append(
                f"  decoded {len(self.decoded)} files that are not valid UTF-8 with a legacy encoding "
                "(check their text):"
            )
            for path, enc in self.decoded[:max_skipped]:
                lines.append(f"    {path}: {enc}")
            if len(self.decoded) > max_skipped:
                lines.append(f"    ... and {len(self.decoded) - max_skipped} more")
        if self.overlong:
            lines.append(
                f"  skipped {sum(n for _, n, _ in self.overlong):,} tokens longer than {MAX_CHARS:,} characters "
                f"(not indexed) in {len(self.overlong)} documents:"
            )
            for path, n, chars in self.overlong[:max_skipped]:
                lines.append(f"    {path}: {n:,} tokens, {chars:,} characters")
            if len(self.overlong) > max_skipped:
                lines.append(f"    ... and {len(self.overlong) - max_skipped} more")
        if self.skipped:
            lines.append(f"  skipped {len(self.skipped)} files:")
            for path, reason in self.skipped[:max_skipped]:
                lines.append(f"    {path}: {reason}")
            if len(self.skipped) > max_skipped:
                lines.append(f"    ... and {len(self.skipped) - max_skipped} more")
        return "\n".join(lines)


# --- the index -----------------------------------------------------------------------------------


def check_index_corpus(index_dir: Path, corpus_dir: Path, *, force: bool = False, manifest: dict | None = None) -> None:
    """SearchIndexError when index_dir holds the index of another corpus, unless force (reads only)."""
    manifest = manifest if manifest is not None else read_manifest(Path(index_dir))
    root = str(Path(corpus_dir).resolve())
    if manifest is not None and manifest.get("root") not in (None, root) and not force:
        raise SearchIndexError(
            f"{index_dir} holds the index of another corpus ({manifest.get('root')}); "
            "choose another --index folder, or pass --force to replace it"
        )


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
        self._hashes: dict[str, tuple] = {}  # corpus path -> (stat key, sha256): corpus_changes' memo

    # -- opening and building ---------------------------------------------------------------------

    @classmethod
    def open(cls, index_dir: Path) -> CorpusIndex:
        index_dir = Path(index_dir)
        manifest = read_manifest(index_dir)
        tdir = index_dir / "tantivy"
        if manifest is None or not tantivy_exists(tdir):
            raise SearchIndexError(
                f"no search index in {index_dir}: run `wikigen index CORPUS --index {index_dir}` first"
            )
        if manifest.get("schema") != SCHEMA_VERSION:
            raise SearchIndexError(
                f"the search index in {index_dir} was made by another wikigen version: "
                f"run `wikigen index CORPUS --index {index_dir}` again"
            )
        try:
            idx = tantivy.Index.open(str(tdir))
        except ValueError as e:
            raise SearchIndexError(
                f"the search index in {index_dir} cannot be opened ({e}); "
                f"run `wikigen index CORPUS --index {index_dir}` again"
            ) from None
        if find_damage(idx, manifest["docs"]) is not None:
            manifest = cls._repair_on_open(index_dir, manifest)
            idx.reload()
        return cls(index_dir, manifest, idx)

    @staticmethod
    def _repair_on_open(index_dir: Path, manifest: dict) -> dict:
        """Repair passages indexed twice (search/integrity.py) when no writer holds the index; the manifest
        as it is after. A writer at work checks the index itself when it ends, so it is left alone."""
        try:
            with index_lock(index_dir):
                manifest = read_manifest(index_dir) or manifest  # as the last writer left it
                tdir = index_dir / "tantivy"
                damage = find_damage(tantivy.Index.open(str(tdir)), manifest["docs"])
                if damage is not None:
                    dropped = repair(tdir, TextStore(index_dir / "texts"), manifest["docs"], damage)
                    make_private(tdir)
                    if dropped:
                        docs = {k: v for k, v in manifest["docs"].items() if k not in dropped}
                        write_manifest(index_dir, Path(manifest["root"]), docs)
                        manifest = {**manifest, "docs": docs}
        except IndexLockedError:
            log.info("the search index in %s is being written; its writer checks it when it ends", index_dir)
        except (OSError, ValueError) as e:  # a read-only index: search it as it is
            log.warning("the search index in %s holds passages twice and cannot be repaired here: %s", index_dir, e)
        return manifest

    @classmethod
    def build(
        cls,
        corpus_dir: Path,
        index_dir: Path,
        *,
        counter: TokenCounter | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
        progress: Callable[[int, int], None] | None = None,
        force: bool = False,
        rehash: bool = False,
        workers: Parallel = 1,
    ) -> tuple[CorpusIndex, IndexSummary]:
        """Index corpus_dir into index_dir, incrementally. Returns the opened index and a summary.
        progress(done, total), when given, is called as the files are gone through. SearchIndexError when
        index_dir holds the index of another corpus, unless force. rehash: decide what changed by content
        hash for every file, not by size and mtime (a build does this). workers: processes that read and
        extract the files (`wikigen.search.reading`; None: one per core; or an engine, `wikigen.core.engine`);
        the index is the same.
        IndexLockedError, before anything is read or written, when another process writes the index."""
        index_dir = Path(index_dir)
        if not index_dir.exists():
            private_dir(index_dir)  # a folder made for the index is private; an existing one keeps its mode
        with index_lock(index_dir):
            return cls._build(corpus_dir, index_dir, counter, max_bytes, progress, force, rehash, workers)

    @classmethod
    def _build(
        cls,
        corpus_dir: Path,
        index_dir: Path,
        counter: TokenCounter | None,
        max_bytes: int,
        progress: Callable[[int, int], None] | None,
        force: bool,
        rehash: bool,
        workers: Parallel,
    ) -> tuple[CorpusIndex, IndexSummary]:
        t0 = time.perf_counter()
        corpus_dir = Path(corpus_dir)
        root = corpus_dir.resolve()
        private_dir(index_dir / "texts")
        tdir = index_dir / "tantivy"

        manifest = read_manifest(index_dir)
        check_index_corpus(index_dir, corpus_dir, force=force, manifest=manifest)
        fresh = (
            manifest is None
            or manifest.get("schema") != SCHEMA_VERSION
            or manifest.get("version") != MANIFEST_VERSION
            or manifest.get("root") != str(root)
            or not tantivy_exists(tdir)
        )
        old: dict[str, dict] = manifest["docs"] if manifest is not None and not fresh else {}
        if fresh:
            # Remove only what is certainly ours: a tantivy index, and texts listed by a manifest.
            if tantivy_exists(tdir):
                confine.remove_tree(tdir, index_dir)
            elif tdir.is_dir() and any(tdir.iterdir()):
                raise SearchIndexError(f"{tdir} exists and is not a search index; choose another --index folder")
            if manifest is not None and (index_dir / "texts").is_dir():
                confine.remove_tree(index_dir / "texts", index_dir)
        private_dir(tdir)  # tantivy writes its segments with the umask's mode: the folder keeps them private
        if fresh:
            tantivy.Index(build_schema(), path=str(tdir))  # exists even when there is nothing to add
        texts = TextStore(index_dir / "texts")

        # the index's own folders are never documents, even when the index folder is the corpus folder
        scan = scan_corpus(root, max_bytes=max_bytes, exclude=[index_dir, tdir, index_dir / "texts"])
        summary = IndexSummary()
        skipped: list[Skipped] = list(scan.skipped)
        new_docs: dict[str, dict] = {}
        indexed_ids: set[str] = set()
        metadata_only = False  # an mtime changed but the bytes did not: rewrite the manifest only
        job: WriteJob | None = None  # opened at the first document to (re-)index

        reads = read_files(scan.files, old, rehash=rehash, workers=workers)
        try:
            for done, entry in enumerate(scan.files):
                if progress is not None:
                    progress(done, len(scan.files))
                t_read = time.perf_counter()
                got = next(reads)  # read and extracted here, or waited for from the workers
                summary.extract_seconds += time.perf_counter() - t_read
                if got.record is not None:
                    new_docs[entry.doc_id] = got.record
                    summary.unchanged += 1
                    metadata_only = metadata_only or got.same_bytes
                    continue
                if got.document is None:  # skipped, with its reason
                    if got.skipped is not None:
                        skipped.append(got.skipped)
                    continue
                r, rec = got.document, old.get(entry.doc_id)
                if r.encoding not in ("utf-8", "pdf", "docx"):
                    summary.decoded.append((r.path, r.encoding))
                    log.warning("%s is not valid UTF-8: decoded as %s", r.path, r.encoding)
                if job is None:
                    job = WriteJob(tdir, texts, counter, fresh=fresh)
                job.add(r)  # indexed, kept and counted while the next files are read
                indexed_ids.add(r.doc_id)
                if rec is None:
                    summary.added += 1
                else:
                    summary.changed += 1
                if job.chars >= CHECKPOINT_CHARS:
                    job.finish([], new_docs)  # durable: commit, texts synced, records filled
                    job = None
                    # what the index holds now: the documents not yet gone through keep their records
                    write_manifest(index_dir, root, {**old, **new_docs})

            if progress is not None:
                progress(len(scan.files), len(scan.files))
            removed = [d for d in old if d not in new_docs and d not in indexed_ids]
            summary.removed = len(removed)
            if removed and job is None:
                job = WriteJob(tdir, texts, counter, fresh=fresh)
            if job is not None:
                job.finish(removed, new_docs)
        except KeyboardInterrupt:  # Ctrl-C: keep the documents finished so far, as at a checkpoint
            if job is not None:
                try:
                    job.keep_finished(new_docs)
                    write_manifest(index_dir, root, {**old, **new_docs})
                except Exception:
                    log.warning("could not keep the documents indexed before the interrupt", exc_info=True)
                    job.abort()
            raise
        except BaseException:
            if job is not None:
                job.abort()
            raise
        finally:
            reads.close()
        damage = find_damage(tantivy.Index.open(str(tdir)), new_docs)  # passages twice: an earlier race
        if damage is not None:
            for doc_id in repair(tdir, texts, new_docs, damage):
                new_docs.pop(doc_id, None)  # its text is gone: the next run reads it again
            summary.repaired = damage.text()
            metadata_only = True
        if job is not None or metadata_only or fresh:
            write_manifest(index_dir, root, new_docs)
        make_private(tdir)  # and the segments themselves 0600 (README "What is kept safe")

        idx = CorpusIndex.open(index_dir)
        summary.documents = len(idx._docs)
        summary.passages = sum(d["passages"] for d in idx._docs.values())
        summary.characters = idx.corpus_chars
        summary.tokens = idx.corpus_tokens
        summary.skipped = [(s.path, s.reason) for s in sorted(skipped, key=lambda s: s.path)]
        summary.overlong = sorted((d["path"], *d["overlong"]) for d in idx._docs.values() if d.get("overlong", [0])[0])
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
        # a title is the document's own words, shown on every surface: a secret in it is kept out too
        return DocInfo(doc_id, rec["path"], secrets.redact(rec["title"]), rec["chars"], rec["tokens"], rec["sha256"])

    def __len__(self) -> int:
        return len(self._docs)

    def corpus_changes(self) -> Changes:
        """What changed in the corpus folder since this index was built (by sha256; search/freshness.py). A file
        is read again only when its stat changed since this index last hashed it."""
        from wikigen.search.freshness import corpus_changes

        return corpus_changes(self, memo=self._hashes)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._docs

    def locate(self, doc_id: str, text: str, tolerant_whitespace: bool = False) -> list[Span]:
        return self.texts.locate(doc_id, text, tolerant_whitespace=tolerant_whitespace)

    def excerpt(self, doc_id: str, start: int = 0, end: int | None = None) -> Excerpt:
        """The document's text [start, end) fit to show a reader: every secret kept out, with the verbatim
        spans around each (wikigen.wiki.secrets.keep_out). Every surface that shows corpus text reads it here,
        or through `search`; `texts` is the exact text, for verifying quotes. KeyError for an unknown document."""
        return secrets.keep_out(doc_id, self.texts.text(doc_id), start, end)

    # -- searching --------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        k: int = 10,
        doc_ids: Iterable[str] | None = None,
        *,
        snippets: bool = True,
        keep_out: bool = True,
    ) -> list[Hit]:
        """BM25 over passages (body + CJK grams + title), best first. Never raises on user input."""
        if not isinstance(query, str) or k <= 0:
            return []
        terms = analysed_terms(query)[:MAX_QUERY_TERMS]
        clauses: list[tuple[Occur, Query]] = []
        for t in terms:
            clauses.append((Occur.Should, Query.term_query(self._schema, "body", t)))
            clauses.append((Occur.Should, Query.term_query(self._schema, "title", t)))
        for run in CJK_RUN.findall(query)[:MAX_QUERY_TERMS]:
            q = self._cjk_query(run)
            if q is not None:
                clauses.append((Occur.Should, q))
        if not clauses:
            return []
        q = Query.boolean_query(clauses)
        return self._run(q, k, doc_ids, terms, CJK_RUN.findall(query), snippets=snippets, keep_out=keep_out)

    def phrase(
        self, text: str, k: int = 10, doc_ids: Iterable[str] | None = None, *, keep_out: bool = True
    ) -> list[Hit]:
        """Passages that contain text as a phrase (after stemming and lowercasing; CJK as a substring);
        keep_out as for `search`."""
        if not isinstance(text, str) or k <= 0:
            return []
        runs = CJK_RUN.findall(text)
        tokens = [(t.position, t.text) for t in ANALYZER.pre_tokenize(text).tokens]
        if not tokens and not runs:
            return []
        if not runs:
            if len(tokens) == 1:
                q = Query.term_query(self._schema, "body", tokens[0][1])
            else:
                base = tokens[0][0]
                q = Query.phrase_query(self._schema, "body", [(p - base, t) for p, t in tokens])
            return self._run(q, k, doc_ids, [t for _, t in tokens], [], phrase=text, keep_out=keep_out)
        # CJK: every gram and every other word must be in the passage; then check the substring.
        clauses = [(Occur.Must, cq) for cq in (self._cjk_query(r) for r in runs) if cq is not None]
        clauses += [(Occur.Must, Query.term_query(self._schema, "body", t)) for _, t in tokens if not CJK_RUN.search(t)]
        q = Query.boolean_query(clauses)
        wanted = " ".join(text.split()).lower()
        out = []
        for h in self._run(q, max(k * 5, 50), doc_ids, [t for _, t in tokens], runs, phrase=text, keep_out=False):
            if wanted in " ".join(h.text.split()).lower():
                out.append(self._kept_out(h, [t for _, t in tokens], runs, text) if keep_out else h)
                if len(out) >= k:
                    break
        return out

    def near_spelling(self, word: str, k: int = 5) -> str:
        """How the corpus writes a word it does not hold but one edit away from it (a letter added, dropped or
        changed, or two side by side swapped), as a passage writes it: "Kriomic" -> "Kiromic"; "" when no passage
        holds such a word, or the word is shorter than five letters (one edit away from many other words)."""
        tokens = [t.text for t in ANALYZER.pre_tokenize(word).tokens] if isinstance(word, str) else []
        if len(tokens) != 1 or len(word) < 5 or CJK_RUN.search(word):
            return ""
        want = word.casefold()
        # the index holds stems, and a stem may cut a word other than its misspelling ("kiromic" -> "kirom",
        # "kriomic" -> "kriomic"), so each spelling one edit away is stemmed and looked up
        stems = {s for v in one_edit_spellings(want) for s in ANALYZER.analyze(v)} - set(ANALYZER.analyze(want))
        if not stems:
            return ""
        q = Query.term_set_query(self._schema, "body", sorted(stems))
        found = Counter(
            m.group()
            for h in self._run(q, k, None, [], [], snippets=False, keep_out=True)
            for m in re.finditer(r"\w+", h.text)
            if one_edit_apart(m.group().casefold(), want)
        )
        return found.most_common(1)[0][0] if found else ""  # the form the passages write most

    def _cjk_query(self, run: str) -> Query | None:
        """A passage holding every character pair of the run, its particle or ending aside ("준거법은" is looked for
        as "준거법": the question's particle is not the text's)."""
        run = without_particle(run)
        if len(run) == 1:
            return Query.term_query(self._schema, "cjk", run)
        grams = list(dict.fromkeys(run[i : i + 2] for i in range(len(run) - 1)))[:64]
        return Query.boolean_query([(Occur.Must, Query.term_query(self._schema, "cjk", g)) for g in grams])

    def idf(self, term: str) -> float:
        """BM25 idf of an analysed (stemmed, lower-cased) body term over the passages."""
        searcher = self._index.searcher()
        n = max(1, searcher.num_docs)
        df = searcher.doc_freq("body", term)
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def _run(
        self,
        q: Query,
        k: int,
        doc_ids: Iterable[str] | None,
        terms: list[str],
        runs: list[str],
        phrase: str | None = None,
        snippets: bool = True,
        keep_out: bool = False,
    ) -> list[Hit]:
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
            ranked = _top(searcher, q, k)
        except ValueError as e:  # should not happen with queries built from terms; never leak to the user
            log.warning("search failed: %s", e)
            return []
        term_set = set(terms)
        hits: list[Hit] = []
        for score, doc_id, start, end in ranked:
            rec = self._docs.get(doc_id)
            if rec is None:
                continue
            try:
                text = self.texts.read(doc_id, start, end)
            except KeyError:
                continue
            hit = Hit(doc_id, rec["path"], start, end, text, float(score), "")
            if keep_out:
                hit = self._kept_out(hit, terms, runs, phrase, snippets=snippets)
            elif snippets:
                hit = replace(hit, snippet=_snippet(text, terms, term_set, runs, phrase))
            hits.append(hit)
        return hits

    def _kept_out(self, h: Hit, terms: list[str], runs: list[str], phrase: str | None, *, snippets=True) -> Hit:
        """The hit as a reader may see it: secrets kept out of its text, its snippet made from that text."""
        ex = self.excerpt(h.doc_id, h.start, h.end)
        spans = tuple(Span(h.doc_id, s, e) for _, s, e in ex.runs) if ex.kept_out else ()
        snippet = _snippet(ex.text, terms, set(terms), runs, phrase) if snippets else ""
        return replace(h, text=ex.text, snippet=snippet, spans=spans)


def _top(searcher: tantivy.Searcher, q: Query, k: int) -> list[tuple[float, str, int, int]]:
    """The k best passages as (score, doc id, start, end), equal scores in document and offset order. tantivy
    breaks ties by where a passage sits in the index, and its indexing threads place passages differently from
    one build to the next; so the passages that tie with the k-th are fetched too (up to TIE_REACH more) and
    sorted, and the same corpus gives the same hits whatever the build."""
    n = searcher.num_docs
    want = min(n, k + 1)
    found = searcher.search(q, want, count=False).hits
    while len(found) == want < n and want < k + TIE_REACH and found[k - 1][0] == found[-1][0]:
        want = min(n, k + TIE_REACH, 2 * want)
        found = searcher.search(q, want, count=False).hits
    last = found[k - 1][0] if len(found) >= k else None
    ranked: list[tuple[float, str, int, int]] = []
    for score, addr in found:
        if len(ranked) >= k and score != last:
            break
        d = searcher.doc(addr)
        ranked.append((float(score), d["doc_id"][0], d["start"][0], d["end"][0]))
    ranked.sort(key=lambda h: (-h[0], h[1], h[2]))
    return ranked[:k]


def _snippet(text: str, terms: list[str], term_set: set[str], runs: list[str], phrase: str | None) -> str:
    if phrase is not None:
        return make_snippet(text, ranges=phrase_ranges(text, terms, phrase))
    return make_snippet(text, term_set, runs)
