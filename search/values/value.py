"""Value: one typed value found in text (a date, a duration, money, a percentage, a jurisdiction, a party), with
the exact character span of its own words, and the key that sorts and compares values of one type.

A value has three faces: `norm`, a canonical string that two values stating the same thing share ("30 days",
"USD 1000000", "Delaware"), for grouping and equality; `display`, what a reader sees ("USD 1,000,000",
"successive 1 year", "Acme Corp. (Supplier)"); and `parts`, the typed pieces (JSON-friendly: str, int,
float, bool or None), for conditions. `compare_key` is what sorting and ">" / "<" use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["TYPES", "Value", "compare_key"]

TYPES = ("date", "duration", "money", "percentage", "jurisdiction", "party")


@dataclass(frozen=True)
class Value:
    """One value of a type in a text. `start`/`end` are character offsets of the value's own words in the text
    the finder was given (never a window of it), so text[start:end] is those words, trimmed.

    `parts` by type (all keys always present):
    date         {iso: "2023-03-01" | "2023-03" | "2023", precision: "day" | "month" | "year"}
    duration     {amount: 30, unit: "day" | "business day" | "week" | "month" | "year" | "hour" | "minute",
                  days: 30.0 (month = 30.44 days, year = 365.25, week = 7, business day = 7/5), successive: bool}
    money        {amount: 1000000.0, currency: "USD"}, or a multiple of fees {multiple: 2.0, of: "annual fees"}
    percentage   {percent: 15.0}
    jurisdiction {name: "Delaware", country: "United States", kind: "state" | "country" | "province" | "region",
                  code: "US-DE" (ISO 3166; "GB-ENG+WLS" for England and Wales)}
    party        {name: "Acme Corp.", role: "Supplier" | None}
    """

    type: str
    norm: str
    display: str
    start: int
    end: int
    parts: Mapping[str, object] = field(default_factory=dict, hash=False)


def compare_key(v: Value) -> float | str | None:
    """What sorting and ">" / "<" use: a date's ISO string (time order; "2023" sorts before "2023-01"), a
    duration's days, an amount of money (in its own currency: compare amounts of one currency only; None for a
    multiple of fees), a percentage's number, a jurisdiction's or a party's name (case-folded)."""
    p = v.parts
    if v.type == "date":
        return str(p["iso"])
    if v.type == "duration":
        return _number(p.get("days"))
    if v.type == "money":
        return _number(p.get("amount")) if "amount" in p else None
    if v.type == "percentage":
        return _number(p.get("percent"))
    if v.type in ("jurisdiction", "party"):
        return v.norm.casefold()
    return None


def _number(x: object) -> float | None:
    return float(x) if isinstance(x, int | float) else None
