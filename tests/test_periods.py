"""Series of periodic documents: the quarter a document reports on (from its own labels, no calendar), and a
question naming a member by a name and a quarter, or "the latest", scoped to that member."""

import pytest
from ask_helpers import answerer_over, document_page, figure_page, quoted

from wikigen.ask.periods import SeriesResolver, own_quarter, quarter_labels, question_names


def _report(company: str, own: str, prior: str, body: str) -> str:
    """A quarterly report: its own quarter in every footer, last year's quarter as the comparison column."""
    pages = [f"{company} | {own} Form 10-Q | {i}\n{body} Revenue for {own} rose from {prior}.\n" for i in range(1, 5)]
    return f"QUARTERLY REPORT\n\n{company} Corporation reports on the quarter.\n\n" + "\n".join(pages)


DOCS = {
    "north-a": _report("Northwind", "Q1 2023", "Q1 2022", "Northwind sells lamps. Its gross margin was 41%."),
    "north-b": _report("Northwind", "Q2 2023", "Q2 2022", "Northwind sells lamps. Its gross margin was 44%."),
    "orbit-a": _report("Orbitex", "Q1 2023", "Q1 2022", "Orbitex builds satellites. Its gross margin was 30%."),
    "orbit-b": _report("Orbitex", "Q2 2023", "Q2 2022", "Orbitex builds satellites. Its gross margin was 33%."),
}


def test_labels_in_english_and_korean():
    text = "In the second quarter of fiscal 2023, against Q2 2022 and 2024 Q1; 2023년 2분기 실적"
    assert quarter_labels(text) == {(2023, 2): 2, (2022, 2): 1, (2024, 1): 1}
    for label in (
        "Q3 FY2023",
        "Q3 fiscal 2023",
        "Q3 FY23",
        "FY23 Q3",
        "3Q23",
        "3Q 2023",
        "third fiscal quarter of 2023",
    ):
        assert quarter_labels(f"Results for {label} were strong.") == {(2023, 3): 1}, label
    assert quarter_labels("Section 3 of the 2023 plan; Q5 2023; 23 Q3") == {}


def test_a_report_names_its_own_quarter_latest_among_the_frequent_ones():
    text = ("Q2 2022 revenue " * 50) + ("Q2 2023 revenue " * 40) + "We expect Q3 2023 to be better. " * 3
    assert own_quarter(text) == (2023, 2)  # last year's column is more frequent; a forecast is rare
    assert own_quarter("A contract with no quarter in it.") is None


def test_series_members_named_by_name_and_quarter_or_latest():
    series = SeriesResolver(DOCS, DOCS.__getitem__)
    docs, named = series.resolve("What was Orbitex's gross margin in Q1 2023?", ["Orbitex", "Q1"])
    assert docs == ["orbit-a"] and {"orbitex", "q1", "2023"} <= named
    assert series.resolve("In Northwind's latest 10-Q, what was the gross margin?", ["Northwind"])[0] == ["north-b"]
    assert series.resolve(
        "What margin did Northwind report in its latest report, and how does it compare to Orbitex's?",
        ["Northwind", "Orbitex"],
    )[0] == ["north-b", "orbit-b"]  # each name's latest
    assert series.resolve(
        "What margin did Northwind report in its latest report, and how does it compare to the industry's?",
        ["Northwind"],
    )[0] == ["north-b"]
    assert series.resolve("What gross margins were reported for Q2 2023?", [])[0] == ["north-b", "orbit-b"]
    # several periods: the series as a whole, not its latest member
    assert (
        series.resolve(
            "How did Northwind's margin in the most recent quarter compare to previous quarters?", ["Northwind"]
        )
        is None
    )
    assert series.resolve("What was Northwind's gross margin?", ["Northwind"]) is None
    assert series.resolve("What was Northwind's gross margin in Q4 2019?", ["Northwind"]) is None


def test_a_name_alone_over_several_periods_names_all_its_reports():
    series = SeriesResolver(DOCS, DOCS.__getitem__)
    docs, named = series.resolve_series("How has Northwind's gross margin changed over time?", ["Northwind"])
    assert docs == ["north-a", "north-b"] and named == {"northwind"}
    q = "How did Northwind's margin in the most recent quarter compare to previous quarters?"
    assert series.resolve_series(q, question_names(q))[0] == ["north-a", "north-b"]
    q = "Compare Northwind's and Orbitex's gross margins"
    assert series.resolve_series(q, question_names(q))[0] == sorted(DOCS)
    # one quarter, or the latest, is the member `resolve` finds; no name, nothing to narrow
    assert series.resolve_series("What was Orbitex's gross margin in Q1 2023?", ["Orbitex", "Q1"]) is None
    assert series.resolve_series("In Northwind's latest 10-Q, what was the gross margin?", ["Northwind"]) is None
    assert series.resolve_series("How have gross margins changed over time?", []) is None


def test_a_product_name_narrows_the_reports_but_stays_in_the_query():
    """The company's name is on the reports' cover and says whose they are; a product's name, far into their
    text, narrows the reports too, but it is what the question asks about: the query keeps it."""
    filler = "The quarter's results are discussed below. " * 50
    docs = {
        d: text + filler + ("Lumina lamps sold 1,200 units. " if d.startswith("north") else "Orbitex sells no lamps.")
        for d, text in DOCS.items()
    }
    series = SeriesResolver(docs, docs.__getitem__)
    q = "How many Lumina lamps did Northwind sell in Q1 2023?"
    found, named = series.resolve(q, question_names(q))
    assert found == ["north-a"] and "northwind" in named and "lumina" not in named
    q = "How many Lumina lamps were sold according to the latest 10-Q?"
    found, named = series.resolve(q, question_names(q))
    assert found == ["north-b"] and "lumina" not in named
    q = "How have Lumina lamp sales changed over time?"
    found, named = series.resolve_series(q, question_names(q))
    assert found == ["north-a", "north-b"] and named == set()
    q = "How have Northwind's Lumina lamp sales changed over time?"
    assert series.resolve_series(q, question_names(q))[1] == {"northwind"}


def test_a_word_every_report_uses_or_undated_documents_name_no_series():
    series = SeriesResolver(DOCS, DOCS.__getitem__)
    q = "Has the margin changed? If so, how did Revenue move over the quarters?"
    assert series.resolve_series(q, question_names(q)) is None  # "If", "Revenue": every report uses them
    contracts = {
        "supply-1": "SUPPLY AGREEMENT between Northwind and Acme. Northwind shall deliver lamps.",
        "supply-2": "SUPPLY AGREEMENT between Northwind and Bolt. Northwind shall deliver lamps.",
        "lease-1": "LEASE between Orbitex and Crane. Orbitex shall pay rent.",
    }
    series = SeriesResolver(contracts, contracts.__getitem__)
    assert series.resolve_series("How have Northwind's deliveries changed over time?", ["Northwind"]) is None


@pytest.fixture(scope="module")
def answerer(tmp_path_factory):
    pages = []
    for d, text in DOCS.items():
        opening = text.split("\n\n")[1]
        pages.append(document_page(d, "QUARTERLY REPORT", quoted(d, text, opening), opening))
    margins = [quoted(d, text, text[text.index("Its gross margin") : text.index("%.") + 2]) for d, text in DOCS.items()]
    pages.append(figure_page("figure-gross-margin", "Gross margin", margins))  # each report's margin line
    return answerer_over(tmp_path_factory.mktemp("periods"), DOCS, pages)


@pytest.mark.parametrize("mode", ["wiki", "wiki+search"])
def test_ask_scopes_a_question_to_the_member_it_names(answerer, mode):
    r = answerer.ask("What was Orbitex's gross margin in Q2 2023?", mode=mode)
    assert r.scope["kind"] == "document" and r.scope["pages"] == ["doc-orbit-b"], r.scope
    if mode == "wiki":
        return  # the hand-written pages quote only each report's opening: the wiki alone has no margin
    first = r.context[0]
    assert {sp["doc_id"] for sp in first.spans} == {"orbit-b"}  # the scope's document first; search fills the rest
    assert any("33%" in c.text for c in r.context if {sp["doc_id"] for sp in c.spans} == {"orbit-b"})


@pytest.mark.parametrize("mode", ["wiki", "wiki+search"])
def test_ask_scopes_a_question_over_time_to_every_report_of_the_name(answerer, mode):
    r = answerer.ask("How has Northwind's gross margin changed over time?", mode=mode)
    assert r.scope["kind"] == "series" and r.scope["docs"] == 2, r.scope
    assert r.to_dict()["scope"] == r.scope  # `ask --json` says how the question was scoped
    assert "-- scope: series, 2 documents" in r.to_text()
    assert "scope" not in answerer.ask("How have gross margins changed?", mode=mode).to_dict()  # none named
    order = [sp["doc_id"] for c in r.context for sp in c.spans]
    north = [i for i, d in enumerate(order) if d.startswith("north")]
    assert {order[i] for i in north} == {"north-a", "north-b"}
    # the scope's reports first (wiki+search fills what they leave with search anywhere)
    assert not any(d.startswith("orbit") for d in order[: north[-1]]), order
    text = " ".join(c.text for c in r.context)
    assert "41%" in text and "44%" in text  # the figure page's line of each of its reports


def test_a_report_without_quarter_labels_reports_on_the_quarter_its_period_ends_in():
    from wikigen.ask.periods import report_quarter

    assert report_quarter("FORM 10-Q\nFor the quarterly period ended June 30, 2023\nNorthwind Corporation") == (2023, 2)
    assert report_quarter("FORM 10-Q\nFor the quarterly period ended July 1, 2023\nIntel Corporation") == (2023, 2)
    assert report_quarter(
        "Apple | Q2 2023 Form 10-Q | 1\nFor the quarterly period ended April 1, 2023\nApple | Q2 2023 Form 10-Q | 2"
    ) == (2023, 2)  # its own label, not the calendar
    assert report_quarter("This Agreement is dated June 30, 2023 between Acme and Zeta.") is None


def test_a_named_reports_figure_line_comes_with_the_search_passages(answerer):
    r = answerer.ask("What was Orbitex's gross margin in Q2 2023?", mode="wiki+search")
    lines = [c for c in r.context if c.ref == "figure-gross-margin"]
    assert [sp["doc_id"] for c in lines for sp in c.spans] == ["orbit-b"], [c.ref for c in r.context]


@pytest.mark.dense
@pytest.mark.timeout(600)
def test_a_figure_line_sharing_no_word_with_the_question_comes_by_meaning(tmp_path):
    """The report's line 'Research and development ...' shares no word with 'spend on its laboratories': with
    passage vectors, the scope's figure lines closest by meaning come in too."""
    from wikigen.search.dense.encoder import DenseUnavailable, load_encoder
    from wikigen.search.dense.service import update_vectors
    from wikigen.search.index import CorpusIndex

    from wikigen.ask.retrieval import Answerer

    try:
        load_encoder()
    except DenseUnavailable as e:
        pytest.skip(f"the dense model cannot run here: {e}")
    docs = {
        d: t.replace("Its gross margin", "Research and development  410  380. Its gross margin")
        for d, t in DOCS.items()
    }
    lines = [quoted(d, text, "Research and development  410  380.") for d, text in docs.items()]
    figure = figure_page("figure-research-and-development", "Research and development", lines)
    answerer_over(tmp_path, docs, [figure])
    assert update_vectors(CorpusIndex.open(tmp_path / "index")).ok
    answerer = Answerer.open(tmp_path / "wiki")
    assert answerer.dense is not None
    r = answerer.ask("How much did Orbitex spend on its laboratories in Q2 2023?", mode="wiki+search")
    assert r.scope["kind"] == "document"
    lines = [c for c in r.context if c.ref == "figure-research-and-development"]
    assert [sp["doc_id"] for c in lines for sp in c.spans] == ["orbit-b"], [c.ref for c in r.context]


def test_korean_reports_named_by_company_and_quarter():
    def report(company, own, prior):
        return "\n".join(
            f"{company}의 {own} 분기보고서 {i}쪽\n{company}의 {own} 매출은 {prior} 대비 늘었다." for i in range(4)
        )

    docs = {
        "hanbit-1": report("한빛전자", "2023년 1분기", "2022년 1분기"),
        "hanbit-2": report("한빛전자", "2023년 2분기", "2022년 2분기"),
        "daon-2": report("다온화학", "2023년 2분기", "2022년 2분기"),
    }
    series = SeriesResolver(docs, docs.__getitem__)
    for q in ("한빛전자의 2023년 2분기 보고서에서 매출은 얼마인가?", "한빛전자의 최신 보고서에서 매출은?"):
        assert series.resolve(q, question_names(q))[0] == ["hanbit-2"], q  # the opening word is the name


def test_question_names_are_written_like_names():
    assert question_names("In Apple's Q1 2023 10-Q, what did R&D cost?") == ["Apple", "Q1", "2023", "10", "Q", "R", "D"]
    assert question_names("한빛전자의 매출은?") == ["한빛전자의", "매출은"]


def test_the_latest_must_say_a_report():
    series = SeriesResolver(DOCS, DOCS.__getitem__)
    assert series.resolve("What did Northwind say in its most recent quarterly report?", ["Northwind"])[0] == [
        "north-b"
    ]
    assert series.resolve("What is the latest delivery date Northwind accepts?", ["Northwind"]) is None


def test_a_corpus_too_large_to_keep_is_read_again_per_name(monkeypatch):
    import wikigen.ask.periods as periods

    monkeypatch.setattr(periods, "KEEP_CHARS", 100)
    reads = []
    series = SeriesResolver(DOCS, lambda d: reads.append(d) or DOCS[d])
    assert series.resolve("What was Orbitex's gross margin in Q1 2023?", ["Orbitex"])[0] == ["orbit-a"]
    assert series._texts is None and len(reads) == 2 * len(DOCS)  # the quarters, then the name
    assert series.resolve("And Orbitex's margin in Q2 2023?", ["Orbitex"])[0] == ["orbit-b"]
    assert len(reads) == 2 * len(DOCS)  # a name once read is remembered


def test_a_report_is_named_by_the_day_its_period_ends():
    """'at April 1, 2023' names the report whose period ends that day (a balance sheet's date), with the name
    telling two companies' reports of that day apart; a day no report ends on names none."""
    docs = {
        "apple-q2": "FORM 10-Q\nFor the quarterly period ended April 1, 2023\nApple Inc.\n"
        + "Apple sells phones. " * 5,
        "apple-q3": "FORM 10-Q\nFor the quarterly period ended July 1, 2023\nApple Inc.\n" + "Apple sells phones. " * 5,
        "intel-q1": "FORM 10-Q\nFor the quarterly period ended April 1, 2023\nIntel Corp.\n"
        + "Intel sells chips. " * 5,
        "intel-q2": "FORM 10-Q\nFor the quarterly period ended July 1, 2023\nIntel Corp.\n" + "Intel sells chips. " * 5,
    }
    series = SeriesResolver(docs, docs.__getitem__)
    found = series.resolve("What were Apple's total assets at April 1, 2023?", ["Apple"])
    assert found is not None and found[0] == ["apple-q2"] and {"april", "1", "2023"} <= found[1]
    assert series.resolve("What did Intel owe as of jul 1 2023?", ["Intel"])[0] == ["intel-q2"]
    assert series.resolve("What were total assets at April 1, 2023?", [])[0] == ["apple-q2", "intel-q1"]
    assert series.resolve("What were Apple's total assets at May 5, 2023?", ["Apple"]) is None


def test_a_series_asked_about_several_named_periods_is_narrowed_to_them():
    """A name's reports compared over the periods a question names are those periods' reports, not every one."""
    ends = {"apple-q1": "December 31, 2022", "apple-q2": "April 1, 2023", "apple-q3": "July 1, 2023"}
    docs = {
        d: f"FORM 10-Q\nFor the quarterly period ended {e}\nApple Inc.\n" + "Apple sells phones. " * 5
        for d, e in ends.items()
    }
    docs["intel-q2"] = (
        "FORM 10-Q\nFor the quarterly period ended July 1, 2023\nIntel Corp.\n" + "Intel sells chips. " * 5
    )
    series = SeriesResolver(docs, docs.__getitem__)
    q = "How did Apple's total assets change between April 1, 2023 and July 1, 2023?"
    assert series.resolve(q, ["Apple"]) is None
    assert series.resolve_series(q, ["Apple"])[0] == ["apple-q2", "apple-q3"]
    assert series.resolve_series("How did Apple's total assets change over time?", ["Apple"])[0] == sorted(ends)


def test_a_name_may_open_the_question():
    """'Intel inventories at ...' opens with the company's name; the words questions open with are no names."""
    assert question_names("Intel inventories at April 1, 2023?")[:1] == ["Intel"]
    assert question_names("What was Orbitex's margin?") == ["Orbitex"]
    assert question_names("Tell me Northwind's latest margin") == ["Northwind"]
