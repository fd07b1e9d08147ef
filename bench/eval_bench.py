"""Benchmark `wikigen ask` on cuad-dev: build (or reuse) the offline wiki, then evaluate every mode.

    .venv/bin/python bench/eval_bench.py                     # full run (3,676 questions x 3 modes)
    .venv/bin/python bench/eval_bench.py --limit 400         # a quick run: a deterministic sample across kinds
    .venv/bin/python bench/eval_bench.py --wiki bench-out/cuad-wiki   # reuse a built wiki
    .venv/bin/python bench/eval_bench.py --split dev --limit 400      # tune on even-numbered questions only

The data set is looked for at ../shared/eval/cuad-dev relative to the repository root (or --data).
The wiki is built with the offline backend, 4 agents and 4 sessions (wikigen.agents.orchestrate.build).
Targets (checked and printed at the end): aggregate evidence recall with wiki+search at least 15
points above search alone; single accuracy no lower than search; no more tokens per question.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from wikigen.ask.modes import MODES  # noqa: E402
from wikigen.ask.evaluate import run_eval, spread_sample  # noqa: E402
from wikigen.ask.questions import read_questions  # noqa: E402


def build_wiki(corpus: Path, wiki: Path, agents: int, sessions: int) -> float:
    from wikigen.agents.orchestrate import BuildConfig, build

    t0 = time.perf_counter()
    config = BuildConfig(corpus=corpus, wiki=wiki, agents=agents, sessions=sessions, backend="offline",
                         model=None, max_ratio=1.0, index_dir=None, quiet=True)
    report = build(config, on_session=lambda line: print(line.text(), flush=True),
                   on_warning=lambda text: print(f"warning: {text}", file=sys.stderr))
    if not report.ok:
        print(f"warning: the build reported problems: {report}", file=sys.stderr)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "eval" / "cuad-dev"), help="the cuad-dev folder")
    ap.add_argument("--wiki", default=None, help="reuse this wiki (built into it when it does not exist yet)")
    ap.add_argument("--out", default=str(ROOT / "bench-out" / "eval"), help="report and chart folder")
    ap.add_argument("--limit", type=int, default=None, help="a deterministic sample of N questions across kinds")
    ap.add_argument("--split", choices=["all", "dev", "holdout"], default="all",
                    help="dev: the questions at even positions in the file (for tuning); holdout: the odd ones")
    ap.add_argument("--budget", type=int, default=4000)
    ap.add_argument("--modes", nargs="+", default=MODES, choices=MODES)
    ap.add_argument("--agents", type=int, default=4)
    ap.add_argument("--sessions", type=int, default=4)
    args = ap.parse_args(argv)

    data = Path(args.data)
    qfile, corpus = data / "questions.jsonl", data / "docs"
    if not qfile.is_file() or not corpus.is_dir():
        print(f"cuad-dev not found at {data} (expected questions.jsonl and docs/); pass --data DIR", file=sys.stderr)
        return 2
    wiki = Path(args.wiki) if args.wiki else ROOT / "bench-out" / "cuad-wiki"
    if (wiki / ".wikigen" / "config.json").is_file() and any(wiki.glob("*.md")):
        print(f"reusing the wiki at {wiki}")
    else:
        print(f"building the offline wiki of {corpus} into {wiki} ({args.agents} agents, {args.sessions} sessions)...")
        secs = build_wiki(corpus, wiki, args.agents, args.sessions)
        print(f"built in {secs:.1f} s")

    questions = read_questions(qfile)
    if args.split != "all":
        questions = [q for i, q in enumerate(questions) if i % 2 == (0 if args.split == "dev" else 1)]
    questions = spread_sample(questions, args.limit)
    kinds = {k: sum(q.get("kind") == k for q in questions) for k in ("single", "aggregate")}
    print(f"{len(questions)} questions ({kinds['single']} single, {kinds['aggregate']} aggregate), "
          f"modes {', '.join(args.modes)}, budget {args.budget} tokens")
    t0 = time.perf_counter()
    report = run_eval(questions, wiki=wiki, modes=args.modes, budget=args.budget, out_dir=Path(args.out))
    print(f"evaluated in {time.perf_counter() - t0:.1f} s\n")

    by = {(s["mode"], s["kind"]): s for s in report.summary}
    head = f"{'mode':<12} {'agg recall':>10} {'agg prec':>9} {'single acc':>10} {'tokens/q':>9} {'p50 ms':>7}"
    print(head)
    print("-" * len(head))
    per_mode = {}
    for m in args.modes:
        a, s = by.get((m, "aggregate")), by.get((m, "single"))
        rows = [r for r in report.rows if r["mode"] == m]
        toks = sum(r["tokens"] for r in rows) / len(rows) if rows else 0.0
        lat = sorted(r["latency_ms"] for r in rows)
        p50 = lat[len(lat) // 2] if lat else 0.0
        per_mode[m] = {"agg": a["score"] if a else None, "single": s["score"] if s else None, "tokens": toks}
        print(f"{m:<12} {a['score'] if a else float('nan'):>10.3f} {(a['precision'] or 0) if a else float('nan'):>9.3f} "
              f"{s['score'] if s else float('nan'):>10.3f} {toks:>9.0f} {p50:>7.1f}")
    print()
    print(report.table())
    if "wiki+search" in per_mode and "search" in per_mode:
        w, b = per_mode["wiki+search"], per_mode["search"]
        checks = []
        if w["agg"] is not None and b["agg"] is not None:
            checks.append(("aggregate recall wiki+search >= search + 0.15", w["agg"] >= b["agg"] + 0.15,
                           f"{w['agg']:.3f} vs {b['agg']:.3f} (+{(w['agg'] - b['agg']) * 100:.1f} points)"))
        if w["single"] is not None and b["single"] is not None:
            checks.append(("single accuracy wiki+search >= search", w["single"] >= b["single"],
                           f"{w['single']:.3f} vs {b['single']:.3f}"))
        checks.append(("tokens per question wiki+search <= search", w["tokens"] <= b["tokens"],
                       f"{w['tokens']:.0f} vs {b['tokens']:.0f}"))
        print()
        for name, ok, detail in checks:
            print(f"[{'PASS' if ok else 'FAIL'}] {name}: {detail}")
    print(f"\nreport: {report.report_path}\nchart:  {report.chart_path}")
    (Path(args.out) / "bench-summary.json").write_text(json.dumps(per_mode, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
