"""Issue 9, item 2: stale sources are noticed by content hash, named by check, and refreshed by a build."""

import os
from pathlib import Path

from test_offline_agent import make_corpus
from wikigen.search.sources import open_wiki

from wikigen.cli import main
from wikigen.wiki.lint import check_wiki
from wikigen.wiki.page import Page, parse_page, render_page


def _build(corpus: Path, wiki: Path, *extra: str) -> int:
    return main(["build", str(corpus), "--wiki", str(wiki), "--agents", "2", "--quiet", *extra])


def _edit_keep_size_and_mtime(path: Path, old: str, new: str) -> None:
    st = path.stat()
    text = path.read_text(encoding="utf-8")
    assert old in text and len(old) == len(new)
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_source_hashes_round_trip_and_old_pages_still_read():
    p = Page("a", "A", "agent-1", "d", body="x\n", source_hashes={"doc/x": "0" * 64})
    assert parse_page(render_page(p)) == p
    old = render_page(Page("b", "B", "agent-1", "d", body="y\n"))
    assert "source_hashes" not in old and parse_page(old).source_hashes == {}


def test_pages_record_the_hash_of_each_source_they_quote(tmp_path):
    corpus = make_corpus(tmp_path, docs=2)
    wiki = tmp_path / "wiki"
    assert _build(corpus, wiki, "--sessions", "1") == 0
    w = open_wiki(wiki)
    shas = {d.doc_id: d.sha256 for d in w.sources.documents()}
    page = w.read("doc-contracts-supply-acme")
    assert page.source_hashes == {"contracts/supply-acme": shas["contracts/supply-acme"][:8]}


def test_edit_with_same_size_and_mtime_is_noticed_by_check_ask_and_rebuilt(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=3)
    wiki = tmp_path / "wiki"
    assert _build(corpus, wiki, "--sessions", "2") == 0
    assert main(["check", str(wiki)]) in (0, 1)
    capsys.readouterr()
    src = corpus / "contracts" / "supply-acme.txt"
    src.read_text(encoding="utf-8")
    quoted = [q.text for p in open_wiki(wiki).pages() for q in p.quotes() if q.doc_id == "contracts/supply-acme"]
    assert quoted
    victim = next(line for q in quoted for line in q.split("\n") if len(line) > 20)  # (a title line is short)
    _edit_keep_size_and_mtime(src, victim, victim[::-1])

    assert main(["check", str(wiki)]) == 1
    out = capsys.readouterr().out
    assert "stale" in out and "contracts/supply-acme" in out
    main(["ask", "pallet rotation", "--wiki", str(wiki)])
    assert "the corpus changed since it was indexed" in capsys.readouterr().err

    _build(corpus, wiki, "--sessions", "1")
    capsys.readouterr()
    report = check_wiki(open_wiki(wiki))
    assert not [p for p in report.problems if p.kind in ("stale", "quote")], report.lines()
    for p in open_wiki(wiki).pages():
        for q in p.quotes():
            assert victim not in q.text


def test_deleted_document_page_is_deprecated_and_archived_never_deleted(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=3, schedule=30)
    wiki = tmp_path / "wiki"
    assert _build(corpus, wiki, "--sessions", "2") == 0
    (corpus / "contracts" / "supply-acme.txt").unlink()
    assert main(["check", str(wiki)]) == 1
    assert "deleted" in capsys.readouterr().out
    assert _build(corpus, wiki, "--sessions", "1") == 0
    err = capsys.readouterr().err
    assert "deprecated" in err
    assert not (wiki / "doc-contracts-supply-acme.md").exists()
    archived = parse_page((wiki / "archive" / "doc-contracts-supply-acme.md").read_text(encoding="utf-8"))
    assert archived.status == "deprecated"
    w = open_wiki(wiki)
    assert all(q.doc_id != "contracts/supply-acme" for p in w.pages() for q in p.quotes())
    assert not [p for p in check_wiki(w).problems if p.kind in ("stale", "quote")]


def test_build_exits_non_zero_while_check_fails(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=2)
    wiki = tmp_path / "wiki"
    assert _build(corpus, wiki, "--sessions", "1") == 0
    (wiki / "notes.md").write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    assert _build(corpus, wiki, "--sessions", "1") == 1
    assert "notes.md" in capsys.readouterr().err
