"""search/facts detectors on small fixtures, English and Korean: every mention's span is exact (character
offsets, so Korean text slices to the same words), and its value is the normal form."""

import pytest
from wikigen.search.facts.dates import find_dates
from wikigen.search.facts.numbers import find_amounts, find_durations, find_percentages, word_number
from wikigen.search.facts.parties import find_entities, find_parties, find_terms
from wikigen.search.facts.sheet import date_role, duration_role, fact_sheet
from wikigen.search.facts.title import document_title, self_noun


def _spans_exact(text, mentions):
    for m in mentions:
        assert text[m.start : m.end] == m.text


@pytest.mark.parametrize(
    "text, value, said",
    [
        ("The fee is USD 240,000 per year.", "USD 240,000", "USD 240,000"),
        ("pay $1.2 million on signing", "USD 1,200,000", "$1.2 million"),
        ("a cap of £5,000,000 in aggregate", "GBP 5,000,000", "£5,000,000"),
        ("Ten Thousand Dollars ($10,000)", "USD 10,000", "$10,000"),
        ("EUR 1.5bn facility", "EUR 1,500,000,000", "EUR 1.5bn"),
        ("240,000 euros a year", "EUR 240,000", "240,000 euros"),
        ("단가는 18,500원으로 한다.", "KRW 18,500", "18,500원"),
        ("보상한도 10억 원 이상", "KRW 1,000,000,000", "10억 원"),
        ("월 1,200만원을 지급한다", "KRW 12,000,000", "1,200만원"),
    ],
)
def test_amounts(text, value, said):
    found = find_amounts(text)
    assert [(m.value, m.text) for m in found] == [(value, said)]
    _spans_exact(text, found)


def test_no_amount_without_a_currency():
    assert find_amounts("Section 12,000 of 2023 and 45 units") == []


@pytest.mark.parametrize(
    "text, value",
    [
        ("interest at 4% per year", "4%"),
        ("fifty percent (50%) of the fees", "50%"),
        ("12.5 per cent of revenue", "12.5%"),
        ("twenty percent of the shares", "20%"),
        ("불량률이 1%를 초과하는 경우", "1%"),
        ("10퍼센트 이상", "10%"),
    ],
)
def test_percentages(text, value):
    found = find_percentages(text)
    assert [m.value for m in found] == [value]
    _spans_exact(text, found)


@pytest.mark.parametrize(
    "text, value, said",
    [
        ("upon thirty (30) days' written notice", "30 days", "thirty (30) days"),
        ("at least one hundred and twenty (120) days", "120 days", "one hundred and twenty (120) days"),
        ("for an initial term of 12 months", "12 months", "12 months"),
        ("within five business days", "5 business days", "five business days"),
        ("a thirty-six month period", "36 months", "thirty-six month"),
        ("계약기간은 2년간으로 한다", "2 years", "2년간"),
        ("3개월 전에 통보", "3 months", "3개월"),  # "전" (before) is a cue after the length, as "prior" is
        ("받은 날부터 3영업일 이내에", "3 business days", "3영업일 이내"),
        ("a five-year term", "5 years", "five-year"),
        ("a six (6)-month period", "6 months", "six (6)-month"),
        ("renews from year to year", "1 year", "year to year"),
        ("for successive annual periods", "1 year", "annual periods"),
        ("이후 1년씩 연장된다", "1 year", "1년"),
        ("계약 기간은 3년으로 한다", "3 years", "3년"),
    ],
)
def test_durations(text, value, said):
    found = find_durations(text)
    assert [(m.value, m.text) for m in found] == [(value, said)]
    _spans_exact(text, found)


def test_korean_years_days_of_the_month_shares_and_fractions_are_not_durations():
    for text in (
        "2023년 이후",
        "3월 10일 전에",
        "매월 25일 이내",
        "주식 100주를 양도",
        "3분의 1",
        "지급일은 10일로 한다",
    ):
        assert find_durations(text) == [], text


def test_a_korean_date_is_not_a_duration():
    text = "본 계약은 2024년 3월 1일부터 효력이 발생하며, 30일 이내에 통지한다."
    assert [m.value for m in find_durations(text)] == ["30 days"]
    assert find_dates(text)[0].iso == "2024-03-01"


def test_word_numbers():
    assert word_number("one hundred and twenty") == 120
    assert word_number("thirty-five") == 35
    assert word_number("two thousand five hundred") == 2500
    assert word_number("several") is None


def test_parties_between_x_and_y_with_aliases():
    text = (
        "THIS AGREEMENT is made as of June 1, 2021 by and between Northwind Traders, Inc., a Delaware "
        'corporation with offices at 1 Main Street, Springfield ("Northwind"), and Contoso GmbH, a company '
        'organized under the laws of Germany (the "Supplier"). WHEREAS Northwind wishes to buy.'
    )
    found = find_parties(text)
    assert [m.value for m in found] == [
        "Northwind Traders, Inc. (\u201cNorthwind\u201d)",
        "Contoso GmbH (\u201cSupplier\u201d)",
    ]
    _spans_exact(text, found)


def test_parties_numbered_and_role_lines():
    numbered = (
        'Date: 8 January 2024\n\n(1) Fabrikam Ltd of 2 Quay Road, Leeds (the "Company")\n'
        '(2) Ana da Silva, of Rua Nova 1, Lisbon (the "Consultant")\n\n1. Engagement'
    )
    assert [m.text for m in find_parties(numbered)] == ["Fabrikam Ltd", "Ana da Silva"]
    roles = (
        "HOSTING AGREEMENT\n\nCustomer: Fabrikam Ltd, 2 Quay Road, Leeds\n"
        "Provider: Tailspin Cloud Limited, Dublin (registered in Ireland)\nStart date: 1 January 2023\n"
    )
    assert [m.text for m in find_parties(roles)] == ["Fabrikam Ltd", "Tailspin Cloud Limited"]


def test_parties_korean():
    text = (
        '가나전자 주식회사(이하 "갑"이라 한다)와 다라상사 주식회사(이하 "을"이라 한다)는 다음과 같이 '
        '기본계약(이하 "본 계약"이라 한다)을 체결한다.'
    )
    found = find_parties(text)
    assert [m.value for m in found] == ["가나전자 주식회사 (\u201c갑\u201d)", "다라상사 주식회사 (\u201c을\u201d)"]
    _spans_exact(text, found)


def test_no_parties_in_a_policy():
    assert find_parties("Travel Policy\n\nStaff travelling between Leeds and Edinburgh take the train.") == []


def test_entities_by_their_descriptor():
    text = "Litware LLC, a Nevada limited liability company, shall indemnify Adatum Corp."
    assert [m.text for m in find_entities(text)] == ["Litware LLC"]


def test_defined_terms():
    text = (
        '"Services" means the services in Schedule 1. The fees (the "Fees") are due monthly. '
        '"비밀정보"란 일방 당사자가 제공하는 정보를 말한다.'
    )
    found = find_terms(text)
    assert [m.value for m in found] == ["Services", "Fees", "비밀정보"]


def test_date_roles():
    text = (
        'This Agreement is made on 1 March 2023 (the "Effective Date"). It expires on 28 February 2026. '
        "Signed and dated 15 February 2023. 본 계약의 유효기간은 2023년 4월 3일부터 2년으로 한다."
    )
    roles = {d.iso: date_role(text, d) for d in find_dates(text)}
    assert roles == {
        "2023-03-01": "effective",
        "2026-02-28": "expiry",
        "2023-02-15": "dated",
        "2023-04-03": "effective",
    }


def test_duration_roles():
    text = "The initial term is 24 months. Either party may terminate on 90 days' written notice."
    roles = [duration_role(text, m) for m in find_durations(text)]
    assert roles == ["term", "notice"]


@pytest.mark.parametrize(
    "text, title",
    [
        (
            "[LOGO]\n\nEXHIBIT C\n\nFRANCHISE AGREEMENT\n\nTHIS AGREEMENT is made by and between ... this Agreement, "
            "this Agreement.",
            "FRANCHISE AGREEMENT",
        ),
        (
            "Exhibit 10.6\n\nSUPPLY AGREEMENT\n\nThis Supply Agreement is made ... under this Agreement and this "
            "Agreement.",
            "SUPPLY AGREEMENT",
        ),
        (
            "Fabrikam Ltd\n12 High Street, Leeds LS1 4QT\nTel: +44 113 496 0000\n\nData Retention Policy\n\nThis policy "
            "applies to all staff. Under this policy, this policy ...",
            "Data Retention Policy",
        ),
        (
            'Exhibit 10.19 JOINT CONTENT LICENSE AGREEMENT This JOINT CONTENT LICENSE AGREEMENT (the "Agreement") is '
            "made by and between A and B, and this Agreement and this Agreement " + "x " * 80,
            "JOINT CONTENT LICENSE AGREEMENT",
        ),
        (
            '비밀유지계약서\n\n가나전자 주식회사(이하 "회사")와 ...\n\n제1조 (목적)\n본 계약은 ... 본 계약',
            "비밀유지계약서",
        ),
    ],
)
def test_titles_skip_logos_exhibits_and_letterheads(text, title):
    assert document_title(text) == title


def test_a_page_header_repeated_through_the_document_is_not_the_title():
    page = "ACME CONFIDENTIAL\n\nSome paragraph of the report that goes on.\n\n"
    text = "ACME CONFIDENTIAL\n\nQuarterly Operations Report\n\n" + page * 5
    assert document_title(text) == "Quarterly Operations Report"


def test_a_given_title_is_kept_only_when_it_reads_as_a_title():
    text = "[LOGO]\n\nSERVICES AGREEMENT\n\nthis Agreement, this Agreement"
    assert document_title(text, given="Master Services Agreement") == "Master Services Agreement"
    assert document_title(text, given="[LOGO]") == "SERVICES AGREEMENT"
    assert document_title(text, given="Exhibit 10.6") == "SERVICES AGREEMENT"


def test_self_noun():
    assert self_noun("This Agreement ... under this Agreement and this Policy") == "agreement"
    assert self_noun("본 계약은 ... 본 계약에 따라") == "계약"


def test_fact_sheet_composes_a_description():
    text = (
        'SERVICES AGREEMENT\n\nThis Services Agreement is made on 1 January 2023 (the "Effective Date") '
        'between Northwind Traders Inc ("Northwind") and Contoso Ltd (the "Provider").\n\n'
        "1. Fees. Northwind pays USD 12,000 per month. Either party may end this Agreement on thirty (30) "
        "days' notice."
    )
    sheet = fact_sheet(text)
    assert sheet.title == "SERVICES AGREEMENT"
    assert sheet.description == "Between Northwind Traders Inc and Contoso Ltd, effective 2023-01-01."
    assert sheet.short == "Services agreement, effective 2023-01-01."
    got = {f.label: f.value for f in sheet.facts}
    assert got["Effective date"] == "2023-01-01"
    assert got["Amount"] == "USD 12,000"
    assert got["Notice period"] == "30 days"
    assert sheet.facts[0].kind == "title" and text[slice(*sheet.facts[0].quote)] == "SERVICES AGREEMENT"
    for f in sheet.facts[1:]:  # each quote is whole sentences that hold the fact
        qs, qe = f.quote
        assert qs <= f.start and f.end <= qe
        assert text[qe - 1] in '.)"' or qe == len(text)


def test_fact_sheet_of_a_document_without_parties_says_what_it_is():
    text = (
        "Remote Working Policy\n\nVersion 2, effective 1 May 2024.\n\n"
        "This policy sets out when staff may work from home. Under this policy managers approve requests."
    )
    sheet = fact_sheet(text)
    assert sheet.title == "Remote Working Policy"
    assert sheet.description == "Remote Working Policy, effective 2024-05-01."


@pytest.mark.parametrize(
    "text, term",
    [
        ('such materials (collectively, the "PSM Materials"). For', "PSM Materials"),
        ('the Development Plan (each, a "Combination Therapy"), including', "Combination Therapy"),
        ("resources required to provide the Services ('Required Resources'); and", "Required Resources"),
        ('This amendment (hereinafter referred to as the "Amendment") is', "Amendment"),
        ('"Products" mean the goods listed in Schedule 1.', "Products"),
        ("「계약기간」이라 한다", "계약기간"),
    ],
)
def test_defined_terms_broad_forms(text, term):
    assert [m.value for m in find_terms(text)] == [term]


def test_topic_discovery_reads_the_one_definition_rule():
    from wikigen.agents.evidence import defined_terms

    text = (
        'This Agreement (the "Agreement") covers the Products (collectively, "Products"). '
        '"Territory" means Korea. 「계약기간」이라 한다.'
    )
    assert defined_terms(text) == [(m.value, m.start, m.end) for m in find_terms(text)]
    assert [t for t, _, _ in defined_terms(text)] == ["Agreement", "Products", "Territory", "계약기간"]
