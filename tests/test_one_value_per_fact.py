"""One value per fact on a document page: where the page's "Key facts" and its "Provisions" section both speak of
one fact (the parties, the document's own date, its effective date, its expiry or term, a report's period), they
state the same value, and a fact the provisions call not stated is not given a value under Key facts. Checked on
every document page of the sample corpus's wiki and of a small cuad-dev wiki (skipped without the corpus).

The page is read as a reader reads it, by its labels: the test's own table of which labels name one fact
(`_SAME`), not the product's mapping, so a page that states a fact twice under two names is found too."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from eval_corpora import eval_corpus
from shared_builds import SAMPLE, build_once, shared_folder
from wikigen.search.facts.sheet import fact_sheet
from wikigen.search.values.dates import find_date_values
from wikigen.search.values.schema import load_schemas, read_schema

from wikigen.core.errors import SchemaError
from wikigen.wiki.page import parse_page

# the labels a reader takes for one fact: a key fact's label (wikigen.search.facts.sheet) or a provisions
# field's (the shipped schemas)
_SAME = {
    "parties": "parties",
    "company": "parties",
    "date": "dated",
    "agreement date": "dated",
    "effective date": "effective",
    "expiry date": "expiry",
    "expiration": "expiry",
    "term": "expiry",  # the length of the term: the expiration's "(3 years from ...)"
    "period ended": "period",
}
# the labels a key fact may carry before its value ("### Effective date: 2023-03-01")
_KEY_FACT_LABELS = (
    "Title",
    "Parties",
    "Date",
    "Effective date",
    "Expiry date",
    "Period ended",
    "Term",
    "Notice period",
    "Amount",
    "Percentage",
    "Defined term",
)
_ISO = re.compile(r"\b\d{4}-\d{2}(?:-\d{2})?\b")
_DURATION = re.compile(r"\b(\d+(?:\.\d+)?)\s+(business day|day|week|month|year)s?\b")


def _section(body: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", body, re.M | re.S)
    return m.group(1) if m else ""


def _heading_facts(heading: str, labels: set[str]) -> list[tuple[str, str]]:
    """(label, value) of a key facts heading ("Effective date: 2023-03-01; Parties: A (“X”); B (“Y”)"): it is
    split before each known label, since a value may hold "; " itself."""
    alts = "|".join(re.escape(x) for x in sorted(labels, key=len, reverse=True))
    cuts = list(re.finditer(rf"(?:^|; )({alts}): ", heading))
    out = []
    for i, m in enumerate(cuts):
        end = cuts[i + 1].start() if i + 1 < len(cuts) else len(heading)
        out.append((m.group(1), heading[m.end() : end].strip()))
    return out


def page_facts(body: str, labels: set[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]], set[str]]:
    """(key facts [(label, value)], provisions [(label, value)], the labels the provisions call not stated)."""
    keys: list[tuple[str, str]] = []
    for h in re.findall(r"^### (.+)$", _section(body, "Key facts"), re.M):
        keys += _heading_facts(h, labels)
    prov_text = _section(body, "Provisions")
    provs = [
        (m.group(1), m.group(2).strip())
        for m in re.finditer(r"^- ([^:\n]+): (.+)$", prov_text, re.M)
        if not m.group(2).startswith("possible")  # a clause quoted, no value claimed
    ]
    missing = set()
    m = re.search(r"^Not stated: (.+)\.$", prov_text, re.M)
    if m:
        missing = {x.strip() for x in m.group(1).split(", ")}
    return keys, provs, missing


def _norm(fact: str, value: str) -> str:
    """What a value says of its fact: a date's ISO form, a term's length, else its words."""
    if fact == "expiry" and _DURATION.search(value) and not _ISO.search(value):
        return ""  # a length alone: compared with the expiration's length below
    dates = _ISO.findall(value)
    if dates:
        return dates[0]
    return " ".join(value.casefold().split())


def _length(value: str) -> str | None:
    m = _DURATION.search(value)
    if not m:
        return None
    n = float(m.group(1))
    days = n * {"day": 1, "business day": 1.4, "week": 7, "month": 30.44, "year": 365.25}[m.group(2)]
    return f"{round(days / 30.44)}m"  # months, rounded: "12 months" and "1 year" are one length


def _differ(fact: str, a: str, b: str) -> bool:
    """Whether two values of one fact say different things (a term's length against an expiration's: by length)."""
    na, nb = _norm(fact, a), _norm(fact, b)
    if na and nb:
        return na != nb
    return not na and _length(a) is not None and _length(b) is not None and _length(a) != _length(b)


def doubled(body: str, labels: set[str]) -> list[str]:
    """Each fact the page states twice with different values (or with a value and as not stated)."""
    keys, provs, missing = page_facts(body, labels)
    out = []
    for klabel, kvalue in keys:
        fact = _SAME.get(klabel.casefold())
        if fact is None:
            continue
        for plabel, pvalue in provs:
            if _SAME.get(plabel.casefold()) != fact:
                continue
            if _differ(fact, kvalue, pvalue):
                out.append(f"{klabel}: {kvalue} | {plabel}: {pvalue}")
        for plabel in missing:
            if _SAME.get(plabel.casefold()) == fact:
                out.append(f"{klabel}: {kvalue} | not stated: {plabel}")
    return out


def _labels(wiki: Path) -> set[str]:
    """Every label a key fact or a provisions field may carry on this wiki's pages."""
    table = json.loads((wiki / ".wikigen" / "values.json").read_text(encoding="utf-8"))
    fields = {f["label"] for k in table["kinds"].values() for f in k.get("fields") or ()}
    return set(_KEY_FACT_LABELS) | fields


def doubled_on(wiki: Path) -> dict[str, list[str]]:
    """{document page: its doubled facts} over the wiki's document pages."""
    labels = _labels(wiki)
    out = {}
    pages = sorted(wiki.glob("doc-*.md"))
    assert pages, f"no document pages in {wiki}"
    for p in pages:
        found = doubled(parse_page(p.read_text(encoding="utf-8")).body, labels)
        if found:
            out[p.stem] = found
    return out


def test_the_checker_finds_a_fact_stated_twice():
    page = (
        "## Provisions\n\n- Parties: A; B\n- Effective date: 2023-03-01\n- Expiration: 2026-03-01 (3 years from "
        "2023-03-01)\n\nNot stated: Governing law, Agreement date.\n\n## Key facts\n\n### Expiry date: 2021-12-31\n\n"
        "> q\n\n### Date: 2023-02-01; Parties: A; B\n\n> q\n\n### Term: 5 years\n\n> q\n\n### Effective date: "
        "2023-03-01\n\n> q\n"
    )
    labels = {"Parties", "Effective date", "Expiration", "Expiry date", "Date", "Term", "Agreement date"}
    assert doubled(page, labels) == [
        "Expiry date: 2021-12-31 | Expiration: 2026-03-01 (3 years from 2023-03-01)",
        "Date: 2023-02-01 | not stated: Agreement date",
        "Term: 5 years | Expiration: 2026-03-01 (3 years from 2023-03-01)",
    ]
    same = "## Provisions\n\n- Expiration: 2026-03-01 (3 years from 2023-03-01)\n\n## Key facts\n\n### Term: 3 years\n"
    assert doubled(same, labels) == []


def test_no_document_page_of_the_sample_wiki_states_two_values_for_one_fact(tmp_path_factory):
    wiki = build_once(shared_folder(tmp_path_factory), "sample-2", SAMPLE, agents=2, sessions=2)
    assert doubled_on(wiki) == {}


CUAD_DOCS = 24  # the first contracts of cuad-dev (in file-name order): a small wiki, built in seconds


@pytest.mark.timeout(900)
def test_no_document_page_of_a_cuad_dev_wiki_states_two_values_for_one_fact(tmp_path_factory):
    corpus = eval_corpus("cuad-dev")
    if corpus is None:
        pytest.skip("the cuad-dev corpus (../shared/eval/cuad-dev) is not present")
    docs = tmp_path_factory.mktemp("cuad-facts") / "docs"
    docs.mkdir()
    for f in sorted(p for p in (corpus / "docs").iterdir() if p.is_file())[:CUAD_DOCS]:
        (docs / f.name).write_bytes(f.read_bytes())
    wiki = build_once(shared_folder(tmp_path_factory), "cuad-facts", docs, agents=2, sessions=1, dense=False)
    assert doubled_on(wiki) == {}


_CONTRACT = (
    'SUPPLY AGREEMENT\n\nThis Supply Agreement is made on 1 March 2023 between Acme Widgets Ltd ("Supplier") and '
    'Beta Foods plc ("Buyer").\n\n1. TERM\n\n1.1 This Agreement expires on 31 December 2021.\n\n1.2 The prices are '
    "fixed for a period of 12 months.\n\n2. LAW\n\n2.1 This Agreement is governed by the laws of England.\n"
)
_FIELDS = [
    {"name": "parties", "label": "Parties", "type": "party", "facts": ["parties"]},
    {"name": "agreement_date", "label": "Agreement date", "type": "date", "facts": ["dated"]},
    {"name": "expiration", "label": "Expiration", "type": "term", "facts": ["expiry", "term"]},
    {"name": "governing_law", "label": "Governing law", "type": "jurisdiction"},
]


def _cells(expiration: dict) -> dict:
    t = _CONTRACT
    return {
        "kind": "contract",
        "cells": {
            "agreement_date": {"status": "not read"},
            "expiration": expiration,
            "parties": {"status": "not stated"},
            "governing_law": {"status": "stated", "display": "England", "quote": [t.index("2.1"), len(t) - 1]},
        },
    }


def test_key_facts_take_the_provisions_value_and_quote():
    from wikigen.agents.document_facts import with_provisions  # new: a test of it fails to import on old code

    sheet = fact_sheet(_CONTRACT)
    said = {(f.label, f.value) for f in sheet.facts}
    assert ("Expiry date", "2021-12-31") in said and ("Term", "12 months") in said
    assert ("Date", "2023-03-01") in said and any(f.label == "Parties" for f in sheet.facts)
    # the table reads the expiration elsewhere: the key facts say it as the table does, once, with its quote
    q = _CONTRACT.index("1.2")
    stated = {"status": "stated", "display": "2024-03-01 (12 months from 2023-03-01)", "quote": [q, q + 60]}
    stated["span"] = [q + 40, q + 60]
    row = _cells(stated)
    new = with_provisions(sheet, row, _FIELDS)
    got = [(f.label, f.value, f.quote) for f in new.facts if f.role in ("expiry", "term")]
    assert got == [("Expiration", "2024-03-01 (12 months from 2023-03-01)", (q, q + 60))]
    # not stated in the table: no key fact of the parties; not read: the document's own date stays
    assert not any(f.kind == "parties" for f in new.facts)
    assert ("Date", "2023-03-01") in {(f.label, f.value) for f in new.facts}
    assert new.description == "Supply agreement, dated 2023-03-01." and "Acme" in sheet.description
    # a field that states no key fact (governing law) changes nothing; a possible expiration leaves the facts out
    possible = with_provisions(sheet, _cells({"status": "possible", "quote": [q, q + 60]}), _FIELDS)
    assert not any(f.role in ("expiry", "term") for f in possible.facts)
    # a document of no kind (no fields) keeps its key facts as they are
    assert with_provisions(sheet, {}, []) is sheet


def test_a_korean_contract_takes_the_tables_date():
    from wikigen.agents.document_facts import with_provisions  # new: a test of it fails to import on old code

    text = (
        "물품공급 기본계약서\n\n갑과 을은 다음과 같이 계약을 체결한다.\n\n제3조 양 당사자가 2023년 1월 16일 체결한 "
        "비밀유지계약서는 효력을 유지한다.\n\n2023년 4월 3일\n"
    )
    sheet = fact_sheet(text)
    s = text.index("2023년 4월 3일")
    cell = {"status": "stated", "display": "2023-04-03", "quote": [s, s + 11], "span": [s, s + 11]}
    new = with_provisions(sheet, {"kind": "contract", "cells": {"agreement_date": cell}}, _FIELDS[1:2])
    dates = [(f.label, f.value) for f in new.facts if f.kind == "date"]
    assert dates == [("Agreement date", "2023-04-03")], (sheet.facts, new.facts)
    assert "2023-04-03" in new.description and "2023-01-16" not in new.description


def test_a_schema_field_names_only_known_key_facts(tmp_path):
    shipped = load_schemas()
    assert shipped["contract"].field("expiration").facts == ("expiry", "term")
    assert shipped["policy"].field("effective_date").facts == ("effective",)
    bad = tmp_path / "contract.yaml"
    bad.write_text(
        "kind: contract\nfields:\n  - name: end\n    type: date\n    facts: [ending]\n"
        "    signals:\n      phrases: [expires]\n",
        encoding="utf-8",
    )
    with pytest.raises(SchemaError, match="ending"):
        read_schema(bad)


def test_every_sample_policy_states_its_effective_date_in_the_table(tmp_path_factory):
    """The page states a policy's effective date as the table does: the table reads it as the sample's
    policies write it ("Version 1.4 - effective 2 September 2024", "Effective: 1 January 2024", "approved by the
    Board on 12 September 2024", "Approved 14 February 2024")."""
    wiki = build_once(shared_folder(tmp_path_factory), "sample-2", SAMPLE, agents=2, sessions=2)
    table = json.loads((wiki / ".wikigen" / "values.json").read_text(encoding="utf-8"))["documents"]
    policies = {d: row for d, row in table.items() if d.startswith("policies/")}  # each dated where it opens
    assert len(policies) == 9 and all(row["kind"] == "policy" for row in policies.values())
    for doc, row in policies.items():
        cell = row["cells"]["effective_date"]
        assert cell["status"] == "stated", doc
        assert cell["norm"] in {v.norm for v in find_date_values(cell["text"])}, (doc, cell)
