"""Reading and extracting files in worker processes: an index build of a PDF corpus with 1 and with 2
workers, side by side, and of the same texts as plain .txt files (where extraction is cheap).

    .venv/bin/python bench/extraction_bench.py                    # 60 cuad-dev contracts as PDFs
    .venv/bin/python bench/extraction_bench.py --docs 20          # a quick look

The PDFs are written once (fpdf2, a test dependency; core fonts, so text outside Latin-1 becomes "?")
from cuad-dev's first contracts under bench-out/extraction/, each with the text cut to --chars
characters. Each build is fresh (a new index folder) and uses the same token counter as `wikigen
build`; dense embedding is not part of `CorpusIndex.build`. Printed: seconds of the whole index build
and of its extraction (the time the build waited for files to be read and extracted), per corpus and
worker count, and the speedup of 2 workers over 1.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _eval_data import EVAL_ROOT

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

CUAD = EVAL_ROOT / "cuad-dev" / "docs"


def make_corpora(out: Path, docs: int, chars: int) -> tuple[Path, Path]:
    from fpdf import FPDF

    pdf_dir, txt_dir = out / f"pdf-{docs}", out / f"txt-{docs}"
    if pdf_dir.is_dir() and txt_dir.is_dir() and len(list(pdf_dir.glob("*.pdf"))) == docs:
        return pdf_dir, txt_dir
    shutil.rmtree(pdf_dir, ignore_errors=True)
    shutil.rmtree(txt_dir, ignore_errors=True)
    pdf_dir.mkdir(parents=True)
    txt_dir.mkdir(parents=True)
    for i, f in enumerate(sorted(CUAD.rglob("*.txt"))[:docs]):
        text = f.read_text(encoding="utf-8")[:chars].encode("latin-1", "replace").decode("latin-1")
        pdf = FPDF()
        pdf.set_auto_page_break(True, margin=15)
        pdf.add_page()
        pdf.set_font("Helvetica", size=9)
        pdf.multi_cell(0, 4, text)
        pdf.output(str(pdf_dir / f"doc-{i:03d}.pdf"))
        (txt_dir / f"doc-{i:03d}.txt").write_text(text, encoding="utf-8")
    return pdf_dir, txt_dir


def one_build(corpus: Path, workers: int) -> tuple[float, float, int]:
    from wikigen.search.index import CorpusIndex

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        idx, summary = CorpusIndex.build(corpus, Path(tmp) / "index", workers=workers)
        return time.perf_counter() - t0, summary.extract_seconds, idx.corpus_chars


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=60)
    ap.add_argument("--chars", type=int, default=40000, help="characters of each contract written")
    ap.add_argument("--out", default=str(REPO / "bench-out" / "extraction"))
    args = ap.parse_args(argv)
    if not CUAD.is_dir():
        print(f"cuad-dev not found at {CUAD}: the bench makes its PDFs from it", file=sys.stderr)
        return 2
    import wikigen.core.workers as workers_mod

    workers_mod.PARALLEL_MIN_CHARS = 0  # a small corpus, so that both runs read the same way
    t0 = time.perf_counter()
    pdf_dir, txt_dir = make_corpora(Path(args.out), args.docs, args.chars)
    mb = sum(p.stat().st_size for p in pdf_dir.glob("*.pdf")) / 1e6
    print(
        f"{args.docs} PDFs ({mb:.1f} MB) and the same texts as .txt, made in {time.perf_counter() - t0:.0f} s; "
        f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print(f"{'corpus':<8}{'workers':>8}{'build s':>10}{'extraction s':>14}{'Mchars':>9}")
    rows = {}
    for name, corpus in (("pdf", pdf_dir), ("txt", txt_dir)):
        for workers in (1, 2):
            secs, ext, chars = one_build(corpus, workers)
            rows[name, workers] = secs
            print(f"{name:<8}{workers:>8}{secs:>10.2f}{ext:>14.2f}{chars / 1e6:>9.2f}", flush=True)
    for name in ("pdf", "txt"):
        print(f"{name}: 2 workers against 1: index build {rows[name, 1] / rows[name, 2]:.2f}x faster")
    print(f"load {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
