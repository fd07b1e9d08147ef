"""Golden tests on the sample corpus (corpora/acme), issue 12 item 5: after an offline build every document
page has a real title (not a logo, exhibit or letterhead line) and a description, and its key facts are
quoted; a few facts are checked against the acme texts themselves."""

import re
from pathlib import Path

import pytest
from shared_builds import sample_wiki
from wikigen.search.extract import extract_bytes
from wikigen.search.facts.sheet import fact_sheet
from wikigen.search.sources import open_wiki

REPO = Path(__file__).resolve().parent.parent
ACME = REPO / "corpora" / "acme"
pytestmark = pytest.mark.skipif(not ACME.is_dir(), reason="corpora/acme is not present")

NOT_A_TITLE = re.compile(r"^\W*(?:logo|image)\W*$|^\W*(?:exhibit|schedule|annex)\s+[\w.]+\W*$|\d{3}[-. ]\d{4}|@", re.I)
LETTERHEAD = re.compile(r"\b(?:ltd|limited|inc|plc|llc|gmbh)\.?$|주식회사$", re.I)


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    wiki = sample_wiki(tmp_path_factory, tmp_path_factory.mktemp("acme") / "wiki", sessions=2)
    got = {p.slug: p for p in open_wiki(wiki).pages() if p.type == "document"}
    assert len(got) == 43
    return got


def _text(rel: str) -> str:
    path = next(ACME.glob(rel + ".*"))
    return extract_bytes(path.read_bytes(), path.suffix).text


def test_every_document_page_has_a_real_title_and_a_description(pages):
    for slug, page in pages.items():
        assert not NOT_A_TITLE.search(page.title), (slug, page.title)
        assert not LETTERHEAD.search(page.title), (slug, page.title)
        assert page.description.strip(), slug
        assert page.description != page.title, slug
    # the letterhead "KESTREL INSTRUMENTS LTD" heads two policies; their pages are named by the policy
    assert pages["doc-policies-data-retention-policy"].title == "DATA RETENTION POLICY (KI-POL-007)"
    assert pages["doc-policies-calibration-policy"].title.upper().startswith("TEST EQUIPMENT CALIBRATION POLICY")


def test_key_facts_are_quoted_on_the_pages(pages):
    with_facts = [p for p in pages.values() if "## Key facts" in p.body]
    assert len(with_facts) >= 0.9 * len(pages)
    for p in with_facts:
        section = p.body.split("## Key facts", 1)[1]
        assert "> [!quote]" in section
    msa = pages["doc-contracts-msa-brightline-logistics"]
    assert "### Effective date: 2023-03-01" in msa.body or "; Effective date: 2023-03-01" in msa.body
    assert "made on 1 March 2023" in msa.body
    # the title says what kind of document it is; the description does not repeat it
    assert msa.description == "Between KESTREL INSTRUMENTS LTD and BRIGHTLINE LOGISTICS PLC, effective 2023-03-01."
    ko = pages["doc-ko-hanbit-supply-contract"]
    assert "### Parties: 케스트럴인스트루먼트코리아 주식회사 (“갑”); 한빛전자 주식회사 (“을”)" in ko.body
    nda = pages["doc-contracts-nda-brightline-logistics"]
    assert "Brightline Logistics plc" in nda.description and "2023-01-10" in nda.description


def test_fact_sheets_of_acme_texts():
    msa = fact_sheet(_text("contracts/msa-brightline-logistics"))
    got = {(f.label, f.value) for f in msa.facts}
    assert ("Parties", "KESTREL INSTRUMENTS LTD (“Kestrel”); BRIGHTLINE LOGISTICS PLC (“Customer”)") in got
    assert ("Effective date", "2023-03-01") in got
    assert ("Amount", "GBP 186,000") in got
    amendment = fact_sheet(_text("amendments/meridian-licence-amendment-2"))
    assert any(f.kind == "amount" and f.value == "USD 310,000" for f in amendment.facts)
    hosting = fact_sheet(_text("contracts/hosting-agreement-cumulo-cloud"))
    parties = next(f for f in hosting.facts if f.kind == "parties")
    assert parties.value == "Kestrel Instruments Ltd; Cumulo Cloud Services Limited"
    lease = fact_sheet(_text("contracts/lease-harbour-works-unit-4"))
    assert any(f.kind == "duration" and f.value == "10 years" for f in lease.facts)
