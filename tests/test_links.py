import re
from pathlib import Path

import pytest
from wiki_helpers import make_index, page, quote_body, quote_of

from wikigen.wiki.links import Resolver, analyze_links, build_graph, page_links, repair_body, repair_links
from wikigen.wiki.page import Page
from wikigen.wiki.store import Wiki

FIXTURES = Path(__file__).parent / "fixtures" / "links"


def load_cases(path: Path) -> list[tuple[str, dict[str, str]]]:
    cases = []
    for chunk in re.split(r"^=== ", path.read_text(encoding="utf-8"), flags=re.M)[1:]:
        name, rest = chunk.split("\n", 1)
        parts = dict(re.findall(r"^--- (\w+)\n(.*?)(?=^--- |\Z)", rest, flags=re.M | re.S))
        cases.append((name.strip(), {k: v.rstrip("\n") for k, v in parts.items()}))
    return cases


CASES = load_cases(FIXTURES / "repair.md")


def pages_of(table: str) -> list[Page]:
    out = []
    for line in table.splitlines():
        slug, title, aliases = (x.strip() for x in line.split("|"))
        out.append(Page(slug, title, "owner", "d", aliases=[a.strip() for a in aliases.split(",") if a.strip()]))
    return out


def test_fixture_file_has_cases():
    assert len(CASES) >= 10


@pytest.mark.parametrize("name, case", CASES, ids=[c[0] for c in CASES])
def test_repair_case(name, case):
    body, entries = repair_body(case["body"], Resolver(pages_of(case["pages"])), "page")
    assert body == case["expected"]
    got = [f"{e.line}: {e.old_target} -> {e.new_target or 'plain text'} ({e.rule})" for e in entries]
    assert got == case["report"].splitlines()
    # repairing again changes nothing: every link now resolves or is gone
    again, more = repair_body(body, Resolver(pages_of(case["pages"])), "page")
    assert (again, more) == (body, [])


def graph_pages() -> list[Page]:
    return [
        Page("a", "A", "o", "d", body="To [[b]] and [[missing]].\n"),
        Page("b", "B", "o", "d", body="Back to [[a]]; self [[b]].\n"),
        Page("c", "C", "o", "d", body="No links, `[[a]]` is code.\n"),
        Page("d", "D", "o", "d", body="Only [[nowhere]] and [[c]].\n"),
    ]


def test_graph_broken_orphans_dead_ends():
    pages = graph_pages()
    g = build_graph(pages)
    assert sorted(g.edges) == [("a", "b"), ("a", "missing"), ("b", "a"), ("d", "c"), ("d", "nowhere")]
    rep = analyze_links(pages)
    assert rep.links == 3  # between two existing pages, each pair once (a-b, b-a, d-c): what every surface counts
    assert [(ln.source, ln.target, ln.line) for ln in rep.broken] == [("a", "missing", 13), ("d", "nowhere", 13)]
    assert rep.orphans == ["d"]  # b's self-link does not count; c is linked from d
    assert rep.dead_ends == ["c"]  # d links to c, so it is not a dead end


def test_page_links_lines_are_file_lines():
    p = Page("a", "A", "o", "d", body="one\n\n- item [[x]]\n  continued [[y]]\n\n| t | u |\n|---|---|\n| [[z]] | v |\n")
    lines = {ln.target: ln.line for ln in page_links(p)}
    text_lines = (p.body).split("\n")
    offset = 12
    for target, line in lines.items():
        assert f"[[{target}]]" in text_lines[line - offset - 1]


def test_repair_links_through_the_store(tmp_path):
    index = make_index(tmp_path)
    wiki = Wiki.create(tmp_path / "wiki", index, max_ratio=10)
    q = quote_of(index, "contracts/acme-msa", "Either party may terminate this Agreement")
    wiki.write(page("acme-msa", owner="alice", title="Acme MSA", body="The contract.\n"), agent="alice", session=1)
    wiki.write(
        page("fees", owner="bob", body="Fees under [[Acme MSA]] and [[Gone]].\n\n" + quote_body(q)),
        agent="bob",
        session=1,
    )
    before = wiki.read("fees")
    report = repair_links(wiki, session=2)
    after = wiki.read("fees")
    assert after.owner == "bob" and after.quotes() == before.quotes()
    assert after.body.startswith("Fees under [[acme-msa|Acme MSA]] and Gone.\n")
    assert report.count == 2 and report.pages_changed == ["fees"] and report.by_rule() == {"slug": 1, "unlinked": 1}
    assert report.lines()[0] == "repaired 2 links in 1 pages: slug 1, unlinked 1"
    assert report.lines()[1] == "fees.md:13: [[Acme MSA]] -> [[acme-msa]] (slug)"
    assert report.lines()[2] == "fees.md:13: [[Gone]] -> plain text (unlinked)"
    assert analyze_links(wiki.pages()).broken == []
    assert repair_links(wiki, session=3).count == 0
