"""Score per session: does each session of the offline build make the wiki better?

    .venv/bin/python bench/sessions_bench.py                       # cuad-dev and sec10q-dev, 4 agents, 8 sessions
    .venv/bin/python bench/sessions_bench.py --corpora sec10q-dev --sessions 4   # a quicker run
    .venv/bin/python bench/sessions_bench.py --sample 120          # fewer cuad-dev questions

For each corpus (../shared/eval/NAME relative to the repository root, or --data-root) the wiki is built
from scratch with the offline backend, one session at a time (one build, 4 agents); after every
session, on a fixed sample of the dev half of the questions (even positions of questions.jsonl; a
deterministic spread across kinds), it measures the wiki-only and wiki+search scores
(wikigen.ask.evaluate: evidence accuracy / recall for cuad-dev, key facts for sec10q-dev), the size
ratio, pages, links, quotes and the count of each consolidation action the agents logged
(wikigen.agents.consolidate). It prints one table per corpus, checks the issue's targets, writes
sessions-report.json and draws the curve (sessions.png, with matplotlib: the `bench` extra) into --out.

The corpus index comes from the shared cache (/work/cache/NAME-index, or --index-cache) when there is
one: it is copied into --out first (the build writes into its index folder), so nothing is embedded
again. Targets (issue 13): the wiki-only score never drops from one session to the next; after the
last session it is at least 1.3x its value after session 2 on aggregate / multi questions.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import itertools  # noqa: E402

from wikigen.agents.consolidate import ACTIONS  # noqa: E402

from wikigen.ask.evaluate import run_eval, spread_sample  # noqa: E402
from wikigen.ask.questions import read_questions  # noqa: E402

MODES = ("wiki", "wiki+search")
TARGET_GAIN = 1.3


def _consolidation(wiki: Path, session: int) -> Counter:
    from wikigen.wiki.progress import ProgressLog

    out: Counter = Counter()
    for e in ProgressLog(wiki).read().entries:
        if e.get("session") == session and isinstance(e.get("consolidation"), dict):
            out.update({k: int(v) for k, v in e["consolidation"].items() if isinstance(v, int)})
    return out


def _links(wiki: Path) -> int:
    from wikigen.search.sources import open_wiki

    from wikigen.wiki.links import analyze_links

    return analyze_links(open_wiki(wiki).pages()).links


def _score(questions: list[dict], wiki: Path, budget: int) -> dict[tuple[str, str], float]:
    report = run_eval(questions, wiki=wiki, modes=list(MODES), budget=budget, out_dir=None, chart=False)
    return {(s["mode"], s["kind"]): s["score"] for s in report.summary}


def run_corpus(
    name: str, data: Path, out: Path, *, agents: int, sessions: int, sample: int, budget: int, index_cache: Path | None
) -> dict:
    from wikigen.agents.orchestrate import BuildConfig, build

    questions = read_questions(data / "questions.jsonl")
    dev = spread_sample(questions[0::2], sample)
    wiki, index = out / f"{name}-wiki", out / f"{name}-index"
    shutil.rmtree(wiki, ignore_errors=True)
    if index_cache is not None and index_cache.is_dir() and not index.exists():
        shutil.copytree(index_cache, index)
    rows: list[dict] = []
    t0 = time.perf_counter()

    def after(line) -> None:
        t = time.perf_counter()
        scores = _score(dev, wiki, budget)
        row = {
            "session": line.session,
            "pages": line.pages,
            "quotes": line.quotes,
            "links": _links(wiki),
            "ratio": round(line.ratio, 4),
            "build_s": round(line.seconds, 1),
            "eval_s": round(time.perf_counter() - t, 1),
            "scores": {f"{m}/{k}": round(v, 4) for (m, k), v in sorted(scores.items())},
            "consolidation": dict(_consolidation(wiki, line.session)),
        }
        rows.append(row)
        print(
            f"  {name} session {line.session}: {line.pages} pages, {row['links']} links, "
            f"{line.quotes} quotes, ratio {line.ratio:.2f}, "
            + ", ".join(f"{k} {v:.3f}" for k, v in row["scores"].items()),
            flush=True,
        )

    config = BuildConfig(
        corpus=data / "docs",
        wiki=wiki,
        agents=agents,
        sessions=sessions,
        backend="offline",
        index_dir=index,
        quiet=True,
    )
    report = build(config, on_session=after, on_warning=lambda text: print(f"  warning: {text}", file=sys.stderr))
    return {
        "corpus": name,
        "questions": len(dev),
        "kinds": dict(Counter(q.get("kind", "single") for q in dev)),
        "agents": agents,
        "sessions": rows,
        "ok": report.ok,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def table(result: dict) -> str:
    keys = sorted({k for r in result["sessions"] for k in r["scores"]})
    head = (
        f"{'session':>7} {'pages':>6} {'links':>7} {'quotes':>7} {'ratio':>6} "
        + " ".join(f"{k:>18}" for k in keys)
        + "  "
        + " ".join(f"{a:>8}" for a in ACTIONS)
    )
    lines = [
        f"{result['corpus']}: {result['questions']} dev questions {result['kinds']}, {result['agents']} agents",
        head,
        "-" * len(head),
    ]
    for r in result["sessions"]:
        lines.append(
            f"{r['session']:>7} {r['pages']:>6} {r['links']:>7} {r['quotes']:>7} {r['ratio']:>6.3f} "
            + " ".join(f"{r['scores'].get(k, float('nan')):>18.3f}" for k in keys)
            + "  "
            + " ".join(f"{r['consolidation'].get(a, 0):>8}" for a in ACTIONS)
        )
    return "\n".join(lines)


def targets(result: dict) -> list[str]:
    """The issue's targets, each with its figures and whether it is met."""
    rows = result["sessions"]
    out = []
    wiki_keys = sorted({k for r in rows for k in r["scores"] if k.startswith("wiki/")})
    for k in wiki_keys:
        drops = [
            (a["session"], b["session"], a["scores"][k], b["scores"][k])
            for a, b in itertools.pairwise(rows)
            if b["scores"].get(k, 0) < a["scores"].get(k, 0) - 1e-9
        ]
        out.append(
            f"{result['corpus']} {k} never drops: "
            + (
                "met"
                if not drops
                else "NOT met: " + "; ".join(f"session {x} {u:.3f} -> {y} {v:.3f}" for x, y, u, v in drops)
            )
        )
    for k in ("wiki/aggregate", "wiki/multi"):
        s2 = next((r["scores"].get(k) for r in rows if r["session"] == 2), None)
        last = rows[-1]["scores"].get(k) if rows else None
        if s2 is None or last is None:
            continue
        gain = last / s2 if s2 else float("inf")
        out.append(
            f"{result['corpus']} {k} after session {rows[-1]['session']} vs session 2: {last:.3f} / {s2:.3f} = "
            f"{gain:.2f}x (target {TARGET_GAIN}x): " + ("met" if gain >= TARGET_GAIN else "NOT met")
        )
    return out


def draw(results: list[dict], path: Path) -> Path | None:
    """The PNG chart; None (and no chart) without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        return None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(results), figsize=(6 * len(results), 7), squeeze=False)
    for col, res in enumerate(results):
        rows = res["sessions"]
        xs = [r["session"] for r in rows]
        ax = axes[0][col]
        for k in sorted({k for r in rows for k in r["scores"]}):
            ax.plot(
                xs,
                [r["scores"].get(k) for r in rows],
                marker="o",
                label=k,
                linestyle="-" if k.startswith("wiki/") else "--",
            )
        ax.set_title(f"{res['corpus']}: score after each session")
        ax.set_xlabel("session")
        ax.set_ylabel("score (dev sample)")
        ax.legend(fontsize=8)
        ax2 = axes[1][col]
        ax2.plot(xs, [r["links"] for r in rows], marker="o", label="links")
        ax2.plot(xs, [r["pages"] for r in rows], marker="s", label="pages")
        ax2.plot(xs, [r["quotes"] for r in rows], marker="^", label="quotes")
        ax2.set_xlabel("session")
        ax2.set_title(f"{res['corpus']}: wiki growth")
        ax2.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", nargs="+", default=["cuad-dev", "sec10q-dev"])
    ap.add_argument("--data-root", default=str(ROOT.parent / "shared" / "eval"))
    ap.add_argument(
        "--index-cache", default="/work/cache", help="folder holding NAME-index caches (copied, never written)"
    )
    ap.add_argument("--out", default=str(ROOT / "bench-out" / "sessions"))
    ap.add_argument("--agents", type=int, default=4)
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--sample", type=int, default=200, help="dev questions per corpus (a spread across kinds)")
    ap.add_argument("--budget", type=int, default=4000)
    args = ap.parse_args(argv)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = []
    t0 = time.perf_counter()
    for name in args.corpora:
        data = Path(args.data_root) / name
        if not (data / "questions.jsonl").is_file() or not (data / "docs").is_dir():
            print(f"skipping {name}: not found at {data} (expected questions.jsonl and docs/)", file=sys.stderr)
            continue
        cache = Path(args.index_cache) / f"{name}-index" if args.index_cache else None
        print(f"{name}: building {args.sessions} sessions with {args.agents} agents", flush=True)
        results.append(
            run_corpus(
                name,
                data,
                out,
                agents=args.agents,
                sessions=args.sessions,
                sample=args.sample,
                budget=args.budget,
                index_cache=cache,
            )
        )
    if not results:
        return 1
    print()
    for res in results:
        print(table(res))
        print()
    for line in (t for res in results for t in targets(res)):
        print(line)
    (out / "sessions-report.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    chart = draw(results, out / "sessions.png") or "none: matplotlib is not installed (pip install -e '.[bench]')"
    print(f"\nreport: {out / 'sessions-report.json'}; chart: {chart}; total {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
