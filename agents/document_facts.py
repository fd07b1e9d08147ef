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
from wikigen.search.facts.sheet import FactSheet, fact_sheet

from wikigen.core.engine import Parallel, engine_for

__all__ = ["FACTS_CHARS", "DocumentFacts", "detect_facts", "document_sheet"]

FACTS_CHARS = 60000  # of a document's text read for its fact sheet


def document_sheet(text: str, title: str = "") -> FactSheet:
    """One document's fact sheet, from the start of its text (`title`: the title its outline gives)."""
    return fact_sheet(text[:FACTS_CHARS], title)


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
