"""Ctrl-C, for real: a SIGINT to a real `wikigen` process during indexing, embedding, topic discovery and an
agents' session ends it with one line on stderr and exit status 130, and the next run redoes no finished
document. Each child is the CLI itself (`wikigen.cli.main`) with one hook that says on stderr when the stage
is under way and holds it there until the signal lands (so a loaded machine cannot let the stage finish
first); nothing else is patched."""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from wikigen.cli import INTERRUPTED

REPO = Path(__file__).resolve().parent.parent
MARK = "@@stage-under-way@@"

CHILD = textwrap.dedent("""
    import signal, sys, time
    sys.path.insert(0, {repo!r})
    MARK = {mark!r}
    signalled = []
    def _seen(signum, frame, _default=signal.getsignal(signal.SIGINT)):
        signalled.append(signum)     # noted, then handled as before (KeyboardInterrupt in the main thread)
        return _default(signum, frame)
    signal.signal(signal.SIGINT, _seen)
    def marking(fn, after=1, hold=120):
        calls = [0]
        def wrapped(*a, **k):
            out = fn(*a, **k)
            calls[0] += 1
            if calls[0] >= after:
                print(MARK, calls[0], file=sys.stderr, flush=True)
                end = time.monotonic() + hold   # held until the signal lands, however loaded the machine
                while not signalled and time.monotonic() < end:
                    time.sleep(0.02)
            return out
        return wrapped
    {setup}
    from wikigen.cli import main
    sys.exit(main({argv!r}))
""")


def _corpus(root: Path, docs: int) -> Path:
    """docs small supply agreements, each in its own words enough to be a document of its own."""
    corpus = root / "corpus"
    corpus.mkdir(parents=True)
    for i in range(docs):
        clauses = [
            f"{j}. {head}. The {head.lower()} terms of agreement {i} bind the Supplier for {i + j} years; "
            f"pallet rotation logs are kept under them and audited in year {j}."
            for j, head in enumerate(["Governing Law", "Confidentiality", "Termination", "Payment"][: 2 + i % 3], 1)
        ]
        (corpus / f"supply-{i:02d}.txt").write_text(
            f"SUPPLY AGREEMENT {i}\n\nMade on March {i % 28 + 1}, 2024.\n\n" + "\n\n".join(clauses) + "\n",
            encoding="utf-8",
        )
    return corpus


def _interrupt(tmp_path: Path, setup: str, argv: list[str], *, group: bool = False) -> tuple[int, list[str]]:
    """Run the CLI with the hook; SIGINT it (its whole process group with group=True, as a terminal's
    Ctrl-C does) at the first mark. (exit status, stderr lines other than the marks)."""
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(repo=str(REPO), mark=MARK, setup=textwrap.dedent(setup).strip(), argv=argv))
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=group,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stderr is not None  # a pipe
    lines: list[str] = []
    try:  # a child that hangs is ended by the test's own time limit (pytest-timeout), not by a clock here
        for line in proc.stderr:
            if line.startswith(MARK):
                (os.killpg(proc.pid, signal.SIGINT) if group else proc.send_signal(signal.SIGINT))
                break
            lines.append(line.rstrip("\n"))
        else:
            proc.wait(30)
            pytest.fail(f"the child ended before its stage was under way: {proc.returncode} {lines[-20:]}")
        rest = proc.stderr.read()
        proc.wait(120)
    finally:
        if proc.poll() is None:
            proc.kill()
    lines += [x for x in rest.splitlines() if not x.startswith(MARK)]
    return proc.returncode, [x for x in lines if x.strip()]


def test_ctrl_c_while_indexing_keeps_the_finished_documents(tmp_path):
    corpus = _corpus(tmp_path, docs=30)
    ix = tmp_path / "ix"
    code, err = _interrupt(
        tmp_path,
        "import wikigen.search.reading as r; r.load = marking(r.load, after=8)",
        ["index", str(corpus), "--index", str(ix), "--no-dense", "--quiet"],
    )
    assert (code, err) == (130, [INTERRUPTED])
    kept = json.loads((ix / "manifest.json").read_text(encoding="utf-8"))["docs"]
    assert 7 <= len(kept) < 30  # the documents added before the signal (the 8th was being read)
    from wikigen.search.index import CorpusIndex

    idx, summary = CorpusIndex.build(corpus, ix)
    assert summary.unchanged == len(kept) and summary.added == 30 - len(kept)  # nothing finished is redone
    assert len(idx) == 30 and {h.doc_id for h in idx.search("pallet rotation", k=60)} == {
        f"supply-{i:02d}" for i in range(30)
    }


@pytest.mark.dense
def test_ctrl_c_while_embedding_keeps_the_finished_vectors(tmp_path, capsys):
    from wikigen.search.dense.encoder import DenseUnavailable
    from wikigen.search.dense.service import pending_note, shared_encoder
    from wikigen.search.index import CorpusIndex

    try:
        encoder = shared_encoder()
    except DenseUnavailable as e:
        pytest.skip(f"the dense model cannot run here: {e}")
    corpus = _corpus(tmp_path, docs=12)
    ix = tmp_path / "ix"
    code, err = _interrupt(
        tmp_path,
        """
        import wikigen.search.dense.store as s
        s.GROUP_PASSAGES = 1                      # each document saved as it is done
        s.VectorStore._save_group = marking(s.VectorStore._save_group, after=4)
        """,
        ["index", str(corpus), "--index", str(ix), "--quiet"],
    )
    assert (code, err) == (130, [INTERRUPTED])
    idx = CorpusIndex.open(ix)
    note = pending_note(idx)
    assert note is not None and note.endswith(f"`wikigen index --dense --index {ix}` computes them")
    missing = int(note.split()[0])
    assert 0 < missing <= 12 - 4
    from wikigen.search.dense.store import VectorStore

    from wikigen import cli

    capsys.readouterr()
    assert cli.main(["index", "--dense", "--index", str(ix), "--json", "--quiet"]) == 0
    finished = json.loads(capsys.readouterr().out)["dense"]
    assert (finished["reused"], finished["embedded_documents"]) == (12 - missing, missing)  # none redone
    assert VectorStore(idx, encoder).pending() == (0, 12) and pending_note(idx) is None


def test_ctrl_c_during_topic_discovery_in_worker_processes(tmp_path, caplog):
    """The terminal's Ctrl-C reaches the worker processes too: they stay quiet, the build ends with one line,
    and the next build reads again only the documents whose discovery results were not kept."""
    corpus = _corpus(tmp_path, docs=24)
    wiki = tmp_path / "wiki"
    code, err = _interrupt(
        tmp_path,
        """
        import wikigen.core.workers as w, wikigen.agents.discovery_cache as shards
        w.PARALLEL_MIN_CHARS = 0                  # worker processes even for a small corpus
        shards.SHARD_DOCS = 4
        shards.ShardCache._write = marking(shards.ShardCache._write, after=2)
        """,
        ["build", str(corpus), "--wiki", str(wiki), "--no-dense", "--quiet", "--workers", "2", "--max-ratio", "9"],
        group=True,
    )
    assert (code, err) == (130, [INTERRUPTED])
    assert not list(wiki.glob("*.md"))  # no session ran
    assert list((wiki / ".wikigen" / "cache" / "discovery").glob("evidence-*")), "the finished shards are kept"
    from wikigen import cli

    with caplog.at_level(logging.INFO, logger="wikigen.agents.catalog_cache"):
        assert cli.main(["build", str(corpus), "--wiki", str(wiki), "--no-dense", "--quiet", "--max-ratio", "9"]) == 0
    stats = next(r.getMessage() for r in caplog.records if r.getMessage().startswith("topic discovery:"))
    cached = int(re.search(r"evidence cached (\d+)", stats).group(1))
    computed = int(re.search(r"evidence computed (\d+)", stats).group(1))
    assert cached >= 8 and cached + computed == 24  # two shards of 4 were kept: those documents are not read again


def test_ctrl_c_during_a_session_keeps_its_pages_and_the_next_build_goes_on(tmp_path, caplog):
    corpus = _corpus(tmp_path, docs=12)
    wiki = tmp_path / "wiki"
    code, err = _interrupt(
        tmp_path,
        "import wikigen.agents.tools as t; t.ToolBox.write_page = marking(t.ToolBox.write_page, after=3)",
        ["build", str(corpus), "--wiki", str(wiki), "--no-dense", "--quiet", "--agents", "2", "--sessions", "1"]
        + ["--max-ratio", "9"],
    )
    assert (code, err) == (130, [INTERRUPTED])
    written = {p.stem for p in wiki.glob("*.md")}
    assert len(written) >= 3
    log_file = wiki / ".wikigen" / "progress.jsonl"
    log = log_file.read_text(encoding="utf-8") if log_file.exists() else ""
    assert "session finished" not in log  # the interrupted session is neither logged nor committed
    from wikigen import cli

    with caplog.at_level(logging.WARNING):
        again = ["build", str(corpus), "--wiki", str(wiki), "--no-dense", "--quiet", "--sessions", "1"]
        assert cli.main([*again, "--max-ratio", "9"]) == 0
    assert not [r for r in caplog.records if "build lock" in r.getMessage()]  # an orderly end, not a dead build
    entries = [json.loads(x) for x in (wiki / ".wikigen" / "progress.jsonl").read_text().splitlines() if x.strip()]
    assert {e["session"] for e in entries if e.get("action") == "session finished"} == {
        1
    }  # the same session, run again
