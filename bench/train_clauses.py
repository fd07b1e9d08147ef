"""Train the clause model (search/values/models/clauses.json.gz) on cuad-dev and measure it by cross-validation.

    .venv/bin/pip install -e '.[train]'               # scikit-learn: the training only; the product reads the JSON
    .venv/bin/python bench/train_clauses.py            # cross-validate, print the table, write the shipped model
    .venv/bin/python bench/train_clauses.py --no-write # only measure

The data: cuad-dev (one half of CUAD v1 by The Atticus Project, CC BY 4.0): 252 contracts whose clauses experts
labelled with a category. A sentence of a contract is a positive example of a field when it overlaps an expert
span of the field's category (the mapping below, `CATEGORIES`, lives here, in the training, not in the product).

The model (`wikigen.search.values.clauses`): per field, a logistic regression (scikit-learn, liblinear, L2)
over the sentence's words, word pairs, its section heading's words, and whether the schema's signals make it a
candidate. Weights under PRUNE are dropped, so the shipped file stays small.

Measured by 5-fold cross-validation across documents (GroupKFold: a contract's sentences are all in one fold):
for each fold, a model trained on the other four reads the fold's contracts through the product's own
`extract_values`, with each field's thresholds chosen on the other folds' out-of-fold cells:

- `stated`: the lowest score at which the cells scored at least that are right in TARGET of cases, precision
  first; where no score reaches it, the field is never stated, only "possible";
- `possible`: the score above which 90% of the contracts with the clause are (POSSIBLE_RECALL),
  but no lower than where the cells scored that high stop being right half the time (POSSIBLE_PRECISION).

A stated cell is right when the contract has the clause and its "Yes" quotes (overlaps) a clause the experts
marked: a reviewer reads the quote. The shipped model is trained on all 252
contracts, with thresholds chosen on the pooled out-of-fold cells. The figures it prints are the
cross-validated ones; values_bench.py --cv prints them beside the schema's rules alone.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _eval_data import EVAL_ROOT  # noqa: E402
from values_bench import PRESENCE_FIELDS  # noqa: E402
from wikigen.search.values.clauses import MODEL_PATH, ClauseModel  # noqa: E402
from wikigen.search.values.extract import STATED, _candidates, _Doc, extract_values  # noqa: E402
from wikigen.search.values.schema import load_schemas  # noqa: E402

KIND = "contract"
# the product's presence field -> the CUAD category an expert labelled (the training labels)
CATEGORIES = dict(PRESENCE_FIELDS)
TARGET = 0.90  # the share of stated cells whose "Yes" quotes a clause the experts marked
POSSIBLE_RECALL = 0.90
POSSIBLE_PRECISION = 0.5  # ... unless the cells down to that score are right less often than this
MIN_DF = 3  # a feature in fewer training sentences is dropped
C = 1.0  # inverse regularisation strength
PRUNE = 0.05  # weights smaller in magnitude are not shipped
FOLDS = 5
MIN_SUPPORT = 5  # a threshold needs at least this many cells at or above it


@dataclass
class Corpus:
    doc_ids: list[str]
    texts: dict[str, str]
    feats: list[list[list[str]]]  # per document, per sentence
    labels: dict[str, list[list[bool]]]  # field -> per document, per sentence
    cands: dict[str, list[set[int]]]  # field -> per document, the schema's candidates
    answers: dict[str, dict[str, str]]  # field -> doc -> the expert's answer
    present: dict[str, set[str]]  # field -> documents with the clause
    spans: dict[tuple[str, str], list[tuple[int, int]]]  # (doc, field) -> the experts' clause spans


def load_corpus(data: Path, limit: int | None = None) -> Corpus:
    schema = load_schemas()[KIND]
    paths = sorted((data / "docs").glob("*.txt"))[:limit]
    spans: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    answers: dict[str, dict[str, str]] = defaultdict(dict)
    by_cat = {c: f for f, c in CATEGORIES.items()}
    for line in (data / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        if q.get("kind") != "single" or q["category"] not in by_cat or not q["source_doc_ids"]:
            continue
        field = by_cat[q["category"]]
        answers[field][q["source_doc_ids"][0]] = q["answer"]
        for e in q["evidence"]:
            if e.get("start") is not None:
                spans[(e["doc_id"], field)].append((e["start"], e["end"]))
    c = Corpus([], {}, [], defaultdict(list), defaultdict(list), dict(answers), {}, dict(spans))
    for p in paths:
        text = p.read_text(encoding="utf-8")
        doc = _Doc(text)
        c.doc_ids.append(p.stem)
        c.texts[p.stem] = text
        c.feats.append(doc.features())
        for field in CATEGORIES:
            gold = spans.get((p.stem, field), [])
            c.labels[field].append([any(a < e and s < b for a, b in gold) for s, e in doc.sents])
            spec = schema.field(field)
            c.cands[field].append({x.index for x in _candidates(doc, spec)} if spec is not None else set())
    c.present = {f: set(answers.get(f, {})) for f in CATEGORIES}
    return c


def fit(corpus: Corpus, docs: list[int]) -> ClauseModel:
    """A model trained on these documents' sentences (thresholds 0: every judged cell stated, with its score)."""
    import numpy as np
    from scipy import sparse
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression

    sents = [f for d in docs for f in corpus.feats[d]]
    vec = CountVectorizer(analyzer=lambda x: x, min_df=MIN_DF, binary=True, lowercase=False)
    X = vec.fit_transform(sents).tocsr()
    names = vec.get_feature_names_out()
    kept: dict[str, int] = {}
    fields: dict[str, dict] = {}
    for field in CATEGORIES:
        y = np.array([v for d in docs for v in corpus.labels[field][d]])
        cand = np.array([float(i in corpus.cands[field][d]) for d in docs for i in range(len(corpus.feats[d]))])
        if y.sum() < 2:
            continue
        m = LogisticRegression(C=C, solver="liblinear", max_iter=500, random_state=0)  # liblinear shuffles: seeded
        m.fit(sparse.hstack([X, sparse.csr_matrix(cand[:, None])]).tocsr(), y)
        w = m.coef_[0]
        weights = {}
        for j in np.flatnonzero(np.abs(w[:-1]) >= PRUNE):
            row = kept.setdefault(str(names[j]), len(kept))
            weights[row] = round(float(w[j]), 4)
        fields[f"{KIND}/{field}"] = {
            "bias": round(float(m.intercept_[0]), 4),
            "candidate": round(float(w[-1]), 4),
            "weights": weights,
            "stated": 0.0,
            "possible": 0.0,
        }
    return ClauseModel(kept, fields, {})


def with_thresholds(model: ClauseModel, thresholds: dict[str, tuple[float, float]]) -> ClauseModel:
    fields = {k: {**v, "stated": thresholds[k][0], "possible": thresholds[k][1]} for k, v in model.fields.items()}
    return ClauseModel(model.vocab, fields, model.meta)


def cell_right(corpus: Corpus, field: str, doc_id: str, cell: dict) -> bool:
    """A stated presence cell is right where the experts found the clause and its quote is (overlaps) one of the
    clauses they marked: a reviewer reads the quote, so a "Yes" quoting another sentence is no right answer (where
    the experts' spans could not be located, the contract's having the clause is enough)."""
    if doc_id not in corpus.present[field]:
        return False
    spans = corpus.spans.get((doc_id, field))
    q = cell.get("quote")
    return not spans or (q is not None and any(a < q[1] and q[0] < b for a, b in spans))


def choose(records: list[tuple], field: str, n_present: int) -> tuple[float, float]:
    """(stated, possible) thresholds from (score, right) records of judged cells."""
    target = TARGET
    ranked = sorted(((r[0], r[1]) for r in records), key=lambda r: -r[0])
    stated, ok = 1.01, 0
    for k, (score, good) in enumerate(ranked, 1):
        ok += good
        if k >= MIN_SUPPORT and ok / k >= target:
            stated = score
    possible = 0.0
    if n_present:
        need, ok = POSSIBLE_RECALL * n_present, 0
        for k, (score, good) in enumerate(ranked, 1):
            ok += good
            if ok / k < POSSIBLE_PRECISION and k >= MIN_SUPPORT:
                break  # below here a clause the model finds is rarely the field's: not even possible
            possible = score
            if ok >= need:
                break
        possible = min(possible, stated)
    return stated, possible


def judged_records(corpus: Corpus, model: ClauseModel, docs: list[int]) -> dict[str, list[tuple]]:
    schema = load_schemas()[KIND]
    out: dict[str, list[tuple]] = defaultdict(list)
    for d in docs:
        doc_id = corpus.doc_ids[d]
        for field, cell in extract_values(corpus.texts[doc_id], schema, model=model, fields=set(CATEGORIES)).items():
            c = cell.to_dict()
            if c["status"] == STATED and c.get("score") is not None:
                out[field].append((c["score"], cell_right(corpus, field, doc_id, c), doc_id, c.get("display", "")))
    return out


def folds(corpus: Corpus) -> list[list[int]]:
    from sklearn.model_selection import GroupKFold

    n = len(corpus.doc_ids)
    return [list(te) for _, te in GroupKFold(n_splits=FOLDS).split(range(n), groups=range(n))]


def cross_validate(corpus: Corpus, log=print) -> tuple[dict[str, dict[str, dict]], dict[str, list]]:
    """Each contract's cells as read by a model that never saw it, with thresholds chosen on the other folds:
    {doc: {field: cell dict}}, and the out-of-fold records {field: [(score, right)]} (for the shipped thresholds)."""
    schema = load_schemas()[KIND]
    parts = folds(corpus)
    models, records = [], []
    for k, test in enumerate(parts):
        t0 = time.perf_counter()
        train = [d for j, p in enumerate(parts) if j != k for d in p]
        models.append(fit(corpus, train))
        records.append(judged_records(corpus, models[-1], test))
        log(f"  fold {k + 1}/{len(parts)}: trained and read in {time.perf_counter() - t0:.0f} s")
    cells: dict[str, dict[str, dict]] = {}
    for k, test in enumerate(parts):
        pooled: dict[str, list] = defaultdict(list)
        for j, r in enumerate(records):
            if j != k:
                for f, rs in r.items():
                    pooled[f].extend(rs)
        n_present = {
            f: sum(corpus.doc_ids[d] in corpus.present[f] for j, p in enumerate(parts) if j != k for d in p)
            for f in CATEGORIES
        }
        th = {f"{KIND}/{f}": choose(pooled.get(f, []), f, n_present[f]) for f in CATEGORIES}
        model = with_thresholds(models[k], {key: th.get(key, (1.01, 1.01)) for key in models[k].fields})
        for d in test:
            doc_id = corpus.doc_ids[d]
            cells[doc_id] = {
                f: c.to_dict() for f, c in extract_values(corpus.texts[doc_id], schema, model=model).items()
            }
    oof: dict[str, list] = defaultdict(list)
    for r in records:
        for f, rs in r.items():
            oof[f].extend(rs)
    return cells, oof


def _cells_key(data: Path) -> str:
    """A digest of what the cross-validated cells depend on: this script, the code that reads values (search/ and
    wikigen/core, with the schemas), the labels and the documents (names and sizes)."""
    import hashlib

    h = hashlib.sha256()
    code = [Path(__file__)]
    for folder in (ROOT / "search", ROOT / "wikigen" / "core"):
        code += sorted(p for p in folder.rglob("*") if p.suffix in (".py", ".yaml"))
    for path in code:
        h.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    h.update((data / "questions.jsonl").read_bytes())
    for doc in sorted((data / "docs").glob("*.txt")):
        h.update(f"{doc.name}:{doc.stat().st_size}\n".encode())
    return h.hexdigest()[:16]


def cross_validated_table(wiki_root: Path, data: Path, log=print) -> int:
    """Give a built wiki of these contracts the presence cells a model that never saw each contract reads
    (`cross_validate`), in place of the shipped model's (trained on them all): what eval_bench measures on the
    corpus the model was trained on. The table and its pages are rewritten; the number of cells replaced.
    The cells are kept in the wiki's .wikigen folder under a key of everything that makes them (this script, the
    values code and schemas, the labels and the documents), so the next run on the same wiki reads them back."""
    from wikigen.wiki.provisions import read_table, write_pages, write_table

    corpus = load_corpus(data)
    saved = wiki_root / ".wikigen" / f"cv-cells-{_cells_key(data)}.json"
    if saved.is_file():
        cells = json.loads(saved.read_text(encoding="utf-8"))
    else:
        cells, _ = cross_validate(corpus, log)
        saved.parent.mkdir(parents=True, exist_ok=True)
        tmp = saved.with_suffix(".tmp")
        tmp.write_text(json.dumps(cells, ensure_ascii=False), encoding="utf-8")
        tmp.replace(saved)
    table = read_table(wiki_root)
    n = 0
    for doc_id, row in table.documents.items():
        if row.get("kind") != KIND or doc_id not in cells:
            continue
        for field in CATEGORIES:
            cell = dict(cells[doc_id][field])
            q = cell.get("quote")
            if q:
                cell["text"] = corpus.texts[doc_id][q[0] : q[1]]
            row.setdefault("cells", {})[field] = cell
            n += 1
    write_table(wiki_root, table)
    write_pages(wiki_root, table)
    return n


def save(model: ClauseModel, path: Path, meta: dict) -> int:
    vocab = sorted(model.vocab, key=model.vocab.__getitem__)
    raw = {
        "features": vocab,
        "fields": {
            k: {**v, "weights": {str(r): w for r, w in sorted(v["weights"].items())}} for k, v in model.fields.items()
        },
        "meta": meta,
    }
    data = json.dumps(raw, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")
    with open(path, "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) as gz:
        gz.write(data)
    return path.stat().st_size


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(EVAL_ROOT / "cuad-dev"))
    ap.add_argument("--limit", type=int, default=None, help="the first N contracts only (a quick check)")
    ap.add_argument("--no-write", action="store_true", help="measure only; leave the shipped model as it is")
    ap.add_argument("--out", default=str(MODEL_PATH))
    ap.add_argument("--dump", default=None, help="write the out-of-fold records and cells to this JSON file")
    args = ap.parse_args(argv)
    data = Path(args.data)
    if not (data / "questions.jsonl").is_file():
        print(f"cuad-dev not found at {data}; skipped", file=sys.stderr)
        return 2
    try:
        import sklearn  # noqa: F401
    except ImportError:
        print("training needs scikit-learn: .venv/bin/pip install -e '.[train]'", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    corpus = load_corpus(data, args.limit)
    print(f"cuad-dev: {len(corpus.doc_ids)} contracts, {sum(len(f) for f in corpus.feats)} sentences")
    from values_bench import report, score

    questions = [json.loads(x) for x in (data / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    cells, oof = cross_validate(corpus)
    if args.dump:
        Path(args.dump).write_text(json.dumps({"oof": oof, "cells": cells}, ensure_ascii=False))
    summary = score(cells, questions)
    for line in report(f"clause model, {FOLDS}-fold cross-validated across documents", summary):
        print(line)
    if args.no_write:
        return 0
    model = fit(corpus, list(range(len(corpus.doc_ids))))
    n_present = {f: len(corpus.present[f] & set(corpus.doc_ids)) for f in CATEGORIES}
    th = {f"{KIND}/{f}": choose(oof.get(f, []), f, n_present[f]) for f in CATEGORIES}
    model = with_thresholds(model, {k: th.get(k, (1.01, 1.01)) for k in model.fields})
    meta = {
        "data": "cuad-dev: 252 contracts of CUAD v1 (The Atticus Project), CC BY 4.0",
        "trained_by": "bench/train_clauses.py",
        "folds": FOLDS,
        "cv": {
            f: {k: v for k, v in summary[f].items() if k in ("precision", "recall", "accuracy", "n", "stated")}
            for f in CATEGORIES
        },
    }
    size = save(model, Path(args.out), meta)
    weights = sum(len(v["weights"]) for v in model.fields.values())
    print(
        f"wrote {args.out}: {len(model.vocab)} features, {weights} weights, {size / 1024:.0f} KiB; {time.perf_counter() - t0:.0f} s in all"
    )
    for k, v in sorted(model.fields.items()):
        print(f"  {k:<42} stated >= {v['stated']:.3f}  possible >= {v['possible']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
