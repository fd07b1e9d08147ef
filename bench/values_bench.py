"""Field values against cuad-dev's expert answers: how often the provisions table states what the experts read.

    .venv/bin/python bench/values_bench.py                       # every contract of ../shared/eval/cuad-dev
    .venv/bin/python bench/values_bench.py --limit 60            # the first 60 contracts
    .venv/bin/python bench/values_bench.py --index bench-out/cuad-dev-index   # reuse an index for the baseline
    .venv/bin/python bench/values_bench.py --cv      # and the clause model, cross-validated (pip install -e '.[train]')

For each field of the contract schema that cuad-dev grades (the mapping to CUAD's categories lives here, in
the bench, not in the product), two rows, both measured in this run:

- `table`: `wikigen.search.values.extract_values` over each whole contract with the schema's rules alone (no
  clause model: the shipped one was trained on these contracts, so its figures here would be no measure);
- with `--cv`, the same with the clause model, each contract read by a model trained on the other folds
  (bench/train_clauses.py), and a per-field comparison: precision with its standard error, recall or accuracy,
  how many cells are stated and "possible", and how often a "Yes" quotes a clause the experts marked;
- `bm25-top`: plain BM25 with the field's label as the query, inside the one contract, and the same value
  parser (the same typed parser; for a yes/no field the same signal rule) over its top passage only.

Value fields (governing law, renewal term, notice to stop renewal, expiration, agreement and effective dates,
parties) score **accuracy** over the contracts whose expert answer is a value this bench can read (a date, a
duration, "perpetual", a jurisdiction's name; free-text answers are counted as unscored), and the precision of
the values stated. A value is right when it means the gold value: the same date (to the gold's precision), the
same length of time (a year is 12 months), the same jurisdiction (the gold's name is one of the value's words:
"England" in "England and Wales"), the gold parties' names found in the stated ones. Yes/no fields score
precision, recall and **F1** of the contracts said to have the clause against those the experts labelled, over
all contracts; the mean F1 is over the fields with at least 20 labelled contracts. Standard errors beside
accuracy (binomial).
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

from _eval_data import EVAL_ROOT  # noqa: E402  (the dev corpora, found from any checkout)
from wikigen.search.values import find_values  # noqa: E402
from wikigen.search.values.extract import extract_values  # noqa: E402
from wikigen.search.values.schema import PRESENCE, load_schemas  # noqa: E402

# the product's field -> the CUAD category an expert answered (grading only)
VALUE_FIELDS = {
    "governing_law": "Governing Law",
    "renewal_term": "Renewal Term",
    "renewal_notice": "Notice Period To Terminate Renewal",
    "expiration": "Expiration Date",
    "agreement_date": "Agreement Date",
    "effective_date": "Effective Date",
    "parties": "Parties",
}
PRESENCE_FIELDS = {
    "termination_for_convenience": "Termination For Convenience",
    "liability_cap": "Cap On Liability",
    "uncapped_liability": "Uncapped Liability",
    "non_compete": "Non-Compete",
    "exclusivity": "Exclusivity",
    "assignment": "Anti-Assignment",
    "change_of_control": "Change Of Control",
    "audit_rights": "Audit Rights",
    "insurance": "Insurance",
    "most_favoured_nation": "Most Favored Nation",
    "ip_ownership": "Ip Ownership Assignment",
}
GROUPS = {
    "dates": ("agreement_date", "effective_date", "expiration"),
    "renewal and notice": ("renewal_term", "renewal_notice"),
}
UNITS = {"day": 1.0, "days": 1.0, "month": 30.4375, "months": 30.4375, "year": 365.25, "years": 365.25}


# --- reading the gold answers (CUAD's normalised forms) --------------------------------------------


def gold_date(answer: str) -> tuple[str, str] | None:
    """'6/21/99' -> ('1999-06-21', 'day'); '[]/[]/2004' -> ('2004', 'year'); None when not a date."""
    m = re.fullmatch(r"\s*(\d{1,2}|\[\])/(\d{1,2}|\[\])/(\d{2}|\d{4})\s*", answer)
    if not m:
        return None
    y = int(m.group(3))
    if y < 100:
        y += 2000 if y < 50 else 1900
    if m.group(1) == "[]":
        return str(y), "year"
    if m.group(2) == "[]":
        return f"{y}-{int(m.group(1)):02d}", "month"
    return f"{y}-{int(m.group(1)):02d}-{int(m.group(2)):02d}", "day"


def gold_days(answer: str) -> float | str | None:
    """'successive 1 year' -> 365.25; '30 days' -> 30; 'perpetual' -> 'perpetual'; None when free text."""
    a = answer.strip().lower()
    if a == "perpetual":
        return "perpetual"
    m = re.fullmatch(
        r"(?:\d+\s+)?(?:successive|succesive)?\s*(\d+(?:\.\d+)?)\)?\s+(day|days|month|months|year|years)", a
    )
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def date_right(cell: dict, gold: tuple[str, str]) -> bool:
    iso, precision = gold
    norm = cell.get("norm", "")
    return bool(norm) and norm[: len(iso)] == iso if precision != "day" else norm == iso


def duration_right(cell: dict, gold: float | str) -> bool:
    if gold == "perpetual":
        return cell.get("norm") == "perpetual"
    days = (cell.get("parts") or {}).get("days")
    return isinstance(days, int | float) and isinstance(gold, float) and abs(days - gold) <= 0.02 * gold


def expiry_right(cell: dict, answer: str) -> bool | None:
    g = gold_date(answer)
    if g is not None:
        norm = cell.get("norm", "") or ""
        end = (cell.get("parts") or {}).get("end") or norm
        return str(end)[: len(g[0])] == g[0] if g[1] != "day" else end == g[0]
    if answer.strip().lower() == "perpetual":
        return cell.get("norm") == "perpetual"
    return None


def jurisdiction_right(cell: dict, answer: str) -> bool | None:
    """The same jurisdiction: the cell's code is one of the gold answer's most specific codes (as the product's
    own parser reads the gold: "People's Republic of China" is CN; "British Columbia, Canada" is CA-BC, so
    "Canada" is not it); a gold answer the parser cannot read is compared by name."""
    names = [a.strip() for a in re.split(r"[;]", answer) if a.strip() and a.strip() != "[]"]
    if not names or any(len(n) > 60 for n in names):
        return None
    codes = {str(v.parts.get("code")) for v in find_values(answer, "jurisdiction") if v.parts.get("code")}
    codes = {c for c in codes if not any(o.startswith(c + "-") for o in codes)}
    said = str((cell.get("parts") or {}).get("code") or "")
    if codes and said:
        return said in codes
    said_names = (cell.get("display", "") + " " + cell.get("norm", "")).casefold()
    return any(re.search(rf"(?<!\w){re.escape(n.split(',')[0].strip().casefold())}(?!\w)", said_names) for n in names)


def parties_right(cell: dict, answer: str) -> bool | None:
    names = [re.sub(r"\(.*?\)|[\"“”]", "", p).strip(" ,.;") for p in answer.split(";")]
    names = [n for n in names if len(n) >= 3 and "[" not in n]
    if not names:
        return None
    said = cell.get("display", "").casefold()
    key = [re.sub(r"[^\w]+", " ", n.casefold()).split()[0] for n in names[:2]]
    return all(k in said for k in key)


def right(field: str, cell: dict, answer: str) -> bool | None:
    """Whether the stated cell means the gold answer; None when the gold answer is free text this bench cannot read."""
    if field in ("agreement_date", "effective_date"):
        when = gold_date(answer.split("<omitted>")[0])
        return None if when is None else date_right(cell, when)
    if field == "expiration":
        return expiry_right(cell, answer)
    if field in ("renewal_term", "renewal_notice"):
        days = gold_days(answer)
        return None if days is None else duration_right(cell, days)
    if field == "governing_law":
        return jurisdiction_right(cell, answer)
    if field == "parties":
        return parties_right(cell, answer)
    return None


def gradable(field: str, answer: str) -> bool:
    probe = {"norm": "", "display": "", "parts": {}}
    return right(field, probe, answer) is not None


# --- the two systems ---------------------------------------------------------------------------


def table_cells(texts: dict[str, str], schema, model=None) -> dict[str, dict[str, dict]]:
    """Each contract's cells as the build reads them; model None: the schema's signals alone (no clause model)."""
    return {d: {k: c.to_dict() for k, c in extract_values(t, schema, model=model).items()} for d, t in texts.items()}


def bm25_cells(index, texts: dict[str, str], schema) -> dict[str, dict[str, dict]]:
    """The baseline: the top BM25 passage of the field's label inside each contract, and the same parser."""
    from wikigen.search.values.extract import _candidates, _Doc  # the same signal rule, over one passage

    out: dict[str, dict[str, dict]] = {}
    for doc_id in texts:
        row: dict[str, dict] = {}
        for f in schema.fields:
            if f.name not in VALUE_FIELDS and f.name not in PRESENCE_FIELDS:
                continue
            hits = index.search(f.label, k=1, doc_ids=[doc_id])
            cell: dict = {"field": f.name, "status": "not stated"}
            if hits:
                h = hits[0]
                if f.type == PRESENCE:
                    if _candidates(_Doc(h.text), f):
                        cell = {"field": f.name, "status": "stated", "display": "Yes", "norm": "", "parts": {}}
                else:
                    vtype = "date" if f.type in ("date", "term") else f.type
                    vals = find_values(h.text, vtype)
                    if vals:
                        v = vals[0]
                        cell = {
                            "field": f.name,
                            "status": "stated",
                            "display": v.display,
                            "norm": v.norm,
                            "parts": dict(v.parts),
                        }
            row[f.name] = cell
        out[doc_id] = row
    return out


# --- scoring -----------------------------------------------------------------------------------


def _quoted(quote: list[int] | None, marked: list[tuple[int, int]] | None) -> bool:
    """A "Yes" quotes a clause the experts marked (or their spans are unknown)."""
    return not marked or (quote is not None and any(a < quote[1] and quote[0] < b for a, b in marked))


def score(cells: dict[str, dict[str, dict]], questions: list[dict]) -> dict[str, dict]:
    singles: dict[str, dict[str, str]] = {}
    spans: dict[tuple[str, str], list[tuple[int, int]]] = {}  # (category, doc) -> the experts' clause spans
    for q in questions:
        if q.get("kind") == "single" and q["source_doc_ids"]:
            singles.setdefault(q["category"], {})[q["source_doc_ids"][0]] = q["answer"]
            for e in q.get("evidence") or []:
                if e.get("start") is not None:
                    spans.setdefault((q["category"], e["doc_id"]), []).append((e["start"], e["end"]))
    docs = set(cells)
    out: dict[str, dict] = {}
    for field, cat in VALUE_FIELDS.items():
        gold: dict[str, str] = {d: a for d, a in singles.get(cat, {}).items() if d in docs}
        ok = n = unscored = stated = stated_ok = 0
        for d, a in gold.items():
            c = cells[d].get(field, {})
            if not gradable(field, a):
                unscored += 1
                continue
            n += 1
            if c.get("status") == "stated":
                ok += bool(right(field, c, a))
        for d in docs:
            c = cells[d].get(field, {})
            if c.get("status") == "stated":
                stated += 1
                said = gold.get(d)
                if said is not None and gradable(field, said) and right(field, c, said):
                    stated_ok += 1
        acc = ok / n if n else None
        se = math.sqrt(acc * (1 - acc) / n) if acc is not None else None
        out[field] = {
            "n": n,
            "unscored": unscored,
            "accuracy": acc,
            "se": se,
            "stated": stated,
            "precision": stated_ok / stated if stated else None,
        }
    for field, cat in PRESENCE_FIELDS.items():
        labelled = {d for d in singles.get(cat, {}) if d in docs}
        found = {d for d in docs if cells[d].get(field, {}).get("status") == "stated"}
        tp = len(labelled & found)
        p = tp / len(found) if found else 0.0
        rec = tp / len(labelled) if labelled else 0.0
        f1 = 2 * p * rec / (p + rec) if p + rec else 0.0

        quote_ok = sum(1 for d in labelled & found if _quoted(cells[d][field].get("quote"), spans.get((cat, d))))
        out[field] = {
            "n": len(labelled),
            "precision": p,
            "recall": rec,
            "f1": f1,
            "stated": len(found),
            "quote_precision": quote_ok / len(found) if found else 0.0,
        }
    return out


def report(name: str, s: dict) -> list[str]:
    lines = [f"== {name}"]
    for field in VALUE_FIELDS:
        r = s[field]
        shown = "-" if r["accuracy"] is None else f"{r['accuracy']:.3f} ±{r['se']:.3f}"
        prec = "-" if r["precision"] is None else f"{r['precision']:.3f}"
        lines.append(
            f"  {field:<28} accuracy {shown:<14} n={r['n']:<4} (unscored {r['unscored']}) stated {r['stated']:<4} precision {prec}"
        )
    for group, fields in GROUPS.items():
        rows = [s[f] for f in fields if s[f]["n"]]
        n = sum(r["n"] for r in rows)
        acc = sum(r["accuracy"] * r["n"] for r in rows) / n if n else 0.0
        lines.append(
            f"  {group + ' (pooled)':<28} accuracy {acc:.3f} ±{math.sqrt(acc * (1 - acc) / n) if n else 0:.3f} n={n}"
        )
    f1s = []
    for field in PRESENCE_FIELDS:
        r = s[field]
        mark = "" if r["n"] >= 20 else "  (fewer than 20: not in the mean)"
        if r["n"] >= 20:
            f1s.append(r["f1"])
        lines.append(
            f"  {field:<28} F1 {r['f1']:.3f}  precision {r['precision']:.3f} (quote right {r['quote_precision']:.3f})  "
            f"recall {r['recall']:.3f}  gold {r['n']:<4} stated {r['stated']}{mark}"
        )
    mean = sum(f1s) / len(f1s) if f1s else 0.0
    sd = math.sqrt(sum((x - mean) ** 2 for x in f1s) / (len(f1s) - 1)) if len(f1s) > 1 else 0.0
    lines.append(f"  presence mean F1 over {len(f1s)} fields: {mean:.3f} (sd across fields {sd:.3f})")
    big = [s[f] for f in PRESENCE_FIELDS if s[f]["n"] >= 20]
    stated = sum(r["stated"] for r in big)
    right = sum(r["precision"] * r["stated"] for r in big)
    found = sum(r["recall"] * r["n"] for r in big)
    lines.append(
        f"  presence, the same fields pooled: precision {right / stated if stated else 0:.3f} ({stated} stated), "
        f"recall {found / sum(r['n'] for r in big) if big else 0:.3f}; fields at precision >= 0.90 and recall >= 0.60: "
        f"{sum(r['precision'] >= 0.9 and r['recall'] >= 0.6 for r in big)} of {len(big)}"
    )
    return lines


def _se(p: float | None, n: int) -> str:
    return "" if p is None or not n else f" ±{math.sqrt(p * (1 - p) / n):.3f}"


def compare(old: dict, new: dict, cells: dict[str, dict[str, dict]]) -> list[str]:
    """Per field: precision (± its binomial standard error) and recall or accuracy, the rules beside the model,
    and how many cells the model leaves "possible"."""
    lines = ["== per field: the rules -> the clause model (cross-validated); precision first"]
    for field in [*VALUE_FIELDS, *PRESENCE_FIELDS]:
        o, n = old[field], new[field]
        possible = sum(1 for row in cells.values() if row.get(field, {}).get("status") == "possible")
        second = "recall" if field in PRESENCE_FIELDS else "accuracy"
        p0, p1 = o["precision"], n["precision"]
        quote = (
            f"   quote right {o['quote_precision']:.3f} -> {n['quote_precision']:.3f}"
            if field in PRESENCE_FIELDS
            else ""
        )
        lines.append(
            f"  {field:<28} precision {'-' if p0 is None else f'{p0:.3f}'}{_se(p0, o['stated'])} -> "
            f"{'-' if p1 is None else f'{p1:.3f}'}{_se(p1, n['stated'])}   {second} {o[second] or 0:.3f} -> {n[second] or 0:.3f}"
            f"   stated {o['stated']} -> {n['stated']}, possible {possible}{quote}"
        )
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(EVAL_ROOT / "cuad-dev"))
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--index", default=None, help="a corpus index of the contracts (default: built in bench-out/)")
    ap.add_argument("--out", default=str(ROOT / "bench-out" / "values"))
    ap.add_argument(
        "--cv",
        action="store_true",
        help="also the clause model, trained and measured by 5-fold cross-validation (needs .[train])",
    )
    args = ap.parse_args(argv)
    data = Path(args.data)
    if not (data / "questions.jsonl").is_file():
        print(f"cuad-dev not found at {data}; skipped", file=sys.stderr)
        return 2
    schema = load_schemas()["contract"]
    paths = sorted((data / "docs").glob("*.txt"))[: args.limit]
    texts = {p.stem: p.read_text(encoding="utf-8") for p in paths}
    questions = [json.loads(line) for line in (data / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    t0 = time.perf_counter()
    table = table_cells(texts, schema, model=None)
    t_table = time.perf_counter() - t0
    learned = None
    if args.cv:
        from train_clauses import cross_validate, load_corpus

        t_cv = time.perf_counter()
        learned, _ = cross_validate(load_corpus(data, args.limit), log=lambda m: print(m, file=sys.stderr))
        print(f"clause model cross-validated in {time.perf_counter() - t_cv:.0f} s", file=sys.stderr)
    from wikigen.search.index import CorpusIndex

    index_dir = Path(args.index) if args.index else ROOT / "bench-out" / "cuad-dev-index"
    if (index_dir / "manifest.json").is_file():
        index = CorpusIndex.open(index_dir)
    else:
        index, _ = CorpusIndex.build(data / "docs", index_dir)
    t1 = time.perf_counter()
    base = bm25_cells(index, texts, schema)
    t_base = time.perf_counter() - t1
    s_table, s_base = score(table, questions), score(base, questions)
    print(f"cuad-dev: {len(texts)} contracts; table {t_table:.1f} s, bm25-top {t_base:.1f} s")
    lines = report(
        "table, the schema's rules alone (extract_values over each whole contract, no clause model)", s_table
    )
    if learned is not None:
        s_cv = score(learned, questions)
        lines += report("table with the clause model, 5-fold cross-validated across documents", s_cv)
        lines += compare(s_table, s_cv, learned)
    lines += report("bm25-top (BM25's top passage for the field's label, the same parser)", s_base)
    for line in lines:
        print(line)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "values-summary.json").write_text(json.dumps({"table": s_table, "bm25-top": s_base}, indent=1))
    (out / "values-cells.json").write_text(json.dumps(table, indent=0, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
