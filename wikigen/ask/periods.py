"""Periods: the quarter a document reports on, and the document a question names by a name and a quarter.

A periodic report names its own quarter often ("Q2 2023" in every page footer, or as a column head) and
earlier quarters as comparisons ("Q2 2022"); the latest label it uses often is its own period, with no
calendar arithmetic (fiscal years differ: one company's Q2 2023 ended in April, another's in July); only a
report with no such labels falls back to the calendar quarter of the period its opening says it ends. A
question names a member of such a series by a name ("Intel's") and a quarter ("Q2 2023") or by "the
latest"; `SeriesResolver` finds it among the documents in which the name is frequent. A question that
speaks of several periods ("compared to previous quarters") names the series, not one member.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from datetime import date, timedelta

from wikigen.ask.absent import QUESTION_WORDS
from wikigen.ask.page_index import terms
from wikigen.search.facts.dates import document_date, find_dates
from wikigen.search.facts.numbers import ordinal_number
from wikigen.search.facts.sheet import date_role

_FISCAL = r"(?:(?:FY|fiscal(?:\s+year)?)\s*)"
_YEAR = r"'?(?:(?:19|20)\d\d)"
# "Q2 2023", "Q2 FY2023", "Q2 fiscal 2023", "Q2 FY23", "2023 Q2", "FY23 Q2", "2Q23", "2Q 2023",
# "second quarter of (fiscal) 2023", "second fiscal quarter of 2023", "2023년 2분기"
QUARTER = re.compile(
    rf"\bQ(?P<q1>[1-4])\s*(?:{_FISCAL}?(?P<y1>{_YEAR})|FY\s*'?(?P<y1s>\d\d))\b"
    rf"|\b{_FISCAL}?(?P<y2>(?:19|20)\d\d)\s*Q(?P<q2>[1-4])\b"
    r"|\bFY\s*'?(?P<y2s>\d\d)\s*Q(?P<q2s>[1-4])\b"
    r"|\b(?P<q5>[1-4])Q\s*'?(?P<y5>(?:19|20)?\d\d)\b"
    r"|\b(?P<o3>first|second|third|fourth|1st|2nd|3rd|4th)\s+(?:fiscal\s+)?quarter\s+(?:of\s+)?"
    rf"{_FISCAL}?(?P<y3>(?:19|20)\d\d)\b"
    r"|(?P<y4>(?:19|20)\d\d)\s*년\s*(?:제\s*)?(?P<q4>[1-4])\s*분기",
    re.IGNORECASE,
)
LATEST = re.compile(r"\b(?:latest|most\s+recent|newest)\b|최근|최신", re.IGNORECASE)
# words of a question about several periods: a plural period, a relative one, period by period (then "the latest"
# is one of the periods compared, not the scope; "compare" alone is no such word: "how does the tax rate compare to
# the statutory rate")
SEVERAL_PERIODS = re.compile(
    r"\b(?:quarters|periods|years|months|over\s+time|previous|prior|past|earlier|trends?"
    r"|(?:per|by|each|every)\s+(?:fiscal\s+)?(?:quarter|year|month|period))\b"
    r"|이전|과거|추이|분기별|연도별|월별|전년|전분기",
    re.IGNORECASE,
)
_YEAR_ALONE = re.compile(r"(?<![\w.,])(?:19|20)\d\d(?!\w|[.,]\d)")
MIN_OWN = 2  # a document names its own quarter at least this often ...
OWN_SHARE = 0.2  # ... and at least this share of its most frequent label's count
NAME_SHARE = 0.2  # a name belongs to the documents that use it at least this share of its top count
HEAD_CHARS = 1500  # a report's opening, where it says what it is ("FORM 10-Q", "Quarterly Report")
KEEP_CHARS = (
    20_000_000  # a corpus up to this size is kept in memory once read (cuad-dev: 12.5M); a larger one is read per name
)

Quarter = tuple[int, int]  # (year, quarter)


def quarter_labels(text: str) -> Counter:
    """How often the text names each quarter, as (year, quarter)."""
    out: Counter = Counter()
    for m in QUARTER.finditer(text):
        g = m.groupdict()
        year = next(y for k in ("y1", "y1s", "y2", "y2s", "y3", "y4", "y5") if (y := g[k]))
        q = ordinal_number(g["o3"]) if g["o3"] else int(next(g[k] for k in ("q1", "q2", "q2s", "q4", "q5") if g[k]))
        y = int(year.lstrip("'"))
        out[(y + 2000 if y < 100 else y, q)] += 1
    return out


def names_several_periods(question: str) -> bool:
    """Whether a question speaks of several periods: a plural, relative or per-period word ("quarters", "the prior
    year", "over time", "by quarter", "분기별"; SEVERAL_PERIODS), or two periods or more by name ("Q1 2023 and
    Q2 2023", "from 2021 to 2023": quarter labels, and years outside them)."""
    if SEVERAL_PERIODS.search(question):
        return True
    quarters = set(quarter_labels(question))
    years = {int(y) for y in _YEAR_ALONE.findall(question)} - {y for y, _ in quarters}
    return len(quarters) + len(years) >= 2


def own_quarter(text: str) -> Quarter | None:
    """The quarter a document reports on: the latest it names often (None when it names none often)."""
    labels = quarter_labels(text)
    if not labels:
        return None
    top = max(labels.values())
    often = [k for k, n in labels.items() if n >= max(MIN_OWN, OWN_SHARE * top)]
    return max(often) if often else None


def period_end(text: str) -> str | None:
    """The day (ISO) a report's period ends, where its opening says so ("for the quarterly period ended June 30,
    2023"); None for a document of another kind of date."""
    d = document_date(text)
    if d is None or len(d.iso) != 10 or date_role(text, d) != "period":
        return None
    return d.iso


def report_quarter(text: str) -> Quarter | None:
    """The quarter a document reports on: its own quarter label (`own_quarter`), else the calendar quarter of
    the period its opening says it ends ("for the quarterly period ended June 30, 2023"; a period ending in
    a month's first week, as 52-53-week years do, belongs to the month before)."""
    own = own_quarter(text)
    if own is not None:
        return own
    end = period_end(text)
    if end is None:
        return None
    try:
        day = date.fromisoformat(end) - timedelta(days=7)
    except ValueError:
        return None
    return day.year, (day.month - 1) // 3 + 1


WORD = re.compile(r"\w+", re.UNICODE)


def question_names(question: str) -> list[str]:
    """The words of a question written like names: capitalised or in an uncased script (Korean), not a word
    questions open with ("What", "In": absent.QUESTION_WORDS); a name may open it ("Intel inventories at ...")."""
    words = WORD.findall(question)
    return [w for i, w in enumerate(words) if not w.islower() and (i > 0 or w.casefold() not in QUESTION_WORDS)]


class SeriesResolver:
    """Documents named by a name and a quarter (or "the latest"), read from the documents' own text."""

    def __init__(self, doc_ids: Iterable[str], read: Callable[[str], str]):
        self.doc_ids = sorted(doc_ids)
        self._read = read
        self._texts: dict[str, str] | None = None  # kept when the corpus is at most KEEP_CHARS
        self._own: dict[str, Quarter | None] | None = None
        self._heads: dict[str, set[str]] = {}  # the terms of each report's opening
        self._ends: dict[str, str] = {}  # each report's period end (ISO), where its opening says it
        self._name_counts: dict[str, dict[str, int]] = {}

    def _each_text(self) -> Iterator[tuple[str, str]]:
        if self._texts is not None:
            yield from self._texts.items()
            return
        for d in self.doc_ids:
            try:
                yield d, self._read(d)
            except (KeyError, OSError, ValueError):  # a document the index cannot give: not in any series
                continue

    def _own_quarters(self) -> dict[str, Quarter | None]:
        if self._own is None:  # read on the first question that names a period
            own, kept, chars = {}, {}, 0
            for d, text in self._each_text():
                own[d] = report_quarter(text)
                if own[d] is not None:
                    self._heads[d] = set(terms(text[:HEAD_CHARS]))
                    if (end := period_end(text)) is not None:
                        self._ends[d] = end
                chars += len(text)
                if chars <= KEEP_CHARS:
                    kept[d] = text
            self._own = own
            self._texts = kept if chars <= KEEP_CHARS else None
        return self._own

    def _counts(self, name: str) -> dict[str, int]:
        """How often each document uses the name (any case)."""
        key = name.lower()
        if key not in self._name_counts:
            pattern = re.compile(rf"\b{re.escape(name)}\b", re.IGNORECASE)
            self._name_counts[key] = {d: len(pattern.findall(t)) for d, t in self._each_text()}
        return self._name_counts[key]

    def _named_by(self, name: str) -> set[str]:
        """The documents that use a name often (all of them when it is spread evenly)."""
        counts = self._counts(name)
        top = max(counts.values(), default=0)
        return {d for d, n in counts.items() if top and n >= NAME_SHARE * top}

    def _owned_by(self, name: str) -> set[str]:
        """The documents a name belongs to: those that use it often, when every other document uses it far less
        (at most NAME_SHARE of the least of theirs: "Northwind" in Northwind's reports; not "If" or "Data", which
        every report uses, some more than others). Empty otherwise."""
        counts = self._counts(name)
        named = self._named_by(name)
        if not named:
            return set()
        least = min(counts[d] for d in named)
        rest = max((n for d, n in counts.items() if d not in named), default=0)
        return named if rest <= NAME_SHARE * least else set()

    def _identifies(self, name: str, docs: set[str]) -> bool:
        """Whether a name says whose reports they are: its words are in the openings of most of the reports it
        names ("Northwind" on their cover). A name their text uses but their openings do not (a product, a
        segment) narrows the reports too, but it is what the question asks about and stays in the query."""
        ts = set(terms(name))
        heads = [self._heads[d] for d in docs if d in self._heads]
        return bool(ts and heads) and 2 * sum(ts <= h for h in heads) >= len(heads)

    def _says_report(self, after: str) -> bool:
        """Whether the words after "the latest" say what the reports are ("10-Q", "quarterly filing", "report"):
        a word of at least half of the reports' openings. "The latest delivery date" names no report."""
        said = {t for w in WORD.findall(after)[:2] for t in terms(w)}
        reports = list(self._heads)
        return any(2 * sum(t in self._heads[d] for d in reports) >= len(reports) for t in said) if reports else False

    def resolve_series(self, question: str, names: Iterable[str]) -> tuple[list[str], set[str]] | None:
        """(documents, the question's terms that named them) when the question names no one quarter and no latest
        one, and a name of it belongs to a series of dated reports ("How has Northwind's revenue changed?": every
        Northwind report, whatever its quarter); None otherwise. A name belongs to the documents that use it often
        (two or more, not all of them, every one a dated report: a word many contracts use is no series); the
        series of several names are taken together, and a name that is no series (a product, a segment) is left
        to the query."""
        if len(set(quarter_labels(question))) == 1 or (LATEST.search(question) and not names_several_periods(question)):
            return None
        own = self._own_quarters()
        docs: set[str] = set()
        used: set[str] = set()
        for name in names:
            if len(name) < 2 or not name.isalpha():
                continue
            named = self._owned_by(name)
            if 2 <= len(named) < len(own) and all(own.get(d) for d in named):
                docs |= named
                if self._identifies(name, named):
                    used |= set(terms(name))
        # the periods it names, when it names several ("Q3 2023 than in Q2 2023", "between Dec 31 2022 and April
        # 1 2023"): those of the series' reports, not all of them
        asked = set(quarter_labels(question))
        ends = {m.iso for m in find_dates(question)}
        named_periods = {d for d in docs if own.get(d) in asked or self._ends.get(d) in ends}
        if len(named_periods) >= 2:
            docs = named_periods
        return (sorted(docs), used) if docs else None

    def resolve(self, question: str, names: Iterable[str]) -> tuple[list[str], set[str]] | None:
        """(documents, the question's terms that named them) when the question names one quarter, or the
        latest, of documents its names narrow down to; None otherwise."""
        asked = set(quarter_labels(question))
        # a report is also named by the day its period ends ("total assets at April 1, 2023")
        ends = {m.iso for m in find_dates(question) if len(m.iso) == 10} if not asked else set()
        latest = LATEST.search(question) if not asked and not ends and not names_several_periods(question) else None
        if len(asked) != 1 and not latest and len(ends) != 1:
            return None
        own = self._own_quarters()
        if latest and not self._says_report(question[latest.end() :]):
            return None
        groups: list[set[str]] = []  # the documents each name (or names used together) narrow to
        used: set[str] = set()
        for name in names:
            if len(name) < 2 or not name.isalpha():
                continue
            named = self._named_by(name)
            if not named or len(named) == len(own):
                continue
            if self._identifies(name, named):
                used |= set(terms(name))
            at = next((i for i, g in enumerate(groups) if g & named), None)
            if at is None:
                groups.append(named)  # another name's documents: "Northwind's ... Orbitex's"
            else:
                groups[at] &= named
        chosen: set[str] = set()
        for docs in groups or [set(own)]:
            dated = {d: q for d in docs if (q := own.get(d))}
            if ends:
                chosen |= {d for d in dated if self._ends.get(d) in ends}
            elif dated:
                want = next(iter(asked)) if asked else max(dated.values())
                chosen |= {d for d, q in dated.items() if q == want}
        if not chosen:
            return None
        period_terms = {t for m in QUARTER.finditer(question) for t in terms(m.group(0))}
        period_terms |= {t for m in find_dates(question) if m.iso in ends for t in terms(m.text)}
        return sorted(chosen), used | period_terms
