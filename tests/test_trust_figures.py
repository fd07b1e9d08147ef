"""Issue 25, item 11: one definition of each figure. After a fresh build, `stats`, MCP `stats`, the web view's
home page and its growth table (the last session's row) show the same pages, links, quotes, documents cited
and wiki size; and the build passes its own `check`."""

from __future__ import annotations

import html
import json
import re
import threading
import urllib.request

import pytest
from shared_builds import sample_wiki
from test_trust_keepout import _mcp_calls

from wikigen.cli import main


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return sample_wiki(tmp_path_factory, tmp_path_factory.mktemp("figures") / "wiki", sessions=2)


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=120) as r:
        return r.read().decode("utf-8")


def _num(s: str) -> int:
    return int(s.replace(",", ""))


def test_a_fresh_build_passes_its_own_check(built, capsys):
    capsys.readouterr()
    assert main(["check", str(built)]) == 0, capsys.readouterr().out


def test_stats_mcp_the_home_page_and_the_growth_table_show_the_same_figures(built, capsys):
    from wikigen.web.server import make_server

    assert main(["stats", str(built), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    (mcp,) = _mcp_calls(built, [("stats", {})])
    server = make_server(built, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        home = _get(base + "index.html")
        growth = _get(base + "growth.html")
    finally:
        server.shutdown()
        server.server_close()
    shown = {m.group(2): _num(m.group(1)) for m in re.finditer(r"<li><b>([\d,]+)</b> (\w+)", home)}
    cited = _num(re.search(r"</b> documents, <b>([\d,]+)</b> cited", home).group(1))
    rows = re.findall(r'<tr data-session="\d+">(.*?)</tr>', growth, re.S)
    cells = [html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", rows[-1])]
    last = {
        "wiki_chars": _num(cells[1]),
        "wiki_tokens": _num(cells[4]),
        "pages": _num(cells[7]),
        "quotes": _num(cells[8]),
        "docs_cited": _num(cells[10].split(" of ")[0]),
    }
    figures = ("pages", "links", "quotes", "docs_cited", "wiki_chars", "wiki_tokens")
    assert {k: mcp[k] for k in figures} == {k: stats[k] for k in figures}
    assert (shown["pages"], shown["links"], shown["quotes"], cited) == (
        stats["pages"],
        stats["links"],
        stats["quotes"],
        stats["docs_cited"],
    )
    assert last == {k: stats[k] for k in last}
