"""Korean questions on the sample corpus: does wiki+search's context hold the clause, with passage vectors and
without, beside plain BM25?

    .venv/bin/python bench/korean_bench.py                      # build (or reuse) the sample wiki with vectors
    .venv/bin/python bench/korean_bench.py --work bench-out/ko  # another folder for the wiki and its index

The questions are those of corpora/plain/acme.jsonl written in Korean (any Hangul in the question; --questions
names another file). The sample corpus (corpora/acme) is built with the offline backend and passage vectors
into <work>/acme-wiki (index <work>/acme-index), or reused when it is there; the vectors are then updated, so
a reused cache follows the rule of the code being run (which passages get a vector). Rows, each the share of
the questions whose context holds the evidence (`wikigen.ask.evaluate.score_question`; a `values` question:
the recall of the documents it names) with its standard error (sample standard deviation / sqrt(n)):

* plain-BM25: the index's passages, best first, filling the budget (as bench/eval_bench.py defines it);
* wiki+search (BM25 only): `Answerer.open(wiki, dense=False)`;
* wiki+search (hybrid): `Answerer.open(wiki)`, BM25 and the passage vectors as `wikigen ask` uses them;

then the paired difference hybrid minus BM25-only wiki+search with its standard error, the questions where
the two differ, and how many of the Korean documents' passages carry a vector (none should: the encoder
cannot read Hangul, search.dense.encoder.readable).

First it prints what the read rule is chosen from: the distribution of `unread_share` (the share of a text's
word pieces, from the encoder's own tokenizer, that are [UNK] or single letters of a non-Latin script) over
the sample's English and Korean passages, the Korean questions, and with --cuad the passages of cuad-dev (its
index is built into <work>/cuad-index once, without vectors), beside the limit READ_LIMIT.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")


def korean_questions(path: Path) -> list[dict]:
    from wikigen.ask.questions import read_questions

    return [q for q in read_questions(path) if HANGUL.search(q["question"])]


def mean_se(values: list[float]) -> tuple[float, float]:
    m = sum(values) / len(values)
    if len(values) < 2:
        return m, 0.0
    return m, math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1) / len(values))


def describe(name: str, shares: list[float], limit: float) -> None:
    v = sorted(shares)
    if not v:
        print(f"  {name:24} none")
        return

    def q(f: float) -> float:
        return v[min(len(v) - 1, int(f * len(v)))]

    print(
        f"  {name:24} n={len(v):>6}  min {v[0]:.3f}  p50 {q(0.5):.3f}  p99 {q(0.99):.3f}  max {v[-1]:.3f}"
        f"  above the limit: {sum(x > limit for x in v)}"
    )


def passage_shares(index, encoder) -> tuple[list[float], list[float]]:
    """The encoder's unread share of every passage of the index: (those of documents without Hangul, those with)."""
    from wikigen.search.passages import split_passages

    latin: list[float] = []
    korean: list[float] = []
    for d in index.documents():
        text = index.texts.text(d.doc_id)
        shares = encoder.unread_shares([text[a:b] for a, b in split_passages(text)])
        (korean if HANGUL.search(text) else latin).extend(shares)
    return latin, korean


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=str(ROOT / "corpora" / "acme"))
    ap.add_argument("--questions", default=str(ROOT / "corpora" / "plain" / "acme.jsonl"))
    ap.add_argument("--work", default=str(ROOT / "bench-out" / "korean"), help="folder of the wiki and its index")
    ap.add_argument("--budget", type=int, default=4000)
    ap.add_argument("--agents", type=int, default=4)
    ap.add_argument("--sessions", type=int, default=4)
    ap.add_argument("--json", default=None, help="write the per-question scores to this file")
    ap.add_argument("--cuad", action="store_true", help="also the read shares of cuad-dev's passages")
    args = ap.parse_args(argv)

    from eval_bench import build_wiki, fill
    from wikigen.search.dense.encoder import READ_LIMIT, OnnxEncoder
    from wikigen.search.dense.service import shared_encoder, update_vectors
    from wikigen.search.dense.store import VectorStore
    from wikigen.search.index import CorpusIndex

    from wikigen.ask.evaluate import score_question, text_reader
    from wikigen.ask.retrieval import Answerer
    from wikigen.core.tokens import default_counter

    questions = korean_questions(Path(args.questions))
    if not questions:
        print(f"no Korean questions in {args.questions}", file=sys.stderr)
        return 1
    work = Path(args.work)
    wiki, index_dir = work / "acme-wiki", work / "acme-index"
    if (wiki / ".wikigen" / "config.json").is_file() and any(wiki.glob("*.md")):
        print(f"reusing the wiki at {wiki}")
    else:
        secs = build_wiki(Path(args.corpus), wiki, index_dir, args.agents, args.sessions, dense=True)
        print(f"built the sample wiki into {wiki} in {secs:.1f} s")
    bm25_only = Answerer.open(wiki, dense=False)
    outcome = update_vectors(bm25_only.index)  # a reused cache follows the rule of this code
    print(f"vectors: {outcome.note}")
    hybrid = Answerer.open(wiki)
    if hybrid.dense is None:
        print("the passage vectors cannot be opened here (is the model installed?)", file=sys.stderr)
        return 1
    index, counter, text_of = hybrid.index, default_counter(), text_reader(hybrid.index)
    encoder = shared_encoder()
    assert isinstance(encoder, OnnxEncoder)  # the product's encoder, whose tokenizer is measured
    print(f"unread share of word pieces (a text above {READ_LIMIT} gets no vector):")
    latin, korean = passage_shares(index, encoder)
    describe("sample, English passages", latin, READ_LIMIT)
    describe("sample, Korean passages", korean, READ_LIMIT)
    describe("Korean questions", encoder.unread_shares([q["question"] for q in questions]), READ_LIMIT)
    if args.cuad:
        from _eval_data import EVAL_ROOT

        cuad = CorpusIndex.build(EVAL_ROOT / "cuad-dev" / "docs", work / "cuad-index")[0]
        describe("cuad-dev passages", [x for part in passage_shares(cuad, encoder) for x in part], READ_LIMIT)
    _, rows = VectorStore(index, shared_encoder()).load()
    ko_docs = [d.doc_id for d in index.documents() if HANGUL.search(index.texts.text(d.doc_id))]
    ko_passages = sum(len(VectorStore(index, shared_encoder()).passages(d)) for d in ko_docs)
    ko_vectors = sum(1 for d, _, _ in rows if d in ko_docs)
    print(
        f"{len(questions)} Korean questions from {args.questions}; budget {args.budget} tokens; Korean documents "
        f"{len(ko_docs)}, their passages {ko_passages}, of which {ko_vectors} carry a vector"
    )

    t0 = time.perf_counter()
    scores: dict[str, list[float]] = {"plain-BM25": [], "wiki+search (BM25 only)": [], "wiki+search (hybrid)": []}
    per_question = []
    for q in questions:
        ctx = fill(index.search(q["question"], k=100), args.budget, lambda h: counter.count(h.text))
        row = {"id": q["id"], "question": q["question"], "plain-BM25": score_question(q, ctx, text_of)["score"]}
        for name, answerer in (("wiki+search (BM25 only)", bm25_only), ("wiki+search (hybrid)", hybrid)):
            result = answerer.ask(q["question"], mode="wiki+search", budget=args.budget)
            row[name] = score_question(q, [c.to_dict() for c in result.context], text_of)["score"]
        for name in scores:
            scores[name].append(float(row[name] or 0.0))
        per_question.append(row)
    print(f"answered in {time.perf_counter() - t0:.1f} s\n")
    print(f"{'':28} {'evidence in context':>22}")
    for name, values in scores.items():
        m, se = mean_se(values)
        print(f"{name:28} {m:>14.3f} ± {se:.3f}   (n={len(values)})")
    diff = [h - b for h, b in zip(scores["wiki+search (hybrid)"], scores["wiki+search (BM25 only)"], strict=True)]
    m, se = mean_se(diff)
    print(f"{'hybrid - BM25 only (paired)':28} {m:>+14.3f} ± {se:.3f}")
    vs_plain = [h - b for h, b in zip(scores["wiki+search (hybrid)"], scores["plain-BM25"], strict=True)]
    m, se = mean_se(vs_plain)
    print(f"{'hybrid - plain-BM25 (paired)':28} {m:>+14.3f} ± {se:.3f}")
    for row in per_question:
        if row["wiki+search (hybrid)"] != row["wiki+search (BM25 only)"]:
            print(
                f"  differs: {row['id']} {row['question']}: hybrid {row['wiki+search (hybrid)']}, "
                f"BM25 only {row['wiki+search (BM25 only)']}"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(per_question, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
