"""Offline answers: answer recall of ExtractiveAnswer beside context recall, on the dev and holdout halves.

    .venv/bin/python bench/answer_bench.py --wiki bench-out/cuad-wiki --data ../shared/eval/cuad-dev --limit 500
    .venv/bin/python bench/answer_bench.py --wiki bench-out/cuad-wiki --limit 500 --passages   # with passage vectors
    .venv/bin/python bench/answer_bench.py --wiki bench-out/sec10q-wiki --data ../shared/eval/sec10q-dev

The wiki must be built already (bench/eval_bench.py or `wikigen build`). Each question's context is
retrieved once (wiki+search, 4,000 tokens) and saved to --contexts (reused when it exists, so the
answer composition can be re-scored quickly); then every generator answers from the same context:
`lexical` (words alone) and, with --passages, `passages` (each sentence also weighs its passage's vector).
Answer recall scores the answer's own spans (wikigen.ask.evaluate.answer_context) like a context:
a gold span counts when the answer's quotes cover half of it; a key-facts question counts the facts
in the answer's text. Also printed: mean quotes per answer and how many answers are "Not found".
Targets (issue 12): cuad-dev single answer recall >= 0.40 with at most three quotes; calibration: BM25's
top passage covers the gold clause for 0.22 of held-out CUAD single questions, its top three for 0.31.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _eval_data import EVAL_ROOT  # noqa: E402  (the dev corpora, found from any checkout)

from wikigen.ask.context import ContextItem  # noqa: E402
from wikigen.ask.evaluate import answer_context, score_question, spread_sample  # noqa: E402
from wikigen.ask.generate import NOTHING_FOUND, ExtractiveAnswer  # noqa: E402
from wikigen.ask.questions import read_questions  # noqa: E402
from wikigen.ask.scope import Scope  # noqa: E402


def retrieve_all(wiki: Path, questions: list[dict], limit: int | None, budget: int) -> list[dict]:
    from wikigen.ask.retrieval import Answerer

    answerer = Answerer.open(wiki)
    rows = []
    for half, sub in (("dev", questions[0::2]), ("holdout", questions[1::2])):
        for q in spread_sample(sub, limit) if limit else sub:
            items, _, scope = answerer.retrieve(q["question"], "wiki+search", budget)
            rows.append(
                {
                    "half": half,
                    "q": q,
                    "context": [c.to_dict() for c in items],
                    "scope": {
                        "kind": scope.kind,
                        "pages": scope.pages,
                        "doc_ids": scope.doc_ids,
                        "removed": sorted(scope.removed),
                        "phrase": scope.phrase,
                    },
                }
            )
    return rows


def score_rows(rows: list[dict], generator) -> dict:
    out: dict[tuple[str, str], list[tuple[float, float, int, bool]]] = {}
    for r in rows:
        q = r["q"]
        items = [ContextItem(c["kind"], c["ref"], c["text"], c["spans"]) for c in r["context"]]
        sc = r["scope"]
        scope = Scope(sc["kind"], sc["pages"], sc["doc_ids"], set(sc["removed"]), sc["phrase"])
        g = generator.answer(q["question"], items, scope)
        a = score_question(q, answer_context(g.text, g.spans))["score"]
        c = score_question(q, r["context"])["score"]
        if a is None:
            continue
        out.setdefault((r["half"], q.get("kind", "single")), []).append((a, c, len(g.spans), g.text == NOTHING_FOUND))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wiki", required=True, help="a built wiki of the corpus")
    ap.add_argument("--data", default=str(EVAL_ROOT / "cuad-dev"), help="folder with questions.jsonl")
    ap.add_argument("--limit", type=int, default=None, help="a deterministic sample of N questions per half")
    ap.add_argument("--budget", type=int, default=4000)
    ap.add_argument("--contexts", default=None, help="cache of the retrieved contexts (default: next to the wiki)")
    ap.add_argument(
        "--passages",
        action="store_true",
        help="also score the generator with the index's passage vectors (only the question is encoded)",
    )
    args = ap.parse_args(argv)
    qfile = Path(args.data) / "questions.jsonl"
    if not qfile.is_file() or not Path(args.wiki).is_dir():
        print(f"need {qfile} and a built wiki at {args.wiki}", file=sys.stderr)
        return 2
    cache = Path(args.contexts or f"{args.wiki.rstrip('/')}-contexts-{args.limit or 'all'}.jsonl")
    if cache.is_file():
        rows = [json.loads(line) for line in cache.read_text(encoding="utf-8").splitlines() if line.strip()]
    else:
        t0 = time.perf_counter()
        rows = retrieve_all(Path(args.wiki), read_questions(qfile), args.limit, args.budget)
        cache.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
        print(f"retrieved {len(rows)} contexts in {time.perf_counter() - t0:.0f} s -> {cache}")
    generators = {"lexical": ExtractiveAnswer()}
    if args.passages:
        from wikigen.search.dense.service import open_dense
        from wikigen.search.sources import open_wiki

        dense = open_dense(open_wiki(Path(args.wiki)).sources)
        if dense is None:
            print("--passages: the index has no passage vectors or the encoder cannot run; skipped", file=sys.stderr)
        else:
            generators["passages"] = ExtractiveAnswer(passages=dense)
    print(
        f"{'generator':<9} {'half':<8} {'kind':<10} {'n':>4} {'context':>8} {'answer':>7} {'quotes':>6} "
        f"{'not found':>9} {'s/q':>5}"
    )
    for name, gen in generators.items():
        t0 = time.perf_counter()
        res = score_rows(rows, gen)
        per_q = (time.perf_counter() - t0) / max(1, len(rows))
        for (half, kind), v in sorted(res.items()):
            n = len(v)
            print(
                f"{name:<9} {half:<8} {kind:<10} {n:>4} {sum(x[1] for x in v) / n:>8.3f} {sum(x[0] for x in v) / n:>7.3f} "
                f"{sum(x[2] for x in v) / n:>6.2f} {sum(x[3] for x in v):>9} {per_q:>5.2f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
