"""Titles against cuad-dev's annotated ones: how often the title the product gives is the annotated title, a stamp
or filing line, or runs into a party's name.

    .venv/bin/python bench/titles_bench.py              # every contract of ../shared/eval/cuad-dev
    .venv/bin/python bench/titles_bench.py --show bad   # and each title that is not the annotated one

The title is `wikigen.search.facts.title.document_title` over each contract's text (what a build gives a
plain-text file). Rows, each a count over the contracts:

- `equal`: the title equals the annotated one (case-insensitive, whitespace normalised);
- `stamp`: the title is a stamp, legend or filing line, or carries one: a redaction mark ("[***]", "[ ]"), a
  legend ("... = ..."), confidential treatment, an omission notice, a filing line ("Source: ..."), an
  exhibit's number, an execution-copy mark;
- `party`: the title holds the first word of an annotated party's name that the annotated title does not
  (a letterhead taken for the title, or a title run on into the first party's name);
- `fragment`: the title ends in a preposition, article or conjunction ("ADDENDUM TO").

The patterns above are the bench's, for grading only: the product holds no list of stamps.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _eval_data import EVAL_ROOT  # noqa: E402  (the dev corpora, found from any checkout)
from wikigen.search.facts.title import document_title  # noqa: E402

STAMP = re.compile(
    r"[\[\]{}*=]|\bconfidential\b|treatment|omitted|redacted|^source\b|\bexhibit\s+[\d.]+|execution\s+(?:copy|version)",
    re.I,
)
FRAGMENT = re.compile(r"\b(?:to|of|in|into|by|with|at|on|for|the|a|an|and|or)$", re.I)


def norm(s: str) -> str:
    return " ".join(s.casefold().split())


def party_words(parties: str, gold_title: str) -> set[str]:
    """The first word of each annotated party's name (3 letters or more) that the annotated title lacks."""
    out = set()
    for p in parties.split(";"):
        name = re.sub(r"\(.*?\)|[\"“”]", "", p).strip(" ,.;")
        words = re.findall(r"[^\W_]+", name.casefold())
        if words and len(words[0]) >= 3 and words[0] not in ("the", "each", "and") and "[" not in name:
            out.add(words[0])
    return {w for w in out if not re.search(rf"(?<!\w){re.escape(w)}(?!\w)", gold_title.casefold())}


def grade(title: str, gold: str, parties: str) -> dict[str, bool]:
    words = set(re.findall(r"[^\W_]+", title.casefold()))
    return {
        "equal": norm(title) == norm(gold),
        "stamp": bool(STAMP.search(title)),
        "party": bool(words & party_words(parties, gold)),
        "fragment": bool(FRAGMENT.search(title.rstrip(" .,…"))),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=EVAL_ROOT / "cuad-dev", help="the cuad-dev folder")
    ap.add_argument("--show", choices=("none", "bad", "all"), default="none", help="print titles: none, bad, all")
    args = ap.parse_args()
    listing = args.data / "docs.jsonl"
    if not listing.is_file():
        print(f"no {listing}: set WIKIGEN_EVAL_DATA or --data", file=sys.stderr)
        return 2
    counts: dict[str, int] = {"equal": 0, "stamp": 0, "party": 0, "fragment": 0}
    n = 0
    for line in listing.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        text = (args.data / "docs" / f"{d['doc_id']}.txt").read_text(encoding="utf-8")
        title = document_title(text)
        g = grade(title, d["title"], d["parties"])
        n += 1
        for k, v in g.items():
            counts[k] += int(v)
        bad = not g["equal"] or g["stamp"] or g["party"] or g["fragment"]
        if args.show == "all" or (args.show == "bad" and bad):
            flags = ",".join(k for k, v in g.items() if v and k != "equal") or "-"
            print(f"{'==' if g['equal'] else '!='} [{flags}] {title!r} | gold {' '.join(d['title'].split())!r}")
    print(f"titles over {n} contracts of {args.data.name}")
    for k, c in counts.items():
        print(f"  {k:<9} {c:4d}  ({c / max(n, 1):.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
