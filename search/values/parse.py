"""find_values and parse_value: the one entry to the typed value finders, by type name.

    find_values(text, "duration")          -> every duration in the text, in text order
    parse_value("30 days' notice", "duration") -> the first/best duration of a short text, or None

`find_values` reads running text (a document, a clause); `parse_value` reads a short text (a table cell, a
question's phrase) more freely: a bare year is a date, a Korean "30일" a duration, a name in lower case a
jurisdiction, a capitalised name a party.
"""

from __future__ import annotations

from collections.abc import Callable

from wikigen.search.values.dates import find_date_values, parse_date
from wikigen.search.values.durations import find_duration_values, parse_duration
from wikigen.search.values.jurisdictions import find_jurisdiction_values, parse_jurisdiction
from wikigen.search.values.money import find_money_values, parse_money
from wikigen.search.values.parties import find_party_values, parse_party
from wikigen.search.values.percentages import find_percentage_values
from wikigen.search.values.value import TYPES, Value

from wikigen.core.errors import UsageError

__all__ = ["find_values", "parse_value"]

_FIND: dict[str, Callable[[str, int, int | None], list[Value]]] = {
    "date": find_date_values,
    "duration": find_duration_values,
    "money": find_money_values,
    "percentage": find_percentage_values,
    "jurisdiction": find_jurisdiction_values,
    "party": find_party_values,
}
_PARSE: dict[str, Callable[[str], Value | None]] = {
    "date": parse_date,
    "duration": parse_duration,
    "money": parse_money,
    "percentage": lambda text: next(iter(find_percentage_values(text)), None),
    "jurisdiction": parse_jurisdiction,
    "party": parse_party,
}
assert set(_FIND) == set(_PARSE) == set(TYPES)


def _check_type(type: str) -> None:
    if type not in _FIND:
        raise UsageError(f"unknown value type {type!r}: use one of {', '.join(TYPES)}")


def find_values(text: str, type: str, start: int = 0, end: int | None = None) -> list[Value]:
    """Every value of `type` in text[start:end], in text order (jurisdictions: the more specific of a place and
    its country first), spans in offsets of `text` itself. An unknown type is a UsageError."""
    _check_type(type)
    n = len(text)
    start = min(max(0, start), n)
    stop = n if end is None else min(max(start, end), n)
    if stop <= start:
        return []
    return _FIND[type](text, start, stop)


def parse_value(text: str, type: str) -> Value | None:
    """The first (best) value of `type` in a short text: a cell ("USD 1,000,000"), a question's phrase ("30
    days' notice", "more than $1 million", "Delaware law"); None when it holds none."""
    _check_type(type)
    return _PARSE[type](text) if text else None
