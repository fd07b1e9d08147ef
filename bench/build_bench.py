"""Build benchmark: the offline wiki of ../shared/eval/cuad-dev/docs, 4 agents x 4 sessions, against a
1 agent x 1 session baseline built in the same run.

    .venv/bin/python bench/build_bench.py [--docs DIR] [--agents 4] [--sessions 4]

Prints, side by side: seconds, pages, quotes, wiki/source ratio, documents cited, broken links
left, whether every quote verified (wikigen.wiki.lint stats), and the seconds of the one-time index
(extraction, indexing and passage vectors: the first build makes it, the second reuses it). Targets on
a 2-core machine: both builds under 5 minutes besides the one-time index, ratio at most 0.5, at least
90% of documents cited, no broken link, every quote verified.
Everything is written into a temporary folder that is removed afterwards.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from _eval_data import EVAL_ROOT

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

DEFAULT_DOCS = EVAL_ROOT / "cuad-dev" / "docs"
ONE_TIME = ("extraction", "indexing", "embedding")  # build stages done once per corpus (the first build's)


def run(docs: Path, work: Path, agents: int, sessions: int, index_dir: Path) -> dict:
    from wikigen.agents.orchestrate import BuildConfig, build
    from wikigen.search.sources import open_wiki

    from wikigen.wiki.lint import wiki_stats

    wiki = work / f"wiki-{agents}x{sessions}"
    t0 = time.perf_counter()
    lines: list[str] = []
    report = build(
        BuildConfig(corpus=docs, wiki=wiki, agents=agents, sessions=sessions, quiet=True, index_dir=index_dir),
        on_session=lambda line: lines.append(line.text()),
        on_warning=lambda text: lines.append(f"warning: {text}"),
    )
    print(f"[{agents} agents x {sessions} sessions]")
    print("\n".join(lines))
    seconds = time.perf_counter() - t0
    stats = wiki_stats(open_wiki(wiki))
    ratio = max(stats["ratio_chars"] or 0, stats["ratio_tokens"] or 0)
    return {
        "setup": f"{agents} agents x {sessions} sessions",
        "seconds": round(seconds, 1),
        "pages": stats["pages"],
        "quotes": stats["quotes"],
        "ratio": round(ratio, 3),
        "cited": f"{stats['docs_cited']}/{stats['docs_total']} ({100 * stats['docs_cited'] / max(1, stats['docs_total']):.0f}%)",
        "broken links": stats["broken_links"],
        "all verified": stats["quotes_verified"] == stats["quotes"],
        "build ok": report.ok,
        "one-time index, s": round(sum(report.stages.get(k, 0.0) for k in ONE_TIME), 1),
        "_cited_frac": stats["docs_cited"] / max(1, stats["docs_total"]),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--docs", default=str(DEFAULT_DOCS))
    p.add_argument("--agents", type=int, default=4)
    p.add_argument("--sessions", type=int, default=4)
    args = p.parse_args(argv)
    docs = Path(args.docs)
    if not docs.is_dir():
        print(
            f"no corpus at {docs}: the benchmark needs the CUAD dev set (../shared/eval/cuad-dev/docs "
            "beside the repository), or give --docs DIR",
            file=sys.stderr,
        )
        return 2
    with tempfile.TemporaryDirectory(prefix="wikigen-build-bench-") as tmp:
        work = Path(tmp)
        index_dir = work / "index"  # indexed once (timed in the first run), shared by both builds
        t0 = time.perf_counter()
        base = run(docs, work, 1, 1, index_dir)
        main_run = run(docs, work, args.agents, args.sessions, index_dir)
        total = time.perf_counter() - t0
    rows = [k for k in base if not k.startswith("_")]
    w = max(len(k) for k in rows)
    print(f"{'':{w}}  {'baseline':>24}  {'build':>24}")
    for k in rows:
        print(f"{k:{w}}  {base[k]!s:>24}  {main_run[k]!s:>24}")
    once = base["one-time index, s"] + main_run["one-time index, s"]
    targets = {
        "under 5 minutes (both builds, without the one-time index)": total - once < 300,
        "ratio <= 0.5": main_run["ratio"] <= 0.5,
        ">= 90% of documents cited": main_run["_cited_frac"] >= 0.9,
        "no broken link": main_run["broken links"] == 0,
        "every quote verified": main_run["all verified"],
    }
    print(f"total {total:.1f} s, of which {once:.1f} s the one-time index (passage vectors included)")
    for name, ok in targets.items():
        print(f"{'PASS' if ok else 'FAIL'}  {name}")
    return 0 if all(targets.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
