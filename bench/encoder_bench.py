"""Passages per second: the numpy all-MiniLM-L6-v2 encoder against torch + sentence-transformers, same run.

    .venv/bin/python bench/encoder_bench.py --torch-python /tmp/torchref/bin/python
    .venv/bin/python bench/encoder_bench.py --torch-python /tmp/torchref/bin/python --int8

The reference runs in a separate Python that has torch (never the project's venv):
    python3 -m venv /tmp/torchref && /tmp/torchref/bin/pip install torch==2.13.0 sentence-transformers

Passages: the index's own ~1,000-character passages (search/passages.py) of the first cuad-dev
contracts. The encoders take turns over the same passages, --rounds times, so both see the same
machine load (the 2 cores here are shared); the best and median round of each are printed, with the
cosine between the two encoders' vectors. --int8 adds torch's dynamic int8 quantisation of the Linear
layers (torch.ao.quantization.quantize_dynamic) as a third encoder.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The worker run by the torch Python: reads a command per line, answers one JSON line each.
_WORKER = r"""
import json, sys, time
import numpy as np, torch
from sentence_transformers import SentenceTransformer
model_dir, texts_file, out_file, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
texts = json.load(open(texts_file, encoding="utf-8"))
models = {"torch-f32": SentenceTransformer(model_dir, device="cpu")}
if "--int8" in sys.argv:
    m = SentenceTransformer(model_dir, device="cpu")
    models["torch-int8"] = torch.ao.quantization.quantize_dynamic(m, {torch.nn.Linear}, dtype=torch.qint8)
for m in models.values():
    m.encode(texts[:4], batch_size=batch)
print(json.dumps({"ready": list(models), "torch": torch.__version__, "threads": torch.get_num_threads()}), flush=True)
for line in sys.stdin:
    name = line.strip()
    t = time.perf_counter()
    v = models[name].encode(texts, batch_size=batch, normalize_embeddings=True, convert_to_numpy=True)
    dt = time.perf_counter() - t
    np.save(out_file + "." + name + ".npy", v.astype(np.float32))
    print(json.dumps({"seconds": dt}), flush=True)
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "eval" / "cuad-dev"))
    ap.add_argument("--passages", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--torch-python", default=None, help="a Python with torch and sentence-transformers")
    ap.add_argument("--int8", action="store_true", help="also torch's dynamic int8 quantisation")
    args = ap.parse_args(argv)

    import numpy as np
    from wikigen.search.dense.encoder import load_encoder, model_dir

    texts = passages(Path(args.data), args.passages)
    if not texts:
        print(f"no passages under {args.data}/docs", file=sys.stderr)
        return 2
    enc = load_encoder(batch_size=args.batch_size)
    toks = [len(x) for x in enc.token_ids(texts)]
    print(
        f"{len(texts)} passages, {sum(map(len, texts)) / len(texts):.0f} characters and "
        f"{sum(toks) / len(toks):.0f} tokens on average ({sum(t == enc.max_tokens for t in toks)} truncated at "
        f"{enc.max_tokens}); load average {os.getloadavg()[0]:.1f}; OPENBLAS_CORETYPE="
        f"{os.environ.get('OPENBLAS_CORETYPE', '(unset)')}"
    )
    enc.encode(texts[:4])
    tmp = Path(tempfile.mkdtemp(prefix="encoder-bench-"))
    worker, names = None, ["numpy-f32"]
    if args.torch_python:
        (tmp / "texts.json").write_text(json.dumps(texts), encoding="utf-8")
        (tmp / "worker.py").write_text(_WORKER, encoding="utf-8")
        cmd = [
            args.torch_python,
            str(tmp / "worker.py"),
            str(model_dir()),
            str(tmp / "texts.json"),
            str(tmp / "out"),
            str(args.batch_size),
        ] + (["--int8"] if args.int8 else [])
        worker = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, stderr=subprocess.DEVNULL
        )
        assert worker.stdin is not None and worker.stdout is not None  # both are pipes
        ready = json.loads(worker.stdout.readline())
        names += ready["ready"]
        print(f"reference: torch {ready['torch']}, {ready['threads']} threads")
    times: dict[str, list[float]] = {n: [] for n in names}
    vecs: dict[str, Any] = {}  # name -> the vectors (numpy arrays)
    try:
        for _ in range(args.rounds):
            for name in names:
                if name == "numpy-f32":
                    t = time.perf_counter()
                    vecs[name] = enc.encode(texts)
                    times[name].append(time.perf_counter() - t)
                else:  # a reference encoder: the worker was started for it
                    assert worker is not None and worker.stdin is not None and worker.stdout is not None
                    worker.stdin.write(name + "\n")
                    worker.stdin.flush()
                    times[name].append(json.loads(worker.stdout.readline())["seconds"])
                    vecs[name] = np.load(tmp / f"out.{name}.npy")
    finally:
        if worker is not None and worker.stdin is not None:
            worker.stdin.close()
            worker.wait(timeout=60)
    print(
        f"\n{'encoder':<12} {'best p/s':>9} {'median p/s':>11} {'min cos':>8} {'mean cos':>9}   (cosine to numpy-f32)"
    )
    for name in names:
        best, med = len(texts) / min(times[name]), len(texts) / statistics.median(times[name])
        cos = (vecs[name] * vecs["numpy-f32"]).sum(axis=1)
        print(f"{name:<12} {best:>9.1f} {med:>11.1f} {cos.min():>8.4f} {cos.mean():>9.4f}")
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
