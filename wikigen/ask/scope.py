"""Scope: which documents a question names, through the wiki's document and collection pages.

A question names a *document* strongly by its page's title or aliases plus rare identifying words
of the document's identity text (title, aliases, description, first quote and the opening of the
document itself: where a document says what it is and who it is between), or by a word of its file
name (its doc id) that no other document's file name holds ("the ResConnect NDA" for
`nda-resconnect.pdf`: people call a document by the name they filed it under, which its text may
never say) together with its title or half its file name; it names a *collection*
(a kind of document) by the collection page's title or an alias used as a phrase, and a *member* of it by the
collection's phrase plus a word that names few of its members ("the FibroGen collaboration agreement", "our
supply agreement with netgear": the kind narrows the name, in any case, whatever the corpus's size); and it names a
*series* when, asking over periods, it names the company or other name whose dated reports are the only
documents using it (wikigen.ask.periods: "How has Northwind's revenue changed?"). Where these rules by term
find no document (or a kind but none of its members), the question's name-like words are linked to the
documents' catalogue, their names, the parties and short names their openings define (search/facts) and their
file names, as people write them: in lower case, run together ("adams golf" for adamsgolfinc), the start of the
name a document is filed under ("thrivent"), one letter wrong ("Kriomic" for Kiromic, when no document holds
the word), never a place ("Florida law"). The words that named the scope are then removed from the query used
inside it (`reduce_query`).
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from wikigen.ask.page_index import PageIndex, terms
from wikigen.ask.params import DEFAULT_PARAMS, RetrievalParams
from wikigen.ask.periods import WORD, SeriesResolver, question_names
from wikigen.core.text import one_edit_spellings, without_particle
from wikigen.search.facts.parties import find_parties, find_terms
from wikigen.search.values.jurisdictions import find_jurisdiction_values


@dataclass
class Scope:
    kind: str  # "collection" | "document" | "series" (the reports of a name, over their periods) | ""
    pages: list[str] = field(default_factory=list)
    doc_ids: list[str] = field(default_factory=list)
    removed: set[str] = field(default_factory=set)  # query terms that named the scope
    phrase: list[str] = field(default_factory=list)  # for a collection: the title phrase the question used
    rare: set[str] = field(default_factory=set)  # for documents: the identifying words that named them

    def to_dict(self) -> dict:
        return {"kind": self.kind, "pages": self.pages, "docs": len(self.doc_ids)}


class DocCandidate(NamedTuple):
    """A document page the question may name."""

    strength: float  # 2 x title share + the log-rarity of the identifying words
    score: float  # the page's search score for the question (0 when found by a rare word only)
    slug: str
    named_by: set[str]  # the question's terms that named it
    rare: set[str]  # ... of which the words that identify it (in at most rare_df pages' identity text)


class CollectionCandidate(NamedTuple):
    """A collection page the question may name."""

    phrase_len: int  # terms in the longest title/alias phrase the question holds
    share: float  # idf-weighted share of its title terms the question holds
    score: float  # the page's search score for the question
    slug: str
    phrase: list[str]  # the phrase (or the matched title terms, sorted)


_PARTY_SPLIT = re.compile(r"\s+(?:and|between)\s+|;|\n", re.I)
_LEGAL_FORMS = frozenset(
    ["inc", "incorporated", "llc", "ltd", "limited", "corp", "co", "plc", "lp", "llp", "sa", "ag", "gmbh", "nv", "bv"]
)


# the short name a document defines for a party or itself: Xencor, Inc. ("Xencor"), ... (the "Lessor")
_SHORT_NAME = re.compile(r"\(\s*(?:the\s+|each\s+a\s+)?[\"“”']([^\"“”'()\n]{2,40})[\"“”']\s*\)")
# a name in capitals bracketed alone ("INTERNATIONAL TEST SYSTEMS, INC. (ITS)"), every quoted name in capitals of a
# short bracket ('("Repairer", "ATR")'), and a name given by "hereinafter" without brackets ('JSC Karakudukmunay,
# hereinafter referred to as the "Principal"')
_BRACKET = re.compile(r"\(([^()\n]{2,120})\)")
_QUOTED_NAME = re.compile(r"[\"“”']([^\"“”'()\n]{2,40})[\"“”']")
_CAPS_ALONE = re.compile(r"\(\s*([A-Z][A-Z0-9&]{1,11})\s*\)")
_HEREINAFTER = re.compile(
    r"\bhereinafter(?:\s+(?:referred\s+to|called|named|designated))?(?:\s+as)?\s+(?:the\s+)?[\"“”']?"
    r"([A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3})"
)
# pronouns are no names ("(ITS)" is one in lower case); in capitals a question's word may still name the document
# that defines it so (`_capital_names`)
_PRONOUNS = frozenset(
    ["i", "me", "my", "we", "us", "our", "ours", "you", "your", "yours", "it", "its", "they", "them", "their"]
)


def _short_names(opening: str) -> list[str]:
    """The short names a document's opening defines ("Xencor, Inc. ("Xencor")" gives "Xencor"; a name in capitals
    bracketed alone, a name "hereinafter" gives, unless a pronoun), and the parties it names with theirs ('RMF
    Empire, Inc. (hereinafter "WCC")'), by the grammar of parties (search/facts)."""
    more = [m.group(1) for m in _CAPS_ALONE.finditer(opening)] + [m.group(1) for m in _HEREINAFTER.finditer(opening)]
    return (
        [m.group(1) for m in _SHORT_NAME.finditer(opening)]
        + [n for n in dict.fromkeys(more) if n.casefold() not in _PRONOUNS]
        + [m.value for m in find_parties(opening, within=len(opening))]
    )


def _capital_names(opening: str) -> set[str]:
    """The short names an opening defines in capitals, one word each ("ATR", "ITS", "CELEBRITY"): written so in a
    question they name the documents that define them, though the word in lower case is a pronoun or any word."""
    said = [m.group(1) for m in _CAPS_ALONE.finditer(opening)]
    for b in _BRACKET.finditer(opening):
        said += [m.group(1) for m in _QUOTED_NAME.finditer(b.group(1))]
    return {n for n in said if n.isupper() and n.isalnum() and len(n) <= 12}


def _initials(text: str) -> list[str]:
    """The initials of each party a text names ("Florida Chemical Company, LLC" gives "FCCL" and "FCC", "Kingdom
    Connect, Inc." gives "KCI" and "KC"): people call a party by them."""
    out = []
    for part in _PARTY_SPLIT.split(text):
        words = [w for w in re.findall(r"[A-Za-z][\w&'-]*", part) if w[0].isupper() and w.casefold() != "between"]
        if len(words) < 2:
            continue
        out.append("".join(w[0] for w in words))
        core = [w for w in words if w.casefold() not in _LEGAL_FORMS]
        if 2 <= len(core) < len(words):
            out.append("".join(w[0] for w in core))
    return out


def _plural_of(question: str, kind_terms: set[str]) -> bool:
    """Whether the question writes a word of a kind's name in the plural ("Supply agreements", "licenses"): it
    asks about the kind's members, not one of them. A plural before another word of the kind's name modifies it
    ("the PFS services agreement", "a sales agreement"): the head of the phrase says how many."""
    words = WORD.findall(question)
    for i, w in enumerate(words):
        low = w.casefold()
        if (
            low.endswith("s")
            and not low.endswith("ss")
            and (t := terms(w))
            and t == terms(w[:-1])
            and t[0] in kind_terms
            and not (i + 1 < len(words) and set(terms(words[i + 1])) & kind_terms)
        ):
            return True
    return False


def _phrase_in(name_terms: list[str], q_terms: list[str]) -> bool:
    n = len(name_terms)
    return n > 0 and any(q_terms[i : i + n] == name_terms for i in range(len(q_terms) - n + 1))


def _past_first_word(question: str) -> str:
    """The question without the first word of each sentence: a capital there says nothing of a name."""
    return re.sub(r"(?:^|(?<=[.?!:;]))\s*\S+", " ", question)


class _Unranked(NamedTuple):
    """A collection page the page search did not rank for the question."""

    slug: str
    score: float = 0.0
    type: str = "collection"


class ScopeResolver:
    """The identity text of every document page and the collection pages' names, to resolve scopes."""

    def __init__(
        self,
        index,
        pages: Sequence,
        page_index: PageIndex,
        known_docs: set[str],
        params: RetrievalParams = DEFAULT_PARAMS,
        vocabulary: tuple[frozenset[str], tuple[str, ...]] = (frozenset(), ()),
    ):
        self.pages = {p.slug: p for p in pages}
        self.vocabulary = vocabulary  # the schemas' words (search.values.schema.vocabulary): they name no document
        # ... those of an uncased script (Korean), of two characters or more: a word opening with one is theirs
        self._uncased_vocabulary = tuple(
            w for w in vocabulary[0] if len(w) >= 2 and w.lower() == w.upper() and any(c.isalpha() for c in w)
        )
        self.page_index = page_index
        self.known_docs = known_docs
        self.params = params
        self.doc_page_of: dict[str, str] = {}  # doc id -> its document page
        self._head_terms: dict[str, set[str]] = {}
        self._head_postings: dict[str, list[str]] = {}
        self._id_terms: dict[str, set[str]] = {}  # slug -> the terms of its documents' ids (file names)
        self._name_terms: dict[str, set[str]] = {}  # slug -> what names it: title, aliases, description, file name
        self._id_postings: dict[str, list[str]] = {}
        self._lowered: set[str] = set()  # terms the identity texts write in lower case somewhere (not names)
        self._lowered_words: set[str] = set()  # ... and the words so written, whole ("change", not "chang")
        self._catalogue: dict[str, set[str]] = {}  # a word of a document's names or file name, as written -> slugs
        self._filed: dict[str, set[str]] = {}  # a word of a document's file name (its id) -> slugs
        self._joined: dict[str, set[str]] = {}  # two capitalised words of a document's names, run together -> slugs
        self._capitals: dict[str, set[str]] = {}  # a short name an opening defines in capitals ("ATR", "ITS") -> slugs
        defined = {p.slug: self._add_document_page(index, p) for p in pages if p.type == "document"}
        # slug -> the terms its opening defines, every one (the role a party is given: ("Carrier"), ("CELEBRITY")):
        # among a kind's members such a term names the few that define it (`_named_member`)
        self._defined = {slug: {t for term in said for t in terms(term)} for slug, said in defined.items()}
        # the other terms a document's opening defines are its names when no identity text writes them in lower
        # case ('("Excite@Home" or "Excite")'), not words of the language ('(the "Affiliates")')
        for slug, said_terms in defined.items():
            for term in said_terms:
                said = terms(term)
                if said and not any(t in self._lowered for t in said):
                    self._name_terms[slug].update(said)
                    for w in WORD.findall(term.casefold()):
                        self._catalogue.setdefault(w, set()).add(slug)
        self._head_df = {t: len(v) for t, v in self._head_postings.items()}
        self._name_df: dict[str, int] = {}  # how many document pages' names hold a term
        for ts in self._name_terms.values():
            for t in ts:
                self._name_df[t] = self._name_df.get(t, 0) + 1
        self._id_df = {t: len(v) for t, v in self._id_postings.items()}
        self._filed_words = sorted(self._filed)  # to find the file-name words a question's word begins
        # a title several documents share ("SUPPLY AGREEMENT") names a kind of document, not one document
        titles: dict[frozenset, int] = {}
        for slug in self._head_terms:
            key = frozenset(page_index.title_terms(slug))
            titles[key] = titles.get(key, 0) + 1
        self._shared_title = {slug for slug in self._head_terms if titles[frozenset(page_index.title_terms(slug))] > 1}
        # collection title terms that most collections share ("documents", "agreements") name no kind
        colls = [p for p in pages if p.type == "collection"]
        self._collections = [p.slug for p in colls]
        cdf: dict[str, int] = {}
        for p in colls:
            for t in set().union(*[set(terms(n)) for n in [p.title or "", *(p.aliases or [])]]):
                cdf[t] = cdf.get(t, 0) + 1
        self._coll_generic = {t for t, n in cdf.items() if len(colls) >= 4 and n >= len(colls) / 2}
        self._kind_terms = set(cdf)  # the words that name kinds of document ("supply"), not a document
        self.series = SeriesResolver(known_docs, index.texts.text)

    def _add_document_page(self, index, p) -> list[str]:
        """Index a document page's identity text and names; the terms its opening defines (search/facts), which
        count as names once every page's lower-case words are known."""
        for d in p.sources or []:
            self.doc_page_of.setdefault(d, p.slug)
        units = self.page_index.units_by_slug.get(p.slug) or []
        opening = ""
        for d in (p.sources or [])[:1]:
            try:
                opening = index.texts.read(d, 0, self.params.opening_chars)
            except (KeyError, OSError):
                opening = ""
        head = " ".join(
            [p.title or "", *(p.aliases or []), p.description or "", units[0].text if units else "", opening]
        )
        ts = set(terms(head))
        lowered = [w for w in WORD.findall(head) if w.islower()]
        self._lowered.update(t for w in lowered for t in terms(w))
        self._lowered_words.update(lowered)
        self._head_terms[p.slug] = ts
        for t in ts:
            self._head_postings.setdefault(t, []).append(p.slug)
        ids = set(terms(" ".join(p.sources or [])))
        self._id_terms[p.slug] = ids
        short = _short_names(opening)
        for n in _capital_names(opening):
            self._capitals.setdefault(n, set()).add(p.slug)
        names = "\n".join([p.title or "", *(p.aliases or []), p.description or "", *short])
        self._name_terms[p.slug] = ids | set(terms(names)) | set(terms(" ".join(_initials(names))))
        for t in ids:
            self._id_postings.setdefault(t, []).append(p.slug)
        for w in WORD.findall(" ".join(p.sources or []).casefold()):
            self._filed.setdefault(w, set()).add(p.slug)
            self._catalogue.setdefault(w, set()).add(p.slug)
        for w in WORD.findall(names.casefold()):
            self._catalogue.setdefault(w, set()).add(p.slug)
        for line in names.splitlines():  # two capitalised words of a name run together ("Veoneer AB": "VeoneerAB")
            said = WORD.findall(line)
            for a, b in itertools.pairwise(said):
                if a[:1].isupper() and b[:1].isupper():
                    self._joined.setdefault((a + b).casefold(), set()).add(p.slug)
        return [m.value for m in find_terms(opening)]

    def resolve(self, question: str, hits) -> Scope:
        """The scope of a question, given the page hits for it: documents first, else a collection; but a
        collection the question names by a phrase wins over documents it names only by scattered title words."""
        q_seq = terms(question)
        docs = self._document_scope(question, set(q_seq) | self._bare_terms(question), hits)
        if docs is not None and not self._title_words_only(docs, q_seq):
            return docs
        if docs is None and (series := self._series_scope(question)) is not None:
            return series
        coll = self._collection_scope(q_seq, hits)
        if docs is not None and (coll is None or not coll.phrase):
            return docs
        if coll is None and docs is None and (series := self._named_series(question)) is not None:
            return series
        linked = self._linked(question)
        q_set = set(q_seq) | self._bare_terms(question)
        member = self._named_member(question, coll, linked) if coll is not None else None
        # a member named only by words that name kinds of document ("supply") yields to a name of documents outside
        # the kind ("our Hanbit supply contract": Hanbit's are Korean contracts, not members of "contract", while
        # Orrin's supply agreement is); a member named by a name stays ("Pizza Fusion" over Fusion Pharmaceuticals)
        outside = coll is not None and linked and not set(coll.doc_ids).intersection(self._sources(linked))
        yields = outside and (member is None or member.rare <= self._kind_terms)
        if yields and (named := self._linked_scope(linked, q_set)) is not None:
            return named
        if member is not None:
            return member
        return coll or self._linked_scope(linked, q_set) or Scope("")

    def _sources(self, slugs) -> list[str]:
        """The known documents of these document pages, each once, in the pages' order."""
        return list(dict.fromkeys(d for s in slugs for d in self.pages[s].sources or [] if d in self.known_docs))

    def _linked_scope(self, linked: dict[str, set[str]], q_set: set[str]) -> Scope | None:
        """The documents a question names only by words of their catalogue (`_linked`), when it names no kind:
        those named by the most of its words, if max_doc_scope or fewer; of those, not one whose title or file name
        the question says only in part of what it says of another's ("한빛전자 공급계약" is the supply contract, not
        the NDA: both titles say 계약, one also 공급; "our Hanbit supply contract" is not hanbit-supply-amendment-1)."""
        if not linked:
            return None
        most = max(len(w) for w in linked.values())
        chosen = [slug for slug, w in linked.items() if len(w) == most]
        rest = q_set - set().union(*(linked[s] for s in chosen))  # the words that did not name them
        said = {s: self.page_index.title_match(s, rest)[1] | (rest & self._id_terms.get(s, set())) for s in chosen}
        chosen = [s for s in chosen if not any(said[s] < said[o] for o in chosen)]
        docs = self._sources(chosen)
        if len(chosen) > self.params.max_doc_scope or not docs:
            return None
        words = set().union(*(linked[s] | said[s] for s in chosen))
        return Scope("document", chosen, docs, words, rare=words)

    def _named_member(self, question: str, coll: Scope, linked: dict[str, set[str]]) -> Scope | None:
        """The members of a named collection that the question also names by a word of their names (title,
        aliases, description with its parties, file name) held by at most max_doc_scope of the members: "the FibroGen
        collaboration agreement" is the Collaboration agreement whose name says FibroGen. Any case ("netgear"):
        among a kind's members a rare word of their names is a name. Words of the kind's phrase and the schemas'
        own words name no member. None when the question names the kind in the plural ("Which Marketing agreements
        ...?" asks about them all), or no word narrows the collection to max_doc_scope pages or fewer."""
        pages = list(dict.fromkeys(self.doc_page_of[d] for d in coll.doc_ids if d in self.doc_page_of))
        kind = self.pages.get(coll.pages[0]) if coll.pages else None
        names = [kind.title or "", *(kind.aliases or [])] if kind is not None else []
        if len(pages) < 2 or _plural_of(question, {t for n in names for t in terms(n)} | set(coll.phrase)):
            return None
        q_terms = (
            {
                t
                for w in WORD.findall(question)
                if not self._domain_word(w) and w.casefold() not in self.vocabulary[0]
                for t in terms(w)
            }
            - coll.removed
            - set(coll.phrase)
        )
        # a word (in any case, but not one merely opening a sentence) that a member's opening holds and no identity
        # text writes in lower case: a counterparty the opening names without defining a short name for it
        # ("Keefe, Bruyette & Woods, Inc.", "Datec PNG Ltd", "Oceanic Time Warner Cable")
        asked = q_terms & set(terms(_past_first_word(question)))
        cased = asked - self._lowered
        # a word the question capitalises that a member's opening defines ("the affiliation agreement with Network"):
        # the role that member gives a party, a name however many other documents' names hold the word
        titled = set(terms(" ".join(w for w in WORD.findall(_past_first_word(question)) if w[:1].isupper())))
        holders: dict[str, list[str]] = {}
        defining: set[str] = set()
        for slug in pages:
            said = q_terms & self._name_terms.get(slug, set())
            defined = asked & self._defined.get(slug, set())
            said |= (cased & self._head_terms.get(slug, set())) | defined
            defining |= defined & titled
            for t in said | linked.get(slug, set()):
                holders.setdefault(t, []).append(slug)
        strength: dict[str, float] = {}
        named: dict[str, set[str]] = {}
        for t, slugs in holders.items():
            # a word all members share names none; nor does one held by more members than a question can name
            # at once (max_doc_scope, as for documents named directly), or that names more documents than the kind
            # has members ("Corporation", "Provider"): that is a common word of names, not a name
            if len(t) < 2 or len(slugs) > self.params.max_doc_scope or len(slugs) >= len(pages):
                continue
            if (
                self._name_df.get(t, 0) >= len(pages)
                and t not in defining
                and not any(t in linked.get(s, ()) for s in slugs)
            ):
                continue
            for slug in slugs:
                strength[slug] = strength.get(slug, 0.0) + math.log(len(pages) / len(slugs))
                named.setdefault(slug, set()).add(t)
        if not strength:
            return None
        best = max(strength.values())
        chosen = [s for s in strength if strength[s] == best]  # the best-named, ties in the order found
        if len(chosen) > self.params.max_doc_scope:
            return None
        docs = self._sources(chosen)
        if not docs:
            return None
        words = set().union(*(named[s] for s in chosen))
        return Scope("document", chosen, docs, coll.removed | words, rare=words)

    # --- documents -------------------------------------------------------------------------------

    def _document_candidates(self, question: str, q_set: set[str], hits) -> list[DocCandidate]:
        """Document pages named by their title, plus rare identifying words of their identity text."""
        n_docs = max(1, len(self._head_terms))
        rare_df = max(1, min(self.params.rare_df, int(n_docs * self.params.rare_df_share)))
        names = self._name_words(question)
        cand_slugs = [h.slug for h in hits if h.type == "document"]
        for t in q_set & names:
            if self._head_df.get(t, 0) <= rare_df:
                cand_slugs.extend(self._head_postings.get(t, []))
            if self._id_df.get(t, 0) <= rare_df:
                cand_slugs.extend(self._id_postings.get(t, []))
        score_of = {h.slug: h.score for h in hits}
        q_words = [set(terms(w)) for w in WORD.findall(question)]
        out = []
        for slug in dict.fromkeys(cand_slugs):
            share, matched = self.page_index.title_match(slug, q_set)
            head = self._head_terms.get(slug, set())
            rare = {t for t in q_set & head & names if self._head_df.get(t, 0) <= rare_df and t not in matched}
            filed = self._file_name_words(slug, q_set, names, rare_df, share, rare)
            whole_title = share >= 0.99 and len(matched) >= 3 and slug not in self._shared_title
            # two words, not two terms: a Korean word gives several terms (its character pairs); a word said twice
            # ("EL POLLO LOCO ... El Pollo Loco") is one
            rare_words = len({frozenset(ts & rare) for ts in q_words} - {frozenset()})
            if rare_words >= 2 or (rare and share >= 0.5) or whole_title or filed:
                strength = 2 * share + sum(math.log(n_docs / self._head_df.get(t, 1)) for t in rare)
                if filed:  # its file name said: as strong as its title, plus the rarity of the words that said it
                    strength += 2 + sum(math.log(n_docs / self._id_df.get(t, 1)) for t in filed - rare)
                rare |= filed
                named = matched | rare
                out.append(
                    DocCandidate(
                        strength,
                        score_of.get(slug, 0.0),
                        slug,
                        named,
                        {t for t in named if self._head_df.get(t, 0) <= rare_df},
                    )
                )
        return out

    def _name_words(self, question: str) -> set[str]:
        """The terms of the question's words that are written like names: not all lower case (capitals, digits,
        an uncased script that is not the schemas' own words), or in lower case a word of the documents' names
        (title, parties, short names, file name) that their identity texts never write in lower case ("netgear"
        for "NETGEAR, Inc.") and no collection's title holds ("supply"): people type names in lower case, the
        documents do not."""
        out: set[str] = set()
        for w in WORD.findall(question):
            ts = terms(w)
            if w.islower():
                if ts and all(t in self._name_df and t not in self._lowered and t not in self._kind_terms for t in ts):
                    out.update(ts)
            elif not self._domain_word(w):
                out.update(ts)
        return out

    def _linked(self, question: str) -> dict[str, set[str]]:
        """Document pages the question names by a word of their catalogue (their names and file name) that the
        rules by term miss, slug -> the question's terms that name it: a word written as one of a document's
        names ("2themart"), the start of a word of its file name ("thrivent", "adams golf" for adamsgolfinc: people
        call a document by the name it is filed under), or one edit from a name ("Kriomic" for Kiromic), tried in
        that order, when it names at most max_doc_scope pages. Only words that read as names: not the kinds' or the
        schemas' words nor a place ("Florida law" names no document from Florida), never written in lower case by
        the identity texts, four letters or more (five to allow an edit)."""
        places = [(v.start, v.end) for v in find_jurisdiction_values(question, cased=False)]
        found = [m for m in WORD.finditer(question) if not any(s <= m.start() < e for s, e in places)]
        words = [m.group() for m in found]
        out: dict[str, set[str]] = {}
        wide: list[tuple[set[str], list[str]]] = []  # words naming more pages than a question names alone
        for i, w in enumerate(words):
            low = w.casefold()
            ts = terms(w)
            if w in self._capitals and not self._domain_word(w) and low not in self.vocabulary[0]:
                # written in capitals as an opening defines it ("the agreement with ATR"): that document's name,
                # unless it names a kind of document, as a kind's title or many documents' file names do ("NDA")
                slugs = self._capitals[w]
                kind = (
                    any(t in self._kind_terms for t in ts) or len(self._filed.get(low, ())) > self.params.max_doc_scope
                )
                if ts and len(slugs) <= self.params.max_doc_scope and not kind:
                    for slug in slugs:
                        out.setdefault(slug, set()).update(ts)
                    continue
            if 2 <= len(low) < 4 and w.isupper() and ts and low not in self.vocabulary[0]:
                # an acronym ("MSA"), too short to name a document alone, may narrow another name ("the Brightline
                # MSA"): the documents filed or named under it
                if slugs := self._catalogue_pages(low, edit=False):
                    wide.append((slugs, ts))
                continue
            if len(low) < 4 or low.isdigit() or not ts or self._common_word(low):
                continue
            after = words[i + 1].casefold() if i + 1 < len(words) and found[i + 1].start() == found[i].end() + 1 else ""
            for form, named in ((low + after, ts + terms(after)), (low, ts)) if after else ((low, ts),):
                slugs = self._catalogue_pages(form, edit=form == low)
                if not slugs and form == low:  # one word for a name of two ("VeoneerAB" for Veoneer AB)
                    slugs = self._joined.get(low, set())
                if 0 < len(slugs) <= self.params.max_doc_scope:
                    for slug in slugs:
                        out.setdefault(slug, set()).update(named)
                    break
                if form == low and slugs:
                    wide.append((slugs, named))
        # two words that each name too many documents name the few they share: "the Brightline MSA" is Brightline's
        # master services agreement (and its amendment), not its NDA, nor Fenwick's MSA
        if len(wide) >= 2:
            common = set.intersection(*(slugs for slugs, _ in wide))
            if 0 < len(common) <= self.params.max_doc_scope:
                for slug in common:
                    out.setdefault(slug, set()).update(t for _, named in wide for t in named)
        return dict(sorted(out.items()))  # in the pages' order, not the sets': the same scope in every process

    def _catalogue_pages(self, word: str, edit: bool = True) -> set[str]:
        """The pages whose catalogue writes the word, else whose file name has a word it begins, else (with edit,
        for a word no identity text holds) whose catalogue writes a word one edit from it."""
        if word in self._catalogue:
            return self._catalogue[word]
        i = bisect.bisect_left(self._filed_words, word)
        begun: set[str] = set()
        while i < len(self._filed_words) and self._filed_words[i].startswith(word):
            begun |= self._filed[self._filed_words[i]]
            i += 1
        if begun or len(word) < 5 or not edit or any(t in self._head_df for t in terms(word)):
            return begun  # a word some identity text holds is no misspelling
        # ... and a misspelling is of a name, not of a kind's or the schemas' word nor of one the identity texts write
        # in lower case ("Please list them" is no "lease")
        return {
            slug
            for w in one_edit_spellings(word)
            if w in self._catalogue and not self._common_word(w)
            for slug in self._catalogue[w]
        }

    def _common_word(self, word: str) -> bool:
        """Whether a catalogue word is no name: a kind's word, the schemas', or one the identity texts write in lower
        case."""
        return (
            word in self._lowered_words
            or word in self.vocabulary[0]
            or self._domain_word(word)
            or any(t in self._kind_terms for t in terms(word))
        )

    @staticmethod
    def _bare_terms(question: str) -> set[str]:
        """The terms of the question's uncased words without a Korean particle ("비밀유지계약서의" ->
        "비밀유지계약서"), so that a title the question says whole is matched whole."""
        out: set[str] = set()
        for w in WORD.findall(question):
            if w.lower() == w.upper() and (bare := without_particle(w)) != w:
                out.update(terms(bare))
        return out

    def _domain_word(self, word: str) -> bool:
        """Whether a word of an uncased script (Korean, Chinese, ...) is one of the schemas' own words, with a
        Korean particle after it ("계약이", "법률에", "따르나요"): every such word looks like a name, and in a corpus
        of few documents in that script the domain's words are rare, yet they name no document. Cased words
        are told by their case, as before."""
        if word.lower() != word.upper() or word.isdigit():
            return False
        words, stems = self.vocabulary
        w = word.casefold()
        bare = without_particle(w)
        # a word of the script opening with one of the schemas' words takes an ending ("갱신됩니까": 갱신 + 됩니까)
        return w in words or bare in words or any(w.startswith(st) for st in (*stems, *self._uncased_vocabulary))

    def _file_name_words(
        self, slug: str, q_set: set[str], names: set[str], rare_df: int, share: float, rare: set[str]
    ) -> set[str]:
        """The words of the page's file name (its documents' ids) by which the question names it: the
        question's name-like words that no more than rare_df documents' file names hold, and no more than
        rare_df documents' identity text (a word of a quoted title, "Exclusive Distributor", is in many;
        a party's name in few), when the question also says the page's title (half of it or more), half
        of its file name (idf-weighted), or another identifying word (a word both its file name and its
        identity text hold counts twice: two places that say which document it is). Empty when it does
        not name the page so."""
        ids = self._id_terms.get(slug, set())
        n_docs = max(1, len(self._id_terms))
        own = {
            t for t in q_set & ids & names if self._id_df.get(t, 0) <= rare_df and self._head_df.get(t, 0) <= rare_df
        }
        if not own:
            return set()
        weight = {t: math.log(1 + n_docs / self._id_df.get(t, 1)) for t in ids}
        id_share = sum(w for t, w in weight.items() if t in q_set) / (sum(weight.values()) or 1.0)
        return own if share >= 0.5 or id_share >= 0.5 or len(own) + len(rare) >= 2 else set()

    def _title_words_only(self, docs: Scope, q_seq: list[str]) -> bool:
        """Whether documents were named by their titles' common words alone (no party, no identifying word),
        none said as a phrase: "Which of the Reseller agreements contain a license grant?" holds every word of
        one member's title, "License Agreement - Reseller Agreement", and names the collection "Reseller
        agreements", not that one member."""
        return not docs.rare and not any(self._says_title(s, q_seq) for s in docs.pages)

    def _says_title(self, slug: str, q_seq: list[str], min_terms: int = 1) -> bool:
        """Whether the question says the page's title (or an alias) of at least min_terms terms as a phrase."""
        page = self.pages.get(slug)
        names = [page.title or "", *(page.aliases or [])] if page is not None else []
        return any(len(ts) >= min_terms and _phrase_in(ts, q_seq) for ts in map(terms, names))

    def _document_scope(self, question: str, q_set: set[str], hits) -> Scope | None:
        cands = self._document_candidates(question, q_set, hits)
        if not cands:
            return None
        cands.sort(key=lambda c: (-c.strength, -c.score))
        best = cands[0]
        chosen = [c for c in cands if c.strength == best.strength][: self.params.max_doc_scope]
        docs: list[str] = []
        removed: set[str] = set()
        for c in chosen:
            docs.extend(d for d in self.pages[c.slug].sources or [] if d in self.known_docs)
            removed |= c.named_by | self.page_index.title_terms(c.slug)
        if not docs:
            return None
        return Scope(
            "document",
            [c.slug for c in chosen],
            list(dict.fromkeys(docs)),
            removed & q_set,
            rare={t for c in chosen for t in c.rare},
        )

    def _series_scope(self, question: str) -> Scope | None:
        """Documents of a series named by a name and a quarter, or "the latest" (wikigen.ask.periods)."""
        found = self.series.resolve(question, question_names(question))
        if found is None:
            return None
        doc_ids, named_by = found
        if len(doc_ids) > self.params.max_doc_scope:
            return None
        pages = [self.doc_page_of[d] for d in doc_ids if d in self.doc_page_of]
        return Scope("document", pages, doc_ids, named_by, rare=named_by)

    def _named_series(self, question: str) -> Scope | None:
        """Every report of a series the question names by a name alone, over its quarters (wikigen.ask.periods)."""
        found = self.series.resolve_series(question, question_names(question))
        if found is None:
            return None
        doc_ids, named_by = found
        pages = [self.doc_page_of[d] for d in doc_ids if d in self.doc_page_of]
        return Scope("series", pages, doc_ids, named_by)

    # --- collections -----------------------------------------------------------------------------

    def _collection_candidate(self, h, q_seq: list[str], q_set: set[str]) -> CollectionCandidate | None:
        """The collection page of a hit, when the question names it: its title or an alias as a phrase
        (or all its terms present), by words not mostly found outside its members."""
        page = self.pages.get(h.slug)
        if page is None:
            return None
        names = [
            [t for t in terms(n) if t not in self._coll_generic] for n in [page.title or "", *(page.aliases or [])]
        ]
        phrases = [n for n in names if n and _phrase_in(n, q_seq)]
        share, matched = self.page_index.title_match(h.slug, q_set)
        matched -= self._coll_generic
        members = len(page.sources or []) or 1
        longest = max(phrases, key=len) if phrases else []
        named_by = longest if phrases else matched
        # a word most of whose documents are not members does not name this kind, unless the question says the
        # kind's whole title ("the Marketing agreements": its generic word too)
        if any(
            self._head_df.get(t, 0) > self.params.common_kind_ratio * members for t in named_by
        ) and not self._says_title(h.slug, q_seq, min_terms=2):
            return None
        if not (phrases or share >= 0.99):
            return None
        return CollectionCandidate(len(longest), share, h.score, h.slug, longest or sorted(matched))

    def _collection_members(self, slug: str) -> list[str]:
        """The known documents of a collection, or of the member document pages it links to."""
        page = self.pages[slug]
        members = [d for d in page.sources or [] if d in self.known_docs]
        if not members:
            for link in page.links():
                lp = self.pages.get(link)
                if lp is not None and lp.type == "document":
                    members.extend(d for d in lp.sources or [] if d in self.known_docs)
        return list(dict.fromkeys(members))

    def _collection_scope(self, q_seq: list[str], hits) -> Scope | None:
        """The collection the question names: every collection page is tried (they are few), ranked or not by the
        page search, so a kind named by its title ("Which NDAs ...") is found however the search ranks its page."""
        q_set = set(q_seq)
        ranked = {h.slug: h for h in hits if h.type == "collection"}
        every = [ranked.get(slug) or _Unranked(slug) for slug in self._collections]
        cands = [c for c in (self._collection_candidate(h, q_seq, q_set) for h in every) if c]
        if not cands:
            return None
        cands.sort(key=lambda c: (-c.phrase_len, -c.share, -c.score))
        best = cands[0]
        members = self._collection_members(best.slug)
        if not members:
            return None
        return Scope("collection", [best.slug], members, set(best.phrase), phrase=list(best.phrase))


def reduce_query(question: str, removed: set[str], phrase: Sequence[str] = ()) -> str:
    """The question without the words that named the scope: for a collection, the one place where
    its title phrase occurs (the same words elsewhere may be the subject); for documents, every
    word whose terms all named it. The question itself when nothing would be left."""
    if not removed:
        return question
    words = WORD.findall(question)
    wterms = [terms(w) for w in words]
    drop: set[int] = set()
    if phrase:
        flat = [(i, t) for i, ts in enumerate(wterms) for t in ts]
        n = len(phrase)
        for j in range(len(flat) - n + 1):
            if [t for _, t in flat[j : j + n]] == list(phrase):
                drop = {i for i, _ in flat[j : j + n]}
                break
    else:
        drop = {i for i, ts in enumerate(wterms) if ts and set(ts) <= removed}
    reduced = " ".join(w for i, w in enumerate(words) if i not in drop)
    return reduced if terms(reduced) else question
