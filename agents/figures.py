"""Figures that recur across documents: a label attached to a value, found in many documents.

A **figure** is a short label that several documents each state with a value of their own: a table
row ("Units shipped    1,240    1,085" in every quarterly report) or a phrase right before an
amount, a percentage or a duration in a sentence ("a cure period of thirty (30) days" in many
contracts). Found by corpus statistics alone, with no list of labels:

* a **row** is a line whose text is a label (a few words, no digits but a footnote marker) followed
  only by numbers, currency signs, percent signs and dashes (columns of a table laid out as text);
* a **phrase** is the one to three content words right before a value mention in a sentence (the
  value: a currency amount, a percentage, or a count of days / weeks / months / years);
* a label is a figure when its normalised key occurs in at least two documents and its values are not
  all the same (a constant line is boilerplate, not a figure).

Figures are ranked by `rank_score`: how many documents state the label, how consistently each
document states one value with it, and how often documents restate it.
Each figure keeps one mention per document (the first: a report's main statement comes before its
notes), and the documents in time order of their own date (`wikigen.search.facts.dates`) where
found, else by doc id. Pure functions of the texts: same corpus, same figures.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from wikigen.agents.headings import find_headings
from wikigen.agents.params import FigureParams
from wikigen.agents.words import STOPWORDS, fold
from wikigen.search.facts.dates import document_date, find_dates
from wikigen.search.facts.parties import find_terms

from wikigen.core.engine import Engine
from wikigen.core.sentences import sentence_span
from wikigen.core.slugs import figure_slug
from wikigen.core.workers import Workers

__all__ = [
    "Figure",
    "FigureParams",
    "Mention",
    "document_mentions",
    "figure_slug",
    "find_figures",
    "generic_labels",
    "named_labels",
    "order_documents",
    "phrase_mentions",
    "qualified",
    "row_mentions",
]

# a value token of a table row: a number with its currency sign, parentheses or percent sign, or one of
# those signs alone (laid out apart from the number), or a dash standing for "none"
_CELL = re.compile(r"[$€£¥₩(]*\d[\d,]*(?:\.\d+)?[)%]*|[$€£¥₩()%]+|[—–-]+")
_TOKEN = re.compile(r"\S+")
_FOOTNOTE = re.compile(r"\s*\((?:\d{1,2}|[a-z])\)\s*$")
_WORD = re.compile(r"[^\W\d_][\w'’.&/-]*")
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_WRITTEN = r"(?:[a-z]+(?:-[a-z]+)?\s+(?=\())?"  # "thirty (30)", "ninety-five (95)": the word before "(digits)"
_UNIT = r"(?:business\s+|calendar\s+|working\s+)?(?:days?|weeks?|months?|years?|hours?)"
_VALUE = re.compile(
    rf"(?:[$€£¥₩]\s?\d[\d,]*(?:\.\d+)?(?:\s+(?:million|billion|thousand))?"
    rf"|\b\d[\d,]*(?:\.\d+)?\s?(?:%|percent\b|per\s+cent\b)"
    rf"|\b{_WRITTEN}\(?\d[\d,]*(?:\.\d+)?\)?\s?(?:{_UNIT})\b"
    rf"|\d[\d,]*(?:\.\d+)?\s?(?:원|달러|퍼센트|개월|영업일|일|주|시간|년))",
    re.I,
)  # Korean: a particle may follow


@dataclass(frozen=True)
class Mention:
    doc_id: str
    key: str  # the normalised label
    label: str  # the label as written
    start: int  # the quoted line or sentence, character offsets into the document
    end: int
    value: str  # the value text (the numbers of a row, the value mention of a sentence)
    kind: str  # "row" | "phrase"
    section: str = ""  # a row's section: the label line it is indented under ("Earnings per share:")


@dataclass
class Figure:
    key: str
    title: str  # the label's most common surface form
    kind: str  # "row" | "phrase"
    mentions: dict[str, Mention] = field(default_factory=dict)  # doc id -> its first mention
    order: list[str] = field(default_factory=list)  # doc ids, in time order where dated
    dates: dict[str, str] = field(default_factory=dict)  # doc id -> its own date (ISO), where found
    aliases: list[str] = field(default_factory=list)

    @property
    def slug(self) -> str:
        return figure_slug(self.key)


def _key(words: list[str]) -> str:
    return " ".join(fold(w.lower().strip(".'’&/-")) for w in words if w.strip(".'’&/-"))


def _split_row(line: str) -> tuple[int, int] | None:
    """(end of the label, start of the values) in a line whose last tokens are all value cells after a
    label that starts with a letter; None for any other line. Linear in the line (no backtracking)."""
    tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(line)]
    i = len(tokens)
    while i > 0 and _CELL.fullmatch(line, *tokens[i - 1]):
        i -= 1
    if i == len(tokens) or i == 0 or not line[tokens[0][0]].isalpha():
        return None
    return tokens[i - 1][1], tokens[i][0]


def row_mentions(doc_id: str, text: str, params: FigureParams = FigureParams()) -> list[Mention]:
    """The table rows of a document: a label followed only by value cells, one line each."""
    out = []
    pos = 0
    lines = text.split("\n")
    recurring = {k for k, n in Counter(" ".join(x.split()) for x in lines if x.strip()).items() if n >= 3}
    parents: list[tuple[int, str]] = []  # (indent, text) of the label lines a row may sit under
    for line in lines:
        at, pos = pos, pos + len(line) + 1
        if len(line) > params.max_line_chars or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        split = _split_row(line)
        if split is None:
            head = _section_line(line, recurring, params)
            if head:
                while parents and parents[-1][0] >= indent:
                    parents.pop()
                parents.append((indent, head))
            continue
        section = next((t for i, t in reversed(parents) if i < indent), "")
        label_end, values_start = split
        values = line[values_start:].strip()
        raw = _FOOTNOTE.sub("", line[:label_end]).strip().rstrip(" \t:.$")
        if not raw or any(c.isdigit() for c in raw) or len(raw) > params.max_label_chars:
            continue
        words = _WORD.findall(raw)
        if not words or len(words) > params.max_label_words or not any(len(w) >= 3 for w in words):
            continue
        cells = _NUMBER.findall(values)
        if not cells or (len(cells) == 1 and re.fullmatch(r"[\d.]+", values)):
            continue  # no number, or one bare page or section number (contents, exhibits)
        if find_dates(line):
            continue  # "June 25, 2022": a date, not a value
        start = at + len(line) - len(line.lstrip())
        out.append(
            Mention(
                doc_id,
                _key(words),
                " ".join(raw.split()),
                start,
                at + len(line.rstrip()),
                " ".join(values.split()),
                "row",
                section,
            )
        )
    return out


def _section_line(line: str, recurring: set[str], params: FigureParams) -> str:
    """A line that may name the rows indented below it ("Earnings per share:", "Investing activities:"): a
    short label with no digit and no value, not a column header or a page header repeated in the document."""
    text = " ".join(line.split()).rstrip(" :")
    words = _WORD.findall(text)
    if not words or len(words) > params.max_label_words or len(text) > params.max_label_chars:
        return ""
    if (
        any(c.isdigit() for c in text)
        or not text[0].isalpha()
        or text[0].islower()
        or text.count("(") != text.count(")")
        or " ".join(line.split()) in recurring
        or re.search(r"\S {2,}\S", line.strip())
    ):
        return ""  # a number, a page header, or a column header laid out in gaps
    return text


_CLAUSE_STOP = re.compile(r"[,;:()\"“”\[\]]|[.!?](?=\s)|\n[ \t]*\n")


def _phrase_label(text: str, lo: int, vstart: int, max_words: int) -> list[str] | None:
    """The content words right before a value (function words between them and the value skipped),
    at most max_words, within its clause and after the previous value; None when fewer than two."""
    before = text[lo:vstart]
    cut = [m.end() for m in _CLAUSE_STOP.finditer(before)]
    words = _WORD.findall(before[cut[-1] :] if cut else before)
    while words and words[-1].lower() in STOPWORDS:
        words.pop()
    picked: list[str] = []
    for w in reversed(words):
        if w.lower() in STOPWORDS or len(picked) >= max_words:
            break
        picked.append(w)
    picked.reverse()
    if len(picked) < 2 or not any(len(w) >= 3 for w in picked):
        return None
    return picked


def phrase_mentions(doc_id: str, text: str, params: FigureParams = FigureParams()) -> list[Mention]:
    """Values in running text, each labelled by the content words right before it (two at least: one
    word alone is too vague to be a figure's name); the span is the value's sentence, found later."""
    out = []
    prev = 0
    for m in _VALUE.finditer(text):
        lo = max(prev, m.start() - 120)
        prev = m.end()
        w0 = max(0, m.start() - 30)
        if any(w0 + d.start < m.end() and w0 + d.end > m.start() for d in find_dates(text[w0 : m.end() + 12])):
            continue  # part of a date ("2023년 3월 1일", "1 year 2023"), not a value
        words = _phrase_label(text, lo, m.start(), params.phrase_words)
        if words is None:
            continue
        out.append(
            Mention(doc_id, _key(words), " ".join(words), m.start(), m.end(), " ".join(m.group(0).split()), "phrase")
        )
    return out


def order_documents(
    texts: Mapping[str, str], doc_ids, known: dict[str, str] | None = None
) -> tuple[list[str], dict[str, str]]:
    """doc ids in time order of each document's own date (undated ones last, by id), and the dates. known: the
    dates already read ({doc id: its date, or "" for none}), filled in here, so that a caller ordering many
    figures reads each document's date once (`document_date` reads the whole text)."""
    known = {} if known is None else known
    for d in doc_ids:
        if d not in known:
            dm = document_date(texts.get(d, ""))
            known[d] = dm.iso if dm is not None else ""
    dates = {d: known[d] for d in doc_ids if known[d]}
    order = sorted(doc_ids, key=lambda d: (d not in dates, dates.get(d, ""), d))
    return order, dates


def document_mentions(doc_id: str, texts: dict[str, str], params: FigureParams) -> tuple[list[Mention], list[Mention]]:
    """One document's table rows and value phrases (the per-document pass, run by worker processes)."""
    return row_mentions(doc_id, texts[doc_id], params), phrase_mentions(doc_id, texts[doc_id], params)


def _collect(
    texts: Mapping[str, str], params: FigureParams, workers: Engine
) -> tuple[dict[str, dict[str, Mention]], dict[str, dict[str, Counter]]]:
    """label key -> doc id -> the document's first mention (a row before a phrase), and label key ->
    doc id -> how often each first number is stated with the label in that document."""
    by_key: dict[str, dict[str, Mention]] = defaultdict(dict)
    values: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    doc_ids = sorted(texts)
    found = dict(zip(doc_ids, workers.map(document_mentions, doc_ids, texts, params)))
    generic = generic_labels(rows for rows, _ in found.values())
    for doc_id, (rows, phrases) in found.items():
        top: dict[str, set[str]] = defaultdict(set)  # a generic label's values under no section
        for r in rows:
            if r.key in generic and not r.section:
                top[r.key].add(_first_number(r.value))
        # a generic label is named by its section; under none it stays only where it states one value
        # ("Net income" atop its statements), not where it closes tables of different values ("Total")
        rows = [qualified(r) if r.key in generic else r for r in rows]
        rows = [r for r in rows if r.key not in generic or len(top[r.key]) == 1]
        row_keys = {r.key for r in rows}
        for m in rows + [p for p in phrases if p.key not in row_keys]:
            by_key[m.key].setdefault(doc_id, m)
            values[m.key][doc_id][_first_number(m.value)] += 1
    return by_key, values


def _numbers(value: str) -> list[str]:
    """The numbers of a row's values, without footnote markers ("(4) $ 4,310" -> ["4,310"])."""
    return [
        m.group()
        for m in _NUMBER.finditer(value)
        if not (len(m.group()) == 1 and value[m.start() - 1 : m.start()] == "(" and value[m.end() : m.end() + 1] == ")")
    ]


def _first_number(value: str) -> str:
    nums = _numbers(value)
    return nums[0] if nums else value


def generic_labels(rows_per_doc) -> set[str]:
    """Row labels that name no figure alone: in most documents that state them, they head rows of
    different values under different sections ("Diluted" under "Earnings per share" and under "Shares
    used in computing earnings per share"; "Total" closing many tables). A label restated with a value
    in common in several sections ("Net income" in two statements) names one figure."""
    docs: Counter = Counter()
    ambiguous: Counter = Counter()
    for rows in rows_per_doc:
        first: dict[str, dict[str, frozenset]] = defaultdict(dict)  # key -> section -> its first row's numbers
        for r in rows:
            first[r.key].setdefault(r.section, frozenset(_numbers(r.value)))
        for key, by_section in first.items():
            docs[key] += 1
            sets = list(by_section.values())  # two sections that share no number: two figures
            ambiguous[key] += any(not (a & b) for i, a in enumerate(sets) for b in sets[i + 1 :])
    return {k for k, n in docs.items() if ambiguous[k] * 2 >= n and ambiguous[k] > 0}


def qualified(m: Mention) -> Mention:
    """A row mention named with its section ("Earnings per share: Diluted"); unchanged without one."""
    if not m.section:
        return m  # a generic label under no section: left for `_collect` to drop
    label = f"{m.section}: {m.label}"
    return Mention(m.doc_id, _key(_WORD.findall(label)), label, m.start, m.end, m.value, m.kind, m.section)


_CAPITALISED = re.compile(r"(?<=[a-z,;] )[A-Z][\w'’-]*(?: (?:of |and |for |to |the )?[A-Z][\w'’-]*){1,4}")


def named_labels(texts: Mapping[str, str], keys: set[str], workers: Engine | None = None) -> set[str]:
    """The phrase labels among `keys` that the corpus names somewhere: as a defined term, a heading, a
    table row or a capitalised name inside a sentence ("Initial Term", "Purchase Price"); a label the
    corpus never names is words that happen to stand before values ("take place", "deemed given").
    A label in a script without capitals (Korean) is taken as named."""
    out = {k for k in keys if not k.isascii()}
    todo = keys - out
    if not todo:
        return out
    workers = workers or Workers(1, 0)
    for found in workers.map(_named_in, list(texts), texts, frozenset(todo)):
        out |= found
        todo -= found
        if not todo:
            break
    return out


def _named_in(doc_id: str, texts: dict[str, str], keys: frozenset[str]) -> set[str]:
    """The keys one document names (the per-document pass of `named_labels`)."""
    text = texts[doc_id]
    names = [m.value for m in find_terms(text)] + [h.label for h in find_headings(text, 4000)]
    names += [m.group() for m in _CAPITALISED.finditer(text)]
    found = {_key(_WORD.findall(n)) for n in names} | {r.key for r in row_mentions(doc_id, text)}
    return set(keys & found)


def rank_score(per_doc: dict[str, Counter]) -> float:
    """How much a label is one figure stated across documents: the documents stating it, times how
    consistently each states one value with it (a label like "Total" heads rows of many values in one
    document), times the log of how often a document states it (a main figure is restated)."""
    n = len(per_doc)
    mentions = sum(sum(c.values()) for c in per_doc.values())
    consistency = sum(c.most_common(1)[0][1] / sum(c.values()) for c in per_doc.values()) / n
    return n * consistency * math.log(1 + mentions / n)


def _quoted(texts: Mapping[str, str], m: Mention, params: FigureParams) -> Mention:
    """A phrase mention widened to its sentence (a row is already its whole line)."""
    if m.kind != "phrase":
        return m
    s, e = sentence_span(texts[m.doc_id], m.start, m.end, params.phrase_chars)
    return Mention(m.doc_id, m.key, m.label, s, e, m.value, m.kind)


def find_figures(
    texts: Mapping[str, str], params: FigureParams = FigureParams(), workers: Engine | None = None
) -> list[Figure]:
    """The labelled figures stated in at least two documents with values that differ, best
    `rank_score` first (then rows before phrases, then the label). workers: the engine that reads the
    documents (`wikigen.core.engine`); the figures are the same with any."""
    workers = workers or Workers(1, 0)
    need = 2  # a figure is a label stated across documents
    figures = []
    by_key, values = _collect(texts, params, workers)
    phrases = {
        k
        for k, per_doc in by_key.items()
        if len(per_doc) >= need and k and Counter(m.kind for m in per_doc.values()).most_common(1)[0][0] == "phrase"
    }
    named = named_labels(texts, phrases, workers)
    own_dates: dict[str, str] = {}  # each document's own date, read once for all its figures
    for key, per_doc in by_key.items():
        if len(per_doc) < need or not key or (key in phrases and key not in named):
            continue
        if len({m.value for m in per_doc.values()}) < 2:
            continue  # the same value everywhere: boilerplate, not a figure
        kinds = Counter(m.kind for m in per_doc.values())
        kind = kinds.most_common(1)[0][0]
        forms = Counter(m.label for m in per_doc.values()).most_common()
        order, dates = order_documents(texts, per_doc, own_dates)
        aliases = [f for f, _ in forms[1:4] if f.lower() != forms[0][0].lower()]
        bare = Counter(
            m.label[len(m.section) + 2 :]
            for m in per_doc.values()
            if m.section and m.label.startswith(m.section + ": ")
        ).most_common(1)
        if bare and bare[0][0] not in aliases:
            aliases.append(bare[0][0])  # a row named by its section is still asked for by its own label
        figures.append(Figure(key, forms[0][0], kind, dict(per_doc), order, dates, aliases=aliases))
    score = {f.key: rank_score(values[f.key]) for f in figures}
    figures.sort(key=lambda f: (-round(score[f.key], 6), f.kind != "row", f.key))
    for f in figures:
        f.mentions = {d: _quoted(texts, m, params) for d, m in f.mentions.items()}
    return figures
