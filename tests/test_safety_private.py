"""Issue 25, item 7: private by default. Under umask 022 everything that holds corpus text (the index's
tantivy segments, texts and manifest, the wiki's state and caches, the page index an `ask` makes, the
wiki's git objects) is 0600 / 0700; the pages follow the umask (a wiki is meant to be read)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from test_offline_agent import make_corpus

from wikigen.cli import main


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def readable_by_others(folder: Path) -> list[str]:
    """Every file or folder under `folder` (itself included) with a group or other permission bit."""
    out = []
    for p in [folder, *folder.rglob("*")]:
        if p.is_symlink():
            continue
        if stat.S_IMODE(p.stat().st_mode) & 0o077:
            out.append(f"{oct(stat.S_IMODE(p.stat().st_mode))} {p.relative_to(folder.parent)}")
    return out


def test_a_standalone_index_is_private(tmp_path, umask_022):
    corpus = make_corpus(tmp_path, docs=3)
    index = tmp_path / "idx"
    assert main(["index", str(corpus), "--index", str(index), "--no-dense"]) == 0
    (corpus / "contracts" / "supply-acme.txt").write_text("Pallets are counted monthly.\n", encoding="utf-8")
    assert main(["index", str(corpus), "--index", str(index), "--no-dense"]) == 0  # a second commit's files too
    assert readable_by_others(index) == []
    assert any((index / "tantivy").iterdir()) and (index / "manifest.json").is_file()


def test_an_index_in_an_existing_folder_keeps_that_folders_mode(tmp_path, umask_022):
    corpus = make_corpus(tmp_path, docs=2)
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o755)
    assert main(["index", str(corpus), "--index", str(shared), "--no-dense"]) == 0
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755  # the user's folder is left as it was
    assert readable_by_others(shared) == ["0o755 shared"]  # and everything wikigen put in it is private


def test_a_wiki_keeps_its_state_and_history_private_and_its_pages_readable(tmp_path, umask_022, capsys):
    corpus = make_corpus(tmp_path, docs=3)
    wiki = tmp_path / "wiki"
    args = ["build", str(corpus), "--wiki", str(wiki), "--agents", "2", "--sessions", "2", "--quiet"]
    assert main(args) == 0
    assert main(["ask", "How often are pallets rotated?", "--wiki", str(wiki)]) == 0
    capsys.readouterr()
    assert (wiki / ".wikigen" / "page-index").is_dir()
    assert readable_by_others(wiki / ".wikigen") == []
    assert readable_by_others(wiki / ".git") == []
    pages = sorted(wiki.glob("*.md"))
    assert pages and all(stat.S_IMODE(p.stat().st_mode) == 0o644 for p in pages)


def test_an_old_wiki_with_readable_history_is_made_private_by_its_next_build(tmp_path, umask_022):
    corpus = make_corpus(tmp_path, docs=2)
    wiki = tmp_path / "wiki"
    args = ["build", str(corpus), "--wiki", str(wiki), "--agents", "1", "--sessions", "1", "--quiet"]
    assert main(args) == 0
    for p in [wiki / ".git", *(wiki / ".git").rglob("*")]:  # as a wiki made before this policy was
        if not p.is_symlink():
            os.chmod(p, 0o755 if p.is_dir() else 0o644)
    os.system(f"git -C {wiki} config --unset core.sharedRepository")
    assert main(args) == 0
    assert readable_by_others(wiki / ".git") == []
