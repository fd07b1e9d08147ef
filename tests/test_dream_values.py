"""Dreaming with values: a question that names a figure gets each document's table row, labelled with the
figure and the document's own date, on the dreamer's page; and in wiki mode a dreamer's page never comes
before a more specific page for a question on another subject.

The corpus is built here: two quarterly reports, each with a small table laid out as text (one label, then
amounts), and prose that names the same words without the figures."""

from __future__ import annotations

from pathlib import Path

import pytest
from wikigen.agents.dream_sessions import DreamConfig, dream
from wikigen.agents.dream_values import WikiValues
from wikigen.agents.orchestrate import BuildConfig, build
from wikigen.search.sources import open_wiki

from wikigen.ask.retrieval import Answerer
from wikigen.wiki.human import DREAMER
from wikigen.wiki.markup import Quote, format_quote
from wikigen.wiki.page import Page, parse_page
from wikigen.wiki.question_log import QuestionLog, asked_questions

REPORT = """Northwind Instruments Inc.
Quarterly Report for the quarterly period ended {date}

Management discussion

Our engineers worked on new sensor lines this quarter. Spending on research and development reflects
headcount and the cost of prototypes; we expect it to stay at a similar level. Sales of instruments
depend on orders from laboratories, which vary from quarter to quarter.

Condensed statement of operations
(in thousands)

    Net sales                               {sales}        {sales_before}
    Cost of sales                           {cost}         {cost_before}
    Research and development                {rnd}          {rnd_before}
    Selling and marketing                   {sm}           {sm_before}

Legal proceedings

The company is not a party to any proceeding that it expects to affect its results. A supplier filed a
claim about a late payment, which the company disputes and expects to settle.

Accounting policies

There were no changes to the accounting policies described in the annual report. The company adopted
no new accounting standard this quarter.
"""

# research and development is the same in both reports: a constant line is no figure to the build (net sales,
# which differs, is one), so only the dreamer's rows give it, labelled with each report's date
FIGURES = {
    "q1": {"date": "April 2, 2023", "sales": "48,210", "cost": "21,004", "rnd": "6,117", "sm": "3,880"},
    "q2": {"date": "July 2, 2023", "sales": "51,377", "cost": "22,561", "rnd": "6,117", "sm": "4,015"},
}
BEFORE = {"sales_before": "45,002", "cost_before": "20,118", "rnd_before": "5,804", "sm_before": "3,702"}
ASKED = "How much did Northwind spend on research and development in each quarter?"


def _corpus(root: Path) -> Path:
    docs = root / "reports"
    docs.mkdir(parents=True)
    for name, f in FIGURES.items():
        (docs / f"northwind-2023-{name}.txt").write_text(REPORT.format(**f, **BEFORE), encoding="utf-8")
    return docs


@pytest.fixture(scope="module")
def reports_wiki(tmp_path_factory):
    """A one-session wiki of the two reports; its question log holds ASKED, asked from the CLI."""
    base = tmp_path_factory.mktemp("dream-values")
    root = base / "wiki"
    config = BuildConfig(corpus=_corpus(base), wiki=root, agents=1, sessions=1, quiet=True, dense=False, max_ratio=4.0)
    assert build(config).ok  # two short reports: a wiki of their pages is near their size already
    Answerer.open(root, log="cli", dense=False).ask(ASKED)
    return root


def test_a_figure_the_question_names_is_quoted_from_each_documents_table(reports_wiki):
    w = open_wiki(reports_wiki)
    found = WikiValues(reports_wiki, w.sources).values(ASKED, [])
    rows = {(v.doc_id, w.sources.texts.read(v.doc_id, v.start, v.end).split()[-2]) for v in found}
    assert rows == {("northwind-2023-q1", FIGURES["q1"]["rnd"]), ("northwind-2023-q2", FIGURES["q2"]["rnd"])}
    assert {v.label for v in found} == {
        "Research and development (2023-04-02)",
        "Research and development (2023-07-02)",
    }
    # a label the question names in part names no row ("total sales": neither "Net sales" nor "Cost of sales")
    values = WikiValues(reports_wiki, w.sources)
    assert values.values("What changed in the research?", []) == []
    assert values.values("What were the total sales?", []) == []
    # (a row, labelled with its date, and the table's cell of a figure the build found: "Net sales: 48,210 ...")
    named = {v.label.split(" (")[0].split(":")[0] for v in values.values("What were the net sales?", [])}
    assert named == {"Net sales"}


def test_dreaming_writes_the_figure_with_its_label_and_period(reports_wiki, tmp_path):
    import shutil

    root = tmp_path / "wiki"
    shutil.copytree(reports_wiki, root, symlinks=True)
    asked = asked_questions(QuestionLog(root).read().entries)
    assert [a.question for a in asked] == [ASKED] and asked[0].weak
    report = dream(DreamConfig(root, sessions=1, dense=False))
    assert report.sessions
    pages = [p for p in open_wiki(root).pages() if p.owner == DREAMER and p.slug != "dream-questions"]
    assert len(pages) == 1
    text = (root / f"{pages[0].slug}.md").read_text(encoding="utf-8")
    for name, f in FIGURES.items():
        doc = f"northwind-2023-{name}"
        quotes = [q for q in parse_page(text).quotes() if q.doc_id == doc]
        assert any(f["rnd"] in q.text and q.text.startswith("Research and development") for q in quotes), doc
    assert "Research and development (2023-04-02):" in text and "Research and development (2023-07-02):" in text
    # the other report's question, never asked, is now served by the wiki alone: its row is in the context
    ctx = Answerer.open(root, dense=False).ask(ASKED.replace("each quarter", "the July quarter"), mode="wiki").context
    assert any(FIGURES["q2"]["rnd"] in c.text for c in ctx)


def test_a_dreamers_page_comes_after_the_page_a_question_on_another_subject_names(reports_wiki, tmp_path):
    """A dream page found by the words people asked with ("disclosed in the recent quarter") never fills a
    wiki-mode context before the pages of a question on another subject."""
    import shutil

    root = tmp_path / "wiki"
    shutil.copytree(reports_wiki, root, symlinks=True)
    w = open_wiki(root)
    doc = "northwind-2023-q2"
    text = w.sources.texts.text(doc)

    def quote(start_words: str, end_words: str) -> Quote:
        s = text.index(start_words)
        e = text.index(end_words, s) + len(end_words)
        return Quote(doc, s, e, text[s:e])

    legal = quote("The company is not a party", "expects to settle.")
    policy = quote("There were no changes", "this quarter.")
    # the subject words of the questions it was written for: a few name its subject, most how people asked
    asked_like = ["accounting policies adopted standards disclosed recent quarter compared previous quarters"]
    dream_page = Page(
        "dream-accounting-policies",
        "Accounting policies adopted standards annual report",
        DREAMER,
        "Asked twice",
        aliases=asked_like,
        body=f"Gathered by dreaming.\n\n{format_quote(policy)}\n",
    )
    w.write(dream_page, agent=DREAMER, session=2)
    legal_page = Page("legal-claims", "Legal proceedings", "agent-1", "Claims", body=f"{format_quote(legal)}\n")
    w.write(legal_page, agent="agent-1", session=2)
    question = "Which legal proceedings were disclosed in the recent quarter?"
    a = Answerer.open(root, dense=False)
    items, _, _ = a.retrieve(question, mode="wiki", budget=4000)
    pages = [u.page for it in items for u in it.parts]
    assert pages[0] == "legal-claims" and len(set(pages)) > 2  # the document pages' quotes come in too
    if dream_page.slug in pages:  # ... and every other page's before the dreamer's
        assert all(p == dream_page.slug for p in pages[pages.index(dream_page.slug) :]), pages
    # a question that names the dreamer's subject is still served by its page first
    items, _, _ = a.retrieve("Which accounting policies and standards were adopted?", mode="wiki", budget=400)
    assert [u.page for it in items for u in it.parts][:1] == [dream_page.slug]
