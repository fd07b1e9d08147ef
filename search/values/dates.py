"""Date values: the date mentions of `wikigen.search.facts.dates` (the one date rule) with their precision, and
a year alone where it reads as one.

    find_date_values("made on March 1, 2023")  -> [Value("date", "2023-03-01", ..., parts={iso, precision: "day"})]
    parse_date("in 2019")                      -> Value("date", "2019", ..., precision "year")

A form left to be filled in ("this ___ day of _______, 2004", "March ___, 1999", "[ ] day of [ ], 2020", or
with the blanks lost in extraction, "this day of , 2012") dates the document to the year, or the month, it
does give: the blanks are the day and month someone writes in on signing.

A year alone is a date in Korean running text ("2023년", not followed by a month), and in a short text (a
cell, a question's phrase: "signed in 2019"), where a bare four-digit year is read as one; in English running
text a bare year is as often a number, a section or an amount, so it is not a date there.
"""

from __future__ import annotations

import re

from wikigen.search.facts.dates import MONTH_NUMBERS, find_dates
from wikigen.search.values.value import Value

__all__ = ["find_date_values", "parse_date"]

_KO_YEAR = re.compile(r"(?<!\d)(?P<year>(?:1[89]|2[01])\d\d)\s*년(?:도)?(?!\s*\d{1,2}\s*월)(?!간)")
_BARE_YEAR = re.compile(r"(?<![\d$€£¥₩.,/-])(?P<year>(?:1[89]|2[01])\d\d)(?![\d%,/-]|\.\d)")
_PRECISION = {10: "day", 7: "month", 4: "year"}
_BLANK = r"(?:_{2,}|\[[\s*]*\])"  # a blank to fill in: "____", "[ ]", "[*]"
_YEAR = r"(?P<year>(?:1[89]|20|21)\d\d)(?!\d)"
_MONTH = r"(?P<month>" + "|".join(sorted(MONTH_NUMBERS, key=len, reverse=True)) + r")\.?"
_BLANK_DATES = (
    # "March ___, 1999", "the __ day of March __, 2004"
    re.compile(rf"\b{_MONTH}[ \t]*{_BLANK}[ \t]*,?[ \t]*{_YEAR}", re.I),
    # "this ___ day of _______ 2004", "_________ __, 2000", "[ ] day of [ ], 2020", "this day of , 2012"; a blank
    # alone before a year only with a comma between ("Exhibit [*] 2010" is no date)
    re.compile(
        rf"(?:{_BLANK}[ \t]*(?:day[ \t]+)?of[ \t]+{_BLANK}[ \t]*,?|(?:{_BLANK}[ \t]*)?{_BLANK}[ \t]*,|\bday[ \t]+of[ \t]*,)"
        rf"[ \t]*{_YEAR}",
        re.I,
    ),
)


def _value(iso: str, start: int, end: int) -> Value:
    return Value("date", iso, iso, start, end, {"iso": iso, "precision": _PRECISION[len(iso)]})


def find_date_values(text: str, start: int = 0, end: int | None = None) -> list[Value]:
    """Every date in text[start:end], in text order: the dates of `find_dates`, forms left blank, and Korean years
    alone."""
    stop = len(text) if end is None else end
    window = text[start:stop]
    out = [_value(d.iso, start + d.start, start + d.end) for d in find_dates(window)]
    if "_" in window or "[" in window or "day" in window.casefold():
        for rx in _BLANK_DATES:
            for m in rx.finditer(window):
                s, e = start + m.start(), start + m.end()
                if any(v.start < e and s < v.end for v in out):
                    continue
                month = m.groupdict().get("month")
                iso = m.group("year") if not month else f"{m.group('year')}-{MONTH_NUMBERS[month.casefold()]:02d}"
                out.append(_value(iso, s, e))
    if "년" in window:
        for m in _KO_YEAR.finditer(window):
            s, e = start + m.start(), start + m.end()
            if not any(v.start < e and s < v.end for v in out):
                out.append(_value(m.group("year"), s, e))
    return sorted(out, key=lambda v: v.start)


def parse_date(text: str) -> Value | None:
    """The first date of a short text; failing that, its first bare year ("fiscal 2019", "in 2019")."""
    found = find_date_values(text)
    if found:
        return found[0]
    m = _BARE_YEAR.search(text)
    return _value(m.group("year"), m.start(), m.end()) if m else None
