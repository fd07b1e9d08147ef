"""`wikigen eval`: run every answer mode over a questions.jsonl and score the contexts.

Scoring is a set of pure functions on plain dicts (a question in the cuad-dev schema, and the
`context` list of an `ask --json` result), so it can be tested without a wiki:

- a gold evidence span is **found** when the context's spans cover at least half of its characters
  (the union of the context spans in the same document, intersected with the gold span); evidence
  without offsets (start/end null) is found when its text occurs in the text of a context item
  that cites the same document, compared without regard to whitespace and case;
- a **single** question scores 1 when one of its gold spans is found, else 0;
- an **aggregate** question scores the recall of its gold documents (`answer_list`; a document
  counts when one of its gold spans is found) and the precision of the documents the context
  cites (distinct cited doc ids that are gold / distinct cited doc ids; none cited -> 0).
- a question that names the **one document asked about** (`doc_id`, as the plain-wording sets do) also
  scores the precision of its spans: the share of the context's verified spans that lie in that document;
- a question graded by the **documents cited** (a list over the collection asked plainly, kind `values`, or
  an `answer_list` with no evidence) scores the recall, precision and F1 of the documents whose
  verified spans the context cites.

**Answer recall** scores the answer itself the same way: the context is replaced by the answer's own
spans (`answer_spans`) and text (`answer_context`), so a gold span counts only when the answer quotes it;
a key-facts question scores the facts in the answer's text.

`run_eval` answers every question in every mode with one `Answerer` (indexes built once), writes
`eval-report.json` (per-question rows and the summary) and `eval-chart.svg` (`wikigen.ask.eval_chart`),
and returns an `EvalReport` whose `.table()` is what the CLI prints.
"""

from __future__ import annotations

import json
import logging
import statistics
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wikigen.ask.eval_chart import draw_chart
from wikigen.ask.keyfacts import score_keyfacts
from wikigen.ask.modes import MODES
from wikigen.ask.questions import read_questions
from wikigen.core.atomic import atomic_write

log = logging.getLogger(__name__)


# --- pure scoring ------------------------------------------------------------------------------


def _squash(text: str) -> str:
    """Text without any whitespace, case-folded: the form null-offset evidence is compared in."""
    return "".join(text.split()).casefold()


def merge_intervals(intervals: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The union of half-open intervals, as sorted disjoint intervals (empty ones dropped)."""
    out: list[tuple[int, int]] = []
    for s, e in sorted((s, e) for s, e in intervals if e > s):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def covered_chars(start: int, end: int, intervals: Iterable[tuple[int, int]]) -> int:
    """How many characters of [start, end) the union of intervals covers."""
    total = 0
    for s, e in merge_intervals(intervals):
        lo, hi = max(s, start), min(e, end)
        if hi > lo:
            total += hi - lo
    return total


def context_spans(context: Sequence[dict]) -> dict[str, list[tuple[int, int]]]:
    """doc id -> the (start, end) of every span the context carries in that document."""
    out: dict[str, list[tuple[int, int]]] = {}
    for item in context:
        for sp in item.get("spans") or []:
            out.setdefault(sp["doc_id"], []).append((int(sp["start"]), int(sp["end"])))
    return out


def cited_docs(context: Sequence[dict]) -> set[str]:
    return {sp["doc_id"] for item in context for sp in (item.get("spans") or [])}


def evidence_found(evidence: dict, context: Sequence[dict], *, min_fraction: float = 0.5) -> bool:
    """Whether the context carries one gold evidence span (see the module docstring)."""
    doc_id = evidence["doc_id"]
    start, end = evidence.get("start"), evidence.get("end")
    if start is None or end is None:
        needle = _squash(evidence.get("text") or "")
        if not needle:
            return False
        for item in context:
            if any(sp["doc_id"] == doc_id for sp in item.get("spans") or []) and needle in _squash(
                item.get("text", "")
            ):
                return True
        return False
    start, end = int(start), int(end)
    length = end - start
    if length <= 0:
        return False
    spans = context_spans(context).get(doc_id, [])
    # integer form of covered/length >= min_fraction, so exactly 50% counts without float error
    return (
        covered_chars(start, end, spans) * 2 >= length
        if min_fraction == 0.5
        else covered_chars(start, end, spans) >= min_fraction * length
    )


def found_docs(question: dict, context: Sequence[dict]) -> set[str]:
    """The documents with at least one found gold evidence span."""
    return {ev["doc_id"] for ev in question.get("evidence") or [] if evidence_found(ev, context)}


def score_single(question: dict, context: Sequence[dict]) -> float:
    return 1.0 if any(evidence_found(ev, context) for ev in question.get("evidence") or []) else 0.0


def score_aggregate(question: dict, context: Sequence[dict]) -> tuple[float, float]:
    """(recall of the gold documents, precision of the cited documents)."""
    gold = set(question.get("answer_list") or [])
    if not gold:
        gold = {ev["doc_id"] for ev in question.get("evidence") or []}
    found = found_docs(question, context) & gold
    recall = len(found) / len(gold) if gold else 0.0
    cited = cited_docs(context)
    precision = len(cited & gold) / len(cited) if cited else 0.0
    return recall, precision


def graded_by_spans(question: dict) -> bool:
    """A question graded by characters, as LegalBench-RAG grades (contractnli-dev's kind `spans-...`)."""
    return str(question.get("kind", "")).startswith("spans")


def _verified_spans(context: Sequence[dict], text_of) -> tuple[dict[str, list[tuple[int, int]]], int]:
    """doc id -> the spans whose document text is the text their item returns, and the characters of
    every returned span (verified or not). Without text_of every span is taken as verified."""
    good: dict[str, list[tuple[int, int]]] = {}
    returned: dict[str, list[tuple[int, int]]] = {}
    for item in context:
        body = _squash(item.get("text", ""))
        for sp in item.get("spans") or []:
            d, s, e = sp["doc_id"], int(sp["start"]), int(sp["end"])
            returned.setdefault(d, []).append((s, e))
            if text_of is None:
                good.setdefault(d, []).append((s, e))
                continue
            doc = text_of(d)
            if doc is not None and _squash(doc[s:e]) in body:
                good.setdefault(d, []).append((s, e))
    total = sum(e - s for spans in returned.values() for s, e in merge_intervals(spans))
    return good, total


def score_spans(question: dict, context: Sequence[dict], text_of=None) -> tuple[float, float]:
    """(character recall, character precision) of the context against the gold evidence spans.

    Recall: the share of the gold spans' characters that the returned spans cover. Precision: the share of
    the returned characters that are gold. A returned span counts only when the document's text at its
    offsets is text its item returns (text_of(doc_id) -> the document's text, or None when unknown)."""
    gold: dict[str, list[tuple[int, int]]] = {}
    for ev in question.get("evidence") or []:
        if ev.get("start") is not None and ev.get("end") is not None:
            gold.setdefault(ev["doc_id"], []).append((int(ev["start"]), int(ev["end"])))
    gold_total = sum(e - s for spans in gold.values() for s, e in merge_intervals(spans))
    good, returned = _verified_spans(context, text_of)
    hit = 0
    for d, spans in gold.items():
        mine = good.get(d, [])
        hit += sum(covered_chars(s, e, mine) for s, e in merge_intervals(spans))
    recall = hit / gold_total if gold_total else 0.0
    precision = hit / returned if returned else 0.0
    return recall, precision


def graded_by_cited_docs(question: dict) -> bool:
    """A list over the collection asked plainly (kind `values`), or any question whose gold is a set of documents
    and no spans: the documents the context cites are scored."""
    if not question.get("answer_list"):
        return False
    return question.get("kind") == "values" or not question.get("evidence")


def _verified_docs(context: Sequence[dict], text_of) -> list[str]:
    """The document of each verified span of the context, one entry a span."""
    good, _ = _verified_spans(context, text_of)
    return [d for d, spans in good.items() for _ in spans]


def score_cited_docs(question: dict, context: Sequence[dict], text_of=None) -> tuple[float, float, float]:
    """(recall, precision, F1) of the documents the context's verified spans cite, against `answer_list`."""
    gold = set(question.get("answer_list") or [])
    cited = set(_verified_docs(context, text_of))
    hit = len(cited & gold)
    recall = hit / len(gold) if gold else 0.0
    precision = hit / len(cited) if cited else 0.0
    f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    return recall, precision, f1


def in_document_share(question: dict, context: Sequence[dict], text_of=None) -> float | None:
    """The share of the context's verified spans that lie in the one document the question asks about
    (`doc_id`); 0 when it has no verified span, None when the question names no document."""
    doc_id = question.get("doc_id")
    if not doc_id:
        return None
    docs = _verified_docs(context, text_of)
    return sum(d == doc_id for d in docs) / len(docs) if docs else 0.0


def graded_by_key_facts(question: dict) -> bool:
    """A question with a free-text gold answer and no gold spans or documents (sec10q-dev's kind)."""
    return not question.get("evidence") and not question.get("answer_list") and isinstance(question.get("answer"), str)


def answer_context(answer: str, spans: Sequence[dict] | None) -> list[dict]:
    """The answer as a one-item context (its text and the spans it quotes), to score it like a context."""
    return [{"kind": "answer", "ref": "answer", "text": answer or "", "spans": [dict(s) for s in spans or []]}]


def score_question(question: dict, context: Sequence[dict], text_of=None) -> dict:
    """{'score', 'precision'}: score is accuracy (single) or recall (aggregate); precision is None for single.
    A question graded by key facts (wikigen.ask.keyfacts) scores the share of them found in the context's
    text; its score is None when its answer has no key fact (it is then left out of the means). A question
    graded by spans scores character recall and precision (score_spans; text_of checks the spans)."""
    if graded_by_spans(question):
        r, p = score_spans(question, context, text_of)
        return {"score": r, "precision": p}
    if graded_by_cited_docs(question):
        r, p, f1 = score_cited_docs(question, context, text_of)
        return {"score": r, "precision": p, "f1": f1}
    if graded_by_key_facts(question):
        return {"score": score_keyfacts(question, context), "precision": None}
    if question.get("kind") == "aggregate":
        r, p = score_aggregate(question, context)
        return {"score": r, "precision": p}
    return {"score": score_single(question, context), "precision": in_document_share(question, context, text_of)}


# --- summary -----------------------------------------------------------------------------------


def _p50(values: list[float]) -> float:
    return float(statistics.median(values)) if values else 0.0


def summarize(rows: Sequence[dict]) -> list[dict]:
    """One summary row per (mode, kind), in the order modes first appear, single first, then aggregate,
    then other kinds by name; questions that could not be scored are counted in 'unscored'."""
    modes: list[str] = []
    for r in rows:
        if r["mode"] not in modes:
            modes.append(r["mode"])
    kinds = sorted({r["kind"] for r in rows}, key=lambda k: (k != "single", k != "aggregate", k))
    out = []
    for mode in modes:
        for kind in kinds:
            every = [r for r in rows if r["mode"] == mode and r["kind"] == kind]
            rs = [r for r in every if r["score"] is not None]
            if not rs:
                continue
            precs = [r["precision"] for r in rs if r["precision"] is not None]
            answers = [r["answer_score"] for r in rs if r.get("answer_score") is not None]
            out.append(
                {
                    "mode": mode,
                    "kind": kind,
                    "n": len(rs),
                    "unscored": len(every) - len(rs),
                    "score": sum(r["score"] for r in rs) / len(rs),
                    "precision": (sum(precs) / len(precs)) if precs else None,
                    "answer_recall": (sum(answers) / len(answers)) if answers else None,
                    "mean_tokens": sum(r["tokens"] for r in rs) / len(rs),
                    "p50_latency_ms": _p50([r["latency_ms"] for r in rs]),
                }
            )
    return out


def format_table(summary: Sequence[dict]) -> str:
    head = (
        f"{'mode':<12} {'kind':<10} {'n':>5} {'acc/recall':>10} {'precision':>9} {'answer':>7} "
        f"{'tokens':>7} {'p50 ms':>7}"
    )
    lines = [head, "-" * len(head)]
    for s in summary:
        prec = f"{s['precision']:.3f}" if s["precision"] is not None else "-"
        ans = f"{s['answer_recall']:.3f}" if s.get("answer_recall") is not None else "-"
        lines.append(
            f"{s['mode']:<12} {s['kind']:<10} {s['n']:>5} {s['score']:>10.3f} {prec:>9} {ans:>7} "
            f"{s['mean_tokens']:>7.0f} {s['p50_latency_ms']:>7.1f}"
        )
    lines.append("acc/recall: gold evidence in the context; answer: gold evidence in the answer's own quotes")
    return "\n".join(lines)


@dataclass
class EvalReport:
    rows: list[dict] = field(default_factory=list)
    summary: list[dict] = field(default_factory=list)
    budget: int = 0
    questions: int = 0
    report_path: Path | None = None
    chart_path: Path | None = None

    def table(self) -> str:
        return format_table(self.summary)

    def to_dict(self) -> dict:
        return {"budget": self.budget, "questions": self.questions, "summary": self.summary, "rows": self.rows}


# --- sampling ----------------------------------------------------------------------------------


def spread_sample(questions: Sequence[dict], limit: int | None) -> list[dict]:
    """A deterministic sample of `limit` questions spread across kinds (at least a fair share of
    each kind, as available) and evenly across each kind's file order."""
    if limit is None or limit >= len(questions):
        return list(questions)
    kinds: dict[str, list[dict]] = {}
    for q in questions:
        kinds.setdefault(q.get("kind", "single"), []).append(q)
    share = {k: min(len(v), limit // len(kinds)) for k, v in kinds.items()}
    left = limit - sum(share.values())
    for k in sorted(kinds, key=lambda k: -len(kinds[k])):  # give the remainder to the larger kinds
        extra = min(left, len(kinds[k]) - share[k])
        share[k] += extra
        left -= extra
    picked: list[dict] = []
    for k, qs in kinds.items():
        n = share[k]
        if n <= 0:
            continue
        step = len(qs) / n
        picked.extend(qs[int(i * step)] for i in range(n))
    order = {id(q): i for i, q in enumerate(questions)}
    return sorted(picked, key=lambda q: order[id(q)])


# --- running -----------------------------------------------------------------------------------


def text_reader(index):
    """doc id -> the document's extracted text (None for an unknown document): what span checks read."""

    if index is None:
        return None

    def text_of(doc_id: str) -> str | None:
        try:
            return index.texts.text(doc_id)
        except (KeyError, OSError, ValueError):
            return None

    return text_of


def run_eval(
    questions_path,
    *,
    wiki: Path,
    modes: Sequence[str] | None = None,
    budget: int = 4000,
    out_dir: Path | None = Path("eval-out"),
    limit: int | None = None,
    spread: bool = False,
    answerer=None,
    chart: bool = True,
    progress=None,
) -> EvalReport:
    """Answer every question in every mode, score it, write the report and chart into out_dir.

    questions_path: a questions.jsonl, or a list of question dicts. limit: only the first N
    questions (or, with spread=True, a deterministic sample across kinds). progress(done, total),
    when given, is called after each answer (total: questions x modes)."""
    from wikigen.ask.retrieval import Answerer

    questions = (
        list(questions_path) if isinstance(questions_path, (list, tuple)) else read_questions(Path(questions_path))
    )
    questions = spread_sample(questions, limit) if spread else questions[: limit if limit is not None else None]
    modes = list(modes or MODES)
    answerer = answerer or Answerer.open(Path(wiki))
    rows: list[dict] = []
    text_of = text_reader(getattr(answerer, "index", None))
    for mode in modes:
        for q in questions:
            t0 = time.perf_counter()
            result = answerer.ask(q["question"], mode=mode, budget=budget)
            latency = (time.perf_counter() - t0) * 1000.0
            ctx = [c.to_dict() for c in result.context]
            s = score_question(q, ctx, text_of)
            a = score_question(q, answer_context(result.answer, result.answer_spans), text_of)
            rows.append(
                {
                    "id": q["id"],
                    "mode": mode,
                    "kind": q.get("kind", "single"),
                    "category": q.get("category"),
                    "score": s["score"],
                    "precision": s["precision"],
                    "answer_score": a["score"],
                    "answer_precision": a["precision"],
                    "f1": s.get("f1"),
                    "answer_f1": a.get("f1"),
                    "answer_quotes": len(result.answer_spans or []),
                    "tokens": result.tokens,
                    "latency_ms": round(latency, 2),
                    "context_items": len(ctx),
                    "cited_docs": len(cited_docs(ctx)),
                    "scope": result.scope,
                }
            )
            if progress is not None:
                progress(len(rows), len(questions) * len(modes))
    report = EvalReport(rows=rows, summary=summarize(rows), budget=budget, questions=len(questions))
    if out_dir is not None:
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        report.report_path = out_dir / "eval-report.json"
        atomic_write(report.report_path, json.dumps(report.to_dict(), ensure_ascii=False, indent=1))
        if chart:
            report.chart_path = out_dir / "eval-chart.svg"
            draw_chart(report.summary, report.chart_path, budget=budget)
    return report
