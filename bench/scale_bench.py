"""How each stage of a build grows with the corpus: 1x, 2x, 4x and 8x cuad-dev, built offline.

    .venv/bin/python bench/scale_bench.py                          # factors 1 2 4 8, 4 agents x 2 sessions
    .venv/bin/python bench/scale_bench.py --factors 1 2 --questions 50          # a quick look

The corpora come from bench/scale_corpus.py (new documents from cuad-dev's own sentences; see there),
written once under bench-out/scale/. Each size is built in a fresh child process (so its peak memory is
its own) with the build's stage hooks: extraction, indexing with token counts, topic discovery, page
writing, link repair, the index page and the git commit; then `ask` (wiki+search) runs over a fixed
sample of cuad-dev's questions for its p50/p95 latency. A sampler thread reads the child's resident
memory every 20 ms and keeps the peak of each stage.

Dense embedding is OFF in these builds unless --dense (`BuildConfig(dense=...)`; a build makes the
vectors after its sessions, the "embedding" stage, with its seconds, CPU seconds and peak memory). Either
way the bench measures the encoder on a sample of the 1x corpus's passages (in its own child process,
after the builds): passages per second on one thread (the rate of one worker thread, with its CPU
seconds) and on every core, and prints the projected embedding time of each size's passages and of
350,000 documents / 420M tokens (passages per token as at the largest size) on N workers of T threads
from the one-thread rate (linear: each document is embedded alone, `document_vectors`), and on a GPU.

Besides the stages, the child meters the CPU seconds (thread time, so the agents' threads waiting for
the GIL do not count) of quote verification (every page write's `verify_page` and consolidation's
re-reading), a candidate for worker processes; the bench prints them next to the build's seconds and
whether worker processes would pay. Fact detection (fact sheets, figures) is a stage of its own, run in
worker processes like topic discovery; the 1-worker build of --speedup-factor shows what they save.

With --engine (local, ray) the bench measures the per-document stages per worker instead of building the
sizes (bench/engine_rates.py): a sample of cuad-dev's documents indexed (reading and extraction on the engine)
and embedded (on the engine), with 1 and 2 workers on each engine asked for and on the local engine (the
baseline, in the same run), each run in a child process: wall and CPU seconds (driver, workers, Ray's own),
peak memory, 2 workers against 1, and a projection for 350,000 documents / 420M tokens on N workers.

    .venv/bin/python bench/scale_bench.py --engine ray              # local and Ray, 1 and 2 workers, 6 documents

Printed: one table of seconds and peak RSS per stage and size (extraction runs inside the indexing
pipeline, so its memory is the indexing column's), with each stage's growth exponent (the
slope of log seconds against log corpus size, least squares), and a PNG chart of seconds per stage
against corpus size (bench-out/scale/scale.png; with matplotlib, the `bench` extra).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from _eval_data import EVAL_ROOT

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))  # scale_corpus, engine_rates

CUAD = EVAL_ROOT / "cuad-dev"  # as the tests find it
STAGES = [
    "extraction",
    "indexing",
    "topic discovery",
    "fact detection",
    "page writing",
    "link repair",
    "index page",
    "size check",
    "git commit",
    "embedding",
    "ask p50 ms",
    "ask p95 ms",
]
BUILD_STAGES = [st for st in STAGES if not st.startswith("ask ")]
METERED = {  # (module, attribute) whose calls' CPU seconds the child sums, per meter
    "quote verification": [("wikigen.wiki.store", "verify_page")],
    "quote re-reading": [("wikigen.agents.consolidate", "Consolidator.reverify")],
}
WORKER_PAYS = 0.10  # a stage is worth worker processes when it is at least this share of the build
TARGET_DOCS, TARGET_TOKENS = 350_000, 420_000_000
EMBED_SECONDS = 90  # the encoder's rate is measured for at most this long


class RssSampler:
    """The peak resident memory (MB) of this process per named stage, sampled every 20 ms."""

    def __init__(self) -> None:
        self.stage = "setup"
        self.peak: dict[str, float] = {}
        self._stop = threading.Event()
        self._page = os.sysconf("SC_PAGE_SIZE")
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _rss_mb(self) -> float:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * self._page / 1e6

    def _run(self) -> None:
        while not self._stop.is_set():
            rss = self._rss_mb()
            self.peak[self.stage] = max(self.peak.get(self.stage, 0.0), rss)
            self._stop.wait(0.02)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


class Meter:
    """CPU seconds (this thread's) spent in the METERED functions, summed per meter; patched in place."""

    def __init__(self) -> None:
        import importlib

        self.cpu: dict[str, float] = dict.fromkeys(METERED, 0.0)
        self.calls: dict[str, int] = dict.fromkeys(METERED, 0)
        self._lock = threading.Lock()
        for name, targets in METERED.items():
            for module, attr in targets:
                owner = importlib.import_module(module)
                *path, last = attr.split(".")
                for part in path:
                    owner = getattr(owner, part)
                setattr(owner, last, self._wrap(name, getattr(owner, last)))

    def _wrap(self, name: str, fn):
        def timed(*a, **k):
            t = time.thread_time()
            try:
                return fn(*a, **k)
            finally:
                with self._lock:
                    self.cpu[name] += time.thread_time() - t
                    self.calls[name] += 1

        return timed


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (topic discovery's worker processes)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def child(
    corpus: Path, wiki: Path, agents: int, sessions: int, questions: int, workers: int, dense: bool = False
) -> dict:
    """One size: build with stage hooks (dense embedding as asked), then ask; the figures as a dict."""
    from wikigen.agents.orchestrate import BuildConfig, build
    from wikigen.search.index import CorpusIndex

    from wikigen.ask.retrieval import Answerer

    meter = Meter()
    seconds: dict[str, float] = {}
    cpu: dict[str, float] = {}  # per stage: CPU seconds of this process and its workers
    started: dict[str, float] = {}
    with RssSampler() as rss:

        def on_stage(name: str, secs: float | None) -> None:
            if secs is None:  # a stage starts
                rss.stage = name
                started[name] = _cpu()
            else:
                seconds[name] = seconds.get(name, 0.0) + secs
                cpu[name] = cpu.get(name, 0.0) + _cpu() - started.pop(name, _cpu())

        t0 = time.perf_counter()
        report = build(
            BuildConfig(
                corpus=corpus, wiki=wiki, agents=agents, sessions=sessions, quiet=True, workers=workers, dense=dense
            ),
            on_stage=on_stage,
        )
        total = time.perf_counter() - t0
        cpu_build = _cpu()
        rss.stage = "ask"
        qs = [json.loads(line)["question"] for line in (CUAD / "questions.jsonl").read_text().splitlines()]
        qs = qs[:: max(1, len(qs) // questions)][:questions]
        answerer = Answerer.open(wiki)
        lat = []
        for q in qs:
            t = time.perf_counter()
            answerer.ask(q, mode="wiki+search")
            lat.append((time.perf_counter() - t) * 1000)
        lat.sort()
        seconds["ask p50 ms"] = lat[len(lat) // 2] if lat else 0.0
        seconds["ask p95 ms"] = lat[int(0.95 * (len(lat) - 1))] if lat else 0.0
        rss.peak.setdefault("ask", 0.0)
    idx = CorpusIndex.open(wiki / ".wikigen" / "index")
    docs = idx.documents()
    return {
        "seconds": seconds,
        "rss": rss.peak,
        "total": total,
        "ok": report.ok,
        "cpu": meter.cpu,
        "stage_cpu": cpu,
        "calls": meter.calls,
        "cpu_build": cpu_build,
        "documents": len(docs),
        "passages": sum(idx._docs[d.doc_id]["passages"] for d in docs),
        "tokens": sum(d.tokens for d in docs),
    }


def embed_rate(corpus: Path, sample: int) -> dict:
    """The dense encoder on `sample` passages of the corpus (spread over its documents), in this process:
    passages a second and a CPU second on one thread (one worker thread's rate), then on every core."""
    from wikigen.search.dense.encoder import DenseUnavailable, load_encoder
    from wikigen.search.passages import split_passages

    try:
        encoders = {"1 thread": load_encoder(threads=1), "all cores": load_encoder()}
    except DenseUnavailable as e:
        return {"error": str(e)}
    texts: list[str] = []
    files = sorted(corpus.rglob("*.txt"))
    for f in files[:: max(1, len(files) // 60)]:
        t = f.read_text(encoding="utf-8")
        texts.extend(t[a:b] for a, b in split_passages(t)[:8])
    texts = texts[:sample]
    out: dict = {"model": encoders["all cores"].name, "threads": encoders["all cores"].threads}
    for name, enc in encoders.items():
        enc.encode(texts[:8])  # warm up (first call plans)
        t0, c0, done = time.perf_counter(), time.process_time(), 0
        while done < len(texts) and time.perf_counter() - t0 < EMBED_SECONDS:  # a busy machine: stop early
            batch = texts[done : done + 32]
            enc.encode(batch)
            done += len(batch)
        secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        out[name] = {"passages": done, "seconds": secs, "cpu": cpu, "rate": done / secs, "cpu_rate": done / cpu}
    out["load"] = os.getloadavg()[0]
    return out


def exponent(sizes: list[float], values: list[float]) -> float | None:
    pts = [(math.log(s), math.log(v)) for s, v in zip(sizes, values) if v and v > 0]
    if len(pts) < 2:
        return None
    mx, my = sum(x for x, _ in pts) / len(pts), sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den if den else None


NO_CHART = "none: matplotlib is not installed (pip install -e '.[bench]')"


def chart(sizes_mb: list[float], results: list[dict], path: Path) -> Path | None:
    """The PNG chart; None (and no chart) without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        return None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for stage in BUILD_STAGES:
        ys = [r["seconds"].get(stage, 0.0) for r in results]
        if any(ys):
            ax.plot(sizes_mb, ys, marker="o", label=stage)
    ax.plot(
        sizes_mb, [results[0]["total"] * s / sizes_mb[0] for s in sizes_mb], "k--", lw=1, label="linear from 1x (total)"
    )
    ax.plot(sizes_mb, [r["total"] for r in results], "k-", marker="s", label="whole build")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("corpus size (MB of text)")
    ax.set_ylabel("seconds")
    ax.set_title("wikigen offline build: seconds per stage against corpus size")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--factors", type=int, nargs="+", default=[1, 2, 4, 8])
    ap.add_argument("--agents", type=int, default=4)
    ap.add_argument("--sessions", type=int, default=2)
    ap.add_argument("--questions", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2, help="worker processes for topic discovery")
    ap.add_argument(
        "--speedup-factor",
        type=int,
        default=4,
        help="the size whose build is repeated with 1 worker, for the speedup of --workers (0: none)",
    )
    ap.add_argument("--out", default=str(REPO / "bench-out" / "scale"))
    ap.add_argument(
        "--embed-sample", type=int, default=320, help="passages embedded to measure the encoder's rate (0: none)"
    )
    ap.add_argument("--dense", action="store_true", help="build with passage vectors (the embedding stage)")
    ap.add_argument(
        "--engine",
        nargs="+",
        choices=["local", "ray"],
        help="measure the per-document stages per worker on these engines (the local one always, as the baseline) "
        "instead of building the sizes",
    )
    ap.add_argument("--engine-docs", type=int, default=6, help="cuad-dev documents embedded with --engine")
    ap.add_argument("--engine-index-docs", type=int, default=40, help="cuad-dev documents indexed with --engine")
    ap.add_argument("--engine-workers", type=int, nargs="+", default=[1, 2], help="worker counts with --engine")
    ap.add_argument("--child", nargs=2, metavar=("CORPUS", "WIKI"), help=argparse.SUPPRESS)
    ap.add_argument("--child-embed", metavar="CORPUS", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child_embed:
        print(json.dumps(embed_rate(Path(args.child_embed), args.embed_sample)))
        return 0
    if args.child:
        print(
            json.dumps(
                child(
                    Path(args.child[0]),
                    Path(args.child[1]),
                    args.agents,
                    args.sessions,
                    args.questions,
                    args.workers,
                    args.dense,
                )
            )
        )
        return 0
    if not (CUAD / "docs").is_dir():
        print(f"cuad-dev not found at {CUAD}: the scale bench makes its corpora from it", file=sys.stderr)
        return 2
    if args.engine:
        return engines(args)
    from scale_corpus import generate

    print(
        f"dense embedding {'ON' if args.dense else 'OFF (as --no-dense)'} in the builds; the encoder's rate is measured "
        f"after them on {args.embed_sample} passages. load: {os.getloadavg()[0]:.1f} (1 min average) "
        f"on {os.cpu_count()} cores",
        flush=True,
    )
    started = time.perf_counter()
    out = Path(args.out)
    runs: list[tuple[int, int, dict]] = []
    plan = [(f, args.workers) for f in args.factors]
    if args.speedup_factor in args.factors and args.workers != 1:
        plan.append((args.speedup_factor, 1))
    for factor, workers in plan:
        corpus = out / f"corpus-{factor}x"
        if not corpus.is_dir():
            n, chars = generate(CUAD / "docs", corpus, factor)
            print(f"made {corpus}: {n} documents, {chars / 1e6:.1f} MB", flush=True)
        wiki = out / f"wiki-{factor}x-w{workers}"
        subprocess.run(["rm", "-rf", str(wiki)], check=True)
        t0 = time.perf_counter()
        proc = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                str(corpus),
                str(wiki),
                "--agents",
                str(args.agents),
                "--sessions",
                str(args.sessions),
                "--questions",
                str(args.questions),
                "--workers",
                str(workers),
            ]
            + (["--dense"] if args.dense else []),
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            print(proc.stderr[-3000:], file=sys.stderr)
            return 1
        res = json.loads(proc.stdout.strip().splitlines()[-1])
        res["mb"] = sum(p.stat().st_size for p in corpus.rglob("*.txt")) / 1e6
        print(
            f"{factor}x ({res['mb']:.0f} MB, {workers} workers): built and asked in {time.perf_counter() - t0:.0f} s, "
            f"peak RSS {max(res['rss'].values()):.0f} MB",
            flush=True,
        )
        runs.append((factor, workers, res))

    main_runs = [(f, r) for f, w, r in runs if w == args.workers]
    sizes = [r["mb"] for _, r in main_runs]
    head = f"{'stage':<16}" + "".join(f"{f'{f}x s':>10}{'MB':>7}" for f, _ in main_runs) + f"{'exponent':>10}"
    print("\n" + head + "\n" + "-" * len(head))
    for stage in STAGES + ["whole build"]:
        vals = [r["total"] if stage == "whole build" else r["seconds"].get(stage, 0.0) for _, r in main_runs]
        mems = [
            max(r["rss"].values())
            if stage == "whole build"
            else r["rss"].get(stage.replace(" p50 ms", "").replace(" p95 ms", ""), 0.0)
            for _, r in main_runs
        ]
        ex = exponent(sizes, vals)
        print(
            f"{stage:<16}"
            + "".join(f"{v:>10.2f}" + (f"{m:>7.0f}" if m else f"{'(idx)':>7}") for v, m in zip(vals, mems))
            + (f"{ex:>10.2f}" if ex is not None else f"{'-':>10}")
        )
    cpu_table(main_runs, sizes)
    if len(main_runs) >= 2:
        (f1, r1), (fn, rn) = main_runs[0], main_runs[-1]
        target = rn["mb"] / r1["mb"] * r1["total"] * 1.1
        print(
            f"\nbuild at {fn}x: {rn['total']:.0f} s against the target {target:.0f} s (linear from {f1}x plus 10%): "
            f"{'OK' if rn['total'] <= target else 'MISSED'}; peak RSS {max(rn['rss'].values()):.0f} MB "
            f"(target 2,000 MB: {'OK' if max(rn['rss'].values()) < 2000 else 'MISSED'})"
        )
    one = [r for f, w, r in runs if f == args.speedup_factor and w == 1]
    many = [r for f, w, r in runs if f == args.speedup_factor and w == args.workers]
    if one and many:
        d1, dn = one[0]["seconds"].get("topic discovery", 0.0), many[0]["seconds"].get("topic discovery", 0.0)
        f1, fn = one[0]["seconds"].get("fact detection", 0.0), many[0]["seconds"].get("fact detection", 0.0)
        print(
            f"{args.workers} workers against 1 on the {args.speedup_factor}x corpus: topic discovery "
            f"{d1 / max(dn, 1e-9):.2f}x faster ({d1:.1f} s -> {dn:.1f} s); fact detection "
            f"{f1 / max(fn, 1e-9):.2f}x ({f1:.1f} s -> {fn:.1f} s); whole build "
            f"{one[0]['total'] / many[0]['total']:.2f}x ({one[0]['total']:.0f} s -> {many[0]['total']:.0f} s)"
        )
    worker_candidates(main_runs)
    emb = None
    if args.embed_sample and main_runs:
        proc = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child-embed",
                str(out / f"corpus-{main_runs[0][0]}x"),
                "--embed-sample",
                str(args.embed_sample),
            ],
            capture_output=True,
            text=True,
        )
        emb = (
            json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else {"error": proc.stderr[-500:]}
        )
        embedding_projection(main_runs, emb)
    drawn = chart(sizes, [r for _, r in main_runs], out / "scale.png")
    (out / "scale.json").write_text(json.dumps({"runs": runs, "embedding": emb}, indent=1))
    print(f"chart: {drawn or NO_CHART}")
    print(
        f"bench: {time.perf_counter() - started:.0f} s; load {os.getloadavg()[0]:.1f} / {os.getloadavg()[1]:.1f} / "
        f"{os.getloadavg()[2]:.1f} (1 / 5 / 15 min) at the end"
    )
    return 0


def engines(args: argparse.Namespace) -> int:
    """--engine: each engine (the local one first, the baseline) at each worker count, a child process a run."""
    from engine_rates import pick_sample, print_projection, print_runs, print_scaling

    indexed = pick_sample(CUAD / "docs", args.engine_index_docs, Path(args.out))
    embedded = pick_sample(CUAD / "docs", args.engine_docs, Path(args.out))
    names = ["local"] + [e for e in args.engine if e != "local"]
    mb = [sum(p.stat().st_size for p in c.iterdir()) / 1e6 for c in (indexed, embedded)]
    print(
        f"per-document stages on {', '.join(names)} with {args.engine_workers} workers: {args.engine_index_docs} "
        f"cuad-dev documents indexed ({mb[0]:.2f} MB), {args.engine_docs} embedded ({mb[1]:.2f} MB); load "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores",
        flush=True,
    )
    runs = []
    env = {**os.environ, "OMP_NUM_THREADS": "1"}  # a worker is one core, on either engine
    for engine in names:
        for workers in args.engine_workers:
            t0 = time.perf_counter()
            cmd = [
                sys.executable,
                str(REPO / "bench" / "engine_rates.py"),
                str(indexed),
                str(embedded),
                engine,
                str(workers),
            ]
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if proc.returncode != 0:
                runs.append({"engine": engine, "workers": workers, "error": proc.stderr.strip()[-500:]})
            else:
                runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
            print(f"{engine}, {workers} workers: {time.perf_counter() - t0:.0f} s", flush=True)
    print_runs(runs)
    print()
    print_scaling(runs)
    for engine in names:
        print_projection(runs, engine)
    (Path(args.out) / "engines.json").write_text(json.dumps(runs, indent=1))
    print(
        f"\nload {os.getloadavg()[0]:.1f} / {os.getloadavg()[1]:.1f} / {os.getloadavg()[2]:.1f} (1 / 5 / 15 min) at the end"
    )
    return 0


def cpu_table(main_runs: list[tuple[int, dict]], sizes: list[float]) -> None:
    """CPU seconds per stage (this process and its worker processes): on a shared, loaded machine the
    wall seconds above grow with the other jobs' load, these do not."""
    if not all("stage_cpu" in r for _, r in main_runs):
        return
    print(f"\n{'stage CPU s':<16}" + "".join(f"{f'{f}x':>10}" for f, _ in main_runs) + f"{'exponent':>10}")
    for stage in BUILD_STAGES + ["whole build"]:
        vals = [r["cpu_build"] if stage == "whole build" else r["stage_cpu"].get(stage, 0.0) for _, r in main_runs]
        ex = exponent(sizes, vals)
        print(
            f"{stage:<16}" + "".join(f"{v:>10.2f}" for v in vals) + (f"{ex:>10.2f}" if ex is not None else f"{'-':>10}")
        )


def worker_candidates(main_runs: list[tuple[int, dict]]) -> None:
    """Quote verification: its CPU seconds beside the build's, and whether moving it to worker processes
    would pay (at most half its time saved with 2 workers)."""
    print(f"\n{'CPU s (share of build)':<24}" + "".join(f"{f'{f}x':>16}" for f, _ in main_runs))
    for name in METERED:
        print(
            f"{name:<24}"
            + "".join(f"{r['cpu'][name]:>8.2f} ({r['cpu'][name] / r['total']:>4.1%})" for _, r in main_runs)
        )
    print(f"{'build wall s':<24}" + "".join(f"{r['total']:>16.1f}" for _, r in main_runs))
    f, r = main_runs[-1]
    for name in METERED:
        share = r["cpu"][name] / r["total"]
        print(
            f"{name} at {f}x: {r['cpu'][name]:.2f} s CPU in {r['calls'][name]} calls, {share:.1%} of the build; "
            + (
                f"worth worker processes (at least {WORKER_PAYS:.0%})"
                if share >= WORKER_PAYS
                else f"worker processes would save at most {r['cpu'][name] / 2:.2f} s of {r['total']:.0f} s with 2 "
                f"workers, before forking and sending texts and pages: not worth it (< {WORKER_PAYS:.0%})"
            )
        )


def embedding_projection(main_runs: list[tuple[int, dict]], emb: dict) -> None:
    """The projected time to embed each size's passages, and 350,000 documents / 420M tokens on N workers."""
    if "error" in emb:
        print(f"\nembedding rate not measured: {emb['error']}")
        return
    one, every = emb["1 thread"], emb["all cores"]
    print(
        f"\nembedding ({emb['model']}, load {emb['load']:.1f}): one thread {one['rate']:.1f} passages/s "
        f"({one['cpu_rate']:.1f} a CPU second, {one['passages']} passages); {emb['threads']} threads "
        f"{every['rate']:.1f} passages/s ({every['cpu_rate']:.1f} a CPU second)"
    )
    for f, r in main_runs:
        done = r["seconds"].get("embedding")
        print(
            f"  {f}x: {r['passages']:,} passages ({r['tokens']:,} tokens): {r['passages'] / every['rate'] / 60:.1f} min "
            f"projected on {emb['threads']} threads"
            + (f", {done / 60:.1f} min measured in the build" if done else "")
            + f", against the build's {r['total'] / 60:.1f} min"
        )
    f, r = main_runs[-1]
    per_token = r["passages"] / max(1, r["tokens"])
    n = TARGET_TOKENS * per_token
    per_thread = one["cpu_rate"]  # a worker thread's passages per CPU second: what N quiet cores each give
    print(
        f"  {TARGET_DOCS:,} documents / {TARGET_TOKENS / 1e6:.0f}M tokens: about {n / 1e6:.1f}M passages "
        f"({per_token * 1000:.2f} a thousand tokens, as at {f}x): {n / every['rate'] / 3600:.1f} h here at this "
        f"load, {n / (per_thread * emb['threads']) / 3600:.1f} h on its {emb['threads']} cores when quiet; at "
        f"{per_thread:.1f} passages a CPU second per worker thread: "
        + "; ".join(
            f"{workers} workers x 2 threads {n / (per_thread * workers * 2) / 3600:.1f} h" for workers in (8, 32, 128)
        )
        + f"; a GPU (about 2,000 passages/s) {n / 2000 / 3600:.1f} h"
    )


if __name__ == "__main__":
    sys.exit(main())
