"""Answer generators: one interface for every way of turning a context into an answer.

An `AnswerGenerator` receives the question, the context items (each with its exact source spans,
`ContextItem.pieces()`) and the scope the wiki resolved, and returns a `GeneratedAnswer`: the answer's
text and the source spans it quotes. `ExtractiveAnswer` (name "offline") composes an answer from the
context's own sentences (wikigen.ask.compose); a model-backed generator (wikigen.agents.claude.ClaudeBackend)
implements the same `answer` method.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from wikigen.ask.compose import (
    NOT_FOUND,
    Scored,
    candidates,
    pick_quotes,
    question_terms,
    score_candidates,
)
from wikigen.ask.context import ContextItem
from wikigen.ask.params import DEFAULT_PARAMS, RetrievalParams
from wikigen.ask.scope import Scope
from wikigen.ask.wording import asks_many

NOTHING_FOUND = NOT_FOUND  # the answer when nothing in the context answers the question

__all__ = ["NOTHING_FOUND", "AnswerGenerator", "ExtractiveAnswer", "GeneratedAnswer"]


@dataclass(frozen=True)
class GeneratedAnswer:
    text: str
    usage: dict | None = None  # the model's token usage, when a model answered
    spans: tuple[dict, ...] = ()  # the source spans the answer quotes: {"doc_id", "start", "end"}


class AnswerGenerator(Protocol):
    name: str

    def answer(
        self, question: str, items: Sequence[ContextItem], scope: Scope | None = None, *, many: bool | None = None
    ) -> GeneratedAnswer: ...


class ExtractiveAnswer:
    """An answer made of the context's sentences that answer the question, each quoted with its document
    and span. About one document: its best sentences (at most `params.answer_quotes` quotes). Across
    documents: one line per document with its deciding quote. `NOT_FOUND`
    when no sentence reaches `params.min_coverage` (the share of the question's weighted terms a sentence
    holds, see wikigen.ask.compose). The Answerer makes it with its own RetrievalParams.

    passages: an optional DenseSearcher over the index's passage vectors; when given, each sentence also
    scores the similarity of its passage to the question (no sentence is encoded: only the question, once)."""

    name = "offline"

    def __init__(self, params: RetrievalParams = DEFAULT_PARAMS, *, passages=None):
        self.params = params
        self.passages = passages

    def with_passages(self, passages) -> ExtractiveAnswer:
        """This generator scoring with the passage vectors of `passages` (unless it has some already)."""
        return self if self.passages is not None else ExtractiveAnswer(self.params, passages=passages)

    def answer(
        self, question: str, items: Sequence[ContextItem], scope: Scope | None = None, *, many: bool | None = None
    ) -> GeneratedAnswer:
        """many: whether the question asks about many documents, as the reading found (wikigen.ask.reading);
        None: read here from the question and the scope (wikigen.ask.wording.asks_many)."""
        p = self.params
        q_terms = question_terms(question, scope.removed if scope is not None else (), p.context_weight)
        scored = score_candidates(question, q_terms, candidates(items), params=p, passages=self.passages)
        if not scored or max(s.coverage for s in scored) < p.min_coverage:
            return GeneratedAnswer(NOT_FOUND)
        if asks_many(question, scope) if many is None else many:  # one line per document
            return self._across(scored)
        if scope is not None and scope.kind == "document" and scope.doc_ids:
            # the question names its document: quote it alone, others only when the context holds none of it
            named = set(scope.doc_ids)
            scored = [s for s in scored if s.doc_id in named] or scored
        quotes = pick_quotes(scored, p.answer_quotes, p.quote_chars, p.min_coverage)
        lines = [f"{i}. {q.cite()}" for i, q in enumerate(quotes, 1)]
        return GeneratedAnswer("\n".join(lines), spans=tuple(sp for q in quotes for sp in q.spans()))

    def _across(self, scored: list[Scored]) -> GeneratedAnswer:
        """One line per document, best document first, each with its best sentence (its deciding quote)."""
        best: dict[str, Scored] = {}
        for s in scored:
            if s.coverage >= self.params.min_coverage and s.doc_id not in best:
                best[s.doc_id] = s
        quotes = [s.widened(self.params.quote_chars) for s in best.values()]
        lines = [f"Found in {len(quotes)} document{'s' if len(quotes) != 1 else ''}:"]
        lines.extend(f"- {q.doc_id}: {q.cite(with_doc=False)}" for q in quotes)
        return GeneratedAnswer("\n".join(lines), spans=tuple(sp for q in quotes for sp in q.spans()))
