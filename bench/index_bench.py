"""Index benchmark: wikigen's incremental build against bare tantivy, a no-change re-run, query latency.

    .venv/bin/python bench/index_bench.py [CORPUS_DIR] [--queries N] [--seed S]

CORPUS_DIR defaults to ../shared/eval/cuad-dev/docs (next to the repo). Prints:
  1. wikigen first build: docs/s, MB/s (MB = corpus file bytes), with the default tiktoken counter
  2. bare tantivy on the same passages, same schema, fields, tokenizers and writer settings
     (heap 128 MB, threads auto, one commit), with every field value computed beforehand, so it
     does no reading, extraction, splitting, hashing, token counting, manifest or text store work;
     and the ratio wikigen/bare (target >= 0.7)
  3. the unchanged re-run and its % of the first build (target < 10%)
  4. query latency p50/p95 over N queries: seeded random pairs of frequent corpus words
"""

from __future__ import annotations

import argparse
import collections
import gc
import os
import random
import re
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import tantivy  # noqa: E402
from _eval_data import EVAL_ROOT  # noqa: E402  (the dev corpora, found from any checkout)
from wikigen.search.analysis import cjk_grams  # noqa: E402
from wikigen.search.corpus import load_corpus  # noqa: E402
from wikigen.search.index import CorpusIndex  # noqa: E402
from wikigen.search.passages import split_passages  # noqa: E402
from wikigen.search.schema import build_schema  # noqa: E402
from wikigen.search.writer import WRITER_HEAP, WRITER_THREADS  # noqa: E402

from wikigen.core.tokens import CharCounter, default_counter  # noqa: E402


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)  # all threads of this process
    return r.ru_utime + r.ru_stime


def bare_tantivy(prepared: list[tuple], out: Path) -> tuple[float, float]:
    """Index precomputed passage field values with bare tantivy; (wall seconds, CPU seconds)."""
    out.mkdir(parents=True)
    gc.collect()
    c, t = cpu_seconds(), time.perf_counter()
    index = tantivy.Index(build_schema(), path=str(out))
    w = index.writer(heap_size=WRITER_HEAP, num_threads=WRITER_THREADS)
    for doc_id, title, start, end, body, grams in prepared:
        d = tantivy.Document(doc_id=doc_id, start=start, end=end, title=title, body=body)
        if grams:
            d.add_text("cjk", grams)
        w.add_document(d)
    w.commit()
    index.reload()
    return time.perf_counter() - t, cpu_seconds() - c


def wikigen_build(corpus: Path, out: Path, counter=None):
    gc.collect()
    c, t = cpu_seconds(), time.perf_counter()
    idx, summary = CorpusIndex.build(corpus, out, counter=counter)
    return time.perf_counter() - t, cpu_seconds() - c, idx, summary


def query_words(docs, n_queries: int, seed: int) -> list[str]:
    """n_queries pairs of words drawn (seeded) from the 500 most frequent corpus words of 4+ letters."""
    counts: collections.Counter[str] = collections.Counter()
    for d in docs:
        counts.update(w.lower() for w in re.findall(r"[A-Za-z]{4,}", d.text))
    vocab = [w for w, _ in counts.most_common(500)]
    rng = random.Random(seed)
    return [" ".join(rng.sample(vocab, 2)) for _ in range(n_queries)]


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", nargs="?", default=str(EVAL_ROOT / "cuad-dev" / "docs"))
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3, help="interleaved runs of each build; the best counts")
    args = ap.parse_args(argv)
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        print(
            f"index_bench: corpus folder {corpus} not found. Pass a folder of .txt/.md/.html/.pdf files, "
            f"or put the CUAD dev set at {REPO.parent / 'shared' / 'eval' / 'cuad-dev' / 'docs'}.",
            file=sys.stderr,
        )
        return 2

    default_counter()  # load tiktoken once, outside every timing (both runs would pay it otherwise)
    docs, skipped = load_corpus(corpus)
    n_docs = len(docs)
    mb = sum(d.size for d in docs) / 1e6
    prepared = []
    for d in docs:
        for s, e in split_passages(d.text):
            body = d.text[s:e]
            prepared.append((d.doc_id, d.title, s, e, body, cjk_grams(body)))
    print(
        f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}  ({os.cpu_count()} CPUs; "
        "other load on the machine slows both builds and skews the ratio)"
    )
    print(f"corpus: {corpus}  {n_docs} documents, {mb:.1f} MB, {len(prepared)} passages, {len(skipped)} skipped")

    tmp = Path(tempfile.mkdtemp(prefix="wikigen-bench-"))
    try:
        # Interleaved repeats, best of each: the machine is shared, so single runs are noisy.
        bare, wg, wg_chars = [], [], []
        for i in range(args.repeat):
            bare.append(bare_tantivy(prepared, tmp / f"bare{i}"))
            t_wg, c_wg, idx, summary = wikigen_build(corpus, tmp / f"wikigen{i}")
            assert summary.documents == n_docs and summary.passages == len(prepared), (summary, n_docs, len(prepared))
            wg.append((t_wg, c_wg))
            t_c, c_c, _, _ = wikigen_build(corpus, tmp / f"wikigen-charcount{i}", counter=CharCounter())
            wg_chars.append((t_c, c_c))
        (t_bare, c_bare), (t_wg, c_wg), (t_c, c_c) = min(bare), min(wg), min(wg_chars)
        last = tmp / f"wikigen{args.repeat - 1}"
        print(f"best of {args.repeat} interleaved runs each:")
        print(
            f"wikigen first build : {t_wg:6.2f} s  {n_docs / t_wg:7.1f} docs/s  {mb / t_wg:6.2f} MB/s  "
            f"(CPU {c_wg:.2f} s; {summary.tokens:,} tokens)"
        )
        print(
            f"bare tantivy        : {t_bare:6.2f} s  {n_docs / t_bare:7.1f} docs/s  {mb / t_bare:6.2f} MB/s  "
            f"(CPU {c_bare:.2f} s)"
        )
        ratio = t_bare / t_wg
        print(f"throughput ratio wikigen/bare: {ratio:.2f}  (target >= 0.70: {'OK' if ratio >= 0.7 else 'MISSED'})")
        print(
            f"  for reference, wikigen with a chars/4 token counter injected (no tiktoken): {t_c:.2f} s, "
            f"{mb / t_c:.2f} MB/s, CPU {c_c:.2f} s, ratio {t_bare / t_c:.2f}"
        )

        gc.collect()
        t = time.perf_counter()
        idx, s2 = CorpusIndex.build(corpus, last)
        t_re = time.perf_counter() - t
        assert s2.unchanged == n_docs and s2.added == s2.changed == s2.removed == 0
        share = 100 * t_re / t_wg
        print(
            f"unchanged re-run    : {t_re:6.3f} s  = {share:.1f}% of the first build  "
            f"(target < 10%: {'OK' if share < 10 else 'MISSED'})"
        )

        queries = query_words(docs, args.queries, args.seed)
        idx.search(queries[0])  # warm
        lat, n_hits = [], 0
        for q in queries:
            t = time.perf_counter()
            hits = idx.search(q, k=10)
            lat.append((time.perf_counter() - t) * 1000)
            n_hits += len(hits)
        print(
            f"query latency over {len(queries)} queries (k=10, with snippets): p50 {pct(lat, 50):.2f} ms  "
            f"p95 {pct(lat, 95):.2f} ms  max {max(lat):.2f} ms  ({n_hits / len(queries):.1f} hits/query)"
        )
        print(f"  e.g. {queries[0]!r}, {queries[1]!r}, {queries[2]!r}")
        print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
