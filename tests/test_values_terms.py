"""A contract's dates and term as its sentences state them: the date it gives itself, the date it takes effect, and
how long it runs (an end date, a length from a start, an anniversary, no fixed end).

The contracts here are written for these tests, in plain drafting English and Korean, the way agreements state
their dates and terms."""

from __future__ import annotations

import pytest
from wikigen.search.facts.dates import find_dates
from wikigen.search.values import find_values, parse_value
from wikigen.search.values.extract import extract_values
from wikigen.search.values.schema import load_schemas
from wikigen.search.values.terms import add_duration, term_options

CONTRACT = load_schemas()["contract"]
DATES = {"agreement_date", "effective_date", "expiration"}


def cells(text: str) -> dict:
    return extract_values(text, CONTRACT, fields=DATES)


# --- dates as extracted text writes them ------------------------------------------------------------


@pytest.mark.parametrize(
    "text, iso",
    [
        ("made this 15t h day of January 2018 by and between", "2018-01-15"),  # an ordinal's letters come apart
        ("dated the 1s t day of June, 2004", "2004-06-01"),
        ("signed on March 12,1999 in Boston", "1999-03-12"),  # no space after the comma
        ("executed this 19  DAY OF MAY , 2010", "2010-05-19"),  # a space before it
    ],
)
def test_dates_as_pdf_extraction_leaves_them(text, iso):
    assert [d.iso for d in find_dates(text)] == [iso]


@pytest.mark.parametrize(
    "text, norm, said",
    [
        ("made and entered into this ___ day of _________, 2004, by", "2004", "___ day of _________, 2004"),
        ("Dated: ___________ __, 2000", "2000", "___________ __, 2000"),
        ("entered into as of March ___, 1999 between", "1999-03", "March ___, 1999"),
        ("made this [ ] day of [ ], 2020 (the Effective Date)", "2020", "[ ] day of [ ], 2020"),
        ("is made this  day of , 2012 by", "2012", "day of , 2012"),
        ("2004년 ___월 ___일 체결한다", "2004", "2004년"),
    ],
)
def test_a_form_left_blank_is_dated_to_what_it_gives(text, norm, said):
    found = find_values(text, "date")
    assert [(v.norm, text[v.start : v.end]) for v in found] == [(norm, said)]


def test_a_blank_alone_before_a_year_without_a_comma_is_no_date():
    assert find_values("See Exhibit [*] 2010 for the schedule.", "date") == []


# --- the date a contract gives itself ---------------------------------------------------------------


def test_the_date_the_contract_gives_itself_not_an_earlier_one_its_opening_mentions():
    text = (
        "AGENCY AGREEMENT\n\nThe Board adopted the Plan of Conversion, effective as of February 28, 2013 (the "
        '"Plan").\n\nThis Agency Agreement (the "Agreement") is made as of May 14, 2014 by and between Harbor '
        "Savings Bank and Keel Securities LLC.\n"
    )
    assert cells(text)["agreement_date"].norm == "2014-05-14"


def test_a_contract_dated_only_where_it_is_signed():
    text = (
        "OUTSOURCING AGREEMENT\n\nNorthwind Ltd and Copperleaf Inc agree as follows.\n\n1. Services. Northwind "
        "shall provide the services in Schedule 1.\n\nIN WITNESS WHEREOF, the parties have signed this Agreement.\n\n"
        "NORTHWIND LTD\nBy: /s/ J. Smith\nDate: 2 April 2020\n\nCOPPERLEAF INC\nBy: /s/ A. Jones\n"
    )
    got = cells(text)
    assert got["agreement_date"].norm == "2020-04-02"
    assert got["effective_date"].norm == "2020-04-02"  # no other stated: the date it was made


def test_a_korean_contract_dated_where_it_is_signed():
    text = (
        '용역계약서\n\n주식회사 한빛(이하 "갑")과 주식회사 누리(이하 "을")는 다음과 같이 계약을 체결한다.\n\n'
        "제1조 (목적) 을은 갑에게 별지의 용역을 제공한다.\n\n"
        "위 계약의 성립을 증명하기 위하여 계약서 2통을 작성하여 서명날인한 후 각 1통씩 보관한다.\n\n"
        "2023년 3월 1일\n\n갑: 주식회사 한빛 대표이사 김철수\n을: 주식회사 누리 대표이사 이영희\n"
    )
    assert cells(text)["agreement_date"].norm == "2023-03-01"


def test_a_date_on_every_page_footer_is_not_the_contracts_own():
    page = (
        "The Distributor shall promote the Products in the Territory and report its sales each quarter to the "
        "Supplier in writing, with the stock it holds.\n\nSource: NORTHWIND CORP, 8-K, 5/9/2019\n\n"
    )
    text = (
        "DISTRIBUTION AGREEMENT\n\nSource: NORTHWIND CORP, 8-K, 5/9/2019\n\n"
        + page * 4
        + "IN WITNESS WHEREOF, the parties have executed this Agreement on March 18, 2019.\n"
    )
    assert cells(text)["agreement_date"].norm == "2019-03-18"


def test_an_effective_date_a_term_begins_on():
    text = "This Agreement shall begin on January 1, 2000 and continue for five (5) years."
    got = cells(text)
    assert got["effective_date"].norm == "2000-01-01"
    assert got["expiration"].norm == "2005-01-01"


def test_the_date_a_term_ends_is_no_effective_date():
    text = (
        "This Co-Branding Agreement is made on June 8, 1999 between Embark Inc. and Stellar Corp.\n\n"
        "The Term shall commence on the date of this Agreement and shall end as of December 31, 2000."
    )
    got = cells(text)
    assert got["effective_date"].norm == "1999-06-08"
    assert got["expiration"].norm == "2000-12-31"


# --- a term ------------------------------------------------------------------------------------------

PREAMBLE = 'This Reseller Agreement (the "Agreement") is made effective as of March 1, 2020 (the "Effective Date").\n\n'


@pytest.mark.parametrize(
    "clause, end",
    [
        # a length from the effective date, however the start is put
        (
            "The term of this Agreement shall commence on the Effective Date and continue for six (6) months.",
            "2020-09-01",
        ),
        ("This Agreement shall remain in force for a period of two years from Effective Date.", "2022-03-01"),
        (
            "This Agreement shall become effective on the Effective Date and shall remain in effect for three (3) years.",
            "2023-03-01",
        ),
        (
            "This Agreement shall be valid for a period of five (5) years with automatic renewal of one year thereafter.",
            "2025-03-01",
        ),
        # an anniversary of the start
        ("This Agreement shall continue until the fifth (5th) anniversary of the Effective Date.", "2025-03-01"),
        ("The term shall end on the four-year anniversary of the Effective Date.", "2024-03-01"),
        (
            "This Agreement shall remain in effect until the earlier of (a) the third anniversary of the Effective Date and (b) a sale of the Company.",
            "2023-03-01",
        ),
        # an end date
        ('"Contract Period" means the period commencing March 1, 2020 and concluding May 31, 2021.', "2021-05-31"),
        ("The initial term of this Agreement is the Effective Date through March 15, 2022.", "2022-03-15"),
        (
            "This Agreement shall continue until the earlier of (i) December 31, 2022, or (ii) its termination.",
            "2022-12-31",
        ),
    ],
)
def test_the_date_a_term_ends(clause, end):
    cell = cells(PREAMBLE + clause)["expiration"]
    assert cell.stated and cell.norm == end, cell
    assert (PREAMBLE + clause)[cell.quote[0] : cell.quote[1]] in clause  # the clause is the evidence


def test_a_length_from_a_start_the_sentence_gives():
    text = "This Agreement shall commence on September 10, 2015 and shall continue for one (1) year (the Term)."
    cell = cells(text)["expiration"]
    assert cell.norm == "2016-09-10"
    assert cell.display == "2016-09-10 (1 year from 2015-09-10)"


def test_a_length_from_another_event_states_the_length_and_the_event_without_inventing_a_date():
    cell = cells(PREAMBLE + "The term of this Agreement shall continue for one (1) year following the Launch Date.")[
        "expiration"
    ]
    assert cell.norm == "1 year" and "end" not in cell.parts
    assert cell.display == "1 year following the Launch Date"


def test_its_effective_date_is_the_effective_date_and_another_events_words_end_on_a_whole_word():
    """ "from its effective date" runs from the effective date (as "from the Effective Date" does), and another
    event's words are cut to whole words, never mid-word."""
    its = cells(
        PREAMBLE + "The Agreement shall expire five (5) years from its effective date unless earlier terminated."
    )
    assert its["expiration"].display == "2025-03-01 (5 years from 2020-03-01)", its["expiration"].display
    event = cells(
        PREAMBLE + "The term of this Agreement shall continue for two (2) years after the acceptance of the completed "
        "installation works by the customer's engineering department."
    )["expiration"]
    said = event.display.removeprefix("2 years ")
    assert said and "after the acceptance of the completed installation works by the customer".startswith(said), said


def test_a_term_from_a_form_dated_to_the_year_ends_in_a_year():
    text = (
        "THIS FRANCHISE AGREEMENT is made this ____ day of ___________, 2000, between Airsure Inc. and Rowan LLC.\n\n"
        "The term of this Agreement shall be for 10 years commencing on the date of execution of this Agreement."
    )
    got = cells(text)
    assert got["agreement_date"].norm == "2000"
    assert got["expiration"].norm == "2010"


@pytest.mark.parametrize(
    "clause",
    [
        "This Agreement shall continue until terminated by either party upon thirty (30) days' prior written notice.",
        "This Agreement shall remain in effect for so long as the Licensee holds any shares of the Company.",
        "This Agreement begins on the Effective Date and shall continue indefinitely.",
        "This Agreement shall become effective on the Effective Date and remain in effect thereafter, unless terminated under Section 6.",
    ],
)
def test_no_fixed_end(clause):
    assert cells(PREAMBLE + clause)["expiration"].norm == "perpetual"


def test_unless_sooner_terminated_is_no_open_end():
    clause = "This Agreement shall remain in effect, unless sooner terminated under Section 5, for two (2) years."
    assert cells(PREAMBLE + clause)["expiration"].norm == "2022-03-01"


def test_notice_periods_renewals_and_times_after_the_end_are_no_term():
    text = PREAMBLE + (
        "Either party may terminate this Agreement within thirty (30) days of a change of control. "
        "The obligations of Section 9 shall continue for two (2) years after termination of this Agreement. "
        "This Agreement shall automatically renew for an additional period of one (1) year."
    )
    assert cells(text)["expiration"].status == "not stated"


@pytest.mark.parametrize(
    "text, end",
    [
        (
            "본 계약은 2023년 1월 16일 체결되었다.\n\n제5조 (계약기간) 본 계약의 유효기간은 계약체결일로부터 3년으로 한다.",
            "2026-01-16",
        ),
        (
            "본 계약은 2024년 5월 1일 체결되었다.\n\n제3조 (유효기간) 본 계약은 효력발생일로부터 5주년이 되는 날까지 유효하다.",
            "2029-05-01",
        ),
        ("제4조 (계약기간) 본 계약의 유효기간은 2025년 1월 1일부터 2026년 12월 31일까지로 한다.", "2026-12-31"),
    ],
)
def test_korean_terms(text, end):
    assert cells(text)["expiration"].norm == end


def test_a_korean_open_end_with_a_notice_period():
    text = "제6조 (계약기간) 본 계약은 어느 당사자가 30일 전에 서면으로 통지하여 해지하지 않는 한 무기한 유효하다."
    assert cells(text)["expiration"].norm == "perpetual"


def test_term_options_name_the_start():
    text = "This Agreement shall continue for three (3) years from the date hereof."
    (o,) = term_options(text, 0, len(text))
    assert (o.kind, o.value.norm, o.start, o.stated) == ("duration", "3 years", "made", True)
    text = "본 계약의 유효기간은 시행일로부터 2년으로 한다."
    (o,) = term_options(text, 0, len(text))
    assert (o.value.norm, o.start) == ("2 years", "effective")


@pytest.mark.parametrize(
    "start, length, end",
    [
        ("2020-01-31", "one month", "2020-02-29"),  # the month's last day
        ("2020-03-01", "2 years", "2022-03-01"),
        ("2020-03-01", "90 days", "2020-05-30"),
        ("2020-06", "18 months", "2021-12"),  # a month gives a month
        ("2004", "10 years", "2014"),  # a year gives a year
        ("2004", "6 months", None),  # not a day or month it does not know
        ("2004-06", "45 days", None),
    ],
)
def test_add_duration_keeps_the_starts_precision(start, length, end):
    v = parse_value(length, "duration")
    assert v is not None
    assert add_duration(start, v) == end


def test_a_korean_term_from_a_date_and_the_notice_before_its_end():
    """A length after a start date ("2023년 4월 3일부터 2년으로") is the term; "만료 60일 전까지" is the notice to stop
    renewal, a time before the end and no term; an obligation that survives the contract is no term either."""
    from wikigen.search.values.extract import extract_values
    from wikigen.search.values.schema import load_schemas

    text = (
        "물품공급 기본계약서\n\n제8조 (비밀유지)\n② 본 조의 의무는 본 계약이 종료된 후에도 3년간 존속한다.\n\n"
        "제13조 (계약기간)\n① 본 계약의 유효기간은 2023년 4월 3일부터 2년으로 한다.\n"
        "② 계약기간 만료 60일 전까지 어느 당사자도 상대방에게 서면으로 계약 종료 의사를 통지하지 아니하는 경우, "
        "본 계약은 동일한 조건으로 1년씩 자동 연장되며 이후에도 같다.\n"
    )
    cells = extract_values(text, load_schemas()["contract"])
    assert cells["expiration"].norm == "2025-04-03" and "2 years from 2023-04-03" in cells["expiration"].display
    assert cells["renewal_notice"].norm == "60 days"
    assert cells["renewal_term"].display == "successive 1 year"
