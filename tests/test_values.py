"""search/values: typed values with exact character spans, English and Korean, one test table per type; then
properties over generated text (spans slice the text to the value's words, a value's own words parse back to
the same value, no crash on any unicode)."""

import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wikigen.search.values import TYPES, Value, compare_key, find_values, parse_value

from wikigen.core.errors import UsageError


def _one(text, type):
    found = find_values(text, type)
    assert len(found) == 1, found
    v = found[0]
    assert v.type == type
    return v


def _said(text, v):
    return text[v.start : v.end]


# --- dates ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, iso, precision, said",
    [
        ("Effective as of March 1, 2023 (the date)", "2023-03-01", "day", "March 1, 2023"),
        ("made this 1st day of March, 2023 between", "2023-03-01", "day", "1st day of March, 2023"),
        ("dated 3/1/23 by the parties", "2023-03-01", "day", "3/1/23"),
        ("signed on 12/31/99", "1999-12-31", "day", "12/31/99"),
        ("as of the 1st of March 2023", "2023-03-01", "day", "1st of March 2023"),
        ("in March 2023, the board", "2023-03", "month", "March 2023"),
        ("계약일: 2023년 3월 1일", "2023-03-01", "day", "2023년 3월 1일"),
        ("2024년 5월에 검토한다", "2024-05", "month", "2024년 5월"),
        ("2023년도 사업계획", "2023", "year", "2023년도"),
    ],
)
def test_dates(text, iso, precision, said):
    v = _one(text, "date")
    assert (v.norm, v.display, v.parts["iso"], v.parts["precision"]) == (iso, iso, iso, precision)
    assert _said(text, v) == said


def test_a_bare_year_is_a_date_in_a_question_not_in_running_text():
    assert find_values("Section 2019 applies to 2019 units.", "date") == []
    v = parse_value("agreements signed in 2019", "date")
    assert (v.norm, v.parts["precision"]) == ("2019", "year")
    assert parse_value("a fee of $2019", "date") is None
    assert parse_value("no date here", "date") is None


def test_dates_sort_in_time_order_across_precisions():
    vals = [parse_value(t, "date") for t in ("May 2, 2023", "2023", "2022년 12월 31일", "March 2023")]
    assert [v.norm for v in sorted(vals, key=compare_key)] == ["2022-12-31", "2023", "2023-03", "2023-05-02"]


# --- durations -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, norm, display, said, days",
    [
        ("upon thirty (30) days' written notice", "30 days", "30 days", "thirty (30) days", 30),
        ("on ninety days' prior written notice", "90 days", "90 days", "ninety days", 90),
        ("for a term of one (1) year from", "1 year", "1 year", "one (1) year", 365.25),
        ("an initial term of 12 months", "12 months", "12 months", "12 months", 365.28),
        ("a five-year term", "5 years", "5 years", "five-year", 1826.25),
        ("within ten (10) business days", "10 business days", "10 business days", "ten (10) business days", 14),
        ("within 30 calendar days", "30 days", "30 days", "30 calendar days", 30),
        ("renews for successive one-year terms", "1 year", "successive 1 year", "one-year", 365.25),
        (
            "shall renew for additional periods of two (2) years each",
            "2 years",
            "successive 2 years",
            "two (2) years",
            730.5,
        ),
        (
            "thereafter for consecutive periods of six (6) months",
            "6 months",
            "successive 6 months",
            "six (6) months",
            182.64,
        ),
        (
            "continue automatically for successive annual periods,",
            "1 year",
            "successive 1 year",
            "annual periods",
            365.25,
        ),
        ("renews from year to year unless", "1 year", "successive 1 year", "year to year", 365.25),
        ("extend for an additional month of service", "1 month", "1 month", "an additional month", 30.44),
        ("해지 통지는 30일 이내에 한다", "30 days", "30 days", "30일 이내", 30),
        ("계약기간은 2년으로 한다", "2 years", "2 years", "2년", 730.5),
        ("만료 3개월 전까지 통지", "3 months", "3 months", "3개월", 91.32),
        ("이후 1년씩 자동 연장된다", "1 year", "successive 1 year", "1년", 365.25),
    ],
)
def test_durations(text, norm, display, said, days):
    v = _one(text, "duration")
    assert (v.norm, v.display, _said(text, v)) == (norm, display, said)
    assert v.parts["days"] == pytest.approx(days, abs=0.01)
    assert v.parts["successive"] is display.startswith("successive")


def test_duration_parts_and_comparison_by_days():
    v = parse_value("twelve (12) months", "duration")
    assert dict(v.parts) == {"amount": 12, "unit": "month", "days": 365.28, "successive": False}
    ordered = sorted(
        (parse_value(t, "duration") for t in ("3 months", "90 days", "1 year", "2주", "5 business days")),
        key=compare_key,
    )
    assert [v.norm for v in ordered] == ["5 business days", "2 weeks", "90 days", "3 months", "1 year"]


def test_a_single_period_is_not_successive():
    text = "The initial term is five (5) years. Either party may extend it by an additional period of one year."
    assert [v.display for v in find_values(text, "duration")] == ["5 years", "1 year"]
    # the cue before one duration does not carry over to the next one
    text = "renews for successive one-year terms unless notice is given sixty (60) days before"
    assert [v.display for v in find_values(text, "duration")] == ["successive 1 year", "60 days"]
    # a renewal term's notice, a sliding window and one extension are single periods
    for text in (
        "either party may end any renewal term upon thirty (30) days written notice",
        "no more than 500 units in any consecutive twenty-four (24) hour period",
        "shall automatically extend for an additional two (2) years on the same terms",
    ):
        assert [v.parts["successive"] for v in find_values(text, "duration")] == [False], text


def test_korean_short_texts_are_durations_but_days_of_the_month_and_years_are_not():
    assert [parse_value(t, "duration").norm for t in ("30일", "3개월", "2년", "통지 기간이 30일인 계약")] == [
        "30 days",
        "3 months",
        "2 years",
        "30 days",
    ]
    for running in (
        "대금은 매월 25일 이내에 지급한다",
        "3월 10일 전에 납품한다",
        "2023년 이후",
        "주식 100주를 양도",
        "3분의 1",
    ):
        assert find_values(running, "duration") == [], running


# --- money ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, norm, display, said",
    [
        ("a fee of $1,000,000 payable", "USD 1000000", "USD 1,000,000", "$1,000,000"),
        ("capped at US$5 million in aggregate", "USD 5000000", "USD 5,000,000", "US$5 million"),
        ("the price is USD 10,000.50 net", "USD 10000.5", "USD 10,000.50", "USD 10,000.50"),
        ("EUR 2.5 million facility", "EUR 2500000", "EUR 2,500,000", "EUR 2.5 million"),
        ("par value $0.01 per share", "USD 0.01", "USD 0.01", "$0.01"),
        ("an exercise price of $0.005 per share", "USD 0.005", "USD 0.005", "$0.005"),
        ("보증금 ₩1,000,000을 지급", "KRW 1000000", "KRW 1,000,000", "₩1,000,000"),
        ("손해배상 한도는 1억원으로 한다", "KRW 100000000", "KRW 100,000,000", "1억원"),
        ("월 100만원을 지급한다", "KRW 1000000", "KRW 1,000,000", "100만원"),
    ],
)
def test_amounts(text, norm, display, said):
    v = _one(text, "money")
    assert (v.norm, v.display, _said(text, v)) == (norm, display, said)
    assert v.parts["currency"] == norm.split()[0]
    assert compare_key(v) == float(norm.split()[1])


@pytest.mark.parametrize(
    "text, multiple, of, display, said",
    [
        (
            "liability shall not exceed the fees paid in the twelve (12) months preceding the claim, and",
            1,
            "fees paid in the prior 12 months",
            "fees paid in the prior 12 months",
            "fees paid in the twelve (12) months preceding the claim",
        ),
        ("limited to two times the annual fees.", 2, "annual fees", "2x annual fees", "two times the annual fees"),
        (
            "an amount equal to two (2) times the total Fees paid by Customer in the six (6) month period "
            "immediately preceding the event; or",
            2,
            "fees paid in the prior 6 months",
            "2x fees paid in the prior 6 months",
            "two (2) times the total Fees paid by Customer in the six (6) month period immediately preceding the event",
        ),
        (
            "capped at 150% of the fees payable hereunder",
            1.5,
            "fees paid",
            "1.5x fees paid",
            "150% of the fees payable",
        ),
        ("손해배상액은 연간 수수료의 2배를 초과하지 않는다", 2, "annual fees", "2x annual fees", "연간 수수료의 2배"),
        (
            "직전 12개월간 을이 지급한 용역대금 총액을 한도로 한다",
            1,
            "service fees paid in the prior 12 months",
            "service fees paid in the prior 12 months",
            "직전 12개월간 을이 지급한 용역대금 총액",
        ),
    ],
)
def test_multiples_of_fees(text, multiple, of, display, said):
    v = _one(text, "money")
    assert dict(v.parts) == {"multiple": multiple, "of": of}
    assert (v.display, _said(text, v)) == (display, said)
    assert v.norm == f"{multiple:g}x {of}" and compare_key(v) is None


def test_a_bare_mention_of_fees_is_no_money():
    assert find_values("Customer shall pay the fees set out in the Order Form.", "money") == []
    # a word of limit alone measures nothing; with a payment after it, it does
    assert find_values("the Repairer shall invoice an amount equal to the price set out in Clause 4", "money") == []
    v = parse_value("shall not exceed the compensation paid to Consultant", "money")
    assert dict(v.parts) == {"multiple": 1, "of": "compensation paid"}


# --- percentages ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, said",
    [
        ("a discount of 15% applies", "15%"),
        ("fifteen percent (15%) of revenue", "fifteen percent (15%)"),
        ("15 per cent of the price", "15 per cent"),
        ("15 % late fee", "15 %"),
        ("불량률 15퍼센트 이상", "15퍼센트"),
    ],
)
def test_percentages(text, said):
    v = _one(text, "percentage")
    assert (v.norm, v.display, _said(text, v), compare_key(v)) == ("15%", "15%", said, 15.0)


# --- jurisdictions -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, names, said",
    [
        ("governed by the laws of the State of Delaware, without regard to", ["Delaware"], ["State of Delaware"]),
        ("New York law governs this Agreement.", ["New York"], ["New York"]),
        ("the laws of the Commonwealth of Massachusetts apply", ["Massachusetts"], ["Commonwealth of Massachusetts"]),
        ("the laws of England and Wales", ["England and Wales"], ["England and Wales"]),
        (
            "the laws of Ontario and the federal laws of Canada applicable therein",
            ["Ontario", "Canada"],
            ["Ontario", "Canada"],
        ),
        ("the laws of the People's Republic of China", ["China"], ["People's Republic of China"]),
        ("THE LAWS OF THE STATE OF CALIFORNIA SHALL GOVERN", ["California"], ["STATE OF CALIFORNIA"]),
        ("the courts of New South Wales", ["New South Wales"], ["New South Wales"]),
        ("This Agreement is governed by English law.", ["England and Wales"], ["English"]),  # one jurisdiction
        ("이 계약은 대한민국 법에 따라 해석된다.", ["Republic of Korea"], ["대한민국"]),
        ("한국 법률을 준거법으로 한다", ["Republic of Korea"], ["한국"]),
        ("관할 법원은 서울특별시에 있는 법원으로 한다", ["Seoul"], ["서울특별시"]),
        ("경기도에 소재한 공장", ["Gyeonggi-do"], ["경기도"]),
    ],
)
def test_jurisdictions(text, names, said):
    found = find_values(text, "jurisdiction")
    assert [v.norm for v in found] == names
    assert [_said(text, v) for v in found] == said


def test_jurisdiction_parts_and_the_more_specific_first():
    text = "the federal laws of the United States and the laws of the State of New York"
    found = find_values(text, "jurisdiction")
    assert [dict(v.parts) for v in found] == [
        {"name": "New York", "country": "United States", "kind": "state", "code": "US-NY"},
        {"name": "United States", "country": "United States", "kind": "country", "code": "US"},
    ]
    assert [dict(v.parts) for v in find_values("미국 뉴욕주 법을 따른다", "jurisdiction")] == [
        {"name": "New York", "country": "United States", "kind": "state", "code": "US-NY"},
        {"name": "United States", "country": "United States", "kind": "country", "code": "US"},
    ]
    assert parse_value("Ontario", "jurisdiction").parts["kind"] == "province"
    assert parse_value("the laws of the Republic of Korea", "jurisdiction").parts == {
        "name": "Republic of Korea",
        "country": "Republic of Korea",
        "kind": "country",
        "code": "KR",
    }


def test_names_inside_other_names_and_words_are_not_jurisdictions():
    text = "Texas Instruments hired Virginia Smith. She met Michael Jordan in the lobby."
    assert find_values(text, "jurisdiction") == []
    assert find_values("한국어로 작성하고 한국전력에 제출한다", "jurisdiction") == []
    assert find_values("the turkey and the china plates", "jurisdiction") == []
    # words of legal grammar after a name keep it a place
    assert [v.norm for v in find_values("the Delaware Court of Chancery and New York County", "jurisdiction")] == [
        "Delaware",
        "New York",
    ]


def test_a_question_names_a_jurisdiction_in_any_case():
    assert parse_value("which contracts are governed by delaware law?", "jurisdiction").norm == "Delaware"
    assert parse_value("Georgia law", "jurisdiction").parts["kind"] == "state"
    assert parse_value("the Republic of Georgia", "jurisdiction").parts["kind"] == "country"
    assert parse_value("korean law", "jurisdiction").norm == "Republic of Korea"
    assert parse_value("nothing here", "jurisdiction") is None


# --- parties -------------------------------------------------------------------------------------


def test_parties_with_their_roles():
    text = (
        'This Supply Agreement is made between ACME CORP., a Delaware corporation ("Supplier"), and Beta '
        'Widgets LLC, a Texas limited liability company (the "Buyer").'
    )
    found = find_values(text, "party")
    assert [(v.norm, v.display, _said(text, v)) for v in found] == [
        ("ACME CORP.", "ACME CORP. (Supplier)", "ACME CORP."),
        ("Beta Widgets LLC", "Beta Widgets LLC (Buyer)", "Beta Widgets LLC"),
    ]
    assert dict(found[0].parts) == {"name": "ACME CORP.", "role": "Supplier"}
    ko = '가나전자 주식회사(이하 "갑"이라 한다)와 다라상사 주식회사(이하 "을"이라 한다)는 계약을 체결한다.'
    assert [(v.norm, v.parts["role"]) for v in find_values(ko, "party")] == [
        ("가나전자 주식회사", "갑"),
        ("다라상사 주식회사", "을"),
    ]


def test_a_cell_names_a_party():
    v = parse_value("Acme Corp.", "party")
    assert (v.norm, v.parts["role"]) == ("Acme Corp.", None)
    assert parse_value("the parties hereto", "party") is None


# --- the API -------------------------------------------------------------------------------------


def test_a_window_reports_offsets_in_the_whole_text():
    text = "Notice: 30 days. Renewal: successive one-year terms. Cap: $5,000."
    a = text.index("Renewal")
    found = find_values(text, "duration", a, text.index("Cap"))
    assert [(v.display, text[v.start : v.end]) for v in found] == [("successive 1 year", "one-year")]
    assert find_values(text, "duration", 10, 5) == [] and find_values(text, "money", -5, 10_000)[0].norm == "USD 5000"


def test_unknown_type_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown value type 'colour'"):
        find_values("text", "colour")
    with pytest.raises(UsageError):
        parse_value("text", "colour")


def test_values_pickle_for_worker_processes():
    v = parse_value("successive one-year terms", "duration")
    assert pickle.loads(pickle.dumps(v)) == v and isinstance(v, Value)


# --- properties ----------------------------------------------------------------------------------

_PHRASES = [
    "March 1, 2023",
    "the 1st day of June, 2019",
    "2023년 3월 1일",
    "thirty (30) days",
    "successive one-year terms",
    "from month to month",
    "an additional year",
    "90일 이내",
    "US$5 million",
    "1억원",
    "two times the annual fees",
    "fifteen percent (15%)",
    "15퍼센트",
    "the laws of the State of Delaware",
    "England and Wales",
    "대한민국 법",
    'Acme Corp., a Delaware corporation ("Supplier")',
]
_FILLER = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
_TEXTS = st.lists(st.one_of(st.sampled_from(_PHRASES), _FILLER), max_size=8).map(" ".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_TEXTS, type=st.sampled_from(TYPES))
def test_spans_slice_the_text_to_the_values_words(text, type):
    for v in find_values(text, type):
        said = text[v.start : v.end]
        assert 0 <= v.start < v.end <= len(text)
        assert said == said.strip() and said
        # a value's own words read alone give the same value (its norm), whatever stood around it
        again = parse_value(said, type)
        assert again is not None and again.norm == v.norm, (said, v, again)


@settings(max_examples=200, deadline=None)
@given(text=st.text(), type=st.sampled_from(TYPES), start=st.integers(-3, 40), end=st.integers(-3, 40) | st.none())
def test_no_crash_on_any_unicode(text, type, start, end):
    for v in find_values(text, type, start, end):
        assert 0 <= v.start < v.end <= len(text)
        assert compare_key(v) is not None or v.type == "money"
    parse_value(text, type)


@pytest.mark.parametrize(
    "phrase, type, display",
    [
        ("which contracts need 30 days' notice to end?", "duration", "30 days"),
        ("agreements that renew for one-year terms", "duration", "successive 1 year"),
        ("deals worth more than $1 million", "money", "USD 1,000,000"),
        ("is liability capped at twice the fees?", "money", "2x fees"),
        ("anything signed after March 2020", "date", "2020-03"),
        ("royalties above 5 percent", "percentage", "5%"),
        ("governed by Delaware law", "jurisdiction", "Delaware"),
        ("해지 통지 기간이 90일인 계약", "duration", "90 days"),
        ("손해배상 한도가 1억원 이상인 계약", "money", "KRW 100,000,000"),
        ("준거법이 대한민국 법인 계약", "jurisdiction", "Republic of Korea"),
    ],
)
def test_a_questions_phrase_parses_to_its_value(phrase, type, display):
    assert parse_value(phrase, type).display == display


def _cell(text: str) -> dict:
    """A stated table cell of the jurisdiction a text names."""
    v = parse_value(text, "jurisdiction")
    assert v is not None, text
    return {"status": "stated", "norm": v.norm, "display": v.display, "type": v.type, "parts": dict(v.parts)}


def _asked(text: str):
    """A question's condition: the jurisdiction a text names."""
    from wikigen.ask.values import Condition

    return Condition("eq", parse_value(text, "jurisdiction"), text)


def test_english_law_is_the_law_of_england_and_wales_and_england_is_part_of_it():
    """One jurisdiction under its names: a cell stating "English law" or "the laws of England" meets a question
    about the law of England and Wales, and the other way round; Scotland and New South Wales do not."""
    from wikigen.ask.values import meets

    english = parse_value("governed by English law", "jurisdiction")
    assert english is not None and english.norm == "England and Wales"

    for stated in ("governed by English law", "the laws of England", "the law of England and Wales"):
        for question in ("England and Wales", "English law", "England"):
            assert meets(_cell(stated), _asked(question)), (stated, question)
    for other in ("the law of Scotland", "the laws of New South Wales", "the laws of the State of New York"):
        assert not meets(_cell(other), _asked("England and Wales")), other


def test_a_country_s_law_holds_its_provinces_and_states_and_its_kind_may_stand_between():
    """'Canadian provincial law' names Canada's law (the kind of law between the adjective and "law"), and a
    contract under Ontario's or British Columbia's law is under Canadian law; a country's law is not a province's,
    and Hong Kong, its own code, is not China's."""
    from wikigen.ask.values import meets

    for phrase, display in (("Canadian provincial law", "Canada"), ("English common law", "England and Wales")):
        v = parse_value(f"Which contracts are under {phrase}?", "jurisdiction")
        assert v is not None and v.display == display, phrase

    for stated in ("the laws of the Province of Ontario", "the laws of British Columbia", "the laws of Canada"):
        assert meets(_cell(stated), _asked("Canadian law")), stated
    assert meets(_cell("the laws of the State of Delaware"), _asked("US law"))
    assert not meets(_cell("the laws of Canada"), _asked("Ontario law"))
    assert not meets(_cell("the laws of Hong Kong"), _asked("Chinese law"))
