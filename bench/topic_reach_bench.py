"""Topic reach benchmark: how many (topic, document) pairs `wikigen.agents.topic_reach` adds to the topics
found by wording, and how often each kind of span covers an expert-labelled clause of cuad-dev.

    .venv/bin/python bench/topic_reach_bench.py [--data ../shared/eval/cuad-dev] [--quantile 0.25]

Discovers the topics once without reach (DiscoveryParams(reach_quantile=None), about a minute), then
applies `reach` at the given quantile and prints, side by side, the pairs found by wording and the pairs
reached: how many, and the share whose span covers at least half of a gold clause of the document (any
CUAD category, the single questions' evidence); the baseline row gives each reached pair a sentence of
its document drawn at random instead (seeded). Reads `docs/*.txt`; no index needed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

from _eval_data import EVAL_ROOT

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _gold(data: Path) -> dict[str, list[tuple[int, int]]]:
    gold: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for line in (data / "questions.jsonl").open(encoding="utf-8"):
        q = json.loads(line)
        if q.get("kind") == "single":
            for ev in q.get("evidence") or []:
                if ev.get("start") is not None:
                    gold[ev["doc_id"]].append((int(ev["start"]), int(ev["end"])))
    return gold


def _covers(spans: list[tuple[int, int]], s: int, e: int) -> bool:
    return any(min(e, ge) - max(s, gs) >= 0.5 * (ge - gs) for gs, ge in spans)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=EVAL_ROOT / "cuad-dev")
    ap.add_argument("--quantile", type=float, default=0.25)
    args = ap.parse_args(argv)
    if not (args.data / "docs").is_dir():
        print(f"skipped: no corpus at {args.data} (the benchmark needs cuad-dev's docs and questions)")
        return 0
    from wikigen.agents.meaning import content_words
    from wikigen.agents.params import DiscoveryParams
    from wikigen.agents.topic_reach import reach
    from wikigen.agents.topics import discover

    from wikigen.core.sentences import SENTENCE, sentences

    texts = {p.stem: p.read_text(encoding="utf-8") for p in sorted((args.data / "docs").glob("*.txt"))}
    params = dataclasses.replace(DiscoveryParams(), reach_quantile=None)
    t0 = time.perf_counter()
    cat = discover(texts, params=params)
    found = time.perf_counter() - t0
    before = {(t.key, d) for t in cat.topics for d in t.spans}
    df: dict[str, int] = defaultdict(int)
    for text in texts.values():
        for w in set(content_words(text)):
            df[w] += 1
    t0 = time.perf_counter()
    added = reach(cat.topics, texts, df, dataclasses.replace(params, reach_quantile=args.quantile))
    reached_s = time.perf_counter() - t0
    gold = _gold(args.data)
    reached = f"reached (quantile {args.quantile})"
    rows: dict[str, list[bool]] = {"found by wording": [], reached: [], "baseline: a random sentence": []}
    rng = random.Random(12)
    sents = {d: sentences(text, SENTENCE) for d, text in texts.items()}
    for t in cat.topics:
        for d, (s, e) in t.spans.items():
            rows["found by wording" if (t.key, d) in before else reached].append(_covers(gold.get(d, []), s, e))
            if (t.key, d) not in before and sents[d]:
                rows["baseline: a random sentence"].append(_covers(gold.get(d, []), *rng.choice(sents[d])))
    print(
        f"{len(texts)} documents, {len(cat.topics)} topics; discovery {found:.1f} s, reach {reached_s:.1f} s "
        f"({added} pairs added)"
    )
    print(f"{'pairs':28s} {'n':>7s} {'cover a gold clause':>20s}")
    for name, hits in rows.items():
        share = sum(hits) / len(hits) if hits else 0.0
        print(f"{name:28s} {len(hits):7d} {share:20.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
