"""A document's values: for each field of its kind's schema, the value the document states and the sentence that
states it, or "not stated".

    schema = load_schemas()["contract"]
    cells = extract_values(text, schema)
    cells["governing_law"]  -> Cell("governing_law", "stated", "Delaware", "Delaware", "jurisdiction",
                                    quote=(21948, 22102), span=(22040, 22048), ...)

How a field is found, for every field the same way (no rule of one field in code):

1. **Candidates**: the sentences (`wikigen.core.sentences`, stops and paragraphs) holding one of the field's
   signal phrases, less the phrase matches inside an exclusion ("exclusive" inside "non-exclusive"), and the
   sentences that open with, or follow, a heading of the field ("12. Governing Law."). A candidate must hold
   one of the `requires` words, and one of the `also` words, when the field lists them, and none of its `avoid`
   words (a right to terminate on breach is no termination for convenience).
2. **Values**: a typed field takes the values of its type inside the candidate (`wikigen.search.values`); a
   candidate with none is no candidate. A value following one of the field's `after` words, or preceding one
   of its `before` words, within a few words, is preferred; else the value nearest a signal phrase.
3. **Choice**: the candidate with the most evidence (distinct signal phrases, a heading, the value's cue),
   the earliest on a tie. Other candidates stating a different value are kept as `others`, each with its own
   quote: two quotes that disagree are shown side by side for a person to check (the provisions page lists
   them under "Stated differently").

A presence field ("Is there a non-compete?") is judged by the clause model (`wikigen.search.values.clauses`),
which scores every sentence for how likely it is to grant, restrict or oblige as the field says (a heading "for
convenience of reference only" is not termination for convenience): the sentence it scores highest, among the
candidates and any it scores at the field's `possible` threshold, makes the cell "stated" ("Yes" with the clause
as its quote, and the value of its `value` type in that clause when there is one: "Yes: USD 1,000,000") at the
field's `stated` threshold, "possible" (the clause quoted, no value claimed) at the `possible` one, else "not
stated". Text the model cannot read (Korean, say) and fields it does not know keep the rule: stated when a
candidate exists. A term
(expiration) is a date, a duration (with the end date it gives from the date it runs from) or "perpetual", as
`wikigen.search.values.terms` reads a sentence; a document's own date is the one its opening introduces in a
sentence naming it, else the one where it is signed (`_own_dates`).
Every cell's quote is a span of the document's text (the whole sentence, capped near LONGEST_SENTENCE
around what it states), so it is verified like any other quote.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field

from wikigen.search.facts.dates import introduced_as_own
from wikigen.search.facts.parties import find_parties
from wikigen.search.values import Value, find_values
from wikigen.search.values.clauses import ClauseModel, section_headings, sentence_features
from wikigen.search.values.schema import PRESENCE, Field, Schema
from wikigen.search.values.terms import add_duration, term_options

from wikigen.core.pages import furniture
from wikigen.core.sentences import LONGEST_SENTENCE, SENTENCE, heading_like, sentences
from wikigen.core.text import trim_span
from wikigen.wiki.provisions import NOT_READ, NOT_STATED, POSSIBLE, STATED

__all__ = ["NOT_READ", "NOT_STATED", "POSSIBLE", "STATED", "Cell", "document_kind", "extract_values"]

QUOTE_CAP = 600  # a long sentence (a table row run together) is quoted around what it states, about this long
CUE_CHARS = 60  # a value follows an `after` word, or precedes a `before` word, within this many characters
HEADING_CHARS = 80  # a sentence "opens with" a heading when the heading's words are in its first characters
KIND_HEAD = 1500  # where a document says what it is: its title and first lines

_EFFECTIVE_ON_SIGNING = re.compile(
    r"\b(?:effective|commenc\w*|take\s+effect|enters?\s+into\s+force|become\s+effective|begin\w*)\W+(?:[\w\"”']+\W+){0,6}?"
    r"(?:date\s+(?:hereof|first\s+(?:above\s+)?(?:written|set\s+forth|mentioned|stated)|of\s+(?:this\s+agreement|execution|"
    r"signature|its\s+execution|the\s+last\s+signature))|(?:first|last)\s+date\s+(?:above\s+|below\s+)?written|"
    r"execution|signing|signature)\b|서명한\s*날|체결한\s*날|체결일부터",
    re.I,
)
_SELF = re.compile(r"\b(?:this|the\s+present)\b|본\s*(?:계약|약정|협약|합의)", re.I)  # the document naming itself
_WITNESS = re.compile(r"\bin\s+witness\s+(?:where)?of\b|증명하기\s*위하여", re.I)


@dataclass(frozen=True)
class Cell:
    """One field's value in one document. `quote` is the (start, end) of the sentence that states it, `span` the
    value's own words; both are character offsets into the document's extracted text."""

    field: str
    status: str  # STATED | POSSIBLE (a clause quoted, no value claimed) | NOT_STATED | NOT_READ
    display: str = ""  # what a reader sees: "Delaware", "successive 1 year", "Yes", "Yes: USD 1,000,000"
    norm: str = ""  # the comparable form ("" for a bare yes)
    type: str = ""  # the value's type, or "presence" for a bare yes
    quote: tuple[int, int] | None = None
    span: tuple[int, int] | None = None
    parts: Mapping[str, object] = dataclass_field(default_factory=dict)
    others: tuple[tuple[str, int, int], ...] = ()  # (value, quote start, quote end) other sentences state instead
    score: float | None = None  # the clause model's probability that the quoted sentence states the field

    @property
    def stated(self) -> bool:
        return self.status == STATED

    def to_dict(self) -> dict:
        d: dict = {"field": self.field, "status": self.status}
        if self.status == POSSIBLE:
            d.update(display=self.display, type=self.type, parts=dict(self.parts))
            d["quote"] = list(self.quote) if self.quote else None
        if self.stated:
            d.update(display=self.display, norm=self.norm, type=self.type, parts=dict(self.parts))
            d["quote"] = list(self.quote) if self.quote else None
            d["span"] = list(self.span) if self.span else None
            if self.others:
                d["others"] = [{"norm": n, "quote": [a, b]} for n, a, b in self.others]
        if self.score is not None and self.status in (STATED, POSSIBLE):
            d["score"] = round(self.score, 3)
        return d

    @classmethod
    def from_dict(cls, d: Mapping) -> Cell:
        q, s = d.get("quote"), d.get("span")
        return cls(
            str(d["field"]),
            str(d["status"]),
            str(d.get("display", "")),
            str(d.get("norm", "")),
            str(d.get("type", "")),
            (int(q[0]), int(q[1])) if q else None,
            (int(s[0]), int(s[1])) if s else None,
            dict(d.get("parts") or {}),
            tuple((str(o["norm"]), int(o["quote"][0]), int(o["quote"][1])) for o in d.get("others") or ()),
            float(d["score"]) if d.get("score") is not None else None,
        )


def document_kind(title: str, text: str, schemas: Mapping[str, Schema]) -> str | None:
    """The kind of document (a schema's kind) its title and opening lines say it is, or None: the schema whose
    title words occur most (a word in the title counts twice); the first schema on a tie."""
    head = text[:KIND_HEAD]
    best, best_score = None, 0
    for kind, schema in schemas.items():
        rx = schema.title_rx
        if rx is None:
            continue
        score = 2 * len({m.group().casefold() for m in rx.finditer(title)}) + len(
            {m.group().casefold() for m in rx.finditer(head)}
        )
        if score > best_score:
            best, best_score = kind, score
    return best


# --- a document read once ---------------------------------------------------------------------------


class _Doc:
    def __init__(self, text: str):
        self.text = text
        self.sents = sentences(text, SENTENCE)
        self.starts = [s for s, _ in self.sents]
        self._heads: dict[re.Pattern, list[int]] = {}
        self.furniture = furniture(text)  # page furniture: a running header's date or number is no value
        self._features: list[list[str]] | None = None

    def features(self) -> list[list[str]]:
        """Each sentence's features for the clause model (its words, word pairs, and its section heading's)."""
        if self._features is None:
            heads = section_headings(self.text, self.sents)
            self._features = [sentence_features(self.text[s:e], h) for (s, e), h in zip(self.sents, heads, strict=True)]
        return self._features

    def on_furniture(self, v: Value) -> bool:
        return any(a <= v.start and v.end <= b for a, b in self.furniture)

    def index_of(self, pos: int) -> int | None:
        i = bisect.bisect_right(self.starts, pos) - 1
        if i < 0 or pos >= self.sents[i][1]:
            return None
        return i

    def headed(self, rx: re.Pattern) -> list[int]:
        """The sentences under a heading of the field: one opening with it, or the one after a heading-like one."""
        key = rx  # a pattern hashes by its text and flags
        if key not in self._heads:
            out = []
            for i, (s, e) in enumerate(self.sents):
                m = rx.search(self.text, s, min(e, s + HEADING_CHARS))
                if m is None:
                    continue
                out.append(i)
                if heading_like(self.text[s:e]) and i + 1 < len(self.sents):
                    out.append(i + 1)
            self._heads[key] = out
        return self._heads[key]


@dataclass
class _Candidate:
    index: int  # the sentence
    signals: list[tuple[int, int]]  # the signal phrases' spans in it
    heading: bool
    value: Value | None = None
    cue: bool = False

    @property
    def score(self) -> float:
        return len(set(self.signals)) + (1.5 if self.heading else 0.0) + (1.0 if self.cue else 0)


class _Judge:
    """The clause model's reading of one document: each sentence's probability of stating a field, for the fields
    of the document's kind the model knows (`wikigen.search.values.clauses`), computed once per field."""

    def __init__(self, doc: _Doc, model: ClauseModel | None, kind: str):
        self.doc, self.model, self.kind = doc, model, kind
        self._rows: list[list[int]] | None = None
        self._scores: dict[str, list[float | None]] = {}

    def knows(self, f: Field) -> bool:
        return self.model is not None and self.model.knows(self.key(f))

    def key(self, f: Field) -> str:
        return f"{self.kind}/{f.name}"

    def thresholds(self, f: Field) -> tuple[float, float]:
        assert self.model is not None
        k = self.key(f)
        return self.model.threshold(k, "stated"), self.model.threshold(k, "possible")

    def scores(self, f: Field, candidates: list[_Candidate]) -> list[float | None]:
        """One score per sentence (None where the model cannot read it); the field's candidates (all of them,
        as `_candidates` finds them) carry the field's candidate weight."""
        assert self.model is not None
        if f.name not in self._scores:
            if self._rows is None:
                self._rows = [self.model.rows(feats) for feats in self.doc.features()]
            cands = {c.index for c in candidates}
            key = self.key(f)
            self._scores[f.name] = [
                self.model.score(key, rows, candidate=i in cands) for i, rows in enumerate(self._rows)
            ]
        return self._scores[f.name]


def _inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(a <= span[0] and span[1] <= b for a, b in spans)


def _candidates(doc: _Doc, f: Field) -> list[_Candidate]:
    text = doc.text
    found: dict[int, _Candidate] = {}
    rx = f.rx("phrases")
    if rx is not None:
        for m in rx.finditer(text):
            i = doc.index_of(m.start())
            if i is not None:
                found.setdefault(i, _Candidate(i, [], False)).signals.append((m.start(), m.end()))
    hx = f.rx("headings")
    if hx is not None:
        for i in doc.headed(hx):
            found.setdefault(i, _Candidate(i, [], False)).heading = True
    out = []
    nx, req, also, avoid = f.rx("not_"), f.rx("requires"), f.rx("also"), f.rx("avoid")
    for c in found.values():
        s, e = doc.sents[c.index]
        if nx is not None:
            excluded = [(m.start(), m.end()) for m in nx.finditer(text, s, e)]
            c.signals = [sp for sp in c.signals if not any(a < sp[1] and sp[0] < b for a, b in excluded)]
        if not c.signals and not c.heading:
            continue
        if req is not None and not req.search(text, s, e):
            continue
        if also is not None and not also.search(text, s, e):
            continue
        if avoid is not None and avoid.search(text, s, e):
            continue
        out.append(c)
    return sorted(out, key=lambda c: c.index)


def _cue_near(text: str, v: Value, f: Field) -> bool:
    """The value follows one of the field's `after` words, or precedes one of its `before` words, closely."""
    ax, bx = f.rx("after"), f.rx("before")
    if ax is not None and any(m.end() <= v.start for m in ax.finditer(text, max(0, v.start - CUE_CHARS), v.start)):
        return True
    return bx is not None and bx.search(text, v.end, v.end + CUE_CHARS) is not None


def _barred(text: str, v: Value, f: Field) -> bool:
    """The value follows one of the field's `not_after` words closely ("until <date>" is no effective date)."""
    nx = f.rx("not_after")
    return nx is not None and any(m.end() <= v.start for m in nx.finditer(text, max(0, v.start - 25), v.start))


def _pick_value(doc: _Doc, c: _Candidate, f: Field, vtype: str) -> None:
    s, e = doc.sents[c.index]
    values = [v for v in find_values(doc.text, vtype, s, e) if not _barred(doc.text, v, f) and not doc.on_furniture(v)]
    if not values:
        return
    ranked = []
    for v in values:
        cue = _cue_near(doc.text, v, f)
        if f.needs_cue and not cue:
            continue
        dist = min((abs(v.start - a) for a, _ in c.signals), default=0)
        ranked.append((not cue, dist, v.start, v, cue))
    if not ranked:
        return
    ranked.sort(key=lambda r: r[:3])
    c.value, c.cue = ranked[0][3], ranked[0][4]
    within = _subdivision(c.value, [r[3] for r in ranked])
    if within is not None:  # "the laws of the United States and the State of Florida": Florida's law
        c.value = within


def _subdivision(v: Value, values: list[Value]) -> Value | None:
    """The first of `values` that is a part of the country `v` names (a state, a province), else None."""
    if v.type != "jurisdiction" or v.parts.get("kind") != "country":
        return None
    code = str(v.parts.get("code") or "")
    return next((o for o in values if code and str(o.parts.get("code") or "").startswith(code + "-")), None)


def _quote(doc: _Doc, c: _Candidate) -> tuple[int, int]:
    """The candidate's sentence; a sentence longer than LONGEST_SENTENCE (a table run together) is cut to about
    QUOTE_CAP around its signals and value."""
    s, e = doc.sents[c.index]
    if e - s <= LONGEST_SENTENCE:
        return s, e
    marks = [*c.signals] + ([(c.value.start, c.value.end)] if c.value else [])
    lo = min((a for a, _ in marks), default=s)
    hi = max((b for _, b in marks), default=s)
    pad = max(0, (QUOTE_CAP - (hi - lo)) // 2)
    a, b = max(s, lo - pad), min(e, hi + pad)
    while a > s and not doc.text[a - 1].isspace():
        a -= 1
    while b < e and not doc.text[b].isspace():
        b += 1
    return trim_span(doc.text, a, b)


def _cell(doc: _Doc, f: Field, c: _Candidate, others: tuple[tuple[str, int, int], ...]) -> Cell:
    quote = _quote(doc, c)
    v = c.value
    if f.type == PRESENCE:
        if v is None:
            return Cell(f.name, STATED, "Yes", "", PRESENCE, quote, None, {}, others)
        return Cell(f.name, STATED, f"Yes: {v.display}", v.norm, v.type, quote, (v.start, v.end), dict(v.parts), others)
    assert v is not None
    return Cell(f.name, STATED, v.display, v.norm, v.type, quote, (v.start, v.end), dict(v.parts), others)


def _choose(doc: _Doc, f: Field, cands: list[_Candidate]) -> Cell:
    if not cands:
        return Cell(f.name, NOT_STATED)
    best = max(cands, key=lambda c: (c.score, -c.index))
    own = best.value.norm if best.value is not None else None
    first: dict[str, _Candidate] = {}  # each other value, with the first sentence that states it
    for c in sorted(cands, key=lambda c: c.index):
        if c.value is not None and c.value.norm and c.value.norm != own and c.score >= best.score - 1:
            first.setdefault(c.value.norm, c)
    others = tuple((n, *_quote(doc, c)) for n, c in first.items())
    return _cell(doc, f, best, others)


def _presence_cell(
    doc: _Doc, f: Field, cands: list[_Candidate], scores: list[float | None], judge: _Judge, where=None
) -> Cell | None:
    """A presence field as the clause model reads it: the sentence it scores highest, among the schema's
    candidates and any sentence it scores at least the field's `possible` threshold, is "stated" at the `stated`
    threshold, "possible" at the `possible` one; else not stated. None when the model reads none of the
    candidates and scores no other sentence that high (text it cannot read: the schema's rule decides)."""
    stated_at, possible_at = judge.thresholds(f)
    pool = {c.index: c for c in cands if scores[c.index] is not None}
    for i, p in enumerate(scores):
        if p is not None and p >= possible_at and i not in pool and (where is None or where(doc.sents[i][0])):
            pool[i] = _Candidate(i, [], False)
    best = max(pool.values(), key=lambda c: (scores[c.index], -c.index), default=None)
    p = scores[best.index] if best is not None else None
    if best is None or p is None or p < possible_at:
        return None if any(scores[c.index] is None for c in cands) else Cell(f.name, NOT_STATED)
    if p < stated_at:
        return Cell(f.name, POSSIBLE, "", "", PRESENCE, _quote(doc, best), score=p)
    if f.value_type is not None:
        _pick_value(doc, best, f, f.value_type)
    return replace(_cell(doc, f, best, ()), score=p)


def _field_cell(doc: _Doc, f: Field, where=None, judge: _Judge | None = None) -> Cell:
    found = _candidates(doc, f)
    cands = found if where is None else [c for c in found if where(doc.sents[c.index][0])]
    if f.type == PRESENCE and judge is not None and judge.knows(f):
        scores = judge.scores(f, found)
        judged = _presence_cell(doc, f, cands, scores, judge, where)
        if judged is not None:
            return judged
        cands = [c for c in cands if scores[c.index] is None]  # the text the model cannot read
    vtype = f.value_type
    if vtype is None:
        return _choose(doc, f, cands)
    for c in cands:
        _pick_value(doc, c, f, vtype)
    valued = [c for c in cands if c.value is not None]
    if f.type == PRESENCE:
        return _choose(doc, f, valued or cands)
    return _choose(doc, f, valued)


# --- fields whose value comes from the document's own grammar ---------------------------------------


def _sentence_of(doc: _Doc, start: int, end: int) -> tuple[int, int]:
    i = doc.index_of(start)
    if i is None:
        return trim_span(doc.text, start, end)
    c = _Candidate(i, [(start, end)], False)
    return _quote(doc, c)


def _parties_cell(doc: _Doc, f: Field) -> Cell:
    ps = find_parties(doc.text)
    if not ps:
        return Cell(f.name, NOT_STATED)
    shown = "; ".join(p.value for p in ps[:4])
    lo, hi = ps[0].start, max(p.end for p in ps[:4])
    qs, qe = _sentence_of(doc, lo, hi)
    quote = (min(qs, lo), max(qe, hi))
    names = [p.value for p in ps[:4]]
    return Cell(
        f.name, STATED, shown, "; ".join(n.casefold() for n in names), "party", quote, (lo, hi), {"names": names}
    )


def _own_date_cell(doc: _Doc, f: Field, title_rx: re.Pattern | None) -> Cell:
    """The date the document gives itself, from the first of these that holds one (see `_own_dates`); failing
    all, the field's signals, and last the date its page furniture carries."""
    found = _own_dates(doc, title_rx)
    if found is None:
        cell = _field_cell(doc, f)
        carried = [v for v in find_values(doc.text, "date") if doc.on_furniture(v)]
        if cell.stated or not carried:
            return cell
        found = carried[0]  # last, the date its pages carry (a filing line's: often the day it was signed)
    return Cell(
        f.name,
        STATED,
        found.norm,
        found.norm,
        "date",
        _sentence_of(doc, found.start, found.end),
        (found.start, found.end),
        dict(found.parts),
    )


def _own_dates(doc: _Doc, title_rx: re.Pattern | None) -> Value | None:
    """The date a document gives itself, the way a reader looks for it:

    1. a date introduced as its own ("dated", "made ... as of", "effective") in a sentence that
       names the document itself ("This Agreement is made as of ...", "THIS LICENSE AGREEMENT dated ...");
    2. where it is signed: the first date after its last "In witness whereof" (or a Korean contract's "증명하기
       위하여"), a full date before one of a lesser precision;
    3. a date introduced as its own in any sentence, then its first full date, then its first date of any
       precision (the whole text is read: an opening of 3,000 characters found fewer agreement dates, and a
       signature block of 2,500 no more, on cuad-dev's expert answers: docs/benchmarks.md, Knobs).

    Dates on the page furniture (a running header or footer, such as the filing line a page of an exhibit
    carries) are no date of the document's. Forms left blank ("this ___ day of ____, 2004") count, at the year
    or month they give."""
    text = doc.text

    def keep(vs: list[Value]) -> list[Value]:
        return [v for v in vs if not doc.on_furniture(v)]

    head = keep(find_values(text, "date"))
    own = [v for v in head if introduced_as_own(text, v.start)]
    for v in own:
        i = doc.index_of(v.start)
        sent = text[doc.sents[i][0] : doc.sents[i][1]] if i is not None else ""
        if _SELF.search(sent) and (title_rx is None or title_rx.search(sent)):
            return v
    witness = list(_WITNESS.finditer(text))
    if witness:
        w = witness[-1].end()
        signed = keep(find_values(text, "date", w))
        if signed:
            return ([v for v in signed if len(v.norm) == 10] or signed)[0]
    full = [v for v in head if len(v.norm) == 10]
    found = own or full or head
    return found[0] if found else None


def _date_cell(doc: _Doc, f: Field, fallback: Cell | None) -> Cell:
    """The date the field's sentences state; failing that, the fallback field's date where the document says
    it takes effect when signed ("effective as of the date first written above")."""
    cell = _field_cell(doc, f)
    if cell.stated or fallback is None or not fallback.stated:
        return cell
    m = _EFFECTIVE_ON_SIGNING.search(doc.text)
    if m is not None:  # "effective as of the date first written above": the sentence that says so
        quote, span = _sentence_of(doc, m.start(), m.end()), (m.start(), m.end())
        display = f"{fallback.display} (the date it was made)"
    else:  # no other date stated: a document takes effect on the date it is made
        quote, span = fallback.quote, fallback.span  # type: ignore[assignment]
        display = f"{fallback.display} (the date it was made; no other is stated)"
    return Cell(f.name, STATED, display, fallback.norm, "date", quote, span, dict(fallback.parts))


def _term_cell(doc: _Doc, f: Field, effective: Cell | None, made: Cell | None) -> Cell:
    """A term (`wikigen.search.values.terms`): "perpetual"; a date it ends on; or a length of time, with the date it
    ends on when the date it runs from is known (the effective date, the date the agreement was made, or a date
    the sentence gives)."""
    starts = {
        "effective": effective if effective is not None and effective.stated else made,
        "made": made if made is not None and made.stated else effective,
    }
    best: tuple[tuple[bool, float, int], Cell] | None = None
    for c in _candidates(doc, f):
        s, e = doc.sents[c.index]
        quote = _quote(doc, c)
        for o in term_options(doc.text, s, e):
            v = o.value
            if o.kind == "perpetual":
                weight = 0.5
                cell = Cell(f.name, STATED, "perpetual", "perpetual", "term", quote, o.span, {"perpetual": True})
            elif o.kind == "date":
                assert v is not None
                weight = 1.0
                cell = Cell(f.name, STATED, v.norm, v.norm, "date", quote, o.span, dict(v.parts))
            else:
                assert v is not None
                weight = 0.8
                parts, display, norm = dict(v.parts), v.display, v.norm
                from_cell = starts.get(o.start)
                begin = str(from_cell.parts.get("iso", "")) if from_cell is not None and from_cell.stated else o.start
                end = add_duration(begin, v) if begin and o.start else None
                if end:
                    weight = 0.9
                    parts.update(end=end, start=begin)
                    display, norm = f"{end} ({v.display} from {begin})", end
                elif o.start_words:
                    parts["start"] = o.start_words
                    display = f"{v.display} {o.start_words}"
                cell = Cell(f.name, STATED, display, norm, "duration", quote, o.span, parts)
            # a term the words state ("for a period of", "until") before one a sentence merely mentions
            key = (o.stated, c.score + weight, -c.index)
            if best is None or key > best[0]:
                best = (key, cell)
    return best[1] if best else Cell(f.name, NOT_STATED)


def _ordered(fields: list[Field]) -> list[Field]:
    """Fields in an order where each comes after the fields it is made from."""
    done: list[Field] = []
    names = {f.name for f in fields}
    pending = list(fields)
    while pending:
        ready = [f for f in pending if all(n not in names or n in {d.name for d in done} for n in f.needs)]
        if not ready:  # a cycle (a schema error): keep the file's order
            ready = pending
        done.extend(ready)
        pending = [f for f in pending if f not in ready]
    return done


_SHIPPED = object()


def extract_values(
    text: str, schema: Schema, *, fields: set[str] | None = None, model: ClauseModel | object | None = _SHIPPED
) -> dict[str, Cell]:
    """Every field of the schema (or only `fields`) in the document: {field name: Cell}. Fields of type
    `figures` come from the build's figure detection, not from here. `model` is the clause model that judges
    the sentences (default: the shipped one; None: the schema's signals alone)."""
    doc = _Doc(text)
    clause_model = ClauseModel.shipped() if model is _SHIPPED else model
    assert clause_model is None or isinstance(clause_model, ClauseModel)
    judge = _Judge(doc, clause_model, schema.kind) if clause_model is not None else None
    out: dict[str, Cell] = {}
    wanted = [f for f in schema.fields if f.type != "figures" and (fields is None or f.name in fields)]
    needed = {n for f in wanted for n in f.needs}
    while True:  # and what those are made from (a term's start falls back to the date the document was made)
        more = {n for f in schema.fields if f.name in needed for n in f.needs} - needed
        if not more:
            break
        needed |= more
    todo = wanted + [f for f in schema.fields if f.name in needed and f not in wanted]
    for f in _ordered(todo):
        if f.type == "party":
            out[f.name] = _parties_cell(doc, f) if f.source == "opening" else _field_cell(doc, f)
        elif f.type == "date" and f.source == "opening":
            out[f.name] = _own_date_cell(doc, f, schema.title_rx)
        elif f.type == "date":
            out[f.name] = _date_cell(doc, f, out.get(f.fallback) if f.fallback else None)
        elif f.type == "term":
            start = schema.field(f.start_from) if f.start_from else None
            made = out.get(start.fallback) if start is not None and start.fallback else None
            out[f.name] = _term_cell(doc, f, out.get(f.start_from) if f.start_from else None, made)
        else:
            out[f.name] = _field_cell(doc, f, judge=judge)
    return {f.name: _qualified(doc, f, out[f.name]) for f in wanted}


def _qualified(doc: _Doc, f: Field, cell: Cell) -> Cell:
    """A stated value said with the first of its field's qualifiers whose phrases its sentence holds (and none
    of whose `not` phrases): "successive 1 year (by mutual agreement, not automatic)"."""
    if not cell.stated or not cell.quote or not f.qualifiers:
        return cell
    said = doc.text[cell.quote[0] : cell.quote[1]]
    for label, rx, nx in f.qualifier_rx:
        if rx is not None and rx.search(said) and (nx is None or not nx.search(said)):
            return replace(cell, display=f"{cell.display} ({label})", parts={**cell.parts, "qualifier": label})
    return cell
