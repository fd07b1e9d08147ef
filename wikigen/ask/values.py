"""Questions the provisions table answers: a question parsed once into a typed query (the field it asks about,
the condition it puts on the value, the kind of answer it wants), answered from the documents' values, each
with the quote that states it.

    q = parse_query("Which contracts are governed by Delaware law?", fields)
    q.field.name, q.condition.op, q.condition.value.norm, q.want   -> "governing_law", "eq", "Delaware", "list"
    TableAnswers(table, fields).answer(q, doc_ids)                 -> TableResult(matches, unknown, ...)

Everything here comes from the table and the schemas, never from the wording of particular questions:

* **the field** is the one whose label or `ask` words (schema) the question holds, the longest match first; when
  no clause's words name one, the field the asking clause means (wikigen.ask.meaning: the sentence encoder's
  similarity to the field's description and example questions), claimed only above a bar and with no other
  field close;
* **the condition**: a presence field is asked for present, or absent when a negation ("no", "not", "without",
  "lack") stands just before its words; a typed field takes the value of its type the question states outside
  the field's own words ("Delaware", "30 days", "$1 million", "perpetual"), compared as a comparison word before
  it says ("more than", "at least", "less than", "within"; equal by default);
* **the answer wanted**: "how many" counts; a superlative ("longest", "earliest", "highest") sorts; a question
  about one document (the wiki's scope) asks for its value; otherwise the matching documents are listed.

Documents whose cell is "not read" are neither counted in nor out: the answer says how many there are. A
"possible" cell (a clause that may state the field is quoted, no value claimed) meets no condition either: the
answer lists such documents apart ("and 2 possible: ..."), each with its clause as a span, never among those that
state the field.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wikigen.ask.meaning import FieldMeanings, Sense
from wikigen.ask.page_index import terms
from wikigen.ask.params import DEFAULT_PARAMS, RetrievalParams
from wikigen.ask.wording import asking_clauses, asks_many, points_at_one
from wikigen.core.text import clip_source, one_line
from wikigen.search.values import Value, compare_key, parse_value
from wikigen.search.values.schema import PRESENCE, Field, Schema, Signals
from wikigen.wiki.provisions import CHECK, NOT_READ, NOT_STATED, POSSIBLE, STATED, Table, mark

__all__ = ["Condition", "TableAnswers", "TableQuery", "TableResult", "parse_query"]

_NEGATION = re.compile(
    r"\b(?:no|not|without|lack(?:s|ing)?|absent|free\s+of|never|none|neither|nor|missing)\b|n't\b|없는|없이|않는", re.I
)
_COUNT = re.compile(r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\b|몇\s*개|몇\s*건|개수", re.I)
_MAX = re.compile(
    r"\b(?:longest|highest|largest|latest|greatest|biggest|most\s+recent|maximum|max)\b|가장\s*(?:긴|큰|높은|늦은)",
    re.I,
)
_MIN = re.compile(
    r"\b(?:shortest|lowest|smallest|earliest|(?<!\bat\s)least|minimum|min)\b|가장\s*(?:짧은|작은|낮은|이른)", re.I
)
_COMPARE = [
    (
        re.compile(
            r"\b(?:more\s+than|over|greater\s+than|exceeding|exceeds?|above|longer\s+than|later\s+than|after)\s*$", re.I
        ),
        "gt",
    ),
    (re.compile(r"\b(?:at\s+least|no\s+less\s+than|not\s+less\s+than|minimum\s+of|or\s+more)\s*$", re.I), "ge"),
    (re.compile(r"\b(?:less\s+than|under|below|shorter\s+than|fewer\s+than|earlier\s+than|before)\s*$", re.I), "lt"),
    (re.compile(r"\b(?:at\s+most|no\s+more\s+than|not\s+more\s+than|up\s+to|within|maximum\s+of)\s*$", re.I), "le"),
    (re.compile(r"(?:초과|이상|넘는)\s*$"), "gt"),
    (re.compile(r"(?:미만|이하)\s*$"), "lt"),
]
_PERPETUAL_ASK = re.compile(
    r"\b(?:perpetu\w*|indefinite\w*|no\s+(?:fixed\s+)?(?:end|expir\w*|term)|never\s+expir\w*|do(?:es)?\s+not\s+expire|"
    r"(?:open|unlimited)[-\s]ended)\b|무기한",
    re.I,
)
NEGATION_WORDS = 5  # a negation this many words before the field's words negates it
ONE_QUOTE = 400  # display: the quote of a one-document answer, cut at a word to about this many characters
LIST_QUOTE = 240  # display: each listed document's quote in a list answer (its span is what is shown)


@dataclass(frozen=True)
class Condition:
    op: str  # present | absent | eq | gt | ge | lt | le
    value: Value | None = None  # the value the question names (None for present / absent)
    words: str = ""  # the question's words for it ("Delaware", "more than 30 days")

    def describe(self) -> str:
        if self.op == "present":
            return "stated"
        if self.op == "absent":
            return "not stated"
        shown = self.value.display if self.value is not None else self.words
        return {"eq": "", "gt": "more than ", "ge": "at least ", "lt": "less than ", "le": "at most "}[self.op] + shown


@dataclass(frozen=True)
class TableQuery:
    question: str
    kind: str
    field: Field
    condition: Condition | None
    want: str  # list | count | max | min | value
    span: tuple[int, int] = (0, 0)  # the field's words in the question
    meaning: float | None = None  # found by meaning (wikigen.ask.meaning): the classifier's probability; None: by words

    def to_dict(self) -> dict:
        """The reading of the question as the table is asked it (`ask --json` shows it)."""
        cond = self.condition
        return {
            "kind": self.kind,
            "field": self.field.name,
            "by": "words" if self.meaning is None else "meaning",
            **({"confidence": round(self.meaning, 3)} if self.meaning is not None else {}),
            "condition": None if cond is None else {"op": cond.op, "value": cond.value.norm if cond.value else None},
            "want": self.want,
        }


@dataclass
class TableResult:
    """The documents (in scope) whose value meets the query's condition, in the order to show them."""

    query: TableQuery
    matches: list[tuple[str, dict]] = field(default_factory=list)  # (doc id, cell)
    unknown: list[str] = field(default_factory=list)  # not read
    possible: list[tuple[str, dict]] = field(default_factory=list)  # (doc id, cell): a clause quoted, no value claimed
    total: int = 0  # documents of the kind in scope

    @property
    def one(self) -> bool:
        return self.query.want == "value"


def _last_words(text: str, n: int) -> str:
    words = re.findall(r"\S+", text)
    return " ".join(words[-n:])


_FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "for",
        "by",
        "on",
        "in",
        "at",
        "is",
        "are",
        "be",
        "with",
        "its",
        "their",
        "this",
        "that",
        "as",
        "or",
        "and",
    ]
)
_QWORD = re.compile(r"[^\W_][\w'’-]*")


def _phrase_words(phrase: str) -> list[str]:
    return [w for w in (x.casefold() for x in _QWORD.findall(phrase.replace("*", ""))) if w not in _FUNCTION_WORDS]


@functools.lru_cache(maxsize=4096)
def _stem(word: str) -> str:
    """A word's stem as the index analyses it ('' for none), each part of a hyphenated word ("non-transferable":
    "non transfer", not the "non" of "non-compete"); asked for every question word against every field's words,
    so remembered."""
    return " ".join(terms(word, stopwords=False))


def _same_word(q: str, w: str, starred: bool) -> bool:
    """A question's word and a schema word: the same, or the same stem ("terminated" / "termination",
    "governed" / "governing", "laws" / "law"); a starred schema word matches any ending; a word of an uncased
    script (Korean) matches inside the question's word, particles attached."""
    if q == w or (starred and q.startswith(w)):
        return True
    if not w.isascii():
        return w in q
    if q.rstrip("s") == w.rstrip("s"):
        return True
    stems = [t for t in (_stem(q), _stem(w)) if t]
    if len(stems) == 2 and stems[0] == stems[1]:
        return True
    n = 0
    while n < min(len(q), len(w)) and q[n] == w[n]:
        n += 1
    if min(len(q), len(w)) < 5 or n < max(5, min(len(q), len(w)) - 3):
        return False
    # the shared beginning covers a whole stem: "competition" / "compete" ("compet"), not "transportation" /
    # "transfer" ("trans", where "transfer" and "transport" part)
    return len(stems) == 2 and n >= min(len(t) for t in stems)


def _field_match(question: str, fields: Sequence[tuple[str, Field]]) -> tuple[str, Field, list[tuple[int, int]]] | None:
    """The field whose label or `ask` phrase the question holds best: every content word of the phrase among the
    question's words, in any order and with words between ("notice period to stop renewal" holds "notice to
    stop renewal"); the phrase with the most content words wins, then one whose words stand together, then the
    one that starts first (a modifier comes first: "expiration date of this agreement"), then the longer phrase,
    then the earlier field.
    A word ending in "*" in the schema matches any ending; a Korean phrase matches inside a word."""
    words = [(m.group().casefold(), m.start(), m.end()) for m in _QWORD.finditer(question)]
    best: tuple[int, bool, int, int, int, str, Field, list[tuple[int, int]]] | None = None
    for order, (kind, f) in enumerate(fields):
        for phrase in (f.label, *f.ask):
            stems = [(w, w) for w in _phrase_words(phrase)]
            if not stems:
                continue
            starred = {w for w in _phrase_words(phrase) if w + "*" in phrase.casefold()}
            spots = []
            for w, _ in stems:
                hit = next(((a, b) for q, a, b in words if _same_word(q, w, w in starred)), None)
                if hit is None:
                    break
                spots.append(hit)
            else:
                said = sum(1 for w, _ in stems if not _NEGATION.fullmatch(w))  # "no cap": "no" is the condition's
                key = (said, _together(question, spots), -min(a for a, _ in spots), len(phrase), -order)
                if best is None or key > best[:5]:
                    best = (*key, kind, f, spots)
    return (best[5], best[6], best[7]) if best else None


def _together(question: str, spots: list[tuple[int, int]]) -> bool:
    """Whether a phrase's words stand in the question in their order with at most function words between them
    ("expiration date" in "the expiration date of this agreement", unlike "agreement date")."""
    return all(
        a1 <= b0 and all(w.casefold() in _FUNCTION_WORDS for w in _QWORD.findall(question[a1:b0]))
        for (_, a1), (b0, _) in itertools.pairwise(spots)
    )


_ORDERED = frozenset({"duration", "money", "percentage", "date", "term"})  # the types a bound compares


def _condition(question: str, f: Field, spots: list[tuple[int, int]]) -> Condition | None:
    span = (min(a for a, _ in spots), max(b for _, b in spots))
    before = question[: span[0]]
    vtype = f.value_type
    if f.type == "term" and _PERPETUAL_ASK.search(question):
        return Condition("eq", Value("term", "perpetual", "perpetual", 0, 0, {"perpetual": True}), "perpetual")
    if vtype is not None:
        rest = question
        for a, b in spots:  # the field's own words are no value ("30 days" is; "notice" is not)
            rest = rest[:a] + " " * (b - a) + rest[b:]
        ptype = "date" if vtype == "term" else vtype
        v = parse_value(rest, ptype)
        if v is None:  # a value that needs the field's word to be read ("English law"), outside the field's words
            v = parse_value(question, ptype)
            if v is not None and any(a <= v.start and v.end <= b for a, b in spots):
                v = None
        if v is not None and v.type == "party" and all(w.casefold() in _ASKING_WORDS for w in _QWORD.findall(v.norm)):
            v = None  # "Who" opening a question names no party
        if v is not None and v.type not in _ORDERED:  # "under California law" names a law, not a bound
            return Condition("eq", v, rest[v.start : v.end])
        if v is not None:
            op = "eq"
            lead = rest[max(0, v.start - 30) : v.start]
            for rx, name in _COMPARE:
                if rx.search(lead):
                    op = name
                    break
            if re.match(r"\s*(?:or\s+more|or\s+longer|or\s+above|이상)", rest[v.end : v.end + 15], re.I):
                op = "ge"
            elif re.match(r"\s*(?:or\s+less|or\s+fewer|or\s+shorter|이하)", rest[v.end : v.end + 15], re.I):
                op = "le"
            return Condition(op, v, rest[v.start : v.end])
    if _NEGATION.search(_last_words(before, NEGATION_WORDS)) or _NEGATION.search(question[span[1] : span[1] + 20]):
        return Condition("absent")
    return Condition("present") if f.type == PRESENCE else None


def _want(question: str, one_document: bool) -> str:
    if one_document:
        return "value"
    if _COUNT.search(question):
        return "count"
    if _MAX.search(question):
        return "max"
    if _MIN.search(question):
        return "min"
    return "list"


# words of asking, not of what is asked: they count neither for nor against a field
_ASKING_WORDS = _FUNCTION_WORDS | frozenset(
    [
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "how",
        "many",
        "much",
        "does",
        "do",
        "did",
        "is",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "any",
        "there",
        "list",
        "all",
        "every",
        "each",
        "our",
        "my",
        "we",
        "me",
        "you",
        "your",
        "i",
        "name",
        "show",
        "give",
        "tell",
        "can",
        "could",
        "would",
        "please",
        "find",
        "mention",
        "mentions",
        "say",
        "says",
        "state",
        "states",
        "contain",
        "contains",
        "include",
        "includes",
        "provide",
        "provides",
        "specify",
        "specifies",
        "document",
        "documents",
    ]
)
# the same in Korean, where particles attach to a word's end: a word that starts with one of these (a single
# syllable only as a whole word: 각 "each", 몇 "how many")
_KOREAN_ASKING = (
    "어떤",
    "어느",
    "무엇",
    "무슨",
    "누가",
    "누구",
    "언제",
    "어디",
    "얼마",
    "모든",
    "전부",
    "모두",
    "목록",
    "나열",
    "알려",
    "보여",
    "찾아",
    "각",
    "몇",
)


def _asking_word(w: str) -> bool:
    """Whether a question's (casefolded) word is a word of asking (_ASKING_WORDS, _KOREAN_ASKING)."""
    return w in _ASKING_WORDS or any(w == k or (len(k) > 1 and w.startswith(k)) for k in _KOREAN_ASKING)


def _asks_about(
    text: str,
    spots: list[tuple[int, int]],
    cond: Condition | None,
    schema: Schema,
    asked_share: float,
    named: frozenset[str] = frozenset(),
) -> bool:
    """Whether the asking clause is about the field: its words and the value the question names cover at least
    asked_share (RetrievalParams) of the clause's content words (words of asking, the kind's own name, "contracts",
    and the words that named the documents asked about, `named`: "the services agreement with Ability", left out).
    A question that merely holds a field's word among many others asks something the table does not hold."""
    generic = set(_phrase_words(f"{schema.kind} {schema.label}".replace("-", " ")))
    words = [
        (m.start(), m.end())
        for m in _QWORD.finditer(text)
        if not _asking_word(w := m.group().casefold())
        and not any(_same_word(w, g, False) for g in generic)
        and not (named and (ts := terms(w)) and set(ts) <= named)
    ]
    if not words:
        return True
    covered = list(spots)
    if cond is not None and cond.value is not None:
        said = _PERPETUAL_ASK.search(text) if cond.words == "perpetual" else None
        at = text.find(cond.words) if cond.words else -1
        if said:
            covered.append(said.span())
        elif at >= 0:
            covered.append((at, at + len(cond.words)))
    # a word the field's words or the value touch counts: a Korean word carries its particle ("1년인" holds "1년")
    inside = sum(1 for a, b in words if any(x < b and a < y for x, y in covered))
    return inside >= asked_share * len(words)


def _names_kind_plural(question: str, schemas: Sequence[Schema]) -> bool:
    """Whether the question names documents of a kind in the plural, by a schema's own title word ("show me the
    agreements under NY law", "our leases"): it asks about many of them."""
    words = {w.casefold() for w in _QWORD.findall(question)}
    return any(
        f"{t}s" in words or f"{t}es" in words
        for s in schemas
        for t in (w.casefold() for w in s.title_words)
        if t.isascii() and " " not in t
    )


def parse_query(
    question: str,
    schemas: Mapping[str, Schema],
    kinds: Sequence[str],
    *,
    one_document: bool = False,
    many: bool = False,
    asked_share: float = DEFAULT_PARAMS.asked_share,
    named: frozenset[str] = frozenset(),
    by_meaning: Callable[[str], Sense | None] | None = None,
) -> TableQuery | None:
    """The question as a query of the provisions table (fields of the given kinds), or None when no clause of it asks
    about a field, or it asks neither of one document (the wiki scoped it to one: one_document) nor of many (many,
    or its words: wikigen.ask.wording.asks_many). The clause that asks is the last one that names a field and is
    about it (`asking_clauses`: a closing "Please list them." or "Thanks!" asks nothing of its own); when no clause's
    words name one, the first clause that `by_meaning` reads as asking for a field (wikigen.ask.meaning)."""
    kinds_named = _names_kind_plural(question, [schemas[k] for k in kinds if k in schemas])
    many = many or asks_many(question) or (kinds_named and not points_at_one(question))  # "this contract": one
    if not one_document and not many:
        return None  # "this contract" with no document found: not the table's to answer
    fields = [(k, f) for k in kinds if k in schemas for f in schemas[k].fields if f.type != "figures"]
    clauses = asking_clauses(question)
    for text in clauses:
        found = _field_match(text, fields)
        if found is None:
            continue
        kind, f, spots = found
        cond = _condition(text, f, spots)
        if not _asks_about(text, spots, cond, schemas[kind], asked_share, named):
            continue  # the field's words are a small part of what is asked ("the Receiving Party shall not ...")
        span = (min(a for a, _ in spots), max(b for _, b in spots))  # in the asking clause
        return TableQuery(question, kind, f, cond, _shape(text, f, one_document), span)
    if by_meaning is None:
        return None
    title_words = {w.casefold() for k in kinds if k in schemas for w in schemas[k].title_words}
    for text in clauses:
        sense = by_meaning(_without_names(text, named, title_words))
        if sense is None or sense.kind not in kinds or sense.field.type == "figures":
            continue
        f = sense.field
        if _NEGATION.search(_WITHOUT.sub(" ", text)):
            return None  # "which contracts can't we leave early?": which way it asks is not read; passages answer
        want = _shape(text, f, one_document)
        if want != "value" and f.type != PRESENCE:
            # across documents a value field is asked with a condition ("run for three years", "under a US
            # state's law", "send disputes to arbitration") that, without the field's words, is not placed
            return None
        cond = Condition("present") if f.type == PRESENCE else None
        return TableQuery(question, sense.kind, f, cond, want, (0, 0), sense.confidence)
    return None


# "without" names what a field is ("terminate without cause", "assign without consent") more often than it
# turns a question around: a clause matched by meaning is read as negated by the other negations only
_WITHOUT = re.compile(r"\bwithout\b", re.I)


def _without_names(text: str, named: frozenset[str], keep: set[str]) -> str:
    """The clause without the words that named its documents ("When does our reseller agreement with Detto end"
    -> "When does our agreement with end"), a kind's own word kept: what it asks, whoever it asks it of."""
    if not named:
        return text
    out, at = [], 0
    for m in _QWORD.finditer(text):
        w = m.group()
        if w.casefold() not in keep and (ts := terms(w)) and set(ts) <= named:
            out.append(text[at : m.start()].rstrip(" "))
            at = m.end()
    return ("".join(out) + text[at:]).strip() or text


def _shape(text: str, f: Field, one_document: bool) -> str:
    """The answer the clause wants of a field: its value (one document), a count, a sorted list or a list."""
    want = _want(text, one_document)
    return "list" if want in ("max", "min") and f.value_type is None else want  # a yes/no field sorts by nothing


# --- answering from the table ---------------------------------------------------------------------


def _value_of(cell: Mapping) -> Value | None:
    if cell.get("status") != STATED or not cell.get("norm"):
        return None
    span = cell.get("span") or [0, 0]
    return Value(
        str(cell.get("type", "")),
        str(cell["norm"]),
        str(cell.get("display", "")),
        int(span[0]),
        int(span[1]),
        dict(cell.get("parts") or {}),
    )


def _same_currency(a: Value, b: Value) -> bool:
    return a.type != "money" or a.parts.get("currency") == b.parts.get("currency")


def _codes(v: Value) -> set[str]:
    """The ISO codes a jurisdiction value covers ("GB-ENG+WLS" covers GB-ENG and GB-WLS); none for a value read
    before values carried their code."""
    return {c for c in str((v.parts or {}).get("code") or "").split("+") if c}


def meets(cell: Mapping, cond: Condition | None) -> bool | None:
    """Whether a cell meets the condition; None when the cell was not read (unknown)."""
    status = cell.get("status")
    if status == NOT_READ or status is None:
        return None
    if cond is None or cond.op == "present":
        return status == STATED
    if cond.op == "absent":
        return status == NOT_STATED
    mine, want = _value_of(cell), cond.value
    if mine is None or want is None:
        return False
    if cond.op == "eq":
        if want.type == "term" or mine.norm == "perpetual":
            return mine.norm == want.norm
        if want.type == "jurisdiction":
            if _codes(mine) & _codes(want):  # one jurisdiction: "England" is part of "England and Wales"
                return True
            if any(c.startswith(f"{w}-") for c in _codes(mine) for w in _codes(want)):
                return True  # a province's or state's law is its country's ("Canadian law": Ontario, "CA-ON")
            said = f"{mine.display} {mine.norm}".casefold()
            return re.search(rf"(?<!\w){re.escape(want.norm.casefold())}(?!\w)", said) is not None
        if want.type == "date":
            return mine.norm[: len(want.norm)] == want.norm
        a, b = compare_key(mine), compare_key(want)
        if isinstance(a, float) and isinstance(b, float):
            return _same_currency(mine, want) and abs(a - b) <= 0.02 * max(abs(b), 1e-9)
        return mine.norm.casefold() == want.norm.casefold()
    a, b = compare_key(mine), compare_key(want)
    if a is None or b is None or type(a) is not type(b) or not _same_currency(mine, want):
        return False
    return {"gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b}[cond.op]  # type: ignore[operator]


def _schema_of(kind: str, spec: Mapping, schema: Schema | None) -> Schema:
    """The fields of a kind the table holds: its schema's, plus those the build made from the corpus (a periodic
    report's figures, the recurring headings of documents of no known kind), which are named by their labels
    and hold no value to compare (yes/no, or a figure's line)."""
    known = {f.name: f for f in schema.fields} if schema is not None else {}
    fields = tuple(
        known.get(f["name"])
        or Field(
            f["name"],
            f["label"],
            PRESENCE,
            str(f.get("group") or "main"),
            Signals(headings=(f["label"],)),
            ask=(f["label"],),
        )
        for f in spec.get("fields") or []
    )
    title_words = schema.title_words if schema is not None else ()
    return Schema(
        kind, str(spec.get("label") or kind), title_words, fields, schema.source if schema else "the provisions table"
    )


class TableAnswers:
    """Answers from one wiki's provisions table."""

    def __init__(
        self,
        table: Table,
        schemas: Mapping[str, Schema],
        params: RetrievalParams = DEFAULT_PARAMS,
        *,
        dense=None,
        negatives: Sequence[str] = (),
        cache_dir: Path | None = None,
    ):
        """dense: a DenseSearcher (wikigen.search.dense): its encoder matches a question to a field by meaning,
        with `negatives` (questions no field answers: schema.no_field_questions); the model is kept in cache_dir."""
        self.table = table
        self.params = params
        self.schemas = {k: _schema_of(k, spec, schemas.get(k)) for k, spec in table.kinds.items()}
        self.kinds = [k for k in table.kinds if table.rows(k)]
        fields = [(k, f) for k in self.kinds for f in self.schemas[k].fields]
        self.meanings = (
            FieldMeanings(fields, dense.encoder, dense.query_vector, negatives, cache_dir)
            if dense is not None
            else None
        )

    def by_meaning(self, text: str) -> Sense | None:
        """The field a clause asks for by meaning (wikigen.ask.meaning), at the params' bars; None without vectors."""
        if self.meanings is None:
            return None
        return self.meanings.match(text, self.params.field_confidence)

    def parse(
        self, question: str, *, one_document: bool = False, many: bool = False, named: frozenset[str] = frozenset()
    ) -> TableQuery | None:
        """The question as a table query (`parse_query`); `named`: the terms that named the scope's documents."""
        if not self.kinds:
            return None
        return parse_query(
            question,
            self.schemas,
            self.kinds,
            one_document=one_document,
            many=many,
            asked_share=self.params.asked_share,
            named=named,
            by_meaning=self.by_meaning,
        )

    def names_kind(self, phrase: Sequence[str], kind: str) -> bool:
        """Whether a collection phrase the question used ("contracts") is the kind's own name: the question then
        ranges over every document of the kind (`documents_of`), not over the collection page's members (a folder
        of contracts beside a folder of Korean ones); the reading's scope says so (Answerer.read)."""
        schema = self.schemas.get(kind)
        own = set(terms(f"{kind} {schema.label if schema else ''}".replace("-", " ")))
        return bool(phrase) and set(phrase) <= own

    def documents_of(self, kind: str) -> list[str]:
        """The documents the table reads as of a kind, in its order."""
        return [d for d, _ in self.table.rows(kind)]

    def answer(self, q: TableQuery, doc_ids: Sequence[str] | None = None) -> TableResult:
        """The documents of the query's kind (within doc_ids, when the wiki scoped the question) that meet it."""
        scope = set(doc_ids) if doc_ids else None
        out = TableResult(q)
        rows = [(d, r) for d, r in self.table.rows(q.kind) if scope is None or d in scope]
        out.total = len(rows)
        for doc_id, row in rows:
            cell = (row.get("cells") or {}).get(q.field.name) or {"status": NOT_READ}
            if cell.get("status") == POSSIBLE:  # meets no condition: shown apart, with its clause, where it may matter
                if cell.get("quote") and q.want not in ("max", "min"):
                    out.possible.append((doc_id, cell))
                continue
            if q.want == "value":
                if cell.get("status") == STATED:
                    out.matches.append((doc_id, cell))
                elif cell.get("status") != NOT_STATED:
                    out.unknown.append(doc_id)
                continue
            ok = meets(cell, q.condition if q.want not in ("max", "min") else None)
            if ok is None:
                out.unknown.append(doc_id)
            elif ok:
                out.matches.append((doc_id, cell))
        if q.want in ("max", "min"):
            keyed = [(compare_key(v), d, c) for d, c in out.matches if (v := _value_of(c)) is not None]
            keyed = [k for k in keyed if k[0] is not None]
            kinds = {type(k[0]) for k in keyed}
            if len(kinds) == 1:
                keyed.sort(key=lambda k: k[0], reverse=q.want == "max")  # type: ignore[arg-type,return-value]
                out.matches = [(d, c) for _, d, c in keyed]
        return out

    def title(self, doc_id: str) -> str:
        return one_line(str((self.table.documents.get(doc_id) or {}).get("title") or doc_id), 80)

    def kind_label(self, kind: str) -> str:
        return str((self.table.kinds.get(kind) or {}).get("label") or kind).lower()

    def text(self, r: TableResult, *, shown: int = 40) -> str:
        """The answer's words: how many, then one line per document with its value and quote."""
        q, label = r.query, r.query.field.label
        docs = self.kind_label(q.kind)
        lines = []
        if q.want == "value":
            if not r.matches and not r.possible:
                return ""
            doc_id, cell = (r.matches or r.possible)[0]
            said = (cell.get("display") or "Yes") if r.matches else f"{mark(POSSIBLE)}, no value claimed ({CHECK})"
            lines.append(f"{label}: {said}.")
            quote, s, e = self.quoted(cell, self._limit(r, possible=not r.matches))
            lines.append(f'"{quote}" ({doc_id}, chars {s}-{e})')
            return "\n".join(lines)
        cond = q.condition.describe() if q.condition is not None and q.want not in ("max", "min") else "stated"
        what = f"{label}: {cond}" if cond else label
        n = len(r.matches)
        if q.want in ("max", "min") and r.matches:
            first = r.matches[0][1]
            word = "longest or highest" if q.want == "max" else "shortest or lowest"
            lines.append(
                f"The {word} {label.lower()} among {r.total} {docs}: {first.get('display')} ({self.title(r.matches[0][0])})."
            )
        elif n == 0:
            lines.append(f"No document of the {r.total} {docs} in scope has {what}.")
        else:
            lines.append(f"{n} of {r.total} {docs} have {what}.")
        if r.unknown:
            lines.append(f"The table does not have this field for {len(r.unknown)} of them (not read).")
        for doc_id, cell in r.matches[:shown]:
            if not cell.get("quote"):  # a document that does not state the field: nothing to quote
                lines.append(f"- {self.title(doc_id)} ({doc_id}): not stated")
                continue
            quote, s, e = self.quoted(cell, self._limit(r))
            lines.append(
                f'- {self.title(doc_id)}: {cell.get("display") or "Yes"} — "{quote}" ({doc_id}, chars {s}-{e})'
            )
        if n > shown:
            lines.append(f"... and {n - shown} more (`wikigen table` lists them all).")
        if r.possible:  # apart, never among the documents that state it: a clause quoted, no value claimed
            titles = "; ".join(self.title(d) for d, _ in r.possible[:shown])
            more = f"; and {len(r.possible) - shown} more" if len(r.possible) > shown else ""
            lines.append(
                f"And {len(r.possible)} {mark(POSSIBLE)} (a clause that may state it, {CHECK}): {titles}{more}."
            )
            for doc_id, cell in r.possible[:shown]:
                quote, s, e = self.quoted(cell, self._limit(r, possible=True))
                lines.append(f'- {self.title(doc_id)}: {mark(POSSIBLE)} — "{quote}" ({doc_id}, chars {s}-{e})')
        return "\n".join(lines)

    @staticmethod
    def _limit(r: TableResult, *, possible: bool = False) -> int | None:
        """How long a quote of the answer is: a possible document's clause whole (it is what to check), one
        document's stated value ONE_QUOTE, a listed document's LIST_QUOTE. `text` and `spans` both ask here."""
        return None if possible else ONE_QUOTE if r.one else LIST_QUOTE

    @staticmethod
    def quoted(cell: dict, limit: int | None) -> tuple[str, int, int]:
        """The quote an answer shows of a cell (on one line, cut at words within `limit` characters, around where
        the value is stated) and the span of the document's text it shows: a span is the text the answer
        quotes, never more."""
        start = int(cell["quote"][0])
        value = cell.get("span")  # where the value is stated: the quote shows it
        focus = (int(value[0]) - start, int(value[1]) - start) if value else None
        line, a, b = clip_source(str(cell.get("text", "")), limit, focus)
        return line, start + a, start + b

    @classmethod
    def spans(cls, r: TableResult, *, shown: int = 40) -> list[dict]:
        """The answer's spans: each listed document's quote, then each possible document's clause, each the
        text `text` shows of it."""
        if r.one:
            listed = [(d, c, not r.matches) for d, c in (r.matches or r.possible)[:1]]
        else:
            listed = [(d, c, False) for d, c in r.matches[:shown]] + [(d, c, True) for d, c in r.possible[:shown]]
        out = []
        for d, c, possible in listed:
            if c.get("quote"):
                _, s, e = cls.quoted(c, cls._limit(r, possible=possible))
                out.append({"doc_id": d, "start": s, "end": e})
        return out
