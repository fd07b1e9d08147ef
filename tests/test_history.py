import subprocess

from wiki_helpers import make_index, page

from wikigen.wiki.history import commit_session, diff_commit, rollback_to_session, session_commits
from wikigen.wiki.progress import ProgressLog
from wikigen.wiki.store import Wiki


def git(root, *args):
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def test_one_commit_per_session_diff_and_rollback(tmp_path):
    index = make_index(tmp_path / "elsewhere")
    wiki = Wiki.create(tmp_path / "wiki", index, max_ratio=100)
    (wiki.root / ".wikigen" / "index").mkdir()
    (wiki.root / ".wikigen" / "index" / "seg.bin").write_text("corpus index")
    wiki.write(page("a", body="first\n"), agent="alice", session=1)
    ProgressLog(wiki.root).append(session=1, agent="alice", action="write_page", pages=["a"])
    h1 = commit_session(wiki.root, 1, "alice wrote a")
    assert len(h1) == 40
    tracked = set(git(wiki.root, "ls-files").split())
    assert {"a.md", ".gitignore", ".wikigen/config.json", ".wikigen/progress.jsonl"} <= tracked
    assert not any(t.startswith((".wikigen/locks", ".wikigen/index", ".wikigen/cache")) for t in tracked)

    assert commit_session(wiki.root, 2, "nothing") is None  # no-op when nothing changed
    wiki.write(page("a", body="second\n"), agent="alice", session=2)
    h2 = commit_session(wiki.root, 2, "alice rewrote a")
    assert [s for _, s in session_commits(wiki.root)] == ["session 1: alice wrote a", "session 2: alice rewrote a"]
    assert git(wiki.root, "log", "-1", "--format=%an <%ae>").strip() == "wikigen <wikigen@localhost>"
    assert "-first" in diff_commit(wiki.root, h2) and "+second" in diff_commit(wiki.root, h2)

    wiki.write(page("b", body="new in session 3\n"), agent="alice", session=3)
    ProgressLog(wiki.root).append(session=3, agent="alice", action="write_page", pages=["b"])
    commit_session(wiki.root, 3, "alice wrote b")
    rollback_to_session(wiki.root, 1)
    assert wiki.read("a").body == "first\n" and not wiki.exists("b")
    assert [e["session"] for e in ProgressLog(wiki.root).read().entries] == [1]
    assert git(wiki.root, "log", "-1", "--format=%s").startswith("rollback to session 1")
    assert len(session_commits(wiki.root)) == 4  # history is kept


def test_rollback_refuses_an_unknown_session_and_uncommitted_changes(tmp_path):
    import pytest

    from wikigen.core.errors import WikigenError

    index = make_index(tmp_path / "elsewhere")
    wiki = Wiki.create(tmp_path / "wiki", index, max_ratio=100)
    wiki.write(page("a", body="first\n"), agent="alice", session=1)
    commit_session(wiki.root, 1, "alice wrote a")
    with pytest.raises(WikigenError, match=r"no commit for session 7.*session 1"):
        rollback_to_session(wiki.root, 7)
    (wiki.root / "a.md").write_text((wiki.root / "a.md").read_text() + "a human note\n")
    with pytest.raises(WikigenError, match="not committed"):
        rollback_to_session(wiki.root, 1)
