"""The documents table (wikigen.ask.documents) and page summaries (wikigen.wiki.summary): what the web view's
home, the export's MEMORY.md and MCP's list_documents show of each document and page."""

from __future__ import annotations

from dataclasses import dataclass

from wikigen.ask.documents import document_rows, page_facts
from wikigen.wiki.page import Page
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
    coll = Page("kind-nda", "NDAs", "agent-1", "", type="collection", sources=["a", "b", "c"])
    assert page_summary(coll) == "NDAs: 3 documents of this kind"
