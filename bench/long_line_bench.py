"""Long-line benchmark: index time of 1 MB in one line, and of a 1 MB word, against 1 MB of ordinary lines.

    .venv/bin/python bench/long_line_bench.py [--mb 1.0] [--repeat 3] [--corpus DIR]

Four one-file corpora of the same size, indexed in the same run (a fresh `CorpusIndex.build` each, the
default tiktoken counter, best of --repeat):
  lines      the text of the corpus's documents (default ../shared/eval/cuad-dev/docs), lines as written
  one line   the same text with every run of whitespace made one space: one line (OCR without newlines)
  no stops   that line without . ! ? ; : (minified text: no sentence end anywhere to cut at)
  one word   base64 of seeded random bytes: one token (an attachment), skipped and counted
Prints wall and CPU seconds, MB/s and the ratio to `lines` (target <= 2.0 for every kind), with the load
average (`uptime`) before and after: the machine may be shared, so compare ratios within one run.
"""

from __future__ import annotations

import argparse
import base64
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _eval_data import EVAL_ROOT  # noqa: E402  (the dev corpora, found from any checkout)
from wikigen.search.corpus import load_corpus  # noqa: E402
from wikigen.search.index import CorpusIndex  # noqa: E402

TARGET = 2.0


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)  # all threads of this process
    return r.ru_utime + r.ru_stime


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def texts(corpus: Path, n: int) -> dict[str, str]:
    """The four texts of n characters each (see the module docstring)."""
    docs, _ = load_corpus(corpus)
    lines, size = [], 0
    for d in docs:
        lines.append(d.text)
        size += len(d.text)
        if size >= n:
            break
    prose = "\n".join(lines)[:n]
    if len(prose) < n:
        raise SystemExit(f"{corpus} holds {len(prose):,} characters of text; fewer than the {n:,} asked for")
    one_line = re.sub(r"\s+", " ", prose)
    no_stops = re.sub(r"[.!?;:]", "", one_line)
    word = base64.b64encode(random.Random(1).randbytes(n * 3 // 4 + 3)).decode()
    return {"lines": prose, "one line": one_line, "no stops": no_stops, "one word": word[:n]}


def index_once(text: str, work: Path) -> tuple[float, float, int, int]:
    """(wall s, CPU s, passages, overlong tokens) of a fresh index of one file holding text."""
    shutil.rmtree(work, ignore_errors=True)
    (work / "corpus").mkdir(parents=True)
    (work / "corpus" / "doc.txt").write_text(text, encoding="utf-8")
    c, t = cpu_seconds(), time.perf_counter()
    _, summary = CorpusIndex.build(work / "corpus", work / "index")
    wall, cpu = time.perf_counter() - t, cpu_seconds() - c
    return wall, cpu, summary.passages, sum(n for _, n, _ in getattr(summary, "overlong", []))  # older: none


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=1.0, help="size of each text in MB of characters (default 1)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each kind; the best is kept (default 3)")
    ap.add_argument("--corpus", type=Path, default=EVAL_ROOT / "cuad-dev" / "docs", help="where the prose comes from")
    args = ap.parse_args(argv)
    n = int(args.mb * 1_000_000)
    kinds = texts(args.corpus, n)
    print(f"before: {uptime()}")
    print(f"{'kind':<10} {'wall s':>8} {'cpu s':>8} {'MB/s':>7} {'ratio':>6} {'passages':>9} {'overlong':>9}")
    base = None
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="long-line-bench-") as tmp:
        for kind, text in kinds.items():
            runs = [index_once(text, Path(tmp) / "run") for _ in range(max(1, args.repeat))]
            wall, cpu, passages, overlong = min(runs)
            base = wall if base is None else base
            ratio = wall / base
            worst = max(worst, ratio)
            mb = len(text.encode("utf-8")) / 1e6
            print(f"{kind:<10} {wall:8.2f} {cpu:8.2f} {mb / wall:7.2f} {ratio:6.2f} {passages:9,} {overlong:9,}")
    print(f"after: {uptime()}")
    print(f"worst ratio to ordinary lines {worst:.2f} (target <= {TARGET})")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
