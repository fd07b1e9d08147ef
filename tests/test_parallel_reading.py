"""Reading and extracting a corpus's files in worker processes: the same index as one process, bad
files skipped the same way, unchanged files not extracted again, and the worker pool's bounded window."""

import json
import multiprocessing
import shutil
from pathlib import Path

import pytest
from wikigen.search.index import CorpusIndex

import wikigen.core.workers as workers_mod
from wikigen.core.tokens import CharCounter
from wikigen.core.workers import Workers

ACME = Path(__file__).resolve().parent.parent / "corpora" / "acme"

pytestmark = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(),
    reason="worker processes need fork on this platform; reading then runs in one process",
)


def corpus(root: Path) -> Path:
    c = root / "corpus"
    shutil.copytree(ACME, c)  # txt, md, pdf, Korean
    (c / "odd").mkdir()
    (c / "odd" / "latin1.txt").write_bytes("Caf\xe9 cr\xe8me agreement, governed by Swiss law.".encode("latin-1"))
    (c / "odd" / "binary.txt").write_bytes(bytes(range(256)) * 8)
    (c / "odd" / "empty.txt").write_text("")
    (c / "odd" / "broken.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    return c


def state(index_dir: Path) -> tuple[dict, dict]:
    m = json.loads((index_dir / "manifest.json").read_text())
    docs = {d: {k: v for k, v in r.items() if k != "mtime_ns"} for d, r in m["docs"].items()}
    idx = CorpusIndex.open(index_dir)
    texts = {d: idx.texts.text(d) for d in docs}
    return docs, texts


def test_two_workers_build_the_index_of_one(tmp_path, monkeypatch):
    c = corpus(tmp_path)
    one, s1 = CorpusIndex.build(c, tmp_path / "one", counter=CharCounter(), workers=1)
    monkeypatch.setattr(workers_mod, "PARALLEL_MIN_CHARS", 0)
    assert Workers(2, 1).n == 2
    seen = []
    two, s2 = CorpusIndex.build(
        c, tmp_path / "two", counter=CharCounter(), workers=2, progress=lambda done, total: seen.append(done)
    )
    assert state(tmp_path / "one") == state(tmp_path / "two")
    assert sorted(s1.skipped) == sorted(s2.skipped) and len(s2.skipped) >= 2  # binary, broken pdf
    assert s1.decoded == s2.decoded and [p for p, _ in s2.decoded] == ["odd/latin1.txt"]
    assert seen == sorted(seen) and seen[-1] == len(seen) - 1
    for q in ("governing law", "준거법", "Swiss"):  # every hit (tantivy orders ties by its own segments)
        assert sorted((h.doc_id, h.start, h.end, round(h.score, 4)) for h in one.search(q, k=100)) == sorted(
            (h.doc_id, h.start, h.end, round(h.score, 4)) for h in two.search(q, k=100)
        )
    # a re-run that hashes every file (as a build does) extracts nothing unchanged, in workers too
    (c / "odd" / "latin1.txt").touch()
    (c / "contracts" / "nda-orrin-metals.txt").write_text("A new mutual NDA with Orrin Metals.\n")
    _, again = CorpusIndex.build(c, tmp_path / "two", counter=CharCounter(), workers=2, rehash=True)
    assert (again.changed, again.added, again.removed) == (1, 0, 0)
    assert again.unchanged == s2.added - 1


def test_a_window_keeps_order_and_bounds_the_items_in_flight(monkeypatch):
    monkeypatch.setattr(workers_mod, "PARALLEL_MIN_CHARS", 0)
    pool = Workers(2, 1)
    got = pool.map(_square_plus, list(range(50)), 7, window=4)
    assert next(got) == 7
    rest = list(got)
    assert [7] + rest == [i * i + 7 for i in range(50)]
    got = pool.map(_square_plus, list(range(50)), 1, window=4)
    assert [next(got) for _ in range(3)] == [1, 2, 5]
    got.close()  # stopping early ends the worker processes
    assert list(Workers(1, 0).map(_square_plus, [3], 0, window=4)) == [9]


def _square_plus(i: int, k: int) -> int:
    return i * i + k


def test_a_worker_that_dies_loses_no_work(monkeypatch, caplog):
    """A worker process killed mid-map (here: it exits on item 5): the items it had not returned are
    done in this process, the results complete and in order, with a warning."""
    import os

    monkeypatch.setattr(workers_mod, "PARALLEL_MIN_CHARS", 0)
    for window in (0, 3):
        got = list(Workers(2, 1).map(_dies_on_five, list(range(12)), os.getpid(), window=window))
        assert got == [i * 10 for i in range(12)]
    assert "a worker process died" in caplog.text


def _dies_on_five(i: int, parent: int) -> int:
    import os

    if i == 5 and os.getpid() != parent:
        os._exit(3)
    return i * 10


def test_workers_end_when_their_parent_is_killed(tmp_path):
    """A parent killed with SIGKILL (the out-of-memory killer) leaves no worker waiting forever."""
    import os
    import signal
    import subprocess
    import sys
    import time

    if not Path("/proc").is_dir():
        pytest.skip("needs /proc to find the worker processes")
    script = tmp_path / "parent.py"
    script.write_text(
        "import sys, time\nimport wikigen.core.workers as w\nw.PARALLEL_MIN_CHARS = 0\n"
        "def slow(i):\n    time.sleep(0.3)\n    return i\n"
        "for n, r in enumerate(w.Workers(2, 1).map(slow, list(range(200)), window=4)):\n"
        "    if n == 0:\n        print('started', flush=True)\n"
    )
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "started"
        children = [int(p) for p in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()]
        assert len(children) == 2
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(
            Path(f"/proc/{c}").exists() and "Z" not in _state(c) for c in children
        ):
            time.sleep(0.2)
        assert not [c for c in children if Path(f"/proc/{c}").exists() and "Z" not in _state(c)]
    finally:
        if proc.poll() is None:
            proc.kill()


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"
