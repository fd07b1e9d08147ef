"""A document's values: each field of its kind's schema, with the quote that states it, or "not stated".

The contracts here are written for these tests, in plain drafting English and Korean."""

from __future__ import annotations

import pytest
from wikigen.search.values.extract import NOT_STATED, STATED, document_kind, extract_values
from wikigen.search.values.schema import load_schemas, read_schema

from wikigen.core.errors import SchemaError

SCHEMAS = load_schemas()
CONTRACT = SCHEMAS["contract"]

SUPPLY = """SUPPLY AGREEMENT

This Supply Agreement (the "Agreement") is made on 3 February 2021 between Northwind Parts Ltd, a company
incorporated in England ("Supplier"), and Copperleaf Tools Inc., a Delaware corporation ("Buyer").

1. Term. This Agreement shall commence on the Effective Date and continue for an initial term of three (3) years.
Thereafter it shall automatically renew for successive one (1) year periods unless either party gives written notice
of non-renewal at least ninety (90) days prior to the end of the then-current term.

2. Exclusivity. Nothing in this Agreement grants either party any non-exclusive or other licence to the other's marks.

3. Limitation of Liability. Each party's aggregate liability under this Agreement shall not exceed the fees paid by
Buyer in the twelve (12) months preceding the claim.

4. Assignment. Neither party may assign this Agreement without the prior written consent of the other party.

5. Governing Law. This Agreement shall be governed by and construed in accordance with the laws of the State of
Delaware, without regard to its conflict of laws principles.
"""

KOREAN = """물품공급계약서

본 계약은 2023년 1월 16일 주식회사 한빛정밀(이하 "갑"이라 한다)과 케스트럴인스트루먼트코리아(이하 "을"이라 한다) 사이에
체결된다.

제5조 (계약기간) 본 계약의 유효기간은 체결일부터 2년으로 한다. 계약기간 만료 30일 전까지 어느 당사자도 서면으로
이의를 제기하지 않으면 본 계약은 1년씩 자동으로 갱신된다.

제9조 (준거법) 본 계약은 대한민국 법률에 따라 해석된다.
"""


def test_a_contract_states_its_provisions_each_with_the_sentence_that_states_it():
    cells = extract_values(SUPPLY, CONTRACT)
    law = cells["governing_law"]
    assert law.status == STATED and law.norm == "Delaware"
    s, e = law.quote
    assert "governed by and construed" in SUPPLY[s:e] and SUPPLY[law.span[0] : law.span[1]].endswith("Delaware")
    assert cells["renewal_term"].display == "successive 1 year"
    assert cells["renewal_notice"].norm == "90 days"
    assert cells["agreement_date"].norm == "2021-02-03"
    # no other effective date stated: the one it was made on, said so
    assert cells["effective_date"].norm == "2021-02-03" and "no other is stated" in cells["effective_date"].display
    # a term that runs from the effective date gives the date it ends
    assert cells["expiration"].norm == "2024-02-03"
    assert cells["liability_cap"].status == STATED and cells["liability_cap"].display.startswith("Yes")
    assert cells["assignment"].status == STATED


def test_a_word_inside_an_exclusion_is_no_signal_and_a_silent_contract_says_not_stated():
    cells = extract_values(SUPPLY, CONTRACT)
    assert cells["exclusivity"].status == NOT_STATED  # "non-exclusive" is no exclusivity
    assert cells["non_compete"].status == NOT_STATED
    assert cells["most_favoured_nation"].status == NOT_STATED
    assert cells["non_compete"].quote is None


def test_a_right_to_terminate_on_breach_is_no_termination_for_convenience():
    breach = "Either party may terminate this Agreement on thirty (30) days' notice if the other party is in material breach."
    convenience = (
        "Either party may terminate this Agreement at any time on thirty (30) days' written notice to the other."
    )
    assert (  # the schema's rule: a breach word makes the sentence another provision
        extract_values(breach, CONTRACT, fields={"termination_for_convenience"}, model=None)[
            "termination_for_convenience"
        ].status
        == NOT_STATED
    )
    judged = extract_values(breach, CONTRACT, fields={"termination_for_convenience"})["termination_for_convenience"]
    assert judged.status != STATED  # the clause model: at most "possible", never a "Yes"
    cell = extract_values(convenience, CONTRACT, fields={"termination_for_convenience"})["termination_for_convenience"]
    assert cell.status == STATED and cell.display == "Yes: 30 days"


def test_a_partys_place_of_incorporation_is_no_governing_law():
    """ "organized and existing under the laws of" names where a party was formed, not the law the parties chose:
    a contract that chooses none says so, and one that chooses it says that law, not the party's state."""
    opening = (
        "NON-DISCLOSURE AGREEMENT\n\nThis Agreement is made between Corvid Labs, Inc., a corporation organized and "
        "existing under the laws of the State of Ohio, and Wren Ltd, a company duly incorporated in accordance with "
        "the laws of Ireland.\n\n1. The Recipient shall keep the Information confidential.\n"
    )
    silent = extract_values(opening, CONTRACT, fields={"governing_law"})["governing_law"]
    assert silent.status == NOT_STATED, silent
    chosen = opening + "2. This Agreement is governed by the laws of the State of New York.\n"
    law = extract_values(chosen, CONTRACT, fields={"governing_law"})["governing_law"]
    assert law.status == STATED and "New York" in law.display, law


def test_the_first_terms_length_and_a_notices_are_no_renewal_term():
    """Under a "Term and renewal" heading, the initial term's 36 months are not what each renewal lasts, nor are
    the 90 days' notice of a fee change before a renewal term starts; the renewal's own length is."""
    first = (
        "5. Term and renewal\n\n5.1 This agreement has an initial term of thirty-six (36) months from the start date.\n"
    )
    fee = (
        "3.4 The Licensor may adjust the annual fee for any Renewal Term by notice given at least ninety (90) days "
        "before that Renewal Term starts.\n"
    )
    for text in (first, fee):
        cell = extract_values(text, CONTRACT, fields={"renewal_term"})["renewal_term"]
        assert cell.status != STATED, (text, cell.display)
    renews = first + "5.2 After the initial term this agreement renews automatically for successive one-year terms.\n"
    cell = extract_values(renews, CONTRACT, fields={"renewal_term"})["renewal_term"]
    assert cell.status == STATED and "1 year" in cell.display, cell.display


def test_how_long_confidentiality_lasts_is_not_when_the_agreement_ends():
    """An NDA's obligations surviving five years after disclosure, or information held in confidence for three
    years, say how long confidentiality lasts, not when the agreement expires; "this Agreement shall survive
    indefinitely" does say it never does."""
    for sentence in (
        "4. Term. The obligations of the recipient hereunder shall survive for a period of five (5) years after the "
        "disclosure of the Confidential Information.",
        "5. Information disclosed under this Agreement shall for a period of three (3) years from the effective date "
        "of this Agreement be held in confidence by the recipient.",
    ):
        cell = extract_values(sentence, CONTRACT, fields={"expiration"})["expiration"]
        assert cell.status != STATED, (sentence, cell.display)
    forever = "15. Survival. This Agreement shall survive indefinitely and is not affected by any other agreement."
    assert extract_values(forever, CONTRACT, fields={"expiration"})["expiration"].display == "perpetual"


def test_a_document_dated_one_day_that_takes_effect_on_another_is_effective_on_the_second():
    text = "AMENDMENT No. 2\n\nThis Amendment is dated 3 June 2024 and takes effect on 1 July 2024.\n"
    cells = extract_values(text, CONTRACT, fields={"agreement_date", "effective_date"})
    assert cells["effective_date"].norm == "2024-07-01", cells["effective_date"].display
    assert cells["agreement_date"].norm == "2024-06-03", cells["agreement_date"].display


def test_a_korean_contract_states_its_values_with_character_offsets():
    cells = extract_values(KOREAN, CONTRACT)
    assert cells["governing_law"].norm == "Republic of Korea"
    s, e = cells["governing_law"].quote
    assert "대한민국 법률" in KOREAN[s:e]
    assert cells["agreement_date"].norm == "2023-01-16"
    assert cells["renewal_term"].parts["days"] == pytest.approx(365.25)
    assert document_kind("", KOREAN, SCHEMAS) == "contract"


def test_perpetual_terms_and_dates_that_end_a_term():
    until = "This Agreement shall remain in effect until December 31, 2026, unless terminated earlier."
    cell = extract_values(until, CONTRACT, fields={"expiration"})["expiration"]
    assert cell.norm == "2026-12-31"
    open_ended = "This Agreement shall continue in full force and effect until terminated by either party on notice."
    assert extract_values(open_ended, CONTRACT, fields={"expiration"})["expiration"].norm == "perpetual"


def test_the_kind_of_a_document_comes_from_its_title_and_opening():
    assert document_kind("Master Services Agreement", "This agreement is made...", SCHEMAS) == "contract"
    assert document_kind("Information Security Policy", "This policy applies to all staff.", SCHEMAS) == "policy"
    assert document_kind("", "FORM 10-Q\nQUARTERLY REPORT PURSUANT TO SECTION 13", SCHEMAS) == "periodic-report"
    assert document_kind("Meeting notes", "We talked about lunch.", SCHEMAS) is None


def test_a_user_schema_adds_a_field_without_code(tmp_path):
    (tmp_path / "contract.yaml").write_text(
        "kind: contract\nfields:\n  - name: warranty_period\n    label: Warranty period\n    type: duration\n"
        "    signals:\n      phrases: [warrant*]\n      after: [for, period of]\n",
        encoding="utf-8",
    )
    schemas = load_schemas(tmp_path)
    assert schemas["contract"].field("warranty_period") is not None
    assert schemas["contract"].field("governing_law") is not None  # the shipped fields stay
    text = "Supplier warrants the Products for a period of eighteen (18) months from delivery."
    cell = extract_values(text, schemas["contract"], fields={"warranty_period"})["warranty_period"]
    assert cell.norm == "18 months"


def test_a_schema_that_cannot_be_used_names_the_file_and_the_field(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: contract\nfields:\n  - name: cap\n    type: amount\n", encoding="utf-8")
    with pytest.raises(SchemaError, match=r"bad\.yaml field 1 \(cap\): type 'amount'"):
        read_schema(bad)
    bad.write_text("kind: contract\nfields:\n  - name: cap\n    type: money\n", encoding="utf-8")
    with pytest.raises(SchemaError, match="needs signals"):
        read_schema(bad)


def test_a_fields_patterns_are_its_own_when_schemas_are_read_again():
    """Every build reads the schemas afresh; the fields read before are collected and their ids reused. A field's
    compiled signals must be its own (a cache keyed by id() handed new fields the patterns of old ones, so a
    build under memory churn read some fields with another field's words)."""
    import gc

    from wikigen.search.values.schema import load_schemas, phrase_regex

    for _ in range(8):
        schemas = load_schemas()
        for schema in schemas.values():
            for f in schema.fields:
                want = phrase_regex((f.label, *f.ask))
                got = f.rx("ask")
                assert (got.pattern if got else None) == (want.pattern if want else None), f.name
        del schemas
        gc.collect()


def test_another_value_stated_in_another_sentence_is_kept_with_its_own_quote():
    text = (
        "SERVICES AGREEMENT\n\nThis Services Agreement is made on March 3, 2021 between Alder Ltd and Birch Inc.\n\n"
        "This Agreement shall be governed by the laws of the State of Delaware.\n\n"
        "Each order under this Agreement shall be governed by the laws of the State of New York.\n"
    )
    law = extract_values(text, CONTRACT)["governing_law"]
    assert law.norm == "Delaware"  # the earlier of two sentences alike
    ((norm, s, e),) = law.others
    assert norm == "New York" and text[s:e].startswith("Each order") and text[s:e].rstrip().endswith("New York.")
    again = type(law).from_dict(law.to_dict())
    assert again.others == law.others


@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        (
            "This Agreement may be renewed for successive one (1) year periods upon mutual written agreement of the "
            "parties.",
            "successive 1 year (by mutual agreement, not automatic)",
        ),
        (
            "Licensee shall have the option to renew this Agreement for an additional term of two (2) years.",
            "2 years (at a party's option, not automatic)",
        ),
        (
            "This Agreement shall automatically renew for successive one (1) year terms unless terminated by mutual "
            "agreement.",
            "successive 1 year",
        ),
    ],
)
def test_a_renewal_by_agreement_or_option_says_it_is_not_automatic(sentence, said):
    cell = extract_values(sentence, CONTRACT, fields={"renewal_term"})["renewal_term"]
    assert cell.status == STATED and cell.display == said
    assert cell.parts.get("qualifier") == (said.split(" (", 1)[1].rstrip(")") if " (" in said else None)


def test_a_qualifier_in_a_schema_is_checked():
    from wikigen.search.values.schema import SchemaError, _field

    with pytest.raises(SchemaError, match="qualifiers"):
        _field({"name": "x", "type": "duration", "signals": {"phrases": ["x"]}, "qualifiers": [{"label": "y"}]}, "t")
