"""Every generated table renders with the cells its markdown holds: a [[link|label]] in a cell is one cell (its '|'
written '\\|'), on the sample wiki's provisions pages and through the link rewriters (repair, merge)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from shared_builds import sample_wiki

from wikigen.web.render import Links, markdown_html
from wikigen.wiki.markup import WIKI_RE, body_links, table_row, wikilink
from wikigen.wiki.merge import _relink


class _Tables(HTMLParser):
    """The cell count of each row of each table, and the text outside tags."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[int]] = []  # per table, the cells of each row
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.rows.append([])
        elif tag == "tr":
            self.rows[-1].append(0)
        elif tag in ("td", "th"):
            self.rows[-1][-1] += 1

    def handle_data(self, data):
        self.text.append(data)


def _render(markdown: str, slugs: frozenset[str]) -> _Tables:
    parser = _Tables()
    parser.feed(str(markdown_html(markdown, Links("", slugs, frozenset()))))
    return parser


@pytest.fixture(scope="module")
def wiki(tmp_path_factory):
    return sample_wiki(tmp_path_factory, tmp_path_factory.mktemp("tables") / "wiki", sessions=1)


def test_every_generated_table_renders_one_cell_per_column(wiki):
    pages = sorted(wiki.glob("*.md"))
    slugs = frozenset(p.stem for p in pages)
    tables = 0
    for p in pages:
        rendered = _render(p.read_text(encoding="utf-8"), slugs)
        for rows in rendered.rows:
            tables += 1
            assert all(n == rows[0] for n in rows), f"{p.name}: cells per row {rows}"
        assert "[[" not in "".join(rendered.text), p.name
    assert tables >= 3  # the sample's provisions group tables


def test_the_law_table_keeps_the_venue_in_its_own_column(wiki):
    law = (wiki / "provisions-contract-law.md").read_text(encoding="utf-8")
    header = next(line for line in law.splitlines() if line.startswith("| document"))
    row = next(line for line in law.splitlines() if "msa-brightline-logistics" in line)
    cols = [c.strip() for c in header.strip("|").split(" | ")]
    cells = _render(f"{header}\n|{'---|' * len(cols)}\n{row}\n", frozenset({"doc-contracts-msa-brightline-logistics"}))
    assert cells.rows == [[len(cols), len(cols)]]
    assert "England and Wales" in "".join(cells.text)


def test_a_label_or_value_holding_a_bar_stays_in_its_cell():
    table = "| d | v | w |\n|---|---|---|\n" + table_row([wikilink("doc-a", "A | B Ltd"), "x|y", "plain"]) + "\n"
    rendered = _render(table, frozenset({"doc-a"}))
    assert rendered.rows == [[3, 3]]
    assert "A | B Ltd" in rendered.text and "x|y" in rendered.text
    assert [(link.target, link.label) for link in body_links(table)] == [("doc-a", "A | B Ltd")]


def test_a_link_rewritten_in_a_table_cell_keeps_its_escaped_bar():
    body = "| document | law |\n|---|---|\n" + table_row([wikilink("gone", "Gone Co"), "Delaware"]) + "\n"
    moved = _relink(body, "gone", "kept")
    m = WIKI_RE.search(moved)
    assert m is not None and m.group(1) == "kept" and m.group(2) == "Gone Co"
    assert _render(moved, frozenset({"kept"})).rows == [[2, 2]]
