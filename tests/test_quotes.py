import pytest
from wiki_helpers import CRLF, KOREAN, make_index, quote_of

from wikigen.core.errors import QuoteError
from wikigen.wiki.markup import Quote, format_quote
from wikigen.wiki.page import Page
from wikigen.wiki.quotes import check_quote, verify_page


@pytest.fixture
def index(tmp_path):
    return make_index(tmp_path)


def test_exact_quote_ok(index):
    q = quote_of(
        index, "contracts/acme-msa", "Either party may terminate this Agreement\nupon ninety (90) days' written notice."
    )
    assert check_quote(q, index).status == "ok"


def test_korean_quote(index):
    needle = "제2조 (기간) 계약 기간은 1년으로 한다."
    start = KOREAN.index(needle)
    q = Quote("kr/contract", start, start + len(needle), needle)  # character offsets, not bytes
    assert check_quote(q, index).status == "ok"
    byte_start = len(KOREAN[:start].encode("utf-8"))
    drifted = check_quote(Quote("kr/contract", byte_start, byte_start + len(needle.encode()), needle), index)
    nearest = min(index.locate("kr/contract", needle), key=lambda s: abs(s.start - byte_start))
    assert drifted.status == "reanchored" and (drifted.new.start, drifted.new.end) == (nearest.start, nearest.end)
    assert KOREAN[drifted.new.start : drifted.new.end] == needle


def test_crlf_quote(index):
    # the span counts the \r characters of the source; the quote text has \n
    start = CRLF.index("The budget")
    end = CRLF.index("2025.") + len("2025.")
    q = Quote("memos/budget", start, end, "The budget is approved\nfor fiscal year 2025.")
    assert check_quote(q, index).status == "ok"
    wrong = Quote("memos/budget", start + 3, end + 3, q.text)
    c = check_quote(wrong, index)
    assert c.status == "reanchored" and (c.new.start, c.new.end) == (start, end)
    assert c.new.text == q.text


def test_drift_picks_occurrence_nearest_cited_start(index):
    needle = "Fees are due within thirty (30) days of invoice."
    spans = index.locate("contracts/acme-msa", needle)
    assert len(spans) == 20
    target = spans[7]
    c = check_quote(Quote("contracts/acme-msa", target.start + 5, target.end + 5, needle), index)
    assert (c.new.start, c.new.end) == (target.start, target.end)


def test_fabricated_quote(index):
    c = check_quote(Quote("contracts/acme-msa", 0, 30, "Either party may terminate at will."), index)
    assert c.status == "not-found"


def test_whitespace_only_match_is_not_verbatim(index):
    c = check_quote(Quote("contracts/acme-msa", 0, 10, "Either party may terminate this Agreement upon ninety"), index)
    assert c.status == "whitespace" and "copy the source text exactly" in c.message()


def test_unknown_doc(index):
    assert check_quote(Quote("nope", 0, 3, "abc"), index).status == "unknown-doc"


def test_verify_page_rewrites_only_span_numbers(index):
    needle = "Fees are due within thirty (30) days of invoice."
    right = index.locate("contracts/acme-msa", needle)[0]
    body = (
        "Intro.\n\n" + format_quote(Quote("contracts/acme-msa", right.start + 2, right.end + 2, needle)) + "\n\nEnd.\n"
    )
    p = Page("fees", "Fees", "a", "d", body=body)
    out, checks = verify_page(p, index)
    assert out.body == body.replace(f"(chars {right.start + 2}-{right.end + 2})", f"(chars {right.start}-{right.end})")
    assert [c.status for c in checks] == ["reanchored"]


def test_verify_page_names_the_bad_quote(index):
    good = quote_of(index, "kr/contract", "계약 기간은 1년으로 한다.")
    bad = Quote(
        "contracts/acme-msa", 100, 160, "The Supplier shall indemnify the Customer against all losses whatsoever"
    )
    p = Page("x", "X", "a", "d", body=format_quote(good) + "\n\n" + format_quote(bad) + "\n")
    with pytest.raises(QuoteError) as e:
        verify_page(p, index)
    msg = str(e.value)
    assert "contracts/acme-msa (chars 100-160)" in msg
    assert '"The Supplier shall indemnify the Customer against all losses..."' in msg
    assert "nothing was written" in msg
