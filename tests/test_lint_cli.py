import json

import pytest
from wiki_helpers import FakeIndex, make_index, page, quote_body, quote_of
from wikigen.search import sources as sources_mod
from wikigen.search.sources import open_wiki

from wikigen import cli
from wikigen.core.tokens import CharCounter
from wikigen.wiki import lint
from wikigen.wiki.index_page import write_index
from wikigen.wiki.store import Wiki

STATS_KEYS = [
    "pages",
    "links",
    "broken_links",
    "orphans",
    "quotes",
    "quotes_verified",
    "quotes_stale",
    "wiki_chars",
    "generated_chars",
    "corpus_chars",
    "ratio_chars",
    "wiki_tokens",
    "corpus_tokens",
    "ratio_tokens",
    "docs_total",
    "docs_cited",
    "vectors",
    "vectors_unread",
]


@pytest.fixture
def setup(tmp_path, monkeypatch):
    index = make_index(tmp_path)
    fake = type("CorpusIndex", (), {"open": staticmethod(lambda path: FakeIndex(path))})
    monkeypatch.setattr(sources_mod, "CorpusIndex", fake)
    monkeypatch.setattr(lint, "default_counter", CharCounter)
    wiki = Wiki.create(tmp_path / "wiki", index, max_ratio=5.0)
    q = quote_of(index, "contracts/acme-msa", "Either party may terminate this Agreement")
    wiki.write(page("acme", title="Acme MSA", body="See [[fees]].\n\n" + quote_body(q)), agent="alice", session=1)
    wiki.write(page("fees", owner="bob", body="Back to [[acme]].\n", sources=["memos/budget"]), agent="bob", session=1)
    write_index(wiki)
    return wiki, index, q


def test_clean_wiki_passes(setup, capsys):
    wiki, _, _ = setup
    report = lint.check_wiki(open_wiki(wiki.root))
    assert report.ok, report.lines()
    assert cli.main(["check", str(wiki.root)]) == 0
    assert capsys.readouterr().out == "ok: 2 pages, no problems\n"


def test_problems_found(setup, capsys):
    wiki, _index, q = setup
    wiki.write(page("lonely", owner="carol", body="Goes to [[Acme_MSA]] and [[zzz]].\n"), agent="carol", session=2)
    text = (wiki.root / "acme.md").read_text()  # a quote edited by hand, no longer verbatim
    (wiki.root / "acme.md").write_text(text.replace("> Either party may", "> Each party may"))
    (wiki.root / "big.md").write_text(
        (wiki.root / "fees.md")
        .read_text()
        .replace("slug: fees", "slug: big")
        .replace("Back to [[acme]].", "[[lonely]] " + "x" * 25_001)
    )
    assert cli.main(["check", str(wiki.root)]) == 1
    out = capsys.readouterr().out.splitlines()
    problems = [ln for ln in out if not ln.startswith("note: ")]
    assert problems == [
        "lonely.md:13: broken-link: [[Acme_MSA]] has no page; did you mean [[acme]]?",
        "lonely.md:13: broken-link: [[zzz]] has no page; no similar page exists",
        "big.md: orphan: no other page links here; link it from a related page",
        f'acme.md: quote: quote contracts/acme-msa (chars {q.start}-{q.end}) "Each party may terminate this Agreement": '
        "not found verbatim in 'contracts/acme-msa'; copy the text exactly from the document",
        "big.md: oversize: 25,179 characters (limit 25,000); split the page",
        "index.md: index: stale; regenerate the index (write_index)",
        "6 problems in 4 pages (2 broken-link, 1 index, 1 orphan, 1 oversize, 1 quote)",
    ]
    assert "note: 1 dead ends (pages linking nowhere): lonely" in out


def test_stats_json(setup, capsys):
    wiki, index, _ = setup
    assert cli.main(["stats", str(wiki.root), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert list(stats) == STATS_KEYS
    assert stats["pages"] == 2 and stats["links"] == 2 and stats["broken_links"] == 0 and stats["orphans"] == 0
    assert stats["quotes"] == 1 and stats["quotes_verified"] == 1
    assert stats["corpus_chars"] == index.corpus_chars and stats["docs_total"] == 3 and stats["docs_cited"] == 2
    generated = {"index.md", "log.md", "conflicts.md"}  # reported beside the ratio, not in it
    assert stats["wiki_chars"] == sum(len(p.read_text()) for p in wiki.root.glob("*.md") if p.name not in generated)
    assert stats["generated_chars"] == len((wiki.root / "index.md").read_text())
    assert stats["ratio_chars"] == round(stats["wiki_chars"] / index.corpus_chars, 4)
    assert stats["wiki_tokens"] > 0 and stats["ratio_tokens"] > 0


def test_pages_json(setup, capsys):
    wiki, _, q = setup
    assert cli.main(["pages", str(wiki.root), "--json"]) == 0
    pages = json.loads(capsys.readouterr().out)
    assert [p["front_matter"]["slug"] for p in pages] == ["acme", "fees"]
    acme = pages[0]
    assert set(acme) == {"front_matter", "links", "quotes"}
    assert acme["links"] == ["fees"]
    assert acme["quotes"] == [{"doc_id": q.doc_id, "start": q.start, "end": q.end, "text": q.text}]
    assert acme["front_matter"]["owner"] == "alice" and list(acme["front_matter"])[:3] == ["title", "slug", "owner"]


def test_not_a_wiki(tmp_path, capsys):
    assert cli.main(["check", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"Error: {tmp_path} is not a wiki")
    assert f"'wikigen build CORPUS --wiki {tmp_path}'" in err  # an empty folder: a wiki may be built there


def test_a_corpus_folder_checked_as_a_wiki_is_told_to_build_beside_it(tmp_path, capsys):
    corpus = tmp_path / "contracts"
    corpus.mkdir()
    (corpus / "msa.txt").write_text("This Agreement is governed by the laws of Delaware.\n", encoding="utf-8")
    for command in (["check", str(corpus)], ["stats", str(corpus)]):
        assert cli.main(command) == 1
        err = capsys.readouterr().err
        assert f"wikigen build {corpus} --wiki {corpus}-wiki" in err, command
        assert f"--wiki {corpus}'" not in err  # never a build into the documents' folder


def test_malformed_page_reported(setup, capsys):
    wiki, _, _ = setup
    (wiki.root / "broken.md").write_text("no front matter here\n")
    report = lint.check_wiki(open_wiki(wiki.root))
    assert "broken.md: page: page has no front matter: it must start with a '---' line" in report.lines()


def test_oversize_wiki_and_index_limits(setup):
    wiki, index, _ = setup
    Wiki.create(wiki.root, index, max_ratio=0.05)  # re-configure: the wiki is now too large
    (wiki.root / "index-extra.md").write_text("- line\n" * 201)
    lines = lint.check_wiki(open_wiki(wiki.root)).lines()
    assert any(ln.startswith(f"{wiki.root}: size: wiki is larger than allowed: ") for ln in lines)
    assert "index-extra.md: index: 201 lines, 1,407 characters; the limits are 200 lines and 25,000 characters" in lines
    assert "index-extra.md: index: not part of the current index; regenerate the index" in lines


def test_stats_text_ends_with_the_coverage_map(setup, capsys):
    from wikigen.wiki.progress import ProgressLog

    wiki, _, _ = setup
    ProgressLog(wiki.root).append(session=1, agent="alice", action="read", docs=["contracts/acme-msa"])
    assert cli.main(["stats", str(wiki.root)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == "coverage         1 documents read, 2 cited, 1 cited by no page: kr/contract"
