"""Issue 9, items 1, 3, 4: odd file names, one build per wiki, a stale git index.lock."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_offline_agent import make_corpus
from wikigen.search.corpus import scan_corpus

from wikigen.cli import main
from wikigen.core.errors import BuildLockedError
from wikigen.wiki.buildlock import build_lock

REPO = Path(__file__).resolve().parent.parent


def _build(corpus: Path, wiki: Path, *extra: str) -> int:
    return main(["build", str(corpus), "--wiki", str(wiki), "--agents", "2", "--quiet", *extra])


# --- 1. a newline or CR in a file name --------------------------------------------------------------


@pytest.mark.parametrize("bad", ["bad\nname.txt", "bad\rname.txt", "tab\there.txt", "bell\x07.txt"])
def test_odd_file_name_is_skipped_with_a_reason(tmp_path, bad):
    corpus = make_corpus(tmp_path, docs=2)
    (corpus / bad).write_text("A perfectly ordinary text about pallets and notices.\n", encoding="utf-8")
    scan = scan_corpus(corpus)
    assert all("\n" not in f.doc_id and "\r" not in f.doc_id for f in scan.files)
    skipped = [s for s in scan.skipped if s.path.startswith(bad[:3])]
    assert skipped and "control character" in skipped[0].reason


def test_build_with_a_newline_file_name_finishes_and_writes_every_other_page(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=2)
    (corpus / "bad\nname.txt").write_text("Pallets rotate weekly under this agreement.\n", encoding="utf-8")
    wiki = tmp_path / "wiki"
    assert _build(corpus, wiki, "--sessions", "1") == 0
    assert _build(corpus, wiki, "--sessions", "1") == 0
    err = capsys.readouterr().err
    assert "skipped" in err
    assert (wiki / "doc-contracts-supply-acme.md").is_file() and (wiki / "doc-contracts-services-globex.md").is_file()


def test_one_bad_document_does_not_end_an_offline_session(tmp_path, monkeypatch):
    """A document whose quote cannot be formed is skipped with an error line; the other pages are written."""
    from wikigen.agents import page_bodies

    real = page_bodies.format_quote

    def fussy(q, **kw):
        if "acme" in q.doc_id:
            from wikigen.core.errors import PageError

            raise PageError(f"bad doc id in quote: {q.doc_id!r}")
        return real(q, **kw)

    monkeypatch.setattr(page_bodies, "format_quote", fussy)
    corpus = make_corpus(tmp_path, docs=3)
    wiki = tmp_path / "wiki"
    assert _build(corpus, wiki, "--sessions", "1") == 0
    assert (wiki / "doc-contracts-services-globex.md").is_file()
    assert (wiki / "doc-contracts-supply-initech.md").is_file()


# --- 3. one build per wiki ----------------------------------------------------------------------------


def test_second_build_is_refused_naming_the_pid(tmp_path):
    wiki = tmp_path / "wiki"
    with build_lock(wiki):
        with pytest.raises(BuildLockedError) as e, build_lock(wiki):
            pass
        assert str(os.getpid()) in str(e.value)
    with build_lock(wiki):  # released: taken again
        pass


def test_second_build_process_is_refused_with_exit_code_and_pid(tmp_path):
    corpus = make_corpus(tmp_path, docs=2)
    wiki = tmp_path / "wiki"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom wikigen.wiki.buildlock import build_lock\n"
            f"with build_lock({str(wiki)!r}):\n    print('held', flush=True)\n    time.sleep(30)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "wikigen.cli",
                "build",
                str(corpus),
                "--wiki",
                str(wiki),
                "--quiet",
                "--sessions",
                "1",
            ],
            capture_output=True,
            text=True,
            cwd=REPO,
        )
        assert proc.returncode != 0
        assert f"pid {holder.pid}" in proc.stderr and "Traceback" not in proc.stderr
        assert not list(wiki.glob("*.md"))
    finally:
        holder.kill()
        holder.wait()


def test_stale_lock_of_a_dead_process_is_taken_over(tmp_path):
    wiki = tmp_path / "wiki"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nfrom wikigen.wiki.buildlock import build_lock\n"
            f"with build_lock({str(wiki)!r}):\n    print('held', flush=True)\n    time.sleep(30)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert holder.stdout.readline().strip() == "held"
    holder.kill()
    holder.wait()
    lock = wiki / ".wikigen" / "locks" / "build.lock"
    assert lock.read_text().split()[0] == str(holder.pid)  # the dead pid stays in the file
    with build_lock(wiki) as info:
        assert info.previous_pid == holder.pid
        assert lock.read_text().split()[0] == str(os.getpid())


def test_concurrent_builds_one_runs_one_is_refused(tmp_path):
    corpus = make_corpus(tmp_path, docs=4)
    wiki = tmp_path / "wiki"
    # --no-dense: the lock is what is tested, and embedding (skipped in every in-process build, tests/conftest.py)
    # would load the encoder in both processes
    cmd = [sys.executable, "-m", "wikigen.cli", "build", str(corpus), "--wiki", str(wiki), "--quiet", "--sessions", "2"]
    cmd += ["--no-dense"]
    a = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    b = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    ra, rb = a.communicate(), b.communicate()
    codes = sorted([a.returncode, b.returncode])
    errs = ra[1] + rb[1]
    assert "Traceback" not in errs
    assert codes[0] == 0
    if codes[1] != 0:  # they overlapped: the loser was refused clearly
        assert "another build" in errs
    sessions = [line for line in (ra[0] + rb[0]).splitlines() if line.startswith("session ")]
    names = [s.split(":")[0] for s in sessions]
    assert len(names) == len(set(names)), names  # no session ran twice


# --- 3b. index folders and wikis of another corpus ------------------------------------------------------


def test_index_of_another_corpus_is_not_overwritten_without_force(tmp_path, capsys):
    a = make_corpus(tmp_path / "a", docs=2)
    b = make_corpus(tmp_path / "b", docs=3)
    idx = tmp_path / "idx"
    assert main(["index", str(a), "--index", str(idx)]) == 0
    assert main(["index", str(b), "--index", str(idx)]) != 0
    assert "another corpus" in capsys.readouterr().err
    assert main(["index", str(b), "--index", str(idx), "--force"]) == 0


def test_wiki_of_another_corpus_is_refused_without_force(tmp_path, capsys):
    a = make_corpus(tmp_path / "a", docs=2)
    b = make_corpus(tmp_path / "b", docs=2)
    wiki = tmp_path / "wiki"
    assert _build(a, wiki, "--sessions", "1") == 0
    assert _build(b, wiki, "--sessions", "1") != 0
    assert "another corpus" in capsys.readouterr().err
    assert _build(b, wiki, "--sessions", "1", "--force") in (0, 1)


# --- 4. kill -9 during git leaves .git/index.lock -----------------------------------------------------


def test_stale_git_index_lock_is_recovered(tmp_path, caplog):
    corpus = make_corpus(tmp_path, docs=2)
    wiki = tmp_path / "wiki"
    assert _build(corpus, wiki, "--sessions", "1") == 0
    (wiki / ".git" / "index.lock").write_text("")
    assert _build(corpus, wiki, "--sessions", "1") == 0
    assert not (wiki / ".git" / "index.lock").exists()
    log = subprocess.run(["git", "log", "--format=%s"], cwd=wiki, capture_output=True, text=True).stdout
    assert log.splitlines()[0].startswith("session 2")


def test_a_refusal_names_the_holder_that_has_just_taken_the_lock(tmp_path):
    """The holder writes its pid a moment after taking the lock: a process refused in that moment still names it
    (two `wikigen index` runs started together once got "another process" with no pid to wait for)."""
    import fcntl
    import threading

    from wikigen.core.locks import holder_lock

    path = tmp_path / "x.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # taken, its pid not written yet
    late = threading.Timer(0.1, lambda: os.write(fd, b"4242 host 0\n"))
    late.start()
    try:
        with (
            pytest.raises(RuntimeError, match="held by 4242"),
            holder_lock(path, lambda p: RuntimeError(f"held by {p}")),
        ):
            pass
    finally:
        late.join()
        os.close(fd)
