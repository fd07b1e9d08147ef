"""Issue 9, item 5: edits made outside a build are committed as a human commit first and kept."""

import subprocess
from pathlib import Path

from test_offline_agent import make_corpus

from wikigen.cli import main
from wikigen.wiki.page import parse_page, render_page


def _build(corpus: Path, wiki: Path, *extra: str) -> int:
    return main(["build", str(corpus), "--wiki", str(wiki), "--agents", "2", "--quiet", *extra])


def _git(wiki: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=wiki, capture_output=True, text=True, check=True).stdout


def test_reviewer_note_survives_the_next_build_and_is_in_history(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=3)
    wiki = tmp_path / "wiki"
    assert _build(corpus, wiki, "--sessions", "1") == 0
    path = wiki / "doc-contracts-supply-acme.md"
    note = "\n## Reviewer note\n\nChecked against the signed copy on 2024-05-02.\n"
    path.write_text(path.read_text(encoding="utf-8") + note, encoding="utf-8")
    # a 3-document corpus of 7,600 characters, where log.md alone is a quarter of the corpus: the size
    # limit is raised so that the test is about the note, not about which agent logs which line
    assert _build(corpus, wiki, "--sessions", "2", "--max-ratio", "1.5") == 0
    err = capsys.readouterr().err
    assert "kept human edits to 1 pages" in err
    text = path.read_text(encoding="utf-8")
    assert "Checked against the signed copy on 2024-05-02." in text
    assert parse_page(text).owner == "human"
    log = _git(wiki, "log", "--format=%an|%s")
    human = [line for line in log.splitlines() if line.startswith("human|human edits")]
    assert human and "doc-contracts-supply-acme" in human[0]
    shown = _git(
        wiki,
        "show",
        "--format=",
        next(ln for ln in _git(wiki, "log", "--format=%H %an").splitlines() if ln.endswith(" human")).split()[0],
    )
    assert "Reviewer note" in shown
    assert main(["check", str(wiki)]) in (0, 1)
    assert "owner" not in capsys.readouterr().out


def test_owner_changed_to_a_stranger_is_reported_by_check(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=2)
    wiki = tmp_path / "wiki"
    assert _build(corpus, wiki, "--sessions", "1") == 0
    path = wiki / "doc-contracts-supply-acme.md"
    page = parse_page(path.read_text(encoding="utf-8"))
    path.write_text(render_page(page.with_(owner="mallory")), encoding="utf-8")
    capsys.readouterr()
    assert main(["check", str(wiki)]) == 1
    out = capsys.readouterr().out
    assert "owner 'mallory' is not an agent of this wiki" in out


def test_interrupted_build_work_is_not_taken_for_a_human_edit(tmp_path):
    """Pages a killed build wrote (stamped with a session that never committed) stay agent-owned."""
    corpus = make_corpus(tmp_path, docs=2)
    wiki = tmp_path / "wiki"
    assert _build(corpus, wiki, "--sessions", "1") == 0
    path = wiki / "doc-contracts-supply-acme.md"
    page = parse_page(path.read_text(encoding="utf-8"))
    path.write_text(render_page(page.with_(updated_session=2, body=page.body + "\nMore.\n")), encoding="utf-8")
    assert _build(corpus, wiki, "--sessions", "1") == 0
    assert parse_page(path.read_text(encoding="utf-8")).owner.startswith("agent-")
    assert "human" not in _git(wiki, "log", "--format=%an")
