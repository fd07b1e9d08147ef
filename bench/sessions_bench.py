"""Score per session: does each session of the offline build make the wiki better? And does dreaming?

    .venv/bin/python bench/sessions_bench.py                       # cuad-dev and sec10q-dev, 4 agents, 8 sessions
    .venv/bin/python bench/sessions_bench.py --corpora sec10q-dev --sessions 4   # a quicker run
    .venv/bin/python bench/sessions_bench.py --sample 120          # fewer cuad-dev questions
    .venv/bin/python bench/sessions_bench.py --dreaming            # dreaming against plain sessions, 3 corpora

The dreaming run (--dreaming; wikigen.agents.dreaming) asks whether the questions people asked make later
sessions better for the questions they did not ask. Per corpus: a base wiki (--base-sessions plain
sessions, 4 agents) is copied twice. One copy gets --sessions more plain build sessions; the other is
asked one half of the questions (through the question log, mode wiki+search, as a user would) and then
dreams for --sessions sessions (`wikigen dream`). After the base and after every session of each, the
OTHER half is scored in modes wiki and wiki+search (mean and standard error over the questions), with the
size ratio (the larger of characters and tokens); each question's scores of the last dreaming session are in the
report, so `bench/compare_eval.py OLD/dreaming-report.json NEW/dreaming-report.json` pairs two runs. Runs with the
same --out add their corpora to its report (a corpus run again replaces its entry). The halves share subjects but
not questions: the questions of each subject, in id order, alternate between them (id parity within a subject), so a subject
asked about is also scored, on other documents. The subject is the eval's own label of what is asked:
cuad-dev's `category` (41 clause kinds, each asked of many contracts and across the collection);
contractnli-dev's hypothesis, the part of the question after its "Consider <agreement>;" (17 hypotheses,
each asked of every agreement); sec10q-dev has no such label, so its subject is its `kind` (multi or single)
and the halves share reports and kinds of figures rather than subjects. A split by document would leave
cuad-dev's aggregate and sec10q-dev's multi questions (across documents) with no side. Targets (issue 29):
wiki-alone on the unasked half >= 1.3x after the dreaming sessions against the same number of plain
sessions; wiki+search not down by more than one standard error; the size ratio under the limit.

For each corpus (../shared/eval/NAME relative to the repository root, or --data-root) the wiki is built
from scratch with the offline backend, one session at a time (one build, 4 agents); after every
session, on a fixed sample of the dev half of the questions (even positions of questions.jsonl; a
deterministic spread across kinds), it measures the wiki-only and wiki+search scores
(wikigen.ask.evaluate: evidence accuracy / recall for cuad-dev, key facts for sec10q-dev), the size
ratio, pages, links, quotes and the count of each consolidation action the agents logged
(wikigen.agents.consolidate). It prints one table per corpus, checks the issue's targets, writes
sessions-report.json and draws the curve (sessions.png, with matplotlib: the `bench` extra) into --out.

The corpus index comes from a cache (NAME-index in --index-cache, default .cache/index in the checkout) when
there is one: it is copied into --out first (the build writes into its index folder), so nothing is embedded
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
from dataclasses import asdict  # noqa: E402

from _eval_data import EVAL_ROOT  # noqa: E402  (the dev corpora, found from any checkout)
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


# --- dreaming against plain sessions ---------------------------------------------------------------------


def _subject_label(name: str):
    """What a question asks, as the eval labels it (bench only: used to split the halves, never by wikigen)."""
    if name.startswith("cuad"):
        return lambda q: q.get("category") or q.get("kind")
    if name.startswith("contractnli"):
        return lambda q: " ".join(q["question"].split(";", 1)[-1].split()).lower()
    return lambda q: q.get("kind", "single")


def split_halves(questions: list[dict], subject) -> tuple[list[dict], list[dict]]:
    """(asked, unasked): each subject's questions in id order, alternating (id parity within a subject)."""
    by_subject: dict[str, list[dict]] = {}
    for q in questions:
        by_subject.setdefault(str(subject(q)), []).append(q)
    asked_ids = set()
    for qs in by_subject.values():
        for i, q in enumerate(sorted(qs, key=lambda q: q["id"])):
            if i % 2 == 0:
                asked_ids.add(q["id"])
    return [q for q in questions if q["id"] in asked_ids], [q for q in questions if q["id"] not in asked_ids]


def _mean_se(values: list[float]) -> tuple[float, float]:
    n = len(values)
    if not n:
        return float("nan"), float("nan")
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return mean, (var / n) ** 0.5


def _ratio(wiki: Path) -> float:
    from wikigen.search.sources import open_wiki

    from wikigen.core.tokens import default_counter
    from wikigen.wiki.size_guard import check_size

    w = open_wiki(wiki)
    idx = w.sources
    r = check_size(wiki, idx.corpus_chars, idx.corpus_tokens, max_ratio=w.max_ratio, counter=default_counter())
    return max(r.ratio_chars, r.ratio_tokens or 0.0)


def _score_point(label: str, questions: list[dict], wiki: Path, budget: int, dense: bool) -> dict:
    """Both modes' mean score and standard error over the questions (and per kind), the size ratio, pages."""
    from wikigen.ask.retrieval import Answerer

    t = time.perf_counter()
    answerer = Answerer.open(wiki, dense=dense)  # logs nothing: the scored half is never asked of the wiki
    report = run_eval(
        questions, wiki=wiki, modes=list(MODES), budget=budget, out_dir=None, chart=False, answerer=answerer
    )
    point: dict = {"label": label, "pages": len(answerer.pages), "ratio": round(_ratio(wiki), 4)}
    for mode in MODES:
        rows = [r for r in report.rows if r["mode"] == mode and r["score"] is not None]
        m, se = _mean_se([r["score"] for r in rows])
        point[mode] = {"score": round(m, 4), "se": round(se, 4), "n": len(rows)}
        for kind in sorted({r["kind"] for r in rows}):
            km, kse = _mean_se([r["score"] for r in rows if r["kind"] == kind])
            point[mode][kind] = {"score": round(km, 4), "se": round(kse, 4)}
    point["eval_s"] = round(time.perf_counter() - t, 1)
    # each question's score, as eval_bench keeps them: bench/compare_eval.py pairs two runs' last dream points
    point["rows"] = [
        {"id": r["id"], "mode": r["mode"], "kind": r["kind"], "score": r["score"]}
        for r in report.rows
        if r["score"] is not None
    ]
    return point


def _print_point(name: str, point: dict, extra: str = "") -> None:
    cells = ", ".join(f"{m} {point[m]['score']:.3f} ±{point[m]['se']:.3f}" for m in MODES)
    print(
        f"  {name} {point['label']:>8}: {cells}; ratio {point['ratio']:.3f}, {point['pages']} pages{extra}", flush=True
    )


def run_dreaming(
    name: str,
    data: Path,
    out: Path,
    *,
    agents: int,
    base_sessions: int,
    sessions: int,
    asked_n: int | None,
    scored_n: int | None,
    budget: int,
    dense: bool,
    index_cache: Path | None,
) -> dict:
    from wikigen.agents.dream_sessions import DreamConfig, dream
    from wikigen.agents.orchestrate import BuildConfig, build

    from wikigen.ask.retrieval import Answerer
    from wikigen.wiki.question_log import QuestionLog, asked_questions

    questions = read_questions(data / "questions.jsonl")
    asked, unasked = split_halves(questions, _subject_label(name))
    asked = spread_sample(asked, asked_n)
    scored = spread_sample(unasked, scored_n)
    index, base = out / f"{name}-index", out / f"{name}-base"
    plain, dreamt = out / f"{name}-plain", out / f"{name}-dream"
    if index_cache is not None and index_cache.is_dir() and not index.exists():
        shutil.copytree(index_cache, index)
    for w in (base, plain, dreamt):
        shutil.rmtree(w, ignore_errors=True)
    t0 = time.perf_counter()

    def config(wiki: Path, n: int) -> BuildConfig:
        return BuildConfig(
            corpus=data / "docs", wiki=wiki, agents=agents, sessions=n, index_dir=index, quiet=True, dense=dense
        )

    warn = lambda text: print(f"  warning: {text}", file=sys.stderr)  # noqa: E731
    build(config(base, base_sessions), on_warning=warn)
    base_point = _score_point("base", scored, base, budget, dense)
    _print_point(name, base_point)
    shutil.copytree(base, plain, symlinks=True)
    shutil.copytree(base, dreamt, symlinks=True)

    plain_points: list[dict] = []

    def after_plain(line) -> None:
        p = _score_point(f"plain {len(plain_points) + 1}", scored, plain, budget, dense)
        plain_points.append(p)
        _print_point(name, p, f" (build session {line.session})")

    build(config(plain, sessions), on_session=after_plain, on_warning=warn)

    t = time.perf_counter()
    answerer = Answerer.open(dreamt, dense=dense, log="bench")  # through the question log, as a surface asks
    for q in asked:
        answerer.ask(q["question"], mode="wiki+search", budget=budget)
    logged = asked_questions(QuestionLog(dreamt).read().entries)
    weak = sum(a.weak for a in logged)
    ask_s = round(time.perf_counter() - t, 1)
    print(f"  {name}: asked {len(asked)} questions of the other half ({ask_s} s): {weak} served weakly", flush=True)
    dream_points: list[dict] = []
    for i in range(sessions):
        report = dream(DreamConfig(dreamt, sessions=1, dense=dense), on_warning=warn)
        line = report.sessions[0] if report.sessions else None
        p = _score_point(f"dream {i + 1}", scored, dreamt, budget, dense)
        p["dream"] = asdict(line) if line else {"note": report.note}
        dream_points.append(p)
        _print_point(name, p, f" ({line.text().split(': ', 1)[1]})" if line else f" ({report.note})")
    return {
        "corpus": name,
        "split": "id parity within a subject",
        "asked": len(asked),
        "asked_weak": weak,
        "scored": len(scored),
        "scored_kinds": dict(Counter(q.get("kind", "single") for q in scored)),
        "base_sessions": base_sessions,
        "sessions": sessions,
        "dense": dense,
        "base": base_point,
        "plain": plain_points,
        "dream": dream_points,
        "rows": dream_points[-1]["rows"] if dream_points else [],  # the last dream point's (bench/compare_eval.py)
        "ask_s": ask_s,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def dreaming_targets(res: dict) -> list[str]:
    """The issue's targets for one corpus, each with its figures and whether it is met."""
    if not res["plain"] or not res["dream"]:
        return [f"{res['corpus']}: no sessions"]
    p, d, b = res["plain"][-1], res["dream"][-1], res["base"]
    wp, wd = p["wiki"]["score"], d["wiki"]["score"]
    gain = wd / wp if wp else float("inf")
    sp, sd = p["wiki+search"], d["wiki+search"]
    limit = 1.0
    return [
        f"{res['corpus']} wiki on the unasked half after {len(res['dream'])} dreaming vs {len(res['plain'])} plain "
        f"sessions: {wd:.3f} ±{d['wiki']['se']:.3f} / {wp:.3f} ±{p['wiki']['se']:.3f} = {gain:.2f}x (base "
        f"{b['wiki']['score']:.3f}; target {TARGET_GAIN}x): " + ("met" if gain >= TARGET_GAIN else "NOT met"),
        f"{res['corpus']} wiki+search: dreaming {sd['score']:.3f} ±{sd['se']:.3f}, plain {sp['score']:.3f} "
        f"±{sp['se']:.3f} (not down by more than one standard error): "
        + ("met" if sd["score"] >= sp["score"] - sp["se"] else "NOT met"),
        f"{res['corpus']} size ratio after dreaming {d['ratio']:.3f}, plain {p['ratio']:.3f} (limit {limit}): "
        + ("met" if d["ratio"] < limit else "NOT met"),
    ]


def _corpora(args):
    """(name, folder, index cache or None) of each corpus asked for that is there; a missing one is skipped, saying so."""
    for name in args.corpora:
        data = Path(args.data_root) / name
        if not (data / "questions.jsonl").is_file() or not (data / "docs").is_dir():
            print(f"skipping {name}: not found at {data} (expected questions.jsonl and docs/)", file=sys.stderr)
            continue
        yield name, data, (Path(args.index_cache) / f"{name}-index" if args.index_cache else None)


def write_report(path: Path, results: list[dict]) -> list[dict]:
    """Write a run's per-corpus results into the report at path, keeping the other corpora a run with the same
    --out wrote there before (a corpus run again replaces its own entry); the report as written."""
    kept: list[dict] = []
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            old = []
        ran = {r.get("corpus") for r in results}
        kept = [r for r in old if isinstance(r, dict) and r.get("corpus") not in ran] if isinstance(old, list) else []
    merged = kept + results
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(merged, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
    return merged


def dreaming_main(args) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = []
    t0 = time.perf_counter()
    for name, data, cache in _corpora(args):
        print(
            f"{name}: base {args.base_sessions} sessions, then {args.sessions} plain vs {args.sessions} dreaming "
            f"sessions ({'BM25 only' if args.no_dense else 'default: passage vectors'})",
            flush=True,
        )
        results.append(
            run_dreaming(
                name,
                data,
                out,
                agents=args.agents,
                base_sessions=args.base_sessions,
                sessions=args.sessions,
                asked_n=args.asked,
                scored_n=args.scored,
                budget=args.budget,
                dense=not args.no_dense,
                index_cache=cache,
            )
        )
    if not results:
        return 1
    print()
    for line in (t for res in results for t in dreaming_targets(res)):
        print(line)
    path = out / "dreaming-report.json"
    write_report(path, results)
    print(f"\nreport: {path}; total {time.perf_counter() - t0:.0f} s")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", nargs="+", default=["cuad-dev", "sec10q-dev"])
    ap.add_argument("--data-root", default=str(EVAL_ROOT))
    ap.add_argument(
        "--index-cache",
        default=str(ROOT / ".cache" / "index"),
        help="folder holding NAME-index caches (copied, never written; default .cache/index in the checkout)",
    )
    ap.add_argument("--out", default=str(ROOT / "bench-out" / "sessions"))
    ap.add_argument("--agents", type=int, default=4)
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--sample", type=int, default=200, help="dev questions per corpus (a spread across kinds)")
    ap.add_argument("--budget", type=int, default=4000)
    ap.add_argument("--dreaming", action="store_true", help="dreaming sessions against plain sessions (see above)")
    ap.add_argument("--base-sessions", type=int, default=2, help="--dreaming: plain sessions of the base wiki")
    ap.add_argument("--asked", type=int, default=600, help="--dreaming: questions asked of one half, at most")
    ap.add_argument("--scored", type=int, default=300, help="--dreaming: questions scored of the other half, at most")
    ap.add_argument("--no-dense", action="store_true", help="--dreaming: BM25 only (no passage vectors), for iterating")
    args = ap.parse_args(argv)
    if args.dreaming:
        if args.corpora == ap.get_default("corpora"):
            args.corpora = ["cuad-dev", "sec10q-dev", "contractnli-dev"]
        if args.sessions == ap.get_default("sessions"):
            args.sessions = 4
        return dreaming_main(args)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = []
    t0 = time.perf_counter()
    for name, data, cache in _corpora(args):
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
    results = write_report(out / "sessions-report.json", results)
    chart = draw(results, out / "sessions.png") or "none: matplotlib is not installed (pip install -e '.[bench]')"
    print(f"\nreport: {out / 'sessions-report.json'}; chart: {chart}; total {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
