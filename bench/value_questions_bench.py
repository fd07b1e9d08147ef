"""Questions that name a value, asked of a built cuad-dev wiki: do the documents the answer cites match the experts'?

    .venv/bin/python bench/value_questions_bench.py --wiki bench-out/cuad-dev-wiki

The questions are made from cuad-dev's expert answers (grading only: the product never reads them): for every
governing law, notice period to stop renewal and renewal term that at least two contracts share, and for
contracts with no fixed end ("perpetual"), the set of contracts with that value is the gold. Each is asked in
three plain phrasings written for this bench (not the eval file's template), in `wiki+search` mode with the
offline answer, beside `search` mode (BM25 and passage vectors, the same offline answer) in the same run. A
question scores the precision, recall and F1 of the documents its answer cites (`answer_spans`) against the gold
set; the means over questions are printed with their standard errors, per field and over all.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _eval_data import EVAL_ROOT  # noqa: E402  (the dev corpora, found from any checkout)
from values_bench import gold_days  # noqa: E402

PHRASINGS = {
    "governing law": [
        "Which contracts are governed by {v} law?",
        "List the agreements whose governing law is {v}.",
        "What contracts are subject to the laws of {v}?",
    ],
    "notice to stop renewal": [
        "Which contracts need {v} notice to stop automatic renewal?",
        "List the agreements where notice of non-renewal must be given {v} before the term ends.",
        "What contracts require {v} of notice to cancel renewal?",
    ],
    "renewal term": [
        "Which contracts renew for {v} terms?",
        "List the agreements that automatically renew for successive {v} periods.",
        "What contracts have a renewal term of {v}?",
    ],
    "no fixed end": [
        "Which contracts have no fixed end date?",
        "List the agreements that are perpetual.",
        "What contracts never expire?",
    ],
}


def _duration_words(days: float) -> str | None:
    for unit, n in (("year", 365.25), ("month", 30.4375), ("day", 1.0)):
        k = days / n
        if abs(k - round(k)) < 0.02 and round(k) >= 1:
            k = round(k)
            return f"{k} {unit}" + ("s" if k > 1 and unit == "day" else "")
    return None


def gold_sets(questions: list[dict]) -> list[tuple[str, str, set[str]]]:
    """(field, value words, the contracts that state it) from the experts' single answers."""
    law: dict[str, set[str]] = defaultdict(set)
    notice: dict[str, set[str]] = defaultdict(set)
    renewal: dict[str, set[str]] = defaultdict(set)
    perpetual: set[str] = set()
    for q in questions:
        if q.get("kind") != "single" or not q.get("source_doc_ids"):
            continue
        d, a, cat = q["source_doc_ids"][0], q["answer"], q["category"]
        if cat == "Governing Law":
            for name in re.split(r";", a):
                name = name.split(",")[0].strip()
                if name and len(name) < 40 and "[" not in name:
                    law[name].add(d)
        elif cat == "Notice Period To Terminate Renewal":
            g = gold_days(a)
            if isinstance(g, float) and (w := _duration_words(g)):
                notice[w].add(d)
        elif cat == "Renewal Term":
            g = gold_days(a)
            if isinstance(g, float) and (w := _duration_words(g)):
                renewal[w].add(d)
        elif cat == "Expiration Date" and a.strip().lower() == "perpetual":
            perpetual.add(d)
    out = [("governing law", v, s) for v, s in sorted(law.items()) if len(s) >= 2]
    out += [("notice to stop renewal", v, s) for v, s in sorted(notice.items()) if len(s) >= 2]
    out += [("renewal term", v, s) for v, s in sorted(renewal.items()) if len(s) >= 2]
    if len(perpetual) >= 2:
        out.append(("no fixed end", "", perpetual))
    return out


def prf(cited: set[str], gold: set[str]) -> tuple[float, float, float]:
    tp = len(cited & gold)
    p = tp / len(cited) if cited else 0.0
    r = tp / len(gold) if gold else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def mean_se(xs: list[float]) -> str:
    if not xs:
        return "-"
    m = sum(xs) / len(xs)
    se = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1) / len(xs)) if len(xs) > 1 else 0.0
    return f"{m:.3f} ±{se:.3f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wiki", default=str(ROOT / "bench-out" / "cuad-dev-wiki"))
    ap.add_argument("--data", default=str(EVAL_ROOT / "cuad-dev"))
    ap.add_argument("--budget", type=int, default=4000)
    ap.add_argument("--modes", nargs="+", default=["wiki+search", "search"])
    args = ap.parse_args(argv)
    qfile = Path(args.data) / "questions.jsonl"
    if not qfile.is_file() or not (Path(args.wiki) / ".wikigen").is_dir():
        print("needs cuad-dev and a built cuad-dev wiki (bench/eval_bench.py builds one); skipped", file=sys.stderr)
        return 2
    from wikigen.ask.retrieval import Answerer

    questions = [json.loads(line) for line in qfile.read_text(encoding="utf-8").splitlines()]
    sets = gold_sets(questions)
    answerer = Answerer.open(Path(args.wiki))
    rows = []
    t0 = time.perf_counter()
    for field, value, gold in sets:
        for phrasing in PHRASINGS[field]:
            q = phrasing.format(v=value)
            for mode in args.modes:
                r = answerer.ask(q, mode=mode, budget=args.budget)
                cited = {s["doc_id"] for s in r.answer_spans or []}
                p, rec, f1 = prf(cited, gold)
                rows.append(
                    {
                        "field": field,
                        "value": value,
                        "question": q,
                        "mode": mode,
                        "gold": len(gold),
                        "cited": len(cited),
                        "precision": p,
                        "recall": rec,
                        "f1": f1,
                    }
                )
    print(f"{len(sets)} value sets x 3 phrasings, {len(rows)} answers in {time.perf_counter() - t0:.0f} s")
    for mode in args.modes:
        print(f"== {mode}")
        for field in PHRASINGS:
            rs = [r for r in rows if r["mode"] == mode and r["field"] == field]
            if rs:
                print(
                    f"  {field:<24} n={len(rs):<4} F1 {mean_se([r['f1'] for r in rs])}  precision "
                    f"{mean_se([r['precision'] for r in rs])}  recall {mean_se([r['recall'] for r in rs])}"
                )
        rs = [r for r in rows if r["mode"] == mode]
        print(
            f"  {'all':<24} n={len(rs):<4} F1 {mean_se([r['f1'] for r in rs])}  precision "
            f"{mean_se([r['precision'] for r in rs])}  recall {mean_se([r['recall'] for r in rs])}"
        )
    out = ROOT / "bench-out" / "value-questions.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
