"""CorpusIndex: build, incremental updates, search, phrase, locate, hostile queries, CLI, CUAD."""

from __future__ import annotations

import base64
import json
import os
import random
import shutil
import time
from pathlib import Path

import pytest
from wikigen.search.analysis import cjk_grams
from wikigen.search.corpus import load_corpus
from wikigen.search.index import CorpusIndex, DocInfo, Hit, IndexSummary
from wikigen.search.passages import split_passages
from wikigen.search.snippets import make_snippet

from wikigen.cli import main
from wikigen.core.errors import SearchIndexError
from wikigen.core.tokens import CharCounter

FIXTURES = Path(__file__).parent / "fixtures" / "corpora"
# the dev corpora: WIKIGEN_EVAL_DATA, else ../shared/eval beside the checkout
CUAD = Path(os.environ.get("WIKIGEN_EVAL_DATA") or Path(__file__).resolve().parents[2] / "shared" / "eval") / "cuad-dev"

HIT_KEYS = {"doc_id", "path", "start", "end", "text", "spans", "score", "snippet"}


@pytest.fixture
def corpus(tmp_path) -> Path:
    dst = tmp_path / "corpus"
    shutil.copytree(FIXTURES / "mixed", dst)
    return dst


@pytest.fixture
def built(corpus, tmp_path):
    idx, summary = CorpusIndex.build(corpus, tmp_path / "index", counter=CharCounter())
    return idx, summary


def _assert_exact(idx: CorpusIndex, corpus: Path, hits: list[Hit]) -> None:
    docs = {d.doc_id: d.text for d in load_corpus(corpus)[0]}
    for h in hits:
        assert h.text == docs[h.doc_id][h.start : h.end] == idx.texts.read(h.doc_id, h.start, h.end)
        assert set(h.to_dict()) == HIT_KEYS


# --- build and summary -------------------------------------------------------------------------------


def test_build_summary_counts_and_skips(built, corpus):
    idx, s = built
    assert isinstance(s, IndexSummary)
    assert (s.documents, s.added, s.changed, s.removed, s.unchanged) == (10, 10, 0, 0, 0)
    docs, _ = load_corpus(corpus)
    assert s.characters == sum(len(d.text) for d in docs) == idx.corpus_chars
    assert s.tokens == sum(CharCounter().count(d.text) for d in docs) == idx.corpus_tokens
    assert s.passages == sum(len(split_passages(d.text)) for d in docs)
    assert dict(s.skipped) == {
        "binary.txt": "binary file (contains NUL bytes)",
        "blank.md": "no text (empty or whitespace only)",
        "empty.txt": "empty file",
        "picture.png": "unsupported file type .png",
    }
    text = s.to_text()
    assert text.splitlines()[0].startswith(f"indexed 10 documents, {s.passages} passages, {s.characters:,} characters")
    assert "  added 10, changed 0, removed 0, unchanged 0" in text
    assert "    binary.txt: binary file (contains NUL bytes)" in text
    assert idx.root == idx.corpus_dir == corpus.resolve() and idx.index_dir == corpus.parent / "index"


def test_an_index_of_an_older_passage_rule_is_rebuilt(built, corpus, tmp_path):
    """The passages' cut is part of the schema version: an index made under another one is cut again
    by the next build (its vectors, keyed by spans, would otherwise disagree with its BM25 passages)."""
    mpath = tmp_path / "index" / "manifest.json"
    m = json.loads(mpath.read_text(encoding="utf-8"))
    m["schema"] = m["schema"] - 1
    mpath.write_text(json.dumps(m), encoding="utf-8")
    with pytest.raises(SearchIndexError, match="another wikigen version"):
        CorpusIndex.open(tmp_path / "index")
    _, s = CorpusIndex.build(corpus, tmp_path / "index", counter=CharCounter())
    assert (s.added, s.unchanged) == (10, 0)


def test_documents_and_texts_are_kept_exactly(built, corpus):
    idx, _ = built
    infos = idx.documents()
    assert all(isinstance(i, DocInfo) for i in infos)
    assert [i.doc_id for i in infos] == sorted(i.doc_id for i in infos)
    by_id = {i.doc_id: i for i in infos}
    acme = by_id["contracts/acme-msa"]
    raw = (corpus / "contracts" / "acme-msa.txt").read_bytes()
    assert acme.path == "contracts/acme-msa.txt" and acme.title == "Master Services Agreement"
    assert idx.texts.text("contracts/acme-msa") == raw.decode()  # \r\n kept in the TextStore
    assert acme.chars == len(raw.decode())
    assert by_id["notes/plan.md"].path == "notes/plan.md" and by_id["notes/plan.txt"].path == "notes/plan.txt"
    assert idx.document("nope") is None and "korean" in idx and len(idx) == 10


def test_open_reopens_and_missing_index_names_the_command(built, tmp_path):
    idx, _ = built
    again = CorpusIndex.open(tmp_path / "index")
    assert [d.doc_id for d in again.documents()] == [d.doc_id for d in idx.documents()]
    assert again.search("terminate")[0].doc_id == "contracts/acme-msa"
    with pytest.raises(SearchIndexError, match="wikigen index"):
        CorpusIndex.open(tmp_path / "nothing-here")


def test_default_token_counter_is_tiktoken(tmp_path):
    root = tmp_path / "c"
    root.mkdir()
    (root / "a.txt").write_text("hello world, this is a tokenizer test.\n")
    idx, s = CorpusIndex.build(root, tmp_path / "ix")
    from wikigen.core.tokens import default_counter

    assert s.tokens == default_counter().count("hello world, this is a tokenizer test.\n") == idx.documents()[0].tokens


# --- search ------------------------------------------------------------------------------------------


def test_search_stems_and_returns_exact_char_spans(built, corpus):
    idx, _ = built
    hits = idx.search("terminating agreements")
    assert hits and hits[0].doc_id == "contracts/acme-msa"
    assert "terminate this Agreement" in hits[0].text
    assert "**terminate**" in hits[0].snippet
    assert hits[0].path == "contracts/acme-msa.txt" and hits[0].score > 0
    _assert_exact(idx, corpus, hits)


def test_search_html_and_legacy_and_odd_names(built, corpus):
    idx, _ = built
    assert idx.search("phrase search")[0].doc_id == "notes/page"
    assert idx.search("secretScript") == []  # scripts are not text
    assert idx.search("naïve façade")[0].doc_id == "legacy/cp1252"
    assert idx.search("giraffes")[0].doc_id == 'odd names/it\'s a "quoted" ünïcødé name'
    _assert_exact(idx, corpus, idx.search("plan"))
    assert {h.doc_id for h in idx.search("plan")} == {"notes/plan.md", "notes/plan.txt"}


def test_korean_word_inside_a_longer_word_and_char_offsets(built, corpus):
    idx, _ = built
    hits = idx.search("한국어")
    ids = [h.doc_id for h in hits]
    assert "korean" in ids and "legacy/euckr" in ids
    h = next(h for h in hits if h.doc_id == "korean")
    assert "한국어는" in h.text
    _assert_exact(idx, corpus, hits)
    text = idx.texts.text("korean")
    # emoji and Hangul before the hit: char offsets, not UTF-8 bytes
    spans = idx.locate("korean", "한국어는")
    assert len(spans) == 1
    s = spans[0]
    assert text[s.start : s.end] == "한국어는"
    assert s.start == text.index("한국어는") and len(text[: s.start].encode()) != s.start
    assert "**한국어**" in h.snippet
    # a one-syllable query works too
    assert "korean" in [x.doc_id for x in idx.search("어")]


def test_cjk_grams():
    assert cjk_grams("plain ascii") == ""
    assert cjk_grams("a 한국어는 b 日本") == "한 국 어 는 한국 국어 어는 日 本 日本"


def test_restrict_to_doc_ids(built):
    idx, _ = built
    assert {h.doc_id for h in idx.search("plan")} == {"notes/plan.md", "notes/plan.txt"}
    assert [h.doc_id for h in idx.search("plan", doc_ids={"notes/plan.md"})] == ["notes/plan.md"]
    assert idx.search("plan", doc_ids=[]) == []
    assert idx.search("plan", doc_ids=["unknown"]) == []
    assert [h.doc_id for h in idx.search("plan", doc_ids="notes/plan.txt")] == ["notes/plan.txt"]  # one id as a str


def test_k_limits_and_ordering(built):
    idx, _ = built
    hits = idx.search("the", k=3)
    assert len(hits) == 3
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert idx.search("the", k=0) == []
    assert len(idx.search("the", k=10**12)) == len(idx.search("the", k=1000))  # a huge k is capped, not allocated


def test_equal_scores_come_in_document_order_whatever_the_index_layout(tmp_path):
    """Passages that score the same come by document id, and the k-th place among them goes to the first
    such id, however the index placed them: here the document that sorts first is added last, in a later
    build, so it sits last in the index (tantivy's own tie order)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    line = "The supplier shall deliver the widgets to the depot.\n"
    for name in ("m", "n", "p", "q", "r"):
        (corpus / f"{name}.txt").write_text(line, encoding="utf-8")
    CorpusIndex.build(corpus, tmp_path / "index", counter=CharCounter())
    (corpus / "a.txt").write_text(line, encoding="utf-8")
    idx, _ = CorpusIndex.build(corpus, tmp_path / "index", counter=CharCounter())
    everything = idx.search("widgets depot", k=10)
    assert len({h.score for h in everything}) == 1
    assert [h.doc_id for h in everything] == ["a", "m", "n", "p", "q", "r"]
    assert [h.doc_id for h in idx.search("widgets depot", k=2)] == ["a", "m"]
    assert [h.doc_id for h in idx.search("widgets depot", k=2, snippets=False)] == ["a", "m"]


HOSTILE = [
    "",
    "   ",
    "std::vector",
    "foo:bar",
    '"unbalanced',
    "(x",
    "a AND",
    "AND",
    "*",
    "\\",
    "OR OR",
    "🙂🙂",
    "title:",
    "doc_id:korean",
    "[1 TO 5]",
    "a^2",
    "~",
    "-",
    "+",
    "!",
    "'",
    "x" * 10_000,
    " ".join(["term"] * 3000),
    "\x00",
    "한국어 AND (",
    '"a b" "c',
    "(((((",
    "NOT",
]


@pytest.mark.parametrize("q", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_queries_never_raise(built, q):
    idx, _ = built
    hits = idx.search(q)
    assert isinstance(hits, list)
    assert idx.phrase(q) == idx.phrase(q)  # and phrase never raises either
    if not q.strip():
        assert hits == []


def test_hostile_query_still_finds_words(built):
    idx, _ = built
    assert idx.search("payment:terms (invoices")[0].doc_id == "contracts/acme-msa"
    assert idx.search("std::vector") == []


def test_a_long_query_is_bounded(built, monkeypatch):
    """A 5,000-word query asks tantivy for at most MAX_QUERY_TERMS terms (a body and a title clause each): its
    cost is bounded by the query the index builds, not by a clock, so a loaded machine changes nothing."""
    import wikigen.search.index as index_module

    idx, _ = built
    asked: list[str] = []
    real = index_module.Query

    class CountingQuery:
        def __getattr__(self, name):
            return getattr(real, name)

        @staticmethod
        def term_query(schema, field, text, *rest):
            asked.append(text)
            return real.term_query(schema, field, text, *rest)

    monkeypatch.setattr(index_module, "Query", CountingQuery())
    hits = idx.search(" ".join(f"w{i}" for i in range(5000)) + " terminate")
    assert isinstance(hits, list)
    assert 0 < len(asked) <= 2 * index_module.MAX_QUERY_TERMS < 5000  # a bound far below the query's words
    asked.clear()
    assert idx.search("terminate the agreement")[0].doc_id == "contracts/acme-msa"  # the counting query runs
    assert asked


def test_phrase_search(built, corpus):
    idx, _ = built
    hits = idx.phrase("ninety (90) days")
    assert [h.doc_id for h in hits] == ["contracts/acme-msa"]
    assert "**ninety (90) days**" in hits[0].snippet
    _assert_exact(idx, corpus, hits)
    assert idx.phrase("days ninety") == []
    assert idx.phrase("한국어는 재미있습니다")[0].doc_id == "legacy/euckr"
    assert idx.phrase("한국어는 재미없습니다") == []
    assert idx.phrase("") == []


def test_locate_delegates_to_the_text_store(built):
    idx, _ = built
    text = idx.texts.text("contracts/acme-msa")
    needle = "Beta LLC.\nEither party"
    assert idx.locate("contracts/acme-msa", needle) == []  # the text has \r\n
    spans = idx.locate("contracts/acme-msa", needle, tolerant_whitespace=True)
    assert len(spans) == 1 and text[spans[0].start : spans[0].end] == "Beta LLC.\r\nEither party"
    assert idx.locate("nope", "x") == []


def test_snippet_is_short_and_marks_hits():
    text = "filler " * 100 + "the needle is here " + "filler " * 100
    sn = make_snippet(text, {"needl"})
    assert "**needle**" in sn and sn.startswith("…") and sn.endswith("…")
    assert len(sn) <= 260
    assert make_snippet("short text", set()) == "short text"


# --- incremental ---------------------------------------------------------------------------------------


def test_unchanged_rerun_does_nothing(built, corpus, tmp_path):
    _idx, first = built
    manifest = (tmp_path / "index" / "manifest.json").read_bytes()
    _idx2, s = CorpusIndex.build(corpus, tmp_path / "index", counter=CharCounter())
    assert (s.added, s.changed, s.removed, s.unchanged) == (0, 0, 0, 10)
    assert (s.documents, s.passages, s.characters, s.tokens) == (
        first.documents,
        first.passages,
        first.characters,
        first.tokens,
    )
    assert (tmp_path / "index" / "manifest.json").read_bytes() == manifest
    assert s.seconds < first.seconds


def test_touch_without_change_is_unchanged(built, corpus, tmp_path):
    p = corpus / "notes" / "guide.md"
    os.utime(p, ns=(time.time_ns(), time.time_ns() + 5_000_000_000))
    _, s = CorpusIndex.build(corpus, tmp_path / "index", counter=CharCounter())
    assert (s.added, s.changed, s.removed, s.unchanged) == (0, 0, 0, 10)
    manifest = json.loads((tmp_path / "index" / "manifest.json").read_text())
    assert manifest["docs"]["notes/guide"]["mtime_ns"] == p.stat().st_mtime_ns


def test_change_delete_add(built, corpus, tmp_path):
    idx, _ = built
    assert idx.search("giraffes") and idx.search("otters") == []
    (corpus / "notes" / "guide.md").write_text("# Onboarding guide\n\nEngineers now study hedgehogs.\n")
    (corpus / "odd names" / 'it\'s a "quoted" ünïcødé name.txt').unlink()
    (corpus / "new.txt").write_text("A new document about otters and rivers.\n")
    idx, s = CorpusIndex.build(corpus, tmp_path / "index", counter=CharCounter())
    assert (s.added, s.changed, s.removed, s.unchanged) == (1, 1, 1, 8)
    assert s.documents == 10
    assert idx.search("giraffes") == []
    assert [h.doc_id for h in idx.search("otters")] == ["new"]
    assert [h.doc_id for h in idx.search("hedgehogs")] == ["notes/guide"]
    assert idx.search("stemming") == []  # the old text of the changed doc is gone
    assert idx.texts.text("notes/guide") == "# Onboarding guide\n\nEngineers now study hedgehogs.\n"
    assert not idx.texts.has('odd names/it\'s a "quoted" ünïcødé name')
    assert 'odd names/it\'s a "quoted" ünïcødé name' not in {d.doc_id for d in idx.documents()}
    # reopened from disk, the same
    again = CorpusIndex.open(tmp_path / "index")
    assert [h.doc_id for h in again.search("otters")] == ["new"]
    assert again.corpus_chars == idx.corpus_chars


def test_file_that_becomes_unusable_is_removed(built, corpus, tmp_path):
    (corpus / "notes" / "guide.md").write_bytes(b"")
    idx, s = CorpusIndex.build(corpus, tmp_path / "index", counter=CharCounter())
    assert s.removed == 1 and ("notes/guide.md", "empty file") in s.skipped
    assert idx.search("stemming") == []


def test_id_collision_appearing_renames_both(built, corpus, tmp_path):
    (corpus / "korean.txt").write_text("plain korean notes\n")
    idx, s = CorpusIndex.build(corpus, tmp_path / "index", counter=CharCounter())
    ids = {d.doc_id for d in idx.documents()}
    assert {"korean.md", "korean.txt"} <= ids and "korean" not in ids
    assert (s.added, s.removed) == (2, 1)
    assert {h.doc_id for h in idx.search("한국어")} >= {"korean.md"}


def test_index_inside_the_corpus_is_not_indexed(corpus):
    idx, _s = CorpusIndex.build(corpus, corpus / "index", counter=CharCounter())
    assert not any(d.doc_id.startswith("index/") for d in idx.documents())
    _, s2 = CorpusIndex.build(corpus, corpus / "index", counter=CharCounter())
    assert (s2.added, s2.changed, s2.removed) == (0, 0, 0)


def test_other_corpus_into_same_index_rebuilds(built, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.md").write_text("zebras only\n")
    with pytest.raises(SearchIndexError, match="another corpus"):  # issue 9: never silently overwritten
        CorpusIndex.build(other, tmp_path / "index", counter=CharCounter())
    idx, s = CorpusIndex.build(other, tmp_path / "index", counter=CharCounter(), force=True)
    assert [d.doc_id for d in idx.documents()] == ["x"] and s.added == 1
    assert idx.search("terminate") == [] and idx.search("zebras")[0].doc_id == "x"


def test_pdf_in_the_index(tmp_path):
    fpdf = pytest.importorskip("fpdf")
    root = tmp_path / "c"
    root.mkdir()
    pdf = fpdf.FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 8, "Confidential information shall be returned within ten days of termination.")
    pdf.output(str(root / "nda.pdf"))
    idx, _s = CorpusIndex.build(root, tmp_path / "ix", counter=CharCounter())
    h = idx.search("confidential information")[0]
    assert h.doc_id == "nda" and h.path == "nda.pdf"
    assert h.text == idx.texts.text("nda")[h.start : h.end] and "returned within ten days" in h.text


# --- CLI -----------------------------------------------------------------------------------------------


def test_cli_index_and_search_json(corpus, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("wikigen.core.tokens.default_counter", lambda: CharCounter())
    ix = str(tmp_path / "cli-index")
    assert main(["index", str(corpus), "--index", ix]) == 0
    out = capsys.readouterr().out
    assert out.startswith("indexed 10 documents, ")
    assert "    picture.png: unsupported file type .png" in out
    assert main(["search", "terminate notice", "--index", ix, "--json", "-k", "3"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["query"] == "terminate notice" and 1 <= len(data["hits"]) <= 3
    docs = {d.doc_id: d.text for d in load_corpus(corpus)[0]}
    for h in data["hits"]:
        assert set(h) == HIT_KEYS
        assert h["text"] == docs[h["doc_id"]][h["start"] : h["end"]]
    assert data["hits"][0]["doc_id"] == "contracts/acme-msa"
    assert main(["search", "std::vector (", "--index", ix]) == 0
    assert main(["search", "한국어", "--index", ix]) == 0
    assert "korean" in capsys.readouterr().out


def _base64_word(n: int) -> str:
    """n characters of base64 (with "/" and "+"), no whitespace: an attachment pasted into a text."""
    rng = random.Random(7)
    return base64.b64encode(rng.randbytes(n * 3 // 4 + 3)).decode()[:n]


def test_a_word_longer_than_a_passage_is_skipped_and_counted(tmp_path, capsys, monkeypatch):
    """A 1 MB token (a base64 attachment) is in no passage; `index` names the document and counts it,
    in text and JSON, on every run; the text around it is indexed with exact offsets."""
    monkeypatch.setattr("wikigen.core.tokens.default_counter", lambda: CharCounter())
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    word = _base64_word(1_000_000)
    text = "The invoice is attached below.\n" + word + "\nPayment of the invoice is due in thirty days.\n"
    (corpus / "mail.txt").write_text(text, encoding="utf-8")
    (corpus / "note.txt").write_text("A short note about the renewal.\n", encoding="utf-8")
    ix = str(tmp_path / "index")
    for _run in range(2):  # the second run reads nothing again and still reports it
        assert main(["index", str(corpus), "--index", ix, "--no-dense", "--quiet"]) == 0
        out = capsys.readouterr().out
        assert "  skipped 1 tokens longer than 1,200 characters (not indexed) in 1 documents:" in out
        assert "    mail.txt: 1 tokens, 1,000,000 characters" in out
    assert main(["index", str(corpus), "--index", ix, "--no-dense", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["overlong"] == [{"path": "mail.txt", "tokens": 1, "characters": 1_000_000}]
    idx = CorpusIndex.open(Path(ix))
    hits = idx.search("invoice payment", k=10)
    assert sorted(h.text for h in hits) == [
        "Payment of the invoice is due in thirty days.",
        "The invoice is attached below.",
    ]
    for h in hits:
        assert text[h.start : h.end] == h.text
    assert data["passages"] == 3  # mail.txt's two lines, note.txt


def test_a_one_line_document_is_cut_into_passages_at_sentence_ends(tmp_path):
    """1 MB of prose on one line: passages of 800-1,200 characters, each ending a sentence, exact."""
    sentence = "The supplier shall deliver the goods within thirty days after the notice of the order. "
    text = (sentence * (1_000_000 // len(sentence))).strip()
    spans = split_passages(text)
    assert len(spans) == pytest.approx(len(text) / 1_000, rel=0.25)
    pos = 0
    for s, e in spans:
        assert text[pos:s].strip() == "" and text[e - 1] == "."
        assert 800 <= e - s <= 1_200 or e == len(text)
        pos = e
    assert pos == len(text)
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "line.txt").write_text(text, encoding="utf-8")
    idx, summary = CorpusIndex.build(tmp_path / "c", tmp_path / "index", counter=CharCounter())
    assert summary.passages == len(spans) and summary.overlong == []
    for h in idx.search("supplier deliver goods", k=5):
        assert (h.start, h.end) in spans and h.text == text[h.start : h.end]


def test_cli_search_without_index_is_one_line_error(tmp_path, capsys):
    assert main(["search", "x", "--index", str(tmp_path / "none")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: no search index in ") and "wikigen index" in err


# --- CUAD (skipped when the shared eval set is absent) ---------------------------------------------------


@pytest.fixture(scope="module")
def cuad_index(tmp_path_factory):
    docs = CUAD / "docs"
    if not docs.is_dir():
        pytest.skip(f"CUAD dev set not found at {docs}")
    files = sorted(docs.glob("*.txt"))[:6]
    root = tmp_path_factory.mktemp("cuad") / "docs"
    root.mkdir()
    for f in files:
        shutil.copy2(f, root / f.name)
    idx, s = CorpusIndex.build(root, root.parent / "index", counter=CharCounter())
    return root, idx, s


def test_cuad_build_and_exact_hits(cuad_index):
    root, idx, s = cuad_index
    assert s.documents == 6 and s.skipped == [] and s.passages > 6
    hits = idx.search("governing law", k=5)
    assert hits
    for h in hits:
        assert h.text == (root / h.path).read_text(encoding="utf-8")[h.start : h.end]
        assert 0 < h.end - h.start <= 1200


def test_cuad_phrase_from_a_document(cuad_index):
    _root, idx, _ = cuad_index
    d = idx.documents()[2]
    text = idx.texts.text(d.doc_id)
    s, e = split_passages(text)[1]
    words = text[s:e].split()[3:10]
    hits = idx.phrase(" ".join(words))
    assert d.doc_id in [h.doc_id for h in hits]


def test_cuad_passages_cover_each_document(cuad_index):
    _root, idx, _ = cuad_index
    for d in idx.documents():
        text = idx.texts.text(d.doc_id)
        spans = split_passages(text)
        covered = "".join(text[s:e] for s, e in spans)
        assert "".join(covered.split()) == "".join(text.split())


def test_empty_corpus_gives_an_empty_index(tmp_path):
    root = tmp_path / "c"
    root.mkdir()
    (root / "empty.txt").write_bytes(b"")
    idx, s = CorpusIndex.build(root, tmp_path / "ix", counter=CharCounter())
    assert (s.documents, s.passages, s.skipped) == (0, 0, [("empty.txt", "empty file")])
    assert idx.search("anything") == [] and idx.documents() == [] and idx.corpus_chars == 0
    assert CorpusIndex.open(tmp_path / "ix").search("x") == []


def test_index_folder_that_is_not_ours_is_refused_not_wiped(corpus, tmp_path):
    ix = tmp_path / "somewhere"
    (ix / "tantivy").mkdir(parents=True)
    (ix / "tantivy" / "precious.txt").write_text("keep me")
    (ix / "texts").mkdir()
    (ix / "texts" / "mine.txt").write_text("keep me too")
    with pytest.raises(SearchIndexError, match="not a search index"):
        CorpusIndex.build(corpus, ix, counter=CharCounter())
    assert (ix / "tantivy" / "precious.txt").exists() and (ix / "texts" / "mine.txt").exists()


def test_lost_tantivy_folder_is_rebuilt(built, corpus, tmp_path):
    shutil.rmtree(tmp_path / "index" / "tantivy")
    with pytest.raises(SearchIndexError, match="wikigen index"):
        CorpusIndex.open(tmp_path / "index")
    idx, s = CorpusIndex.build(corpus, tmp_path / "index", counter=CharCounter())
    assert s.added == 10 and idx.search("terminate")[0].doc_id == "contracts/acme-msa"


def test_tiktoken_count_is_exactly_encode_ordinary():
    from wikigen.core.tokens import default_counter

    c = default_counter()
    enc = c._enc
    for t in [
        "hello <|endoftext|> world",
        "  \n\n  foo\r\n",
        "한국어는 배우기",
        "x" * 5000,
        "",
        "lone \ud800 surrogate",
    ]:
        assert c.count(t) == len(enc.encode_ordinary(t)), t


class _FailingCounter(CharCounter):
    def count(self, text):
        if "b" in text:
            raise RuntimeError("counter broke")
        return super().count(text)


def test_counter_error_fails_the_build_and_leaves_no_manifest(tmp_path):
    root = tmp_path / "c"
    root.mkdir()
    (root / "a.txt").write_text("alpha text here\n")
    (root / "b.txt").write_text("bravo text here\n")
    with pytest.raises(RuntimeError, match="counter broke"):
        CorpusIndex.build(root, tmp_path / "ix", counter=_FailingCounter())
    assert not (tmp_path / "ix" / "manifest.json").exists()
    idx, s = CorpusIndex.build(root, tmp_path / "ix", counter=CharCounter())  # the writer lock was released
    assert s.added == 2 and [h.doc_id for h in idx.search("bravo")] == ["b"]


def test_texts_are_durable_before_the_manifest(tmp_path, monkeypatch):
    import wikigen.search.index as index_mod
    import wikigen.search.texts as texts_mod

    events = []
    real_sync, real_manifest = texts_mod.sync_files, index_mod.write_manifest
    monkeypatch.setattr(
        texts_mod, "sync_files", lambda root, paths: (events.append(("sync", len(paths))), real_sync(root, paths))
    )
    monkeypatch.setattr(index_mod, "write_manifest", lambda *a: (events.append(("manifest",)), real_manifest(*a)))
    root = tmp_path / "c"
    root.mkdir()
    for name in "abc":
        (root / f"{name}.txt").write_text(f"document {name}\n")
    CorpusIndex.build(root, tmp_path / "ix", counter=CharCounter())
    assert events == [("sync", 3), ("manifest",)]
    assert not list((tmp_path / "ix" / "texts").rglob("*.tmp"))


def test_texts_sync_without_syncfs_fsyncs_every_file(tmp_path, monkeypatch):
    import wikigen.search.texts as texts_mod

    monkeypatch.setattr(texts_mod, "_syncfs", lambda folder: False)
    synced = []
    real = texts_mod._fsync_path
    monkeypatch.setattr(texts_mod, "_fsync_path", lambda p: (synced.append(Path(p)), real(p)))
    store = texts_mod.TextStore(tmp_path / "texts")
    w = store.writer()
    for i in range(5):
        w.put(f"d{i}", f"text {i}\r\n")
    w.finish()
    assert {store._path(f"d{i}") for i in range(5)} <= set(synced)
    assert store.text("d3") == "text 3\r\n"


def test_an_interrupted_build_resumes_from_its_last_checkpoint(tmp_path, monkeypatch):
    """A build commits and writes its manifest every CHECKPOINT_CHARS of new text, and when it is interrupted
    (KeyboardInterrupt: Ctrl-C), so the next run does not extract again the documents it had finished."""
    import wikigen.search.index as index_mod
    import wikigen.search.reading as reading_mod

    root = tmp_path / "c"
    root.mkdir()
    for i in range(6):
        (root / f"d{i}.txt").write_text(f"document number {i} about bravo {'x' * 50}\n")
    monkeypatch.setattr(index_mod, "CHECKPOINT_CHARS", 100)  # a checkpoint every two documents
    real_load, loaded = reading_mod.load, []

    def dying_load(entry, *a, **k):
        if len(loaded) == 5:
            raise KeyboardInterrupt("killed")
        loaded.append(entry.doc_id)
        return real_load(entry, *a, **k)

    monkeypatch.setattr(reading_mod, "load", dying_load)
    with pytest.raises(KeyboardInterrupt):
        CorpusIndex.build(root, tmp_path / "ix", counter=CharCounter())
    assert loaded == ["d0", "d1", "d2", "d3", "d4"]
    loaded.clear()
    monkeypatch.setattr(
        reading_mod, "load", lambda entry, *a, **k: (loaded.append(entry.doc_id), real_load(entry, *a, **k))[1]
    )
    idx, summary = CorpusIndex.build(root, tmp_path / "ix", counter=CharCounter())
    assert loaded == ["d5"]  # d0-d3 were committed at the checkpoints, d4 when the interrupt came
    assert len(idx) == 6 and {h.doc_id for h in idx.search("bravo", k=20)} == {f"d{i}" for i in range(6)}
    assert summary.unchanged == 5 and summary.added == 1


def test_near_spelling_finds_how_the_corpus_writes_a_misspelt_word(tmp_path):
    """One edit away (two letters swapped, one dropped, added or changed) in any case, even where the stemmer cuts
    the written word and its misspelling differently ("kiromic" -> "kirom", "kriomic" -> "kriomic"); a word the
    corpus holds, a short word and a word nothing is near give ""."""
    from wikigen.core.text import one_edit_apart, one_edit_spellings

    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "a.txt").write_text(
        "CONSULTING AGREEMENT between Kiromic, Inc. and the Consultant. Kiromic shall pay the fees.\n", "utf-8"
    )
    (corpus / "b.txt").write_text("SUPPLY AGREEMENT between NETGEAR and the Shipper.\n", "utf-8")
    idx, _ = CorpusIndex.build(corpus, tmp_path / "index", counter=CharCounter())
    assert idx.near_spelling("Kriomic") == "Kiromic"
    assert idx.near_spelling("netgaer") == "NETGEAR"
    assert idx.near_spelling("Shiper") == "Shipper"
    assert idx.near_spelling("Kiromic") == ""  # held: nothing to suggest
    assert idx.near_spelling("Zorblax") == "" and idx.near_spelling("Shp") == ""
    assert all(one_edit_apart(v, "abcde") for v in one_edit_spellings("abcde"))
    assert not one_edit_apart("kiromic", "kiromic") and not one_edit_apart("kiromic", "kmroiic")
