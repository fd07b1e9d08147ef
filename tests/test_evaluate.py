"""Scoring of `wikigen eval`, on a hand-made question file with hand-made contexts.

Every expected number below was worked out by hand (the arithmetic is in the comments)."""

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

from wikigen.ask.eval_chart import COLORS, TOKENS_COLOR, draw_chart
from wikigen.ask.evaluate import (
    covered_chars,
    evidence_found,
    format_table,
    merge_intervals,
    run_eval,
    score_aggregate,
    score_question,
    score_single,
    spread_sample,
    summarize,
)
from wikigen.ask.questions import read_questions

FIXTURE = Path(__file__).parent / "fixtures" / "eval" / "questions.jsonl"


SVG = "{http://www.w3.org/2000/svg}"


def ctx(*spans, text=""):
    """One context item per (doc_id, start, end)."""
    return [
        {"kind": "passage", "ref": f"{d} ({s}-{e})", "text": text, "spans": [{"doc_id": d, "start": s, "end": e}]}
        for d, s, e in spans
    ]


@pytest.fixture(scope="module")
def qs():
    return {q["id"]: q for q in read_questions(FIXTURE)}


def test_interval_helpers():
    assert merge_intervals([(5, 10), (0, 3), (2, 6), (20, 20)]) == [(0, 10)]
    # [100,200) with [100,130) and [120,140): union [100,140) -> 40 characters (a plain sum would say 50)
    assert covered_chars(100, 200, [(100, 130), (120, 140)]) == 40


def test_exactly_half_counts_and_49_percent_does_not(qs):
    q = qs["s-span"]  # gold a[100,200): 100 chars, half = 50
    assert score_single(q, ctx(("a", 150, 300))) == 1.0  # covers 150..200 = 50 chars = 50%
    assert score_single(q, ctx(("a", 151, 300))) == 0.0  # 49 chars = 49%
    assert score_single(q, ctx(("a", 0, 149))) == 0.0  # 49 chars (100..149)
    assert score_single(q, ctx(("a", 0, 150))) == 1.0  # 50 chars (100..150)


def test_union_of_two_partial_spans(qs):
    q = qs["s-span"]
    # 30 + 30 = 60 chars of 100 -> found; each alone is 30% -> not found
    assert score_single(q, ctx(("a", 100, 130), ("a", 170, 200))) == 1.0
    assert score_single(q, ctx(("a", 100, 130))) == 0.0
    # two spans in one item count the same way
    item = [
        {
            "kind": "page",
            "ref": "p",
            "text": "",
            "spans": [{"doc_id": "a", "start": 90, "end": 125}, {"doc_id": "a", "start": 175, "end": 260}],
        }
    ]
    assert score_single(q, item) == 1.0  # 25 + 25 = 50 -> exactly half
    # overlapping spans are not double counted: union [100,140) = 40 -> not found
    assert score_single(q, ctx(("a", 100, 130), ("a", 120, 140))) == 0.0
    # the right characters in another document do not count
    assert score_single(q, ctx(("b", 100, 200))) == 0.0


def test_null_offset_evidence_by_text(qs):
    q = qs["s-null"]  # text "Governed by the laws of\n  New York", no offsets
    hit = ctx(("b", 0, 80), text="This Agreement is governed   BY the LAWS of new\tyork, without regard to conflicts.")
    assert score_single(q, hit) == 1.0
    assert score_single(q, ctx(("b", 0, 80), text="governed by the laws of New Jersey")) == 0.0
    # the text must come from an item citing the same document
    assert score_single(q, ctx(("z", 0, 80), text="governed by the laws of New York")) == 0.0
    assert evidence_found({"doc_id": "b", "text": "", "start": None, "end": None}, hit) is False


def test_aggregate_recall_and_precision(qs):
    q = qs["agg"]  # gold docs a, b, c
    c = ctx(
        ("a", 0, 60),  # a[0,100): 60% -> a found
        ("b", 30, 50),  # b[0,50): 20 chars = 40% -> b not found
        ("c", 500, 550),  # c[500,600): 50% -> c found (c[10,20) is not needed)
        ("d", 0, 10),
    )  # d: not gold
    recall, precision = score_aggregate(q, c)
    assert recall == pytest.approx(2 / 3)  # {a, c} of {a, b, c}
    assert precision == pytest.approx(3 / 4)  # cited {a, b, c, d}; gold among them {a, b, c}
    assert score_question(q, c) == {"score": pytest.approx(2 / 3), "precision": pytest.approx(3 / 4)}


def test_zero_citation_precision_is_zero(qs):
    assert score_aggregate(qs["agg"], []) == (0.0, 0.0)
    assert score_question(qs["s-span"], []) == {"score": 0.0, "precision": None}


def test_summary_and_table():
    rows = [
        {"mode": "search", "kind": "single", "score": 1.0, "precision": None, "tokens": 100, "latency_ms": 10.0},
        {"mode": "search", "kind": "single", "score": 0.0, "precision": None, "tokens": 300, "latency_ms": 30.0},
        {"mode": "search", "kind": "aggregate", "score": 0.5, "precision": 0.25, "tokens": 200, "latency_ms": 5.0},
    ]
    s = summarize(rows)
    assert s[0] == {
        "mode": "search",
        "kind": "single",
        "n": 2,
        "unscored": 0,
        "score": 0.5,
        "precision": None,
        "answer_recall": None,
        "mean_tokens": 200.0,
        "p50_latency_ms": 20.0,
    }
    assert s[1]["precision"] == 0.25 and s[1]["n"] == 1
    table = format_table(s)
    assert "search" in table and "0.500" in table and "0.250" in table


def test_spread_sample_is_deterministic_and_covers_kinds():
    qs = [{"id": f"s{i}", "kind": "single"} for i in range(90)] + [
        {"id": f"a{i}", "kind": "aggregate"} for i in range(10)
    ]
    a = spread_sample(qs, 10)
    assert a == spread_sample(qs, 10) and len(a) == 10
    assert sum(q["kind"] == "aggregate" for q in a) == 5
    assert spread_sample(qs, None) == qs


class _FakeResult:
    def __init__(self, context, tokens, answer="", answer_spans=()):
        self.context, self.tokens, self.scope = context, tokens, None
        self.answer, self.answer_spans = answer, list(answer_spans)


class _Item:
    def __init__(self, d):
        self.d = d

    def to_dict(self):
        return self.d


class _FakeAnswerer:
    """Answers with fixed contexts: 'good' finds everything, 'bad' nothing."""

    def ask(self, question, mode, budget):
        if mode == "good":
            c = ctx(
                ("a", 100, 200), ("b", 0, 50), ("a", 0, 100), ("c", 0, 600), text="governed by the laws of New York"
            )
            # the answer quotes only document a's span 100-200: it holds the gold of a, not of b or c
            return _FakeResult([_Item(i) for i in c], 120, "quoted", [{"doc_id": "a", "start": 100, "end": 200}])
        return _FakeResult([], 0)


def test_run_eval_writes_report_and_chart(tmp_path):
    report = run_eval(
        FIXTURE, wiki=tmp_path, modes=["good", "bad"], budget=500, out_dir=tmp_path / "out", answerer=_FakeAnswerer()
    )
    data = json.loads((tmp_path / "out" / "eval-report.json").read_text())
    assert len(data["rows"]) == 6 and data["budget"] == 500
    by = {(s["mode"], s["kind"]): s for s in data["summary"]}
    assert by[("good", "single")]["score"] == 1.0  # both single questions found
    assert by[("good", "aggregate")]["score"] == 1.0  # a, b, c all found
    assert by[("good", "aggregate")]["precision"] == 1.0  # cited a, b, c: all gold
    assert by[("bad", "aggregate")]["precision"] == 0.0
    assert by[("good", "aggregate")]["answer_recall"] < by[("good", "aggregate")]["score"]  # answer: a only
    assert by[("bad", "single")]["answer_recall"] == 0.0
    assert all("answer_score" in r and "answer_quotes" in r for r in data["rows"])
    assert "answer" in report.table().splitlines()[0]
    assert report.chart_path == tmp_path / "out" / "eval-chart.svg"
    svg = ElementTree.parse(report.chart_path).getroot()  # well-formed XML
    bars = {r.get("fill") for r in svg.iter(f"{SVG}rect")}
    assert set(COLORS) <= bars and TOKENS_COLOR in bars
    labels = [t.text for t in svg.iter(f"{SVG}text")]
    assert {"good", "bad", "single accuracy", "aggregate precision"} <= set(labels)
    assert "1.00" in labels and "0.00" in labels  # good found every single question, bad none
    assert "good" in report.table()


def test_the_chart_draws_one_bar_per_mode_and_series_and_escapes_its_labels(tmp_path):
    summary = [
        {"mode": "a<b", "kind": "single", "n": 2, "score": 0.5, "precision": None, "mean_tokens": 100.0},
        {"mode": "a<b", "kind": "aggregate", "n": 1, "score": 0.25, "precision": 0.75, "mean_tokens": 300.0},
        {"mode": "검색", "kind": "single", "n": 3, "score": 1.0, "precision": None, "mean_tokens": 50.0},
    ]
    path = draw_chart(summary, tmp_path / "c" / "chart.svg", budget=400)
    svg = ElementTree.parse(path).getroot()
    fills = [r.get("fill") for r in svg.iter(f"{SVG}rect")]
    assert fills.count(COLORS[0]) == 2 + 1  # two modes' bars and the legend's swatch
    assert fills.count(TOKENS_COLOR) == 2
    heights = {(r.get("fill"), r.get("height")) for r in svg.iter(f"{SVG}rect")}
    assert (COLORS[2], "0.0") in heights  # a mode without aggregate questions: an empty bar, not a crash
    labels = [t.text for t in svg.iter(f"{SVG}text")]
    assert "a<b" in labels and "검색" in labels  # escaped in the file, read back as written
    assert "Context tokens per question (budget 400)" in labels and "167" in labels  # (100*2 + 300) / 3


def test_free_text_answers_are_graded_by_key_facts():
    """A question with a gold answer and no gold spans (sec10q-dev's kind) scores the share of its key facts
    found in the context; one whose answer has no key fact is left out of the mean and counted."""
    from wikigen.ask.evaluate import score_question

    q = {
        "id": "m1",
        "kind": "multi",
        "question": "How did net sales change?",
        "answer": "Net sales were $117,154 million, up from $82,959 million in 2022.",
        "evidence": [],
    }
    ctx = [{"kind": "passage", "text": "Total net sales  $ 117,154  ...", "spans": []}]
    assert score_question(q, ctx) == {"score": 0.5, "precision": None}
    unscorable = {
        "id": "m2",
        "kind": "multi",
        "question": "Why?",
        "evidence": [],
        "answer": "Because the company changed its strategy over several quarters of the year.",
    }
    assert score_question(unscorable, ctx)["score"] is None
    rows = [
        {"mode": "search", "kind": k, "score": sc, "precision": None, "tokens": 10, "latency_ms": 1.0}
        for k, sc in (("multi", 0.5), ("multi", None), ("single", 1.0))
    ]
    summary = summarize(rows)
    assert [(s["kind"], s["n"], s["unscored"], s["score"]) for s in summary] == [
        ("single", 1, 0, 1.0),
        ("multi", 1, 1, 0.5),
    ]


def test_span_questions_score_characters_and_only_spans_whose_text_is_returned():
    from wikigen.ask.evaluate import score_question

    doc = "0123456789" * 10
    q = {"kind": "spans-x", "evidence": [{"doc_id": "d", "start": 10, "end": 30, "text": doc[10:30]}]}
    item = {"text": doc[20:40], "spans": [{"doc_id": "d", "start": 20, "end": 40}]}
    s = score_question(q, [item], lambda d: doc if d == "d" else None)
    assert s == {"score": 0.5, "precision": 0.5}  # 10 of 20 gold characters; 10 of 20 returned are gold
    liar = {"text": "something else entirely", "spans": [{"doc_id": "d", "start": 10, "end": 30}]}
    s = score_question(q, [liar], lambda d: doc)
    assert s == {"score": 0.0, "precision": 0.0}  # the span's text is not what the item returns
    assert score_question(q, [liar], None)["score"] == 1.0  # without the texts, spans are taken as given


def test_a_plain_list_question_scores_the_documents_its_verified_spans_cite():
    q = {"question": "which contracts are under NY law?", "kind": "values", "answer_list": ["a", "b"], "evidence": []}
    texts = {"a": "governed by New York law", "b": "New York", "c": "Delaware law"}
    ctx = [
        {"text": "governed by New York law", "spans": [{"doc_id": "a", "start": 0, "end": 24}]},
        {"text": "Delaware law", "spans": [{"doc_id": "c", "start": 0, "end": 12}]},
        {"text": "not the document's text", "spans": [{"doc_id": "b", "start": 0, "end": 8}]},  # unverified
    ]
    s = score_question(q, ctx, texts.get)
    assert (s["score"], s["precision"], s["f1"]) == (0.5, 0.5, 0.5)
    assert score_question(q, [], texts.get)["f1"] == 0.0


def test_a_question_naming_its_document_scores_the_share_of_spans_in_it():
    text = "The term is two years. Notice is 30 days."
    q = {
        "question": "notice for the acme deal?",
        "doc_id": "acme",
        "evidence": [{"doc_id": "acme", "start": 23, "end": 41}],
    }
    texts = {"acme": text, "other": text}
    inside = {"text": "Notice is 30 days.", "spans": [{"doc_id": "acme", "start": 23, "end": 41}]}
    outside = {"text": "Notice is 30 days.", "spans": [{"doc_id": "other", "start": 23, "end": 41}]}
    assert score_question(q, [inside, outside], texts.get) == {"score": 1.0, "precision": 0.5}
    assert score_question(q, [outside], texts.get) == {"score": 0.0, "precision": 0.0}
    assert score_question({k: v for k, v in q.items() if k != "doc_id"}, [inside], texts.get)["precision"] is None
