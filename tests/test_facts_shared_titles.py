"""A title several documents share (a form or a kind: "FORM 10-Q", "SUPPLY AGREEMENT") adds what the
document's cover says tells it apart: the organisation and, while still shared, the period or date."""

from wikigen.agents.params import DiscoveryParams
from wikigen.agents.topics import discover
from wikigen.search.facts.sheet import fact_sheet
from wikigen.search.facts.title import base_title, cover_entity, cover_period, distinguish_titles, document_title


def _report(company: str, period: str) -> str:
    return (f"  UNITED STATES\n  SECURITIES AND EXCHANGE COMMISSION\n  Washington, D.C. 20549\n\n  FORM 10-Q\n"
            f"(Mark One)\n  QUARTERLY REPORT PURSUANT TO SECTION 13 OF THE ACT\n"
            f"  For the quarterly period ended {period}\n  Commission File Number: 001-36743\n\n\n"
            f"  {company}\n  (Exact name of Registrant as specified in its charter)\n\n"
            "  Title of each class  Trading symbol(s)  Name of each exchange on which registered\n"
            "  Common Stock  XYZ  The Nasdaq Stock Market LLC\n\n"
            f"PART I. Net sales of {company} rose. The Company's revenue and gross margin are discussed below. "
            "Revenue grew in every segment; operating expenses were flat. This Form 10-Q discusses the quarter, "
            "and the risks in this Form 10-Q are those of the annual report.\n")


def _contract(title: str, a: str, b: str, date: str) -> str:
    return (f"{title}\n\nThis {title.title()} (the \"Agreement\") is dated as of {date} by and between {a} "
            f"(\"Supplier\"), a Delaware corporation, and {b} (\"Buyer\"), a Texas corporation.\n\n"
            "1. Supply. Supplier shall supply the products under this Agreement.\n")


REPORTS = {
    "kest-q1": _report("Kestrel Instruments Inc.", "April 1, 2023"),
    "kest-q2": _report("Kestrel Instruments Inc.", "July 1, 2023"),
    "orn-q1": _report("ORNITH HOLDINGS CORPORATION", "April 1, 2023"),
}


def test_cover_entity_and_period_of_a_report():
    text = REPORTS["kest-q1"]
    assert document_title(text) == "FORM 10-Q"
    assert cover_entity(text) == "Kestrel Instruments Inc."       # not the exchange in the table row
    assert cover_period(text) == "quarterly period ended April 1, 2023"
    assert cover_entity(REPORTS["orn-q1"]) == "ORNITH HOLDINGS CORPORATION"


def test_shared_form_title_adds_company_then_period():
    titles = {d: document_title(t) for d, t in REPORTS.items()}
    out = distinguish_titles(titles, REPORTS)
    assert out["kest-q1"] == "FORM 10-Q \u2014 Kestrel Instruments Inc. \u2014 quarterly period ended April 1, 2023"
    assert out["kest-q2"] == "FORM 10-Q \u2014 Kestrel Instruments Inc. \u2014 quarterly period ended July 1, 2023"
    # the only report of its company: the company tells it apart, its period is not needed
    assert out["orn-q1"] == "FORM 10-Q \u2014 ORNITH HOLDINGS CORPORATION"
    assert len(set(out.values())) == 3
    assert {base_title(t) for t in out.values()} == {"FORM 10-Q"}


def test_unshared_titles_and_roles_are_kept():
    docs = {"a": _contract("SUPPLY AGREEMENT", "Alder Works Ltd", "Birch Retail Inc.", "May 1, 2020"),
            "b": _contract("SUPPLY AGREEMENT", "Cedar Mills LLC", "Birch Retail Inc.", "June 2, 2021"),
            "c": _contract("AGENCY AGREEMENT", "Developer", "Client", "June 2, 2021")}
    titles = {d: document_title(t) for d, t in docs.items()}
    out = distinguish_titles(titles, docs)
    assert out["a"] == "SUPPLY AGREEMENT \u2014 Alder Works Ltd"
    assert out["b"] == "SUPPLY AGREEMENT \u2014 Cedar Mills LLC"
    assert out["c"] == "AGENCY AGREEMENT"                 # no other document has it: kept as it is
    # roles are no organisation: two documents whose parties are roles are told apart by their dates
    roles = {"x": _contract("AGENCY AGREEMENT", "Developer", "Client", "June 2, 2021"),
             "y": _contract("AGENCY AGREEMENT", "Agent", "Principal", "March 3, 2019")}
    out = distinguish_titles({d: document_title(t) for d, t in roles.items()}, roles)
    assert out == {"x": "AGENCY AGREEMENT \u2014 dated as of June 2, 2021",
                   "y": "AGENCY AGREEMENT \u2014 dated as of March 3, 2019"}


def test_catalog_outlines_carry_told_apart_titles_and_collections_the_kind():
    cat = discover(REPORTS, params=DiscoveryParams())
    titles = {o.doc_id: o.title for o in cat.outlines.values()}
    assert titles["kest-q2"].startswith("FORM 10-Q \u2014 Kestrel Instruments Inc.")
    assert len(set(titles.values())) == 3
    # the fact sheet reads the document's own title, not what the catalog added to it
    assert fact_sheet(REPORTS["kest-q2"], titles["kest-q2"]).title == "FORM 10-Q"
