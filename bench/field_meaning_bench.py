"""Fields by meaning: how often the classifier names the field a question asks for, at each bar (wikigen.ask.meaning).

    .venv/bin/python bench/field_meaning_bench.py            # the shipped schemas' examples, 5-fold
    .venv/bin/python bench/field_meaning_bench.py --json out.json

The data are the product's own: each schema field's example questions and the questions no field answers
(search/values/schemas/no-field-questions.txt), written for the schemas, never taken from an evaluation set.
They are split into folds (each text's fold from its hash, so the split does not depend on the order of the
files); each fold's questions are classified by a model trained on the other folds (the fields' descriptions
always train), exactly as the product trains it (`train`, `predict`).

For each bar (the probability the product asks of a field, RetrievalParams.field_confidence) it prints precision
(right claims / claims, a claim on a no-field question being wrong) and recall (right claims / example
questions), with standard errors, and the bar it would choose: the highest recall whose precision is at least
--min-precision (precision first: a wrong field answers from the wrong column, worse than passages). It also
times encoding and one training, with the machine's load.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from wikigen.search.dense.service import shared_encoder  # noqa: E402
from wikigen.search.values.schema import load_schemas, no_field_questions  # noqa: E402

from wikigen.ask.meaning import NONE, FieldMeanings, predict, train  # noqa: E402

BARS = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8]


def _se(p: float, n: int) -> float:
    return math.sqrt(p * (1 - p) / n) if n else 0.0


def _fold(text: str, folds: int) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest(), 16) % folds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--min-precision", type=float, default=0.9)
    ap.add_argument("--json", type=Path, help="write every row here")
    args = ap.parse_args(argv)

    schemas = load_schemas()
    fields = [(k, f) for k, s in schemas.items() for f in s.fields if f.type != "figures"]
    encoder = shared_encoder()
    meanings = FieldMeanings(fields, encoder, lambda t: None, no_field_questions())
    texts, labels = meanings.examples()
    abouts = {f.about for _, f in meanings.fields}
    none = meanings.names.index(NONE)
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    x = np.asarray(encoder.encode(texts), dtype=np.float32)
    t_encode = time.perf_counter() - t0

    fold = np.array([-1 if t in abouts else _fold(t, args.folds) for t in texts])  # a description always trains
    probs = np.zeros((len(texts), len(meanings.names)), dtype=np.float32)
    t_train = 0.0
    for k in range(args.folds):
        t0 = time.perf_counter()
        w, b = train(x[fold != k], labels[fold != k], len(meanings.names))
        t_train = max(t_train, time.perf_counter() - t0)
        probs[fold == k] = predict(w, b, x[fold == k])
    tested = fold >= 0
    pred, conf, truth = probs.argmax(1)[tested], probs.max(1)[tested], labels[tested]
    positives = int((truth != none).sum())

    rows = []
    for bar in BARS:
        claimed = (pred != none) & (conf >= bar)
        right = claimed & (pred == truth)
        n = int(claimed.sum())
        prec = float(right.sum()) / n if n else 1.0
        rec = float(right.sum()) / positives
        rows.append(
            {
                "bar": bar,
                "claims": n,
                "precision": prec,
                "precision_se": _se(prec, n),
                "recall": rec,
                "recall_se": _se(rec, positives),
                "no_field_claimed": int((claimed & (truth == none)).sum()),
            }
        )
    print(
        f"{len(meanings.names) - 1} fields, {positives} example questions, {int((truth == none).sum())} questions no "
        f"field answers, {args.folds}-fold; encoding {len(texts)} texts {t_encode:.2f} s, one training "
        f"{t_train:.2f} s (load {load:.2f})"
    )
    print(f"most likely class right, no bar: {float((pred == truth)[truth != none].mean()):.3f}")
    print(f"{'bar':>5} {'claims':>6} {'precision':>15} {'recall':>15} {'no-field claimed':>16}")
    for r in rows:
        print(
            f"{r['bar']:>5.2f} {r['claims']:>6} {r['precision']:>8.3f} ±{r['precision_se']:.3f} "
            f"{r['recall']:>8.3f} ±{r['recall_se']:.3f} {r['no_field_claimed']:>16}"
        )
    ok = [r for r in rows if r["precision"] >= args.min_precision and r["claims"]]
    if ok:
        best = max(ok, key=lambda r: (r["recall"], -r["bar"]))
        print(
            f"chosen (precision >= {args.min_precision}, then recall): bar {best['bar']:.2f}: precision "
            f"{best['precision']:.3f}, recall {best['recall']:.3f}"
        )
    else:
        print(f"no bar reaches precision {args.min_precision}")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
