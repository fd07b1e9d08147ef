"""Fact detection for a whole build, in worker processes: every document's fact sheet (title,
description, key facts: `wikigen.search.facts.sheet`) and the figures stated across documents
(`wikigen.agents.figures`).

Both are per-document reading of the corpus's texts, CPU-bound and about a sixth of an offline build
(bench/scale_bench.py), so the build runs them once, before the agents' sessions, with the same worker
processes as topic discovery (`wikigen.core.workers`). The result is the same with any number of
workers, and the same as the agents computing each sheet on demand (`PageMaker.sheet`): a sheet reads
the first FACTS_CHARS characters of the document's text, exactly as `read_document` returns them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from wikigen.agents.figures import Figure, FigureParams, find_figures
from wikigen.search.facts.sheet import Fact, FactSheet, fact_sheet, settled

from wikigen.core.engine import Parallel, engine_for
from wikigen.wiki.provisions import NOT_STATED, POSSIBLE, STATED

__all__ = ["FACTS_CHARS", "DocumentFacts", "detect_facts", "document_sheet", "provisions_said", "with_provisions"]

FACTS_CHARS = 60000  # of a document's text read for its fact sheet


def document_sheet(text: str, title: str = "") -> FactSheet:
    """One document's fact sheet, from the start of its text (`title`: the title its outline gives)."""
    return fact_sheet(text[:FACTS_CHARS], title)


def provisions_said(row: Mapping, fields: list[dict]) -> dict[str, Fact | None]:
    """What a document's row of the provisions table says of its key facts, by role: for each field that states
    key facts too (its schema's `facts`), the cell's value with its quote where it is stated, None where the
    table says it is not stated or only possibly (the page says so under Provisions); a cell not read says
    nothing. A document of no kind, or a kind whose fields state no key fact, keeps its key facts."""
    cells = row.get("cells") or {}
    out: dict[str, Fact | None] = {}
    for f in fields:
        cell = cells.get(f["name"]) or {}
        status = cell.get("status")
        said: Fact | None
        if status == STATED and cell.get("quote"):
            qs, qe = (int(x) for x in cell["quote"])
            s, e = (int(x) for x in cell.get("span") or (qs, qe))
            said = Fact(
                f.get("type") or "", f["label"], str(cell.get("display") or cell.get("norm") or ""), s, e, (qs, qe)
            )
        elif status in (STATED, NOT_STATED, POSSIBLE):  # stated without a quote: no key fact can quote it
            said = None
        else:
            continue
        for role in f.get("facts") or ():
            out.setdefault(role, said)
    return out


def with_provisions(sheet: FactSheet, row: Mapping, fields: list[dict]) -> FactSheet:
    """The sheet whose key facts say what the provisions table says (`provisions_said`): one value per fact on
    a document's page, the table's, with its quote."""
    return settled(sheet, provisions_said(row, fields))


def _sheet_of(doc_id: str, texts: Mapping[str, str], titles: Mapping[str, str]) -> FactSheet:
    return document_sheet(texts[doc_id], titles.get(doc_id, ""))


@dataclass
class DocumentFacts:
    sheets: dict[str, FactSheet] = field(default_factory=dict)  # doc id -> its fact sheet
    figures: list[Figure] = field(default_factory=list)  # find_figures' result, best first


def detect_facts(
    texts: Mapping[str, str],
    titles: Mapping[str, str],
    *,
    figures: FigureParams = FigureParams(),
    workers: Parallel = 1,
    progress: Callable[[int, int], None] | None = None,
) -> DocumentFacts:
    """Every document's fact sheet and the corpus's figures. titles: {doc_id: the title its outline
    gives}; workers: processes (None: one per core; small corpora stay in this process) or an engine
    (`wikigen.core.engine`); progress(done,
    total) is called as the sheets are made."""
    doc_ids = sorted(texts)
    pool = engine_for(workers, sum(len(t) for t in texts.values()))
    out = DocumentFacts()
    for i, (doc_id, sheet) in enumerate(zip(doc_ids, pool.map(_sheet_of, doc_ids, texts, titles)), 1):
        out.sheets[doc_id] = sheet
        if progress is not None:
            progress(i, len(doc_ids))
    out.figures = find_figures(texts, figures, pool)
    return out
