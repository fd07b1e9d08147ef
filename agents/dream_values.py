"""What a question needs that the wiki keeps as values: the dreamer's `ValueSource` (wikigen.agents.dreaming).

A question the wiki served weakly often asks for one value: a field of the provisions table ("What is the
governing law?", the field's label or `ask` words) or a figure a document states in a table row ("research
and development" beside its amounts). Search finds the sentence around it, if any; the value itself, with
its verified quote, is here:

* **the table's value** (WIKI/.wikigen/values.json, wikigen.wiki.provisions): the question is parsed as the
  table's answers parse it (wikigen.ask.values: the field it names), and every document of that field's kind
  that states it gives its cell's quote, labelled with the field and the value ("Governing law: Delaware:");
* **a figure's row**: the table rows of each document (wikigen.agents.figures.row_mentions: a label followed
  only by amounts) whose label the question names: every word of it is the question's, and one of them is
  rare among the documents' labels (a word weighs less the more labels share it: a bare "Total" or "Net"
  names nothing); each
  row is labelled with its label and the document's own date (the period it reports on).

Both look at every document (the question's scope first) rather than only those it named: the same value
asked of another document is then on the dreamer's page too. Nothing here knows a corpus or a question
template: the fields come from the schemas, the labels from the documents' own tables.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from wikigen.agents.dreaming import ValueQuote
from wikigen.agents.figures import Mention, row_mentions
from wikigen.agents.words import STOPWORDS
from wikigen.search.facts.dates import document_date

from wikigen.ask.page_index import QUESTION_WORDS, terms
from wikigen.ask.periods import WORD
from wikigen.ask.values import TableAnswers
from wikigen.wiki.provisions import STATED, read_table

__all__ = ["WikiValues"]

MAX_DOCS = 60  # documents one question's values are looked up in, its scope first
ROWS_PER_DOC = 2  # a document's rows a question names, at most (the best named first)
MIN_LABEL_SHARE = 0.4  # a label names a figure when one of its words weighs this share of the rarest label word's


class WikiValues:
    """The values a question needs, from the wiki's provisions table and its documents' table rows."""

    def __init__(self, root: Path, index, *, max_docs: int = MAX_DOCS, min_label_share: float = MIN_LABEL_SHARE):
        from wikigen.search.values.schema import load_schemas, user_schemas

        self.index = index
        self.max_docs = max_docs
        self.min_label_share = min_label_share
        table = read_table(root)
        schemas = load_schemas(user_schemas(root))
        self.table = TableAnswers(table, schemas) if table.kinds else None
        self.docs = sorted(d.doc_id for d in index.documents())
        self._rows: dict[str, list[Mention]] = {}
        self._dates: dict[str, str] = {}
        self._weights: dict[str, float] | None = None

    def values(self, question: str, doc_ids: Sequence[str]) -> list[ValueQuote]:
        docs = list(dict.fromkeys([*doc_ids, *self.docs]))[: self.max_docs]
        return self.table_values(question, docs) + self.figure_rows(question, docs)

    # --- the provisions table ------------------------------------------------------------------------

    def table_values(self, question: str, doc_ids: Sequence[str]) -> list[ValueQuote]:
        """The field the question names: each document's stated value with its quote."""
        if self.table is None:
            return []
        q = self.table.parse(question, many=True)
        if q is None:
            return []
        wanted = set(doc_ids)
        out = []
        for doc_id, row in self.table.table.rows(q.kind):
            cell = (row.get("cells") or {}).get(q.field.name) or {}
            quote = cell.get("quote")
            if doc_id not in wanted or cell.get("status") != STATED or not quote:
                continue
            shown = " ".join(str(cell.get("display") or "").split())
            label = f"{q.field.label}: {shown}" if shown else q.field.label
            out.append(ValueQuote(doc_id, int(quote[0]), int(quote[1]), label))
        return out

    # --- the documents' table rows ---------------------------------------------------------------------

    def _label_weights(self) -> dict[str, float]:
        """Each term of the documents' row labels with its weight: log(1 + labels / labels holding it), so a
        word most labels share ("total") weighs little."""
        if self._weights is None:
            df: dict[str, int] = {}
            n = 0
            for d in self.docs:
                for key in {m.key for m in self._rows_of(d)}:
                    n += 1
                    for t in set(terms(key)):
                        df[t] = df.get(t, 0) + 1
            self._weights = {t: math.log(1 + n / k) for t, k in df.items()}
        return self._weights

    def _rows_of(self, doc_id: str) -> list[Mention]:
        if doc_id not in self._rows:
            text = self.index.texts.text(doc_id)
            self._rows[doc_id] = row_mentions(doc_id, text)
            found = document_date(text)
            self._dates[doc_id] = found.iso if found is not None else ""
        return self._rows[doc_id]

    def figure_rows(self, question: str, doc_ids: Sequence[str]) -> list[ValueQuote]:
        """The table rows of each document whose label the question names: every term of the label is a word
        of the question, and one of them is rare among the labels (its weight at least `min_label_share` of
        the weight of a word one label alone uses). The most specific label (the largest weight) first,
        ROWS_PER_DOC a document."""
        weights = self._label_weights()
        if not weights:
            return []
        content = " ".join(w for w in WORD.findall(question) if w.lower() not in STOPWORDS and len(w) > 1)
        asked = {t for t in terms(content) if t not in QUESTION_WORDS}
        rare = self.min_label_share * max(weights.values())
        out = []
        for doc_id in doc_ids:
            named = []
            for m in self._rows_of(doc_id):
                label = set(terms(m.key))
                if label and label <= asked and max(weights.get(t, 0.0) for t in label) >= rare:
                    named.append((-sum(weights.get(t, 0.0) for t in label), m.start, m))
            named.sort(key=lambda x: (x[0], x[1]))
            seen: set[str] = set()
            for _, _, m in named:
                if m.key in seen or len(seen) >= ROWS_PER_DOC:
                    continue
                seen.add(m.key)
                when = self._dates.get(doc_id, "")
                out.append(ValueQuote(doc_id, m.start, m.end, f"{m.label} ({when})" if when else m.label))
        return out
