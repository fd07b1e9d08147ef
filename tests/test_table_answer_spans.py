"""A table answer's spans are the text it shows: a list answer cuts each document's quote to a line (at a word),
and its span then covers the words shown, never the rest of the clause (which the answer does not hold). Checked
with the independent span checker on a real build whose governing-law clauses are longer than a listed quote."""

from __future__ import annotations

from pathlib import Path

import pytest
from span_check import SpanChecker
from wikigen.agents.orchestrate import BuildConfig, build

from wikigen.ask.retrieval import Answerer
from wikigen.ask.values import LIST_QUOTE

LONG_LAW = (
    "This Agreement and all claims or causes of action (whether in contract, tort or statute) that may be based "
    "upon, arise out of or relate to this Agreement, or the negotiation, execution or performance of this "
    "Agreement, shall be governed by and construed in accordance with the internal laws of the State of "
    "Delaware, including its statutes of limitations, without giving effect to any choice or conflict of law "
    "provision or rule that would cause the application of the laws of any other jurisdiction."
)
FILLER = "{n}. Services. The Provider shall perform the services of statement {n} with due care and skill.\n\n"


def _doc(title: str, parties: str) -> str:
    return (
        f"{title}\n\nThis {title.title()} is made on March 3, 2021 between {parties}.\n\n"
        + "".join(FILLER.format(n=n) for n in range(1, 6))
        + f"6. Governing law. {LONG_LAW}\n"
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("table-spans")
    corpus = tmp / "corpus"
    corpus.mkdir()
    for name, title, parties in [
        ("services-aspen", "SERVICES AGREEMENT", "Aspen Ltd and Beech Inc"),
        ("consulting-holly", "CONSULTING AGREEMENT", "Holly Corp and Ivy LLC"),
    ]:
        (corpus / f"{name}.txt").write_text(_doc(title, parties), encoding="utf-8")
    wiki = tmp / "wiki"
    report = build(BuildConfig(corpus=corpus, wiki=wiki, agents=1, sessions=1, quiet=True, dense=False))
    assert report.ok, report.stopped_reason
    return wiki, corpus


@pytest.mark.parametrize(
    "question", ["Which contracts are governed by Delaware law?", "What law governs the Aspen services agreement?"]
)
def test_each_span_of_a_table_answer_is_text_the_answer_shows(built, question):
    wiki, corpus = built
    r = Answerer.open(wiki).ask(question)
    assert len(LONG_LAW) > LIST_QUOTE and "Delaware" in r.answer
    assert r.answer_spans, r.answer
    checker = SpanChecker(lambda d: (corpus / f"{d}.txt").read_text(encoding="utf-8"))
    assert checker.within(r.answer_spans, r.answer, "answer", collapse=True) == []
    # each quote shows where the value is stated, though it lies beyond a line's length into the clause
    assert LONG_LAW.index("Delaware") > LIST_QUOTE
    for sp in r.answer_spans:
        text = (corpus / f"{sp['doc_id']}.txt").read_text(encoding="utf-8")
        assert "Delaware" in text[sp["start"] : sp["end"]]
