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
    MAX_QUOTES,
    MIN_SCORE,
    NOT_FOUND,
    QUOTE_CHARS,
    Scored,
    candidates,
    pick_quotes,
    question_terms,
    score_candidates,
)
from wikigen.ask.context import ContextItem
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

    def answer(self, question: str, items: Sequence[ContextItem], scope: Scope | None = None) -> GeneratedAnswer: ...


class ExtractiveAnswer:
    """An answer made of the context's sentences that answer the question, each quoted with its document
    and span. About one document: its best sentences (at most `max_quotes` quotes). Across documents:
    one line per document with its deciding quote. `NOT_FOUND` when no sentence scores `min_score`
    (the share of the question's weighted terms a sentence holds, see wikigen.ask.compose).

    encoder: an optional sentence encoder (wikigen.search.dense.Encoder); when given, the candidates
    best by words are re-ranked with their similarity to the question (a few sentences encoded per question).
    passages: an optional DenseSearcher over the index's passage vectors; when given, each sentence also
    scores the similarity of its passage to the question (no sentence is encoded: only the question, once)."""

    name = "offline"

    def __init__(
        self,
        n: int = MAX_QUOTES,
        *,
        max_chars: int = QUOTE_CHARS,
        min_score: float = MIN_SCORE,
        encoder=None,
        max_docs: int = 40,
        passages=None,
    ):
        self.n = n
        self.max_chars = max_chars
        self.min_score = min_score
        self.encoder = encoder
        self.max_docs = max_docs
        self.passages = passages

    def with_passages(self, passages) -> ExtractiveAnswer:
        """This generator scoring with the passage vectors of `passages` (unless it has some already)."""
        if self.passages is not None:
            return self
        return ExtractiveAnswer(
            self.n,
            max_chars=self.max_chars,
            min_score=self.min_score,
            encoder=self.encoder,
            max_docs=self.max_docs,
            passages=passages,
        )

    def answer(self, question: str, items: Sequence[ContextItem], scope: Scope | None = None) -> GeneratedAnswer:
        q_terms = question_terms(question, scope.removed if scope is not None else ())
        scored = score_candidates(question, q_terms, candidates(items), encoder=self.encoder, passages=self.passages)
        if not scored or max(s.coverage for s in scored) < self.min_score:
            return GeneratedAnswer(NOT_FOUND)
        if asks_many(question, scope):  # one line per document (wikigen.ask.wording)
            return self._across(scored)
        if scope is not None and scope.kind == "document" and scope.doc_ids:
            # the question names its document: quote it alone, others only when the context holds none of it
            named = set(scope.doc_ids)
            scored = [s for s in scored if s.doc_id in named] or scored
        quotes = pick_quotes(scored, self.n, self.max_chars, self.min_score)
        lines = [f"{i}. {q.cite()}" for i, q in enumerate(quotes, 1)]
        return GeneratedAnswer("\n".join(lines), spans=tuple(sp for q in quotes for sp in q.spans()))

    def _across(self, scored: list[Scored]) -> GeneratedAnswer:
        """One line per document, best document first, each with its best sentence (its deciding quote)."""
        best: dict[str, Scored] = {}
        for s in scored:
            if s.coverage >= self.min_score and s.doc_id not in best and len(best) < self.max_docs:
                best[s.doc_id] = s
        quotes = [s.widened(self.max_chars) for s in best.values()]
        lines = [f"Found in {len(quotes)} document{'s' if len(quotes) != 1 else ''}:"]
        lines.extend(f"- {q.doc_id}: {q.cite(with_doc=False)}" for q in quotes)
        return GeneratedAnswer("\n".join(lines), spans=tuple(sp for q in quotes for sp in q.spans()))
