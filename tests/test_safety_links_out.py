"""Issue 25, item 3: nothing is written, moved or deleted through a symlink that leads out of the wiki (its
pages, archive/, .wikigen state), the export folder or the site folder; `check` reports such links."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from test_consolidate import two_pages  # noqa: F401 (a fixture)
from test_offline_agent import make_corpus

from wikigen.cli import main
from wikigen.core.atomic import atomic_write
from wikigen.wiki.merge import merge_pages

ROOT = Path(__file__).resolve().parent.parent


def _build(corpus: Path, wiki: Path) -> int:
    return main(["build", str(corpus), "--wiki", str(wiki), "--agents", "1", "--sessions", "1", "--quiet"])


def _tree(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def test_a_symlinked_archive_moves_no_page_out_of_the_wiki(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=3)
    wiki, elsewhere = tmp_path / "wiki", tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert _build(corpus, wiki) == 0
    gone = next(p.stem for p in wiki.glob("doc-*initech*.md"))
    (wiki / "archive").symlink_to(elsewhere)
    (corpus / "contracts" / "supply-initech.txt").unlink()
    capsys.readouterr()

    assert _build(corpus, wiki) == 1
    err = capsys.readouterr().err
    assert "archive" in err and "outside" in err and str(elsewhere) in err
    assert _tree(elsewhere) == []  # nothing landed outside
    assert (wiki / f"{gone}.md").is_file()  # and nothing left the wiki

    assert main(["check", str(wiki)]) == 1
    out = capsys.readouterr().out
    assert f"archive: link-out: a symlink to {elsewhere}" in out


def test_the_same_corpus_change_with_a_real_archive_folder_archives_the_page(tmp_path):
    """The control for the test above: the refusal is the link's doing, not the corpus change's."""
    corpus = make_corpus(tmp_path, docs=3)
    wiki = tmp_path / "wiki"
    assert _build(corpus, wiki) == 0
    gone = next(p.stem for p in wiki.glob("doc-*initech*.md"))
    (corpus / "contracts" / "supply-initech.txt").unlink()
    assert _build(corpus, wiki) == 0
    assert (wiki / "archive" / f"{gone}.md").is_file() and not (wiki / f"{gone}.md").exists()


def test_a_merge_into_a_symlinked_archive_is_refused_and_keeps_the_page(two_pages, tmp_path):  # noqa: F811
    from wikigen.core.errors import OutsideRootError

    world = two_pages
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (world.wiki.root / "archive").symlink_to(elsewhere)
    with pytest.raises(OutsideRootError, match="archive"):
        merge_pages(world.wiki, "topic-termination", "topic-ending", agent="agent-1", session=3)
    assert _tree(elsewhere) == []
    assert (world.wiki.root / "topic-ending.md").is_file()


def test_a_symlinked_state_folder_is_refused_before_anything_is_written(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=2)
    wiki, elsewhere = tmp_path / "wiki", tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.chmod(elsewhere, 0o755)
    wiki.mkdir()
    (wiki / ".wikigen").symlink_to(elsewhere)
    assert _build(corpus, wiki) == 1
    assert ".wikigen" in capsys.readouterr().err
    assert _tree(elsewhere) == [] and os.stat(elsewhere).st_mode & 0o777 == 0o755


def test_the_site_writes_nothing_through_a_symlinked_subfolder(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=2)
    wiki, site, elsewhere = tmp_path / "wiki", tmp_path / "site", tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert _build(corpus, wiki) == 0
    assert main(["site", str(wiki), "--out", str(site)]) == 0
    (site / "pages").rename(tmp_path / "old-pages")
    (site / "pages").symlink_to(elsewhere)
    capsys.readouterr()
    assert main(["site", str(wiki), "--out", str(site)]) == 1
    assert "pages" in capsys.readouterr().err
    assert _tree(elsewhere) == []


def test_export_refuses_a_symlinked_file_and_leaves_its_target_alone(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=2)
    wiki, out = tmp_path / "wiki", tmp_path / "memory"
    assert _build(corpus, wiki) == 0
    assert main(["export", "claude-code", str(wiki), str(out)]) == 0
    target = tmp_path / "precious.md"
    target.write_text("mine\n", encoding="utf-8")
    (out / "MEMORY.md").unlink()
    (out / "MEMORY.md").symlink_to(target)
    capsys.readouterr()
    assert main(["export", "claude-code", str(wiki), str(out)]) == 1
    assert "MEMORY.md" in capsys.readouterr().err
    assert target.read_text(encoding="utf-8") == "mine\n" and (out / "MEMORY.md").is_symlink()


# --- the guard itself ---------------------------------------------------------------------------------


def test_links_that_stay_inside_are_followed_and_a_linked_root_is_fine(tmp_path):
    from wikigen.core.errors import OutsideRootError

    real = tmp_path / "real"
    (real / "notes").mkdir(parents=True)
    (real / "alias").symlink_to(real / "notes")
    atomic_write(real / "alias" / "a.md", "x\n", root=real)
    assert (real / "notes" / "a.md").read_text() == "x\n"
    linked = tmp_path / "linked"
    linked.symlink_to(real)
    atomic_write(linked / "b.md", "y\n", root=linked)
    assert (real / "b.md").is_file()
    with pytest.raises(OutsideRootError):
        atomic_write(real / ".." / "escape.md", "z\n", root=real)
    assert not (tmp_path / "escape.md").exists()


def test_state_files_are_kept_to_their_wiki_without_being_told(tmp_path):
    from wikigen.core import confine
    from wikigen.core.errors import OutsideRootError

    wiki, out = tmp_path / "wiki", tmp_path / "out"
    (wiki / ".wikigen").mkdir(parents=True)
    out.mkdir()
    (wiki / ".wikigen" / "cache").symlink_to(out)
    with pytest.raises(OutsideRootError, match="cache"):
        atomic_write(wiki / ".wikigen" / "cache" / "catalog.json", "{}")
    with pytest.raises(OutsideRootError):
        confine.remove(wiki / ".wikigen" / "cache" / "old.json")
    assert _tree(out) == []
    assert confine.links_out(wiki) == [(".wikigen/cache", str(out))]


# Every module that writes under a wiki, an export or a site folder goes through the guard: no bare
# unlink, rmtree, rename, replace or write_text there (atomic_write and wikigen.core.confine check).
GUARDED = [
    *sorted((ROOT / "wikigen" / "wiki").glob("*.py")),
    *sorted((ROOT / "agents").glob("*.py")),
    ROOT / "wikigen" / "export.py",
    ROOT / "wikigen" / "web" / "site.py",
    ROOT / "wikigen" / "ask" / "page_index.py",
]
BARE = {"unlink", "rmtree", "rename", "replace", "write_text", "write_bytes", "remove", "rmdir"}


@pytest.mark.parametrize("path", GUARDED, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_write_bypasses_the_guard(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bare = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in BARE:
            owner = node.func.value
            if isinstance(owner, ast.Name) and owner.id == "confine":
                continue
            if node.func.attr == "replace" and not (isinstance(owner, ast.Name) and owner.id == "os"):
                continue  # str.replace
            if node.func.attr == "remove" and not (isinstance(owner, ast.Name) and owner.id == "os"):
                continue  # list.remove, set.remove
            bare.append(f"line {node.lineno}: .{node.func.attr}(")
    assert bare == []
