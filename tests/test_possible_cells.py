"""A "possible" cell of the provisions table (a clause that may state the field is quoted, no value claimed) on
every surface: the generated table pages and their legend, the hub's counts, the document page (the clause quoted
under the field's heading), `wikigen table` (text, --json, --csv), MCP `table` and `list_documents`, the Claude
Code export and the answers to a question the table answers, where possible documents are listed apart from the
ones that state the field, each with its clause as a span.

The wiki is built for real; the values stage's reader is wrapped so that one document's cell of a presence field
comes out possible, as a reader that is unsure of a clause makes it (the build keeps, shows and answers from what
the reader gives)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import wikigen.agents.provisions as values_stage
from span_check import SpanChecker
from wikigen.agents.orchestrate import BuildConfig, build
from wikigen.search.sources import open_wiki
from wikigen.search.values.extract import Cell

from wikigen.ask.retrieval import Answerer
from wikigen.cli import main
from wikigen.wiki.lint import check_wiki
from wikigen.wiki.provisions import NOT_STATED, POSSIBLE, STATED, read_table

FIELD, LABEL = "termination_for_convenience", "Termination for convenience"
UNSURE = "The Customer may end any open order by written notice to Dove, and Dove shall then stop work on that order."
FILLER = (
    "{n}. Supply. The Supplier shall deliver the goods of order {n} to the Customer within thirty days of the order, "
    "and the Customer shall inspect the goods and pay the price of order {n} on acceptance.\n\n"
)
DOCS = {
    "supply-alder": (
        "SUPPLY AGREEMENT\n\nThis Supply Agreement is made on March 3, 2021 between Alder Ltd and Birch Inc.\n\n"
        + "".join(FILLER.format(n=n) for n in range(1, 8))
        + "8. Termination. Either party may terminate this Agreement for convenience at any time on ninety (90) "
        "days' written notice to the other party.\n\n"
        "9. Governing law. This Agreement shall be governed by the laws of the State of Delaware.\n"
    ),
    "supply-cedar": (
        "DISTRIBUTION AGREEMENT\n\nThis Distribution Agreement is made on May 1, 2022 between Cedar plc and Dove GmbH.\n\n"
        + "".join(FILLER.format(n=n) for n in range(1, 8))
        + f"8. Orders. {UNSURE}\n\n"
        "9. Governing law. This Agreement shall be governed by the laws of England and Wales.\n"
    ),
    "supply-elm": (
        "SERVICES AGREEMENT\n\nThis Services Agreement is made on June 9, 2023 between Elm Corp and Fir LLC.\n\n"
        + "".join(FILLER.format(n=n) for n in range(1, 8))
        + "8. Governing law. This Agreement shall be governed by the laws of the State of New York.\n"
    ),
}
UNSURE_DOC = "supply-cedar"


def _unsure_reader(real):
    """The values stage's reader, unsure of the UNSURE clause: that document's cell of FIELD is possible, quoted."""

    def extract(text, schema):
        cells = dict(real(text, schema))
        if UNSURE in text:
            s = text.index(UNSURE)
            cells[FIELD] = Cell(FIELD, POSSIBLE, type="presence", quote=(s, s + len(UNSURE)), parts={"score": 0.41})
        return cells

    return extract


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("possible")
    corpus = tmp / "corpus"
    corpus.mkdir()
    for name, text in DOCS.items():
        (corpus / f"{name}.txt").write_text(text, encoding="utf-8")
    wiki = tmp / "wiki"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(values_stage, "extract_values", _unsure_reader(values_stage.extract_values))
        report = build(BuildConfig(corpus=corpus, wiki=wiki, agents=1, sessions=1, quiet=True, dense=False))
    assert report.ok, report.stopped_reason
    return wiki, corpus


def _span() -> tuple[int, int]:
    s = DOCS[UNSURE_DOC].index(UNSURE)
    return s, s + len(UNSURE)


def test_the_build_keeps_the_possible_cell_and_counts_it_neither_stated_nor_not_stated(built):
    wiki, _ = built
    table = read_table(wiki)
    cells = {d: r["cells"][FIELD] for d, r in table.rows("contract")}
    assert [c["status"] for c in cells.values()] == [STATED, POSSIBLE, NOT_STATED]  # alder, cedar, elm
    assert cells[UNSURE_DOC]["text"] == UNSURE and tuple(cells[UNSURE_DOC]["quote"]) == _span()
    counts = table.statuses("contract", FIELD)
    assert (counts[STATED], counts[POSSIBLE], counts[NOT_STATED]) == (1, 1, 1)
    stated, total = table.filled()
    assert stated == table.statuses()[STATED] and total == sum(table.statuses().values())


def test_the_table_pages_mark_the_cell_possible_and_say_what_the_mark_means(built):
    wiki, _ = built
    hub = (wiki / "provisions-contract.md").read_text(encoding="utf-8")
    legend = "possible: a clause that may state it is quoted on the document's page, no value claimed"
    assert legend in hub.split("\n\n", 2)[1]  # the note under the title
    assert f"- **{LABEL}**: stated by 1 of 3: 90 days (1); possible in 1 (a clause quoted, no value claimed)." in hub
    risk = (wiki / "provisions-contract-risk.md").read_text(encoding="utf-8")
    assert legend in risk
    head = next(line for line in risk.splitlines() if line.startswith("| document |"))
    col = [c.strip() for c in head.strip("|").split("|")].index(LABEL)
    row = {
        doc: [c.strip() for c in line.strip("|").replace("\\|", "/").split("|")][col]
        for line in risk.splitlines()
        for doc in DOCS
        if line.startswith(f"| [[doc-{doc}\\|")
    }
    assert row["supply-alder"].startswith("Yes") and row["supply-cedar"] == "possible" and row["supply-elm"] == "—"
    report = check_wiki(open_wiki(wiki))  # every page's quotes verify, the document page's clause among them
    assert [p for p in report.problems if p.kind != "orphan"] == []  # a corpus this small leaves pages unlinked


def test_the_document_page_marks_the_field_possible_with_where_its_clause_is(built):
    """Like a stated value's, a possible clause is quoted in the table, not on the page (quoting each grew small
    wikis past their corpus): the page's line says where it is."""
    wiki, _ = built
    page = (wiki / f"doc-{UNSURE_DOC}.md").read_text(encoding="utf-8")
    provisions = page.split("## Provisions", 1)[1].split("\n## ", 1)[0]
    s, e = _span()
    assert f"- {LABEL}: possible (not sure; check the clause: chars {s}-{e})" in provisions
    assert LABEL not in provisions.split("Not stated: ", 1)[1].split("\n", 1)[0]  # not said to be absent
    other = (wiki / "doc-supply-elm.md").read_text(encoding="utf-8")
    assert "possible" not in other and LABEL in other.split("Not stated: ", 1)[1].split("\n", 1)[0]


def test_wikigen_table_shows_the_status_with_its_clause_in_text_json_and_csv(built, capsys):
    wiki, _ = built
    s, e = _span()
    capsys.readouterr()
    assert main(["table", str(wiki), "--kind", "contract"]) == 0
    text = capsys.readouterr().out.split(f"{UNSURE_DOC}  ", 1)[1].split("\nsupply-", 1)[0]
    assert f"  {LABEL:<28} possible (not sure; check the clause)  (chars {s}-{e})" in text.splitlines()
    assert main(["table", str(wiki), "--kind", "contract", "--json"]) == 0
    rows = {r["doc_id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows[UNSURE_DOC][FIELD] == {"status": "possible", "quote": {"start": s, "end": e, "text": UNSURE}}
    assert rows["supply-alder"][FIELD]["status"] == "stated" and rows["supply-elm"][FIELD] == {"status": "not stated"}
    assert main(["table", str(wiki), "--kind", "contract", "--csv"]) == 0
    by_doc = {r["doc_id"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert (by_doc[UNSURE_DOC][FIELD], by_doc["supply-elm"][FIELD]) == ("possible", "")
    assert by_doc["supply-alder"][FIELD].startswith("Yes")


def test_mcp_table_gives_the_clause_apart_from_the_values(built):
    from wikigen.mcp_server import WikiTools

    wiki, _ = built
    s, e = _span()
    tools = WikiTools(wiki)
    one = {r["doc_id"]: r for r in tools.table(kind="contract", field=LABEL)["rows"]}
    assert one[UNSURE_DOC][FIELD] == {"status": "possible", "quote": {"start": s, "end": e, "text": UNSURE}}
    yes = tools.table(kind="contract", field=FIELD, value="yes")["rows"]
    assert [r["doc_id"] for r in yes] == ["supply-alder"]  # a possible cell holds no value to match
    rows = {r["doc_id"]: r for r in tools.table(kind="contract")["rows"]}
    assert rows[UNSURE_DOC]["possible"] == {FIELD: {"quote": [s, e]}} and FIELD not in rows[UNSURE_DOC]["values"]
    assert FIELD in rows["supply-alder"]["values"] and "possible" not in rows["supply-alder"]
    docs = {d["doc_id"]: d for d in tools.list_documents()["documents"]}
    assert LABEL not in docs[UNSURE_DOC]["facts"]  # a fact is a value; the clause is in `table`


def test_the_export_lists_the_field_as_possible_with_its_clauses_chars(built, tmp_path):
    from wikigen.export import export_claude_code

    wiki, _ = built
    s, e = _span()
    export_claude_code(open_wiki(wiki), tmp_path / "memory")
    text = (tmp_path / "memory" / "provisions-contract.md").read_text(encoding="utf-8")
    block = text.split(f"`{UNSURE_DOC}`", 1)[1].split("\n- ", 1)[0]
    assert f"  - {LABEL}: possible, no value claimed (not sure; check the clause: chars {s}-{e})" in block
    assert "a field marked possible: a clause that may state it, no value claimed" in text
    assert f"{LABEL}: Yes" in text.split("`supply-alder`", 1)[1].split("\n- ", 1)[0]


@pytest.mark.parametrize(
    "question",
    ["Which contracts can be terminated for convenience?", "How many contracts can be terminated for convenience?"],
)
def test_a_table_answer_lists_possible_documents_apart_with_their_clause(built, question, capsys):
    wiki, corpus = built
    s, e = _span()
    api = Answerer.open(wiki).ask(question)
    lines = api.answer.splitlines()
    assert lines[0] == f"1 of 3 contracts have {LABEL}: stated."  # never counted among the Yes documents
    cedar = read_table(wiki).documents[UNSURE_DOC]["title"]
    assert f"And 1 possible (a clause that may state it, not sure; check the clause): {cedar}." in lines
    assert f'- {cedar}: possible — "{UNSURE}" ({UNSURE_DOC}, chars {s}-{e})' in lines
    assert not any(line.startswith(f"- {cedar}: Yes") for line in lines)
    spans = [(sp["doc_id"], sp["start"], sp["end"]) for sp in api.answer_spans]
    assert spans[0][0] == "supply-alder" and (UNSURE_DOC, s, e) in spans
    checker = SpanChecker(lambda d: (corpus / f"{d}.txt").read_text(encoding="utf-8"))
    assert checker.within(api.answer_spans, api.answer, "answer", collapse=True) == []  # each span verifies
    capsys.readouterr()
    assert main(["ask", question, "--wiki", str(wiki), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["answer"] == api.answer and cli["answer_spans"] == api.answer_spans  # one code path


def test_a_negated_question_keeps_the_possible_document_apart_too(built):
    wiki, _ = built
    r = Answerer.open(wiki).ask("Which contracts have no termination for convenience?")
    cedar = read_table(wiki).documents[UNSURE_DOC]["title"]
    lines = r.answer.splitlines()
    assert lines[0] == f"1 of 3 contracts have {LABEL}: not stated."
    assert any(line.startswith("And 1 possible (") and line.endswith(f": {cedar}.") for line in lines)


def test_a_question_about_the_one_document_gets_its_clause_not_a_value(built):
    """Asked of the one document (as when the wiki scopes the question to it), the answer says "possible" and
    quotes the clause; its one span is the clause's."""
    from wikigen.search.values.schema import load_schemas

    from wikigen.ask.values import TableAnswers

    wiki, _ = built
    s, e = _span()
    answers = TableAnswers(read_table(wiki), load_schemas())
    q = answers.parse("Can it be terminated for convenience?", one_document=True)
    assert q is not None and q.field.name == FIELD and q.want == "value"
    r = answers.answer(q, [UNSURE_DOC])
    assert r.matches == [] and [d for d, _ in r.possible] == [UNSURE_DOC]
    assert answers.text(r) == (
        f'{LABEL}: possible, no value claimed (not sure; check the clause).\n"{UNSURE}" ({UNSURE_DOC}, chars {s}-{e})'
    )
    assert answers.spans(r) == [{"doc_id": UNSURE_DOC, "start": s, "end": e}]
    stated = answers.answer(q, ["supply-alder"])  # a stated value is answered as before
    assert answers.text(stated).startswith(f"{LABEL}: Yes: 90 days.\n") and stated.possible == []
