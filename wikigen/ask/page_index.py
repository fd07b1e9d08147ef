"""A tantivy index of a wiki's pages, and of the quotes on them, for `wikigen ask`.

Two small indexes, built together from a list of pages (`wikigen.wiki.page.Page`, or anything with the
same attributes: slug, title, type, description, aliases, sources, body, quotes(), links()):

- pages: title and aliases (boosted), description, body; plus the CJK runs of all of them in a
  character 1-2-gram field, queried only when the query itself holds CJK characters;
- quote units: one per quote on a page, the quote text with its page title and nearest heading as
  context, carrying (slug, doc id, start, end) so a hit is a citable span.

Queries are built from analysed terms (never parsed as query syntax), so no user input can raise.
The indexes live in RAM (``Index(schema, path=None)``) or are cached on disk under a folder named
by a hash of the pages' content (``PageIndex.build(pages, cache_dir=WIKI/.wikigen/page-index)``),
so a second process with the same pages only opens them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import tantivy
from tantivy import Filter, Occur, Query, TextAnalyzerBuilder, Tokenizer

from wikigen.core import confine
from wikigen.core.atomic import make_private, private_dir
from wikigen.core.text import acronyms_singular
from wikigen.search.analysis import CJK_RUN, en_analyzer
from wikigen.wiki.markup import WIKI_RE

log = logging.getLogger(__name__)

EN = "wg_en"  # simple + remove_long + lowercase + English stemmer
CJK = "wg_cjk"  # character 1-2 grams, lowercased
FORMAT = 4  # bump when the schema, the unit extraction or what is indexed changes: invalidates caches

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")

PAGE_BOOSTS = {"title": 3.0, "aliases": 3.0, "description": 1.5, "body": 1.0, "cjk_head": 3.0, "cjk_body": 1.0}
QUOTE_BOOSTS = {"text": 1.0, "context": 0.6, "about": 0.6, "cjk": 1.0, "cjk_about": 0.6}


def cjk_analyzer() -> tantivy.TextAnalyzer:
    return TextAnalyzerBuilder(Tokenizer.ngram(1, 2, False)).filter(Filter.lowercase()).build()


_EN_INDEX = en_analyzer(False)
_EN_QUERY = en_analyzer(True)
_CJK = cjk_analyzer()
# the words that make a sentence a question name no page: "how many contain ..." is not about "Know-How"
QUESTION_WORDS = frozenset(["how", "what", "which", "who", "whom", "whose", "when", "where", "why"])


def cjk_runs(text: str) -> str:
    return " ".join(CJK_RUN.findall(text or ""))


def has_cjk(text: str) -> bool:
    return bool(CJK_RUN.search(text or ""))


def terms(text: str, *, stopwords: bool = True) -> list[str]:
    """The analysed (lowercased, stemmed) terms of text, in order; stopwords dropped by default; an acronym's
    plural as the acronym ("NDAs" as "nda": no stemmer cuts it). CJK runs contribute their character bigrams (or
    the single character)."""
    out = list((_EN_QUERY if stopwords else _EN_INDEX).analyze(acronyms_singular(text or "")))
    for run in CJK_RUN.findall(text or ""):
        out.extend(t for t in _CJK.analyze(run) if len(t) == 2 or len(run) == 1)
    return out


@dataclass(frozen=True)
class QuoteUnit:
    slug: str
    index: int  # position of the quote on its page
    doc_id: str
    start: int
    end: int
    text: str
    heading: str  # nearest heading above the quote on its page ('' if none)
    heading_link: str = ""  # the page that heading links first ('' if none): on a document page, the quote's topic


@dataclass(frozen=True)
class PageHit:
    slug: str
    type: str
    score: float


@dataclass(frozen=True)
class QuoteHit:
    unit: QuoteUnit
    score: float


def _quotes_with_headings(page) -> list[QuoteUnit]:
    """The page's quotes in order, each with the nearest heading above it (link markup resolved to labels)."""
    from wikigen.wiki.markup import scan_quotes

    lines = (page.body or "").splitlines()
    heading_at: list[tuple[str, str]] = []
    current = ("", "")
    for line in lines:
        m = _HEADING.match(line)
        if m:
            linked = WIKI_RE.search(m.group(2))
            current = (
                WIKI_RE.sub(lambda mm: mm.group(2) or mm.group(1), m.group(2)),
                linked.group(1).strip() if linked else "",
            )
        heading_at.append(current)
    out = []
    for n, block in enumerate(scan_quotes(page.body or "", page.quote_doc)):
        q = block.quote
        i = block.header_line
        heading, link = heading_at[i] if 0 <= i < len(heading_at) else ("", "")
        out.append(QuoteUnit(page.slug, n, q.doc_id, int(q.start), int(q.end), q.text, heading, link))
    return out


def topic_of(u: QuoteUnit, pages: dict) -> str:
    """The topic page a quote is about: its own page when that is a topic page, else the topic page its
    heading links (a document page's key passage); '' when none."""
    for slug in (u.slug, u.heading_link):
        p = pages.get(slug)
        if p is not None and p.type == "topic":
            return slug
    return ""


def pages_fingerprint(pages: Sequence) -> str:
    h = hashlib.sha256(f"page-index-format-{FORMAT}\n".encode())
    for p in sorted(pages, key=lambda p: p.slug):
        rec = [p.slug, p.title, p.type, p.description, list(p.aliases or []), list(p.sources or []), p.body or ""]
        h.update(json.dumps(rec, ensure_ascii=False).encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()[:24]


def _page_schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("slug", stored=True, tokenizer_name="raw")
    sb.add_text_field("type", stored=True, tokenizer_name="raw")
    for f in ("title", "aliases", "description", "body"):
        sb.add_text_field(f, stored=False, tokenizer_name=EN)
    sb.add_text_field("cjk_head", stored=False, tokenizer_name=CJK)
    sb.add_text_field("cjk_body", stored=False, tokenizer_name=CJK)
    return sb.build()


def _quote_schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("slug", stored=True, tokenizer_name="raw")
    sb.add_text_field("doc_id", stored=True, tokenizer_name="raw")
    sb.add_integer_field("uid", stored=True, indexed=True)
    sb.add_text_field("text", stored=False, tokenizer_name=EN)
    sb.add_text_field("context", stored=False, tokenizer_name=EN)
    sb.add_text_field("about", stored=False, tokenizer_name=EN)
    sb.add_text_field("cjk", stored=False, tokenizer_name=CJK)
    sb.add_text_field("cjk_about", stored=False, tokenizer_name=CJK)
    return sb.build()


def _register(index: tantivy.Index) -> None:
    index.register_tokenizer(EN, _EN_INDEX)
    index.register_tokenizer(CJK, _CJK)


class PageIndex:
    """Search a wiki's pages and quotes. Build once per process with `PageIndex.build`."""

    def __init__(
        self,
        pages: Sequence,
        units: list[QuoteUnit],
        page_index: tantivy.Index,
        quote_index: tantivy.Index,
        fingerprint: str,
    ):
        self.pages = {p.slug: p for p in pages}
        self.units = units
        self.units_by_slug: dict[str, list[QuoteUnit]] = {}
        for u in units:
            self.units_by_slug.setdefault(u.slug, []).append(u)
        # a topic's quotes: its own page's, and the document pages' quotes under a heading that links it
        self.units_about: dict[str, list[QuoteUnit]] = {}
        for u in units:
            t = topic_of(u, self.pages)
            if t:
                self.units_about.setdefault(t, []).append(u)
        self._pidx = page_index
        self._qidx = quote_index
        self._psearcher = page_index.searcher()
        self._qsearcher = quote_index.searcher()
        self.fingerprint = fingerprint
        # title/alias term statistics over the pages, for "how well does a question name this page"
        self._title_terms: dict[str, list[set[str]]] = {}
        df: dict[str, int] = {}
        for p in pages:
            names = [set(terms(n)) for n in [p.title or "", *(p.aliases or [])]]
            self._title_terms[p.slug] = [n for n in names if n]
            for t in set().union(*names) if names else set():
                df[t] = df.get(t, 0) + 1
        self._title_df = df
        self._n_pages = max(1, len(pages))

    # --- building ------------------------------------------------------------------------------

    @classmethod
    def build(cls, pages: Iterable, cache_dir: Path | None = None) -> PageIndex:
        pages = list(pages)
        fp = pages_fingerprint(pages)
        units: list[QuoteUnit] = []
        for p in pages:
            try:
                units.extend(_quotes_with_headings(p))
            except Exception as e:  # a malformed page must not break asking
                log.warning("page %s: quotes skipped (%s)", getattr(p, "slug", "?"), e)
        if cache_dir is not None:
            try:
                pidx, qidx = cls._cached(Path(cache_dir), fp, pages, units)
                return cls(pages, units, pidx, qidx, fp)
            except (OSError, ValueError) as e:
                log.warning("page index cache unusable (%s); building in RAM", e)
        pidx, qidx = cls._fill(None, pages, units)
        return cls(pages, units, pidx, qidx, fp)

    @staticmethod
    def _fill(root: Path | None, pages: Sequence, units: Sequence[QuoteUnit]) -> tuple[tantivy.Index, tantivy.Index]:
        pidx = tantivy.Index(_page_schema(), path=str(root / "pages") if root else None)
        qidx = tantivy.Index(_quote_schema(), path=str(root / "quotes") if root else None)
        for idx in (pidx, qidx):
            _register(idx)
        w = pidx.writer(heap_size=50_000_000, num_threads=1)
        for p in pages:
            head = " ".join([p.title or "", *(p.aliases or []), p.description or ""])
            w.add_document(
                tantivy.Document(
                    slug=p.slug,
                    type=p.type or "topic",
                    title=p.title or "",
                    aliases=" ; ".join(p.aliases or []),
                    description=p.description or "",
                    body=p.body or "",
                    cjk_head=cjk_runs(head),
                    cjk_body=cjk_runs(p.body or ""),
                )
            )
        w.commit()
        w.wait_merging_threads()
        w = qidx.writer(heap_size=50_000_000, num_threads=1)
        # a quote about a topic (on its page, or under its link on a document page) is about it whatever its
        # words: the topic's title and aliases (field "about")
        about = {p.slug: " ; ".join([p.title or "", *(p.aliases or [])]) for p in pages if p.type == "topic"}
        by_slug = {p.slug: p for p in pages}
        for uid, u in enumerate(units):
            topic = about.get(topic_of(u, by_slug), "")
            w.add_document(
                tantivy.Document(
                    slug=u.slug,
                    doc_id=u.doc_id,
                    uid=uid,
                    text=u.text,
                    context=u.heading,
                    about=topic,
                    cjk=cjk_runs(u.text + " " + u.heading),
                    cjk_about=cjk_runs(topic),
                )
            )
        w.commit()
        w.wait_merging_threads()
        pidx.reload()
        qidx.reload()
        return pidx, qidx

    @classmethod
    def _cached(cls, cache_dir: Path, fp: str, pages, units) -> tuple[tantivy.Index, tantivy.Index]:
        root = cache_dir / fp
        if (root / "ok").is_file():
            pidx, qidx = tantivy.Index.open(str(root / "pages")), tantivy.Index.open(str(root / "quotes"))
            for idx in (pidx, qidx):
                _register(idx)
            if pidx.searcher().num_docs == len(pages) and qidx.searcher().num_docs == len(units):
                return pidx, qidx
        # the cache holds quoted corpus text: private (0700/0600), and kept inside its wiki (core.confine)
        private_dir(confine.make_dirs(cache_dir))
        tmp = Path(tempfile.mkdtemp(prefix=f".{fp}-", dir=cache_dir))
        (tmp / "pages").mkdir()
        (tmp / "quotes").mkdir()
        cls._fill(tmp, pages, units)
        confine.write_bytes(tmp / "ok", fp.encode("ascii"))
        make_private(tmp)
        try:
            confine.rename(tmp, root)
        except OSError:  # another process won the race (or a stale folder without "ok"): use ours in place
            if not (root / "ok").is_file():
                confine.remove_tree(root)
                try:
                    confine.rename(tmp, root)
                except OSError:
                    root = tmp
            else:
                confine.remove_tree(tmp)
        # keep the newest few caches only
        olds = sorted(
            (d for d in cache_dir.iterdir() if d.is_dir() and d != root and not d.name.startswith(".")),
            key=lambda d: d.stat().st_mtime,
            reverse=True,
        )
        for d in olds[2:]:
            confine.remove_tree(d)
        pidx, qidx = tantivy.Index.open(str(root / "pages")), tantivy.Index.open(str(root / "quotes"))
        for idx in (pidx, qidx):
            _register(idx)
        return pidx, qidx

    # --- querying ------------------------------------------------------------------------------

    def _query(
        self, schema, text: str, boosts: dict[str, float], en_fields: Sequence[str], cjk_fields: Sequence[str]
    ) -> Query | None:
        subs: list[tuple[Occur, Query]] = []
        en_terms = [t for t in dict.fromkeys(_EN_QUERY.analyze(text or "")) if t not in QUESTION_WORDS][:64]
        for f in en_fields:
            for t in en_terms:
                subs.append((Occur.Should, Query.boost_query(Query.term_query(schema, f, t), boosts.get(f, 1.0))))
        if has_cjk(text):
            grams = list(
                dict.fromkeys(
                    g for run in CJK_RUN.findall(text) for g in _CJK.analyze(run) if len(g) == 2 or len(run) == 1
                )
            )[:64]
            for f in cjk_fields:
                for g in grams:
                    subs.append((Occur.Should, Query.boost_query(Query.term_query(schema, f, g), boosts.get(f, 1.0))))
        if not subs:
            return None
        return Query.boolean_query(subs)

    def search(self, query: str, k: int = 10, types: Sequence[str] | None = None) -> list[PageHit]:
        """Pages best matching the query (BM25; title and aliases boosted), best first."""
        q = self._query(
            self._pidx.schema, query, PAGE_BOOSTS, ["title", "aliases", "description", "body"], ["cjk_head", "cjk_body"]
        )
        if q is None:
            return []
        if types:
            q = Query.boolean_query(
                [(Occur.Must, q), (Occur.Must, Query.term_set_query(self._pidx.schema, "type", list(types)))]
            )
        s = self._psearcher
        out = []
        for score, addr in s.search(q, k).hits:
            d = s.doc(addr)
            out.append(PageHit(d["slug"][0], d["type"][0], float(score)))
        return out

    def search_quotes(
        self,
        query: str,
        k: int = 50,
        *,
        doc_ids: Iterable[str] | None = None,
        slugs: Iterable[str] | None = None,
        by_page: bool = True,
    ) -> list[QuoteHit]:
        """Quote units best matching the query, optionally only from some documents and/or pages; by_page:
        a quote also matches by its topic page's title and aliases (False: by its own words and heading)."""
        schema = self._qidx.schema
        en, cjk = (["text", "context", "about"], ["cjk", "cjk_about"]) if by_page else (["text", "context"], ["cjk"])
        q = self._query(schema, query, QUOTE_BOOSTS, en, cjk)
        if q is None:
            return []
        must = [(Occur.Must, q)]
        if doc_ids is not None:
            doc_ids = list(doc_ids)
            if not doc_ids:
                return []
            must.append((Occur.Must, Query.term_set_query(schema, "doc_id", doc_ids)))
        if slugs is not None:
            slugs = list(slugs)
            if not slugs:
                return []
            must.append((Occur.Must, Query.term_set_query(schema, "slug", slugs)))
        if len(must) > 1:
            q = Query.boolean_query(must)
        s = self._qsearcher
        out = []
        for score, addr in s.search(q, k).hits:
            uid = s.doc(addr)["uid"][0]
            out.append(QuoteHit(self.units[uid], float(score)))
        return out

    def title_match(self, slug: str, question_terms: set[str]) -> tuple[float, set[str]]:
        """How strongly a question names a page: the idf-weighted share of the page's title and
        alias terms that occur in the question, and the terms that matched."""
        best, best_hit = 0.0, set[str]()
        for ts in self._title_terms.get(slug) or []:
            weights = {t: math.log(1 + self._n_pages / self._title_df.get(t, 1)) for t in ts}
            total = sum(weights.values())
            hit = {t for t in ts if t in question_terms}
            share = sum(weights[t] for t in hit) / total if total else 0.0
            if share > best or (share == best and len(hit) > len(best_hit)):
                best, best_hit = share, hit
        return best, best_hit

    def title_terms(self, slug: str) -> set[str]:
        return set().union(*(self._title_terms.get(slug) or [set()]))
