"""The passage-vector cache beside the index: incremental by sha256, removed documents dropped, the same
passages as the tantivy index; dense top-k and RRF fusion. A fake encoder is injected (no model needed);
one test runs the real model on a tiny corpus when the model package is installed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="dense search needs numpy (a core dependency)")

from wikigen.search.dense.hybrid import DenseSearcher, hybrid_search, rrf_fuse  # noqa: E402
from wikigen.search.dense.store import STORE_VERSION, VectorStore, spans_key  # noqa: E402
from wikigen.search.index import CorpusIndex, Hit  # noqa: E402

from wikigen.core.tokens import CharCounter  # noqa: E402

WORDS = [
    "law",
    "governs",
    "agreement",
    "delaware",
    "england",
    "terminate",
    "notice",
    "days",
    "payment",
    "royalty",
    "insurance",
    "liability",
    "준거법",
    "계약",
    "해지",
]


class FakeEncoder:
    """Bag of known words, one dimension each (+1 for anything else); records what it encodes."""

    name = "fake-bag-of-words/v1"

    def __init__(self, words=WORDS):
        self.words = list(words)
        self.dim = len(self.words) + 1
        self.calls: list[list[str]] = []

    def encode(self, texts):
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, t in enumerate(texts):
            low = t.lower()
            for j, w in enumerate(self.words):
                out[i, j] = low.count(w)
            out[i, -1] = 0.1
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    @property
    def encoded(self) -> list[str]:
        return [t for c in self.calls for t in c]


def _write(corpus: Path, name: str, text: str) -> None:
    p = corpus / name
    p.write_text(text, encoding="utf-8")
    st = p.stat()  # a distinct mtime, so the index sees the change even within one clock tick
    import os

    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def _para(topic: str, n: int) -> str:
    return "\n\n".join(f"Clause {i}. {topic} " + "filler words here. " * 40 for i in range(n))


@pytest.fixture
def corpus(tmp_path) -> Path:
    c = tmp_path / "corpus"
    c.mkdir()
    _write(c, "law.txt", _para("This agreement law governs Delaware.", 3))
    _write(c, "pay.txt", _para("Payment of royalty within 30 days.", 2))
    _write(c, "end.txt", _para("Either party may terminate on notice.", 2))
    _write(c, "ko.txt", "준거법: 본 계약은 대한민국 법률에 따른다. " * 10)
    return c


def _build(corpus, tmp_path):
    return CorpusIndex.build(corpus, tmp_path / "index", counter=CharCounter())[0]


def test_vectors_follow_the_index_passages_and_are_cached(corpus, tmp_path):
    idx = _build(corpus, tmp_path)
    enc = FakeEncoder()
    s = VectorStore(idx, enc).update()
    total = sum(VectorStore(idx, enc).passages(d.doc_id).__len__() for d in idx.documents())
    assert (s.documents, s.embedded_documents, s.embedded_passages, s.reused) == (4, 4, total, 0)
    assert total == sum(
        json.loads((idx.index_dir / "manifest.json").read_text())["docs"][d]["passages"]
        for d in ("law", "pay", "end", "ko")
    )
    store = VectorStore(idx, enc)
    files = sorted(p.name for p in (store.root / "vectors").glob("*.npy"))
    assert files == sorted(f"{d.sha256}-{spans_key(store.passages(d.doc_id))}.npy" for d in idx.documents())
    arr = np.load(VectorStore(idx, enc).root / "vectors" / files[0])
    assert arr.dtype == np.float16 and arr.shape[1] == enc.dim
    enc2 = FakeEncoder()
    s2 = VectorStore(idx, enc2).update()
    assert (s2.embedded_documents, s2.reused, enc2.encoded) == (0, 4, [])


def test_one_changed_document_is_the_only_one_re_embedded(corpus, tmp_path):
    idx = _build(corpus, tmp_path)
    VectorStore(idx, FakeEncoder()).update()
    _write(corpus, "pay.txt", _para("Payment of royalty within 45 days, and insurance.", 2))
    (corpus / "end.txt").unlink()
    _write(corpus, "new.txt", "Liability is capped. " * 5)
    idx = _build(corpus, tmp_path)
    enc = FakeEncoder()
    s = VectorStore(idx, enc).update()
    assert (s.embedded_documents, s.reused, s.removed) == (2, 2, 1)
    pay_text = idx.texts.text("pay")
    expected = [pay_text[a:b] for a, b in VectorStore(idx, enc).passages("pay")] + [idx.texts.text("new").strip()]
    assert sorted(enc.encoded) == sorted(expected)
    names = {p.name.split("-")[0] for p in (VectorStore(idx, enc).root / "vectors").glob("*.npy")}
    assert names == {f"{d.sha256}" for d in idx.documents()}  # the old pay and end files are gone
    meta = json.loads((VectorStore(idx, enc).root / "meta.json").read_text())
    assert sorted(meta["docs"]) == ["ko", "law", "new", "pay"]


def test_another_model_keeps_its_own_vectors(corpus, tmp_path):
    idx = _build(corpus, tmp_path)
    VectorStore(idx, FakeEncoder()).update()
    other = FakeEncoder()
    other.name = "fake-bag-of-words/v2"
    assert VectorStore(idx, other).update().embedded_documents == 4
    assert len(list((idx.index_dir / "dense").iterdir())) == 2


def test_corrupt_meta_is_rebuilt_not_trusted(corpus, tmp_path):
    idx = _build(corpus, tmp_path)
    store = VectorStore(idx, FakeEncoder())
    store.update()
    (store.root / "meta.json").write_text("{not json", encoding="utf-8")
    assert VectorStore(idx, FakeEncoder()).update().embedded_documents == 4


def test_dense_search_returns_hits_like_bm25(corpus, tmp_path):
    idx = _build(corpus, tmp_path)
    enc = FakeEncoder()
    VectorStore(idx, enc).update()
    ds = DenseSearcher.open(idx, enc)
    hits = ds.search("which law governs", k=3)
    assert hits and all(isinstance(h, Hit) for h in hits)
    assert hits[0].doc_id == "law" and hits[0].text == idx.texts.read("law", hits[0].start, hits[0].end)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert ds.search("계약 준거법", k=1)[0].doc_id == "ko"
    assert all(h.doc_id == "pay" for h in ds.search("law", k=5, doc_ids=["pay"]))
    assert ds.search("", k=3) == [] and ds.search("law", k=0) == [] and ds.search("law", doc_ids=["nope"]) == []


def test_documents_without_vectors_are_left_out_of_search(corpus, tmp_path):
    idx = _build(corpus, tmp_path)
    enc = FakeEncoder()
    VectorStore(idx, enc).update()
    _write(corpus, "late.txt", "Liability insurance law. " * 4)
    idx = _build(corpus, tmp_path)
    ds = DenseSearcher.open(idx, enc)  # not updated: "late" has no vectors yet
    assert "late" not in {d for d, _, _ in ds.rows} and len(ds) > 0


def _hit(doc, start, score=1.0):
    return Hit(doc, f"{doc}.txt", start, start + 10, f"text {doc} {start}", score, "")


def test_rrf_fuse_adds_reciprocal_ranks():
    a = [_hit("x", 0), _hit("y", 0), _hit("z", 0)]
    b = [_hit("y", 0), _hit("w", 0)]
    fused = rrf_fuse([a, b], k=10, rrf_k=60)
    assert [h.doc_id for h in fused] == ["y", "x", "w", "z"]
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61)
    assert fused[1].score == pytest.approx(1 / 61)
    assert [h.doc_id for h in rrf_fuse([a, b], k=2)] == ["y", "x"]
    assert rrf_fuse([[], []], k=5) == []


def test_hybrid_search_fuses_bm25_and_dense(corpus, tmp_path):
    idx = _build(corpus, tmp_path)
    enc = FakeEncoder()
    VectorStore(idx, enc).update()
    ds = DenseSearcher.open(idx, enc)
    q = "royalty payment"
    fused = hybrid_search(idx, ds, q, k=4)
    bm, dn = idx.search(q, k=100), ds.search(q, k=100)
    assert fused == rrf_fuse([bm, dn], 4)
    assert fused[0].doc_id == "pay"


def test_real_model_on_a_tiny_corpus(corpus, tmp_path):
    pytest.importorskip("safetensors", reason="dense search needs safetensors (a core dependency)")
    pytest.importorskip("tokenizers", reason="dense search needs tokenizers (a core dependency)")
    from wikigen.search.dense.encoder import DenseUnavailable, load_encoder

    try:
        enc = load_encoder()
    except DenseUnavailable as e:
        pytest.skip(f"model package absent: {e}")
    idx = _build(corpus, tmp_path)
    s = VectorStore(idx, enc).update()
    assert s.embedded_documents == 4
    ds = DenseSearcher.open(idx, enc)
    assert ds.search("Which state's law applies to the contract?", k=1)[0].doc_id == "law"
    assert ds.search("termination by either party with notice", k=1)[0].doc_id == "end"


def test_a_changed_passage_rule_re_embeds_the_documents_it_cuts_differently(corpus, tmp_path, monkeypatch):
    """Vectors are keyed by the document's sha256 and its passage spans: when the passage (or sentence)
    rule cuts an unchanged document differently, its old vectors are not reused for the new passages."""
    idx = _build(corpus, tmp_path)
    VectorStore(idx, FakeEncoder()).update()
    import wikigen.search.dense.store as store_mod

    real = store_mod.split_passages

    def halves(text):  # another rule: "law" is cut into passages of at most half the length
        spans = real(text)
        if "Delaware" not in text:
            return spans
        return [p for a, b in spans for p in ((a, (a + b) // 2), ((a + b) // 2, b))]

    monkeypatch.setattr(store_mod, "split_passages", halves)
    enc = FakeEncoder()
    s = VectorStore(idx, enc).update()
    assert (s.embedded_documents, s.reused) == (1, 3)
    law = idx.texts.text("law")
    assert sorted(enc.encoded) == sorted({law[a:b] for a, b in halves(law)})  # each distinct passage text once
    matrix, rows = VectorStore(idx, enc).load()
    assert matrix.shape[0] == len(rows) and {(a, b) for d, a, b in rows if d == "law"} == set(halves(law))


def test_a_version_1_cache_is_taken_over_without_re_embedding(corpus, tmp_path):
    """Caches written before the spans key (version 1: files named by sha256 alone) are reused."""
    idx = _build(corpus, tmp_path)
    enc = FakeEncoder()
    store = VectorStore(idx, enc)
    store.update()
    meta = json.loads((store.root / "meta.json").read_text())
    old = {"version": 1, "model": meta["model"], "dim": meta["dim"], "docs": {}}
    for doc_id, rec in meta["docs"].items():
        (store.root / "vectors" / rec["file"]).rename(store.root / "vectors" / f"{rec['sha256']}.npy")
        old["docs"][doc_id] = {"sha256": rec["sha256"], "passages": rec["passages"]}
    (store.root / "meta.json").write_text(json.dumps(old))
    # not searched until an update has said which of its passages the encoder cannot read (read_rule)
    assert len(DenseSearcher.open(idx, enc)) == 0 and VectorStore(idx, enc).pending() == (4, 4)
    enc2 = FakeEncoder()
    s = VectorStore(idx, enc2).update()
    assert (s.embedded_documents, s.reused, enc2.encoded) == (0, 4, [])
    meta = json.loads((store.root / "meta.json").read_text())
    assert meta["version"] == STORE_VERSION and all(r["spans"] for r in meta["docs"].values())
    assert len(DenseSearcher.open(idx, enc)) == sum(r["passages"] for r in old["docs"].values())


def test_a_document_s_vectors_are_a_plain_function_of_its_passages(corpus, tmp_path):
    """document_vectors(encoder, doc_id, passages) is what the store saves for a document, whether it is
    embedded alone or in a group with others (an engine may run it anywhere the encoder is)."""
    from wikigen.search.dense.store import document_vectors, embed_documents

    idx, _ = CorpusIndex.build(corpus, tmp_path / "ix")
    enc = FakeEncoder()
    VectorStore(idx, enc).update()
    store = VectorStore(idx, enc)
    docs = []
    for d in idx.documents():
        text = idx.texts.text(d.doc_id)
        docs.append((d.doc_id, [text[a:b] for a, b in store.passages(d.doc_id)]))
    grouped = embed_documents(enc, docs)
    meta = json.loads((store.root / "meta.json").read_text())
    for (doc_id, passages), together in zip(docs, grouped):
        alone = document_vectors(enc, doc_id, passages)
        saved = np.load(store.root / "vectors" / meta["docs"][doc_id]["file"])
        assert alone.shape == together.shape == saved.shape == (len(passages), enc.dim)
        assert np.allclose(alone, together, atol=1e-6) and np.allclose(alone, saved, atol=2e-3)  # float16 on disk


def test_identical_passages_are_embedded_once_and_share_their_vector():
    """A passage text that recurs (a boilerplate paragraph in several documents, or twice in one) is encoded
    once in its group; every passage of that text gets its vector, and progress still counts passages."""
    from wikigen.search.dense.store import embed_documents

    boiler = "The undersigned certifies that this report fully complies with the law."
    docs = [
        ("a", [boiler, "Payment of royalty within 30 days."]),
        ("b", ["Either party may terminate on notice.", boiler, boiler]),
        ("c", []),
    ]
    enc = FakeEncoder()
    done: list[int] = []
    a, b, c = embed_documents(enc, docs, progress=done.append)
    assert enc.encoded.count(boiler) == 1 and len(enc.encoded) == 3
    assert sum(done) == 5  # passages, not distinct texts
    alone = FakeEncoder().encode([boiler])[0]
    assert a.shape == (2, enc.dim) and b.shape == (3, enc.dim) and c.shape == (0, enc.dim)
    assert all(np.allclose(v, alone) for v in (a[0], b[1], b[2]))
    assert np.allclose(b[0], FakeEncoder().encode(["Either party may terminate on notice."])[0])
    assert not np.allclose(a[1], alone)


def test_an_index_without_vectors_opens_for_search_without_loading_the_model(corpus, tmp_path, monkeypatch):
    """open_dense reads the vectors first, by the encoder's name: an index without them (built with --no-dense,
    or before the model was installed) is searched by BM25 with no model load; one with them loads it once."""
    import wikigen.search.dense.service as service
    from wikigen.search.dense.encoder import encoder_name

    idx = _build(corpus, tmp_path)
    fake = FakeEncoder(WORDS + [f"filler{i}" for i in range(383 - len(WORDS))])  # the real encoder's 384 dims
    fake.name = encoder_name()
    loads = []
    monkeypatch.setattr(service, "shared_encoder", lambda: loads.append(1) or fake)
    assert service.open_dense(idx) is None and loads == []
    VectorStore(idx, fake).update()
    searcher = service.open_dense(idx)
    assert searcher is not None and loads == [1] and len(searcher) == len(VectorStore(idx, fake).load()[1])
    assert searcher.search("royalty payment", k=1)[0].doc_id == "pay"


# --- text the encoder cannot read: no vector, BM25 alone -------------------------------------------------------

HANGUL = "\uac00-\ud7a3"


class LatinReader(FakeEncoder):
    """FakeEncoder that, like the real English model, cannot read Hangul (readable: more Latin letters than
    Hangul syllables)."""

    name = "fake-bag-of-words/latin-reader"

    def readable(self, texts):
        import re

        return [len(re.findall("[A-Za-z]", t)) > len(re.findall(f"[{HANGUL}]", t)) for t in texts]


def test_unread_share_of_the_model_s_own_word_pieces():
    """The share is measured on the tokenizer's pieces: Hangul becomes single jamo and [UNK], English whole
    words; figures and punctuation count for neither."""
    from wikigen.search.dense.encoder import READ_LIMIT, unread_share

    korean = ["[CLS]", "ᄋ", "##ᅵ", "[UNK]", "ᄃ", "##ᅢ", "##ᄒ", "##ᅡ", "##ᆫ", "[SEP]"]
    assert unread_share(korean) == 1.0
    assert unread_share(["[CLS]", "the", "supplier", "shall", "deliver", "goods", ".", "[SEP]"]) == 0.0
    assert unread_share(["gr", "##o", "##ße", "cafe"]) == 0.0  # Latin pieces are read
    assert unread_share(["д", "##о", "##г", "##ов"]) == 0.75  # Cyrillic letter by letter
    assert unread_share(["12", ".", "30", "%"]) == 0.0 and unread_share([]) == 0.0
    mixed = ["kx", "-", "40", "ᄆ", "##ᅦ", "##ᄋ", "the", "price"]  # mostly words the model knows
    assert unread_share(mixed) == 0.5 and unread_share(mixed) <= READ_LIMIT


def test_a_passage_the_encoder_cannot_read_gets_no_vector_and_bm25_alone_ranks_it(corpus, tmp_path):
    idx = _build(corpus, tmp_path)
    enc = LatinReader()
    s = VectorStore(idx, enc).update()
    store = VectorStore(idx, enc)
    ko = store.passages("ko")
    assert s.unread == len(ko) > 0 and not any("대한민국" in t for t in enc.encoded)
    meta = json.loads((store.root / "meta.json").read_text())
    assert meta["docs"]["ko"]["unread"] == list(range(len(ko))) and meta["docs"]["law"]["unread"] == []
    assert not np.load(store.root / "vectors" / meta["docs"]["ko"]["file"]).any()  # no vector on disk either
    matrix, rows, unread = store.load_unread()
    assert {d for d, _, _ in rows} == {"law", "pay", "end"} and matrix.shape[0] == len(rows)
    assert unread == [("ko", a, b) for a, b in ko]
    assert store.counts() == (len(rows), len(ko))
    ds = DenseSearcher.open(idx, enc)
    # a question the encoder cannot read: no dense half; hybrid search is BM25's ranking, hit for hit
    q = "계약 준거법"
    assert ds.search(q, k=5) == [] and ds.span_scores(q, [("law", 0, 10), ("ko", 0, 10)]) == [None, None]
    assert hybrid_search(idx, ds, q, k=5) == idx.search(q, k=5, keep_out=False) != []
    # a question it reads: the unread passage is priced by nothing, yet ranked by its BM25 rank, once per list
    assert ds.span_scores("governing law", [("ko", 0, 10)]) == [None]
    q = "governing law 준거법"
    bm = idx.search(q, k=100, snippets=False, keep_out=False)
    fused = hybrid_search(idx, ds, q, k=100, snippets=False)
    ko_rank = next(r for r, h in enumerate(bm, 1) if h.doc_id == "ko")
    assert next(h.score for h in fused if h.doc_id == "ko") == pytest.approx(2 / (60 + ko_rank))


def test_rrf_counts_an_unread_passage_s_first_rank_once_per_list():
    a = [_hit("ko", 0), _hit("x", 0), _hit("y", 0)]  # BM25: the unread passage first
    b = [_hit("x", 0), _hit("y", 0)]  # dense: it cannot rank it
    plain = rrf_fuse([a, b], k=10)
    assert [h.doc_id for h in plain] == ["x", "y", "ko"]  # pushed down for having no dense rank
    fair = rrf_fuse([a, b], k=10, unread={("ko", 0, 10)})
    assert [h.doc_id for h in fair] == ["ko", "x", "y"] and fair[0].score == pytest.approx(2 / 61)


def test_a_version_2_cache_is_brought_to_the_read_rule_without_embedding(corpus, tmp_path):
    """Vectors cached before the read rule (version 2) held a vector for every passage, Korean too: an update
    zeroes and lists the rows of the passages the encoder cannot read and embeds nothing."""
    idx = _build(corpus, tmp_path)
    store = VectorStore(idx, LatinReader())
    root = store.root
    VectorStore(idx, FakeEncoder()).update()  # a vector for every passage, as before the rule
    meta = json.loads((VectorStore(idx, FakeEncoder()).root / "meta.json").read_text())
    root.mkdir(parents=True)
    (VectorStore(idx, FakeEncoder()).root / "vectors").rename(root / "vectors")
    docs = {d: {k: r[k] for k in ("sha256", "passages", "spans", "file")} for d, r in meta["docs"].items()}
    (root / "meta.json").write_text(json.dumps(dict(meta, version=2, model=LatinReader.name, docs=docs)))
    assert np.load(root / "vectors" / docs["ko"]["file"]).any()
    enc = LatinReader()
    s = VectorStore(idx, enc).update()
    assert (s.embedded_documents, s.reused, enc.encoded, s.unread) == (0, 4, [], len(store.passages("ko")))
    after = json.loads((root / "meta.json").read_text())
    assert after["version"] == STORE_VERSION and after["docs"]["ko"]["unread"]
    assert not np.load(root / "vectors" / after["docs"]["ko"]["file"]).any()
    assert "ko" not in {d for d, _, _ in VectorStore(idx, enc).load()[1]}


def test_the_real_model_gives_no_korean_passage_a_vector(corpus, tmp_path):
    """The English model's own tokenizer decides: the Korean document's passages get no vector, the English ones
    do, and a Korean question's hybrid search is its BM25 ranking."""
    pytest.importorskip("tokenizers", reason="dense search needs tokenizers (a core dependency)")
    from wikigen.search.dense.encoder import DenseUnavailable, load_encoder

    try:
        enc = load_encoder()
    except DenseUnavailable as e:
        pytest.skip(f"model package absent: {e}")
    assert enc.readable(["이 계약은 대한민국 법률에 따른다", "This agreement is governed by Korean law."]) == [
        False,
        True,
    ]
    idx = _build(corpus, tmp_path)
    VectorStore(idx, enc).update()
    ds = DenseSearcher.open(idx, enc)
    assert {d for d, _, _ in ds.rows} == {"law", "pay", "end"}
    assert {d for d, _, _ in ds.unread} == {"ko"}
    q = "대한민국 법률 준거법"
    assert hybrid_search(idx, ds, q, k=3) == idx.search(q, k=3, keep_out=False) != []


def test_the_wiki_gate_lets_a_quote_without_a_vector_through(corpus, tmp_path):
    """The gate that lets a wiki quote into the context only when its passage is as close to the question as
    search's best cannot judge a passage without a vector: such a quote passes, as all do without vectors."""
    from wikigen.ask.candidates import Candidates
    from wikigen.ask.context import Unit
    from wikigen.ask.page_index import PageIndex
    from wikigen.ask.params import RetrievalParams

    idx = _build(corpus, tmp_path)
    enc = LatinReader()
    VectorStore(idx, enc).update()
    ds = DenseSearcher.open(idx, enc)
    cands = Candidates(idx, PageIndex.build([]), {"law", "pay", "end", "ko"}, RetrievalParams(wiki_gate_rank=1), ds)
    _, a, b = sorted(ds.unread)[0]
    ko = Unit("quote", "ko", a, b, idx.texts.read("ko", a, b))
    pay = Unit("quote", "pay", 0, 40, idx.texts.read("pay", 0, 40))
    assert cands.earned("Which law governs this agreement?", [ko, pay], k=5) == [ko]  # pay is far from the question
