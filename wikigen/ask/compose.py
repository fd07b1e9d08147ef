"""The sentences an extractive answer quotes: candidates from the context, scored against the question.

A candidate is one sentence (wikigen.core.sentences, the project's one boundary rule) of a context
piece, with its exact span in its document. Its score is

    coverage + heading_weight x named + rank_weight / (1 + item rank)
             [+ passage_weight x cosine(question, sentence's passage)]

where `coverage` is the share of the question's weight the sentence holds: each question term (the
terms that named the document scope left out) weighs its inverse frequency among all the candidate
sentences of the context (a term every sentence holds says nothing), so coverage lies in [0, 1];
`named` is the share held by the sentence's heading ("7.3 Audit Rights."). The item rank is the place
of the sentence's context item (retrieval put the best first). With the index's passage vectors (a
DenseSearcher, as `Answerer.ask` passes), each sentence adds the cosine of the indexed passage that
holds it: no sentence is encoded, only the question (once, and retrieval already did);
`bench/answer_bench.py --passages` measures what the passage vectors add. No sentence with a coverage
of `min_coverage` or more: the answer is `NOT_FOUND`. The weights are `RetrievalParams` fields
(wikigen.ask.params), each with its reason and measured effect in docs/benchmarks.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from wikigen.ask.context import ContextItem, Unit
from wikigen.ask.page_index import terms
from wikigen.ask.params import DEFAULT_PARAMS, RetrievalParams
from wikigen.ask.windows import lead
from wikigen.core.sentences import SENTENCE, sentences

NOT_FOUND = "Not found in the corpus."


@dataclass(frozen=True, eq=False)
class Candidate:
    doc_id: str
    start: int  # the sentence's span in its document (from its first verbatim character to its last)
    end: int
    text: str
    rank: int  # the place of its context item
    unit: Unit  # the context piece it comes from; the sentence is unit.text[a:b]
    a: int
    b: int

    def spans(self) -> list[dict]:
        """The source spans the sentence holds verbatim (split around a secret kept out of it)."""
        return self.unit.spans_within(self.a, self.b)


def _candidate(unit: Unit, a: int, b: int, rank: int) -> Candidate | None:
    """The sentence unit.text[a:b] as a candidate; None when no source character of it is shown (a mark alone)."""
    spans = unit.spans_within(a, b)
    if not spans:
        return None
    return Candidate(unit.doc_id, spans[0]["start"], spans[-1]["end"], unit.text[a:b], rank, unit, a, b)


@dataclass(frozen=True)
class Scored:
    cand: Candidate
    coverage: float
    score: float

    @property
    def doc_id(self) -> str:
        return self.cand.doc_id

    def spans(self) -> list[dict]:
        return self.cand.spans()

    def widened(self, max_chars: int) -> Scored:
        """The quote widened with the sentences after it in its piece while it stays within max_chars."""
        c = self.cand
        piece, a, b = c.unit.text, c.a, c.b
        base = b
        for _, e in sentences(piece[base:], kinds=SENTENCE):
            if base + e - a > max_chars:
                break
            b = base + e
        wide = _candidate(c.unit, a, b, c.rank) if b != c.b else None
        return self if wide is None else replace(self, cand=wide)

    def cite(self, with_doc: bool = True) -> str:
        text = " ".join(self.cand.text.split())
        where = (
            f"{self.cand.doc_id} (chars {self.cand.start}-{self.cand.end})"
            if with_doc
            else f"(chars {self.cand.start}-{self.cand.end})"
        )
        return f'"{text}" -- {where}'


def candidates(items: Sequence[ContextItem]) -> list[Candidate]:
    """Every sentence of every context piece, with its document span, in context order (deduplicated)."""
    out: list[Candidate] = []
    seen: set[tuple[str, int, int]] = set()
    for rank, item in enumerate(items):
        for u in item.pieces():
            for a, b in sentences(u.text, kinds=SENTENCE):
                c = _candidate(u, a, b, rank)
                if c is not None and (c.doc_id, c.start, c.end) not in seen:
                    seen.add((c.doc_id, c.start, c.end))
                    out.append(c)
    return out


def asking_part(question: str) -> str:
    """The sentences of the question that ask ("Consider the lease of X. What is its term?" -> "What is
    its term?"): those ending with a question mark, when the question also has others; else the question."""
    sents = [question[a:b] for a, b in sentences(question, kinds=SENTENCE, min_chars=1)]
    asking = [x for x in sents if x.rstrip().endswith(("?", "\uff1f"))]
    return " ".join(asking) if asking and len(asking) < len(sents) else question


# The words that make a sentence a question, in English and Korean (a closed class of the languages, not
# of any corpus): rare in documents, so an inverse frequency would weigh them most, yet they say nothing
# of the answer. Stopwords the analyzer drops (is, are, the...) need not be here.
_QUESTION_WORDS = re.compile(
    r"\b(?:what|which|who|whom|whose|when|where|why|how|much|many|does|do|did)\b"
    r"|(?<![가-힣])(?:무엇|무슨|어떤|어느|얼마나|얼마|언제|어디|누구|누가|어떻게|몇|왜)[가-힣]{0,2}(?![가-힣])",
    re.I,
)


def question_terms(
    question: str, removed: Iterable[str] = (), context_weight: float = DEFAULT_PARAMS.context_weight
) -> dict[str, float]:
    """The question's distinct terms with their weight, without its question words and without the terms
    that named its scope (all of them if nothing is left): 1 for a term of the part that asks
    (`asking_part`), context_weight for a term only in the sentences around it (the document or setting
    the question names)."""
    every = list(dict.fromkeys(terms(_QUESTION_WORDS.sub(" ", question)))) or list(dict.fromkeys(terms(question)))
    gone = set(removed)
    kept = [t for t in every if t not in gone] or every
    asking = set(terms(asking_part(question)))
    return {t: 1.0 if t in asking else context_weight for t in kept}


def score_candidates(
    question: str,
    q_terms: dict[str, float],
    cands: Sequence[Candidate],
    *,
    params: RetrievalParams = DEFAULT_PARAMS,
    passages=None,
) -> list[Scored]:
    """The candidates with their coverage and score, best first (see the module docstring; the weights
    are params' rank_weight, heading_weight and passage_weight).
    passages: a DenseSearcher (wikigen.search.dense); each candidate then also scores passage_weight x
    the cosine to the question of the indexed passage that holds it (vectors already computed)."""
    if not cands or not q_terms:
        return []
    sets = [set(terms(c.text)) for c in cands]
    n = len(cands)
    weight = {}
    for t in q_terms:
        df = sum(1 for s in sets if t in s)
        if df:
            weight[t] = q_terms[t] * math.log(1 + n / df)
    total = sum(weight.values()) or 1.0
    near = _passage_cosines(question, cands, passages, params.passage_weight)
    scored = []
    for c, s, p in zip(cands, sets, near):
        cov = sum(w for t, w in weight.items() if t in s) / total
        head = set(terms(lead(c.text))) if params.heading_weight else set()
        named = sum(w for t, w in weight.items() if t in head) / total
        score = cov + params.heading_weight * named + params.rank_weight / (1 + c.rank) + p
        scored.append(Scored(c, cov, score))
    scored.sort(key=lambda x: -x.score)
    return scored


def _passage_cosines(question: str, cands: Sequence[Candidate], passages, weight: float) -> list[float]:
    """weight x the cosine to the question of the passage holding each candidate (0 without vectors)."""
    if passages is None or not weight:
        return [0.0] * len(cands)
    cos = passages.span_scores(question, [(c.doc_id, c.start, c.end) for c in cands])
    return [weight * c if c is not None else 0.0 for c in cos]


def pick_quotes(scored: Sequence[Scored], n: int, max_chars: int, min_score: float) -> list[Scored]:
    """The best `n` quotes (widened, not overlapping), of the document of the best sentence first."""
    out: list[Scored] = []
    for s in scored:
        if len(out) >= n:
            break
        if s.coverage < min_score and out:
            continue
        w = s.widened(max_chars)
        if any(o.doc_id == w.doc_id and o.cand.start < w.cand.end and w.cand.start < o.cand.end for o in out):
            continue
        out.append(w)
    return out
