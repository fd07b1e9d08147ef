"""Corpus-derived vectors (LSA) beside the contextual encoder (all-MiniLM-L6-v2), each fused with BM25
(issue 12, part 3: "corpus-derived vectors are a lighter alternative to measure beside it").

    .venv/bin/python bench/lsa_bench.py                              # both dev corpora, every question
    .venv/bin/python bench/lsa_bench.py --index-root .cache/index   # indexes with their vectors elsewhere
    .venv/bin/python bench/lsa_bench.py --limit 400 --dims 128

LSA here: tf-idf of the index's own passages (the index's analyzer, sublinear tf, terms in at least two
passages and at most half of them, the --vocab most frequent), reduced by a randomized SVD (numpy, two
power iterations) to --dims dimensions; a passage's vector is its row times the right singular
vectors, a query's its tf-idf the same way; cosine. Built once per corpus from the passages (its
seconds printed), nothing trained elsewhere.

Five rankings of the same ~1,000-character passages (read 100 deep), each filling a 4,000-token budget
with whole passages like the plain-BM25 baseline of the eval READMEs (`eval_bench.fill`): bm25, dense
(MiniLM, the index's cached vectors), rrf (BM25 + MiniLM, k = 60: what `search` builds on), lsa, and
rrf-lsa (BM25 + LSA). Scored as in bench/dense_bench.py: cuad-dev single accuracy and aggregate recall,
sec10q-dev key facts of multi and single questions; dev (even positions) and holdout (odd) halves.
The index must hold the passage vectors (`wikigen index` with the model, or the eval bench's copy).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _eval_data import EVAL_ROOT  # noqa: E402  (the dev corpora, found from any checkout)
from dense_bench import format_table, passage_tokens, summarize  # noqa: E402
from eval_bench import fill  # noqa: E402
from wikigen.search.analysis import ANALYZER  # noqa: E402
from wikigen.search.dense.encoder import load_encoder  # noqa: E402
from wikigen.search.dense.hybrid import DenseSearcher, rrf_fuse  # noqa: E402
from wikigen.search.index import CorpusIndex  # noqa: E402

from wikigen.ask.evaluate import score_question  # noqa: E402
from wikigen.ask.keyfacts import score_keyfacts  # noqa: E402
from wikigen.ask.questions import read_questions  # noqa: E402

METHODS = ("bm25", "dense", "rrf", "lsa", "rrf-lsa")


class LsaEncoder:
    """tf-idf -> the SVD's right singular vectors: passages and queries alike."""

    name = "lsa"

    def __init__(self, passages: list[str], vocab: int, dims: int, seed: int = 0):
        import numpy as np

        self.np = np
        counts = [Counter(ANALYZER.analyze(p)) for p in passages]
        df = Counter(t for c in counts for t in c)
        n = len(passages)
        keep = [t for t, d in df.most_common() if 2 <= d <= n // 2][:vocab]
        self.col = {t: i for i, t in enumerate(keep)}
        self.idf = np.array([math.log(n / df[t]) for t in keep], dtype=np.float32)
        a = np.zeros((n, len(keep)), dtype=np.float32)
        for i, c in enumerate(counts):
            for t, k in c.items():
                j = self.col.get(t)
                if j is not None:
                    a[i, j] = 1.0 + math.log(k)
        a *= self.idf
        a /= np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-9)
        rng = np.random.default_rng(seed)
        y = a @ rng.standard_normal((a.shape[1], dims + 10), dtype=np.float32)
        for _ in range(2):  # power iterations
            y = a @ (a.T @ np.linalg.qr(y)[0])
        q, _ = np.linalg.qr(y)
        _, _, vt = np.linalg.svd(q.T @ a, full_matrices=False)
        self.v = vt[:dims].T.astype(np.float32)  # vocab x dims
        self.dim = self.v.shape[1]
        self.passages = self._unit(a @ self.v)

    def _unit(self, m):
        return m / self.np.maximum(self.np.linalg.norm(m, axis=1, keepdims=True), 1e-9)

    def encode(self, texts: Sequence[str]):
        np = self.np
        m = np.zeros((len(texts), len(self.col)), dtype=np.float32)
        for i, t in enumerate(texts):
            for term, k in Counter(ANALYZER.analyze(t)).items():
                j = self.col.get(term)
                if j is not None:
                    m[i, j] = 1.0 + math.log(k)
        return self._unit((m * self.idf) @ self.v)


def run_corpus(name: str, args) -> dict:
    data = Path(args.data_root) / name
    index_dir = Path(args.index_root) / f"{name}-index"
    if not (data / "questions.jsonl").is_file() or not (index_dir / "manifest.json").is_file():
        print(f"{name}: no questions at {data} or no index at {index_dir}; skipped", file=sys.stderr)
        return {}
    index = CorpusIndex.open(index_dir)
    dense = DenseSearcher.open(index, load_encoder())
    if not len(dense):
        print(f"{name}: the index at {index_dir} has no passage vectors; skipped", file=sys.stderr)
        return {}
    t0 = time.perf_counter()
    texts = {d: index.texts.text(d) for d, _, _ in dense.rows}
    lsa_enc = LsaEncoder([texts[d][s:e] for d, s, e in dense.rows], args.vocab, args.dims)
    lsa = DenseSearcher(index, lsa_enc, lsa_enc.passages, dense.rows)
    built = time.perf_counter() - t0
    questions = [dict(q, position=i) for i, q in enumerate(read_questions(data / "questions.jsonl"))]
    if args.limit:
        questions = questions[:: max(1, len(questions) // args.limit)][: args.limit]
    if name.startswith("cuad"):
        kinds, scorer = ("single", "aggregate"), lambda q, ctx: score_question(q, ctx)["score"]
    else:
        kinds, scorer = ("multi", "single"), score_keyfacts
    tokens_of = passage_tokens()
    rows = []
    for q in questions:
        bm = index.search(q["question"], k=args.depth)
        dn = dense.search(q["question"], k=args.depth, snippets=False)
        ls = lsa.search(q["question"], k=args.depth, snippets=False)
        lists = {
            "bm25": bm,
            "dense": dn,
            "rrf": rrf_fuse([bm, dn], args.depth),
            "lsa": ls,
            "rrf-lsa": rrf_fuse([bm, ls], args.depth),
        }
        for m, hits in lists.items():
            rows.append(
                {
                    "id": q["id"],
                    "position": q["position"],
                    "kind": q.get("kind"),
                    "method": m,
                    "score": scorer(q, fill(hits, args.budget, tokens_of)),
                }
            )
    print(
        f"\n== {name}: {len(dense.rows)} passages, {len(questions)} questions; LSA ({len(lsa_enc.col)} terms -> "
        f"{args.dims} dimensions) built in {built:.1f} s"
    )
    table = summarize(rows, kinds, METHODS)
    print(format_table(table, kinds, METHODS))
    return {"corpus": name, "table": table}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-root", default=str(EVAL_ROOT))
    ap.add_argument("--index-root", default=str(ROOT / "bench-out"), help="holds <corpus>-index folders")
    ap.add_argument("--corpora", nargs="+", default=["sec10q-dev", "cuad-dev"])
    ap.add_argument("--limit", type=int, default=0, help="a deterministic sample of this many questions (0: all)")
    ap.add_argument("--budget", type=int, default=4000)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--vocab", type=int, default=8000)
    ap.add_argument("--dims", type=int, default=256)
    args = ap.parse_args(argv)
    results = [r for r in (run_corpus(c, args) for c in args.corpora) if r]
    return 0 if results else 2


if __name__ == "__main__":
    sys.exit(main())
