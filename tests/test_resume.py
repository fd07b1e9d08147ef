"""Interrupted long stages resume without redoing finished documents: topic discovery (shards of
per-document results in the wiki's cache), `CorpusIndex.build` (checkpoints) and the dense vectors
(per-document files). Each is interrupted for real - an exception from the progress callback, or the
process killed with SIGKILL after N documents - then run again, counting the documents redone."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import wikigen.agents.discovery_cache as shards_mod
import wikigen.agents.topics as topics_mod
from wikigen.agents.catalog import catalog_to_data
from wikigen.agents.catalog_cache import cache_path, load_catalog
from wikigen.agents.topics import discover
from wikigen.search.index import CorpusIndex

from wikigen.core.tokens import CharCounter

REPO = Path(__file__).resolve().parent.parent
HEADS = ["Governing Law", "Confidentiality", "Termination", "Payment Terms", "Indemnification", "Warranties"]
FIRMS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne", "Kestrel", "Osprey"]


def _corpus(root: Path, docs: int = 20) -> Path:
    corpus = root / "corpus"
    corpus.mkdir(parents=True)
    for i in range(docs):
        firm, other = FIRMS[i % len(FIRMS)], FIRMS[(i * 3 + 1) % len(FIRMS)]
        lines = [
            f"SUPPLY AGREEMENT {i}",
            "",
            f"This agreement between {firm} Holdings and {other} Partners "
            f'(the "Supplier") is made on March {i % 28 + 1}, 2024.',
            "",
        ]
        for j, head in enumerate(HEADS[: 3 + i % 4], start=1):
            lines += [
                f"{j}. {head}.",
                f"The {head.lower()} clause of {firm} binds the Supplier for {i + j} years. "
                f"Pallet rotation logs are kept under the {head.lower()} clause. "
                f"Kestrel audit rights apply to the {head.lower()} clause in year {j}.",
                "",
            ]
        lines.append(
            "이 계약은 대한민국 법률에 따른다. 비밀유지 의무는 계약 종료 후에도 존속한다." if i % 5 == 0 else ""
        )
        (corpus / f"supply-{i:02d}.txt").write_text("\n".join(lines), encoding="utf-8")
    return corpus


@pytest.fixture()
def index(tmp_path):
    idx, _ = CorpusIndex.build(_corpus(tmp_path), tmp_path / "index", counter=CharCounter())
    return idx


def _fresh(index):
    docs = index.documents()
    return catalog_to_data(
        discover({d.doc_id: index.texts.text(d.doc_id) for d in docs}, {d.doc_id: d.title for d in docs})
    )


class Counting:
    """Counts the documents each pass of topic discovery computes (workers=1: in this process)."""

    def __init__(self, monkeypatch):
        self.read: list[str] = []
        self.hits: list[str] = []
        real_read, real_hits = topics_mod._read_document, topics_mod._phrase_hits
        monkeypatch.setattr(
            topics_mod, "_read_document", lambda item, *a: (self.read.append(item[0]), real_read(item, *a))[1]
        )
        monkeypatch.setattr(
            topics_mod, "_phrase_hits", lambda item, *a: (self.hits.append(item[0]), real_hits(item, *a))[1]
        )


def _stop_at(n: int):
    def progress(done, total):
        if done == n:
            raise KeyboardInterrupt(f"stopped at {done}/{total}")

    return progress


def test_interrupted_discovery_resumes_without_reading_finished_documents_again(index, tmp_path, monkeypatch):
    monkeypatch.setattr(shards_mod, "SHARD_DOCS", 4)
    cache = tmp_path / "wiki" / ".wikigen" / "cache"
    count = Counting(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        load_catalog(index, cache, workers=1, progress=_stop_at(11))  # first pass, document 11 of 20
    assert len(count.read) == 11 and not cache_path(index, cache).exists()
    assert len(list((cache / "discovery").glob("evidence-*.json.gz"))) == 2  # 8 documents in 2 shards
    count.read.clear()
    cat = load_catalog(index, cache, workers=1)
    assert count.read == [d.doc_id for d in index.documents()][8:]  # 12 redone, not 20
    assert catalog_to_data(cat) == _fresh(index)
    # a finished run leaves both passes complete: without the catalog file, nothing is read again
    cache_path(index, cache).unlink()
    count.read.clear(), count.hits.clear()
    assert catalog_to_data(load_catalog(index, cache, workers=1)) == catalog_to_data(cat)
    assert count.read == [] and count.hits == []


def test_an_interruption_in_the_second_pass_keeps_the_first(index, tmp_path, monkeypatch):
    monkeypatch.setattr(shards_mod, "SHARD_DOCS", 4)
    cache = tmp_path / "cache"
    count = Counting(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        load_catalog(index, cache, workers=1, progress=_stop_at(20 + 6))  # second pass, document 6
    assert len(count.read) == 20 and len(count.hits) == 6
    count.read.clear(), count.hits.clear()
    seen = []
    cat = load_catalog(index, cache, workers=1, progress=lambda d, t: seen.append((d, t)))
    assert count.read == [] and len(count.hits) == 16  # 4 of the 6 were in a shard
    assert seen[0] == (1, 40) and seen[-1] == (40, 40)
    assert catalog_to_data(cat) == _fresh(index)


def test_an_unreadable_shard_is_read_again_and_stale_shards_go(index, tmp_path, monkeypatch):
    monkeypatch.setattr(shards_mod, "SHARD_DOCS", 4)
    cache = tmp_path / "cache"
    with pytest.raises(KeyboardInterrupt):
        load_catalog(index, cache, workers=1, progress=_stop_at(13))
    files = sorted((cache / "discovery").glob("evidence-*.json.gz"))
    assert len(files) == 3
    files[0].write_bytes(b"not gzip")  # 4 documents to read again
    body = gzip.decompress(files[1].read_bytes()).decode().splitlines()
    entries = json.loads(body[1])
    entries[0]["outline"] = "broken"  # 1 document to read again
    files[1].write_bytes(gzip.compress((body[0] + "\n" + json.dumps(entries) + "\n").encode()))
    stale = cache / "discovery" / "evidence-0000000000000000-x-00000.json.gz"  # another corpus's or knobs'
    stale.write_bytes(gzip.compress(b'{"version": 1, "keys": []}\n[]\n'))
    count = Counting(monkeypatch)
    cat = load_catalog(index, cache, workers=1)
    assert len(count.read) == 20 - 12 + 4 + 1
    assert catalog_to_data(cat) == _fresh(index)
    assert not stale.exists() and not files[0].exists()


def test_a_changed_document_alone_is_read_again(index, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    load_catalog(index, cache, workers=1)
    corpus = tmp_path / "corpus"
    target = corpus / "supply-03.txt"
    target.write_text(
        target.read_text(encoding="utf-8") + "\n7. Audit.\nThe Supplier keeps audit logs.\n", encoding="utf-8"
    )
    idx, _ = CorpusIndex.build(corpus, tmp_path / "index", counter=CharCounter(), rehash=True)
    count = Counting(monkeypatch)
    cat = load_catalog(idx, cache, workers=1)  # the catalog cache misses: one doc changed
    assert count.read == ["supply-03"]
    assert catalog_to_data(cat) == _fresh(idx)


KILLER = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    sys.path.insert(0, {repo!r})
    {setup}
    def progress(done, total):
        if done == {n}:
            os.kill(os.getpid(), signal.SIGKILL)
    {run}
""")


def _killed(tmp_path: Path, n: int, setup: str, run: str) -> None:
    script = tmp_path / "killer.py"
    script.write_text(
        KILLER.format(repo=str(REPO), n=n, setup=textwrap.dedent(setup).strip(), run=textwrap.dedent(run).strip())
    )
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]


def test_discovery_killed_with_sigkill_resumes(index, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    _killed(
        tmp_path,
        14,
        f"""
        import wikigen.agents.discovery_cache as shards_mod
        from wikigen.agents.catalog_cache import load_catalog
        from wikigen.search.index import CorpusIndex
        shards_mod.SHARD_DOCS = 5
        index = CorpusIndex.open(Path({str(index.index_dir)!r}))
    """,
        f"load_catalog(index, Path({str(cache)!r}), workers=1, progress=progress)",
    )
    count = Counting(monkeypatch)
    cat = load_catalog(index, cache, workers=1)
    assert len(count.read) == 20 - 10  # two shards of 5 were written before the kill
    assert catalog_to_data(cat) == _fresh(index)


def test_index_killed_with_sigkill_resumes(tmp_path):
    corpus = _corpus(tmp_path, docs=12)
    _killed(
        tmp_path,
        7,
        """
        import wikigen.search.index as index_mod
        from wikigen.core.tokens import CharCounter
        index_mod.CHECKPOINT_CHARS = 1500          # a checkpoint every few documents
    """,
        f"index_mod.CorpusIndex.build(Path({str(corpus)!r}), Path({str(tmp_path / 'ix')!r}), "
        "counter=CharCounter(), progress=progress)",
    )
    manifest = json.loads((tmp_path / "ix" / "manifest.json").read_text(encoding="utf-8"))
    done = len(manifest["docs"])
    assert 0 < done < 7
    idx, summary = CorpusIndex.build(corpus, tmp_path / "ix", counter=CharCounter())
    assert summary.unchanged == done and summary.added == 12 - done  # only the rest was redone
    assert len(idx) == 12 and {h.doc_id for h in idx.search("pallet rotation", k=50)} == {
        f"supply-{i:02d}" for i in range(12)
    }


@pytest.mark.dense
def test_embedding_killed_with_sigkill_resumes(tmp_path):
    from wikigen.search.dense.encoder import DenseUnavailable
    from wikigen.search.dense.service import shared_encoder, update_vectors

    try:
        enc = shared_encoder()
    except DenseUnavailable as e:
        pytest.skip(f"the dense model cannot run here: {e}")
    idx, _ = CorpusIndex.build(_corpus(tmp_path, docs=10), tmp_path / "ix", counter=CharCounter())
    _killed(
        tmp_path,
        6,
        f"""
        import wikigen.search.dense.store as store_mod
        from wikigen.search.dense.service import update_vectors
        from wikigen.search.index import CorpusIndex
        store_mod.GROUP_PASSAGES = 1               # one document a group: meta.json after each
        index = CorpusIndex.open(Path({str(tmp_path / "ix")!r}))
        calls = []
        def per_document(done, total):             # (0, total) first, then once a document (< SLICE passages)
            calls.append(done)                     # is embedded, just before it is saved: the 8th call comes
            if len(calls) == 8:                    # when 6 documents are saved
                os.kill(os.getpid(), signal.SIGKILL)
    """,
        "update_vectors(index, progress=per_document)",
    )
    summary = update_vectors(idx, encoder=enc).summary
    assert summary.reused == 6 and summary.embedded_documents == 4  # killed after the 6th's meta.json
    assert os.path.isdir(tmp_path / "ix" / "dense")
