"""The reading of a question, made once (`Answerer.read`) and handed to retrieval and to the answer.

    r = answerer.read("When does our reseller agreement with Detto end?")
    r.scope.kind, r.scope.doc_ids   -> "document", ["adianutrition-...-reseller-agreement"]
    r.many                          -> False (about one document)
    r.table.field.name, r.table.by  -> "expiration", found by meaning (r.table.meaning: its probability)

What the question is about (the documents or the collection: `scope`), what of them it asks when the provisions
table holds it (`table`: the field, the condition on its value, the answer wanted), and whether it asks about many
documents or one (`many`) are decided here and nowhere after: retrieval fills the scope, the answer quotes one
document or one line per document as `many` says, and the table answers `table`. `ask --json` shows it.
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
    hits: list = field(default_factory=list, compare=False, repr=False)  # the page search's hits for the text

    def to_dict(self) -> dict:
        """The reading as `ask --json` shows it: {query, many, table?} (the scope is the result's own `scope`)."""
        d: dict = {"query": self.query, "many": self.many}
        if self.table is not None:
            d["table"] = self.table.to_dict()
        return d
