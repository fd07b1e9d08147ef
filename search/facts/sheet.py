"""A document's fact sheet: its title, a one-line description and its key facts, each with the span of
the sentence that states it.

    sheet = fact_sheet(text)
    sheet.title        -> "MASTER SERVICES AGREEMENT"
    sheet.description  -> "Master services agreement between Kestrel Ltd and Brightline plc, effective 2023-03-01."
    sheet.facts        -> [Fact("parties", "Parties", "...", start, end, quote_start, quote_end), ...]

Dates are classified by the words of their own sentence before them (English grammar and Korean
particles, no clause list): "effective", "commence", "from" -> effective; "expire", "terminate", "until"
-> expiry; "dated", "made", "signed" -> dated. Durations are a term when their sentence speaks of a term
or period, a notice period when it speaks of notice.

A fact's role (FACT_ROLES: parties, dated, effective, expiry, term, notice, period) is what it says of the
document; a field of a schema that says the same names it (its `facts`), and `settled` gives the sheet that
states such a fact as that field's cell does (`wikigen.agents.document_facts.with_provisions`): a document page
states one value per fact.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from wikigen.search.facts.dates import DateMention, document_date, find_dates
from wikigen.search.facts.numbers import Mention, find_amounts, find_durations, find_percentages
from wikigen.search.facts.parties import find_parties, find_terms
from wikigen.search.facts.title import document_title, self_noun

from wikigen.core.sentences import sentence_span

__all__ = [
    "FACT_ROLES",
    "QUOTE_CAP",
    "Fact",
    "FactSheet",
    "date_role",
    "duration_role",
    "fact_sheet",
    "kind_of",
    "settled",
]

QUOTE_CAP = 320  # a fact's quote: the sentence that states it, at most about this long
_EFFECTIVE = re.compile(
    r"\b(?:effective|commenc\w*|start\w*|begin\w*|takes?\s+effect|from(?:\s+and\s+including)?)\b"
    r"|시행|효력|개시|부터",
    re.I,
)
_PERIOD = re.compile(r"\b(?:period|quarter|year|months|weeks)\s+end(?:ed|ing)\b", re.I)
_EXPIRY = re.compile(r"\b(?:expir\w*|terminat\w*|until|end(?:s|ing)?\s+on|through|ending)\b|만료|종료|까지", re.I)
_DATED = re.compile(r"\b(?:dated|made|signed|executed|entered\s+into|date)\b|작성|체결|일자", re.I)
_TERM = re.compile(r"\b(?:term|period|renew\w*|duration)\b|기간|갱신", re.I)
_NOTICE = re.compile(r"\bnotice\b|통지|통보", re.I)
# what a key fact says of its document, where a field of a schema may say it too (the schema's `facts`): its
# parties, its own date, the date it takes effect, the date it expires, its term, a notice period, a report's period
FACT_ROLES = frozenset({"parties", "dated", "effective", "expiry", "term", "notice", "period"})
_DATE_LABELS = {"dated": "Date", "effective": "Effective date", "expiry": "Expiry date", "period": "Period ended"}


@dataclass(frozen=True)
class Fact:
    kind: str  # parties | date | amount | percentage | duration | term
    label: str  # what the page shows before the value: "Parties", "Effective date", ...
    value: str  # the normal form: "2023-03-01", "USD 240,000", "30 days", "A (“X”); B (“Y”)"
    start: int  # the mention's span (for parties: from the first to the last name)
    end: int
    quote: tuple[int, int]  # the sentence (or clause) that states it, whole
    role: str = ""  # what it says of the document (FACT_ROLES), "" for a title, an amount, a percentage, a term defined


@dataclass
class FactSheet:
    title: str
    description: str
    facts: list[Fact] = field(default_factory=list)
    kind: str = ""  # what kind of document, from its title ("Master services agreement")
    short: str = ""  # the description without its parties: "Supply agreement, dated 2024-03-01."


def _before(text: str, start: int, width: int = 80) -> str:
    """The words of the sentence before `start`, at most `width` characters."""
    lo = max(0, start - width)
    piece = text[lo:start]
    cut = max(piece.rfind(". "), piece.rfind("\n"), piece.rfind("; "))
    return piece[cut + 1 :] if cut != -1 else piece


def date_role(text: str, d: DateMention) -> str:
    """effective | expiry | dated | period | "" for a date mention, by the words just before it in its sentence."""
    before = _before(text, d.start)
    after = text[d.end : d.end + 12]
    found = [
        (m.end(), role)
        for rx, role in ((_EFFECTIVE, "effective"), (_EXPIRY, "expiry"), (_DATED, "dated"), (_PERIOD, "period"))
        for m in rx.finditer(before)
    ]
    alias = re.match(r"\s*\([^()]{0,40}\)", text[d.end : d.end + 45])
    if alias and _EFFECTIVE.search(alias.group()):
        return "effective"  # 1 March 2023 (the "Effective Date")
    if re.match(r"\s*(?:부터|에\s*시행)", after):
        return "effective"
    if re.match(r"\s*까지", after):
        return "expiry"
    return max(found)[1] if found else ""  # the cue nearest the date


def duration_role(text: str, m: Mention) -> str:
    """term | notice | "" for a duration, by the words of its sentence around it."""
    after = text[m.end : min(len(text), m.end + 60)]
    stop = re.search(r"[.;]\s|\n", after)
    around = _before(text, m.start, 120) + (after[: stop.start()] if stop else after)
    if _NOTICE.search(around):
        return "notice"
    if _TERM.search(around):
        return "term"
    return ""


def _quote(text: str, s: int, e: int) -> tuple[int, int]:
    return sentence_span(text, s, e, QUOTE_CAP)


def _fact(text: str, kind: str, label: str, value: str, s: int, e: int, role: str = "") -> Fact:
    return Fact(kind, label, value, s, e, _quote(text, s, e), role)


def kind_of(title: str, noun: str = "") -> str:
    """What kind of document: its title when short, else the noun it calls itself by ("Amendment")."""
    words = title.split()
    if not words:
        return noun.capitalize()
    if len(title) > 40:  # a long title is on the page already: the description names its kind
        word = noun if noun and noun in title.casefold() else re.sub(r"\W", "", words[-1]).casefold()
        return (word or "document").capitalize()
    out = " ".join(w if any(c.isdigit() for c in w) else w.lower() for w in words) if title.upper() == title else title
    out = out if title.upper() == title else title
    return out[:1].upper() + out[1:]


def _cued_dates(text: str) -> list[DateMention]:
    """The dates within a few words after an effective or expiry cue, in the whole text (found near their cue,
    so the long text is read once by two cheap patterns; the first 30,000 characters alone found fewer:
    docs/benchmarks.md, Knobs)."""
    out: dict[int, DateMention] = {}
    for rx in (_EFFECTIVE, _EXPIRY):
        for cue in rx.finditer(text):
            lo, hi = max(0, cue.start() - 40), min(len(text), cue.end() + 90)
            for d in find_dates(text[lo:hi]):
                out.setdefault(lo + d.start, DateMention(lo + d.start, lo + d.end, d.iso, d.text))
    return [out[k] for k in sorted(out)]


def _dates(text: str) -> list[Fact]:
    out: list[Fact] = []
    own = document_date(text)
    roles_seen: set[str] = set()
    if own:
        role = date_role(text, own) or "dated"
        roles_seen.add(role)
        out.append(_fact(text, "date", _DATE_LABELS[role], own.iso, own.start, own.end, role))
    for d in _cued_dates(text):
        if len(d.iso) != 10 or (own and d.start == own.start):
            continue
        role = date_role(text, d)
        if role in ("effective", "expiry") and role not in roles_seen:
            roles_seen.add(role)
            out.append(_fact(text, "date", _DATE_LABELS[role], d.iso, d.start, d.end, role))
    return out


def _durations(text: str) -> list[Fact]:
    out, seen = [], set()
    for m in find_durations(text):
        role = duration_role(text, m)
        if role and role not in seen:
            seen.add(role)
            label = "Term" if role == "term" else "Notice period"
            out.append(_fact(text, "duration", label, m.value, m.start, m.end, role))
    return out


def _distinct(found: list[Mention], n: int) -> list[Mention]:
    out, seen = [], set()
    for m in found:
        if m.value not in seen:
            seen.add(m.value)
            out.append(m)
        if len(out) >= n:
            break
    return out


def key_facts(
    text: str, amounts: int = 3, percentages: int = 2, terms: int = 3, title_span: tuple[int, int] | None = None
) -> list[Fact]:
    """The document's key facts, most telling first: its title line (where given), parties, dates (own, effective, expiry), term and
    notice durations, the first distinct amounts and percentages, the first defined terms."""
    facts: list[Fact] = []
    if title_span is not None:  # the title as the document writes it: quoted alone, it is a line
        s, e = title_span
        facts.append(Fact("title", "Title", " ".join(text[s:e].split()), s, e, (s, e)))
    parties = find_parties(text)
    if parties:
        facts.append(
            _fact(
                text,
                "parties",
                "Parties",
                "; ".join(p.value for p in parties),
                parties[0].start,
                parties[-1].end,
                "parties",
            )
        )
    facts += _dates(text)
    facts += _durations(text)
    facts += [_fact(text, "amount", "Amount", m.value, m.start, m.end) for m in _distinct(find_amounts(text), amounts)]
    facts += [
        _fact(text, "percentage", "Percentage", m.value, m.start, m.end)
        for m in _distinct(find_percentages(text), percentages)
    ]
    facts += [
        _fact(text, "term", "Defined term", f"\u201c{m.value}\u201d", m.start, m.end)
        for m in _distinct(find_terms(text), terms)
    ]
    return facts


def _names(parties: Fact | None) -> list[str]:
    if parties is None:
        return []
    return [re.sub(r"\s*\(\u201c[^\u201d]*\u201d\)$", "", p) for p in parties.value.split("; ")]


def describe(text: str, kind: str, facts: list[Fact], limit: int = 160, title: str = "") -> str:
    """One line that says what the document is: its kind (from the title; left out where it would only
    repeat the title), between whom, dated when; without parties or a date, the first sentence of the
    opening that speaks of the document itself."""
    kind = kind or "Document"
    names = _names(next((f for f in facts if f.kind == "parties"), None))
    date = next((f for f in facts if f.kind == "date"), None)
    parts = [kind]
    if re.search(r"[가-힣]", kind) and names:
        parts.append(" (" + ", ".join(names) + ")")
    elif len(names) >= 2:
        parts.append(f" between {', '.join(names[:-1])} and {names[-1]}")
    elif names:
        parts.append(f" of {names[0]}")
    if date:
        said = {"effective": "effective", "period": "period ended", "expiry": "expiring"}
        role = date.role or next((r for r, x in _DATE_LABELS.items() if x == date.label), "")
        value = date.value.split(" (", 1)[0]  # the date, without what a reading adds of it ("(3 years from ...)")
        parts.append(f", {said.get(role, 'dated')} {value}")
    line = "".join(parts)
    if title and kind.casefold() == title.casefold() and len(names) >= 2 and not re.search(r"[가-힣]", kind):
        line = "".join(parts[1:]).lstrip(" ,")
        line = line[:1].upper() + line[1:]
    if not names and not date:
        itself = _self_sentence(text)
        if itself:
            line = itself
    line = " ".join(line.split())
    if len(line) > limit - 1:
        line = line[: limit - 2].rsplit(" ", 1)[0] + "…"
    return line if line.endswith((".", "…")) else line + "."


def _self_sentence(text: str) -> str:
    """The first sentence of the opening that names the document by what it calls itself ("This policy ...")."""
    noun = self_noun(text)
    if not noun:
        return ""
    rx = re.compile(rf"(?:\bthis|본|이)\s*{re.escape(noun)}", re.I)
    m = rx.search(text, 0, min(len(text), 6000))
    if not m:
        return ""
    s, e = sentence_span(text, m.start(), m.end(), 190)
    return text[s:e]


def _title_span(text: str, title: str) -> tuple[int, int] | None:
    """Where the title is written in the document's opening (whitespace may differ), or None."""
    words = [re.escape(w) for w in title.rstrip("…").split()]
    if not words:
        return None
    m = re.search(r"\W*".join(words), text[:4000])
    return m.span() if m else None


def fact_sheet(text: str, given_title: str = "") -> FactSheet:
    """The title, description and key facts of one document's text."""
    title = document_title(text, given_title)
    facts = key_facts(text, title_span=_title_span(text, title))
    kind = kind_of(title, self_noun(text))
    short = describe(text, kind, [f for f in facts if f.kind != "parties"])
    return FactSheet(title, describe(text, kind, facts, title=title), facts, kind, short)


def settled(sheet: FactSheet, said: Mapping[str, Fact | None]) -> FactSheet:
    """The sheet with its key facts as another reading says them, by role (FACT_ROLES): said[role] a Fact (the
    value, span and quote that reading gives; the first of the sheet's facts of that role, or of another role said
    by the same fact, takes it, the others are left out), or None (that reading says the document does not state
    it, or only may: the fact is left out). A role not in `said` keeps its facts. The description is made again
    from the facts left, so it states no other value."""
    facts: list[Fact] = []
    taken: set[int] = set()  # the said facts already on the sheet (one fact may say two roles: expiry and term)
    title = next((f for f in sheet.facts if f.kind == "title"), None)
    for f in sheet.facts:
        if f.role not in said:
            facts.append(f)
            continue
        new = said[f.role]
        if new is None or id(new) in taken:
            continue
        taken.add(id(new))
        quote = new.quote
        if f.quote[0] <= new.start and new.end <= f.quote[1]:
            quote = f.quote  # the sentence that states the fact states the value read: its quote is the closer
        elif title and quote[0] < title.end <= new.start:
            quote = (title.end, quote[1])  # the title has its own heading
        facts.append(replace(f, label=new.label, value=new.value, start=new.start, end=new.end, quote=quote))
    if facts == sheet.facts:
        return sheet
    if not any(f.kind in ("parties", "date") for f in sheet.facts):  # its description does not come from its facts
        return replace(sheet, facts=facts)
    short = describe("", sheet.kind, [f for f in facts if f.kind != "parties"])
    return replace(sheet, facts=facts, description=describe("", sheet.kind, facts, title=sheet.title), short=short)
