"""`wikigen ask`: retrieve from the wiki and the corpus, assemble a context within a token budget,
and answer.

Three modes, all held to the same budget (tokens of the assembled context, counted with the
project's counter):

- ``search``: the baseline. BM25 passages of the corpus index for the question, best first, until
  the budget is full.
- ``wiki``: the wiki alone. The page index is searched with the question; the quotes of the best
  pages (and of the pages they link to, e.g. a collection's member document pages) are ranked by
  relevance to the question, one quote per document before a second from the same document.
- ``wiki+search``: the wiki resolves the *scope* and search fills it. When the question names a
  collection (a kind of document) or a document strongly (its title/aliases, plus rare identifying
  words for a document), the scope is those documents, and the words that named them are removed
  from the query used inside the scope. Topic pages contribute their quotes (restricted to the
  scope); then search restricted to the scope adds each in-scope document's best unit not already
  covered, one per document first, then second-best. In a scope of a few named documents a unit is
  a passage; in a many-document scope it is a window of whole sentences (about WINDOW_CHARS) taken
  from the document's best passages, ranked by the query terms it holds (idf-weighted, a little more
  in the heading that opens it), so the clause asked about rather than the passage around it comes
  first and more documents fit. The query is expanded (pseudo-relevance feedback, lower weight)
  with the terms shared by the quotes of the topic pages the query names by distinctive title
  words, which finds clauses phrased without the question's words. With no scope: topic quotes and
  search, interleaved; for a question about many documents, search gives many documents one short
  window each first.

Every context item carries the exact source spans whose text it holds verbatim, so answers can be
cited and evaluated. Offline the answer is extractive; with the Claude backend it is generated.

An `Answerer` holds the opened wiki, corpus index and page index: build it once per process
(`Answerer.open(wiki_root)`) and call `.ask()` many times.
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from wikigen.ask.modes import MODES
from wikigen.ask.page_index import PageIndex, QuoteUnit, terms
from wikigen.core.errors import WikigenError
from wikigen.core.sentences import sentences
from wikigen.core.tokens import TokenCounter, default_counter

log = logging.getLogger(__name__)

DEFAULT_BUDGET = 4000
MIN_TRIM_TOKENS = 48          # a passage is trimmed to fill the rest of the budget when at least this much is left
PAGE_HITS = 20                # pages looked at per question
TOPIC_PAGES = 6               # topic pages whose quotes are used
MAX_DOC_SCOPE = 3             # documents a question can name at once
RARE_DF = 2                   # a word in at most this many document pages' identity text identifies a document
OPENING_CHARS = 1500          # the opening of a document that identifies it (title, parties, date)
COMMON_KIND_RATIO = 5         # a collection is not named by a word found in 5x more documents than it has members
DOC_QUOTE_SHARE = 0.25        # in a scope of a few named documents, topic quotes take at most this share
SCOPED_QUOTE_SHARE = 0.1      # in a scope, topic quotes from well-named topics take at most this share
MAX_QUOTE_SHARE = 0.5         # topic quotes may take at most this share of the budget when search can fill the rest
WINDOW_CHARS = 600            # in a many-document scope, units are windows of whole sentences of about this many characters
SCOPE_PASSAGES = 5            # ... taken from each in-scope document's best passages
OPEN_WINDOW_CHARS = 400       # with no scope: windows of about this many characters, one per document first
OPEN_DOCS = 30                # ... from at most this many documents
OPEN_SEARCH_K = 300           # ... of the best passages
OPEN_PER_DOC = 2
OPEN_PASSAGES = 3
PRF_TERMS = 8                 # expansion terms from the named topics' quotes (0: none)
PRF_TOPICS = 3
PRF_MIN_IDF = 1.5             # ... named by title terms whose idf adds up to at least this
PRF_MIN_SHARE = 0.1           # ... each in at least this share of those quotes
PRF_WEIGHT = 0.3              # ... weighing this much of a query term of the same idf
PRF_SEARCH = 3                # >0: also this many passages per document from the expanded query
HEADING_BONUS = 0.5           # a query term in the heading that opens a window counts this much more
IDF_POWER = 1.0               # window scoring: a term weighs idf ** IDF_POWER
WINDOW_PASSAGE_WEIGHT = 2.0   # a window's score: its query terms (idf) plus this much of its passage's relative BM25 score
_WORD = re.compile(r"\w+", re.UNICODE)
_AGGREGATE = re.compile(r"\b(which|list|how many|all|every|each|across|any)\b|어떤|어느|모든|몇|목록|전부", re.I)


# --- results -----------------------------------------------------------------------------------

@dataclass
class ContextItem:
    kind: str                       # "page" | "passage"
    ref: str                        # page slug, or "doc_id (chars start-end)"
    text: str                       # exactly what was put in the context
    spans: list[dict]               # [{"doc_id", "start", "end"}]: source spans carried verbatim in text

    def to_dict(self) -> dict:
        return {"kind": self.kind, "ref": self.ref, "text": self.text, "spans": [dict(s) for s in self.spans]}

    def block(self) -> str:
        """The item as rendered into the model's context (what the budget counts)."""
        head = f"[page [[{self.ref}]]]" if self.kind == "page" else f"[passage {self.ref}]"
        return f"{head}\n{self.text}"


@dataclass
class AskResult:
    question: str
    mode: str
    answer: str
    context: list[ContextItem]
    tokens: int                                  # tokens of the assembled context
    usage: dict | None = None                    # the answer's token usage (Claude backend)
    scope: dict | None = None                    # how the wiki scoped the question (diagnostics)

    def to_dict(self) -> dict:
        """The issue's schema: `tokens` is the context's token count; Claude's usage, when any, is `usage`."""
        d = {"question": self.question, "mode": self.mode, "answer": self.answer,
             "context": [c.to_dict() for c in self.context], "tokens": self.tokens}
        if self.usage:
            d["usage"] = self.usage
        return d

    def to_text(self) -> str:
        lines = [self.answer.rstrip(), ""]
        lines.append(f"-- context: {len(self.context)} items, {self.tokens} tokens ({self.mode})")
        for c in self.context:
            cites = ", ".join(f"{s['doc_id']} ({s['start']}-{s['end']})" for s in c.spans[:4])
            more = f" +{len(c.spans) - 4}" if len(c.spans) > 4 else ""
            lines.append(f"   {c.kind:7} {c.ref}  <- {cites}{more}")
        if self.usage:
            lines.append(f"-- answer usage: {self.usage}")
        return "\n".join(lines)


# --- context assembly --------------------------------------------------------------------------

@dataclass
class _Unit:
    """One candidate piece of context: a passage, or one quote of a page."""
    kind: str            # "passage" | "quote"
    doc_id: str
    start: int
    end: int
    text: str
    page: str = ""       # slug, for quotes
    label: str = ""      # heading / document title shown with a quote

    def key(self) -> tuple[str, int, int]:
        return (self.doc_id, self.start, self.end)


def _quote_header(u: _Unit) -> str:
    label = f" {u.label}" if u.label else ""
    return f"[{u.doc_id} chars {u.start}-{u.end}]{label}"


class ContextBuilder:
    """Greedy assembly of units under a token budget: quotes are grouped into one item per page
    (placed where the page's first quote came), passages are items of their own; the last passage
    that does not fit is trimmed to the rest of the budget. The final count is exact."""

    def __init__(self, counter: TokenCounter, budget: int, page_titles: dict[str, str] | None = None):
        self.counter = counter
        self.budget = max(0, int(budget))
        self.page_titles = page_titles or {}
        self.units: list[_Unit] = []
        self.used = 0
        self.full = False
        self._keys: set[tuple[str, int, int]] = set()
        self._pages_open: set[str] = set()
        self.docs: dict[str, int] = {}     # doc id -> units taken

    def covers(self, doc_id: str, start: int, end: int) -> bool:
        """Whether a unit already taken overlaps [start, end) in doc_id."""
        return any(u.doc_id == doc_id and u.start < end and start < u.end for u in self.units)

    def _cost(self, u: _Unit) -> int:
        if u.kind == "passage":
            return self.counter.count(f"[passage {u.doc_id} (chars {u.start}-{u.end})]\n{u.text}") + 2
        cost = self.counter.count(f"{_quote_header(u)}\n{u.text}") + 2
        if u.page not in self._pages_open:
            cost += self.counter.count(f"[page [[{u.page}]]]\n{self.page_titles.get(u.page, u.page)}") + 2
        return cost

    def add(self, u: _Unit, *, trim: bool = True) -> bool:
        """Take u if it fits (trimming a passage to the rest of the budget). False when it was not taken."""
        if self.full or u.key() in self._keys or not u.text.strip():
            return False
        if u.kind == "quote" and any(v.kind == "passage" and v.doc_id == u.doc_id and v.start <= u.start
                                     and u.end <= v.end for v in self.units):
            return False   # already carried by a passage
        cost = self._cost(u)
        if self.used + cost > self.budget:
            left = self.budget - self.used
            if not (trim and u.kind == "passage" and left >= MIN_TRIM_TOKENS):
                return False
            u = self._trim(u, left)
            if u is None:
                return False
            cost = self._cost(u)
            self.full = True
        self.units.append(u)
        self._keys.add(u.key())
        self.used += cost
        self.docs[u.doc_id] = self.docs.get(u.doc_id, 0) + 1
        if u.kind == "quote":
            self._pages_open.add(u.page)
        return True

    def _trim(self, u: _Unit, left: int) -> _Unit | None:
        """The longest prefix of the passage (cut at a sentence end or space) that fits in `left` tokens."""
        text = u.text
        frac = max(0.0, (left - 14) / max(1, self._cost(u)))
        n = int(len(text) * frac)
        while n > 40:
            cut = text[:n]
            m = max(cut.rfind(". "), cut.rfind(".\n"), cut.rfind("\n"))
            if m > n * 0.6:
                cut = cut[:m + 1]
            else:
                sp = cut.rfind(" ")
                if sp > n * 0.6:
                    cut = cut[:sp]
            cut = cut.rstrip()
            v = _Unit("passage", u.doc_id, u.start, u.start + len(cut), cut)
            if self._cost(v) <= left:
                return v
            n = int(n * 0.85)
        return None

    def items(self) -> list[ContextItem]:
        items: list[ContextItem] = []
        page_item: dict[str, tuple[int, list[_Unit]]] = {}
        for u in self.units:
            if u.kind == "passage":
                items.append(ContextItem("passage", f"{u.doc_id} (chars {u.start}-{u.end})", u.text,
                                         [{"doc_id": u.doc_id, "start": u.start, "end": u.end}]))
            elif u.page in page_item:
                page_item[u.page][1].append(u)
            else:
                page_item[u.page] = (len(items), [u])
                items.append(None)  # placeholder, filled below
        for slug, (pos, units) in page_item.items():
            parts = [self.page_titles.get(slug, slug)]
            for u in units:
                parts.append(f"{_quote_header(u)}\n{u.text}")
            items[pos] = ContextItem("page", slug, "\n\n".join(parts),
                                     [{"doc_id": u.doc_id, "start": u.start, "end": u.end} for u in units])
        return items

    def finish(self) -> tuple[list[ContextItem], int]:
        """The items and the exact token count of the assembled context (dropping the last units if the
        estimate was short, which it should not be)."""
        while True:
            items = self.items()
            n = self.counter.count(render_context(items)) if items else 0
            if n <= self.budget or not self.units:
                return items, n
            self.units.pop()


def render_context(items: Sequence[ContextItem]) -> str:
    return "\n\n".join(c.block() for c in items)


# --- the answerer ------------------------------------------------------------------------------

@dataclass
class Scope:
    kind: str                       # "collection" | "document" | ""
    pages: list[str] = field(default_factory=list)
    doc_ids: list[str] = field(default_factory=list)
    removed: set[str] = field(default_factory=set)   # query terms that named the scope
    phrase: list[str] = field(default_factory=list)  # for a collection: the title phrase the question used

    def to_dict(self) -> dict:
        return {"kind": self.kind, "pages": self.pages, "docs": len(self.doc_ids)}


class Answerer:
    """The opened wiki, corpus index and page index, for many questions in one process."""

    def __init__(self, index, pages: Sequence, *, page_index: PageIndex | None = None,
                 counter: TokenCounter | None = None, cache_dir: Path | None = None):
        self.index = index
        self.pages = {p.slug: p for p in pages}
        self.page_index = page_index or PageIndex.build(list(pages), cache_dir=cache_dir)
        self.counter = counter or default_counter()
        self.known_docs = {d.doc_id for d in index.documents()}
        self.page_titles = {p.slug: p.title for p in pages}
        # identity text of each document page: title, aliases, description, first quote, and the opening
        # of the document itself (where a document says what it is and who it is between)
        self._doc_page_of: dict[str, str] = {}
        self._head_terms: dict[str, set[str]] = {}
        self._head_postings: dict[str, list[str]] = {}
        for p in pages:
            if p.type != "document":
                continue
            for d in p.sources or []:
                self._doc_page_of.setdefault(d, p.slug)
            units = self.page_index.units_by_slug.get(p.slug) or []
            opening = ""
            for d in (p.sources or [])[:1]:
                try:
                    opening = index.texts.read(d, 0, OPENING_CHARS)
                except (KeyError, OSError):
                    opening = ""
            head = " ".join([p.title or "", *(p.aliases or []), p.description or "",
                             units[0].text if units else "", opening])
            ts = set(terms(head))
            self._head_terms[p.slug] = ts
            for t in ts:
                self._head_postings.setdefault(t, []).append(p.slug)
        self._head_df = {t: len(v) for t, v in self._head_postings.items()}
        # collection title terms that most collections share ("documents", "agreements") name no kind
        colls = [p for p in pages if p.type == "collection"]
        cdf: dict[str, int] = {}
        for p in colls:
            for t in set().union(*[set(terms(n)) for n in [p.title or "", *(p.aliases or [])]]):
                cdf[t] = cdf.get(t, 0) + 1
        self._coll_generic = {t for t, n in cdf.items() if len(colls) >= 4 and n >= len(colls) / 2}

    @classmethod
    def open(cls, wiki_root: Path, *, counter: TokenCounter | None = None, cache: bool = True) -> "Answerer":
        from wikigen.search.sources import open_wiki
        from wikigen.wiki.store import STATE_DIR

        wiki_root = Path(wiki_root)
        wiki = open_wiki(wiki_root)
        index = wiki.sources
        pages = wiki.pages()
        cache_dir = wiki_root / STATE_DIR / "page-index" if cache else None
        return cls(index, pages, counter=counter, cache_dir=cache_dir)

    # --- scope ---------------------------------------------------------------------------------

    def _phrase_in(self, name_terms: list[str], q_terms: list[str]) -> bool:
        n = len(name_terms)
        return n > 0 and any(q_terms[i:i + n] == name_terms for i in range(len(q_terms) - n + 1))

    def resolve_scope(self, question: str, hits=None) -> Scope:
        """Which documents the question names, through the wiki's document and collection pages."""
        q_seq = terms(question)
        q_set = set(q_seq)
        hits = hits if hits is not None else self.page_index.search(question, k=PAGE_HITS)
        # documents: the title named, plus rare identifying words of the document page's head
        doc_cands = []
        n_docs = max(1, len(self._head_terms))
        rare_df = max(1, min(RARE_DF, int(n_docs * 0.01)))
        # identifying words are written like names: not all lower case (capitals, digits, or an uncased script)
        names = {t for w in _WORD.findall(question) if not w.islower() for t in terms(w)}
        cand_slugs = [h.slug for h in hits if h.type == "document"]
        for t in q_set & names:
            if self._head_df.get(t, 0) <= rare_df:
                cand_slugs.extend(self._head_postings.get(t, []))
        score_of = {h.slug: h.score for h in hits}
        for slug in dict.fromkeys(cand_slugs):
            h = _Hit(slug, score_of.get(slug, 0.0))
            share, matched = self.page_index.title_match(h.slug, q_set)
            head = self._head_terms.get(h.slug, set())
            rare = {t for t in q_set & head & names if self._head_df.get(t, 0) <= rare_df and t not in matched}
            if len(rare) >= 2 or (rare and share >= 0.5) or (share >= 0.99 and len(matched) >= 3):
                strength = 2 * share + sum(math.log(n_docs / self._head_df.get(t, 1)) for t in rare)
                doc_cands.append((strength, h.score, h.slug, matched | rare))
        if doc_cands:
            doc_cands.sort(key=lambda c: (-c[0], -c[1]))
            best = doc_cands[0]
            chosen = [c for c in doc_cands if c[0] >= best[0] * 0.75][:MAX_DOC_SCOPE]
            docs, removed = [], set()
            for c in chosen:
                page = self.pages[c[2]]
                docs.extend(d for d in page.sources or [] if d in self.known_docs)
                removed |= c[3] | self.page_index.title_terms(c[2])
            if docs:
                return Scope("document", [c[2] for c in chosen], list(dict.fromkeys(docs)), removed & q_set)
        # collections: the title or an alias named as a phrase (or all its terms present); the best one
        coll = []
        for h in hits:
            if h.type != "collection":
                continue
            page = self.pages.get(h.slug)
            if page is None:
                continue
            names = [[t for t in terms(n) if t not in self._coll_generic] for n in [page.title or "", *(page.aliases or [])]]
            phrases = [n for n in names if n and self._phrase_in(n, q_seq)]
            share, matched = self.page_index.title_match(h.slug, q_set)
            matched -= self._coll_generic
            members = len(page.sources or []) or 1
            named_by = [t for t in (max(phrases, key=len) if phrases else matched)]
            if any(self._head_df.get(t, 0) > COMMON_KIND_RATIO * members for t in named_by):
                continue   # a word most of whose documents are not members does not name this kind
            if phrases or share >= 0.99:
                longest = max(phrases, key=len) if phrases else []
                coll.append((len(longest), share, h.score, h.slug, longest or sorted(matched)))
        if coll:
            coll.sort(key=lambda c: (-c[0], -c[1], -c[2]))
            for _, _, _, slug, phrase in coll[:1]:
                page = self.pages[slug]
                members = [d for d in page.sources or [] if d in self.known_docs]
                if not members:   # fall back on the member document pages it links to
                    for link in page.links():
                        lp = self.pages.get(link)
                        if lp is not None and lp.type == "document":
                            members.extend(d for d in lp.sources or [] if d in self.known_docs)
                if members:
                    return Scope("collection", [slug], list(dict.fromkeys(members)), set(phrase), phrase=list(phrase))
        return Scope("")

    @staticmethod
    def reduce_query(question: str, removed: set[str], phrase: Sequence[str] = ()) -> str:
        """The question without the words that named the scope: for a collection, the one place where
        its title phrase occurs (the same words elsewhere may be the subject); for documents, every
        word whose terms all named it. The question itself when nothing would be left."""
        if not removed:
            return question
        words = _WORD.findall(question)
        wterms = [terms(w) for w in words]
        drop: set[int] = set()
        if phrase:
            flat = [(i, t) for i, ts in enumerate(wterms) for t in ts]
            n = len(phrase)
            for j in range(len(flat) - n + 1):
                if [t for _, t in flat[j:j + n]] == list(phrase):
                    drop = {i for i, _ in flat[j:j + n]}
                    break
        else:
            drop = {i for i, ts in enumerate(wterms) if ts and set(ts) <= removed}
        reduced = " ".join(w for i, w in enumerate(words) if i not in drop)
        return reduced if terms(reduced) else question

    # --- candidates ----------------------------------------------------------------------------

    def _quote_unit(self, u: QuoteUnit) -> _Unit:
        return _Unit("quote", u.doc_id, u.start, u.end, u.text, page=u.slug, label=u.heading)

    def _valid(self, u: QuoteUnit) -> bool:
        return u.doc_id in self.known_docs and u.end > u.start

    def topic_quotes(self, query: str, hits, scope: Scope, *, extra_slugs: Iterable[str] = ()) -> list[_Unit]:
        """Quotes from the best topic pages (and extra pages), ranked by relevance to the query,
        one per document before a second from the same document."""
        slugs = [h.slug for h in hits if h.type == "topic"][:TOPIC_PAGES]
        slugs.extend(s for s in extra_slugs if s not in slugs)
        if not slugs:
            return []
        qhits = self.page_index.search_quotes(query, k=400, slugs=slugs,
                                              doc_ids=scope.doc_ids if scope.doc_ids else None)
        return _diversify([self._quote_unit(h.unit) for h in qhits if self._valid(h.unit)])

    def _idf(self, term: str) -> float:
        """BM25 idf of an analysed term over the corpus passages (1.0 when the index cannot say)."""
        cache = self.__dict__.setdefault("_idf_cache", {})
        if term not in cache:
            try:
                cache[term] = self.index.idf(term)
            except Exception:  # noqa: BLE001 - an index without statistics: every term weighs the same
                cache[term] = 1.0
        return cache[term]

    def scoped_passages(self, query: str, doc_ids: Sequence[str], per_doc: int = 3,
                        window: int | None = None, passages: int = SCOPE_PASSAGES,
                        expansion: dict[str, float] | None = None) -> list[list[_Unit]]:
        """Per round r: the r-th best unit of each in-scope document, documents ordered by their best
        score. Without `window` a unit is a whole passage (the r-th best passage). With `window`, the
        units are windows of whole sentences (about `window` characters) inside the document's best
        `passages` passages, ranked by the query terms they hold (idf-weighted), so a document's best
        unit is the clause that matches rather than the passage around it."""
        k_doc = max(per_doc, passages) if window else per_doc
        by_doc: dict[str, list] = {}
        if len(doc_ids) <= 40:
            for d in doc_ids:
                by_doc[d] = self.index.search(query, k=k_doc, doc_ids=[d])
        else:
            for h in self.index.search(query, k=min(2000, k_doc * len(doc_ids)), doc_ids=doc_ids):
                lst = by_doc.setdefault(h.doc_id, [])
                if len(lst) < k_doc:
                    lst.append(h)
        order = sorted((d for d in by_doc if by_doc[d]), key=lambda d: -by_doc[d][0].score)
        units_of: dict[str, list[_Unit]] = {}
        if window:
            weights = {t: self._idf(t) ** IDF_POWER for t in dict.fromkeys(terms(query))}
            for t, w in (expansion or {}).items():
                weights.setdefault(t, w)
            if expansion and PRF_SEARCH:
                extra = self.index.search(query + " " + " ".join(expansion), k=min(2000, PRF_SEARCH * len(doc_ids)),
                                          doc_ids=doc_ids)
                for h in extra:
                    lst = by_doc.setdefault(h.doc_id, [])
                    if len(lst) < k_doc + PRF_SEARCH and all(h.start != g.start for g in lst):
                        lst.append(h)
                order = sorted((d for d in by_doc if by_doc[d]), key=lambda d: -by_doc[d][0].score)
            for d in order:
                top = by_doc[d][0].score or 1.0
                cands = []
                for rank, h in enumerate(by_doc[d]):
                    for a, b, sc in sentence_windows(h.text, weights, window):
                        cands.append((sc + WINDOW_PASSAGE_WEIGHT * h.score / top, -rank, h, a, b))
                cands.sort(key=lambda c: (-c[0], -c[1]))
                picked: list[_Unit] = []
                for _, _, h, a, b in cands:
                    s0, e0 = h.start + a, h.start + b
                    if any(u.start < e0 and s0 < u.end for u in picked):
                        continue
                    picked.append(_Unit("passage", h.doc_id, s0, e0, h.text[a:b]))
                    if len(picked) >= per_doc:
                        break
                units_of[d] = picked
            order = sorted(order, key=lambda d: -(len(units_of[d]) > 0))
        else:
            for d in order:
                units_of[d] = [_Unit("passage", h.doc_id, h.start, h.end, h.text) for h in by_doc[d][:per_doc]]
        rounds = []
        for r in range(per_doc):
            rounds.append([units_of[d][r] for d in order if len(units_of[d]) > r])
        return rounds

    def expansion_terms(self, query: str, hits) -> dict[str, float]:
        """Pseudo-relevance feedback from the wiki: the topic pages the query names (title/aliases) quote
        the subject in many documents; the terms most of those quotes share (weighted by idf), which the
        query lacks, with a lower weight than the query's own terms. Finds clauses phrased differently."""
        if not PRF_TERMS:
            return {}
        q_set = set(terms(query))
        named = []
        for h in hits:
            if h.type != "topic":
                continue
            share, matched = self.page_index.title_match(h.slug, q_set)
            weight = sum(self._idf(t) for t in matched)
            if share >= 0.5 and weight >= PRF_MIN_IDF:   # a topic named by common words only says little
                named.append((-weight, -h.score, h.slug))
        slugs = [s for _, _, s in sorted(named)[:PRF_TOPICS]]
        quotes = [u for s in slugs for u in self.page_index.units_by_slug.get(s, [])]
        if len(quotes) < 3:
            return {}
        qdf: dict[str, int] = {}
        for u in quotes:
            for t in set(terms(u.text)):
                qdf[t] = qdf.get(t, 0) + 1
        cands = []
        for t, n in qdf.items():
            if t in q_set or n < max(2, PRF_MIN_SHARE * len(quotes)) or not t.isalpha():
                continue
            idf = self._idf(t)
            cands.append((n / len(quotes) * idf, t, idf))
        cands.sort(reverse=True)
        return {t: PRF_WEIGHT * idf ** IDF_POWER for _, t, idf in cands[:PRF_TERMS]}

    def _open_docs(self, query: str) -> list[str]:
        """The documents of the best passages for the query, best first (at most OPEN_DOCS)."""
        out: dict[str, None] = {}
        for h in self.index.search(query, k=OPEN_SEARCH_K):
            out.setdefault(h.doc_id, None)
            if len(out) >= OPEN_DOCS:
                break
        return list(out)

    def search_units(self, query: str, k: int, doc_ids=None) -> list[_Unit]:
        return [_Unit("passage", h.doc_id, h.start, h.end, h.text) for h in self.index.search(query, k=k, doc_ids=doc_ids)]

    # --- modes ---------------------------------------------------------------------------------

    def retrieve(self, question: str, mode: str = "wiki+search", budget: int = DEFAULT_BUDGET
                 ) -> tuple[list[ContextItem], int, Scope]:
        if mode not in MODES:
            raise WikigenError(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")
        cb = ContextBuilder(self.counter, budget, self.page_titles)
        k = max(10, budget // 100 + 10)
        scope = Scope("")
        if mode == "search":
            for u in self.search_units(question, k):
                cb.add(u)
            items, n = cb.finish()
            return items, n, scope
        hits = self.page_index.search(question, k=PAGE_HITS)
        scope = self.resolve_scope(question, hits)
        query = self.reduce_query(question, scope.removed, scope.phrase)
        if mode == "wiki":
            self._fill_wiki(cb, question, query, hits, scope)
        else:
            self._fill_wiki_search(cb, query, hits, scope, k, question=question)
            self._fill_rest(cb, question, k)
        items, n = cb.finish()
        return items, n, scope

    def _fill_rest(self, cb: ContextBuilder, question: str, k: int) -> None:
        """Search fills what the wiki's scope left of the budget: the question's best passages anywhere,
        whole (never trimmed, so a filled context costs no more than the search baseline's), none
        overlapping what is already there. A scope that was too narrow then costs nothing."""
        for u in self.search_units(question, k):
            if cb.full or cb.used >= cb.budget:
                break
            if not cb.covers(u.doc_id, u.start, u.end):
                cb.add(u, trim=False)

    def _linked_slugs(self, hits, scope: Scope) -> list[str]:
        """Pages reached by following links from the best pages: a scope page's member document pages,
        and the document pages that the best collection pages list."""
        out: list[str] = []
        for slug in scope.pages:
            page = self.pages.get(slug)
            if page is not None and page.type == "document":
                out.append(slug)
        for d in scope.doc_ids:
            s = self._doc_page_of.get(d)
            if s:
                out.append(s)
        for h in hits[:3]:
            if h.type == "collection" and not scope.doc_ids:
                out.extend(l for l in self.pages[h.slug].links() if l in self.pages)
        return list(dict.fromkeys(out))

    def _fill_wiki(self, cb: ContextBuilder, question: str, query: str, hits, scope: Scope) -> None:
        linked = self._linked_slugs(hits, scope)
        for u in self.topic_quotes(query, hits, scope, extra_slugs=linked):
            cb.add(u)
        if not cb.units:  # nothing on the best pages matched: any page's quotes that match
            qhits = self.page_index.search_quotes(query, k=200, doc_ids=scope.doc_ids or None)
            for u in _diversify([self._quote_unit(h.unit) for h in qhits if self._valid(h.unit)]):
                cb.add(u)

    def _fill_wiki_search(self, cb: ContextBuilder, query: str, hits, scope: Scope, k: int, *,
                          question: str | None = None) -> None:
        linked = [s for s in self._linked_slugs(hits, scope) if scope.doc_ids]
        quote_cap = int(cb.budget * MAX_QUOTE_SHARE)
        if scope.doc_ids:
            # only topics the query names well (title/alias) speak for a clause inside a scope
            q_set = set(terms(query))
            named = [h for h in hits if h.type != "topic" or self.page_index.title_match(h.slug, q_set)[0] >= 0.5]
            quotes = self.topic_quotes(query, named, scope, extra_slugs=linked)
            quote_cap = int(cb.budget * (SCOPED_QUOTE_SHARE if len(scope.doc_ids) > MAX_DOC_SCOPE else DOC_QUOTE_SHARE))
        else:
            quotes = self.topic_quotes(query, hits, scope, extra_slugs=linked)
        if scope.doc_ids:
            # (b) topic quotes within the scope, one per document first (at most half the budget)
            for u in quotes:
                if cb.used >= quote_cap:
                    break
                if cb.docs.get(u.doc_id, 0) == 0 or len(scope.doc_ids) <= MAX_DOC_SCOPE:
                    cb.add(u, trim=False)
            # (c) each in-scope document's best passage not already covered, then second-best, ...
            many = len(scope.doc_ids) > MAX_DOC_SCOPE
            rounds = self.scoped_passages(query, scope.doc_ids, per_doc=max(2, min(12, k // max(1, len(scope.doc_ids)))),
                                          window=WINDOW_CHARS if many else None,
                                          expansion=self.expansion_terms(query, hits) if many else None)
            first = rounds[0] if rounds else []
            for u in first:
                if cb.docs.get(u.doc_id, 0) == 0:
                    cb.add(u)
            for u in first:
                cb.add(u)
            for rnd in rounds[1:]:
                for u in rnd:
                    cb.add(u)
            for u in quotes:   # room left: the rest of the quotes
                cb.add(u, trim=False)
            return
        # (d) no scope: topic quotes and search, interleaved; search gives many documents one short
        # window each (the best first), then second windows
        if OPEN_WINDOW_CHARS and looks_aggregate(question or query, scope):
            docs = self._open_docs(query)
            rounds = self.scoped_passages(query, docs, per_doc=OPEN_PER_DOC, window=OPEN_WINDOW_CHARS,
                                          passages=OPEN_PASSAGES, expansion=self.expansion_terms(query, hits)) if docs else []
            passages = [u for rnd in rounds for u in rnd]
        else:
            passages = self.search_units(query, k)
        qi = pi = 0
        while (qi < len(quotes) or pi < len(passages)) and not cb.full:
            if qi < len(quotes) and cb.used < quote_cap:
                cb.add(quotes[qi], trim=False)
                qi += 1
            elif qi < len(quotes) and pi >= len(passages):
                cb.add(quotes[qi], trim=False)
                qi += 1
            if pi < len(passages):
                cb.add(passages[pi])
                pi += 1

    # --- answering -----------------------------------------------------------------------------

    def ask(self, question: str, *, mode: str = "wiki+search", budget: int = DEFAULT_BUDGET,
            claude=None) -> AskResult:
        if not isinstance(question, str) or not question.strip():
            raise WikigenError("the question is empty")
        items, n, scope = self.retrieve(question, mode, budget)
        usage = None
        if claude is not None:
            text, tu = claude.answer(question, [c.block() for c in items])
            usage = tu.to_dict() if hasattr(tu, "to_dict") else dict(tu)
            answer = text
        else:
            answer = extractive_answer(question, items, scope)
        return AskResult(question, mode, answer, items, n, usage, scope.to_dict())


@dataclass
class _Hit:
    slug: str
    score: float


def _diversify(units: Sequence[_Unit]) -> list[_Unit]:
    """Keep the order, but one unit per document first, then a second per document, and so on
    (and never the same span twice)."""
    seen: set = set()
    rounds: list[list[_Unit]] = []
    per_doc: dict[str, int] = {}
    for u in units:
        if u.key() in seen:
            continue
        seen.add(u.key())
        r = per_doc.get(u.doc_id, 0)
        per_doc[u.doc_id] = r + 1
        while len(rounds) <= r:
            rounds.append([])
        rounds[r].append(u)
    return [u for rnd in rounds for u in rnd]


def looks_aggregate(question: str, scope: Scope | None = None) -> bool:
    if scope is not None and scope.kind == "document":
        return False
    return (scope is not None and scope.kind == "collection") or bool(_AGGREGATE.search(question))


_SENT = re.compile(r"[^\n.!?。！？]+(?:[.!?。！？]+|\n|$)")


_LEAD = re.compile(r"^\W*(?:[\dA-Za-z]{1,3}[.)]\s*){0,3}([^\n.:]{1,60}?)(?:\.|:|\n)\s*\S")


def _lead(sentence: str) -> str:
    """A window's heading: the short run of words that opens its first sentence ("7.3 Audit Rights.",
    "ARTICLE 9 - TERMINATION"), after a clause number ('' when the sentence has no short lead)."""
    m = _LEAD.match(sentence)
    if not m:
        return ""
    lead = m.group(1).strip()
    return lead if 0 < len(lead) <= 60 and len(lead.split()) <= 8 else ""


def sentence_windows(text: str, weights: dict[str, float], width: int) -> list[tuple[int, int, float]]:
    """Windows of consecutive whole sentences of text (each at most about `width` characters, or one
    longer sentence), with their score: the idf weights of the query terms they hold, a little more
    for a repeated term. Only windows that hold a query term."""
    sents = sentences(text)
    if not sents:
        return []
    sterms = [terms(text[a:b]) for a, b in sents]
    heads = [set(terms(_lead(text[a:b]))) if HEADING_BONUS else set() for a, b in sents]
    out = []
    for i in range(len(sents)):
        counts: dict[str, int] = {}
        bonus = HEADING_BONUS * sum(weights.get(t, 0.0) for t in heads[i])
        j = i
        while j < len(sents) and (j == i or sents[j][1] - sents[i][0] <= width):
            for t in sterms[j]:
                if t in weights:
                    counts[t] = counts.get(t, 0) + 1
            j += 1
            score = sum(weights[t] * (1 + 0.25 * math.log(n)) for t, n in counts.items()) + bonus
            if score > 0:
                out.append((sents[i][0], sents[j - 1][1], score))
    return out


def best_excerpt(text: str, q_terms: set[str], width: int = 300) -> tuple[int, int]:
    """(start, end) in text of the sentence (or line) sharing the most terms with the question,
    widened with its neighbours up to about `width` characters."""
    sents = [(m.start(), m.end()) for m in _SENT.finditer(text) if m.group().strip()]
    if not sents:
        return 0, min(len(text), width)
    scores = [len(set(terms(text[a:b])) & q_terms) for a, b in sents]
    i = max(range(len(sents)), key=lambda k: (scores[k], -k))
    a, b = sents[i]
    lo, hi = i, i
    while b - a < width and (lo > 0 or hi < len(sents) - 1):
        if hi < len(sents) - 1 and sents[hi + 1][1] - a <= width:
            hi += 1
            b = sents[hi][1]
        elif lo > 0 and b - sents[lo - 1][0] <= width:
            lo -= 1
            a = sents[lo][0]
        else:
            break
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


def extractive_answer(question: str, items: Sequence[ContextItem], scope: Scope | None = None, n: int = 5) -> str:
    """The most relevant quotes/passages with their citations (the passage's most relevant sentences,
    cited by their own span; and, for a question about many documents, the list of documents found)."""
    if not items:
        return "Nothing in the wiki or the corpus matches this question."
    q_terms = set(terms(question))
    lines = ["Most relevant sources:"]
    shown = 0
    for c in items:
        for sp in c.spans:
            if shown >= n:
                break
            start, end = sp["start"], sp["end"]
            if c.kind == "page":
                src = _span_text_in(c.text, sp) or ""
                where = f" (from page [[{c.ref}]])"
            else:
                a, b = best_excerpt(c.text, q_terms)
                src, where = c.text[a:b], ""
                start, end = sp["start"] + a, sp["start"] + b
            src = " ".join(src.split())
            if len(src) > 400:
                src = src[:397].rstrip() + "..."
            shown += 1
            lines.append(f'{shown}. "{src}" -- {sp["doc_id"]} (chars {start}-{end}){where}')
    if looks_aggregate(question, scope):
        docs = list(dict.fromkeys(sp["doc_id"] for c in items for sp in c.spans))
        lines.append("")
        lines.append(f"Documents found ({len(docs)}): " + ", ".join(docs))
    return "\n".join(lines)


def _span_text_in(page_text: str, sp: dict) -> str | None:
    head = f"[{sp['doc_id']} chars {sp['start']}-{sp['end']}]"
    i = page_text.find(head)
    if i < 0:
        return None
    j = page_text.find("\n", i)
    if j < 0:
        return None
    k = page_text.find("\n\n[", j + 1)
    return page_text[j + 1: k if k >= 0 else len(page_text)]


# --- the functions the CLI calls ---------------------------------------------------------------

_ANSWERERS: dict[str, Answerer] = {}


def get_answerer(wiki: Path) -> Answerer:
    """One Answerer per wiki per process."""
    key = str(Path(wiki).resolve())
    if key not in _ANSWERERS:
        _ANSWERERS[key] = Answerer.open(Path(wiki))
    return _ANSWERERS[key]


def ask_one(question: str, *, wiki: Path, mode: str = "wiki+search", budget: int = DEFAULT_BUDGET,
            claude=None) -> AskResult:
    return get_answerer(wiki).ask(question, mode=mode, budget=budget, claude=claude)


def _read_questions(path: Path) -> list[dict]:
    path = Path(path)
    if not path.is_file():
        raise WikigenError(f"no questions file at {path}")
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        try:
            q = json.loads(line)
        except json.JSONDecodeError:
            q = {"question": line}       # a plain line is a question too
        if isinstance(q, str):
            q = {"question": q}
        if not isinstance(q, dict) or not isinstance(q.get("question"), str) or not q["question"].strip():
            raise WikigenError(f"{path}:{n}: each line needs a 'question'")
        q.setdefault("id", f"q{n}")
        out.append(q)
    return out


def ask_batch(questions_path: Path, out_path: Path, *, wiki: Path, mode: str = "wiki+search",
              budget: int = DEFAULT_BUDGET, claude=None) -> int:
    """Answer every question of a .jsonl in one process; one JSON object a line, with the question's id."""
    questions = _read_questions(Path(questions_path))
    answerer = get_answerer(wiki)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with open(out_path, "w", encoding="utf-8") as f:
        for q in questions:
            t0 = time.perf_counter()
            r = answerer.ask(q["question"], mode=mode, budget=budget, claude=claude)
            row = {"id": q["id"], **r.to_dict(), "latency_ms": round((time.perf_counter() - t0) * 1000, 2)}
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    return n
