"""The documents table: one row per document of the corpus, what a reviewer reads first.

    rows = document_rows(pages, sources)
    rows[0].label    -> "CO-BRANDING AGREEMENT (I-Escrow, Inc.; 2TheMart.com, Inc.; 1999-06-21)"
    rows[0].parties  -> Cell("I-ESCROW, INC.; 2THEMART.COM, INC.", start, end)
    rows[0].facts    -> [Cell("2 years", 812, 960, label="Term"), ...]   the key facts its page states
    rows[0].extra    -> {}                                              further columns, by name

Every value is a `Cell`: the value and the character span of the document's text that states it, so a
surface can link it to its source. Nothing is invented: a value is either stated on the document's page
(a key fact heading over its verified quote, `facts`) or found in the document's opening by the same
detectors the build's fact sheets use (`wikigen.search.facts`: parties, the document's own date). Its
kind is the title of the most specific collection page that lists it, else the kind its title names.
Where nothing says, the cell is None.

This is the one place the web view's home table, the export's MEMORY.md lines and MCP read documents
from: a further column is added to `extra` here, and every surface shows it. The provisions table's values
(`wikigen.wiki.provisions`, given as `table`) are such columns: each stated value of the document's kind, by
its field's label, in the kind's field order (the order its schema lists the provisions a reviewer looks for
first), with the span of its quote; `columns(rows)` orders them for a table, the fullest first. A possible cell
(a clause that may state the field is quoted, no value claimed) is such a column too, its value the table's mark
("possible") and `possible` set: it links its clause, and is never said as a value (`DocumentRow.values`). Left
out: a party field (the Parties column shows them) and a column that only repeats the Date column.

`label` is a title that tells same-titled documents apart: the title alone when it is unique, else the
title with the parties and the date (and the doc id when even those are the same).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from wikigen.search.facts.dates import document_date
from wikigen.search.facts.parties import find_parties
from wikigen.search.facts.sheet import kind_of
from wikigen.search.facts.title import self_noun

from wikigen.core.errors import PageError
from wikigen.core.text import one_line
from wikigen.wiki.page import Page
from wikigen.wiki.provisions import POSSIBLE, STATED, Table, mark, records
from wikigen.wiki.secrets import find_secrets

__all__ = ["Cell", "DocumentRow", "columns", "document_rows", "page_facts", "provision_cells"]

NAME_CHARS = 40  # a party's name in a label
VALUE_CHARS = 40  # a provision's value in a cell (its quote, a click away, holds it whole)
SHORT_VALUE = 24  # a longer value shows its canonical form ("2026-03-01" for "2026-03-01 (3 years from ...)")
FACTS_HEADING = "## Key facts"
_FACT_START = re.compile(r"(?:^|;\s+)(?P<label>[^\W\d_][\w .'/-]{0,40}?):\s+")  # "Effective date: ..."
_ALIAS = re.compile(r"\s*\(\u201c[^\u201d]*\u201d\)")  # a party's alias: ACME INC (“Acme”)


@dataclass(frozen=True)
class Cell:
    """A value and the span of the document's text that states it (None when not known)."""

    value: str
    start: int | None = None
    end: int | None = None
    label: str = ""  # what the value is ("Effective date"), for cells listed without a column
    possible: bool = False  # a clause that may state it, no value claimed (value: the table's mark)

    def to_dict(self) -> dict:
        d: dict = {"value": self.value}
        if self.label:
            d["label"] = self.label
        if self.possible:
            d["possible"] = True
        if self.start is not None:
            d["start"], d["end"] = self.start, self.end
        return d


@dataclass
class DocumentRow:
    doc_id: str
    slug: str | None  # its document page, None when the wiki has none
    title: str
    label: str  # the title, told apart from same-titled documents' (see the module docstring)
    parties: Cell | None = None
    date: Cell | None = None
    kind: str = ""  # its most specific collection's title, else the kind its title names
    collections: list[str] = field(default_factory=list)  # slugs of the collection pages that list it, smallest first
    facts: list[Cell] = field(default_factory=list)  # the key facts its page states, in the page's order
    extra: dict[str, Cell] = field(default_factory=dict)  # further columns by name
    stale: str = ""  # why its values may be old: its corpus file changed since indexing (Table.stale)

    @property
    def names(self) -> list[str]:
        """The parties' names without their aliases."""
        if self.parties is None:
            return []
        return [_ALIAS.sub("", p).strip() for p in self.parties.value.split("; ") if p.strip()]

    def values(self, n: int = 3) -> list[Cell]:
        """The values a reader most needs after title, parties and date: the extra columns first, then the
        page's key facts on something else (not the title, the parties or an extra column's field); a value
        already said (the date, an effective date equal to the agreement date) is not said again, though a
        bare "Yes" (a provision the document has) may be said of several; a possible cell claims no value."""
        labels = {"title", "parties", *(k.casefold() for k in self.extra)}
        said = {self.date.value} if self.date is not None else set()
        out: list[Cell] = []
        for c in [*self.extra.values(), *(f for f in self.facts if f.label.casefold() not in labels)]:
            if c.value in said or c.possible:
                continue
            out.append(c)
            if c.value.casefold() != "yes":
                said.add(c.value)
        return out[:n]

    def to_dict(self) -> dict:
        return {
            "doc_id": self.doc_id,
            "slug": self.slug,
            "title": self.title,
            "label": self.label,
            "parties": self.parties.to_dict() if self.parties else None,
            "date": self.date.to_dict() if self.date else None,
            "kind": self.kind,
            "collections": self.collections,
            "facts": [f.to_dict() for f in self.facts],
            "extra": {k: c.to_dict() for k, c in self.extra.items()},
            **({"stale": self.stale} if self.stale else {}),
        }


def page_facts(page: Page) -> list[Cell]:
    """The key facts a document page states: each heading under "## Key facts" ("### Effective date:
    2023-03-01", several joined by "; ") with the span of the quote under it. A heading without a quote
    under it states nothing checkable and is left out."""
    lines = page.body.split("\n")
    try:
        blocks = page.quote_blocks()
    except PageError:
        return []
    try:
        at = lines.index(FACTS_HEADING)
    except ValueError:
        return []
    out: list[Cell] = []
    i = at + 1
    while i < len(lines) and not (lines[i].startswith("## ") or lines[i].startswith("# ")):
        line = lines[i]
        if line.startswith("### "):
            quote = next((b.quote for b in blocks if b.header_line > i), None)
            nxt = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("#")), len(lines))
            if quote is not None and quote.doc_id == page.quote_doc and _line_of(blocks, quote) < nxt:
                out += [Cell(v, quote.start, quote.end, label) for label, v in _split_facts(line[4:])]
        i += 1
    return out


def _line_of(blocks, quote) -> int:
    return next(b.header_line for b in blocks if b.quote is quote)


def _split_facts(heading: str) -> list[tuple[str, str]]:
    """ "Parties: A (“X”); B; Effective date: 2023-03-01" -> [("Parties", "A (“X”); B"), ("Effective date", ...)]:
    a fact starts where a "Label: " does (a party's name holds no colon after a semicolon)."""
    heading = re.sub(r"\[\[(?:[^\]|]*\|)?([^\]]*)\]\]", r"\1", heading).strip()
    starts = list(_FACT_START.finditer(heading))
    out = []
    for k, m in enumerate(starts):
        end = starts[k + 1].start() if k + 1 < len(starts) else len(heading)
        value = heading[m.end() : end].strip()
        if value:
            out.append((m.group("label").strip(), value))
    return out


def provision_cells(table: Table, value_chars: int | None = VALUE_CHARS) -> dict[str, dict[str, Cell]]:
    """doc id -> {field label: Cell} of every value the provisions table states for the document, in its kind's
    field order, each with its quote's span, and of every possible cell (its clause's span, `possible` set); a
    party field is left out (the documents table has its column).
    value_chars: a value longer than this is cut to it (a cell's width); None keeps each value whole."""
    out: dict[str, dict[str, Cell]] = {}
    for rec in records(table):
        cells: dict[str, Cell] = {}
        for f in table.fields(rec["kind"]):
            entry = rec.get(f["name"]) or {}
            quote = entry.get("quote") or {}
            label = str(f.get("label") or f["name"])
            if f.get("type") in ("party", "figures"):
                continue
            if entry.get("status") == POSSIBLE and quote:  # its clause, a click away; no value claimed
                cells[label] = Cell(mark(POSSIBLE), quote.get("start"), quote.get("end"), label, possible=True)
                continue
            if entry.get("status") != STATED:
                continue
            value = str(entry.get("value") or "Yes")
            if len(value) > SHORT_VALUE and entry.get("norm"):
                value = str(entry["norm"])
            cells[label] = Cell(one_line(value, value_chars), quote.get("start"), quote.get("end"), label)
        out[rec["doc_id"]] = cells
    return out


def _drop_date_copies(rows: list[DocumentRow]) -> None:
    """Leave out an extra column whose every value is its row's date: it would only repeat the Date column."""
    for name in columns(rows):
        cells = [(r, r.extra[name]) for r in rows if name in r.extra]
        stated = [(r, c) for r, c in cells if not c.possible]  # a possible cell says no date
        if stated and all(r.date is not None and c.value == r.date.value for r, c in stated):
            for r, _ in cells:
                del r.extra[name]


def columns(rows: Iterable[DocumentRow]) -> list[str]:
    """The extra columns of the rows, the one most rows fill first (a table's fullest columns tell the most
    at a glance), then in their kinds' field order."""
    filled: dict[str, int] = {}
    place: dict[str, int] = {}
    for r in rows:
        for j, name in enumerate(r.extra):
            filled[name] = filled.get(name, 0) + 1
            place[name] = min(place.get(name, j), j)
    return sorted(filled, key=lambda n: (-filled[n], place[n], n))


def _row_facts(text: str) -> tuple[Cell | None, Cell | None, str]:
    """(parties, date, the noun the document calls itself): the parties its opening names (`find_parties`), its
    own date (`document_date`, the whole text: the first 8,000 characters found fewer agreement dates,
    docs/benchmarks.md, Knobs) and the noun."""
    found = find_parties(text)
    parties = None
    if found:
        value = "; ".join(" ".join(m.text.split()).rstrip(",") for m in found)
        parties = Cell(value, found[0].start, found[-1].end, "Parties")
    if parties is not None and find_secrets(parties.value):  # never shown, as on every other surface
        parties = None
    d = document_date(text)
    date = Cell(d.iso, d.start, d.end, "Date") if d is not None else None
    return parties, date, self_noun(text)


def _short(name: str) -> str:
    return one_line(name, NAME_CHARS)


def _tell_apart(rows: list[DocumentRow]) -> None:
    """Set each row's label: its title, and for titles several documents share, the parties and the date,
    then the doc id where those are the same too."""
    groups: dict[str, list[DocumentRow]] = defaultdict(list)
    for r in rows:
        groups[" ".join(r.title.split()).casefold()].append(r)
    for group in groups.values():
        if len(group) == 1:
            group[0].label = group[0].title
            continue
        for r in group:
            parts = [_short(n) for n in r.names[:2]] + ([r.date.value] if r.date else [])
            r.label = f"{r.title} ({'; '.join(parts)})" if parts else r.title
        seen: dict[str, list[DocumentRow]] = defaultdict(list)
        for r in group:
            seen[r.label.casefold()].append(r)
        for same in seen.values():
            if len(same) > 1:
                for r in same:
                    r.label = f"{r.label} [{r.doc_id}]"


def document_rows(
    pages: Iterable[Page], sources=None, table: Table | None = None, *, value_chars: int | None = VALUE_CHARS
) -> list[DocumentRow]:
    """One row per document, sorted by label: every document of `sources` (a CorpusIndex or any
    `Sources` with `documents()` and `texts`), else every document page. A document's page is its
    `type: document` page with it as the one source. `table`: the wiki's provisions table, whose values
    become the rows' extra columns, each cut to `value_chars` (None: whole, for a surface that fits them itself), and
    whose stale documents (Table.stale) the rows' `stale`."""
    by_doc: dict[str, Page] = {}
    member_of: dict[str, list[Page]] = defaultdict(list)
    for p in sorted(pages, key=lambda p: (len(p.sources), p.slug)):
        if p.type == "document" and len(p.sources) == 1:
            by_doc.setdefault(p.sources[0], p)
        elif p.type == "collection":
            for d in p.sources:
                member_of[d].append(p)
    docs: dict[str, str] = {}  # doc id -> its title where the corpus knows it
    if sources is not None:
        for d in sources.documents():
            docs[d.doc_id] = getattr(d, "title", "") or ""
    else:
        docs = dict.fromkeys(by_doc, "")
    provisions = provision_cells(table, value_chars) if table is not None else {}
    rows = []
    for doc_id, known_title in docs.items():
        page = by_doc.get(doc_id)
        title = one_line((page.title if page else "") or known_title or doc_id)
        text = ""
        if sources is not None:
            try:
                text = sources.texts.text(doc_id)
            except (KeyError, OSError):
                text = ""
        parties, date, noun = _row_facts(text) if text else (None, None, "")
        colls = member_of.get(doc_id, [])
        rows.append(
            DocumentRow(
                doc_id=doc_id,
                slug=page.slug if page else None,
                title=title,
                label=title,
                parties=parties,
                date=date,
                kind=colls[0].title if colls else kind_of(title, noun),
                collections=[c.slug for c in colls],
                facts=page_facts(page) if page else [],
                extra=dict(provisions.get(doc_id, {})),
                stale=table.stale.get(doc_id, "") if table is not None else "",
            )
        )
    _drop_date_copies(rows)
    _tell_apart(rows)
    rows.sort(key=lambda r: (r.label.casefold(), r.doc_id))
    return rows
