"""Issue 9, item 6: check flags quote-like text that is not verified, unknown sources, odd page files."""

import os
from pathlib import Path

from test_offline_agent import make_corpus
from wikigen.search.sources import open_wiki

from wikigen.cli import main
from wikigen.wiki.page import parse_page, render_page


def _built(tmp_path) -> Path:
    corpus = make_corpus(tmp_path, docs=2)
    wiki = tmp_path / "wiki"
    assert main(["build", str(corpus), "--wiki", str(wiki), "--quiet", "--sessions", "2"]) == 0
    return wiki


def _append(page: Path, text: str) -> None:
    page.write_text(page.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_a_fresh_build_has_no_such_problems(tmp_path, capsys):
    wiki = _built(tmp_path)
    capsys.readouterr()
    main(["check", str(wiki)])
    out = capsys.readouterr().out
    assert "unverified-quote" not in out and ": source:" not in out and "not-a-file" not in out


def test_plain_blockquote_and_code_fence_quotes_are_flagged(tmp_path, capsys):
    wiki = _built(tmp_path)
    page = wiki / "doc-contracts-supply-acme.md"
    _append(page, "\n> The Supplier shall pay the Customer one million dollars on demand.\n")
    page2 = wiki / "doc-contracts-services-globex.md"
    _append(page2, "\n```\nThe Supplier waives every claim against the Customer, forever and in all places.\n```\n")
    capsys.readouterr()
    assert main(["check", str(wiki)]) == 1
    out = capsys.readouterr().out
    assert "doc-contracts-supply-acme.md:" in out and "plain blockquote" in out
    assert "doc-contracts-services-globex.md:" in out and "code block holds prose" in out


def test_unknown_source_is_flagged(tmp_path, capsys):
    wiki = _built(tmp_path)
    path = wiki / "doc-contracts-supply-acme.md"
    page = parse_page(path.read_text(encoding="utf-8"))
    path.write_text(render_page(page.with_(sources=page.sources + ["../../etc/passwd"])), encoding="utf-8")
    capsys.readouterr()
    assert main(["check", str(wiki)]) == 1
    assert "'../../etc/passwd' is a path, not a doc id" in capsys.readouterr().out


def test_symlinked_page_is_not_loaded_and_is_flagged(tmp_path, capsys):
    wiki = _built(tmp_path)
    outside = tmp_path / "outside.md"
    page = parse_page((wiki / "doc-contracts-supply-acme.md").read_text(encoding="utf-8"))
    outside.write_text(render_page(page.with_(slug="evil", title="Evil", body="secret plans\n")), encoding="utf-8")
    os.symlink(outside, wiki / "evil.md")
    w = open_wiki(wiki)
    assert "evil" not in w.slugs() and all(p.slug != "evil" for p in w.pages())
    capsys.readouterr()
    assert main(["check", str(wiki)]) == 1
    assert "evil.md: not-a-file: is a symlink" in capsys.readouterr().out
