"""Duration values: the durations of `wikigen.search.facts.numbers` (the one duration rule) with their unit, their
length in days, and whether the period repeats ("successive one-year terms").

    find_duration_values("renews for successive one-year terms")
        -> [Value("duration", "1 year", "successive 1 year", ..., parts={amount: 1, unit: "year",
                                                                         days: 365.25, successive: True})]

Comparison is by days: a month is 30.44 days and a year 365.25 (their averages), a week 7, a business day
7/5 (five in a calendar week), so "12 months" and "1 year" compare equal within rounding and "90 days" is
shorter than "3 months" by a day and a third; `norm` keeps the unit as written, so a table groups "12 months"
apart from "1 year".

A period is `successive` when it repeats: a word of succession before it in its clause ("successive",
"consecutive", "subsequent", "recurring"; not "any consecutive twelve months", a sliding window),
"additional" or "further" with a plural period ("additional periods of two (2) years each"), "each" or a
plural "terms"/"periods" right after it ("two (2) years each", "one-year terms", "annual periods"), its
own words ("from year to year", "a successive year"), or in Korean "씩", "마다",
"단위" after it ("1년씩 연장"). "An additional period of one year" and "a renewal term" are one period, not
successive. The grammar of repetition, no corpus vocabulary.
"""

from __future__ import annotations

import re

from wikigen.search.facts.dates import find_dates
from wikigen.search.facts.numbers import find_durations
from wikigen.search.values.value import Value

__all__ = ["DAYS", "find_duration_values", "parse_duration"]

DAYS = {
    "minute": 1 / 1440,
    "hour": 1 / 24,
    "day": 1.0,
    "business day": 7 / 5,
    "week": 7.0,
    "month": 30.44,
    "year": 365.25,
}
_KO_UNIT = {
    "일": "day",
    "영업일": "business day",
    "주": "week",
    "개월": "month",
    "년": "year",
    "시간": "hour",
    "분": "minute",
}
_KO_BARE = re.compile(r"(?<![\d.,])(?P<num>\d+)\s*(?P<unit>영업일|개월|시간|년|일|주|분)")

_CLAUSE_START = re.compile(r"[.;:!?]\s|\n\s*\n")
_SUCCESSION = re.compile(r"\b(?<!any )(?<!a )(?<!one )(?:successive|consecutive|subsequent|recurring)\b", re.I)
_ADDITIONAL = re.compile(r"\b(?:additional|further)\b", re.I)
_PLURAL_PERIOD = re.compile(r"\b(?:terms|periods)\b", re.I)
_AFTER = re.compile(r"(?:\s*\(\d+\))?\s*(?:each\b|(?:renewal\s+)?(?:terms|periods)\b)", re.I)
_ITSELF = re.compile(r"\bto\b|\b(?:successive|subsequent)\b|\b(?:terms|periods)$", re.I)
_KO_AFTER = re.compile(r"\s*(?:씩|마다|단위)")
_OTHER_DURATION = re.compile(r"\b(?:days?|weeks?|months?|years?)\b", re.I)


def _unit(said: str) -> str:
    """A duration's canonical unit: '30 days' -> 'day', '5 working days' -> 'business day', '3 calendar months'
    -> 'month' (a calendar day or month is a day or a month; a working or banking day a business day)."""
    words = said.split()[1:]
    base = words[-1][:-1] if words[-1].endswith("s") else words[-1]
    return "business day" if base == "day" and words[0] in ("business", "working", "banking") else base


def _successive(text: str, start: int, end: int) -> bool:
    """Whether the duration at text[start:end] names a repeating period (see the module docstring)."""
    if (
        _ITSELF.search(text, start, end)
        or _AFTER.match(text, end, min(len(text), end + 40))
        or _KO_AFTER.match(text, end, min(len(text), end + 3))
    ):
        return True
    lo = max(0, start - 60)
    cuts = [c.end() for c in _CLAUSE_START.finditer(text, lo, start)]
    before = text[cuts[-1] if cuts else lo : start]
    before = before[max((m.end() for m in _OTHER_DURATION.finditer(before)), default=0) :]  # its own cue only
    if _SUCCESSION.search(before):
        return True
    return bool(_ADDITIONAL.search(before) and _PLURAL_PERIOD.search(before))


def _value(text: str, start: int, end: int, said: str) -> Value:
    """The value of a duration `said` ("30 calendar days") found at text[start:end]."""
    amount_s, _ = said.split(" ", 1)
    amount: float | int = float(amount_s.replace(",", ""))
    if amount == int(amount):
        amount = int(amount)
    unit = _unit(said)
    norm = f"{amount} {unit if amount == 1 else unit + 's'}"
    successive = _successive(text, start, end)
    return Value(
        "duration",
        norm,
        f"successive {norm}" if successive else norm,
        start,
        end,
        {"amount": amount, "unit": unit, "days": round(amount * DAYS[unit], 4), "successive": successive},
    )


def find_duration_values(text: str, start: int = 0, end: int | None = None) -> list[Value]:
    """Every duration in text[start:end], in text order. Its span is the number and unit as written ("thirty
    (30) days", "five-year", "30일 이내"); the words that make it successive lie around it."""
    stop = len(text) if end is None else end
    window = text[start:stop]
    return [_value(text, start + m.start, start + m.end, m.value) for m in find_durations(window)]


def parse_duration(text: str) -> Value | None:
    """The first duration of a short text; failing that, its first Korean number and unit outside a date ("통지
    기간이 30일인", "2년"): in a short text these are lengths of time, in running text as often a day of the
    month or a year (`find_durations` asks more of them there)."""
    found = find_duration_values(text)
    if found:
        return found[0]
    dates = find_dates(text)
    for m in _KO_BARE.finditer(text):
        n = int(m.group("num"))
        if (m.group("unit") == "년" and n >= 1000) or any(d.start < m.end() and m.start() < d.end for d in dates):
            continue
        return _value(text, m.start(), m.end(), f"{n} {_KO_UNIT[m.group('unit')]}")
    return None
