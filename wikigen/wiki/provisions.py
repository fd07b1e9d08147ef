"""The provisions table: each document's values (one per field of its kind), kept in WIKI/.wikigen/values.json and
shown as generated pages (like index.md and conflicts.md: never written by an agent).

The values come from `wikigen.search.values` (the build's "values" stage); this module only keeps and shows
them, so `wikigen check`, `wikigen table`, the web view and `ask` read one file. A stated cell keeps its quote's
text, so the table renders and its quotes verify without re-reading the corpus.

Read with the wiki's sources (`read_table(root, sources)`, `Wiki.table()`), the table knows which documents' corpus
files changed since they were indexed (`Table.stale`, from `wikigen.wiki.freshness.changed_sources`): their
values were read from the old text, and every record of one carries `stale` (the reason), so each surface
(`wikigen table`, its --json and --csv, MCP `table`, the documents table of the web view and of MCP) marks them.

Pages, per document kind with values (`provisions-<kind>`):

* ``provisions-contract.md`` — the hub: how many documents state each field, the values each field takes with
  their counts ("Governing law: New York 47, California 27, ..."), links to the group pages, and the values
  "Stated differently": a document one sentence of which gives a field one value and another a different one;
* ``provisions-contract-<group>[-N].md`` — one row per document, one column per field of the group ("law":
  governing law, venue), each cell the value (its quote is on the document's page, under the field's heading),
  "—" where the document does not state it, "?" where it was not read and "possible" where a clause that may
  state it is quoted but no value is claimed (`mark`: how a cell without a value reads on every surface); split
  into parts within the page limits (MAX_LINES lines, MAX_CHARS characters) when the corpus is large.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from wikigen.core import confine
from wikigen.core.atomic import atomic_write
from wikigen.core.errors import UsageError, WikigenError
from wikigen.core.slugs import doc_slug
from wikigen.core.text import one_line
from wikigen.wiki.freshness import changed_sources
from wikigen.wiki.markup import table_row, wikilink

log = logging.getLogger(__name__)

__all__ = [
    "CHECK",
    "FORMAT",
    "NOT_READ",
    "NOT_STATED",
    "POSSIBLE",
    "PREFIX",
    "STATED",
    "STORE",
    "Table",
    "is_provisions_slug",
    "mark",
    "read_table",
    "records",
    "render_pages",
    "table_rows",
    "to_csv",
    "write_pages",
    "write_table",
]

STORE = Path(".wikigen") / "values.json"
FORMAT = 1
PREFIX = "provisions-"
STATED, NOT_STATED, NOT_READ = "stated", "not stated", "not read"
# "not sure": a clause that may state the field is quoted, no value is claimed (a reviewer checks it)
POSSIBLE = "possible"
MAX_LINES = 200
MAX_CHARS = 24_000
CELL_CHARS = 40  # a cell's value in the table (the document page shows it whole)
SHORT_CELL = 24  # a longer value shows its canonical form in a cell ("2026-03-01" for "2026-03-01 (3 years from ...)")
# how a cell that claims no value reads, on every surface (`mark`); a possible cell reads as its status word
MARKS = {NOT_STATED: "—", NOT_READ: "?", POSSIBLE: POSSIBLE}
CHECK = "not sure; check the clause"  # what a possible cell asks of its reader, wherever its clause is shown
LEGEND = (
    f"{MARKS[NOT_STATED]} not stated, {MARKS[NOT_READ]} not read, {MARKS[POSSIBLE]}: a clause that may state it is "
    f"quoted on the document's page, no value claimed ({CHECK})"
)
NOTE = (
    "_Generated after each session from the documents' values (`wikigen table` prints them whole); each value is "
    f"quoted on its document's page under the field's heading; {LEGEND}._"
)


def mark(status: object) -> str:
    """How a cell that claims no value reads in a table, on every surface: "—" not stated, "possible" (a clause
    that may state it is quoted, no value claimed), "?" not read (and any status this version does not know)."""
    return MARKS.get(str(status), MARKS[NOT_READ])


def is_provisions_slug(slug: str) -> bool:
    return slug.startswith(PREFIX)


@dataclass
class Table:
    """The kept values: kinds (their labels and fields, in order) and each document's row."""

    kinds: dict[str, dict]  # kind -> {"label": str, "fields": [{"name", "label", "type", "group"}]}
    documents: dict[str, dict]  # doc id -> {"kind", "title", "sha", "cells": {field: cell dict}}
    signature: str = ""  # of the schemas and the reader that made the values: another one reads every document again
    # doc id -> why, of the documents whose corpus file changed since indexing (read_table with sources; not kept)
    stale: dict[str, str] = field(default_factory=dict)

    def rows(self, kind: str) -> list[tuple[str, dict]]:
        return sorted((d, r) for d, r in self.documents.items() if r.get("kind") == kind)

    def fields(self, kind: str) -> list[dict]:
        return list((self.kinds.get(kind) or {}).get("fields") or [])

    def cell(self, doc_id: str, field: str) -> dict:
        row = self.documents.get(doc_id) or {}
        return (row.get("cells") or {}).get(field) or {"field": field, "status": NOT_READ}

    def to_dict(self) -> dict:
        return {"format": FORMAT, "signature": self.signature, "kinds": self.kinds, "documents": self.documents}

    def differing(self, kind: str) -> list[tuple[str, dict, dict]]:
        """(doc id, field spec, cell) of each stated cell of a kind whose document also states another value for
        the field in another sentence (`others`, each with its quote): what a person should check."""
        return [
            (doc_id, f, cell)
            for doc_id, row in self.rows(kind)
            for f in self.fields(kind)
            if (cell := (row.get("cells") or {}).get(f["name"]) or {}).get("status") == STATED and cell.get("others")
        ]

    def statuses(self, kind: str | None = None, field: str | None = None) -> Counter:
        """How many cells have each status, over every document with a kind (of `kind`; of one `field`); a cell
        its row lacks counts as not read."""
        names = {k: [f["name"] for f in self.fields(k) if field is None or f["name"] == field] for k in self.kinds}
        c: Counter = Counter()
        for row in self.documents.values():
            if kind is not None and row.get("kind") != kind:
                continue
            for name in names.get(row.get("kind") or "", []):
                c[((row.get("cells") or {}).get(name) or {}).get("status") or NOT_READ] += 1
        return c

    def filled(self) -> tuple[int, int]:
        """(stated cells, all cells) over every document with a kind: how much of the table is filled. A possible
        cell (a clause quoted, no value claimed) is a cell, neither stated nor not stated."""
        c = self.statuses()
        return c[STATED], sum(c.values())


def read_table(root, sources=None) -> Table:
    """The kept table; an empty one when there is none (or it cannot be read, or is of another format). sources: the
    wiki's `Sources`; with them, `stale` names each document whose corpus file changed (or went) since it was
    indexed (a corpus that cannot be looked at leaves it empty, with a warning)."""
    path = Path(root) / STORE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Table({}, {})
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        return Table({}, {})
    table = Table(dict(raw.get("kinds") or {}), dict(raw.get("documents") or {}), str(raw.get("signature") or ""))
    if sources is not None and table.documents:
        try:
            changed = changed_sources(sources)
        except (WikigenError, OSError) as e:
            log.warning("cannot tell whether the values' documents changed: %s", e)
            changed = {}
        table.stale = changed
    return table


def write_table(root, table: Table) -> Path:
    path = Path(root) / STORE
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(table.to_dict(), ensure_ascii=False, indent=0, sort_keys=True) + "\n")
    return path


# --- pages -------------------------------------------------------------------------------------------


def _cell_text(cell: Mapping) -> str:
    """A cell's text: the value as a reader sees it when short, else its canonical form (the document's page and
    `wikigen table` show it whole); a cell without a value, its `mark`."""
    status = cell.get("status")
    if status == STATED:
        shown = str(cell.get("display") or "Yes")
        qualifier = (cell.get("parts") or {}).get("qualifier")
        if len(shown) > SHORT_CELL and cell.get("norm") and cell.get("type") != "party":
            shown = str(cell["norm"]) + (f" ({qualifier})" if qualifier else "")  # how it is meant stays in view
        if cell.get("type") == "party":
            shown = "; ".join(str(n) for n in (cell.get("parts") or {}).get("names", [])[:2]) or shown
        return _safe(one_line(shown, CELL_CHARS))
    return mark(status)


def _safe(text: str) -> str:
    """Text safe inside a table cell and a [[link|label]]."""
    return re.sub(r"[\[\]|#\n]", " ", text).strip() or "-"


def _groups(fields: list[dict]) -> list[tuple[str, list[dict]]]:
    out: dict[str, list[dict]] = {}
    for f in fields:
        if f.get("type") == "figures":
            continue
        out.setdefault(str(f.get("group") or "main"), []).append(f)
    return list(out.items())


def _row(doc_id: str, row: Mapping, fields: list[dict]) -> str:
    title = _safe(one_line(str(row.get("title") or doc_id), 60))
    cells = [_cell_text((row.get("cells") or {}).get(f["name"]) or {"status": NOT_READ}) for f in fields]
    return table_row([wikilink(doc_slug(doc_id), title), *cells])


def _counts(table: Table, kind: str, field: str) -> Counter:
    c: Counter = Counter()
    for _, row in table.rows(kind):
        cell = (row.get("cells") or {}).get(field) or {}
        if cell.get("status") == STATED:
            c[
                _safe(one_line(str(cell.get("norm") or cell.get("display") or "Yes"), 40))
                if cell.get("norm")
                else "Yes"
            ] += 1
    return c


def _pack(head: list[str], rows: list[str]) -> list[list[str]]:
    """The rows in parts, each part a page within MAX_LINES and MAX_CHARS with the head repeated."""
    parts: list[list[str]] = []
    cur: list[str] = []
    size = sum(len(h) + 1 for h in head)
    for r in rows:
        if cur and (len(head) + len(cur) + 1 > MAX_LINES - 2 or size + len(r) + 1 > MAX_CHARS):
            parts.append(cur)
            cur, size = [], sum(len(h) + 1 for h in head)
        cur.append(r)
        size += len(r) + 1
    if cur or not parts:
        parts.append(cur)
    return parts


LINKS_A_LINE = 20
GROUPED_TYPES = frozenset({"jurisdiction", "duration", "term", "money", "percentage", "date"})  # worth a by-value page


def _by_value_label(slug: str, table: Table, kind: str) -> str:
    name = slug.rsplit("-by-", 1)[-1].split("-")
    for f in table.fields(kind):
        if f["name"].replace("_", "-") == "-".join(n for n in name if not n.isdigit()):
            return str(f["label"]).lower()
    return slug


def _links_lines(head: str, docs: list[str]) -> list[str]:
    """ "- HEAD (N): [[doc]], ..." lines, a long list running on over several lines."""
    out = []
    for i in range(0, len(docs), LINKS_A_LINE):
        more = " (continued)" if i else f" ({len(docs)})"
        out.append(f"- {head}{more}: " + ", ".join(f"[[{doc_slug(d)}]]" for d in docs[i : i + LINKS_A_LINE]))
    return out


def _by_value_pages(table: Table, kind: str, label: str, hub: str) -> dict[str, str]:
    """Per field with values worth grouping (a jurisdiction, a duration, an amount, ...): the documents grouped by
    the value they state, the most common value first ("Delaware (3): ..."), then those that state none."""
    pages: dict[str, str] = {}
    rows = table.rows(kind)
    for f in table.fields(kind):
        if f.get("type") not in GROUPED_TYPES or f.get("type") == "date":
            continue
        groups: dict[str, list[str]] = {}
        possible, silent = [], []
        for doc_id, row in rows:
            cell = (row.get("cells") or {}).get(f["name"]) or {}
            if cell.get("status") == STATED and cell.get("norm"):
                groups.setdefault(_safe(one_line(str(cell["norm"]), 60)), []).append(doc_id)
            elif cell.get("status") == POSSIBLE:
                possible.append(doc_id)
            else:
                silent.append(doc_id)
        if len(groups) < 1:
            continue
        head = [f"# {label} by {str(f['label']).lower()}", "", f"_Generated; see [[{hub}]]._", ""]
        body = []
        for value, docs in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            body += _links_lines(f"**{value}**", docs)
        if possible:  # no value claimed: apart from the values, for a person to check
            body += _links_lines(f"{mark(POSSIBLE)}, no value claimed ({CHECK})", possible)
        body.append(f"- not stated or not read ({len(silent)})")
        parts = _pack(head, body)
        base = f"{hub}-by-{f['name'].replace('_', '-')}"
        for n, part in enumerate(parts, 1):
            pages[base + (f"-{n}" if len(parts) > 1 else "")] = "\n".join(head + part) + "\n"
    return pages


def render_pages(table: Table) -> dict[str, str]:
    """{slug: page text} of every provisions page of the table (none for a table without documents)."""
    pages: dict[str, str] = {}
    for kind, spec in sorted(table.kinds.items()):
        rows = table.rows(kind)
        if not rows:
            continue
        label = str(spec.get("label") or kind)
        hub = f"{PREFIX}{kind}"
        hub_lines = [f"# {label}: provisions", "", NOTE, "", f"{len(rows):,} documents."]
        group_links = []
        for group, fields in _groups(table.fields(kind)):
            head = [
                f"# {label}: {group}",
                "",
                f"_Generated; see [[{hub}]]. {LEGEND}._",
                "",
                table_row(["document", *(_safe(f["label"]) for f in fields)]),
                "|---|" + "---|" * len(fields),
            ]
            body = [_row(d, r, fields) for d, r in rows]
            parts = _pack(head, body)
            for n, part in enumerate(parts, 1):
                slug = f"{hub}-{group}" + (f"-{n}" if len(parts) > 1 else "")
                pages[slug] = "\n".join(head + part) + "\n"
                group_links.append(f"[[{slug}|{group}" + (f" (part {n})" if len(parts) > 1 else "") + "]]")
        by_value = _by_value_pages(table, kind, label, hub)
        pages.update(by_value)
        hub_lines += ["", "Tables: " + ", ".join(group_links) + "."]
        if by_value:
            hub_lines += [
                "",
                "By value: " + ", ".join(f"[[{slug}|{_by_value_label(slug, table, kind)}]]" for slug in by_value) + ".",
            ]
        hub_lines += ["", "## Fields", ""]
        for f in table.fields(kind):
            if f.get("type") == "figures":
                continue
            counts = _counts(table, kind, f["name"])
            stated = sum(counts.values())
            common = ", ".join(f"{v} ({n})" for v, n in counts.most_common(8))
            more = f", and {len(counts) - 8} more values" if len(counts) > 8 else ""
            grouped = common and counts.keys() != {"Yes"} and f.get("type") != "party"
            said = f": {common}{more}" if grouped else ""
            possible = table.statuses(kind, f["name"])[POSSIBLE]
            maybe = f"; {mark(POSSIBLE)} in {possible} (a clause quoted, no value claimed)" if possible else ""
            hub_lines.append(f"- **{_safe(f['label'])}**: stated by {stated} of {len(rows)}{said}{maybe}.")
        hub_lines += _differing_lines(
            table, kind, MAX_LINES - len(hub_lines) - 4, MAX_CHARS - len("\n".join(hub_lines))
        )
        pages[hub] = "\n".join(hub_lines) + "\n"
    return pages


def _differing_lines(table: Table, kind: str, lines: int, chars: int) -> list[str]:
    """The hub's "Stated differently" section: each document whose sentences give a field two values, the one the
    table keeps and the others (their quotes are in `wikigen table --json`), within `lines` and `chars`."""
    found = table.differing(kind)
    if not found:
        return []
    out = [
        "",
        "## Stated differently",
        "",
        f"{len(found):,} values where another sentence of the same document states a different one: check them.",
        "",
    ]
    size = sum(len(x) + 1 for x in out)
    for n, (doc_id, f, cell) in enumerate(found):
        title = _safe(one_line(str(table.documents[doc_id].get("title") or doc_id), 60))
        also = ", ".join(_safe(one_line(str(o.get("norm") or ""), 40)) for o in cell["others"])
        line = f"- [[{doc_slug(doc_id)}|{title}]]: {_safe(f['label'])} {_cell_text(cell)}; also {also}."
        if len(out) + 2 > lines or size + len(line) + 80 > chars:
            out.append(f"- and {len(found) - n:,} more (`wikigen table --json` lists each with both quotes).")
            break
        out.append(line)
        size += len(line) + 1
    return out


def write_pages(root, table: Table) -> list[Path]:
    """Write the provisions pages and remove the ones the table no longer makes; the paths written."""
    root = Path(root)
    want = render_pages(table)
    written = []
    for old in root.glob(f"{PREFIX}*.md"):
        if old.stem not in want and not old.is_symlink() and old.is_file():
            confine.remove(old, root)
    for slug, text in want.items():
        path = root / f"{slug}.md"
        if path.is_symlink():
            continue  # never written through a link
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            atomic_write(path, text)
        written.append(path)
    return written


def table_rows(table: Table, kind: str) -> Iterable[tuple[str, dict[str, dict]]]:
    """(doc id, {field: cell}) for every document of a kind, in doc id order."""
    for doc_id, row in table.rows(kind):
        yield (
            doc_id,
            {f["name"]: (row.get("cells") or {}).get(f["name"]) or {"status": NOT_READ} for f in table.fields(kind)},
        )


def records(table: Table, kind: str | None = None) -> list[dict]:
    """One record a document (of `kind`, or of every kind): {doc_id, title, kind, [stale,] <field>: {status, value,
    norm, quote: {start, end, text}, others: [{value, quote}] when other sentences state another value}} (a possible
    cell: {status, quote}, the clause that may state it, no value claimed): what `wikigen table --json` prints. `stale` (why) when the document's corpus file changed since it was indexed
    (Table.stale): its values were read from the old text. UsageError for a kind with no documents."""
    kinds = [kind] if kind else sorted(table.kinds)
    if kind is not None and not table.rows(kind):
        known = ", ".join(k for k in sorted(table.kinds) if table.rows(k)) or "none"
        raise UsageError(f"no documents of kind {kind!r} in this wiki's table (kinds: {known})")
    out = []
    for k in kinds:
        for doc_id, cells in table_rows(table, k):
            rec: dict = {"doc_id": doc_id, "title": table.documents[doc_id].get("title", doc_id), "kind": k}
            if doc_id in table.stale:
                rec["stale"] = table.stale[doc_id]
            for name, cell in cells.items():
                entry: dict = {"status": cell.get("status")}
                if cell.get("status") == STATED:
                    entry.update(value=cell.get("display"), norm=cell.get("norm"))
                    if cell.get("quote"):
                        s, e = cell["quote"]
                        entry["quote"] = {"start": s, "end": e, "text": cell.get("text", "")}
                    if cell.get("others"):  # other sentences that state another value: for a person to check
                        entry["others"] = [
                            {"value": o.get("norm"), "quote": {"start": a, "end": b, "text": o.get("text", "")}}
                            for o in cell["others"]
                            for a, b in [o["quote"]]
                        ]
                elif cell.get("status") == POSSIBLE and cell.get("quote"):  # no value claimed: the clause to check
                    s, e = cell["quote"]
                    entry["quote"] = {"start": s, "end": e, "text": cell.get("text", "")}
                rec[name] = entry
            out.append(rec)
    return out


def to_csv(table: Table, kind: str) -> str:
    """The table of one kind as CSV: doc_id, title, then one column per field (its value; empty where not stated,
    else the cell's `mark`: "?" not read, "possible"), then `stale`: why the document's values may be old (its file
    changed), else empty."""
    import csv
    import io

    fields = [f["name"] for f in table.fields(kind) if f.get("type") != "figures"]
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["doc_id", "title", *fields, "stale"])
    for rec in records(table, kind):
        row = [rec["doc_id"], rec["title"]]
        for name in fields:
            e = rec.get(name) or {}
            status = e.get("status")
            row.append(e.get("value", "") if status == STATED else "" if status == NOT_STATED else mark(status))
        w.writerow([*row, rec.get("stale", "")])
    return buf.getvalue()
