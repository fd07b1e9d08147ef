"""Compare two eval_bench runs question by question: the paired difference of each score and its standard error.

    .venv/bin/python bench/compare_eval.py OLD/bench-summary.json NEW/bench-summary.json
    .venv/bin/python bench/compare_eval.py OLD/dreaming-report.json NEW/dreaming-report.json   # sessions_bench --dreaming

For every corpus, mode, kind and metric the two runs share, the mean of (new - old) over the questions both
scored, its standard error (sample standard deviation of the differences / sqrt(n)) and the verdict of the
project's rule: a change is a gain when it moves a score up by more than one standard error, a loss when down
by more than one. Pairing removes the questions' own spread, so it tells a real change from noise with far
fewer questions than comparing two means does.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

METRICS = ("score", "precision", "answer_score", "answer_precision")


def _rows(path: Path) -> dict[tuple[str, str, str], dict]:
    out = {}
    for corpus in json.loads(path.read_text(encoding="utf-8")):
        for r in corpus.get("rows", []):
            out[(corpus["corpus"], r["mode"], r["id"])] = r
    return out


def paired(old: dict, new: dict) -> dict[tuple[str, str, str, str], tuple[int, float, float | None]]:
    """(corpus, mode, kind, metric) -> (n, mean difference, its standard error)."""
    diffs: dict[tuple[str, str, str, str], list[float]] = {}
    for key, b in new.items():
        a = old.get(key)
        if a is None:
            continue
        for m in METRICS:
            if a.get(m) is None or b.get(m) is None:
                continue
            diffs.setdefault((key[0], key[1], b["kind"], m), []).append(b[m] - a[m])
    out = {}
    for k, d in diffs.items():
        mean = sum(d) / len(d)
        se = math.sqrt(sum((x - mean) ** 2 for x in d) / (len(d) - 1) / len(d)) if len(d) > 1 else None
        out[k] = (len(d), mean, se)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    args = ap.parse_args(argv)
    result = paired(_rows(args.old), _rows(args.new))
    print(f"{'corpus':<16} {'mode':<12} {'kind':<18} {'metric':<17} {'n':>5} {'new - old':>10} {'se':>7}  verdict")
    for (corpus, mode, kind, metric), (n, mean, se) in sorted(result.items()):
        se_s = "-" if se is None else _num(se)
        print(
            f"{corpus:<16} {mode:<12} {kind:<18} {metric:<17} {n:>5} {_num(mean, '+'):>10} {se_s:>8}  {verdict(mean, se)}"
        )
    return 0


def verdict(mean: float, se: float | None) -> str:
    """The rule's word for a paired difference: beyond one standard error up (gain) or down (loss), else same.
    One question moved among n gives a mean of exactly one SE (x/n both), which rounding must not tip."""
    if se is None:
        return "-"
    margin = se * (1 + 1e-9)
    return "gain" if mean > margin else "loss" if mean < -margin else "same"


def _num(x: float, sign: str = "") -> str:
    """Four decimals; a smaller nonzero figure (context precision moves by 0.00005) in scientific notation."""
    return f"{x:{sign}.1e}" if 0 < abs(x) < 0.0005 else f"{x:{sign}.4f}"


if __name__ == "__main__":
    sys.exit(main())
