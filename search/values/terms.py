"""A document's term as a sentence states it: the date it ends on, a length of time and the date it runs from,
an anniversary of a start date, or no fixed end. The grammar of how agreements state their duration (English
and Korean), no vocabulary of one corpus.

    term_options("This Agreement shall continue for five (5) years from the Effective Date.")
        -> [TermOption("duration", <5 years>, start="effective")]
    term_options("... until the third (3rd) anniversary of the date hereof.")
        -> [TermOption("duration", <3 years>, start="made")]
    term_options("The term shall commence on June 1, 2020 and end on May 31, 2021.")
        -> [TermOption("date", <2021-05-31>)]
    add_duration("2020-06-01", <1 year>) -> "2021-06-01"

How a reader takes a sentence about the term:

* **an end date**: a date the words "until", "through", "expire", "terminate on", "end on", "conclude" come just
  before (Korean "까지", "에 만료" just after), or the second date of a range ("June 1, 2020 to May 31, 2021"); a date introduced as a start
  ("commencing on") is no end;
* **a length of time** ("for a period of three (3) years", "twelve (12) months"), and the start it runs from:
  the words after it ("from the Effective Date", "following the date hereof", "commencing on March 1, 2020",
  Korean "계약체결일로부터 2년" before it), else a start date the sentence gives ("shall commence on March 1, 2020
  and continue for one year"), else the effective date: a term whose start is not stated runs from the date the
  agreement takes effect. A start that is another event ("from the Launch Date", "after the first purchase
  order") gives no end date, only the length and the event. A length that is a notice period ("thirty (30)
  days' notice", "within 30 days") or a renewal ("renew for an additional one year", "successive one-year
  terms") is no term;
* **an anniversary** ("the fifth (5th) anniversary of the Effective Date", "the four-year anniversary", "5주년")
  is that many years from the start it names;
* **no fixed end** (`PERPETUAL`): "perpetual", "indefinitely", "until terminated", "for so long as ...",
  "무기한".

`start` is "effective" (the effective date), "made" (the date of the agreement: "the date hereof", "execution",
"signing"), an ISO date the sentence gives, or "" (another event, named in `start_words`).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

from wikigen.search.facts.numbers import ordinal_number, word_number
from wikigen.search.values.dates import find_date_values
from wikigen.search.values.durations import DAYS, find_duration_values
from wikigen.search.values.value import Value

__all__ = ["PERPETUAL", "TermOption", "add_duration", "term_options"]

PERPETUAL = re.compile(
    r"\b(?:perpetu\w*|indefinite(?:ly)?|no\s+fixed\s+(?:term|end)|for\s+so\s+long\s+as|"
    r"(?:continue|remain|thereafter)\w*,?\s+(?:in\s+(?:full\s+)?(?:force|effect)(?:\s+and\s+effect)?,?\s+)?"
    r"(?:(?:unless\s+and\s+)?until|unless(?!\s+(?:sooner|earlier|previously|otherwise|early)\b))\s+(?:\w+\s+){0,6}?"
    r"(?:terminat\w*|cancel\w*|notice))\b|무기한",
    re.I,
)
_END_CUE = re.compile(
    r"(?:\bexpir\w*(?:\s+date)?[\"'”’]?\s+(?:means|shall\s+(?:mean|be)|is|will\s+be)|"
    r"(?:\buntil|\bexpire\w*\s+(?:on|upon)|\bend\s+(?:on|upon))\s+the\s+(?:earlier|later|earliest|latest|first)\s+(?:to\s+occur\s+)?of\W*"
    r"(?:\(?[a-z0-9]{1,3}\)\s*)?|\buntil|\bthrough|\bthru|\bexpir\w*|\bterminat\w*|\bend(?:s|ed|ing)?|\bconclud\w*|\bextended\s+to|\bto|까지|만료)"
    r"(?:\s+(?:on|at|as\s+of|upon))?\s*(?:midnight\s+(?:on\s+)?|the\s+)?[\W_]*$",
    re.I,
)
_START_CUE = re.compile(
    r"\b(?:commenc\w*|begin\w*|start\w*|effective|from|as\s+of|dated|made|entered\s+into)(?:\s+(?:on|upon|as\s+of|from))?"
    r"\s*(?:the\s+)?[\W_]*$",
    re.I,
)
_CUE_CHARS = 40  # an end date's cue lies within this many characters before it
_KO_END_AFTER = re.compile(r"\s*(?:까지|에\s*만료)")  # Korean puts the cue after the date: "2026년 12월 31일까지"
_RANGE = re.compile(r"\s*(?:-|–|—|to|through|thru|until|and\s+(?:end|conclud|terminat|expir)\w*(?:\s+on)?|~)\s*$", re.I)
_NOTICE_AFTER = re.compile(
    r"(?:\s*\(\d+\))?(?:['’]s?|s['’])?\s*(?:(?:prior|advance|advanced|written|express)\s+)*"
    r"(?:notice|notification|prior\b|before\b|in\s+advance|after\s+(?:the\s+)?(?:receipt|notice|written|delivery))"
    r"|\s*(?:전\s*)?(?:에|까지)?\s*(?:서면\S*\s*)?(?:통지|통보)|\s*이내",
    re.I,
)
_KO_BEFORE = re.compile(
    r"\d\s*\S*\s*전(?:에|까지)?(?![\uac00-\ud7a3])"
)  # "60일 전", "3개월 전까지": before, as "prior"
_WITHIN_BEFORE = re.compile(r"\b(?:within|no\s+later\s+than|not\s+later\s+than)\s+$", re.I)
_RENEWAL_NEAR = re.compile(
    r"\b(?:renew\w*|extension|additional|further|(?:be|been|is|are|automatically)\s+extended)\b|갱신|연장", re.I
)
_CLAUSE_CUT = re.compile(r"[,;:()]")
_RENEWAL_AFTER = re.compile(r"\s*(?:\(\d+\))?\s*(?:term\s+)?(?:renewals?|extensions?)\b", re.I)
_RENEWAL_CHARS = 50  # a renewal's words lie within this many characters before its length, in its clause
_TERM_BEFORE = re.compile(
    r"(?:\bfor|\bterm\s+of|\bperiod\s+of|\bduration\s+of|\bbe|\bis|\bof|\buntil|\bthrough|\bend\w*(?:\s+(?:on|at))?|"
    r"\bexpir\w*(?:\s+(?:on|at|upon))?|\bconclud\w*(?:\s+on)?)\s+(?:(?:a|an|the|its|at\s+least|initial|fixed|minimum|"
    r"(?:period|term)\s+of|full)\s+)*$|(?:기간|계약기간|유효기간)\w*\s*(?:은|는)?\s*(?:\S+부터\s*)?$",
    re.I,
)
_AFTER_END = re.compile(r"(?:\w+\s+){0,2}?(?:expir\w*|terminat\w*|the\s+end\b)", re.I)  # "two years after termination"
_PAREN = r"(?:\s*\([^()]{0,60}\))*"
_START_AFTER = re.compile(
    rf"{_PAREN}\s*(?:[\w-]+\s+){{0,2}}?(?:from|following|after|of|commencing\s+(?:on|upon|with|from)|"
    r"beginning\s+(?:on|upon|with|from)|starting\s+(?:on|upon|from))\s+(?:the\s+|its\s+)?",
    re.I,
)
_MADE = re.compile(
    r"(?:date\s+(?:hereof|of\s+this\b|of\s+(?:its|the)\s+(?:\w+\s+)?(?:agreement|contract|execution|signature|signing)|"
    r"(?:first|last)\s+(?:above\s+|below\s+)?(?:written|set\s+forth|mentioned)|(?:of\s+)?(?:execution|signing|signature)|"
    r"(?:it\s+is|this\s+agreement\s+is)\s+(?:signed|executed)|signed)|execution|signing|signature|this\s+(?:agreement|contract))\b",
    re.I,
)
_EFFECTIVE = re.compile(
    r"(?:effective\s+date|commencement\s+date|start\s+date|date\s+(?:this\s+agreement\s+|it\s+)?(?:becomes|became)\s+effective)\b",
    re.I,
)
_KO_START_BEFORE = re.compile(r"(?P<what>\S*?)(?:일)?\s*(?:로)?부터\s*$")
_KO_MADE = re.compile(r"체결|서명|계약일|작성")
_KO_EFFECTIVE = re.compile(r"효력\s*발생|시행|개시|발효")
_ORD_WORD = r"(?:(?:twenty|thirty|forty|fifty)[-\s]?)?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\w+teenth|twentieth|thirtieth|fortieth|fiftieth)"
_ORD_NUM = r"\d{1,3}\s?(?:st|nd|rd|th|s\s?t|n\s?d|r\s?d|t\s?h)"
_ANNIVERSARY = re.compile(
    rf"\b(?:(?P<word>{_ORD_WORD})(?:\s*\(\s*{_ORD_NUM}\s*\))?|(?P<num>{_ORD_NUM})|"
    r"(?P<card>\d{1,3}|[a-z]+)[-\s]years?)\s+anniversary\b|(?P<ko>\d{1,3})\s*주년",
    re.I,
)


@dataclass(frozen=True)
class TermOption:
    """One reading of a sentence's term. `value` is the end date ("date"), the length ("duration", an anniversary
    read as its years), or None ("perpetual"); `span` the words that state it."""

    kind: str  # "date" | "duration" | "perpetual"
    value: Value | None
    span: tuple[int, int]
    start: str = ""  # "effective" | "made" | an ISO date | "" (another event, or none: see start_words)
    start_words: str = ""  # the other event it runs from, as written ("following the Launch Date")
    stated: bool = True  # the words right before it say it is the term ("for a period of", "until"); False for a
    # length merely mentioned in the sentence


def _anniversaries(text: str, start: int, end: int) -> list[Value]:
    """The anniversaries in text[start:end], each as the years it lies after its start."""
    out = []
    for m in _ANNIVERSARY.finditer(text, start, end):
        if m.group("word") or m.group("num"):
            n = ordinal_number(m.group("word") or m.group("num"))
        elif m.group("ko"):
            n = int(m.group("ko"))
        else:
            card = m.group("card")
            n = int(card) if card.isdigit() else word_number(card)
        if not n:
            continue
        norm = f"{n} year{'s' if n != 1 else ''}"
        parts = {
            "amount": n,
            "unit": "year",
            "days": round(n * DAYS["year"], 4),
            "successive": False,
            "anniversary": True,
        }
        out.append(Value("duration", norm, norm, m.start(), m.end(), parts))
    return out


def _start_of(text: str, s: int, v: Value) -> tuple[str, str]:
    """Where the length at v runs from (see the module docstring): ("effective" | "made" | an ISO date | "",
    the other event's words)."""
    after = _START_AFTER.match(text, v.end, min(len(text), v.end + 120))
    if after is not None:
        rest = text[after.end() : after.end() + 80]
        dates = find_date_values(rest)
        if dates and dates[0].start == 0:
            return dates[0].norm, ""
        if _EFFECTIVE.match(rest):
            return "effective", ""
        if _MADE.match(rest):
            return "made", ""
        # "following the Launch Date": up to 60 characters, whole words
        words = re.match(r"[^,;.()]{1,60}(?![^\W_])", text[after.start() : after.end() + 60].strip())
        return "", words.group().strip() if words else ""
    ko = _KO_START_BEFORE.search(text, max(s, v.start - 20), v.start)
    if ko is not None:
        what = ko.group("what")
        if _KO_EFFECTIVE.search(what):
            return "effective", ""
        if _KO_MADE.search(what):
            return "made", ""
    for d in reversed(find_date_values(text, s, v.start)):  # "shall commence on June 1, 2020 and continue for"
        if _START_CUE.search(text, max(s, d.start - _CUE_CHARS), d.start):
            return d.norm, ""
    return "effective", ""


def _renewal_before(text: str, s: int, at: int) -> bool:
    """Renewal words ("renew", "additional", "be extended") just before `at`, in its clause."""
    lo = max(s, at - _RENEWAL_CHARS)
    cuts = [m.end() for m in _CLAUSE_CUT.finditer(text, lo, at)]
    return _RENEWAL_NEAR.search(text, cuts[-1] if cuts else lo, at) is not None


def _not_a_term(text: str, s: int, v: Value) -> bool:
    """A length that is a notice period, a deadline, a renewal or a time after the end, not how long the document
    runs."""
    if v.parts.get("successive"):
        return True
    after = _START_AFTER.match(text, v.end, min(len(text), v.end + 120))
    if after is not None and _AFTER_END.match(text, after.end(), after.end() + 60):
        return True
    if _NOTICE_AFTER.match(text, v.end, min(len(text), v.end + 60)):
        return True
    if _KO_BEFORE.match(text, v.start, min(len(text), v.end + 8)):  # "만료 60일 전까지": a time before an end
        return True
    if _WITHIN_BEFORE.search(text, max(s, v.start - 25), v.start):
        return True
    if _RENEWAL_AFTER.match(text, v.end, min(len(text), v.end + 30)):
        return True
    return _renewal_before(text, s, v.start)


def term_options(text: str, s: int, e: int) -> list[TermOption]:
    """Every reading of the term in the sentence text[s:e], in text order within each kind."""
    out: list[TermOption] = []
    dates = find_date_values(text, s, e)
    for i, d in enumerate(dates):
        lo = max(s, d.start - _CUE_CHARS)
        end_cue = _END_CUE.search(text, lo, d.start)
        start_cue = _START_CUE.search(text, lo, d.start)
        ranged = i > 0 and _RANGE.fullmatch(text, dates[i - 1].end, d.start) is not None
        # the nearer cue decides; a start cue inside an end cue ("end as of") is the end's
        inside = start_cue is not None and end_cue is not None and start_cue.start() < end_cue.end()
        last_start = start_cue.start() if start_cue is not None and not inside else -1
        if (
            ranged
            or _KO_END_AFTER.match(text, d.end, min(e, d.end + 8))
            or (end_cue is not None and end_cue.start() > last_start)
        ):
            out.append(TermOption("date", d, (d.start, d.end)))
    taken = [(d.start, d.end) for d in dates]
    lengths = [v for v in find_duration_values(text, s, e) if not _not_a_term(text, s, v)]
    lengths += [
        a
        for a in _anniversaries(text, s, e)
        if not any(x < a.end and a.start < y for x, y in [*taken, *((v.start, v.end) for v in lengths)])
    ]
    for v in sorted(lengths, key=lambda v: v.start):
        start, words = _start_of(text, s, v)
        cued = (
            v.parts.get("anniversary") is True or _TERM_BEFORE.search(text, max(s, v.start - 60), v.start) is not None
        )
        out.append(TermOption("duration", v, (v.start, v.end), start, words, cued))
    m = PERPETUAL.search(text, s, e)
    if m is not None and not _renewal_before(text, s, m.start()):
        out.append(TermOption("perpetual", None, (m.start(), m.end())))
    return out


def add_duration(iso: str, v: Value) -> str | None:
    """The ISO date a length of time after a start date ends on, to the start's precision: a day-exact start
    gives a day (months and years month-exact, the day kept or the month's last), a month ("2020-06") gives a
    month for whole months, a year ("2004") a year for whole years; None when the precision would be invented."""
    amount, unit = v.parts.get("amount"), v.parts.get("unit")
    if not isinstance(amount, int | float):
        return None
    months = round(amount * (12 if unit == "year" else 1)) if unit in ("month", "year") else None
    if months is not None and abs(months - amount * (12 if unit == "year" else 1)) > 1e-9:
        months = None
    if re.fullmatch(r"\d{4}", iso):
        return str(int(iso) + months // 12) if months is not None and months % 12 == 0 else None
    if re.fullmatch(r"\d{4}-\d\d", iso):
        if months is None:
            return None
        y, m = divmod(int(iso[5:7]) - 1 + months, 12)
        return f"{int(iso[:4]) + y:04d}-{m + 1:02d}"
    try:
        first = date.fromisoformat(iso)
    except ValueError:
        return None
    if months is not None:
        y, m = divmod(first.month - 1 + months, 12)
        day = min(first.day, calendar.monthrange(first.year + y, m + 1)[1])
        return date(first.year + y, m + 1, day).isoformat()
    days = v.parts.get("days")
    return (first + timedelta(days=float(days))).isoformat() if isinstance(days, int | float) else None
