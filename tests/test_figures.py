"""Figures that recur across documents: detection, ordering, figure pages, and their use in ask."""

from pathlib import Path

from wikigen.agents.figure_pages import FigurePlan, page_chars, plan_figures
from wikigen.agents.figures import FigureParams, find_figures, order_documents, phrase_mentions, row_mentions
from wikigen.agents.orchestrate import BuildConfig, build
from wikigen.agents.params import OfflineParams
from wikigen.search.sources import open_wiki

from wikigen.ask.figures import asks_across
from wikigen.ask.retrieval import Answerer
from wikigen.wiki.lint import check_wiki
from wikigen.wiki.page import parse_page

REPO = Path(__file__).resolve().parent.parent
ACME = REPO / "corpora" / "acme"

# three tiny quarterly reports, doc ids deliberately out of time order
REPORTS = {
    "report-b": ("June 30, 2023", "1,310", "1,120", "42.5"),
    "report-a": ("December 31, 2023", "1,480", "1,310", "44.0"),
    "report-c": ("March 31, 2023", "1,120", "1,050", "41.0"),
}


def report(period: str, now: str, before: str, pct: str) -> str:
    return "\n".join(
        [
            "  QUARTERLY REPORT",
            f"  For the quarterly period ended {period}",
            "",
            "  Table of Contents",
            "  Item 1.  Financial Statements  3",
            "",
            "  Statement of Operations (in thousands)",
            "                            Three Months Ended",
            f"  Total widget sales (1)  $  {now}  $  {before}",
            "  Cost of widgets  400  380",
            f"  Gross margin percentage  {pct} %  40.0 %",
            "  Registered office  20549",
            "",
            f"Total widget sales were ${now} thousand in the quarter, compared with ${before} thousand a year earlier.",
            "",
        ]
        + notes(period)
    )


def notes(period: str) -> list[str]:
    """Distinct prose per report, so the wiki has room for its pages under the size budget."""
    words = ["harbour", "orchard", "lantern", "granite", "meadow", "quarry", "saddle", "thimble", "copper"]
    return [
        f"Note {k}. In the period ended {period} the {words[k % 9]} team reviewed the {words[(k * 5) % 9]} "
        f"programme and filed memo {k * 17 + len(period)} on the {words[(k * 7 + 3) % 9]} depot."
        for k in range(60)
    ]


def write_reports(root: Path) -> Path:
    corpus = root / "reports"
    corpus.mkdir()
    for doc_id, args in REPORTS.items():
        (corpus / f"{doc_id}.txt").write_text(report(*args), encoding="utf-8")
    return corpus


CONTRACT = (
    "SERVICES AGREEMENT\n\nThis Agreement is made on {date} between Alder Ltd and {firm} Inc.\n\n"
    "1. Initial Term. The Agreement has an initial term of {term} from the Effective Date.\n\n"
    "2. Cure Period. A party in breach has a cure period of {cure} after written notice to remedy it.\n\n"
    "3. Meetings. Reviews shall take place within {cure} of each quarter end.\n\n"
    "4. Notices. Notices go to the addresses above.\n"
)


def contracts() -> dict[str, str]:
    rows = [
        ("alpha", "May 1, 2021", "two (2) years", "thirty (30) days"),
        ("beta", "January 5, 2020", "three (3) years", "fifteen (15) days"),
        ("gamma", "", "one (1) year", "sixty (60) days"),
    ]
    return {
        f"contracts/{firm}": CONTRACT.format(
            date=date or "the date of signature", firm=firm.title(), term=term, cure=cure
        )
        for firm, date, term, cure in rows
    }


def test_a_table_row_is_a_label_followed_only_by_values():
    text = report(*REPORTS["report-a"])
    rows = {m.key: m for m in row_mentions("r", text)}
    m = rows["total widget sale"]
    assert m.label == "Total widget sales" and text[m.start : m.end] == "Total widget sales (1)  $  1,480  $  1,310"
    assert rows["gross margin percentage"].value == "44.0 % 40.0 %"
    # a contents line (one bare page number) and a dated line are not rows
    assert "item" not in " ".join(rows) and not any("period ended" in k for k in rows)


def test_row_detection_is_linear_on_a_long_line_of_numbers():
    line = "Totals  " + "  ".join(["1,234"] * 35) + "  x\n"  # ends in a word: not a row
    ok = "Totals  " + "  ".join(["1,234"] * 35) + "\n"
    params = FigureParams(max_line_chars=1000)
    assert row_mentions("d", line * 50, params) == []
    assert len(row_mentions("d", ok * 3, params)) == 3


def test_a_recurring_row_becomes_a_figure_in_time_order():
    texts = {d: report(*a) for d, a in REPORTS.items()}
    figures = {f.key: f for f in find_figures(texts)}
    f = figures["total widget sale"]
    assert f.kind == "row" and f.title == "Total widget sales"
    assert f.order == ["report-c", "report-b", "report-a"]  # March, June, December 2023
    assert f.dates == {"report-c": "2023-03-31", "report-b": "2023-06-30", "report-a": "2023-12-31"}
    assert all(texts[d][m.start : m.end].startswith("Total widget sales") for d, m in f.mentions.items())
    # the same value in every document is boilerplate, not a figure; so is a label in too few documents
    assert "registered office" not in figures
    assert "cost of widget" not in figures  # "400 380" everywhere
    assert not find_figures(dict(list(texts.items())[:1]))  # one document: a figure is a label across documents
    assert "total widget sale" in {f.key for f in find_figures(dict(list(texts.items())[:2]))}


def test_a_value_phrase_in_contracts_becomes_a_figure():
    texts = contracts()
    got = {m.key: m for m in phrase_mentions("contracts/alpha", texts["contracts/alpha"])}
    assert got["cure period"].value == "thirty (30) days" and got["initial term"].value == "two (2) years"
    figures = {f.key: f for f in find_figures(texts)}
    f = figures["cure period"]
    assert f.kind == "phrase"
    # dated contracts in time order, the undated one last
    assert f.order == ["contracts/beta", "contracts/alpha", "contracts/gamma"]
    quote = texts["contracts/beta"][f.mentions["contracts/beta"].start : f.mentions["contracts/beta"].end]
    assert quote == "A party in breach has a cure period of fifteen (15) days after written notice to remedy it."
    assert "initial term" in figures
    # words that merely stand before values, which no document names (a heading, a defined term, a
    # capitalised name), are no figure
    assert "take place" in {m.key for m in phrase_mentions("contracts/alpha", texts["contracts/alpha"])}
    assert "take place" not in figures


def test_order_documents_puts_undated_ones_last_by_id():
    order, dates = order_documents({"z": "Dated as of May 2, 2022.", "b": "no date", "a": "nothing"}, ["a", "b", "z"])
    assert order == ["z", "a", "b"] and dates == {"z": "2022-05-02"}


def test_figure_pages_are_bounded_by_their_share_of_the_target():
    texts = {d: report(*a) for d, a in REPORTS.items()}
    figures = find_figures(texts)
    assert len(figures) >= 2
    one = page_chars(figures[0], 24)
    plan = plan_figures(figures, target_chars=int(one / 0.25) + 1, params=FigureParams(share=0.25))
    assert isinstance(plan, FigurePlan) and len(plan.figures) == 1 and plan.dropped == len(figures) - 1
    assert len(plan_figures(figures, None).figures) == len(figures)
    # the page's and the quotes' fixed costs are the offline agent's size estimates (OfflineParams), not a copy
    n = len(figures[0].order)
    free = OfflineParams(page_cost=0, quote_cost=0)
    assert page_chars(figures[0], 24, free) == one - OfflineParams().page_cost - n * OfflineParams().quote_cost


def test_asks_across_reads_the_wording():
    assert asks_across("How did total widget sales change over time?")
    assert asks_across("Compare the cure period across the contracts")
    assert asks_across("What were widget sales in each quarter?")
    assert asks_across("분기별 매출 추이는?")
    assert not asks_across("Who are the parties to the Alder agreement?")


def test_build_writes_figure_pages_and_ask_quotes_them_in_order(tmp_path):
    corpus = write_reports(tmp_path)
    wiki = tmp_path / "wiki"
    report_ = build(BuildConfig(corpus=corpus, wiki=wiki, agents=2, sessions=3, quiet=True))
    assert report_.ok, report_
    page = parse_page((wiki / "figure-total-widget-sale.md").read_text(encoding="utf-8"))
    assert page.type == "figure" and page.title == "Total widget sales"
    assert [q.doc_id for q in page.quotes()] == ["report-c", "report-b", "report-a"]
    assert all(q.text.startswith("Total widget sales") for q in page.quotes())
    assert "2023-03-31 to 2023-12-31" in page.description
    problems = check_wiki(open_wiki(wiki)).problems
    assert not [p for p in problems if p.kind in ("quote", "broken-link", "orphan", "page")], problems
    ans = Answerer.open(wiki)
    for mode in ("wiki", "wiki+search"):
        items, _, _ = ans.retrieve("How did total widget sales change over the quarters?", mode, 2000)
        first = items[0]
        assert first.ref == "figure-total-widget-sale", [c.ref for c in items]
        assert [sp["doc_id"] for sp in first.spans] == ["report-c", "report-b", "report-a"]
        assert all(u.text.startswith("Total widget sales") for u in first.pieces())
    # the reading names the figure page asked of, once; without wording that asks across documents, none
    assert ans.read("How did total widget sales change over the quarters?").figures == ("figure-total-widget-sale",)
    assert ans.read("total widget sales").figures == ()
    items, _, _ = ans.retrieve("total widget sales", "wiki+search", 2000)
    assert items and items[0].ref != "figure-total-widget-sale"
    # the answer leads with the figure's line in each report, in time order, each quoted with its span
    r = ans.ask("How did total widget sales change over the quarters?")
    assert r.answer.startswith('Total widget sales: "Total widget sales (1) $ 1,120 $ 1,050" (report-c, chars '), (
        r.answer
    )
    assert [sp["doc_id"] for sp in r.answer_spans[:3]] == ["report-c", "report-b", "report-a"]
    assert r.to_dict()["reading"]["figures"] == ["figure-total-widget-sale"]  # `ask --json` shows it
    assert all(
        ans.index.texts.text(sp["doc_id"])[sp["start"] : sp["end"]].startswith("Total widget sales")
        for sp in r.answer_spans[:3]
    )


def test_the_sample_corpus_has_an_initial_term_figure_page(tmp_path):
    """Golden: corpora/acme states an initial term in three contracts; the build gives it a figure page."""
    wiki = tmp_path / "acme-wiki"
    assert build(BuildConfig(corpus=ACME, wiki=wiki, agents=2, sessions=3, quiet=True)).ok
    page = parse_page((wiki / "figure-initial-term.md").read_text(encoding="utf-8"))
    docs = [q.doc_id for q in page.quotes()]
    assert docs == [
        "contracts/platform-licence-meridian-rail",
        "contracts/hosting-agreement-cumulo-cloud",
        "contracts/msa-brightline-logistics",
    ]  # 2022-05-15, 2023-01-01, 2023-03-01
    assert all("initial term of" in q.text for q in page.quotes())


def test_korean_values_and_dates_with_character_offsets():
    texts = {
        f"k{i}": f"제1조 본 계약은 2023년 {3 - i}월 1일에 체결한다. 해지 통지 기간은 {n}일로 한다. 기타 사항은 협의한다."
        for i, n in enumerate([30, 60, 90])
    }
    got = phrase_mentions("k0", texts["k0"])
    assert [(m.label, m.value) for m in got] == [("해지 통지 기간은", "30일")]  # "2023년", "1일": a date
    (f,) = find_figures(texts)
    assert f.order == ["k2", "k1", "k0"]  # January, February, March
    assert [texts[d][f.mentions[d].start : f.mentions[d].end] for d in f.order] == [
        "해지 통지 기간은 90일로 한다.",
        "해지 통지 기간은 60일로 한다.",
        "해지 통지 기간은 30일로 한다.",
    ]
