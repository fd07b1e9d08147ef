"""The provisions table of a built wiki: kept values, generated pages, document pages that open with their values,
`wikigen table`, and answers that apply a question's condition (asked in several plain phrasings)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from shared_builds import sample_wiki
from wikigen.agents.orchestrate import BuildConfig, build
from wikigen.search.sources import open_wiki

from wikigen.ask.retrieval import Answerer
from wikigen.cli import main
from wikigen.wiki.lint import check_wiki
from wikigen.wiki.provisions import MAX_CHARS, MAX_LINES, STATED, read_table


@pytest.fixture(scope="module")
def wiki(tmp_path_factory):
    return sample_wiki(tmp_path_factory, tmp_path_factory.mktemp("provisions") / "wiki", sessions=1)


@pytest.fixture(scope="module")
def answerer(wiki):
    return Answerer.open(wiki)


def _governed_by(table, name: str) -> set[str]:
    return {
        d
        for d, r in table.rows("contract")
        if (r["cells"].get("governing_law") or {}).get("status") == STATED
        and name in r["cells"]["governing_law"]["norm"]
    }


def test_every_stated_value_carries_the_documents_own_text_at_its_quote(wiki):
    table = read_table(wiki)
    w = open_wiki(wiki)
    stated = 0
    for doc_id, row in table.documents.items():
        text = w.sources.texts.text(doc_id)
        for cell in row["cells"].values():
            if cell["status"] == STATED:
                s, e = cell["quote"]
                assert cell["text"] == text[s:e]
                stated += 1
    assert stated >= 40
    assert {"contract", "policy"} <= set(table.kinds)


def test_the_provisions_pages_are_generated_within_the_limits_and_linked_from_the_index(wiki):
    hub = (wiki / "provisions-contract.md").read_text(encoding="utf-8")
    assert "Governing law" in hub and "England and Wales" in hub
    parts = sorted(wiki.glob("provisions-contract-*.md"))
    assert parts, "the group tables"
    for p in parts:
        text = p.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= MAX_LINES and len(text) <= MAX_CHARS
    law = (wiki / "provisions-contract-law.md").read_text(encoding="utf-8")
    assert "| [[doc-contracts-msa-brightline-logistics\\|" in law  # the link's '|' escaped in its cell
    assert "[[provisions-contract|" in (wiki / "index.md").read_text(encoding="utf-8")
    by_law = (wiki / "provisions-contract-by-governing-law.md").read_text(encoding="utf-8")
    assert "- **England and Wales** (" in by_law and "[[doc-contracts-msa-brightline-logistics]]" in by_law
    assert check_wiki(open_wiki(wiki)).ok


def test_a_document_page_opens_with_its_values(wiki):
    page = (wiki / "doc-contracts-msa-brightline-logistics.md").read_text(encoding="utf-8")
    provisions = page.split("## Provisions", 1)[1].split("\n## ", 1)[0]
    assert "- Governing law: England and Wales" in provisions
    assert "Not stated: " in provisions and "Non-compete" in provisions.split("Not stated: ", 1)[1]
    assert page.index("## Provisions") < page.index("> [!quote]")  # before what the page quotes


def test_wikigen_table_prints_the_table_as_text_csv_and_json(wiki, capsys):
    assert main(["table", str(wiki), "--kind", "contract", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    msa = next(r for r in rows if r["doc_id"] == "contracts/msa-brightline-logistics")
    assert msa["governing_law"]["value"] == "England and Wales"
    assert msa["governing_law"]["quote"]["start"] < msa["governing_law"]["quote"]["end"]
    assert main(["table", str(wiki), "--kind", "contract", "--csv"]) == 0
    reader = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert any(
        r["doc_id"] == "contracts/msa-brightline-logistics" and r["governing_law"] == "England and Wales"
        for r in reader
    )
    assert main(["table", str(wiki), "--kind", "nonsense"]) == 2
    assert "no documents of kind 'nonsense'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "question",
    [
        "Which contracts are governed by New York law?",
        "List the agreements governed by the laws of New York.",
        "what contracts have new york as the governing law",
        "Show me every contract whose governing law is New York",
    ],
)
def test_a_question_that_names_a_value_lists_exactly_the_documents_that_state_it(answerer, wiki, question):
    want = _governed_by(read_table(wiki), "New York")
    assert want, "the sample corpus has New York contracts"
    r = answerer.ask(question, mode="wiki+search", budget=2000)
    cited = {s["doc_id"] for s in r.answer_spans}
    assert cited == want
    assert r.answer.startswith(f"{len(want)} of ")


@pytest.mark.parametrize(
    "question",
    ["How many contracts are governed by English law?", "how many agreements have England as governing law"],
)
def test_how_many_gets_a_number(answerer, wiki, question):
    want = _governed_by(read_table(wiki), "England")
    r = answerer.ask(question, mode="wiki", budget=2000)
    assert r.answer.split()[0] == str(len(want))


def test_a_question_with_a_negation_lists_the_documents_that_do_not_state_it(answerer, wiki):
    question = "Which contracts have no cap on liability?"
    table = read_table(wiki)
    rows = table.rows("contract")  # "contracts" is the kind's own name: every contract, in any folder
    none = {d for d, row in rows if row["cells"]["liability_cap"]["status"] == "not stated"}
    assert none
    r = answerer.ask(question, mode="wiki+search", budget=3000)
    assert r.answer.startswith(f"{len(none)} of {len(rows)} contracts have Cap on liability: not stated.")
    assert all(d in r.answer for d in none)


def test_a_superlative_sorts(answerer):
    r = answerer.ask("Which contract has the longest notice period to stop renewal?", mode="wiki", budget=2000)
    assert "The longest or highest notice to stop renewal among " in r.answer


def test_a_question_about_one_document_gets_its_value_with_the_quote(answerer):
    r = answerer.ask("What is the governing law of the Brightline master services agreement?", mode="wiki+search")
    assert r.answer.startswith("Governing law: England and Wales.")
    assert r.answer_spans and r.answer_spans[0]["doc_id"] == "contracts/msa-brightline-logistics"


MADE_UP = [
    "Zebra Widgets",
    "Quokka Dynamics",
    "Lantern Ferries",
    "Obsidian Hive",
    "Marrowbone Textiles",
    "Pellucid Orchards",
    "Vintry Analytics",
    "Gossamer Freight",
    "Halcyon Tiles",
    "Brambleworth Pharma",
]


@pytest.mark.parametrize("name", MADE_UP)
def test_a_document_the_corpus_does_not_hold_is_said_so(answerer, name):
    r = answerer.ask(f"What is the notice period in the {name} supply agreement?", mode="wiki+search")
    assert r.answer == f"No document in this corpus matches '{name}'."
    assert r.answer_spans == []


@pytest.mark.parametrize("typed", ["Brihgtline", "Brigthline", "Brightlyne", "Briightline"])
def test_a_misspelt_name_is_answered_with_how_the_corpus_writes_it(answerer, typed):
    """A name one edit away from a word the documents write (two letters swapped, one dropped, added or changed)
    is still absent, and the answer says how a document writes it; a made-up name gets no such word
    (test_a_document_the_corpus_does_not_hold_is_said_so)."""
    r = answerer.ask(f"What is the notice period in the {typed} master services agreement?", mode="wiki+search")
    assert r.answer == f"No document in this corpus matches '{typed}' (a document writes 'Brightline')."
    assert r.answer_spans == []


def test_a_real_name_never_reads_as_absent(answerer, wiki):
    table = read_table(wiki)
    for doc_id, row in table.documents.items():
        r = answerer.ask(f"What does the {row['title']} say about termination?", mode="wiki", budget=500)
        assert not r.answer.startswith("No document in this corpus matches"), (doc_id, row["title"], r.answer)
    for q in ("What is Kestrel's liability cap with Brightline?", "When does the Meridian Rail licence renew?"):
        assert not answerer.ask(q, mode="wiki", budget=500).answer.startswith("No document in this corpus")


def test_documents_of_no_known_kind_get_fields_from_their_recurring_headings(tmp_path):
    corpus = tmp_path / "runbooks"
    corpus.mkdir()
    for i, system in enumerate(["billing", "search", "mail", "queue"]):
        (corpus / f"{system}.txt").write_text(
            f"Runbook {i}: {system}\n\nEscalation\n\nPage the {system} on-call engineer, then the duty manager after "
            f"{10 + i} minutes without an answer.\n\nRollback\n\nRedeploy the last good {system} release from the "
            "artefact store and confirm the health check passes.\n\nContacts\n\nThe team channel.\n\nBackground\n\n"
            + f"The {system} service handles requests for the platform and keeps its own records. " * 30
            + "\n",
            encoding="utf-8",
        )
    wiki = tmp_path / "wiki"
    assert build(BuildConfig(corpus=corpus, wiki=wiki, agents=1, sessions=1, quiet=True)).ok
    table = read_table(wiki)
    assert "document" in table.kinds
    labels = {f["label"].casefold() for f in table.fields("document")}
    assert {"escalation", "rollback"} <= labels
    w = open_wiki(wiki)
    for doc_id, row in table.rows("document"):
        esc = next(c for n, c in row["cells"].items() if n == "escalation")
        s, e = esc["quote"]
        assert esc["text"] == w.sources.texts.text(doc_id)[s:e] and "on-call" in esc["text"]


def _reports(folder: Path) -> None:
    folder.mkdir()
    quarters = [
        ("March 31, 2023", "Q1", 1234, 1100, 301),
        ("June 30, 2023", "Q2", 1310, 1150, 322),
        ("September 30, 2023", "Q3", 1402, 1210, 355),
    ]
    for when, q, sales, prior, income in quarters:
        (folder / f"orbit-2023-{q.lower()}.txt").write_text(
            "FORM 10-Q\n\nQUARTERLY REPORT PURSUANT TO SECTION 13 OF THE SECURITIES EXCHANGE ACT OF 1934\n\n"
            f"For the quarterly period ended {when}\n\nOrbit Devices Inc.\n\n"
            "CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS (in millions)\n\n"
            f"                              Three Months Ended\n"
            f"Total net sales               {sales:,}        {prior:,}\n"
            f"Cost of sales                 {sales // 2:,}        {prior // 2:,}\n"
            f"Net income                    {income:,}        {income - 20:,}\n\n"
            + "The company designs and sells measuring devices to laboratories and factories. " * 25
            + "\n",
            encoding="utf-8",
        )


def test_a_periodic_reports_figures_are_fields_answered_with_the_line_that_states_them(tmp_path):
    corpus = tmp_path / "reports"
    _reports(corpus)
    wiki = tmp_path / "wiki"
    assert build(BuildConfig(corpus=corpus, wiki=wiki, agents=1, sessions=1, quiet=True)).ok
    table = read_table(wiki)
    assert "periodic-report" in table.kinds
    labels = {f["label"].casefold(): f["name"] for f in table.fields("periodic-report")}
    assert "total net sales" in labels
    q3 = table.cell("orbit-2023-q3", labels["total net sales"])
    assert q3["status"] == STATED and q3["display"].startswith("1,402")
    assert "Total net sales" in q3["text"]
    r = Answerer.open(wiki).ask("What were Orbit's total net sales in Q3 2023?")
    assert "1,402" in r.answer
    assert {s["doc_id"] for s in r.answer_spans} == {"orbit-2023-q3"}


# Plain phrasings a user would type, written for the parser's rules, not taken from any eval file.
@pytest.mark.parametrize(
    ("question", "one", "field", "op", "want"),
    [
        (
            "Which of our agreements with suppliers need at least 60 days notice to stop renewal?",
            False,
            "renewal_notice",
            "ge",
            "list",
        ),  # "at least" compares, it is no superlative
        ("What is the expiration date of this agreement?", True, "expiration", None, "value"),
        ("Who are the parties?", True, "parties", None, "value"),  # "Who" names no party
        ("Which contracts are perpetual?", False, "expiration", "eq", "list"),
        ("Which contracts have no cap on liability?", False, "liability_cap", "absent", "list"),
        ("Which contracts do not have a cap on liability?", False, "liability_cap", "absent", "list"),  # 4 words
        ("Which contracts have no cap?", False, "uncapped_liability", "present", "list"),
        # Korean: the field in a verb ("법률에 따르나요"), a value with its particle ("1년인"), the plural 들
        ("어떤 계약이 대한민국 법률에 따르나요?", False, "governing_law", "eq", "list"),
        ("대한민국 법에 따라 해석되는 계약을 모두 알려줘", False, "governing_law", "eq", "list"),
        ("갱신 기간이 1년인 계약은 몇 개인가요?", False, "renewal_term", "eq", "count"),
        ("준거법이 뉴욕주 법률인 계약들은?", False, "governing_law", "eq", "list"),
    ],
)
def test_the_parser_reads_the_field_its_condition_and_the_answer_wanted(question, one, field, op, want):
    from wikigen.search.values.schema import load_schemas

    from wikigen.ask.values import parse_query

    q = parse_query(question, load_schemas(), ["contract"], one_document=one)
    assert q is not None
    assert (q.field.name, q.condition.op if q.condition else None, q.want) == (field, op, want)


@pytest.mark.parametrize(
    "question",
    [
        "Does the document say that the receiving party must return all confidential information when asked?",
        "Can the receiving party disclose information when a court orders it?",
        "Which parties may hire each other's staff after the project ends?",
    ],
)
def test_a_field_word_among_many_others_is_not_the_question(question):
    """A question that holds a field's word ("party", "share") among many words of its own asks something the
    table does not hold: the table stays out of it."""
    from wikigen.search.values.schema import load_schemas

    from wikigen.ask.values import parse_query

    assert parse_query(question, load_schemas(), ["contract"], one_document=True) is None


@pytest.mark.parametrize(
    ("question", "absent"),
    [
        ("Consider Kestrel's licence with Meridian Rail: when does it renew?", None),
        ("Consider the Kestrel and Brightline agreement. What is the liability cap?", None),
        ("Which law governs the Brightline Logistics MSA?", None),  # a short form the documents spell out
        ("Consider Zebra Widgets' supply agreement: what is the notice period?", "'Zebra Widgets'"),
        ("Consider Quokka's Supply Agreement. What is the notice period?", "'Quokka'"),
    ],
)
def test_a_name_is_held_when_each_of_its_parts_is(answerer, question, absent):
    """A possessive, an "and" or a word opening the question ("Consider") does not make a real name absent; a
    made-up party is said to be absent by its own name: the whole answer when it is all the question names, a
    note under the answer when a part of the name is held ("Supply Agreement" is a title two documents hold)."""
    r = answerer.ask(question, mode="wiki", budget=500)
    if absent is None:
        assert "No document in this corpus matches" not in r.answer
    else:
        assert r.answer.endswith(f"No document in this corpus matches {absent}.")
        assert "Quokka" in absent or r.answer == f"No document in this corpus matches {absent}."


def test_two_sentences_that_state_different_values_are_shown_for_a_person_to_check(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "services-agreement.txt").write_text(
        "SERVICES AGREEMENT\n\nThis Services Agreement is made on March 3, 2021 between Alder Ltd and Birch Inc.\n\n"
        "1. Services. Birch shall provide the services described in each order.\n\n"
        + "".join(
            f"{n}. Deliverables. Birch shall deliver the reports of phase {n} to Alder within thirty days of the "
            f"end of the phase, and Alder shall review the reports and pay the fees of phase {n} on acceptance.\n\n"
            for n in range(2, 12)
        )
        + "This Agreement shall be governed by the laws of the State of Delaware.\n\n"
        "Each order under this Agreement shall be governed by the laws of the State of New York.\n",
        encoding="utf-8",
    )
    (corpus / "supply-agreement.txt").write_text(
        "SUPPLY AGREEMENT\n\nThis Supply Agreement is made on May 1, 2022 between Cedar plc and Dove GmbH.\n\n"
        + "".join(
            f"{n}. Supply. Dove shall supply the goods of order {n} to Cedar within thirty days of the order, and "
            f"Cedar shall inspect the goods and pay the price of order {n} on acceptance.\n\n"
            for n in range(2, 12)
        )
        + "This Agreement shall be governed by the laws of England and Wales.\n",
        encoding="utf-8",
    )
    wiki = tmp_path / "wiki"
    assert build(BuildConfig(corpus=corpus, wiki=wiki, agents=1, sessions=1, quiet=True, dense=False)).ok
    hub = (wiki / "provisions-contract.md").read_text(encoding="utf-8")
    section = hub.split("## Stated differently", 1)[1]
    assert "[[doc-services-agreement|" in section and "Delaware; also New York." in section
    assert "doc-supply-agreement" not in section
    page = (wiki / "doc-services-agreement.md").read_text(encoding="utf-8")
    assert "- Governing law: Delaware (another sentence says New York)" in page
    assert main(["table", str(wiki), "--kind", "contract", "--json"]) == 0
    rows = {r["doc_id"]: r for r in json.loads(capsys.readouterr().out)}
    (other,) = rows["services-agreement"]["governing_law"]["others"]
    text = (corpus / "services-agreement.txt").read_text(encoding="utf-8")
    q = other["quote"]
    assert other["value"] == "New York" and q["text"] == text[q["start"] : q["end"]] and "New York" in q["text"]
    assert "others" not in rows["supply-agreement"]["governing_law"]


@pytest.mark.parametrize(
    "question", ["Which contracts are governed by Korean law?", "List the contracts governed by the laws of Korea."]
)
def test_the_kinds_own_name_ranges_over_every_document_of_the_kind(answerer, wiki, question):
    """ "contracts" names the contracts/ folder's collection page too; the table's answer still takes every
    contract, the Korean ones filed under ko/ among them."""
    want = _governed_by(read_table(wiki), "Korea")
    assert want and all(d.startswith("ko/") for d in want)
    r = answerer.ask(question, mode="wiki+search", budget=3000)
    assert r.answer.startswith(f"{len(want)} of {len(read_table(wiki).rows('contract'))} contracts"), r.answer
    assert {s["doc_id"] for s in r.answer_spans} == want


def test_a_korean_question_about_many_contracts_is_not_held_to_one_by_the_domains_words(answerer, wiki):
    """Every Hangul word looks like a name (no case), and with few Korean documents in the corpus the domain's
    words ("계약이", "법률에") are rare: they named the NDA, and "which contracts" got one contract's value. The
    schemas' words name no document; a title said whole, with its particle, still does."""
    want = _governed_by(read_table(wiki), "Korea")
    r = answerer.ask("어떤 계약이 대한민국 법률에 따르나요?", mode="wiki+search", budget=3000)
    assert r.answer.startswith(f"{len(want)} of "), r.answer
    assert {s["doc_id"] for s in r.answer_spans} == want
    _, _, scope = answerer.retrieve("물품공급 기본계약서의 준거법은?", "wiki+search", 3000)
    assert scope.doc_ids == ["ko/hanbit-supply-contract"]
    _, _, scope = answerer.retrieve("비밀유지계약서의 유효기간은?", "wiki+search", 3000)
    assert scope.doc_ids == ["ko/hanbit-nda"]


def test_a_plain_list_question_names_its_kind_in_the_plural(wiki, answerer):
    """ "show me the agreements under NY law": no "which", no "list", yet many documents: the kind's own title word
    in the plural; the abbreviation is New York."""
    want = _governed_by(read_table(wiki), "New York")
    assert want
    r = answerer.ask("show me the agreements under NY law", mode="wiki")
    assert r.answer.startswith(f"{len(want)} of ")
    assert {s["doc_id"] for s in r.answer_spans} == want


def test_a_place_by_its_abbreviation_is_no_absent_name(wiki, answerer):
    """ "Fla." is Florida's abbreviation, which no contract writes: a place the question names is a value asked
    about, never a name the corpus lacks."""
    want = _governed_by(read_table(wiki), "New York")
    r = answerer.ask("show me the agreements under N.Y. law", mode="wiki")
    assert "No document in this corpus matches" not in r.answer
    assert {s["doc_id"] for s in r.answer_spans} == want


def test_an_acronyms_plural_names_its_kind(answerer):
    """'Which NDAs ...' names the kind whose title says "NDA" (the stemmer keeps "ndas" whole, and the page search
    need not rank the kind's page): the table answers for its members only, the consultancy agreement and the MSA
    under English law are not listed."""
    r = answerer.ask("Which NDAs are governed by English law?", mode="wiki+search")
    assert r.scope["kind"] == "collection" and r.scope["pages"] == ["kind-nda"], r.scope
    cited = {sp["doc_id"] for sp in r.answer_spans}
    assert cited == {"contracts/nda-brightline-logistics", "contracts/nda-orrin-metals"}, r.answer


def test_the_words_naming_a_contract_are_not_what_is_asked_of_the_table(answerer):
    """'the Quillfeather maps SDK licence' names the contract (four words) beside one field word ("assignment"):
    the table answers, with the clause, rather than passages."""
    r = answerer.ask("Is assignment of the Quillfeather maps SDK licence restricted?", mode="wiki+search")
    assert r.answer.startswith("Assignment needs consent: Yes."), r.answer
    assert {sp["doc_id"] for sp in r.answer_spans} == {"contracts/licence-quillfeather-maps-sdk"}
