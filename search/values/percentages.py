"""Percentage values: the percentages of `wikigen.search.facts.numbers.find_percentages` (the one percentage rule).

find_percentage_values("fifteen percent (15%)")  -> [Value("percentage", "15%", "15%", 0, 21, {percent: 15.0})]
"""

from __future__ import annotations

from wikigen.search.facts.numbers import find_percentages
from wikigen.search.values.value import Value

__all__ = ["find_percentage_values"]


def find_percentage_values(text: str, start: int = 0, end: int | None = None) -> list[Value]:
    """Every percentage in text[start:end], in text order: "15%", "15 %", "15 per cent", "15퍼센트", "fifteen
    percent (15%)" (one value, the words and the figure)."""
    stop = len(text) if end is None else end
    out = []
    for m in find_percentages(text[start:stop]):
        percent = float(m.value.rstrip("%").replace(",", ""))
        out.append(Value("percentage", m.value, m.value, start + m.start, start + m.end, {"percent": percent}))
    return out
