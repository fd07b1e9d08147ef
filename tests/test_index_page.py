import re

import pytest
from wiki_helpers import make_index, page

from wikigen.core.errors import PageError
from wikigen.wiki.index_page import MAX_CHARS, MAX_LINES, build_index, count_lines, fits, write_index
from wikigen.wiki.page import Page
from wikigen.wiki.store import Wiki

LINK = re.compile(r"\[\[([^\]|]+)(?:\|[^\]]*)?\]\]")


def pages_exact(n: int, chars: int) -> list[Page]:
    """n pages of one type whose flat index is exactly `chars` characters long."""
    ps = [Page(f"p{i:03d}", f"P{i}", "o", "d") for i in range(n)]
    deficit = chars - len(build_index(ps, max_lines=10**6, max_chars=10**9)["index"])
    assert 0 <= deficit <= 199 * n
    for _i, p in enumerate(ps):
        add = min(199, deficit)
        p.description = "d" + "x" * add
        deficit -= add
    return ps


def test_exactly_200_lines_and_25000_chars_is_one_file():
    ps = pages_exact(194, MAX_CHARS)
    files = build_index(ps)
    assert list(files) == ["index"]
    text = files["index"]
    assert count_lines(text) == MAX_LINES == 200 and len(text) == MAX_CHARS == 25_000


def test_one_char_more_splits():
    ps = pages_exact(194, MAX_CHARS + 1)
    files = build_index(ps)
    assert len(files) > 1 and all(fits(t) for t in files.values())


def test_one_line_more_splits():
    ps = [Page(f"p{i:03d}", f"P{i}", "o", "d") for i in range(195)]
    flat = build_index(ps, max_lines=10**6)["index"]
    assert count_lines(flat) == 201 and len(flat) < MAX_CHARS
    files = build_index(ps)
    assert len(files) > 1 and all(fits(t) for t in files.values())


def test_fits_boundaries():
    assert fits("x\n" * 200) and not fits("x\n" * 201)
    assert fits("x" * 25_000) and not fits("x" * 25_001)


def test_small_index_grouped_by_type_and_sorted():
    ps = [
        Page("zeta", "Zeta", "o", "Last.", type="entity"),
        Page("alpha", "Alpha", "o", "First.", type="topic"),
        Page("acme", "Acme", "o", "A company.", type="entity"),
    ]
    assert build_index(ps)["index"] == (
        "# Index\n\n3 pages. _Generated from the pages' front matter after each session; do not edit._\n\n"
        "## entity\n\n- [[acme|Acme]] — A company.\n- [[zeta|Zeta]] — Last.\n\n"
        "## topic\n\n- [[alpha|Alpha]] — First.\n"
    )


def reachable(files: dict[str, str]) -> set[str]:
    seen, todo, pages = set(), ["index"], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for target in LINK.findall(files[name]):
            if target in files:
                todo.append(target)
            else:
                pages.add(target)
    assert seen == set(files), "every index file is reachable from index.md"
    return pages


def test_5000_pages_all_reachable_and_within_limits():
    types = ["topic", "entity", "contract", "person", "event"]
    ps = [
        Page(
            f"{chr(97 + (i * 7) % 26)}{i:05d}-page",
            f"Page number {i}",
            "o",
            "A description that is fairly long to make the index large " * 2,
            type=types[i % 5],
        )
        for i in range(5000)
    ]
    files = build_index(ps)
    assert all(fits(t) for t in files.values())
    assert reachable(files) == {p.slug for p in ps}
    assert any(name.startswith("index-topic-") for name in files)  # split by letter below the type section


def test_many_types_top_index_split():
    ps = [Page(f"p{i:05d}", f"P{i}", "o", "x" * 150, type=f"type{i % 400:03d}") for i in range(2000)]
    files = build_index(ps)
    assert all(fits(t) for t in files.values()) and reachable(files) == {p.slug for p in ps}


def test_write_index_removes_stale_sections(tmp_path):
    wiki = Wiki.create(tmp_path / "wiki", make_index(tmp_path), max_ratio=100)
    (wiki.root / "index-old.md").write_text("stale")
    wiki.write(page("a", body="x\n"), agent="alice", session=1)
    paths = write_index(wiki)
    assert [p.name for p in paths] == ["index.md"] and not (wiki.root / "index-old.md").exists()
    assert "[[a|A]]" in (wiki.root / "index.md").read_text()
    with pytest.raises(PageError, match="reserved"):
        wiki.write(page("index", body="x"), agent="alice", session=1)


def test_a_description_that_repeats_the_title_is_left_out():
    from wikigen.wiki.index_page import Entry

    assert Entry("a", "Law", "topic", " law ").line() == "- [[a|Law]]"
    assert (
        Entry("a", "Law", "topic", "Governing law, quoted from 2 documents").line()
        == "- [[a|Law]] — Governing law, quoted from 2 documents"
    )


def test_parts_fit_with_their_part_title():
    """A part is packed to the limit as it is written, " (part N)" in its heading included: for every
    description length, every file fits (the packing once measured the part without that suffix)."""
    for extra in range(40):
        ps = [
            Page(f"doc-{i:03d}", f"Agreement {i}", "o", "d" + "x" * ((i * 7 + extra) % 90), type="document")
            for i in range(120)
        ]
        files = build_index(ps, max_lines=400, max_chars=3000)
        assert len(files) > 2 and all(fits(t, 400, 3000) for t in files.values()), extra
