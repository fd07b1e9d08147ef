"""Dates in text, with exact character spans and ISO values, and the date a document is about.

    find_dates("Effective as of March 1, 2023 ...")  -> [DateMention(13, 26, "2023-03-01", "March 1, 2023")]
    document_date(text)                               -> the mention that dates the document, or None

Recognised forms (English and Korean; the grammar of dates, no corpus vocabulary):
"March 1, 2023", "Mar. 1 2023", "1 March 2023", "the 1st day of March, 2023", "the 1st of March 2023",
"March 2023",
"2023-03-01", "03/01/2023" (month first unless the first number cannot be a month), "3/1/23" (slashes
only; a two-digit year is 20YY below 70, else 19YY, as POSIX strptime reads it), "2023년 3월 1일",
"2023년 3월", "2023. 3. 1.". A mention's `iso` is "YYYY-MM-DD", or "YYYY-MM" when the day is not
given; impossible dates (February 30) are not mentions. ISO strings sort in time order, so a list of
documents ordered by `document_date(...).iso` is in time order.
"""

from __future__ import annotations

import bisect
import calendar
import re
from typing import NamedTuple

__all__ = ["MONTH_NUMBERS", "DateMention", "document_date", "find_dates", "introduced_as_own"]

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
MONTH_NUMBERS = _MONTHS  # "march" / "mar" / "sept" -> 3 / 3 / 9 (lower case)
# the lookahead on a name's first letter changes no match; it only spares trying every name at every word
_MONTH = (
    rf"(?=[{''.join(sorted({m[0] for m in _MONTHS}))}])(?P<month>"
    + "|".join(sorted(_MONTHS, key=len, reverse=True))
    + r")\.?"
)
# an ordinal's letters may come apart in extracted PDF text ("15t h day of", "1s t")
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th|s\s?t|n\s?d|r\s?d|t\s?h)?"
_COMMA = r"(?:\s*,\s*|\s+)"  # "March 1, 2023", "March 1 2023", "March 12,1999", "MAY , 2010"
_YEAR = r"(?P<year>(?:1[89]|20|21)\d\d)"

_PATTERNS = [
    # March 1, 2023 / Mar. 1 2023 / March 1st, 2023
    re.compile(rf"\b{_MONTH}\s+{_DAY}{_COMMA}{_YEAR}\b", re.I),
    # the 1st day of March, 2023 / the 1st of March 2023 / 1 March 2023
    re.compile(rf"\b{_DAY}\s+(?:(?:day\s+)?of\s+)?{_MONTH}{_COMMA}{_YEAR}\b", re.I),
    # 2023-03-01
    re.compile(rf"\b{_YEAR}-(?P<mnum>[01]?\d)-(?P<day>[0-3]?\d)\b"),
    # 03/01/2023, 3-1-2023 (month first unless it cannot be a month)
    re.compile(rf"\b(?P<a>[0-3]?\d)[/.-](?P<b>[0-3]?\d)[/.-]{_YEAR}\b"),
    # 3/1/23: a two-digit year, with slashes only ("4.2.23" is a clause number)
    re.compile(r"(?=\d)(?<![\d/])(?P<a>[0-3]?\d)/(?P<b>[0-3]?\d)/(?P<yy>\d\d)(?![\d/])"),
    # 2023년 3월 1일 / 2023. 3. 1.
    re.compile(rf"{_YEAR}\s*(?:년|\.)\s*(?P<mnum>1[0-2]|0?[1-9])\s*(?:월|\.)\s*(?P<day>[0-3]?\d)\s*(?:일|\.)?"),
    # March 2023 / 2023년 3월 (no day)
    re.compile(rf"\b{_MONTH}{_COMMA}{_YEAR}\b", re.I),
    re.compile(rf"{_YEAR}\s*년\s*(?P<mnum>1[0-2]|0?[1-9])\s*월"),
]

# words that, just before a date in a document's opening, say the date is the document's own
_OWN_DATE_CUE = re.compile(
    r"(?:dated|date[d:]?|as of|effective|entered into|made|executed|signed|period ended|quarter ended|"
    r"year ended|months ended|ending|작성일|기준일|일자|시행일)\W{0,3}(?:on\s+|as of\s+|(?:this|the)\s+)?\W{0,3}$",
    re.I,
)


class DateMention(NamedTuple):
    start: int  # character offsets into the text
    end: int
    iso: str  # "YYYY-MM-DD" or "YYYY-MM"
    text: str


def _century(yy: int) -> int:
    """A two-digit year's full year: 20YY below 70, else 19YY (the POSIX strptime pivot)."""
    return 2000 + yy if yy < 70 else 1900 + yy


def _iso(m: re.Match) -> str | None:
    g = m.groupdict()
    year = int(g["year"]) if g.get("year") else _century(int(g["yy"]))
    if g.get("month"):
        month = _MONTHS.get(g["month"].lower().rstrip("."))
    elif g.get("mnum"):
        month = int(g["mnum"])
    else:  # numeric a/b/year: month first unless a cannot be a month
        a, b = int(g["a"]), int(g["b"])
        month, day = (a, b) if a <= 12 else (b, a)
        g = dict(g, day=str(day))
    if not month or not 1 <= month <= 12:
        return None
    if not g.get("day"):
        return f"{year:04d}-{month:02d}"
    day = int(g["day"])
    if not 1 <= day <= calendar.monthrange(year, month)[1]:
        return None
    return f"{year:04d}-{month:02d}-{day:02d}"


def find_dates(text: str) -> list[DateMention]:
    """Every date mention in the text, in text order; where two forms overlap the longer (earlier
    pattern) wins, so "March 1, 2023" is one mention, not also "March ... 2023"."""
    if not text:
        return []
    taken: list[DateMention] = []  # in text order; no two overlap, so a new span need only be checked against
    for pat in _PATTERNS:  # its neighbours (a long report holds thousands of dates)
        for m in pat.finditer(text):
            start, end = m.span()
            i = bisect.bisect_left(taken, (start,))
            if (i < len(taken) and taken[i].start < end) or (i > 0 and taken[i - 1].end > start):
                continue
            iso = _iso(m)
            if iso:
                taken.insert(i, DateMention(start, end, iso, m.group(0)))
    return taken


def document_date(text: str) -> DateMention | None:
    """The date the document is about: the first date introduced as its own ("dated", "as of", "effective",
    "period ended", ...), else its first full date, else its first month-and-year. None when it holds no date.
    The whole text is read: an opening of 3,000 characters found the agreement's date for fewer contracts
    (bench/facts_bench.py; docs/benchmarks.md, Knobs)."""
    mentions = find_dates(text)
    for d in mentions:
        if introduced_as_own(text, d.start):
            return d
    full = [d for d in mentions if len(d.iso) == 10]
    if full or mentions:
        return (full or mentions)[0]
    return None


def introduced_as_own(text: str, start: int) -> bool:
    """Whether the date at text[start:] follows words that introduce it as the document's own ("dated", "as of",
    "made", "period ended", "작성일", ...)."""
    return _OWN_DATE_CUE.search(text[max(0, start - 40) : start]) is not None
