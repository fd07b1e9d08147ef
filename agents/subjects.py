"""Subjects of the questions people asked: the same thing asked of different documents is one subject.

A question's subject is what it asks once the words that name its documents are set aside: the terms of
its asking part (wikigen.ask.compose.asking_part: "Consider the lease of X. What is its term?" asks "What
is its term?"), without question and function words (wikigen.agents.words), without the terms that resolved
its scope (a document page's
title or identifying words, a collection's name: wikigen.ask.scope) and without the word a deictic
phrase points at ("this agreement", "that report": the document in scope). "What is the governing law of
the Acme supply agreement?" and "Which law governs this contract?" differ; "What is the governing law
of this contract?" asked of two documents is one subject.

Questions whose subject terms overlap by `similarity` (Jaccard) or more are grouped, the most asked
phrasing first; a group's readable phrase is the subject words of that phrasing ("governing law"). The
terms that most groups share are how these people ask rather than what ("which of the ... agreements in
the collection contain ...", "does the document ..."): `without_common` leaves them out (an idf over the
subjects asked about) before the final grouping. Nothing here knows a corpus or a question template: only
the wiki's own scope resolution, the analyzer's terms and the log's own statistics.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from wikigen.agents.words import STOPWORDS

from wikigen.ask.compose import asking_part
from wikigen.ask.page_index import QUESTION_WORDS, terms
from wikigen.ask.periods import WORD
from wikigen.ask.scope import reduce_query
from wikigen.ask.wording import range_words
from wikigen.core.text import without_particle
from wikigen.wiki.secrets import MARK as SECRET_MARK

__all__ = [
    "AskedQuestion",
    "Subject",
    "group_subjects",
    "named_by",
    "subject_match",
    "subject_of",
    "without_common",
]

# "this agreement", "these reports", "이 계약": the word after a deictic names the document in scope
_DEICTIC = re.compile(r"\b(?:this|that|these|those|its)\s+(\w+)|(?<![가-힣])이\s*([가-힣]+)", re.I)
MAX_PHRASE_WORDS = 8
# what a question holds that is no subject: the mark a redacted secret left (the question log redacts them) and a URL
_NO_SUBJECT = re.compile(rf"{re.escape(SECRET_MARK)}[^\]]*\]?|\b[a-z][a-z0-9+.-]*://\S*", re.I)


@dataclass
class AskedQuestion:
    """A question from the log with what the wiki knows of it now."""

    question: str
    record: dict  # its latest record in the question log
    terms: frozenset[str]  # its subject's terms
    words: str  # its subject's words, readable ("governing law")
    asking: str  # the part of it that asks, without the words that named its documents
    scope_docs: list[str] = field(default_factory=list)  # the documents it names (its scope)


@dataclass
class Subject:
    """Questions that ask one thing (of one or many documents)."""

    terms: frozenset[str]  # the terms of its most asked phrasing
    words: str  # ... and its words
    questions: list[AskedQuestion]

    @property
    def phrasings(self) -> list[str]:
        """The distinct asking parts of its questions (without the words naming their documents), the most
        asked first."""
        counts = Counter(q.asking for q in self.questions)
        return [a for a, _ in counts.most_common()]

    @property
    def names(self) -> list[str]:
        """The distinct subject words of its questions, its own first: what a page on it is called by."""
        counts = Counter(q.words for q in self.questions)
        return list(dict.fromkeys([self.words, *(w for w, _ in counts.most_common())]))

    @property
    def scope_docs(self) -> list[str]:
        return list(dict.fromkeys(d for q in self.questions for d in q.scope_docs))


def subject_of(question: str, record: dict, answerer) -> AskedQuestion:
    """The subject of one question, with the scope the wiki (`answerer`, a wikigen.ask.retrieval.Answerer)
    resolves for it now. A redacted secret's mark and a URL in it name no subject."""
    said = " ".join(_NO_SUBJECT.sub(" ", question).split())
    hits = answerer.page_index.search(said, k=answerer.params.page_hits)
    scope = answerer.scopes.resolve(said, hits)
    asking = asking_part(said).strip()
    pointed = {t for m in _DEICTIC.finditer(asking) for t in terms(m.group(1) or m.group(2) or "")}
    content = " ".join(w for w in WORD.findall(asking) if w.lower() not in STOPWORDS)  # "did", "has", "any"
    ranged = set(terms(" ".join(range_words(asking))))  # "how many", "all 252 contracts": which documents, not what
    drop = set(scope.removed) | pointed | ranged | set(QUESTION_WORDS)
    kept = [t for t in dict.fromkeys(terms(content)) if t not in drop]
    if not kept:  # the question asks in words that all name its scope: keep them rather than nothing
        kept = [t for t in dict.fromkeys(terms(asking)) if t not in QUESTION_WORDS]
    reduced = " ".join(reduce_query(asking, scope.removed, scope.phrase).split())
    return AskedQuestion(
        question, record, frozenset(kept), _words(reduced or asking, set(kept)), reduced, list(scope.doc_ids)
    )


def _words(asking: str, keep: set[str]) -> str:
    """The words of the asking part that carry the kept terms, in order, readable ("governing law")."""
    words = [w for w in WORD.findall(asking) if w.lower() not in STOPWORDS and set(terms(w)) & keep]
    return " ".join(dict.fromkeys(w.lower() if not w.isupper() else w for w in words[:MAX_PHRASE_WORDS])) or asking


def without_common(
    asked: Sequence[AskedQuestion], share: float, min_subjects: int, similarity: float
) -> list[AskedQuestion]:
    """The questions with the terms that most subjects share left out: the way these people ask ("which of
    the ... in the collection contain", "does the document"), not what they ask. The questions are grouped
    by their whole terms first; a term in `share` or more of those groups (an idf over what was asked), once
    there are `min_subjects` groups, is left out of every subject. A subject asked often keeps its words (they
    are one group); a question keeps its terms when every one of them is common."""
    groups = group_subjects(asked, similarity)
    if len(groups) < min_subjects:
        return list(asked)
    spread = Counter(t for g in groups for t in {t for q in g.questions for t in q.terms})
    common = {t for t, n in spread.items() if n >= share * len(groups)}
    out = []
    for q in asked:
        kept = q.terms - common
        if not kept or kept == q.terms:
            out.append(q)
            continue
        out.append(
            AskedQuestion(q.question, q.record, frozenset(kept), _words(q.asking, set(kept)), q.asking, q.scope_docs)
        )
    return out


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def group_subjects(asked: Iterable[AskedQuestion], similarity: float) -> list[Subject]:
    """The questions grouped by subject, the subjects with the most questions first (ties: first asked)."""
    asked = list(asked)
    by_terms: dict[frozenset[str], list[AskedQuestion]] = {}
    for q in asked:
        if q.terms:
            by_terms.setdefault(q.terms, []).append(q)
    keys = sorted(by_terms, key=lambda k: -len(by_terms[k]))  # stable: the first asked wins a tie
    subjects: list[Subject] = []
    for k in keys:
        home = next((s for s in subjects if _jaccard(s.terms, k) >= similarity), None)
        if home is None:
            qs = by_terms[k]
            subjects.append(Subject(k, Counter(q.words for q in qs).most_common(1)[0][0], list(qs)))
        else:
            home.questions.extend(by_terms[k])
    subjects.sort(key=lambda s: -len(s.questions))
    return subjects


def subject_match(subject_terms: frozenset[str], names: Sequence[str]) -> float:
    """How well page names (a title, its aliases) name a subject: the best Jaccard of their terms."""
    return max((_jaccard(subject_terms, frozenset(terms(n)) - QUESTION_WORDS) for n in names), default=0.0)


def named_by(words: str, text: str) -> str:
    """A subject's words ("terminating convenience") as `text` (what its sources say: the quotes of its page)
    writes them ("terminate convenience"): each word the text has, as it is; else the text's commonest word with
    the same terms (another form of the stem: their terms' Jaccard is at least a half); a word of an uncased
    script (Korean) without its particle when a word of the text starts with it ("계약의" -> "계약", the text
    having "계약을"). The words the text lacks are left out, '' when it has none. What a dream writes is named
    so: by the documents' own words, never by the words a person asked with (a secret, a link, markup)."""
    source = Counter(w.lower() if not w.isupper() else w for w in WORD.findall(text))
    folded: dict[str, str] = {}
    for w, _ in source.most_common():  # a word as the text writes it most ("insurance", not a heading's "INSURANCE")
        folded.setdefault(w.casefold(), w)
    source_terms: dict[str, frozenset[str]] = {}
    out: list[str] = []
    for w in WORD.findall(words):
        found = folded.get(w.casefold(), "")
        if not found and w.lower() == w.upper():  # uncased: a particle attaches to the word's end
            bare = without_particle(w)
            found = bare if len(bare) >= 2 and any(c.startswith(bare) for c in source) else ""
        if not found and (want := frozenset(terms(w))):
            best = (0.0, 0)
            for cand, n in source.items():
                have = source_terms.get(cand)
                if have is None:
                    have = source_terms[cand] = frozenset(terms(cand))
                key = (_jaccard(have, want), n) if have & want else (0.0, 0)
                if key[0] >= 0.5 and key > best:
                    found, best = cand, key
        if found:
            out.append(found)
    return " ".join(list(dict.fromkeys(out))[:MAX_PHRASE_WORDS])
