"""The documents table (wikigen.search.documents) and page summaries (wikigen.wiki.summary): what the web view's
home, the export's MEMORY.md and MCP's list_documents show of each document and page."""

from __future__ import annotations

from dataclasses import dataclass, replace

from wikigen.search.documents import Cell, columns, document_rows, page_facts

from wikigen.wiki.page import Page
from wikigen.wiki.provisions import NOT_STATED, STATED, Table
from wikigen.wiki.summary import page_summary

OPENING = (
    "CO-BRANDING AGREEMENT\n\nThis Co-Branding Agreement is made on June 21, 1999 between Acme Widgets, Inc., "
    'a Delaware corporation ("Acme"), and Borealis Media LLC, a New York limited liability company ("Borealis").\n'
)


@dataclass
class Doc:
    doc_id: str
    title: str
    chars: int = 0


class Texts:
    def __init__(self, texts: dict[str, str]):
        self.texts = texts

    def text(self, doc_id: str) -> str:
        return self.texts[doc_id]


class Sources:
    """The part of a corpus index the table reads: documents() and texts."""

    def __init__(self, texts: dict[str, str]):
        self.texts = Texts(texts)

    def documents(self):
        return [Doc(d, t.split("\n", 1)[0]) for d, t in self.texts.texts.items()]


def _doc_page(doc_id: str, title: str, body: str = "") -> Page:
    slug = "doc-" + doc_id.replace("/", "-")
    return Page(slug=slug, title=title, owner="agent-1", description="", type="document", sources=[doc_id], body=body)


def test_same_titled_documents_are_told_apart_by_parties_then_date():
    texts = {
        "a/one": OPENING,
        "a/two": OPENING.replace("Borealis Media LLC", "Cygnus Films Ltd").replace("Borealis", "Cygnus"),
        "a/three": OPENING.replace("June 21", "July 4"),
        "a/four": OPENING.replace("June 21", "July 4"),  # the same parties and date as three
        "b/other": "SUPPLY AGREEMENT\n\nNothing else here.\n",
    }
    pages = [_doc_page(d, t.split("\n", 1)[0]) for d, t in texts.items()]
    rows = {r.doc_id: r for r in document_rows(pages, Sources(texts))}
    assert rows["a/one"].label == "CO-BRANDING AGREEMENT (Acme Widgets, Inc.; Borealis Media LLC; 1999-06-21)"
    assert rows["a/two"].label == "CO-BRANDING AGREEMENT (Acme Widgets, Inc.; Cygnus Films Ltd; 1999-06-21)"
    assert rows["a/three"].label.endswith("1999-07-04) [a/three]") and rows["a/four"].label.endswith("[a/four]")
    assert rows["b/other"].label == "SUPPLY AGREEMENT"  # a unique title stays as it is
    one = rows["a/one"]
    assert one.names == ["Acme Widgets, Inc.", "Borealis Media LLC"] and one.date.value == "1999-06-21"
    assert OPENING[one.date.start : one.date.end] == "June 21, 1999"  # every value carries its span
    assert OPENING[one.parties.start : one.parties.end].startswith("Acme Widgets, Inc.")
    assert one.kind == "Co-branding agreement" and one.slug == "doc-a-one"
    assert len({r.label for r in rows.values()}) == len(rows)


def test_kind_is_the_smallest_collection_that_lists_the_document():
    texts = {"a/one": OPENING, "b/other": "SUPPLY AGREEMENT\n\nNothing else here.\n"}
    pages = [_doc_page(d, t.split("\n", 1)[0]) for d, t in texts.items()]
    pages += [
        Page("kind-contract", "Contracts", "agent-1", "", type="collection", sources=["a/one", "b/other"]),
        Page("kind-co-branding", "Co branding agreements", "agent-1", "", type="collection", sources=["a/one"]),
    ]
    rows = {r.doc_id: r for r in document_rows(pages, Sources(texts))}
    assert rows["a/one"].kind == "Co branding agreements"
    assert rows["a/one"].collections == ["kind-co-branding", "kind-contract"]
    assert rows["b/other"].kind == "Contracts"


def test_page_facts_are_the_key_fact_headings_over_their_quotes():
    body = (
        "In [[kind-x]].\n\n## Key facts\n\n### Title: CO-BRANDING AGREEMENT\n\n> [!quote] (chars 0-21)\n"
        "> CO-BRANDING AGREEMENT\n\n### Parties: Acme Widgets, Inc. (“Acme”); Borealis Media LLC; "
        "Effective date: 1999-06-21\n\n> [!quote] (chars 23-60)\n> This Co-Branding Agreement is made on June\n\n"
        "### Term: 2 years\n\nNo quote under this one.\n\n## Liability\n\n> [!quote] (chars 70-80)\n> limited to\n"
    )
    facts = page_facts(_doc_page("a/one", "CO-BRANDING AGREEMENT", body))
    assert [(f.label, f.value, f.start, f.end) for f in facts] == [
        ("Title", "CO-BRANDING AGREEMENT", 0, 21),
        ("Parties", "Acme Widgets, Inc. (“Acme”); Borealis Media LLC", 23, 60),
        ("Effective date", "1999-06-21", 23, 60),
    ]
    rows = document_rows([_doc_page("a/one", "CO-BRANDING AGREEMENT", body)])
    assert rows[0].facts == facts and rows[0].parties is None  # without the corpus: the page alone
    assert [f.label for f in rows[0].values()] == ["Effective date"]  # not the title or parties again


def _stated(field: str, display: str, start: int, end: int, norm: str = "") -> dict:
    return {"field": field, "status": STATED, "display": display, "norm": norm, "quote": [start, end], "text": "..."}


def _contracts(cells: dict[str, dict[str, dict]]) -> Table:
    fields = [
        {"name": "parties", "label": "Parties", "type": "party", "group": "basics"},
        {"name": "agreement_date", "label": "Agreement date", "type": "date", "group": "basics"},
        {"name": "expiration", "label": "Expiration", "type": "term", "group": "term"},
        {"name": "governing_law", "label": "Governing law", "type": "jurisdiction", "group": "law"},
    ]
    docs = {d: {"kind": "contract", "title": d, "sha": "", "cells": c} for d, c in cells.items()}
    return Table({"contract": {"label": "Contracts", "fields": fields}}, docs)


def test_the_provisions_table_gives_the_extra_columns():
    """Each stated value of the provisions table is a column of its document's row, with its quote's span; the
    parties field and a date column that only repeats the Date column are left out; the fullest column first."""
    texts = {"a/one": OPENING, "b/other": "SUPPLY AGREEMENT\n\nNothing else here.\n", "c/none": "MEMO\n\nHello.\n"}
    long_law = "the laws of the State of Delaware, without regard to its conflict of laws rules"
    table = _contracts(
        {
            "a/one": {
                "parties": _stated("parties", "Acme Widgets, Inc.; Borealis Media LLC", 60, 180),
                "agreement_date": _stated("agreement_date", "1999-06-21", 38, 51, "1999-06-21"),
                "expiration": {"field": "expiration", "status": NOT_STATED},
                "governing_law": _stated("governing_law", "New York", 100, 140, "New York"),
            },
            "b/other": {
                "expiration": _stated("expiration", "2 years", 10, 30, "P2Y"),
                "governing_law": _stated("governing_law", long_law, 5, 90, "Delaware"),
            },
        }
    )
    body = "## Key facts\n\n### Governing law: New York\n\n> [!quote] (chars 100-140)\n> governed by New York law\n"
    pages = [_doc_page("a/one", "CO-BRANDING AGREEMENT", body), _doc_page("b/other", "SUPPLY AGREEMENT")]
    rows = {r.doc_id: r for r in document_rows(pages, Sources(texts), table)}
    one, other = rows["a/one"], rows["b/other"]
    assert one.extra == {"Governing law": Cell("New York", 100, 140, "Governing law")}  # no parties, no date again
    assert other.extra == {
        "Expiration": Cell("2 years", 10, 30, "Expiration"),
        "Governing law": Cell("Delaware", 5, 90, "Governing law"),  # a long value shows its canonical form
    }
    assert rows["c/none"].extra == {}  # a document the table does not hold
    assert columns(rows.values()) == ["Governing law", "Expiration"]
    assert [(c.label, c.value) for c in one.values()] == [("Governing law", "New York")]  # the page's fact not twice
    assert one.to_dict()["extra"]["Governing law"] == {
        "value": "New York",
        "label": "Governing law",
        "start": 100,
        "end": 140,
    }

    # a date field that differs from the Date column somewhere is a column of its own, on every row that states it
    table.documents["b/other"]["cells"]["agreement_date"] = _stated("agreement_date", "2001-01-01", 0, 10)
    rows = {r.doc_id: r for r in document_rows(pages, Sources(texts), table)}
    assert rows["a/one"].extra["Agreement date"].value == "1999-06-21"
    assert rows["b/other"].extra["Agreement date"] == Cell("2001-01-01", 0, 10, "Agreement date")
    assert [c.value for c in rows["a/one"].values()] == ["New York"]  # a value equal to the date is not said twice


def test_page_summary_says_what_a_topic_holds():
    body = (
        "## [[doc-a]]\n\n> [!quote] a (chars 0-40)\n> This Agreement is governed by the laws of Delaware.\n\n"
        "## [[doc-b]]\n\n> [!quote] b (chars 5-30)\n> Governed by English law.\n\n"
        "Also in [[doc-c]], [[doc-d]] and 12 other documents.\n\nRelated: [[topic-venue]].\n"
    )
    p = Page(
        "topic-governing-law",
        "Governing Law",
        "agent-1",
        "The section under this heading, quoted from 2 of 16 documents",
        type="topic",
        sources=["a", "b"],
        aliases=["Choice of Law", "Applicable law"],
        body=body,
    )
    assert page_summary(p) == (
        "Governing Law (also Choice of Law, Applicable law): quoted from 2 of 16 documents; "
        "e.g. “This Agreement is governed by the laws of Delaware.”"
    )
    assert (
        page_summary(p, excerpt=False, title=False)
        == "also Choice of Law, Applicable law: quoted from 2 of 16 documents"
    )
    assert len(page_summary(p, 80)) <= 80
    for also, total in (
        ("Also in 14 other documents.", 16),
        ("Also in 1 other document.", 3),
        ("Also in [[doc-c]].", 3),
    ):
        counted = replace(p, body=body.replace("Also in [[doc-c]], [[doc-d]] and 12 other documents.", also))
        assert page_summary(counted, excerpt=False, title=False).endswith(f"quoted from 2 of {total} documents"), also
    coll = Page("kind-nda", "NDAs", "agent-1", "", type="collection", sources=["a", "b", "c"])
    assert page_summary(coll) == "NDAs: 3 documents of this kind"
