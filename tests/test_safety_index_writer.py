"""Issue 25, item 4: one writer per search index. A second `wikigen index` (or a build) on an index that
another process is writing is refused at once, naming that process's pid; passages indexed twice by an
earlier race are repaired when found. Real processes, a real tantivy index on disk."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import tantivy
from test_offline_agent import make_corpus

from wikigen.cli import main

REPO = Path(__file__).resolve().parent.parent
ACME = REPO / "corpora" / "acme"
CLI = [sys.executable, "-m", "wikigen.cli"]


def passages_on_disk(index_dir: Path) -> tuple[int, int, int]:
    """(passages in the tantivy index, passages the manifest lists, distinct (doc id, start, end) keys)."""
    idx = tantivy.Index.open(str(index_dir / "tantivy"))
    idx.reload()
    s = idx.searcher()
    found = s.search(tantivy.Query.all_query(), max(1, s.num_docs)).hits
    keys = set()
    for _, addr in found:
        d = s.doc(addr)
        keys.add((d.get_first("doc_id"), d.get_first("start"), d.get_first("end")))
    manifest = json.loads((index_dir / "manifest.json").read_text(encoding="utf-8"))
    return s.num_docs, sum(r["passages"] for r in manifest["docs"].values()), len(keys)


PAUSED_RUN = """
import sys, time
from pathlib import Path
from wikigen.search.index import CorpusIndex
corpus, index, marker = map(Path, sys.argv[1:4])
def progress(done, total):
    if done == 2 and not marker.exists():
        marker.write_text("paused")
        time.sleep(4)
CorpusIndex.build(corpus, index, progress=progress)
"""


def test_a_second_index_run_is_refused_while_the_first_writes(tmp_path):
    corpus = make_corpus(tmp_path, docs=4)
    index, marker = tmp_path / "idx", tmp_path / "paused"
    first = subprocess.Popen([sys.executable, "-c", PAUSED_RUN, str(corpus), str(index), str(marker)], cwd=REPO)
    try:
        for _ in range(600):
            if marker.exists() or first.poll() is not None:
                break
            time.sleep(0.05)
        assert marker.exists(), "the first run never reached its pause"
        second = subprocess.run(
            [*CLI, "index", str(corpus), "--index", str(index)], cwd=REPO, capture_output=True, text=True
        )
    finally:
        first.wait(timeout=300)
    assert first.returncode == 0
    assert second.returncode == 3, second.stderr
    assert f"pid {first.pid}" in second.stderr and "LockBusy" not in second.stderr
    assert "Traceback" not in second.stderr
    n, listed, distinct = passages_on_disk(index)
    assert n == listed == distinct


def test_two_index_runs_at_once_never_index_a_passage_twice(tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(ACME, corpus)
    for trial in range(3):
        index = tmp_path / f"idx{trial}"
        procs = [
            subprocess.Popen(
                [*CLI, "index", str(corpus), "--index", str(index), "--no-dense"],
                cwd=REPO,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        outs = [p.communicate(timeout=600) for p in procs]
        codes = [p.returncode for p in procs]
        for code, (_, err) in zip(codes, outs):
            assert code in (0, 3), err
            assert "LockBusy" not in err and "Traceback" not in err
            if code == 3:
                assert "pid " in err and "is writing the search index" in err
        assert 0 in codes
        n, listed, distinct = passages_on_disk(index)
        assert n == listed == distinct, f"trial {trial}: {n} passages indexed, {listed} listed, {distinct} distinct"


def _duplicate_one_document(index_dir: Path) -> str:
    """What an earlier race left behind: every passage of one document indexed a second time."""
    from wikigen.search.passages import split_passages
    from wikigen.search.schema import passage_document
    from wikigen.search.texts import TextStore

    manifest = json.loads((index_dir / "manifest.json").read_text(encoding="utf-8"))
    doc_id = sorted(manifest["docs"])[0]
    text = TextStore(index_dir / "texts").text(doc_id)
    w = tantivy.Index.open(str(index_dir / "tantivy")).writer(heap_size=50_000_000, num_threads=1)
    for s, e in split_passages(text):
        w.add_document(passage_document(doc_id, manifest["docs"][doc_id]["title"], text, s, e))
    w.commit()
    w.wait_merging_threads()
    return doc_id


def test_passages_indexed_twice_are_repaired_by_the_next_index_run(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=3)
    index = tmp_path / "idx"
    assert main(["index", str(corpus), "--index", str(index), "--no-dense"]) == 0
    doc_id = _duplicate_one_document(index)
    n, listed, _ = passages_on_disk(index)
    assert n > listed  # the damage is there
    capsys.readouterr()
    assert main(["index", str(corpus), "--index", str(index), "--no-dense"]) == 0
    assert "repaired the index: " in capsys.readouterr().out
    n, listed, distinct = passages_on_disk(index)
    assert n == listed == distinct
    assert main(["search", "pallets", "--index", str(index), "--json", "-k", "50"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    keys = [(h["doc_id"], h["start"], h["end"]) for h in hits]
    assert len(keys) == len(set(keys)) and any(h["doc_id"] == doc_id for h in hits)


def test_passages_indexed_twice_are_repaired_when_the_index_is_opened(tmp_path):
    from wikigen.search.index import CorpusIndex

    corpus = make_corpus(tmp_path, docs=3)
    index = tmp_path / "idx"
    CorpusIndex.build(corpus, index)
    _duplicate_one_document(index)
    idx = CorpusIndex.open(index)
    hits = idx.search("pallet rotation log", k=50)
    keys = [(h.doc_id, h.start, h.end) for h in hits]
    assert len(keys) == len(set(keys))
    n, listed, distinct = passages_on_disk(index)
    assert n == listed == distinct


def test_the_refusal_names_a_live_holder_and_a_dead_holder_is_taken_over(tmp_path):
    """The lock is a kernel lock: a holder killed with SIGKILL leaves its file, and the next run takes it."""
    corpus = make_corpus(tmp_path, docs=2)
    index = tmp_path / "idx"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom wikigen.search.index import index_lock\n"
            "with index_lock(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(60)\n",
            str(index),
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        r = subprocess.run(
            [*CLI, "index", str(corpus), "--index", str(index)], cwd=REPO, capture_output=True, text=True
        )
        assert r.returncode == 3 and f"pid {holder.pid}" in r.stderr
    finally:
        os.kill(holder.pid, 9)
        holder.wait()
    r = subprocess.run([*CLI, "index", str(corpus), "--index", str(index)], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
