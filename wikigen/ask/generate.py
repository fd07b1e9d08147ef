"""Answer generators: one interface for every way of turning a context into an answer.

An `AnswerGenerator` receives the question, the context items (each with its exact source spans,
`ContextItem.pieces()`) and the scope the wiki resolved, and returns a `GeneratedAnswer`.
`ExtractiveAnswer` (name "offline") quotes the most relevant sentences with their citations; a
model-backed generator (wikigen.agents.claude.ClaudeBackend) implements the same `answer` method.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from wikigen.ask.context import ContextItem, span_text_in
from wikigen.ask.page_index import terms
from wikigen.ask.scope import Scope, looks_aggregate
from wikigen.ask.windows import best_excerpt

NOTHING_FOUND = "Nothing in the wiki or the corpus matches this question."


@dataclass(frozen=True)
class GeneratedAnswer:
    text: str
    usage: dict | None = None          # the model's token usage, when a model answered


class AnswerGenerator(Protocol):
    name: str

    def answer(self, question: str, items: Sequence[ContextItem], scope: Scope | None = None) -> GeneratedAnswer: ...


class ExtractiveAnswer:
    """The most relevant quotes/passages with their citations (a passage's most relevant sentences,
    cited by their own span; and, for a question about many documents, the list of documents found)."""

    name = "offline"

    def __init__(self, n: int = 5, *, max_chars: int = 400):
        self.n = n
        self.max_chars = max_chars

    def answer(self, question: str, items: Sequence[ContextItem], scope: Scope | None = None) -> GeneratedAnswer:
        if not items:
            return GeneratedAnswer(NOTHING_FOUND)
        q_terms = set(terms(question))
        lines = ["Most relevant sources:"]
        for c in items:
            for sp in c.spans:
                if len(lines) > self.n:
                    break
                lines.append(f"{len(lines)}. {self._cite(c, sp, q_terms)}")
        if looks_aggregate(question, scope):
            docs = list(dict.fromkeys(sp["doc_id"] for c in items for sp in c.spans))
            lines.append("")
            lines.append(f"Documents found ({len(docs)}): " + ", ".join(docs))
        return GeneratedAnswer("\n".join(lines))

    def _cite(self, c: ContextItem, sp: dict, q_terms: set[str]) -> str:
        """One source, quoted and cited: a page's quote whole, a passage's best excerpt by its own span."""
        start, end = sp["start"], sp["end"]
        if c.kind == "page":
            src = span_text_in(c.text, sp) or ""
            where = f" (from page [[{c.ref}]])"
        else:
            a, b = best_excerpt(c.text, q_terms)
            src, where = c.text[a:b], ""
            start, end = sp["start"] + a, sp["start"] + b
        src = " ".join(src.split())
        if len(src) > self.max_chars:
            src = src[:self.max_chars - 3].rstrip() + "..."
        return f'"{src}" -- {sp["doc_id"]} (chars {start}-{end}){where}'
