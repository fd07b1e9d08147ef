"""The per-document stages on each engine (`wikigen.core.engine`), per worker: what `bench/scale_bench.py
--engine` runs and prints, and its projection for 350,000 documents on N workers.

Each run is a child process (so its memory is its own) that indexes a sample of cuad-dev's documents (reading
and extraction on the engine, the tantivy index written in the child, the driver) and then embeds their
passages (on the engine: `VectorStore.update(engine=...)`, the vectors saved by the driver), with W workers:
local forked processes (`Workers`) or Ray actors (`RayEngine` on a Ray instance the child starts on this
machine). Every worker is one process on one core (OMP_NUM_THREADS=1 for the child and what it starts, as
Ray sets it for a one-CPU actor), so "per worker" is per core on either engine.

A sampler reads /proc every 0.2 s for this process and every process started under it (forked workers, Ray's
raylet, GCS and actors): CPU seconds split into the driver's, the workers' (the processes that ran the stage)
and the rest (Ray's own services), and the peak resident memory of the driver, of the largest worker and of
all of them together. CPU seconds are the measure on a loaded machine; wall seconds are printed with the load.
A Ray actor that ends between two samples loses at most its last 0.2 s of CPU.

    .venv/bin/python bench/engine_rates.py INDEX_CORPUS EMBED_CORPUS ray 2   # one run: its figures as JSON
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def _stat(pid: int) -> tuple[int, float, float] | None:
    """(parent pid, CPU seconds, resident MB) of a process, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/statm") as f:
            rss = int(f.read().split()[1]) * PAGE / 1e6
    except (OSError, IndexError, ValueError):
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICKS, rss


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


class ProcTree:
    """CPU seconds and peak memory of this process and its descendants, by role (driver, worker, other),
    sampled every 0.2 s. A worker: a Ray actor of wikigen's engine (its process title starts with
    ray::_Worker), or a forked child of this process (the local engine), whose CPU is taken exactly from
    os.times() once the map has reaped it (the samples give its memory). The sampler's own CPU is taken off
    the driver's."""

    def __init__(self) -> None:
        self.me = os.getpid()
        self.cpu: dict[int, float] = {}  # last seen CPU seconds per process
        self.base: dict[int, float] = {}  # CPU seconds of each process when first seen (0 after the start)
        self.role: dict[int, str] = {}
        self.peak = {"driver": 0.0, "worker": 0.0, "all": 0.0}
        self.own = 0.0  # CPU seconds the sampling took
        self._first = True
        self.forked: set[int] = set()  # the local engine's worker processes (CPU from os.times, not sampled)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _tree(self) -> dict[int, tuple[int, float, float]]:
        procs = {}
        for name in os.listdir("/proc"):
            if name.isdigit() and (st := _stat(int(name))) is not None:
                procs[int(name)] = st
        children: dict[int, list[int]] = {}
        for pid, (ppid, _, _) in procs.items():
            children.setdefault(ppid, []).append(pid)
        keep, frontier = {self.me}, [self.me]
        while frontier:
            for pid in children.get(frontier.pop(), []):
                if pid not in keep:
                    keep.add(pid)
                    frontier.append(pid)
        return {pid: procs[pid] for pid in keep if pid in procs}

    def sample(self) -> None:
        t = time.thread_time()
        with self._lock:
            total = 0.0
            for pid, (ppid, cpu, rss) in self._tree().items():
                if self.role.get(pid, "other") == "other":  # an actor's title is set after its process starts
                    line = _cmdline(pid)
                    forked = ppid == self.me and not line.startswith("ray::") and "python" in line
                    self.role[pid] = (
                        "driver"
                        if pid == self.me
                        else "worker"
                        if line.startswith("ray::_Worker") or forked
                        else "other"
                    )
                    if forked:
                        self.forked.add(pid)
                self.base.setdefault(pid, cpu if self._first else 0.0)  # a process started since: all of it
                self.cpu[pid] = cpu
                role = self.role[pid]
                if role != "other":  # the driver's, and the largest worker's
                    self.peak[role] = max(self.peak[role], rss)
                total += rss
            self.peak["all"] = max(self.peak["all"], total)
            self._first = False
            self.own += time.thread_time() - t

    def snapshot(self) -> tuple[dict[int, float], float, float]:
        """(CPU seconds per process since the start, the sampler's own CPU, reaped children's CPU), now."""
        self.sample()
        t = os.times()
        with self._lock:
            return (
                {pid: c - self.base[pid] for pid, c in self.cpu.items()},
                self.own,
                t.children_user + t.children_system,
            )

    def stage_cpu(self, before: tuple[dict[int, float], float, float]) -> dict[str, float]:
        """CPU seconds by role since `before` (roles as known now), the sampler's own taken off the driver's."""
        now, own, reaped = self.snapshot()
        out = {"driver": 0.0, "worker": 0.0, "other": 0.0}
        for pid, cpu in now.items():
            if pid not in self.forked:
                out[self.role[pid]] += cpu - before[0].get(pid, 0.0)
        out["driver"] -= own - before[1]
        out["worker"] += reaped - before[2]  # the forked workers, exactly (reaped when their map ended)
        return out

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            self.sample()

    def __enter__(self) -> ProcTree:
        self.sample()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def pick_sample(docs: Path, n: int, out: Path) -> Path:
    """n of cuad-dev's documents, evenly spaced by name (a spread of lengths), copied under out."""
    files = sorted(p for p in docs.iterdir() if p.is_file())
    chosen = files[:: max(1, len(files) // n)][:n]
    corpus = out / f"engine-sample-{n}"
    if corpus.is_dir() and sorted(p.name for p in corpus.iterdir()) == sorted(p.name for p in chosen):
        return corpus
    shutil.rmtree(corpus, ignore_errors=True)
    corpus.mkdir(parents=True)
    for p in chosen:
        shutil.copy2(p, corpus / p.name)
    return corpus


def engine_run(index_corpus: Path, embed_corpus: Path, engine: str, workers: int) -> dict:
    """On `workers` workers of `engine` (in this process, which the bench starts with OMP_NUM_THREADS=1):
    index `index_corpus`, then embed the passages of an index of `embed_corpus` (a smaller sample, indexed
    before the embedding is timed). Seconds, CPU seconds by role and peak memory per stage, and the counts.
    The model is loaded in this process before the embedding is timed (its CPU seconds: `model_load_cpu`);
    a Ray actor loads it once in the stage (counted in the workers' CPU), a forked worker inherits it."""
    import logging

    from wikigen.search.dense.service import shared_encoder, update_vectors
    from wikigen.search.index import CorpusIndex

    from wikigen.core.engine import Engine, open_engine
    from wikigen.core.workers import Workers

    out: dict = {"engine": engine, "workers": workers, "stages": {}}
    with tempfile.TemporaryDirectory(prefix="wikigen-engine-") as tmp, ProcTree() as tree:
        if engine == "ray":
            import ray

            t0 = time.perf_counter()
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
            out["ray_start_s"] = time.perf_counter() - t0
        with open_engine(engine, workers=workers) as opened:
            # the local engine as an explicit Workers of `workers` processes (not sized down for a small sample)
            pool: Engine = opened if isinstance(opened, Engine) else Workers(workers, 10**12)
            before, t0 = tree.snapshot(), time.perf_counter()
            _, summary = CorpusIndex.build(index_corpus, Path(tmp) / "ix", workers=pool)
            out["stages"]["index"] = {"seconds": time.perf_counter() - t0, "cpu": tree.stage_cpu(before)}
            out.update(documents=summary.documents, characters=summary.characters)
            index, small = CorpusIndex.build(embed_corpus, Path(tmp) / "ix-embed", workers=pool)
            out.update(
                embed_documents=small.documents,
                passages=small.passages,
                tokens=small.tokens,
                embed_characters=small.characters,
            )
            c0 = time.process_time()
            shared_encoder()
            out["model_load_cpu"] = time.process_time() - c0
            before, t0 = tree.snapshot(), time.perf_counter()
            dense = update_vectors(index, engine=pool)
            if not dense.ok or dense.summary is None:
                return {"engine": engine, "workers": workers, "error": dense.note}
            out["stages"]["embedding"] = {"seconds": time.perf_counter() - t0, "cpu": tree.stage_cpu(before)}
            out["embedded"] = dense.summary.embedded_passages
        if engine == "ray":
            ray.shutdown()
    out["peak_mb"] = tree.peak
    out["load"] = os.getloadavg()[0]
    return out


TARGET_DOCS, TARGET_TOKENS = 350_000, 420_000_000


def print_runs(runs: list[dict]) -> None:
    """Per run and stage: wall seconds, CPU seconds (driver / workers / Ray's own), items a second, and items
    per CPU second of the workers (of the driver for one local worker, which runs in its process)."""
    print(
        f"\n{'engine':<7}{'W':>3}{'stage':>11}{'items':>7}{'wall s':>8}{'load':>6}{'driver':>8}{'workers':>9}"
        f"{'other':>7}{'items/s':>9}{'items/worker CPU s':>20}{'peak MB drv/wrk/all':>22}"
    )
    for r in runs:
        if "error" in r:
            print(f"{r['engine']:<7}{r['workers']:>3}  not measured: {r['error']}")
            continue
        for stage, s in r["stages"].items():
            items, unit = (r["documents"], "docs") if stage == "index" else (r["embedded"], "passages")
            c = s["cpu"]
            busy = c["worker"] or c["driver"]  # one local worker runs in the driver's process
            print(
                f"{r['engine']:<7}{r['workers']:>3}{stage:>11}{items:>7}{s['seconds']:>8.1f}{r['load']:>6.1f}"
                f"{c['driver']:>8.1f}{c['worker']:>9.1f}{c['other']:>7.1f}{items / s['seconds']:>9.2f}"
                f"{items / busy if busy > 0 else 0.0:>11.2f} {unit:<8}"
                f"{r['peak_mb']['driver']:>8.0f}/{r['peak_mb']['worker']:.0f}/{r['peak_mb']['all']:.0f}"
            )
        extra = f"; starting the local Ray instance {r['ray_start_s']:.1f} s" if "ray_start_s" in r else ""
        print(f"{'':<10}(loading the model: {r['model_load_cpu']:.1f} CPU s in the driver{extra}; not in the stages)")


def print_scaling(runs: list[dict]) -> None:
    """1 against 2 workers per engine and stage: wall speed-up (on a loaded machine, bounded by the cores the
    other jobs leave), and the workers' CPU seconds (flat when the engine adds no cost per worker)."""
    for engine in ("local", "ray"):
        by_w = {r["workers"]: r for r in runs if r["engine"] == engine and "error" not in r}
        if 1 not in by_w or 2 not in by_w:
            continue
        for stage in ("index", "embedding"):
            one, two = by_w[1]["stages"][stage], by_w[2]["stages"][stage]
            busy1 = one["cpu"]["worker"] or one["cpu"]["driver"]
            print(
                f"{engine} {stage}: 2 workers against 1: {one['seconds'] / two['seconds']:.2f}x wall "
                f"({one['seconds']:.1f} s -> {two['seconds']:.1f} s at load {by_w[1]['load']:.1f} / "
                f"{by_w[2]['load']:.1f}); CPU of the workers {busy1:.1f} s -> {two['cpu']['worker']:.1f} s"
            )


def print_projection(runs: list[dict], engine: str) -> None:
    """350,000 documents / 420M tokens on N workers of `engine`, from its 2-worker run's CPU seconds: the
    workers' part divides by N, the driver's (writing the index, saving the vectors) does not. Indexing is
    scaled by characters, embedding by passages (passages and characters per token as in the sample); a Ray
    actor's model load is taken off its workers' CPU (once per worker, not per passage)."""
    ok = [r for r in runs if "error" not in r and r["engine"] == engine]
    if not ok:
        return
    r = max(ok, key=lambda r: r["workers"])
    per_token = r["passages"] / max(1, r["tokens"])
    passages = TARGET_TOKENS * per_token
    chars = TARGET_TOKENS * r["embed_characters"] / max(1, r["tokens"])
    scale = {"index": chars / r["characters"], "embedding": passages / r["embedded"]}
    loads = r["workers"] * r["model_load_cpu"] if engine == "ray" else 0.0
    work = {s: r["stages"][s]["cpu"] for s in scale}
    serial = sum(work[s]["driver"] * scale[s] for s in scale)
    parallel = (
        work["index"]["worker"] * scale["index"] + max(0.0, work["embedding"]["worker"] - loads) * scale["embedding"]
    )
    if not any(work[s]["worker"] for s in scale):  # one local worker: the work is in the driver
        parallel, serial = serial, 0.0
    print(
        f"\n{TARGET_DOCS:,} documents / {TARGET_TOKENS / 1e6:.0f}M tokens on {engine}, from the {r['workers']}-worker "
        f"run: {passages / 1e6:.2f}M passages ({per_token * 1000:.2f} a thousand tokens), {chars / 1e9:.2f} G "
        f"characters: {parallel / 3600:.1f} h of workers' CPU, {serial / 3600:.1f} h of the driver's (which more "
        "workers do not shrink)"
    )
    for n in (1, 2, 8, 32, 128):
        low, high = max(parallel / n, serial) / 3600, (parallel / n + serial) / 3600
        print(f"  {n:>4} workers of one core each: {low:.1f}-{high:.1f} h (the driver overlapping the workers, or not)")
    print("  linear in workers: measured up to 2 workers on this 2-core machine only")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("index_corpus", help="the folder indexed (its extraction timed)")
    ap.add_argument("embed_corpus", help="the folder whose passages are embedded (timed)")
    ap.add_argument("engine", choices=["local", "ray"])
    ap.add_argument("workers", type=int)
    args = ap.parse_args(argv)
    print(json.dumps(engine_run(Path(args.index_corpus), Path(args.embed_corpus), args.engine, args.workers)))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main())
