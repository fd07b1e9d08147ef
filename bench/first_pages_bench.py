"""How soon a fresh build shows its first pages, and when it is done, vectors included.

    .venv/bin/python bench/first_pages_bench.py                 # cuad-dev's first 60 contracts
    .venv/bin/python bench/first_pages_bench.py --docs 20 --no-dense

Runs the user's command, `wikigen build CORPUS --wiki WIKI` (a fresh WIKI, the CLI in a child process),
on a copy of cuad-dev's first --docs contracts, and polls the wiki folder every 0.1 s: the seconds until
the first page file is written (a page of the wiki, not index.md or log.md), until the first session's
commit (the first page a reader sees in the history), and until the command ends; the CPU seconds of the
command and its worker processes; the build's stages (its --json report); the load average before and
after. A build makes the passage vectors after its sessions, so the pages come before them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _eval_data import EVAL_ROOT

ROOT = Path(__file__).resolve().parent.parent


def copy_first(docs: Path, n: int, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    for p in sorted(docs.glob("*.txt"))[:n]:
        shutil.copyfile(p, out / p.name)
    return out


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(EVAL_ROOT / "cuad-dev"))
    ap.add_argument("--docs", type=int, default=60)
    ap.add_argument("--no-dense", action="store_true", help="build without passage vectors")
    ap.add_argument("--work", default=None, help="work folder (default: a new temporary one)")
    args = ap.parse_args(argv)
    if not (Path(args.data) / "docs").is_dir():
        print(f"no corpus at {args.data}/docs", file=sys.stderr)
        return 2
    work = Path(args.work or tempfile.mkdtemp(prefix="first-pages-"))
    corpus = copy_first(Path(args.data) / "docs", args.docs, work / "corpus")
    wiki = work / "wiki"
    shutil.rmtree(wiki, ignore_errors=True)
    cmd = [str(Path(sys.executable).with_name("wikigen")), "build", str(corpus), "--wiki", str(wiki), "--json"]
    cmd += ["--no-dense"] if args.no_dense else []
    load = os.getloadavg()
    c0, t0 = children_cpu(), time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first_page = first_commit = None
    while proc.poll() is None:
        now = time.perf_counter() - t0
        if first_page is None and any(p.name not in ("index.md", "log.md") for p in wiki.glob("*.md")):
            first_page = now
        heads = wiki / ".git" / "refs" / "heads"
        if first_commit is None and heads.is_dir() and any(heads.iterdir()):
            first_commit = now
        time.sleep(0.1)
    out, err = proc.communicate()
    wall, cpu = time.perf_counter() - t0, children_cpu() - c0
    if proc.returncode not in (0, 1):
        print(f"the build failed ({proc.returncode}): {err[-800:]}", file=sys.stderr)
        return 1
    report = json.loads(out)
    stages = ", ".join(f"{k} {v:.1f}" for k, v in report["stages"].items())
    print(
        f"{args.docs} contracts, vectors {'off' if args.no_dense else 'on'}: first page {first_page:.1f} s, first "
        f"session committed {first_commit if first_commit is None else round(first_commit, 1)} s, done {wall:.1f} s "
        f"wall, {cpu:.1f} s CPU (with worker processes)\n  stages (s): {stages}\n  load {load[0]:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after ({os.cpu_count()} cores)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
