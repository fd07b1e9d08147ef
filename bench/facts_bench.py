"""Key facts against cuad-dev's expert answers: what a build states of each document from its text alone.

    .venv/bin/python bench/facts_bench.py               # every contract of ../shared/eval/cuad-dev
    .venv/bin/python bench/facts_bench.py --json new.json --against old.json   # paired with an earlier run

Rows, each graded as bench/values_bench.py grades a value (the same date to the gold's precision; the gold
parties' first words among the names stated):

- `table`: the documents table (`wikigen documents`, the web view's Documents): its Parties and Date cells, read
  from each document's opening (`wikigen.search.documents`);
- `sheet`: each document's fact sheet as a build makes it (`wikigen.agents.document_facts.document_sheet`): its
  parties, its own date ("dated", against Agreement Date), effective and expiry dates. A contract's page shows
  the provisions table's value instead wherever the contract schema reads one (`with_provisions`); the sheet's own
  reading is what a document of no kind shows;
- `title`: `document_title` equal to the annotated title (bench/titles_bench.py breaks the others down);
- `amendment cue`: `amendment_cue` over each contract: found for those whose annotated title calls it an
  amendment, addendum or supplement (recall), and for the others (false cues, of how many);
- `amendment chains`: `find_amendments` over the whole corpus: of the amendments whose agreement is in it (an
  exhibit of the same filing, numbered, whose annotated title is no amendment's), how many are chained to one
  of those; and chains to any other document (each a wrong base: a page would show the wrong superseded text).

Accuracy is right / gradable (a fact not stated counts as not right), beside its binomial standard error;
precision is right / stated. With `--against`, each row's change from an earlier run's JSON, paired by
contract (new - old, beside the paired standard error). The grading's patterns are the bench's: the product
holds no gold answer.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _eval_data import EVAL_ROOT  # noqa: E402  (the dev corpora, found from any checkout)
from values_bench import gradable, right  # noqa: E402  (one grading of a value, shared)
from wikigen.agents.document_facts import document_sheet  # noqa: E402
from wikigen.search.documents import _row_facts  # noqa: E402  (the table's cells from a document's opening)
from wikigen.search.facts.amendments import amendment_cue, find_amendments  # noqa: E402
from wikigen.search.facts.title import document_title  # noqa: E402

# a key fact -> (the values_bench field that grades it, the CUAD category an expert answered)
GRADED = {
    "table parties": ("parties", "Parties"),
    "table date": ("agreement_date", "Agreement Date"),
    "sheet parties": ("parties", "Parties"),
    "sheet dated": ("agreement_date", "Agreement Date"),
    "sheet effective": ("effective_date", "Effective Date"),
    "sheet expiry": ("expiration", "Expiration Date"),
}
AMENDMENT_TITLE = re.compile(r"\b(?:amend|addend|supplement)", re.I)  # grading only: what the annotators titled
NUMBERED = re.compile(r"^(.*\D)(\d)$")  # grading only: one filing's exhibits, numbered ("...-agreement1", "...2")


def expected_bases(docs: list[dict]) -> dict[str, set[str]]:
    """amendment doc id -> the documents of its filing that are no amendment (its agreement is one of them)."""
    filings: dict[str, list[dict]] = {}
    for d in docs:
        m = NUMBERED.match(d["doc_id"])
        if m:
            filings.setdefault(m.group(1), []).append(d)
    out: dict[str, set[str]] = {}
    for members in filings.values():
        bases = {d["doc_id"] for d in members if not AMENDMENT_TITLE.search(d["title"])}
        for d in members:
            if bases and AMENDMENT_TITLE.search(d["title"]):
                out[d["doc_id"]] = bases
    return out


def stated_facts(text: str) -> dict[str, dict]:
    """Each key fact this bench grades, as a cell values_bench can read: {"norm", "display"}; absent: not stated."""
    out: dict[str, dict] = {}
    parties, date, _ = _row_facts(text)
    if parties is not None:
        out["table parties"] = {"norm": parties.value, "display": parties.value}
    if date is not None:
        out["table date"] = {"norm": date.value, "display": date.value}
    sheet = document_sheet(text)
    for f in sheet.facts:
        key = "sheet parties" if f.kind == "parties" else f"sheet {f.role}" if f.kind == "date" else ""
        if key in GRADED and key not in out:
            out[key] = {"norm": f.value, "display": f.value}
    return out


def _se(p: float, n: int) -> float:
    return math.sqrt(p * (1 - p) / n) if n else 0.0


def score(data: Path) -> dict[str, dict]:
    docs = [json.loads(line) for line in (data / "docs.jsonl").read_text(encoding="utf-8").splitlines()]
    gold: dict[tuple[str, str], str] = {}
    for line in (data / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        if q.get("kind") == "single" and q["source_doc_ids"]:
            gold[(q["category"], q["source_doc_ids"][0])] = q["answer"]
    counts: dict[str, dict] = {k: {"n": 0, "right": 0, "stated": 0, "docs": []} for k in GRADED}
    titles: dict = {"n": 0, "right": 0, "docs": []}
    cues = {"amendments": 0, "found": 0, "others": 0, "false": 0}
    texts: dict[str, str] = {}
    for d in docs:
        text = texts[d["doc_id"]] = (data / "docs" / f"{d['doc_id']}.txt").read_text(encoding="utf-8")
        said = stated_facts(text)
        for key, (field, category) in GRADED.items():
            answer = gold.get((category, d["doc_id"]))
            cell = said.get(key)
            c = counts[key]
            c["stated"] += cell is not None
            if answer is None or not gradable(field, answer):
                continue
            ok = cell is not None and bool(right(field, cell, answer))
            c["n"] += 1
            c["right"] += ok
            if ok:
                c["docs"].append(d["doc_id"])
        titles["n"] += 1
        if " ".join(document_title(text).casefold().split()) == " ".join(d["title"].casefold().split()):
            titles["right"] += 1
            titles["docs"].append(d["doc_id"])
        cue = amendment_cue(text) is not None
        if AMENDMENT_TITLE.search(d["title"]):
            cues["amendments"] += 1
            cues["found"] += cue
        else:
            cues["others"] += 1
            cues["false"] += cue
    out: dict[str, dict] = {}
    for key, c in counts.items():
        acc = c["right"] / c["n"] if c["n"] else 0.0
        out[key] = {**c, "accuracy": acc, "se": _se(acc, c["n"])}
    acc = titles["right"] / titles["n"] if titles["n"] else 0.0
    out["title"] = {**titles, "accuracy": acc, "se": _se(acc, titles["n"])}
    out["amendment cue"] = cues
    expected = expected_bases(docs)
    chained = {a.doc_id: a.base_id for a in find_amendments(texts)}
    out["amendment chains"] = {
        "with base": len(expected),
        "found": sum(chained.get(a) in bases for a, bases in expected.items()),
        "wrong": sum(b not in expected.get(a, set()) for a, b in chained.items()),
    }
    return out


def paired(new: dict, old: dict) -> tuple[float, float]:
    """(new - old accuracy, its paired standard error) over the same contracts: each contract's change is -1, 0
    or +1."""
    n = new["n"]
    gained, lost = len(set(new["docs"]) - set(old["docs"])), len(set(old["docs"]) - set(new["docs"]))
    if not n:
        return 0.0, 0.0
    mean = (gained - lost) / n
    var = (gained + lost) / n - mean * mean
    return mean, math.sqrt(max(var, 0.0) / n)


def report(s: dict[str, dict], old: dict[str, dict] | None = None) -> list[str]:
    lines = []
    for key in (*GRADED, "title"):
        r = s[key]
        line = f"  {key:<16} accuracy {r['accuracy']:.3f} ±{r['se']:.3f}  ({r['right']} of {r['n']})"
        if "stated" in r:
            line += f"  stated {r['stated']}"
        if old is not None and key in old:
            d, se = paired(r, old[key])
            line += f"  change {d:+.4f} ±{se:.4f}"
        lines.append(line)
    c = s["amendment cue"]
    lines.append(f"  amendment cue    found {c['found']} of {c['amendments']}; false {c['false']} of {c['others']}")
    c = s["amendment chains"]
    lines.append(f"  amendment chains found {c['found']} of {c['with base']}; wrong {c['wrong']}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=EVAL_ROOT / "cuad-dev", help="the cuad-dev folder")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--against", type=Path, help="an earlier run's --json: each row's change, paired by contract")
    args = ap.parse_args(argv)
    if not (args.data / "docs.jsonl").is_file():
        print(f"no {args.data / 'docs.jsonl'}: set WIKIGEN_EVAL_DATA or --data", file=sys.stderr)
        return 2
    if args.against and not args.against.is_file():
        print(f"no {args.against}: give an earlier run's --json", file=sys.stderr)
        return 2
    old = json.loads(args.against.read_text(encoding="utf-8")) if args.against else None
    t0 = time.perf_counter()
    s = score(args.data)
    print(f"key facts over the contracts of {args.data.name} ({time.perf_counter() - t0:.1f} s)")
    print("\n".join(report(s, old)))
    if args.json:
        args.json.write_text(json.dumps(s, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
