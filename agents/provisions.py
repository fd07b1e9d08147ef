"""The build's values stage: each document's kind and its values (one per field of its kind's schema), read in
worker processes and kept in the wiki's provisions table (`wikigen.wiki.provisions`).

A document is read again only when its text changed (its sha256): a later build keeps what earlier ones found.
Every stated cell carries the text of its quote, the document's own text at the quote's offsets, so the table
and its pages verify like any page. Which fields a kind has comes from the schemas
(`wikigen.search.values.schema`: shipped, plus WIKI/schemas/*.yaml), never from code.

    table = update_values(index, wiki_root, workers=2)   # -> wikigen.wiki.provisions.Table, written
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable, Mapping
from pathlib import Path

from wikigen.agents.catalog import Catalog, Topic
from wikigen.search.values.clauses import MODEL_PATH
from wikigen.search.values.extract import NOT_READ, NOT_STATED, POSSIBLE, STATED, document_kind, extract_values
from wikigen.search.values.schema import Schema, load_schemas, user_schemas

from wikigen.core.engine import Parallel, engine_for
from wikigen.core.text import one_line
from wikigen.wiki.provisions import Table, read_table, write_pages, write_table
from wikigen.wiki.secrets import redact, secrets_in_quote

log = logging.getLogger(__name__)

__all__ = ["READER", "document_values", "schemas_of", "signature", "update_values"]


def schemas_of(wiki_root: Path | None) -> dict[str, Schema]:
    """The schemas a wiki's documents are read with: the shipped ones and the wiki's own (WIKI/schemas)."""
    return load_schemas(user_schemas(wiki_root))


def document_values(
    doc_id: str, texts: Mapping[str, str], titles: Mapping[str, str], schemas: dict[str, Schema]
) -> dict:
    """One document's row: {kind, title, cells: {field: cell dict with its quote's text}}; kind None when no
    schema recognises it (then no cells). A quote that would show a secret is left out: the cell says "not read"."""
    text = texts[doc_id]
    title = titles.get(doc_id, "")
    kind = document_kind(title, text, schemas)
    row: dict = {"kind": kind, "title": redact(title or doc_id), "cells": {}}
    if kind is None:
        return row
    for name, cell in extract_values(text, schemas[kind]).items():
        d = cell.to_dict()
        if cell.quote and cell.status in (STATED, POSSIBLE):
            s, e = cell.quote
            if secrets_in_quote(doc_id, s, text[s:e]):
                d = {"field": name, "status": NOT_READ, "why": "its quote would hold a secret"}
            else:
                d["text"] = text[s:e]
                d["display"] = redact(d.get("display", ""))
                others = []  # the other values sentences state, each with its quote's text (one showing a secret left out)
                for o in d.pop("others", []):
                    a, b = o["quote"]
                    if not secrets_in_quote(doc_id, a, text[a:b]):
                        others.append({**o, "text": text[a:b]})
                if others:
                    d["others"] = others
        row["cells"][name] = d
    return row


READER = 3  # the values' reader (wikigen.search.values.extract): a new version reads every document again


def signature(schemas: Mapping[str, Schema]) -> str:
    """What made the values: the reader's version, the clause model's file, and every schema's fields and signals."""
    model = hashlib.sha256(MODEL_PATH.read_bytes()).hexdigest()[:16] if MODEL_PATH.is_file() else ""
    raw = json.dumps(
        [READER, model, sorted((k, repr(s.fields), s.title_words) for k, s in schemas.items())], default=str
    )
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def _spec(schema: Schema) -> dict:
    return {
        "label": schema.label,
        "fields": [
            {
                "name": f.name,
                "label": f.label,
                "type": f.type,
                "group": f.group,
                **({"facts": list(f.facts)} if f.facts else {}),
            }
            for f in schema.fields
        ],
    }


GENERIC_KIND = "document"  # documents of no schema's kind: fields from the corpus's own recurring headings
GENERIC_FIELDS = 12  # at most this many such fields
GENERIC_SHARE = 0.1  # a heading in at least this share of those documents (and at least 2) is a field
GENERIC_QUOTE = 600  # a section's quote, capped at about this many characters at a sentence end


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.casefold()).strip("_")[:40] or "section"


def generic_fields(cat: Catalog | None, doc_ids: list[str]) -> list[tuple[str, Topic]]:
    """(field name, topic) for the headings that recur across the documents no schema recognised, best
    supported first: a corpus of an unknown kind still gets a table of what its documents say under them."""
    if cat is None or not doc_ids:
        return []
    docs = set(doc_ids)
    need = max(2, int(GENERIC_SHARE * len(docs) + 0.999))
    picked: list[tuple[str, Topic]] = []
    names: set[str] = set()
    for t in sorted(cat.topics, key=lambda t: -len(docs & set(t.spans))):
        if t.kind != "heading" or len(docs & set(t.spans)) < need:
            continue
        name = _key(t.title or t.key)
        if name in names or not re.match(r"^[a-z]", name):
            continue
        names.add(name)
        picked.append((name, t))
        if len(picked) >= GENERIC_FIELDS:
            break
    return picked


def _generic_rows(index, cat: Catalog | None, rows: dict[str, dict]) -> dict | None:
    """Give the rows of no kind the generic kind's cells (each heading's section, quoted); its spec, or None."""
    from wikigen.core.sentences import cap_span

    plain = sorted(d for d, r in rows.items() if r.get("kind") is None)
    fields = generic_fields(cat, plain)
    if not fields:
        return None
    for doc_id in plain:
        text = index.texts.text(doc_id)
        cells: dict[str, dict] = {}
        for name, t in fields:
            span = t.spans.get(doc_id)
            if span is None:
                cells[name] = {"field": name, "status": NOT_STATED}
                continue
            s, e = cap_span(text, span[0], span[1], GENERIC_QUOTE)
            if secrets_in_quote(doc_id, s, text[s:e]):
                cells[name] = {"field": name, "status": NOT_READ, "why": "its quote would hold a secret"}
                continue
            cells[name] = {
                "field": name,
                "status": STATED,
                "display": "Yes",
                "norm": "",
                "type": "presence",
                "parts": {},
                "quote": [s, e],
                "span": [s, e],
                "text": text[s:e],
            }
        rows[doc_id] = {**rows[doc_id], "kind": GENERIC_KIND, "cells": cells}
    return {
        "label": "Documents",
        "fields": [{"name": n, "label": t.title or t.key, "type": "presence", "group": "sections"} for n, t in fields],
    }


FIGURE_FIELDS = 40  # a periodic report's figures in the table: the most widely stated, at most this many


def _figure_rows(index, rows: dict[str, dict], schemas: Mapping[str, Schema], workers: Parallel) -> dict[str, list]:
    """Give the rows of each kind with a `figures` field a cell per figure its documents state (a table row or a
    value phrase that recurs across them: wikigen.agents.figures), the line that states it quoted; the figure
    fields of each such kind."""
    from wikigen.agents.figures import find_figures

    out: dict[str, list] = {}
    for kind, schema in schemas.items():
        if not any(f.type == "figures" for f in schema.fields):
            continue
        members = sorted(d for d, r in rows.items() if r.get("kind") == kind)
        if len(members) < 2:
            continue
        texts = {d: index.texts.text(d) for d in members}
        pool = engine_for(workers, sum(len(t) for t in texts.values()))
        fields, names = [], set()
        for fig in find_figures(texts, workers=pool)[:FIGURE_FIELDS]:
            name = "fig_" + _key(fig.title or fig.key)
            if name in names:
                continue
            names.add(name)
            fields.append({"name": name, "label": fig.title or fig.key, "type": "figure", "group": "figures"})
            for doc_id in members:
                m = fig.mentions.get(doc_id)
                cells = rows[doc_id].setdefault("cells", {})
                if m is None:
                    cells[name] = {"field": name, "status": NOT_STATED}
                    continue
                text = texts[doc_id][m.start : m.end]
                if secrets_in_quote(doc_id, m.start, text):
                    cells[name] = {"field": name, "status": NOT_READ, "why": "its quote would hold a secret"}
                    continue
                number = re.search(r"[-(]?\$?\d[\d,]*(?:\.\d+)?\)?", m.value)
                cells[name] = {
                    "field": name,
                    "status": STATED,
                    "display": one_line(m.value, 80),
                    "norm": number.group() if number else m.value,
                    "type": "figure",
                    "parts": {"date": fig.dates.get(doc_id, ""), "kind": m.kind},
                    "quote": [m.start, m.end],
                    "span": [m.start, m.end],
                    "text": text,
                }
        out[kind] = fields
    return out


def update_values(
    index,
    wiki_root: Path,
    *,
    workers: Parallel = 1,
    progress: Callable[[int, int], None] | None = None,
    catalog: Catalog | None = None,
) -> Table:
    """Read the values of every document whose text changed since the table was kept (all of them the first
    time), drop removed documents, write the table and its pages; the table."""
    wiki_root = Path(wiki_root)
    schemas = schemas_of(wiki_root)
    old = read_table(wiki_root)
    docs = {d.doc_id: d for d in index.documents()}
    shas = {d: (docs[d].sha256 or "")[:16] for d in docs}
    sig = signature(schemas)
    todo = sorted(d for d in docs if sig != old.signature or (old.documents.get(d) or {}).get("sha") != shas[d])
    rows = {d: r for d, r in old.documents.items() if d in docs and d not in todo}
    if todo:
        texts = {d: index.texts.text(d) for d in todo}
        titles = {d: docs[d].title or "" for d in todo}
        pool = engine_for(workers, sum(len(t) for t in texts.values()))
        for i, (doc_id, row) in enumerate(zip(todo, pool.map(document_values, todo, texts, titles, schemas)), 1):
            row["sha"] = shas[doc_id]
            rows[doc_id] = row
            if progress is not None:
                progress(i, len(todo))
    for row in rows.values():  # the generic kind and the figures are made anew each time, from the whole corpus
        if row.get("kind") == GENERIC_KIND:
            row.update(kind=None, cells={})
        row["cells"] = {n: c for n, c in (row.get("cells") or {}).items() if not n.startswith("fig_")}
    generic = _generic_rows(index, catalog, rows)
    figures = _figure_rows(index, rows, schemas, workers)
    kinds = {k: _spec(s) for k, s in schemas.items() if any(r.get("kind") == k for r in rows.values())}
    for k, fields in figures.items():
        kinds[k]["fields"] = [f for f in kinds[k]["fields"] if f["type"] != "figures"] + fields
    if generic is not None:
        kinds[GENERIC_KIND] = generic
    table = Table(kinds, rows, sig)
    write_table(wiki_root, table)
    write_pages(wiki_root, table)
    stated, total = table.filled()
    log.info("values: %d documents read, %d of %d cells stated", len(todo), stated, total)
    return table
