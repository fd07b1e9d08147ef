"""The reading of a question, made once (`Answerer.read`) and handed to retrieval and to the answer.

    r = answerer.read("When does our reseller agreement with Detto end?")
    r.scope.kind, r.scope.doc_ids   -> "document", ["adianutrition-...-reseller-agreement"]
    r.many                          -> False (about one document)
    r.table.field.name, r.table.by  -> "expiration", found by meaning (r.table.meaning: its probability)

What the question is about (the documents or the collection: `scope`), what of them it asks when the provisions
table holds it (`table`: the field, the condition on its value, the answer wanted), whether it asks about many
documents or one (`many`), the figure pages it asks of its documents or across them (`figures`), and the names it
gives that no document holds (`absent`) are decided here and nowhere after: retrieval fills the scope, the answer
quotes one document or one line per document as `many` says, the table answers `table`, the figures' lines lead,
and an absent name is said rather than answered from another document. `ask --json` shows it.

After the reading no module parses the question again: retrieval searches with its `text` and `query`, and an
answer generator is given the question as asked (a model reads it) with the reading's scope and `many`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wikigen.ask.scope import Scope
from wikigen.ask.values import TableQuery


@dataclass(frozen=True)
class Reading:
    question: str  # as asked
    text: str  # with the wiki's abbreviations spelled out ("R&D" -> "Research and development")
    scope: Scope
    query: str  # the text without the words that named the scope: what is asked of it
    many: bool  # asks about many documents (wikigen.ask.wording.asks_many, given the scope)
    table: TableQuery | None = None  # the provisions table's query, when a field is asked
    figures: tuple[str, ...] = ()  # the figure pages it names, asked of the documents in scope or across documents
    absent: tuple[str, ...] = ()  # the names it gives that no document holds (wikigen.ask.absent), in order
    named: int = 0  # how many names it gives in all (all absent: the corpus has nothing to answer from)
    near: dict[str, str] = field(default_factory=dict)  # an absent name -> how a document writes it, when one does
    hits: list = field(default_factory=list, compare=False, repr=False)  # the page search's hits for the text

    def to_dict(self) -> dict:
        """The reading as `ask --json` shows it: {query, many, table?, figures?, absent?} (the scope is the result's
        own `scope`)."""
        d: dict = {"query": self.query, "many": self.many}
        if self.table is not None:
            d["table"] = self.table.to_dict()
        if self.figures:
            d["figures"] = list(self.figures)
        if self.absent:
            d["absent"] = [{"name": n, "near": self.near.get(n)} for n in self.absent]
        return d
