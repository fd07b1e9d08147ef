"""Measure dense and hybrid retrieval against plain BM25 on both dev corpora (issue 12, part 3).

    .venv/bin/python bench/dense_bench.py                       # sec10q-dev whole, cuad-dev's first 60 documents
    .venv/bin/python bench/dense_bench.py --cuad-docs 252       # all of cuad-dev (about 12,000 passages to embed)
    .venv/bin/python bench/dense_bench.py --corpora sec10q-dev
    .venv/bin/python bench/dense_bench.py --max-tokens 256 128 64    # what a vector's truncation costs

For each question, three rankings of the index's own ~1,000-character passages (read 100 deep):
(a) BM25 (`CorpusIndex.search`), (b) dense (all-MiniLM-L6-v2 in numpy, cosine over the cached passage
vectors), (c) their reciprocal rank fusion (k = 60). With several --max-tokens, (b) and (c) are run once per truncation
of the encoder (dense-128, rrf-128, ...), on the same questions: what a shorter vector costs. Each fills a 4,000-token budget (the project's
token counter, passage text only) with whole passages, best first, skipping a passage that no longer
fits - the plain-BM25 baseline of the eval READMEs. Scores:
- sec10q-dev: the README's key facts (wikigen.ask.keyfacts), by kind (multi / single); questions whose
  answer has no key facts are left out (their count is printed);
- cuad-dev: evidence recall as `wikigen eval` scores it (wikigen.ask.evaluate.score_question): single
  accuracy, aggregate recall. Only a subset of the documents is embedded (the first N by doc id,
  --cuad-docs): single questions about those documents, and aggregate questions with their gold
  documents and evidence restricted to them (dropped when none is left).
Columns: the dev half (questions at even positions of questions.jsonl) and the holdout half (odd); each
score is followed by its standard error (the standard deviation of the per-question scores over sqrt(n)).

The index and the vectors are kept in --out and reused (the vectors incrementally: only documents
whose sha256 has no vectors yet are embedded); the embedding time of this run is printed.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _eval_data import EVAL_ROOT  # noqa: E402  (the dev corpora, found from any checkout)
from eval_bench import fill  # noqa: E402  (the plain-BM25 baseline's budget filling, one copy)
from wikigen.search.dense.encoder import DEFAULT_MAX_TOKENS, load_encoder  # noqa: E402
from wikigen.search.dense.hybrid import DenseSearcher, rrf_fuse  # noqa: E402
from wikigen.search.dense.store import VectorStore  # noqa: E402
from wikigen.search.index import CorpusIndex  # noqa: E402

from wikigen.ask.evaluate import score_question  # noqa: E402
from wikigen.ask.keyfacts import score_keyfacts  # noqa: E402
from wikigen.ask.questions import read_questions  # noqa: E402
from wikigen.core.tokens import default_counter  # noqa: E402

METHODS = ("bm25", "dense", "rrf")


def passage_tokens():
    """A hit's token count (the project's counter), each passage counted once."""
    counter, cache = default_counter(), {}

    def tokens_of(h):
        key = (h.doc_id, h.start)
        if key not in cache:
            cache[key] = counter.count(h.text)
        return cache[key]

    return tokens_of


def cuad_subset(data: Path, out: Path, n_docs: int) -> tuple[Path, list[dict], str]:
    """A corpus folder with the first n_docs contracts (copied), and the questions about them."""
    docs = sorted(p for p in (data / "docs").glob("*.txt"))[:n_docs]
    keep = {p.stem for p in docs}
    corpus = out / f"cuad-dev-first{len(docs)}" / "docs"
    corpus.mkdir(parents=True, exist_ok=True)
    for p in docs:
        dst = corpus / p.name
        if not dst.is_file() or dst.stat().st_size != p.stat().st_size:
            shutil.copyfile(p, dst)
    for p in corpus.glob("*.txt"):
        if p.stem not in keep:
            p.unlink()
    questions = []
    for pos, q in enumerate(read_questions(data / "questions.jsonl")):
        q = dict(q, position=pos)
        ev = [e for e in q.get("evidence") or [] if e.get("doc_id") in keep]
        if q.get("kind") == "aggregate":
            gold = [d for d in q.get("answer_list") or [] if d in keep]
            if not gold:
                continue
            questions.append(dict(q, answer_list=gold, evidence=ev))
        elif ev and all(d in keep for d in (q.get("source_doc_ids") or [e["doc_id"] for e in ev])):
            questions.append(dict(q, evidence=ev))
    note = f"the first {len(docs)} of {len(list((data / 'docs').glob('*.txt')))} documents by doc id"
    return corpus, questions, note


def prepare(name: str, data: Path, out: Path, cuad_docs: int):
    if name.startswith("cuad"):
        corpus, questions, note = cuad_subset(data, out, cuad_docs)
        kinds, scorer = ("single", "aggregate"), lambda q, ctx: score_question(q, ctx)["score"]
    else:
        corpus = data / "docs"
        questions = [dict(q, position=i) for i, q in enumerate(read_questions(data / "questions.jsonl"))]
        note = "all documents"
        kinds, scorer = ("multi", "single"), score_keyfacts
    return corpus, questions, note, kinds, scorer


def run_corpus(name: str, args) -> dict:
    data = Path(args.data_root) / name
    if not (data / "questions.jsonl").is_file():
        print(f"{name}: not found at {data}; skipped", file=sys.stderr)
        return {}
    out = Path(args.out) / name
    corpus, questions, note, kinds, scorer = prepare(name, data, out, args.cuad_docs)
    t0 = time.perf_counter()
    index, isum = CorpusIndex.build(corpus, out / "index")
    print(
        f"\n== {name} ({note}): {isum.documents} documents, {isum.passages} passages, "
        f"{len(questions)} questions; index {time.perf_counter() - t0:.1f} s"
    )
    methods, searchers = ["bm25"], {}
    for m in args.max_tokens:
        encoder = load_encoder(max_tokens=m)
        dsum = VectorStore(index, encoder).update()
        print(f"   embedding, {encoder.name}: {dsum.to_text()}")
        searchers[m] = DenseSearcher.open(index, encoder)
        methods += [f"dense-{m}", f"rrf-{m}"]
    tokens_of = passage_tokens()
    rows, t_bm, t_dn = [], 0.0, 0.0
    for q in questions:
        t = time.perf_counter()
        bm = index.search(q["question"], k=args.depth)
        t_bm += time.perf_counter() - t
        lists = {"bm25": bm}
        for m, dense in searchers.items():
            t = time.perf_counter()
            dn = dense.search(q["question"], k=args.depth)
            t_dn += time.perf_counter() - t
            lists[f"dense-{m}"], lists[f"rrf-{m}"] = dn, rrf_fuse([bm, dn], args.depth)
        for m, hits in lists.items():
            s = scorer(q, fill(hits, args.budget, tokens_of))
            rows.append({"id": q["id"], "position": q["position"], "kind": q.get("kind"), "method": m, "score": s})
    n = max(1, len(questions))
    print(
        f"   per query: BM25 {t_bm / n * 1000:.1f} ms, dense {t_dn / n / len(searchers) * 1000:.1f} ms (query encoding included)"
    )
    table = summarize(rows, kinds, methods)
    print(format_table(table, kinds, methods))
    if len(args.max_tokens) > 1:
        print(paired_table(rows, kinds, args.max_tokens))
    unscored = sum(1 for r in rows if r["method"] == "bm25" and r["score"] is None)
    if unscored:
        print(f"   ({unscored} questions have no key facts and are left out)")
    return {
        "corpus": name,
        "subset": note,
        "documents": isum.documents,
        "passages": isum.passages,
        "questions": len(questions),
        "max_tokens": args.max_tokens,
        "table": table,
        "rows": rows,
    }


def summarize(rows: list[dict], kinds, methods=METHODS) -> dict:
    out: dict = {}
    for m in methods:
        for kind in kinds:
            for half, parity in (("dev", 0), ("holdout", 1), ("all", None)):
                xs = [
                    r["score"]
                    for r in rows
                    if r["method"] == m
                    and r["kind"] == kind
                    and r["score"] is not None
                    and (parity is None or r["position"] % 2 == parity)
                ]
                out[f"{m}/{kind}/{half}"] = {
                    "n": len(xs),
                    "score": statistics.fmean(xs) if xs else None,
                    "se": statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else None,
                }
    return out


def format_table(table: dict, kinds, methods=METHODS) -> str:
    cols = [(k, h) for k in kinds for h in ("dev", "holdout", "all")]
    head = f"   {'method':<9}" + "".join(f" {k[:6] + ' ' + h:>17}" for k, h in cols)
    lines = [head, "   " + "-" * (len(head) - 3)]
    ns = "".join(f" {'n=' + str(table[f'bm25/{k}/{h}']['n']):>17}" for k, h in cols)
    lines.append(f"   {'':<9}{ns}")
    for m in methods:
        cells = []
        for k, h in cols:
            v, se = table[f"{m}/{k}/{h}"]["score"], table[f"{m}/{k}/{h}"]["se"]
            cell = "-" if v is None else f"{v:.3f} ±{se:.3f}" if se is not None else f"{v:.3f}"
            cells.append(f" {cell:>17}")
        lines.append(f"   {m:<9}" + "".join(cells))
    return "\n".join(lines)


def paired_table(rows: list[dict], kinds, truncations: list[int]) -> str:
    """Each shorter truncation against the first, question by question (all questions of a kind): the mean
    difference and its standard error, for dense alone and for the fusion."""
    by = {(r["method"], r["id"]): r["score"] for r in rows if r["score"] is not None}
    lines = [f"   paired, against {truncations[0]} tokens (mean difference ± its standard error, all questions):"]
    for m in ("dense", "rrf"):
        for t in truncations[1:]:
            cells = []
            for kind in kinds:
                ids = [r["id"] for r in rows if r["method"] == "bm25" and r["kind"] == kind]
                d = [by[(f"{m}-{t}", i)] - by[(f"{m}-{truncations[0]}", i)] for i in ids if (f"{m}-{t}", i) in by]
                if len(d) > 1:
                    se = statistics.stdev(d) / math.sqrt(len(d))
                    cells.append(f"{kind} {statistics.fmean(d):+.3f} ±{se:.3f} (n={len(d)})")
            lines.append(f"   {m}-{t:<5} " + "   ".join(cells))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-root", default=str(EVAL_ROOT))
    ap.add_argument("--corpora", nargs="+", default=["sec10q-dev", "cuad-dev"])
    ap.add_argument("--out", default=str(ROOT / "bench-out" / "dense"))
    ap.add_argument("--cuad-docs", type=int, default=60, help="embed only the first N cuad-dev documents")
    ap.add_argument("--budget", type=int, default=4000)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--max-tokens", type=int, nargs="+", default=[DEFAULT_MAX_TOKENS], help="the encoder's truncations")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")
    results = [r for r in (run_corpus(c, args) for c in args.corpora) if r]
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "dense-bench.json").write_text(json.dumps(results, indent=1))
    print(f"\nsummary: {Path(args.out) / 'dense-bench.json'}")
    return 0 if results else 2


if __name__ == "__main__":
    sys.exit(main())
