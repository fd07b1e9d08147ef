"""wikigen.core.pages: page furniture recognised from the document itself, and sentences (quotes) that run on
across a page break with the furniture inside their span (issue 24 item 5)."""

from wikigen.core.pages import furniture, page_breaks
from wikigen.core.sentences import SENTENCE, cap_span, sentence_span, sentences

_NOUNS = ["goods", "parts", "reports", "samples", "invoices", "notices", "records", "licences", "manuals", "tools"]
_LINES = iter(
    f"{a.capitalize()} and {b} are delivered in accordance with the specifications the parties agreed in writing.\n"
    for a in _NOUNS
    for b in _NOUNS
)


def fill(k: int) -> str:
    """k lines of prose, no line like another (a recurring line would read as a running header)."""
    return "".join(next(_LINES) for _ in range(k))


def _paginate(pages: list[str], footer=lambda n: f"{n}") -> str:
    """A paginated text: each page's body, then its footer after a blank line, then blank lines."""
    out = []
    for n, body in enumerate(pages, 1):
        out.append(body)
        out.append(f"\n\n{footer(n)}\n\n\n\n")
    return "".join(out).rstrip() + "\n"


def _sentence_with(text: str, phrase: str, cap: int = 600) -> str:
    i = text.index(phrase)
    s, e = sentence_span(text, i, i + len(phrase), cap)
    return text[s:e]


def test_a_sentence_runs_on_across_a_page_number_alone_on_its_line():
    pages = [
        fill(3),
        fill(3) + "Either party may terminate this Agreement upon thirty days' prior written",
        "notice to the other party. " + fill(3),
        fill(2),
    ]
    text = _paginate(pages)
    quote = _sentence_with(text, "thirty days")
    assert quote.startswith("Either party may terminate") and quote.endswith("notice to the other party.")
    assert "\n\n2\n\n" in quote  # the furniture is inside the span, verbatim
    assert quote in [text[a:b] for a, b in sentences(text, kinds=SENTENCE)]


def test_a_page_number_ending_the_line_and_a_running_header_run_into_the_next_page():
    # a PDF's text (cuad-dev's liability cap "...WHETHER BASED ON 16"): the page number ends the page's last
    # line, and the next page opens with a running header set on the same line as the page's first words
    header = "CONFIDENTIAL TREATMENT REQUESTED. PORTIONS OF THIS EXHIBIT HAVE BEEN OMITTED."
    text = "\n\n\n\n\n\n".join(
        [
            fill(3) + "End of page one stays here. 1",
            header + " " + fill(2) + "Page two ends here. 2",
            header
            + " "
            + fill(2)
            + "IN NO EVENT SHALL THE MAXIMUM TOTAL LIABILITY OF EITHER PARTY, WHETHER BASED ON 3",
            header + " CONTRACT, TORT OR ANY OTHER THEORY, EXCEED THE FEES PAID IN THE PRIOR YEAR. " + fill(1),
        ]
    )
    quote = _sentence_with(text, "MAXIMUM TOTAL LIABILITY")
    assert quote.startswith("IN NO EVENT") and quote.endswith("FEES PAID IN THE PRIOR YEAR.")
    assert "WHETHER BASED ON 3\n\n\n\n\n\n" + header + " CONTRACT, TORT" in quote
    # the header is furniture page after page, its own stops no sentence ends; a page that ends its
    # sentence is no page break to run on across
    assert sum(text[a:b] == header for a, b in furniture(text)) == 3
    assert len(page_breaks(text)) == 1


def test_page_x_of_y_and_a_running_footer_line():
    pages = [
        fill(2),
        fill(2) + "The Customer shall pay each invoice within thirty days of the date of",
        "receipt of that invoice. " + fill(1),
        fill(1),
    ]
    text = _paginate(pages, footer=lambda n: f"Acme Supply Agreement - Confidential\nPage {n} of 4")
    assert _sentence_with(text, "each invoice").endswith("receipt of that invoice.")
    got = {text[a:b] for a, b in furniture(text)}
    assert (
        "Acme Supply Agreement - Confidential\nPage 2 of 4" in got
        or {"Acme Supply Agreement - Confidential", "Page 2 of 4"} <= got
    )


def test_a_form_feed_is_a_page_break():
    text = (
        fill(1)
        + "Licensee shall keep complete and accurate records of all sales of the Products for\n\f\nat least three years after the sale. "
        + fill(1)
    )
    assert _sentence_with(text, "accurate records").endswith("three years after the sale.")


def test_korean_sentence_across_a_page_number():
    line = "갑은 을에게 본 계약에 따른 물품을 납품하고, 을은 납품일로부터 삼십 일 이내에 그 대금을 갑에게"
    body = "본 계약의 내용은 양 당사자의 서면 합의로만 변경할 수 있으며 구두 합의는 효력이 없다.\n"
    text = _paginate([body * 4, body * 3 + line, "지급한다. " + body * 3, body * 2], footer=lambda n: f"- {n} -")
    assert _sentence_with(text, "납품하고").endswith("지급한다.")


def test_no_join_where_the_page_ends_a_sentence_a_heading_or_before_a_list_item():
    ends = _paginate([fill(3), fill(3), fill(3), fill(1)])
    assert page_breaks(ends) == ()  # every page ends with a stop: nothing runs on
    assert [ends[a:b] for a, b in furniture(ends)] == ["1", "2", "3", "4"]
    # pages that open with the same words share no running header: only a shared sentence or line is one
    same = _paginate(["The Supplier shall deliver " + fill(3)[3:] for _ in range(4)])
    assert [same[a:b] for a, b in furniture(same)] == ["1", "2", "3", "4"]
    heading = _paginate(
        [
            fill(3),
            fill(3) + "ARTICLE 7 CONFIDENTIALITY",
            "Each party shall keep the other's information secret. " + fill(1),
            fill(1),
        ]
    )
    assert page_breaks(heading) == ()
    listed = _paginate(
        [
            fill(3),
            fill(3) + "The Supplier shall, at its own cost and expense, do each of the following",
            "(a) maintain insurance; and\n(b) keep records. " + fill(1),
            fill(1),
        ]
    )
    assert page_breaks(listed) == ()


def test_a_number_that_is_not_a_page_number_is_no_furniture():
    # a lone figure in the text rises in no chain of page numbers: the paragraph break after it stays
    text = fill(1) + "The parties agreed the number of units in the first delivery to be\n\n16\n\n" + fill(1)
    assert furniture(text) == () and page_breaks(text) == ()
    assert not _sentence_with(text, "number of units").endswith("delivery.")


def test_furniture_counts_toward_no_quote_length():
    header = "ACME CORPORATION - MASTER SERVICES AGREEMENT - STRICTLY PRIVATE AND CONFIDENTIAL - DO NOT COPY"
    long_line = "The Supplier shall indemnify the Customer against all losses arising out of any breach of"
    pages = [fill(3), fill(3) + long_line, "this Agreement by the Supplier or its subcontractors. " + fill(1), fill(1)]
    text = _paginate(pages, footer=lambda n: f"{header}\n{n}")
    s = text.index("The Supplier shall indemnify")
    e = text.index("subcontractors.") + len("subcontractors.")
    # the sentence is under the cap without its furniture, over it with
    assert e - s > 200 > e - s - (len(header) + 10)
    assert cap_span(text, s, e, 200) == (s, e)
