"""The functions `wikigen ask` calls: one question, or a questions file answered with one Answerer.

Nothing is cached between calls: each call opens the wiki as it is now (the page index itself is
cached on disk under a name made from the pages' content, so reopening an unchanged wiki is cheap).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from wikigen.ask.generate import AnswerGenerator
from wikigen.ask.params import DEFAULT_BUDGET
from wikigen.ask.questions import read_questions
from wikigen.ask.retrieval import Answerer, AskResult
from wikigen.core.atomic import atomic_write


def ask_one(
    question: str,
    *,
    wiki: Path,
    mode: str = "wiki+search",
    budget: int = DEFAULT_BUDGET,
    generator: AnswerGenerator | None = None,
    log: str | None = None,
) -> AskResult:
    """One answer. log: the surface's name ("cli") to record it in the wiki's question log; None: not logged."""
    return Answerer.open(Path(wiki), log=log).ask(question, mode=mode, budget=budget, generator=generator)


def ask_batch(
    questions_path: Path,
    out_path: Path,
    *,
    wiki: Path,
    mode: str = "wiki+search",
    budget: int = DEFAULT_BUDGET,
    generator: AnswerGenerator | None = None,
    answerer: Answerer | None = None,
    progress=None,
    log: str | None = None,
) -> int:
    """Answer every question of a questions file with one Answerer; write one JSON object a line, with the
    question's id and latency, to out_path. The file is written whole at the end (atomically), so an error
    part-way leaves any earlier results file as it was. Returns the number of questions answered.
    progress(done, total), when given, is called after each answer. log: as for ask_one (each question is
    recorded in the wiki's question log when an Answerer is opened here)."""
    questions = read_questions(Path(questions_path))
    answerer = answerer or Answerer.open(Path(wiki), log=log)
    rows = []
    for q in questions:
        t0 = time.perf_counter()
        r = answerer.ask(q["question"], mode=mode, budget=budget, generator=generator)
        row = {"id": q["id"], **r.to_dict(), "latency_ms": round((time.perf_counter() - t0) * 1000, 2)}
        rows.append(json.dumps(row, ensure_ascii=False) + "\n")
        if progress is not None:
            progress(len(rows), len(questions))
    atomic_write(Path(out_path), "".join(rows))
    return len(rows)
