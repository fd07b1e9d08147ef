"""Jurisdiction values: the states, provinces, regions and countries a text names (the gazetteer of
`wikigen.search.values.places`), English and Korean.

    find_jurisdiction_values("governed by the laws of the State of Delaware")
        -> [Value("jurisdiction", "Delaware", "Delaware", .., parts={name: "Delaware", country: "United States",
                                                                     kind: "state"})]

What is read:
* a place's name, the longest that matches ("New South Wales", not "Wales"; "England and Wales", one
  jurisdiction), with the designator before it in its span ("State of Delaware", "Commonwealth of
  Massachusetts", "the Province of Ontario" -> "Province of Ontario"); a short form ("U.S.", "PRC");
* an adjective that names a country's law, before "law(s)": "English law" -> England, "Korean law" ->
  Republic of Korea;
* Korean names where a particle, "법", "주" or a non-Hangul character follows: "대한민국 법", "한국 법률",
  "미국 뉴욕주 법" ("한국어", the language, and "한국전력", a company, are not places).

In running text a name counts when it is capitalised as a name (or the text is in capitals), and not part of
a longer proper name: a capitalised word right after it ("Texas Instruments", "Virginia Smith") or before it
("Michael Jordan") makes it a person's or a company's, unless that word belongs to legal or place grammar
("Delaware Court of Chancery", "New York County", "State of"). A short text (`parse_jurisdiction`: a cell, a
question) is read in any case ("governed by delaware law").

Order: text order, except that where a sentence names a place and the country it lies in ("the laws of the
State of New York and the federal laws of the United States"), the more specific comes first.
"""

from __future__ import annotations

import re

from wikigen.search.values.places import (
    ADJECTIVES,
    CLOSERS,
    OPENERS,
    Place,
    adjective_place,
    english_key,
    gazetteer,
)
from wikigen.search.values.value import Value

from wikigen.core.sentences import SENTENCE, boundaries

__all__ = ["find_jurisdiction_values", "parse_jurisdiction"]

_CHUNK = re.compile(r"\S+")
_HANGUL = re.compile("[\uac00-\ud7a3]")
_LOWER_WORDS = {"of", "and", "the", "da", "de", "du", "del", "la", "le", "et", "y", "d'", "and/or"}
_DESIGNATOR = re.compile(
    r"(?:\bthe\s+)?\b(?P<d>(?:state|commonwealth|province|territory|republic|kingdom|principality|emirate|"
    r"grand\s+duchy)\s+of\s+(?:the\s+)?)$",
    re.I,
)
# capitalised words that may follow a place name inside legal or place grammar (a court, a code, a county)
_FOLLOW_OK = {
    "court", "courts", "county", "counties", "corporation", "corporations", "code", "codes", "law", "laws",
    "statute", "statutes", "general", "superior", "supreme", "chancery", "circuit", "district", "business",
    "commercial", "civil", "uniform", "department", "secretary", "division", "securities", "act", "acts",
    "revised", "consolidated", "compiled", "annotated", "government", "federal", "bankruptcy", "state",
    "province", "limited", "partnership", "company", "and", "or", "time", "standard", "arbitration",
}  # fmt: skip
# capitalised words that may stand before one: its designator, or the law or court it governs
_BEFORE_OK = {
    "state", "commonwealth", "province", "territory", "republic", "kingdom", "laws", "law", "courts", "court",
    "federal", "government", "of", "the", "in", "and", "or", "under", "by", "governing", "applicable",
}  # fmt: skip
_KO_FOLLOW = re.compile(
    r"(?:$|[^\uac00-\ud7a3]|법|의|에|은|는|이|가|을|를|과|와|및|으로|로|내|정부|법원|소재|주(?![\uac00-\ud7a3]))"
)


def _core(chunk: str) -> tuple[int, int]:
    """The offsets of a chunk's word inside it, the punctuation around it left out; a dotted short form keeps
    its last dot ("U.S.")."""
    a = len(chunk) - len(chunk.lstrip(OPENERS))
    b = len(chunk.rstrip(CLOSERS))
    if b < len(chunk) and chunk[b] == "." and "." in chunk[a:b]:
        b += 1
    return a, max(a, b)


def _title(word: str) -> bool:
    """A word capitalised as a name: an upper-case letter first and a lower-case one after it ("Smith")."""
    w = word.strip(OPENERS).rstrip(CLOSERS)
    return len(w) > 1 and w[0].isupper() and any(c.islower() for c in w[1:])


def _cased(words: list[str]) -> bool:
    """Whether a run of words is capitalised as a name: every word but the small ones starts upper-case."""
    for w in words:
        core = w.strip(OPENERS).rstrip(CLOSERS)
        if core.casefold() in _LOWER_WORDS or not core[:1].isalpha():
            continue
        if not core[0].isupper():
            return False
    return True


def _value(place: Place, start: int, end: int) -> Value:
    return Value(
        "jurisdiction",
        place.name,
        place.name,
        start,
        end,
        {"name": place.name, "country": place.country, "kind": place.kind, "code": place.code},
    )


def _sentence_initial(text: str, chunks: list[re.Match], i: int) -> bool:
    """Whether chunks[i] opens a sentence or a line."""
    if i == 0:
        return True
    before = chunks[i - 1].group().rstrip(")\"'\u201d\u2019]}")
    return before.endswith((".", "!", "?")) or "\n" in text[chunks[i - 1].end() : chunks[i].start()]


def _in_longer_name(text: str, chunks: list[re.Match], i: int, j: int) -> bool:
    """Whether chunks[i:j], a place's name, reads as part of a longer proper name (see the module docstring)."""
    last = chunks[j - 1].group()
    if j < len(chunks) and last == last.rstrip(CLOSERS) and "\n" not in text[chunks[j - 1].end() : chunks[j].start()]:
        nxt = chunks[j].group()
        if nxt[0] not in OPENERS and _title(nxt) and nxt.strip(OPENERS).rstrip(CLOSERS).casefold() not in _FOLLOW_OK:
            return True
    if i > 0:
        prev = chunks[i - 1].group()
        if (
            prev == prev.rstrip(CLOSERS)
            and "\n" not in text[chunks[i - 1].end() : chunks[i].start()]
            and _title(prev)
            and prev.strip(OPENERS).casefold() not in _BEFORE_OK
            and not _sentence_initial(text, chunks, i - 1)
        ):
            return True
    return False


def _english(text: str, start: int, stop: int, cased: bool) -> list[Value]:
    g = gazetteer()
    chunks = list(_CHUNK.finditer(text, start, stop))
    words = [c.group() for c in chunks]
    out: list[Value] = []
    i = 0
    while i < len(chunks):
        first = words[i].lstrip(OPENERS)
        if not first[:1].isalpha() or (cased and not first[:1].isupper()):
            i += 1
            continue
        found = None
        for k in range(min(g.longest_english, len(chunks) - i), 0, -1):
            if any(w.rstrip(")\"'\u201d\u2019]}").endswith((";", ":", "!", "?")) for w in words[i : i + k - 1]):
                continue  # a name does not run across a clause's end
            place = g.english.get(english_key(words[i : i + k]))
            if place and (not cased or _cased(words[i : i + k])):
                found = (place, k)
                break
        if not found:
            adj = words[i].strip(OPENERS).rstrip(CLOSERS)
            short = not cased or "." in words[i]  # a state's short form: typed, or written with its period
            adj_key = adj if adj in ADJECTIVES or adj.isupper() or short else ""
            after = [w.strip(OPENERS).rstrip(CLOSERS).casefold() for w in words[i + 1 : i + 3]]
            # "English law", or with the kind of law between: "Canadian provincial law", "English common law"
            law = (
                after[:1] == ["law"]
                or after[:1] == ["laws"]
                or (adj in ADJECTIVES and after[1:] in (["law"], ["laws"]))
            )
            place = adjective_place(adj_key, short_forms=short) if adj_key and law else None
            found = (place, 1) if place else None
        if not found or (cased and _in_longer_name(text, chunks, i, i + found[1])):
            i += 1
            continue
        place, k = found
        a, _ = _core(words[i])
        _, b = _core(words[i + k - 1])
        s, e = chunks[i].start() + a, chunks[i + k - 1].start() + b
        d = _DESIGNATOR.search(text, max(start, s - 40), s)
        if d and d.group("d")[0].isupper():
            s = d.start("d")  # "State of Delaware", "Republic of Singapore": the designator is the name's
        out.append(_value(place, s, e))
        i += k
    return out


def _korean(text: str, start: int, stop: int) -> list[Value]:
    g = gazetteer()
    out: list[Value] = []
    pos = start
    while pos < stop:
        m = _HANGUL.search(text, pos, stop)
        if not m:
            break
        p = m.start()
        pos = p + 1
        if p > start and _HANGUL.match(text, p - 1):
            continue  # not a word start
        for surface in g.korean_by_first.get(text[p], ()):
            e = p + len(surface)
            if e <= stop and text.startswith(surface, p) and _KO_FOLLOW.match(text, e):
                out.append(_value(g.korean[surface], p, e))
                pos = e
                break
    return out


def _specific_first(text: str, found: list[Value]) -> list[Value]:
    """Text order, except that a country moves after the places in it that its sentence names later."""
    out = list(found)
    for v in found:
        if v.parts["kind"] != "country":
            continue
        inner = [
            w
            for w in out
            if w.start > v.start
            and w.parts["country"] == v.norm
            and w.parts["kind"] != "country"
            and not any(True for _ in boundaries(text, v.end, w.start, SENTENCE))
        ]
        if inner:
            out.remove(v)
            out.insert(out.index(inner[-1]) + 1, v)
    return out


def find_jurisdiction_values(text: str, start: int = 0, end: int | None = None, cased: bool = True) -> list[Value]:
    """Every jurisdiction named in text[start:end] (see the module docstring); `cased=False` reads names in any
    case (a short text a user typed)."""
    stop = len(text) if end is None else end
    found = _english(text, start, stop, cased)
    if _HANGUL.search(text, start, stop):
        found += _korean(text, start, stop)
        found.sort(key=lambda v: v.start)
    return _specific_first(text, found)


def parse_jurisdiction(text: str) -> Value | None:
    """The first (the most specific) jurisdiction of a short text, in any case: "Delaware law", "new york",
    "the laws of Ontario and the federal laws of Canada" -> Ontario, "대한민국 법"."""
    found = find_jurisdiction_values(text, cased=False)
    return found[0] if found else None
