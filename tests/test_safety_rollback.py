"""Issue 25, item 10: `wikigen rollback` after an `ask`, after an earlier rollback, with a stale git lock,
and while a build runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_offline_agent import make_corpus

from wikigen.cli import main

REPO = Path(__file__).resolve().parent.parent


def _git(wiki: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=wiki, capture_output=True, text=True, check=True).stdout


def _sessions(wiki: Path) -> list[str]:
    return [s.split(":", 1)[0] for s in _git(wiki, "log", "--reverse", "--format=%s").splitlines()]


@pytest.fixture
def built(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=3)
    wiki = tmp_path / "wiki"
    args = ["build", str(corpus), "--wiki", str(wiki), "--agents", "2", "--sessions", "3", "--quiet"]
    assert main(args) == 0
    capsys.readouterr()
    return corpus, wiki


def test_rollback_after_an_ask(built, capsys):
    _, wiki = built
    assert main(["ask", "How often are pallets rotated?", "--wiki", str(wiki)]) == 0
    capsys.readouterr()
    assert main(["rollback", str(wiki), "--session", "1"]) == 0, capsys.readouterr().err
    assert _git(wiki, "status", "--porcelain") == ""


def test_session_numbers_never_repeat_after_a_rollback(built, capsys):
    corpus, wiki = built
    session2 = _git(wiki, "log", "--format=%H %s").splitlines()
    session2 = next(line.split()[0] for line in session2 if line.split(" ", 1)[1].startswith("session 2:"))
    assert main(["rollback", str(wiki), "--session", "1"]) == 0
    assert main(["build", str(corpus), "--wiki", str(wiki), "--agents", "2", "--sessions", "1", "--quiet"]) == 0
    numbered = [s for s in _sessions(wiki) if s.startswith("session ")]
    assert numbered == ["session 1", "session 2", "session 3", "session 4"]
    assert main(["rollback", str(wiki), "--session", "2"]) == 0  # the session 2 that was, unambiguous
    assert _git(wiki, "diff", "--stat", session2, "HEAD") == ""


def test_a_session_committed_twice_is_an_ambiguity_rollback_refuses(built, capsys):
    """A wiki rolled back before sessions were numbered this way holds two commits named "session 2"."""
    _, wiki = built
    _git(wiki, "-c", "user.name=w", "-c", "user.email=w@h", "commit", "-q", "--allow-empty", "-m", "session 2: again")
    assert main(["rollback", str(wiki), "--session", "2"]) == 1
    err = capsys.readouterr().err
    assert "session 2 names 2 commits" in err and "git -C" in err


def test_rollback_recovers_a_stale_git_lock(built, capsys):
    _, wiki = built
    (wiki / ".git" / "index.lock").write_text("")  # a git killed mid-commit
    assert main(["rollback", str(wiki), "--session", "1"]) == 0, capsys.readouterr().err
    assert not (wiki / ".git" / "index.lock").exists()


def test_rollback_waits_for_no_build_it_is_refused_while_one_runs(built, capsys):
    _, wiki = built
    head = _git(wiki, "rev-parse", "HEAD")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom wikigen.wiki.buildlock import build_lock\n"
            "with build_lock(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(60)\n",
            str(wiki),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert main(["rollback", str(wiki), "--session", "1"]) == 3
        assert f"pid {holder.pid}" in capsys.readouterr().err
        assert _git(wiki, "rev-parse", "HEAD") == head
    finally:
        holder.kill()
        holder.wait()


def test_a_failed_rollback_leaves_no_lock_for_the_next_command_to_report(built, capsys, caplog):
    """A rollback refused inside the build lock (no such session) ends in order: the lock file keeps no pid,
    so the next command does not report a build that is gone."""
    _, wiki = built
    lock = wiki / ".wikigen" / "locks" / "build.lock"
    assert main(["rollback", str(wiki), "--session", "9"]) == 1
    assert "no commit for session 9" in capsys.readouterr().err
    assert lock.read_text() == ""
    with caplog.at_level("WARNING"):
        assert main(["rollback", str(wiki), "--session", "1"]) == 0
    assert "build that is gone" not in caplog.text
    assert _git(wiki, "log", "-1", "--format=%s").startswith("rollback to session 1 (")
