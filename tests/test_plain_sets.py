"""The plain question sets: questions worded the way people type them, with the documents and answers that grade
them (corpora/plain/acme.jsonl for the sample corpus, bench/data/plain/<name>.jsonl for the dev corpora). Each
set is checked for its schema, unique ids, doc ids that exist, and evidence that is the document's exact text at
[start:end]: the acme set against an index of corpora/acme (the text wikigen reads, also for its pdf, docx and
html files), the dev sets against their corpus, skipped when that corpus is absent (tests/eval_corpora.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from eval_corpora import eval_corpus
from wikigen.search.index import CorpusIndex

REPO = Path(__file__).resolve().parent.parent
ACME = REPO / "corpora" / "acme"
SETS = {
    "acme": REPO / "corpora" / "plain" / "acme.jsonl",
    "sec10q-dev": REPO / "bench" / "data" / "plain" / "sec10q-dev.jsonl",
    "contractnli-dev": REPO / "bench" / "data" / "plain" / "contractnli-dev.jsonl",
}
KEYS = {"id", "dataset", "kind", "shape", "field", "question", "answer", "doc_id", "answer_list", "evidence"}
KINDS = {"plain-single", "values"}
SHAPES = {"value", "list", "count", "quantity", "comparison", "passages"}
MIN_QUESTIONS = 60
MIN_KOREAN = 15  # questions in Korean about the sample corpus's Korean documents
HANGUL = re.compile(r"[\uac00-\ud7a3]")
FIELD = re.compile(r"[a-z][a-z0-9_]*")


def load(name: str) -> list[dict]:
    with open(SETS[name], encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def problems(row: dict, dataset: str) -> list[str]:
    """What is wrong with one question of the set DATASET (empty when nothing is)."""
    out = []
    if set(row) != KEYS:
        return [f"keys {sorted(set(row) ^ KEYS)} missing or extra"]
    if row["dataset"] != dataset:
        out.append(f"dataset {row['dataset']!r}")
    if not re.fullmatch(rf"{re.escape(dataset)}-plain-\d+", str(row["id"])):
        out.append(f"id {row['id']!r}")
    if row["kind"] not in KINDS:
        out.append(f"kind {row['kind']!r}")
    if row["shape"] not in SHAPES:
        out.append(f"shape {row['shape']!r}")
    if row["field"] is not None and not (isinstance(row["field"], str) and FIELD.fullmatch(row["field"])):
        out.append(f"field {row['field']!r}")
    for key in ("question", "answer"):
        if not (isinstance(row[key], str) and row[key].strip()):
            out.append(f"empty {key}")
    docs = row["answer_list"]
    if not (isinstance(docs, list) and docs and all(isinstance(d, str) and d for d in docs)):
        out.append("answer_list is not a list of doc ids")
    elif len(set(docs)) != len(docs):
        out.append("answer_list repeats a doc id")
    if row["kind"] == "plain-single":
        if not isinstance(row["doc_id"], str) or docs != [row["doc_id"]]:
            out.append("a plain-single question names one document, in doc_id and answer_list")
        if not row["evidence"]:
            out.append("a plain-single question has no evidence")
    elif row["kind"] == "values" and row["doc_id"] is not None:
        out.append("a values question has no single doc_id")
    if not isinstance(row["evidence"], list):
        return [*out, "evidence is not a list"]
    for ev in row["evidence"]:
        if not (isinstance(ev, dict) and set(ev) == {"doc_id", "text", "start", "end"}):
            out.append(f"evidence {ev!r}")
            continue
        start, end, text = ev["start"], ev["end"], ev["text"]
        if not (isinstance(start, int) and isinstance(end, int) and isinstance(text, str) and text):
            out.append(f"evidence {ev!r}")
        elif not 0 <= start < end or end - start != len(text):
            out.append(f"evidence offsets {start}:{end} for {len(text)} characters")
    return out


def check_set(name: str, texts: dict[str, str]) -> None:
    """Every question of set NAME is well formed, and every doc id and evidence agrees with TEXTS (doc id -> text)."""
    rows = load(name)
    assert len(rows) >= MIN_QUESTIONS, f"{name}: {len(rows)} questions"
    bad = {r.get("id"): p for r in rows if (p := problems(r, name))}
    assert not bad, bad
    ids = [r["id"] for r in rows]
    assert len(set(ids)) == len(ids), "ids repeat"
    for r in rows:
        unknown = [d for d in r["answer_list"] if d not in texts]
        assert not unknown, f"{r['id']}: unknown documents {unknown}"
        for ev in r["evidence"]:
            assert ev["doc_id"] in texts, f"{r['id']}: unknown document {ev['doc_id']}"
            got = texts[ev["doc_id"]][ev["start"] : ev["end"]]
            assert got == ev["text"], f"{r['id']}: {ev['doc_id']}[{ev['start']}:{ev['end']}] is {got!r}"


def test_a_malformed_question_is_reported():
    good = load("acme")[0]
    assert problems(good, "acme") == []
    assert problems({**good, "shape": "table"}, "acme") == ["shape 'table'"]
    assert problems({**good, "answer_list": []}, "acme") != []
    assert problems({**good, "kind": "values"}, "acme") == ["a values question has no single doc_id"]
    ev = dict(good["evidence"][0], end=good["evidence"][0]["end"] + 1)
    assert problems({**good, "evidence": [ev]}, "acme") != []
    assert problems({k: v for k, v in good.items() if k != "field"}, "acme") != []


@pytest.fixture(scope="module")
def acme_texts(tmp_path_factory) -> dict[str, str]:
    if not ACME.is_dir():
        pytest.skip("corpora/acme is not present")
    idx, _ = CorpusIndex.build(ACME, tmp_path_factory.mktemp("plain") / "index")
    return {d.doc_id: idx.texts.text(d.doc_id) for d in idx.documents()}


def test_acme_set(acme_texts):
    check_set("acme", acme_texts)
    korean = [r for r in load("acme") if HANGUL.search(r["question"])]
    assert len(korean) >= MIN_KOREAN
    assert all(d.startswith("ko/") for r in korean for d in r["answer_list"]), (
        "a Korean question about an English document"
    )


def test_acme_text_files_are_read_as_they_are(acme_texts):
    """For the corpus's .txt and .md files the offsets are also offsets into the file as Python reads it."""
    rows = load("acme")
    for ev in (ev for r in rows for ev in r["evidence"]):
        [path] = ACME.glob(f"{ev['doc_id']}.*")
        if path.suffix in (".txt", ".md"):
            assert path.read_text(encoding="utf-8")[ev["start"] : ev["end"]] == ev["text"]


@pytest.mark.parametrize("name", ["sec10q-dev", "contractnli-dev"])
def test_dev_set(name):
    corpus = eval_corpus(name)
    if corpus is None:
        pytest.skip(f"the {name} corpus is absent")
    texts = {p.stem: p.read_text(encoding="utf-8") for p in sorted((corpus / "docs").glob("*.txt"))}
    check_set(name, texts)
