"""Party values: the parties a preamble names, each with its role (`wikigen.search.facts.parties`, the one party
rule).

    find_party_values('ACME CORP., a Delaware corporation ("Supplier"), and Beta LLC ("Buyer")')
        -> [Value("party", "ACME CORP.", "ACME CORP. (Supplier)", ..., parts={name: "ACME CORP.", role: "Supplier"}),
            Value("party", "Beta LLC", "Beta LLC (Buyer)", ...)]

The span is the name's words; the role is the alias the text gives it ("(the \\"Supplier\\")", "(이하 \\"갑\\")").
"""

from __future__ import annotations

from wikigen.search.facts.numbers import Mention
from wikigen.search.facts.parties import find_entities, find_parties, name_at, party_role
from wikigen.search.values.value import Value

__all__ = ["find_party_values", "parse_party"]


def _value(m: Mention, shift: int) -> Value:
    name = " ".join(m.text.split()).rstrip(",")
    role = party_role(m)
    return Value(
        "party",
        name,
        f"{name} ({role})" if role else name,
        shift + m.start,
        shift + m.start + len(m.text.rstrip().rstrip(",")),
        {"name": name, "role": role},
    )


def find_party_values(text: str, start: int = 0, end: int | None = None) -> list[Value]:
    """The parties text[start:end] names as a preamble does (between X and Y, numbered or role lines, legal
    persons with their descriptor, the Korean form), in text order; the whole window is read as the opening."""
    stop = len(text) if end is None else end
    window = text[start:stop]
    return [_value(m, start) for m in find_parties(window, within=len(window))]


def parse_party(text: str) -> Value | None:
    """The first party of a short text: a preamble's party, else a legal person (", a Delaware corporation"),
    else the capitalised name the text opens with ("Acme Corp.", a table cell)."""
    found = find_party_values(text) or [_value(m, 0) for m in find_entities(text)]
    if found:
        return found[0]
    span = name_at(text)
    if not span:
        return None
    name = " ".join(text[span[0] : span[1]].split())
    return Value("party", name, name, span[0], span[1], {"name": name, "role": None})
