"""Topic merging benchmark: which similarity finds the variants of one subject, measured on hand-labelled
pairs of candidate topics of cuad-dev (bench/data/topic-merge-pairs.json).

    .venv/bin/python bench/topic_merge_bench.py [--data ../shared/eval/cuad-dev] [--index DIR]

Discovers the topics twice (wikigen.agents.topics.discover): with titles compared by content words
(corpus-only) and by the sentence encoder (all-MiniLM-L6-v2, when installed). Both share the context
vectors (tf-idf of the topics' quotes). For each labelled pair it takes the context cosine and the
title similarity, and prints precision, recall and F1 of "merge" against the labels for several title
weights and thresholds, next to the seconds each discovery took. A pair never compared (no strong
context word or key word in common: wikigen.agents.meaning.Space.neighbours) scores 0. --index reuses an index folder (read only).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _eval_data import EVAL_ROOT

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
LABELS = ROOT / "bench" / "data" / "topic-merge-pairs.json"


def _discover(index, encoder):
    from wikigen.agents.topics import discover

    docs = index.documents()
    texts = {d.doc_id: index.texts.text(d.doc_id) for d in docs}
    report: dict = {}
    t0 = time.perf_counter()
    cat = discover(texts, {d.doc_id: d.title for d in docs}, encoder=encoder, report=report)
    return cat, report, time.perf_counter() - t0


def _scores(pairs, sims, weight, threshold):
    tp = fp = fn = 0
    for p in pairs:
        ctx, title = sims.get((p["a"], p["b"])) or sims.get((p["b"], p["a"])) or (0.0, 0.0)
        merge = weight * title + (1 - weight) * ctx >= threshold
        tp += merge and p["same"]
        fp += merge and not p["same"]
        fn += (not merge) and p["same"]
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    return prec, rec, 2 * prec * rec / (prec + rec) if prec + rec else 0.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(EVAL_ROOT / "cuad-dev"))
    ap.add_argument("--index", default=None, help="an existing index folder of the corpus (read only)")
    args = ap.parse_args(argv)
    from wikigen.search.index import CorpusIndex

    docs = Path(args.data) / "docs"
    if args.index is None and not docs.is_dir():
        print(f"no corpus at {docs}: pass --data DIR or --index DIR", file=sys.stderr)
        return 2
    pairs = json.loads(LABELS.read_text())["pairs"]
    with tempfile.TemporaryDirectory(prefix="wikigen-merge-bench-") as tmp:
        index = CorpusIndex.open(Path(args.index)) if args.index else CorpusIndex.build(docs, Path(tmp) / "index")[0]
        modes: dict[str, Any] = {"words": None}  # mode -> its encoder (None: by words)
        try:
            if os.environ.get("WIKIGEN_BENCH_NO_ENCODER"):
                raise RuntimeError("WIKIGEN_BENCH_NO_ENCODER is set")
            from wikigen.search.dense.encoder import load_encoder

            modes["encoder"] = load_encoder()
        except Exception as e:
            print(f"encoder mode skipped: {e}")
        print(f"{len(pairs)} labelled pairs, {sum(p['same'] for p in pairs)} same subject")
        print(
            f"{'titles by':<9} {'seconds':>7} {'topics':>6} {'weight':>6} {'thresh':>6} {'prec':>5} {'recall':>6} {'F1':>5}"
        )
        for name, enc in modes.items():
            cat, report, secs = _discover(index, enc)
            for weight in (0.0, 0.5, 0.7, 1.0):
                best = max(
                    (_scores(pairs, report["sims"], weight, th)[2], th) for th in [x / 100 for x in range(5, 96, 5)]
                )
                for th in sorted({0.2, 0.3, 0.4, 0.5, best[1]}):
                    p, r, f = _scores(pairs, report["sims"], weight, th)
                    mark = " <- best F1" if th == best[1] else ""
                    print(
                        f"{name:<9} {secs:>7.1f} {len(cat.topics):>6} {weight:>6.1f} {th:>6.2f} {p:>5.2f} {r:>6.2f} "
                        f"{f:>5.2f}{mark}"
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
