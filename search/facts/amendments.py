"""Amendment chains: which document amends which, and the terms it changes, with character spans.

    find_amendments({"base": base_text, "amend-1": amendment_text})
        -> [Amendment(doc_id="amend-1", base_id="base", evidence=(...), changes=(Change(...), ...))]

Generic rules only (the grammar of amendments, English and Korean; no clause list, no file names):

* a document is an amendment when its title or opening calls it one ("Amendment No. 1 to ...",
  "First Amendment", "Deed of Variation", "Addendum", "supplemental to", "is hereby amended",
  "변경계약서", "수정합의서", "다음과 같이 변경한다");
* its base is the document of the corpus it points at: the base's own date (`document_date`) named in the
  amendment's opening, a reference number they share, the base's title named in the opening, and their
  parties (`find_parties`) in common; the base is dated no later than the amendment;
* a changed term is a statement of the amendment that replaces old wording or an old figure with a new
  one: quoted words replaced ("X" is replaced with "Y", "X"를 "Y"로 변경), a numbered clause replaced by
  a quoted new clause, or one figure (duration, amount, percentage) changed to another of its kind ("from
  X to Y", "X is replaced with Y", "Y in place of X"). A change counts only when the old wording or
  figure is found in the base, so every superseded quote is the base's own text.

Offsets are characters (Korean-safe). Quotes are whole sentences (`sentence_span`) around the change.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from wikigen.search.facts.dates import document_date, find_dates
from wikigen.search.facts.numbers import Mention, find_amounts, find_durations, find_percentages
from wikigen.search.facts.parties import find_parties
from wikigen.search.facts.title import document_title

from wikigen.core.sentences import cap_span, sentence_span, sentences

__all__ = [
    "QUOTE_CAP",
    "Amendment",
    "Change",
    "Evidence",
    "amendment_cue",
    "find_amendments",
    "find_changes",
    "match_base",
    "party_keys",
    "read_chains",
]

OPENING = 1500  # where an amendment says what it is and what it amends
QUOTE_CAP = 240  # a change's quote: the sentence that states it, at most about this long
HEAD_DATES = 400  # a document's first and last lines, where a cover or the signatures state its date

_CUE_TITLE = re.compile(
    r"\b(?:amendment|amending\s+agreement|variation|addendum|supplement(?:al)?\s+agreement|modification"
    r"\s+agreement)\b|변경\s*계약|수정\s*계약|변경\s*합의|수정\s*합의|변경\s*약정",
    re.I,
)
_WEAK_CUE = re.compile(r"addendum|supplement", re.I)  # such a document amends only where it changes a term
_CUE_TEXT = re.compile(
    r"\b(?:hereby\s+amended|is\s+(?:hereby\s+)?amended|are\s+(?:hereby\s+)?amended|amends\s+the|is\s+varied|"
    r"supplemental\s+to\s+(?:a|an|the)\b)|다음과\s*같이\s*(?:변경|수정)한다",
    re.I,
)
_REF = re.compile(r"(?<![\w-])(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9]{1,8}(?:-[A-Z0-9]{1,10}){1,5}(?![\w-])")
_LEGAL = re.compile(
    r"\b(?:plc|ltd|limited|inc|incorporated|llc|llp|lp|corp|corporation|co|company|gmbh|ag|sa|nv|bv|"
    r"pte|pty)\b\.?|주식회사|\(주\)|유한회사",
    re.I,
)
_Q = '["\u201c\u201d]'
_NQ = '[^"\u201c\u201d\n]'
_QUOTED_EN = re.compile(
    rf"{_Q}(?P<old>{_NQ}{{2,300}}){_Q}\s*(?:\([^()\n]{{0,40}}\)\s*)?(?:is|are|shall\s+be)\s+(?:hereby\s+)?"
    rf"(?:deleted\s+and\s+)?(?:replaced|substituted|amended)\s+(?:with|by)\s+{_Q}(?P<new>{_NQ}{{2,300}}){_Q}",
    re.I,
)
_QUOTED_KO = re.compile(
    rf"{_Q}(?P<old>{_NQ}{{1,300}}){_Q}\s*(?:을|를)\s*{_Q}(?P<new>{_NQ}{{1,300}}){_Q}\s*(?:으로|로)\s*"
    r"(?:변경|수정|대체|바꾼)"
)
_CLAUSE_REPLACED = re.compile(
    r"\b(?:clause|section|article|paragraph)\s+(?P<num>\d+(?:\.\d+)*)\b[^.\n\"\u201c\u201d]{0,80}?"
    r"(?:is|are|shall\s+be)\s+"
    rf"(?:hereby\s+)?(?:deleted\s+and\s+)?(?:replaced|substituted|amended\s+and\s+restated)\s+(?:with|by)"
    rf"(?:\s+the\s+following)?\s*:?\s*{_Q}(?P<new>[^\"\u201c\u201d]{{10,2000}}){_Q}",
    re.I,
)
_CHANGE_VERB = re.compile(
    r"\b(?:replac\w+|chang\w+|increas\w+|decreas\w+|reduc\w+|extend\w+|amend\w+|substitut\w+|"
    r"in\s+place\s+of|instead\s+of)\b|변경|인상|인하|연장|단축",
    re.I,
)
_OLD_SECOND = re.compile(r"\b(?:in\s+place\s+of|instead\s+of|rather\s+than)\b", re.I)
_REPLACED_BY = re.compile(r"\b(?:replaced|substituted)\s+(?:with|by)\b", re.I)
_FROM_TO = re.compile(r"\bfrom\b.*\bto\b|에서.*(?:으로|로)|을|를", re.I | re.S)
_HEADING = re.compile(
    r"^[ \t]*(?:(?:sec(?:tion)?\.?|clause|article)\s*)?\(?\d+(?:\.\d+)*[.)]?[ \t]+"
    r"(?P<h>[A-Z][^.\n:()]{2,50}?)\s*(?:\.|:|\n)|^[ \t]*제\s*\d+\s*조\s*\((?P<k>[^)\n]{1,30})\)",
    re.I | re.M,
)


@dataclass(frozen=True)
class Evidence:
    kind: str  # cue | date | reference | title | party
    start: int  # in the amendment's text
    end: int
    text: str


@dataclass(frozen=True)
class Change:
    label: str  # what the term is ("Renewal notice", "notice period", the clause number)
    kind: str  # duration | amount | percentage | wording | clause
    old_value: str  # the superseded wording or figure, as in the base
    new_value: str  # the current wording or figure, as in the amendment
    old_span: tuple[int, int]  # the superseded text in the base
    new_span: tuple[int, int]  # the current text in the amendment
    old_quote: tuple[int, int]  # the base's sentence holding it
    new_quote: tuple[int, int]  # the amendment's sentence stating the change


@dataclass(frozen=True)
class Amendment:
    doc_id: str  # the amending document
    base_id: str  # the document it amends
    date: str  # the amendment's own date (ISO) or ""
    evidence: tuple[Evidence, ...]
    changes: tuple[Change, ...]

    def to_dict(self) -> dict:
        return {
            "doc_id": self.doc_id,
            "base_id": self.base_id,
            "date": self.date,
            "evidence": [e.__dict__ for e in self.evidence],
            "changes": [
                {**c.__dict__, **{k: list(getattr(c, k)) for k in ("old_span", "new_span", "old_quote", "new_quote")}}
                for c in self.changes
            ],
        }

    @classmethod
    def from_dict(cls, d: dict) -> Amendment:
        ev = tuple(Evidence(**e) for e in d.get("evidence", ()))
        ch = tuple(
            Change(**{**c, **{k: tuple(c[k]) for k in ("old_span", "new_span", "old_quote", "new_quote")}})
            for c in d.get("changes", ())
        )
        return cls(d["doc_id"], d["base_id"], d.get("date", ""), ev, ch)


def amendment_cue(text: str, title: str = "") -> Evidence | None:
    """Where a document calls itself an amendment (its title, else its opening), or None."""
    title = title or document_title(text)
    head = text[:OPENING]
    m = _CUE_TITLE.search(title) if title else None
    if m:
        at = head.find(title)
        s = at + m.start() if at >= 0 else head.casefold().find(m.group(0).casefold())
        if s >= 0:
            return Evidence("cue", s, s + len(m.group(0)), text[s : s + len(m.group(0))])
    m = _CUE_TEXT.search(head)
    return Evidence("cue", m.start(), m.end(), m.group(0)) if m else None


def party_keys(text: str) -> dict[str, tuple[int, int]]:
    """The document's parties as comparable keys (case, legal form and punctuation dropped) -> span."""
    out: dict[str, tuple[int, int]] = {}
    for p in find_parties(text):
        key = " ".join(re.sub(r"[^\w\s]", " ", _LEGAL.sub(" ", p.value.split("(\u201c")[0])).casefold().split())
        if len(key) >= 3:
            out.setdefault(key, (p.start, p.end))
    return out


def _title_words(title: str) -> list[str]:
    words = re.findall(r"[^\W\d_]{3,}", title.casefold())
    return [re.sub(r"서$", "", w) for w in words if w not in {"the", "and", "this", "agreement"}] or list(
        re.findall(r"[^\W\d_]{3,}", title.casefold())
    )


def _title_named(base_title: str, head: str) -> tuple[int, int] | None:
    """Where the amendment's opening names the base's title (every content word of it, in one line)."""
    words = _title_words(base_title)
    if not words or len(base_title) > 120:
        return None
    low = head.casefold()
    for line in re.finditer(r"[^\n]+", low):
        if all(w in line.group(0) for w in words):
            first = min(line.group(0).find(w) for w in words)
            last = max(line.group(0).find(w) + len(w) for w in words)
            return line.start() + first, line.start() + last
    return None


@dataclass
class _Doc:
    doc_id: str
    text: str
    title: str
    date: str
    parties: dict[str, tuple[int, int]]
    refs: dict[str, int]
    dates: set[str]  # its own date and the full dates of its first and last lines (cover, signatures)
    first: str  # the earliest of them: a base is never younger than its amendment


def _profile(doc_id: str, text: str) -> _Doc:
    d = document_date(text)
    refs = {m.group(0): m.start() for m in _REF.finditer(text)}
    ends = text[:HEAD_DATES] + "\n" + text[max(0, len(text) - HEAD_DATES) :]
    dates = {m.iso for m in find_dates(ends) if len(m.iso) == 10} | ({d.iso} if d else set())
    return _Doc(
        doc_id,
        text,
        document_title(text),
        d.iso if d else "",
        party_keys(text),
        refs,
        dates,
        min(dates) if dates else "",
    )


def match_base(amend: _Doc, base: _Doc) -> tuple[int, list[Evidence]]:
    """(score, evidence) that `base` is the document `amend` amends: the base's date named (2), a shared
    reference number (3), the base's title named (2), each shared party (1). 0 when no party is shared
    or the base is dated after the amendment."""
    if base.doc_id == amend.doc_id or (base.first and amend.date and base.first > amend.date):
        return 0, []
    head = amend.text[:OPENING]
    ev: list[Evidence] = []
    shared = [k for k in amend.parties if k in base.parties]
    if not shared:
        return 0, []
    for k in shared:
        s, e = amend.parties[k]
        ev.append(Evidence("party", s, e, amend.text[s:e]))
    score = len(shared)
    if base.dates - {amend.date}:
        for d in find_dates(head):
            if d.iso in base.dates and d.iso != amend.date:
                ev.append(Evidence("date", d.start, d.end, d.text))
                score += 2
                break
    for ref, at in amend.refs.items():
        if at < OPENING and ref in base.refs:
            ev.append(Evidence("reference", at, at + len(ref), ref))
            score += 3
            break
    named = _title_named(base.title, head) if base.title else None
    if named:
        ev.append(Evidence("title", named[0], named[1], amend.text[named[0] : named[1]]))
        score += 2
    return score, ev


# --- changed terms ----------------------------------------------------------------------------------


def _figures(text: str, start: int, end: int) -> list[Mention]:
    piece = text[start:end]
    out = []
    for find in (find_durations, find_amounts, find_percentages):
        out += [m._replace(start=m.start + start, end=m.end + start) for m in find(piece)]
    return sorted(out)


def _label(text: str, at: int) -> str:
    """The heading of the numbered clause holding `at` ("2. Renewal notice." -> "Renewal notice"), or ""."""
    best = ""
    for m in _HEADING.finditer(text, max(0, at - 600), min(len(text), at + 80)):
        if m.start() <= at:
            best = (m.group("h") or m.group("k") or "").strip()
    return best if len(best.split()) <= 6 else ""


def _clause_span(text: str, num: str) -> tuple[int, int] | None:
    """The paragraph of `text` that opens with clause number `num` ("9.3 Subject to ..."), or None."""
    m = re.search(rf"^[ \t]*{re.escape(num)}\.?[ \t]+\S[^\n]*", text, re.M)
    return (m.start() + len(m.group(0)) - len(m.group(0).lstrip()), m.end()) if m else None


def _clause_ref(sentence: str) -> str:
    m = re.search(r"\b(?:clause|section|article|paragraph|sec\.)\s+(\d+(?:\.\d+)*)", sentence, re.I)
    if m:
        return m.group(1)
    m = re.search(r"제\s*(\d+)\s*조", sentence)
    return m.group(1) if m else ""


def _in_base(base: str, old: str, near: tuple[int, int] | None) -> tuple[int, int] | None:
    """Where the base states `old` (exact text): inside the referenced clause when it is there, else
    its only occurrence; None when absent or ambiguous."""
    spans = [m.span() for m in re.finditer(re.escape(old), base)]
    if near:
        inside = [s for s in spans if near[0] - 200 <= s[0] <= near[1] + 400]
        if inside:
            return inside[0]
    return spans[0] if len(spans) == 1 else None


def _korean_clause(base: str, num: str) -> tuple[int, int] | None:
    m = re.search(rf"제\s*{num}\s*조[^\n]*", base)
    return (m.start(), min(len(base), m.end() + 800)) if m else None


def _near_clause(base: str, sentence: str) -> tuple[int, int] | None:
    num = _clause_ref(sentence)
    if not num:
        return None
    return _clause_span(base, num) or _korean_clause(base, num.split(".")[0])


def _change(
    amend: str,
    base: str,
    kind: str,
    label: str,
    old: tuple[int, int],
    new: tuple[int, int],
    old_value: str,
    new_value: str,
) -> Change:
    return Change(
        label,
        kind,
        old_value,
        new_value,
        old,
        new,
        sentence_span(base, old[0], old[1], QUOTE_CAP),
        sentence_span(amend, new[0], new[1], QUOTE_CAP),
    )


def _quoted_changes(amend: str, base: str, taken: list[tuple[int, int]]) -> list[Change]:
    out = []
    for m in [*_QUOTED_EN.finditer(amend), *_QUOTED_KO.finditer(amend)]:
        sent = sentence_span(amend, m.start(), m.end(), QUOTE_CAP)
        where = _in_base(base, m.group("old"), _near_clause(base, amend[sent[0] : sent[1]]))
        if where is None or m.group("old") == m.group("new"):
            continue
        taken.append(m.span())
        out.append(
            _change(
                amend,
                base,
                "wording",
                _label(amend, m.start()) or _clause_ref(amend[sent[0] : m.start()]),
                where,
                m.span("new"),
                m.group("old"),
                m.group("new"),
            )
        )
    for m in _CLAUSE_REPLACED.finditer(amend):
        old = _clause_span(base, m.group("num"))
        if old is None or any(s < m.end() and m.start() < e for s, e in taken):
            continue
        taken.append(m.span())
        out.append(
            Change(
                _label(amend, m.start()) or f"clause {m.group('num')}",
                "clause",
                base[old[0] : old[1]],
                m.group("new"),
                old,
                m.span("new"),
                cap_span(base, *old, QUOTE_CAP),
                cap_span(amend, m.start(), m.end(), QUOTE_CAP),
            )
        )
    return out


def _figure_pair(amend: str, s: int, e: int) -> tuple[Mention, Mention] | None:
    """(old, new) figures of one kind that one sentence changes, or None when it does not read as a change."""
    piece = amend[s:e]
    if not _CHANGE_VERB.search(piece):
        return None
    figs = _figures(amend, s, e)
    for kind in ("duration", "amount", "percentage"):
        same = [f for f in figs if f.kind == kind]
        if len(same) != 2 or same[0].value == same[1].value:
            continue
        a, b = same
        between = amend[a.end : b.start]
        if _OLD_SECOND.search(between):
            return b, a
        if _REPLACED_BY.search(between) or (
            re.search(r"\bto\b|(?:으로|로)", between) and _FROM_TO.search(amend[max(s, a.start - 40) : b.start])
        ):
            return a, b
    return None


def _figure_changes(
    amend: str, base: str, base_figs: list[Mention], taken: list[tuple[int, int]], start: int
) -> list[Change]:
    out = []
    for s, e in sentences(amend[start:]):
        s, e = s + start, e + start
        if any(ts < e and s < te for ts, te in taken):
            continue
        pair = _figure_pair(amend, s, e)
        if pair is None:
            continue
        old, new = pair
        near = _near_clause(base, amend[s:e])
        same = [f for f in base_figs if f.kind == old.kind and f.value == old.value]
        if near:
            same = [f for f in same if near[0] - 200 <= f.start <= near[1] + 400] or same
        if len(same) != 1 and not (near and same):
            continue
        f = same[0]
        label = _label(amend, min(old.start, new.start)) or _clause_ref(amend[s:e]) or old.kind
        out.append(
            _change(
                amend, base, old.kind, label, (f.start, f.end), (new.start, new.end), base[f.start : f.end], new.text
            )
        )
    return out


def find_changes(amend: str, base: str) -> list[Change]:
    """The terms of `base` that `amend` changes, in the amendment's order (see the module docstring)."""
    taken: list[tuple[int, int]] = []
    out = _quoted_changes(amend, base, taken)
    cue = amendment_cue(amend)
    start = cue.end if cue else 0
    base_figs = _figures(base, 0, len(base))
    out += _figure_changes(amend, base, base_figs, taken, start)
    return sorted(out, key=lambda c: c.new_span)


def _own_date(text: str, base_dates: set[str]) -> str:
    """The amendment's own date: its opening's date (`document_date`) unless that is the base's, else the
    last full date of its closing lines (where it is signed), else ""."""
    d = document_date(text)
    if d and d.iso not in base_dates:
        return d.iso
    tail = len(text) - min(len(text), 300)
    found = [m.iso for m in find_dates(text[tail:]) if len(m.iso) == 10 and m.iso not in base_dates]
    return found[-1] if found else ""


def find_amendments(texts: Mapping[str, str], titles: Mapping[str, str] | None = None) -> list[Amendment]:
    """Every amendment of the corpus with its base and changed terms, in doc id order. A document whose
    base is not clear (no candidate shares a party and a date, reference or title, or two tie) is left out."""
    titles = titles or {}
    cues = {d: c for d, t in texts.items() if (c := amendment_cue(t, titles.get(d, "")))}
    if not cues:
        return []
    profiles = {d: _profile(d, t) for d, t in texts.items()}
    out = []
    for doc_id in sorted(cues):
        a = profiles[doc_id]
        if not a.parties:
            continue
        ranked = sorted(
            ((*match_base(a, b), b.doc_id) for b in profiles.values() if b.doc_id not in cues or b.doc_id == doc_id),
            key=lambda r: -r[0],
        )
        ranked = [r for r in ranked if r[0] > 0]
        if not ranked or (len(ranked) > 1 and ranked[1][0] == ranked[0][0]):
            continue
        _score, ev, base_id = ranked[0]
        if not any(e.kind in ("date", "reference", "title") for e in ev):
            continue
        changes = find_changes(a.text, texts[base_id])
        if not changes and _WEAK_CUE.search(cues[doc_id].text):
            continue
        date = _own_date(a.text, profiles[base_id].dates)
        out.append(Amendment(doc_id, base_id, date, (cues[doc_id], *ev), tuple(changes)))
    return out


def read_chains(path) -> list[Amendment]:
    """The chains a build kept (WIKI/.wikigen/amendments.json); [] when the file is absent or unreadable."""
    import json
    from pathlib import Path

    try:
        return [Amendment.from_dict(d) for d in json.loads(Path(path).read_text(encoding="utf-8"))]
    except (OSError, ValueError, KeyError, TypeError):
        return []
