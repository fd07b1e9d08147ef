"""search/facts/dates.py: date mentions with exact character spans and ISO values."""

from wikigen.search.facts.dates import document_date, find_dates


def test_english_forms_with_exact_spans():
    text = "Effective as of March 1, 2023, made this 5th day of June, 2019 and on 2023-03-01 or 03/15/2022."
    found = find_dates(text)
    assert [d.iso for d in found] == ["2023-03-01", "2019-06-05", "2023-03-01", "2022-03-15"]
    for d in found:
        assert text[d.start : d.end] == d.text


def test_day_first_when_first_number_cannot_be_a_month_and_month_only_forms():
    assert [d.iso for d in find_dates("on 15/03/2022 and in March 2023")] == ["2022-03-15", "2023-03"]


def test_impossible_dates_are_not_mentions():
    assert find_dates("due February 30, 2023 or 13/13/2020") == []


def test_korean_dates_use_character_offsets():
    text = "계약은 2024년 3월 1일부터 시행하며 2024년 5월에 검토한다."
    found = find_dates(text)
    assert [d.iso for d in found] == ["2024-03-01", "2024-05"]
    assert [text[d.start : d.end] for d in found] == ["2024년 3월 1일", "2024년 5월"]


def test_overlapping_forms_give_one_mention():
    assert len(find_dates("March 1, 2023")) == 1


def test_document_date_prefers_the_date_the_opening_introduces_as_its_own():
    text = "Printed 01/02/2019\nFor the quarterly period ended July 1, 2023\n"
    assert document_date(text).iso == "2023-07-01"
    assert document_date("Letter of January 5, 2020 about March 2021").iso == "2020-01-05"
    assert document_date("no date here") is None
    assert document_date("") is None


def test_document_date_reads_the_whole_text():
    """A contract whose preamble leaves the date blank states it on the signature page, far past any opening
    (an opening of 3,000 characters found fewer agreement dates on cuad-dev: bench/facts_bench.py)."""
    text = "SUPPLY AGREEMENT\n\n" + "The parties agree as follows. " * 200 + "\n\nDated March 1, 2023"
    d = document_date(text)
    assert d is not None and d.iso == "2023-03-01" and text[d.start : d.end] == "March 1, 2023"
    assert document_date("x" * 5000) is None


def test_two_digit_years_with_slashes_and_the_nth_of_a_month():
    text = "dated 3/1/23, amended 12/31/99; clause 4.2.23 and 1/32/23 are not dates; the 1st of March 2023"
    assert [(d.iso, d.text) for d in find_dates(text)] == [
        ("2023-03-01", "3/1/23"),
        ("1999-12-31", "12/31/99"),
        ("2023-03-01", "1st of March 2023"),
    ]
