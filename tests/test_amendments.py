"""Issue 13 items 3 and 4: amendments that supersede, and conflicts between documents.

Small corpora written here (English and Korean) and the sample corpus (corpora/acme): the chain is found
by generic rules, the base's page and the amendment's page link each other, the base's page shows the
current term quoting the amendment with the superseded text kept and marked (both quotes verified),
`ask` prefers the current term and says what it superseded, and two unrelated documents with the same
parties and different values are listed as a conflict (an amendment and its base never are)."""

import json
from pathlib import Path

import pytest
from shared_builds import sample_wiki
from wikigen.agents.amendment_pages import SUPERSEDED_NOTE, apply_amendments, detect_amendments
from wikigen.agents.orchestrate import BuildConfig, build
from wikigen.search.facts.amendments import find_amendments
from wikigen.search.facts.conflicts import find_conflicts
from wikigen.search.sources import open_wiki

from wikigen.ask.retrieval import Answerer
from wikigen.cli import main
from wikigen.wiki.lint import check_wiki
from wikigen.wiki.page import Page

REPO = Path(__file__).resolve().parent.parent
ACME = REPO / "corpora" / "acme"

BASE = """SERVICES AGREEMENT

This Services Agreement is made on 1 March 2023 between Northwind Traders Ltd ("Northwind") and Bluefin Analytics Inc. ("Bluefin").

1. Services. Bluefin shall provide analytics services to Northwind.

2. Term. This Agreement continues for two (2) years from its date.

3. Termination. Either party may terminate this Agreement by giving the other party a notice period of thirty (30) days in writing.

4. Fees. Northwind shall pay a monthly fee of USD 12,000.

Signed: Northwind Traders Ltd, Bluefin Analytics Inc.
"""

AMENDMENT = """AMENDMENT No. 1 TO THE SERVICES AGREEMENT

This Amendment is dated 5 May 2024 between Northwind Traders Ltd ("Northwind") and Bluefin Analytics Inc. ("Bluefin") and amends the Services Agreement dated 1 March 2023 (the "Agreement").

1. Notice. In clause 3 of the Agreement, the notice period is changed from thirty (30) days to ninety (90) days.

2. Everything else in the Agreement stays the same.
"""

OTHER = """SERVICES AGREEMENT

This Services Agreement is made on 9 September 2024 between Northwind Traders Ltd ("Northwind") and Bluefin Analytics Inc. ("Bluefin").

1. Services. Bluefin shall provide data cleaning services to Northwind.

2. Termination. Either party may terminate this Agreement by giving the other party a notice period of sixty (60) days in writing.
"""

KO_BASE = """물품공급 계약서

계약번호: NW-KO-2023-01

가나상사 주식회사(이하 "갑"이라 한다)와 다라전자 주식회사(이하 "을"이라 한다)는 다음과 같이 계약을 체결한다.

제5조 (계약의 해지)
어느 당사자든 상대방에게 해지일 30일 전까지 서면으로 통지하여 이 계약을 해지할 수 있다.

2023년 2월 1일
"""

KO_AMENDMENT = """물품공급 계약 변경계약서

가나상사 주식회사(이하 "갑"이라 한다)와 다라전자 주식회사(이하 "을"이라 한다)는 2023년 2월 1일 체결한 물품공급 계약(계약번호 NW-KO-2023-01)의 일부를 다음과 같이 변경한다.

제1조 (해지 통지기간의 변경)
원계약 제5조 중 "해지일 30일 전까지"를 "해지일 60일 전까지"로 변경한다.

2024년 6월 3일
"""


def _corpus(tmp_path, files: dict[str, str]) -> Path:
    root = tmp_path / "corpus"
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def _build(tmp_path, files: dict[str, str]) -> Path:
    wiki = tmp_path / "wiki"
    report = build(
        BuildConfig(
            corpus=_corpus(tmp_path, files), wiki=wiki, agents=1, sessions=1, quiet=True, dense=False, max_ratio=20.0
        )
    )  # a corpus of a few lines: the pages outweigh it
    assert report.ok, report.stopped_reason
    return wiki


# --- detection -------------------------------------------------------------------------------------


def test_an_amendment_finds_its_base_and_the_changed_figure_with_spans():
    texts = {"base": BASE, "amend": AMENDMENT, "other": OTHER}
    [a] = find_amendments(texts)
    assert (a.doc_id, a.base_id, a.date) == ("amend", "base", "2024-05-05")
    assert {e.kind for e in a.evidence} >= {"cue", "party", "date"}
    [c] = a.changes
    assert (c.kind, c.old_value, c.new_value) == ("duration", "thirty (30) days", "ninety (90) days")
    assert BASE[c.old_span[0] : c.old_span[1]] == "thirty (30) days"
    assert AMENDMENT[c.new_span[0] : c.new_span[1]] == "ninety (90) days"
    assert "notice period of thirty (30) days" in BASE[c.old_quote[0] : c.old_quote[1]]
    assert "changed from thirty (30) days to ninety (90) days" in AMENDMENT[c.new_quote[0] : c.new_quote[1]]


def test_korean_amendment_quoted_wording_change_with_character_offsets():
    [a] = find_amendments({"ko/base": KO_BASE, "ko/amend": KO_AMENDMENT})
    assert (a.base_id, a.date) == ("ko/base", "2024-06-03")
    [c] = a.changes
    assert (c.old_value, c.new_value) == ("해지일 30일 전까지", "해지일 60일 전까지")
    assert KO_BASE[c.old_span[0] : c.old_span[1]] == "해지일 30일 전까지"  # characters, not bytes
    assert KO_AMENDMENT[c.new_span[0] : c.new_span[1]] == "해지일 60일 전까지"


def test_no_chain_without_a_cue_or_without_shared_parties():
    assert find_amendments({"base": BASE, "other": OTHER}) == []  # no document calls itself an amendment
    stranger = AMENDMENT.replace("Northwind Traders Ltd", "Zephyr Holdings Ltd").replace(
        "Bluefin Analytics Inc.", "Quarry Partners LLC"
    )
    assert find_amendments({"base": BASE, "amend": stranger}) == []


def test_conflict_listed_between_unrelated_documents_but_never_inside_a_chain():
    texts = {"base": BASE, "amend": AMENDMENT, "other": OTHER}
    chains = find_amendments(texts)
    found = find_conflicts(texts, chains)
    pairs = {(c.sides[0].doc_id, c.sides[1].doc_id) for c in found}
    assert ("base", "other") in pairs
    assert not any("amend" in p for p in pairs)  # the chain supersedes, no conflict
    c = next(c for c in found if (c.sides[0].doc_id, c.sides[1].doc_id) == ("base", "other"))
    assert c.label == "notice period" and {s.value for s in c.sides} == {"30 days", "60 days"}
    for s in c.sides:
        assert texts[s.doc_id][s.quote_start : s.quote_end] == s.text
        assert texts[s.doc_id][s.start : s.end] in s.text


# --- the wiki ----------------------------------------------------------------------------------------


def test_build_links_both_ways_shows_current_term_and_lists_the_conflict(tmp_path):
    wiki = _build(tmp_path, {"base.txt": BASE, "amend.txt": AMENDMENT, "other.txt": OTHER})
    w = open_wiki(wiki)
    base, amend = w.read("doc-base"), w.read("doc-amend")
    assert "[[doc-amend]]" in base.body and "[[doc-base]]" in amend.body
    section = base.body.split("## Current terms", 1)[1]
    cur, old = section.split(SUPERSEDED_NOTE, 1)
    assert "> [!quote] amend (chars" in cur and "changed from thirty (30) days to ninety (90) days" in cur
    assert "> [!quote] base (chars" in old and "notice period of thirty (30) days" in old
    report = check_wiki(w)
    assert not [p for p in report.problems if p.kind == "quote"], report.lines()  # every quote verified
    flags = [f for f in report.flags if f.kind == "conflict"]
    assert len(flags) == 1 and "base" in flags[0].message and "other" in flags[0].message
    assert "amend" not in flags[0].message.replace("amends", "")
    page = (wiki / "conflicts.md").read_text(encoding="utf-8")
    assert "> [!quote] base (chars" in page and "> [!quote] other (chars" in page
    assert "[[conflicts|1 conflicts between documents]]" in (wiki / "index.md").read_text(encoding="utf-8")


def test_check_json_lists_conflicts(tmp_path, capsys):
    wiki = _build(tmp_path, {"base.txt": BASE, "other.txt": OTHER})
    assert main(["check", str(wiki), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    conflicts = [f for f in out["flags"] if f["kind"] == "conflict"]
    assert len(conflicts) == 1 and "30 days" in conflicts[0]["message"] and "60 days" in conflicts[0]["message"]


def test_ask_prefers_the_current_term_and_says_what_it_superseded(tmp_path):
    wiki = _build(tmp_path, {"base.txt": BASE, "amend.txt": AMENDMENT})
    result = Answerer.open(wiki, dense=False).ask(
        "What is the notice period for termination of the services agreement?"
    )
    first = result.answer.split("\n")[0]
    assert first.startswith("Current term") and "ninety (90) days" in first and "amend" in first
    assert "superseded" in result.answer and "thirty (30) days" in result.answer
    assert result.answer_spans[0]["doc_id"] == "amend"
    [sup] = result.to_dict()["supersedes"]
    assert sup["current"]["doc_id"] == "amend" and sup["superseded"]["doc_id"] == "base"
    assert "ninety (90) days" in sup["current"]["text"] and "thirty (30) days" in sup["superseded"]["text"]
    headers = [c.block().split("\n")[0] + c.text for c in result.context]
    assert any("SUPERSEDED by amend" in h for h in headers)
    from wikigen.agents.claude import format_context  # what a model is given

    assert "SUPERSEDED by amend" in format_context(result.context)


def test_a_topic_page_quoting_superseded_text_gets_the_current_term_beside_it(tmp_path):
    wiki = _build(tmp_path, {"base.txt": BASE, "amend.txt": AMENDMENT})
    w = open_wiki(wiki)
    s = BASE.index("3. Termination.")
    e = BASE.index("in writing.") + len("in writing.")
    body = f"Termination.\n\n> [!quote] base (chars {s}-{e})\n> {BASE[s:e]}\n\nSee [[doc-base]].\n"
    w.write(Page("topic-termination", "Termination", "agent-1", "termination", body=body), agent="agent-1", session=2)
    found = detect_amendments(w.sources)
    apply_amendments(w, found, session=2)
    apply_amendments(w, found, session=2)  # twice: nothing doubles
    page = w.read("topic-termination")
    assert page.body.count(SUPERSEDED_NOTE) == 1 and "[[doc-amend]]" in page.body
    assert [q.doc_id for q in page.quotes()] == ["base", "amend"]
    assert not [p for p in check_wiki(w).problems if p.kind == "quote"]


def test_korean_build_marks_the_superseded_term(tmp_path):
    wiki = _build(tmp_path, {"ko/base.txt": KO_BASE, "ko/amend.txt": KO_AMENDMENT})
    w = open_wiki(wiki)
    pages = {p.sources[0]: p for p in w.pages() if p.type == "document"}
    base = pages["ko/base"].body
    assert (
        "해지일 60일 전까지" in base.split(SUPERSEDED_NOTE)[0]
        and "해지일 30일 전까지" in base.split(SUPERSEDED_NOTE)[1]
    )
    assert f"[[{pages['ko/amend'].slug}]]" in base and f"[[{pages['ko/base'].slug}]]" in pages["ko/amend"].body
    assert check_wiki(w).ok


# --- the sample corpus ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def acme(tmp_path_factory):
    if not ACME.is_dir():
        pytest.skip("corpora/acme is not present")
    return sample_wiki(tmp_path_factory, tmp_path_factory.mktemp("acme-amend") / "wiki", sessions=2)


def test_acme_chains(acme):
    chains = json.loads((acme / ".wikigen" / "amendments.json").read_text(encoding="utf-8"))
    got = {c["doc_id"]: c["base_id"] for c in chains}
    assert got["amendments/brightline-msa-amendment-1"] == "contracts/msa-brightline-logistics"
    assert got["ko/hanbit-supply-amendment-1"] == "ko/hanbit-supply-contract"
    assert got["amendments/orrin-supply-amendment-1"] == "contracts/supply-agreement-orrin-metals"
    assert got["amendments/meridian-licence-amendment-2"] == "contracts/platform-licence-meridian-rail"
    assert "contracts/dpa-cumulo-cloud" not in got  # an addendum that changes no term


def test_acme_renewal_notice_current_and_superseded(acme):
    w = open_wiki(acme)
    base = w.read("doc-contracts-msa-brightline-logistics").body
    amend = w.read("doc-amendments-brightline-msa-amendment-1").body
    assert (
        "[[doc-amendments-brightline-msa-amendment-1]]" in base
        and "[[doc-contracts-msa-brightline-logistics]]" in amend
    )
    renewal = base.split("### Renewal notice", 1)[1].split("###", 1)[0]
    cur, old = renewal.split(SUPERSEDED_NOTE, 1)
    assert "at least one hundred and twenty (120) days" in cur and "amendments/brightline-msa-amendment-1 (chars" in cur
    assert "non-renewal at least ninety (90) days" in old and "contracts/msa-brightline-logistics (chars" in old
    ko = w.read("doc-ko-hanbit-supply-contract").body.split("### 계약기간의 변경", 1)[1].split("###", 1)[0]
    cur, old = ko.split(SUPERSEDED_NOTE, 1)
    assert "계약기간 만료 90일 전까지" in cur and "계약기간 만료 60일 전까지" in old
    report = check_wiki(w)
    assert report.ok, report.lines()
    assert not [f for f in report.flags if f.kind == "conflict"]  # chains are no conflicts
    assert not (acme / "conflicts.md").exists()


def test_acme_ask_prefers_the_amended_notice_period(acme):
    result = Answerer.open(acme, dense=False).ask(
        "What is the non-renewal notice period in the Brightline master services agreement?"
    )
    first = result.answer.split("\n")[0]
    assert first.startswith("Current term") and "one hundred and twenty (120) days" in first
    assert any(
        s["superseded"]["doc_id"] == "contracts/msa-brightline-logistics"
        and "ninety (90) days" in s["superseded"]["text"]
        for s in result.to_dict()["supersedes"]
    )


def test_acme_with_a_second_signed_version_of_one_agreement_lists_the_conflict(tmp_path):
    """The sample corpus plus a second confidentiality agreement between Kestrel and Orrin, signed
    eight months after the first and amending nothing, whose notice and survival periods differ:
    check and conflicts.md list both figures, each side quoted, and no amendment chain is listed."""
    import shutil

    if not ACME.is_dir():
        pytest.skip("corpora/acme is not present")
    corpus = tmp_path / "acme"
    shutil.copytree(ACME, corpus)
    first = (ACME / "contracts" / "nda-orrin-metals.txt").read_text(encoding="utf-8")
    second = (
        first.replace("dated 2 March 2022", "dated 14 November 2022")
        .replace("manufacture sensor enclosures", "manufacture sensor enclosures and mounting brackets")
        .replace("on one month's written notice", "on three months' written notice")
        .replace("continue for five (5) years", "continue for three (3) years")
    )
    assert second.count("three") == 2
    (corpus / "contracts" / "nda-orrin-metals-brackets.txt").write_text(second, encoding="utf-8")
    wiki = tmp_path / "wiki"
    assert main(["build", str(corpus), "--wiki", str(wiki), "--sessions", "1", "--no-dense", "--quiet"]) == 0
    flags = [f for f in check_wiki(open_wiki(wiki)).flags if f.kind == "conflict"]
    pair = ("contracts/nda-orrin-metals ", "contracts/nda-orrin-metals-brackets ")
    assert len(flags) == 2 and all(all(d in f.message for d in pair) for f in flags), [f.message for f in flags]
    messages = " ".join(f.message for f in flags)
    assert all(v in messages for v in ("1 month", "3 months", "5 years", "3 years")), messages
    page = (wiki / "conflicts.md").read_text(encoding="utf-8")
    assert "one month's written notice" in page and "three months' written notice" in page
    assert "five (5) years" in page and "three (3) years" in page
    assert "brightline" not in page and "hanbit" not in page  # amendment chains are no conflicts
