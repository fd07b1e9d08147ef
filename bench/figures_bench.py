"""Key facts of sec10q-dev's questions per kind, mode and half, on a built wiki (for figure pages).

    .venv/bin/python bench/figures_bench.py --wiki bench-out/sec-wiki              # multi questions
    .venv/bin/python bench/figures_bench.py --wiki W --kinds multi single --modes wiki wiki+search search

Prints, per kind and mode, the mean key-facts score (wikigen.ask.keyfacts) over the dev half (even
positions in questions.jsonl), the holdout half (odd positions) and all, plus the wiki's figure pages
(count, and their share of the pages' characters). Questions whose gold answer has no key facts are
left out (counted).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _eval_data import EVAL_ROOT  # noqa: E402  (the dev corpora, found from any checkout)

from wikigen.ask.keyfacts import score_keyfacts  # noqa: E402
from wikigen.ask.questions import read_questions  # noqa: E402
from wikigen.ask.retrieval import Answerer  # noqa: E402


def _mean(xs: list[float]) -> str:
    return f"{sum(xs) / len(xs):.3f} (n={len(xs)})" if xs else "-"


def figure_share(wiki: Path) -> tuple[int, int, int]:
    """(figure pages, their characters, all pages' characters) of a wiki folder."""
    n = fig = total = 0
    for p in sorted(wiki.glob("*.md")):
        size = len(p.read_text(encoding="utf-8"))
        total += size
        if p.stem.startswith("figure-"):
            n += 1
            fig += size
    return n, fig, total


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(EVAL_ROOT / "sec10q-dev"))
    ap.add_argument("--wiki", required=True, help="a built wiki of the data set's docs")
    ap.add_argument("--kinds", nargs="+", default=["multi"])
    ap.add_argument("--modes", nargs="+", default=["wiki", "wiki+search"])
    ap.add_argument("--budget", type=int, default=4000)
    args = ap.parse_args(argv)
    qfile = Path(args.data) / "questions.jsonl"
    if not qfile.is_file():
        print(f"no questions at {qfile}; nothing to measure", file=sys.stderr)
        return 1
    questions = read_questions(qfile)
    ans = Answerer.open(Path(args.wiki))
    n, fig, total = figure_share(Path(args.wiki))
    print(f"wiki {args.wiki}: {n} figure pages, {fig:,} of {total:,} page characters ({fig / max(1, total):.1%})")
    for kind in args.kinds:
        for mode in args.modes:
            halves: dict[str, list[float]] = {"dev": [], "holdout": []}
            unscored = 0
            for pos, q in enumerate(questions):
                if q.get("kind") != kind:
                    continue
                items, _, _ = ans.retrieve(q["question"], mode, args.budget)
                s = score_keyfacts(q, [c.to_dict() for c in items])
                if s is None:
                    unscored += 1
                    continue
                halves["dev" if pos % 2 == 0 else "holdout"].append(s)
            both = halves["dev"] + halves["holdout"]
            print(
                f"{kind:7} {mode:12} dev {_mean(halves['dev'])}  holdout {_mean(halves['holdout'])}  "
                f"all {_mean(both)}  (no key facts: {unscored})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
