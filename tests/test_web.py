"""The web view without a browser: rendering and escaping, per-session growth figures (summary entries, git
fallback), the static site's files and safety checks, and the live server over real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from dataclasses import replace

import pytest
from web_helpers import HOSTILE, MAX_RATIO, build_web_wiki

from wikigen.cli import main
from wikigen.core.errors import WikigenError
from wikigen.web.growth import growth_chart, session_rows
from wikigen.web.layout import graph_positions
from wikigen.web.model import SiteData
from wikigen.web.render import Links, answer_html, body_html, markdown_html, snippet_html, source_key
from wikigen.web.server import make_server
from wikigen.web.site import MARKER, write_site
from wikigen.web.views import STATIC_FILES, Views
from wikigen.wiki.markup import Quote


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    return build_web_wiki(tmp_path_factory.mktemp("web"))


@pytest.fixture(scope="module")
def data(web):
    return SiteData.load(web.root)


@pytest.fixture(scope="module")
def live(web):
    server = make_server(web.root, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    thread.join(5)


def _get(url: str) -> tuple[int, dict, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, dict(r.headers), r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode("utf-8")


# --- rendering -------------------------------------------------------------------------------------

LINKS = Links("../", frozenset({"a-page", "b-page"}), frozenset({"docs/a"}), {"a-page": "A", "b-page": "The <B> page"})


def test_body_escapes_html_and_renders_links_and_quotes():
    q = Quote("docs/a", 3, 20, "<script>x()</script>")
    body = (
        "Text <b>bold</b> [[a-page|A page]] [[missing]] [[b-page]] [x](javascript:alert(1))\n\n"
        + "> [!quote] docs/a (chars 3-20)\n> <script>x()</script>\n\nAfter.\n"
    )
    html, warning = body_html(body, LINKS, lambda quote: quote == q)
    assert warning is None
    assert "<script>" not in html and "<b>" not in html and 'href="javascript:' not in html
    assert "&lt;script&gt;x()&lt;/script&gt;" in html and "Text &lt;b&gt;bold&lt;/b&gt;" in html
    assert '<a class="wikilink" href="../pages/a-page.html" title="a-page">A page</a>' in html
    assert '<a class="wikilink" href="../pages/b-page.html" title="b-page">The &lt;B&gt; page</a>' in html
    assert '<span class="wikilink broken" title="no such page">missing</span>' in html
    assert 'href="../sources/' + source_key("docs/a") + '.html#chars=3-20"' in html
    assert '<span class="badge verified"' in html and "<p>After.</p>" in html


def test_callouts_render_and_comment_markers_are_hidden():
    body = (
        "<!-- wikigen:amendments -->\n## Current terms\n\n> [!note] superseded by [[a-page]] (2025)\n"
        "> the old text\n\n> [!WARNING]- <b>check</b>\n\n> plain quote\n\n```\n<!-- kept in code -->\n```\n"
        "<!-- /wikigen:amendments -->\n"
    )
    html, warning = body_html(body, LINKS, lambda q: None)
    assert warning is None and "wikigen:amendments" not in html
    assert (
        '<aside class="callout callout-note">\n<p class="callout-title"><span class="callout-label">Note</span> '
        'superseded by <a class="wikilink" href="../pages/a-page.html" title="a-page">A</a> (2025)</p>\n'
        "<p>the old text</p></aside>"
    ) in html
    assert '<aside class="callout callout-warning">' in html and "&lt;b&gt;check&lt;/b&gt;" in html
    assert "<blockquote>\n<p>plain quote</p>\n</blockquote>" in html  # a blockquote without [!type] stays one
    assert "&lt;!-- kept in code --&gt;" in html


def test_a_labelled_link_in_a_table_row_is_one_link_in_one_cell():
    """The provisions pages list each document as | [[slug\\|title]] | ... (markup.table_row escapes the link's "|",
    as Obsidian writes it): one link in one cell, with a stale badge when its source changed."""
    text = "| document | law |\n|---|---|\n| [[a-page\\|A <x> page]] | New York |\n| [[missing\\|Gone]] | — |\n"
    html = markdown_html(text, replace(LINKS, stale={"a-page": "its source changed"}))
    rows = re.findall(r"<tr>\n(.*?)</tr>", html, re.S)
    assert rows[1] == (
        '<td><a class="wikilink" href="../pages/a-page.html" title="a-page">A &lt;x&gt; page</a> '
        '<span class="badge stale" title="its source changed">stale</span></td>\n<td>New York</td>\n'
    )
    assert rows[2] == '<td><span class="wikilink broken" title="no such page">Gone</span></td>\n<td>—</td>\n'


def test_answer_citations_link_their_spans():
    spans = [{"doc_id": "docs/a", "start": s, "end": e} for s, e in ((3, 20), (40, 60), (60, 80))]
    answer = (
        'Found in 1 document:\n- docs/a: "first" -- (chars 3-20)\n- again: "x" -- docs/a (chars 40-60)\n'
        "- not the answer's: (chars 1-2) <script>x()</script>\n"
        '- A TITLE: yes — "y" (docs/a, chars 60-80)\n- another document\'s: (docs/b, chars 60-80)'
    )
    html = answer_html(answer, spans, LINKS)
    src = "../sources/" + source_key("docs/a") + ".html"
    assert f'<a href="{src}#chars=3-20">(chars 3-20)</a>' in html
    assert f'<a href="{src}#chars=40-60">docs/a (chars 40-60)</a>' in html
    assert "(chars 1-2)" in html and "#chars=1-2" not in html  # only the answer's own spans are linked
    assert f'<a href="{src}#chars=60-80">(docs/a, chars 60-80)</a>' in html  # the provisions table's citation
    assert "(docs/b, chars 60-80)" in html and html.count("#chars=60-80") == 1  # the span is docs/a's, not b's
    assert "<li>" in html and "<script>" not in html


def test_graph_positions_are_deterministic_and_spread():
    nodes = [f"n{i}" for i in range(400)] + ["alone"]
    edges = [(f"n{i}", f"n{(i * 7 + 3) % 400}") for i in range(400)] + [(f"n{i}", "n0") for i in range(1, 400, 3)]
    a = graph_positions(nodes, edges, max_anchors=50)
    assert a == graph_positions(list(nodes), list(edges), max_anchors=50)  # the same picture every time
    assert set(a) == set(nodes) and all(abs(x) < 1e6 and abs(y) < 1e6 for x, y in a.values())
    assert len(set(a.values())) == len(nodes)  # no two pages on the same spot


def test_graph_positions_put_each_kind_in_a_cluster_of_its_own():
    """Documents sit around the most specific kind they are in (not the kind every one is in), the topics
    linking documents of every kind do not pull them apart, and no two kinds' clusters overlap."""
    kinds = {f"kind-{k}": [f"doc-{k}-{i:02d}" for i in range(12 + 9 * k)] for k in range(5)}
    docs = [d for members in kinds.values() for d in members]
    edges = [(d, k) for k, members in kinds.items() for d in members] + [(d, "kind-all") for d in docs]
    edges += [(f"topic-{t}", d) for t in range(8) for d in docs[t::5]]
    nodes = sorted({u for e in edges for u in e}) + ["alone"]
    hubs = {n: 1 if n.startswith("topic-") else 0 for n in nodes if not n.startswith("doc-")}
    pos = graph_positions(nodes, edges, hubs=hubs)
    assert pos == graph_positions(nodes, list(edges), hubs=dict(hubs))

    def dist(a: str, b: str) -> float:
        return ((pos[a][0] - pos[b][0]) ** 2 + (pos[a][1] - pos[b][1]) ** 2) ** 0.5

    reach = {k: max(dist(k, d) for d in members) for k, members in kinds.items()}
    for k, members in kinds.items():
        for other in kinds:
            if other != k:
                assert dist(k, other) > reach[k] + reach[other], (k, other)  # two discs apart
                assert all(dist(d, k) < dist(d, other) for d in members)
    assert len(set(pos.values())) == len(nodes)


def test_malformed_quote_is_shown_with_a_warning_not_lost():
    html, warning = body_html("> [!quote] docs/a chars 1-2\n> text\n", LINKS, lambda q: None)
    assert warning and "malformed quote header" in warning and "text" in html


def test_source_keys_are_distinct_file_names():
    ids = ["contracts/acme-msa", "contracts-acme/msa", "ko/계약", "ko/합의", "a" * 200]
    keys = [source_key(d) for d in ids]
    assert len(set(keys)) == len(keys)
    assert all(k.replace("-", "").isalnum() and k == k.lower() and len(k) <= 69 for k in keys)
    assert source_key("ko/계약").startswith("ko-계약-")  # readable in any script (wikigen.core.slugs)


def test_snippet_bold_markers_only():
    assert snippet_html("a **<i>b</i>** c") == "a <b>&lt;i&gt;b&lt;/i&gt;</b> c"
    assert snippet_html("odd ** marker") == "odd ** marker"


# --- growth -----------------------------------------------------------------------------------------


def test_session_rows_from_summaries(data, web):
    rows = data.sessions
    assert [r.session for r in rows] == [1, 2] and {r.source for r in rows} == {"summary"}
    assert all(r.missing == [] for r in rows)
    assert rows[1].pages >= rows[0].pages > 0 and rows[1].docs_total == 9
    for row, line in zip(rows, web.lines):  # the summary entry holds what the build printed
        assert (row.pages, row.quotes, row.links_repaired) == (line.pages, line.quotes, line.links_repaired)
        assert max(row.ratio_chars, row.ratio_tokens) == pytest.approx(line.ratio)
    assert 0 < rows[0].ratio_chars < MAX_RATIO and rows[0].corpus_chars == data.sources.corpus_chars
    chart = growth_chart(rows, data.max_ratio, data.warn_fraction)
    assert [len(s.points) for s in chart.series] == [2, 2]  # characters, tokens: one point per session
    limit, warn = chart.hlines
    assert limit[3] == MAX_RATIO and warn[3] == pytest.approx(0.8 * MAX_RATIO)
    assert chart.top <= limit[2] < warn[2] < chart.bottom


def test_session_rows_fall_back_to_git_then_log():
    entries = [
        {"session": 1, "agent": "agent-1", "action": "wrote", "pages": ["a", "b"]},
        {"session": 2, "agent": "agent-1", "action": "wrote", "pages": ["c"]},
        {"session": 3, "agent": "agent-1", "action": "wrote", "pages": ["d"]},
        {
            "session": 3,
            "agent": "system",
            "action": "session summary",
            "wiki_chars": 50,
            "wiki_tokens": 10,
            "corpus_chars": 100,
            "corpus_tokens": 40,
            "n_pages": 4,
            "quotes": 7,
            "links_repaired": 1,
            "docs_cited": 2,
            "docs_total": 3,
        },
    ]
    commits = [("h1", "session 1: 2 pages, 5 quotes, 0 links repaired, ratio 0.31, 0 tokens, 0.1 s")]
    rows = session_rows(entries, commits)
    assert [(r.session, r.source) for r in rows] == [(1, "git"), (2, "log"), (3, "summary")]
    assert (rows[0].pages, rows[0].quotes, rows[0].ratio, rows[0].wiki_chars) == (2, 5, 0.31, None)
    assert rows[1].pages_written == 1 and "wiki_chars" in rows[1].missing and "pages" in rows[1].missing
    assert rows[2].ratio_chars == 0.5 and rows[2].ratio_tokens == 0.25 and rows[2].missing == []
    names = [s.css for s in growth_chart(rows, 1.0, 0.8).series]
    assert names == ["chars", "tokens", "history"]


# --- the static site --------------------------------------------------------------------------------


def test_site_writes_every_page_and_static_file(web, data, tmp_path):
    summary = write_site(web.root, tmp_path / "site", data=data)
    out = summary.out
    assert (out / MARKER).is_file()
    for slug in data.pages:
        assert (out / "pages" / f"{slug}.html").is_file()
    assert (out / "pages" / "index.html").is_file() and (out / "pages" / "log.html").is_file()
    assert len(list((out / "sources").glob("*.html"))) == len(data.docs) == 9
    assert sorted(p.name for p in (out / "static").iterdir()) == sorted(STATIC_FILES)
    assert (out / "static" / "cytoscape.min.js").stat().st_size > 100_000
    search = (out / "search.html").read_text(encoding="utf-8")
    index = json.loads(search.split('id="search-data">', 1)[1].split("</script>", 1)[0])
    assert {p["slug"] for p in index} == set(data.pages)
    assert "wikigen serve" in (out / "ask.html").read_text(encoding="utf-8")
    for path in out.rglob("*.html"):
        assert HOSTILE not in path.read_text(encoding="utf-8"), path  # never unescaped, anywhere


def test_site_refuses_unsafe_folders(web, tmp_path):
    with pytest.raises(WikigenError, match="inside the wiki folder"):
        write_site(web.root, web.root / "site")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "thesis.docx").write_text("mine")
    with pytest.raises(WikigenError, match="holds other files"):
        write_site(web.root, busy)
    assert (busy / "thesis.docx").read_text() == "mine"


def test_site_rewrite_drops_stale_pages(web, data, tmp_path):
    out = tmp_path / "site"
    write_site(web.root, out, data=data)
    (out / "pages" / "gone.html").write_text("stale")
    write_site(web.root, out, data=data)
    assert not (out / "pages" / "gone.html").exists()


def test_cli_site_prints_how_to_open(web, tmp_path, capsys):
    assert main(["site", str(web.root), "--out", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("wrote ") and (tmp_path / "s" / "index.html").resolve().as_uri() in out
    assert main(["site", str(tmp_path / "nowiki"), "--out", str(tmp_path / "t")]) == 1
    assert "is not a wiki" in capsys.readouterr().err


def test_views_paths_all_render(data):
    views = Views(data, live=False)
    for path in views.paths():
        assert views.render(path) is not None, path
    assert views.render("pages/nope.html") is None and views.render("sources/nope.html") is None


# --- the live server --------------------------------------------------------------------------------


def test_serve_pages_static_and_404(live, data):
    status, headers, html = _get(live)
    assert status == 200 and "text/html" in headers["Content-Type"]
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    status, _, html = _get(live + "pages/web-test-quotes.html")
    assert status == 200 and "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in html and HOSTILE not in html
    status, headers, js = _get(live + "static/cytoscape.min.js")
    assert status == 200 and "javascript" in headers["Content-Type"] and len(js) > 100_000
    for bad in ("static/../model.py", "static/%2e%2e/model.py", "pages/../../etc/passwd", "nothing.html"):
        assert _get(live + bad)[0] == 404, bad


def test_serve_refuses_other_host_names(live):
    req = urllib.request.Request(live, headers={"Host": "attacker.example:80"})
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=30)
    assert e.value.code == 403
    req = urllib.request.Request(live, headers={"Host": "localhost"})
    assert urllib.request.urlopen(req, timeout=30).status == 200


def test_a_wiki_whose_corpus_index_is_gone_still_renders(web, tmp_path):
    copy = tmp_path / "wiki"
    shutil.copytree(web.root, copy)
    shutil.rmtree(copy / ".wikigen" / "index")
    data = SiteData.load(copy)
    assert data.sources is None and data.sources_error and data.docs == {}
    out = write_site(copy, tmp_path / "site", data=data).out
    page = (out / "pages" / "web-test-quotes.html").read_text(encoding="utf-8")
    assert 'class="quote-source missing"' in page and 'class="badge unknown"' in page
    assert "corpus index could not be opened" in (out / "index.html").read_text(encoding="utf-8")
    assert "coverage is unknown" in (out / "growth.html").read_text(encoding="utf-8")


def test_a_page_that_does_not_parse_is_reported_not_fatal(web, tmp_path):
    copy = tmp_path / "wiki"
    shutil.copytree(web.root, copy)
    (copy / "broken-page.md").write_text("no front matter here\n", encoding="utf-8")
    out = write_site(copy, tmp_path / "site").out
    home = (out / "index.html").read_text(encoding="utf-8")
    assert "1 page file(s) could not be read" in home and "broken-page.md: page has no front matter" in home
    assert not (out / "pages" / "broken-page.html").exists()


def test_serve_search_pages_and_corpus(live):
    status, _, html = _get(live + "search.html?q=" + urllib.request.quote("registered post"))
    assert status == 200
    pages, corpus = html.split('id="page-results"', 1)[1].split('id="corpus-results"', 1)
    assert "web-test-quotes.html" in pages
    assert "notes/crlf (chars " in corpus and "<b>registered post</b>" in corpus
    status, _, html = _get(live + "search.html?q=" + urllib.request.quote("해지"))
    assert status == 200 and "ko/계약 (chars " in html


def test_serve_ask_shows_answer_with_quotes(web, live):
    """The page answers as `wikigen ask` does (the provisions table's answer here, each contract by its title) and
    links each quote of the answer to its span; the context's passages name their documents by title too."""
    from wikigen.ask.retrieval import Answerer

    question = "Which agreements renew automatically?"
    expected = Answerer.open(web.root).ask(question)
    q = urllib.request.quote(question)
    status, _, html = _get(live + f"ask.html?q={q}&mode=wiki%2Bsearch")
    assert status == 200 and 'id="answer"' in html
    data = json.loads(html.split('id="answer-data">', 1)[1].split("</script>", 1)[0])
    assert data["answer"] == expected.answer and data["answer_spans"] == expected.answer_spans
    shown = html.split('<div class="answer markdown">', 1)[1].split("</div>", 1)[0]
    assert expected.answer_spans and "<li>SERVICES AGREEMENT: " in shown and "<li>contracts/" not in shown
    for sp in expected.answer_spans:  # "(DOC_ID, chars START-END)", the table's citations, link their spans
        href = f"sources/{source_key(sp['doc_id'])}.html#chars={sp['start']}-{sp['end']}"
        assert f'<a href="{href}">({sp["doc_id"]}, chars {sp["start"]}-{sp["end"]})</a>' in shown
    assert html.count('class="quote-source"') >= 1 and "#chars=" in html
    assert re.search(
        r'"ctx-head">passage <span class="doc-title">(SERVICES|SUPPLY) AGREEMENT [^<]*</span> contracts/', html
    )
    status, _, html = _get(live + f"ask.html?q={q}&mode=bogus")
    assert status == 200 and "unknown mode" in html
    assert 'id="scope"' not in _get(live + f"ask.html?q={q}&mode=wiki%2Bsearch")[2]  # no document named


def test_serve_ask_says_which_documents_the_question_named(live):
    q = urllib.request.quote("Which law governs the services agreement with Globex?")
    status, _, html = _get(live + f"ask.html?q={q}&mode=wiki%2Bsearch")
    assert status == 200 and 'id="scope"' in html, html[:3000]
    scope = html.split('id="scope"', 1)[1].split("</p>", 1)[0]
    assert "named 1 document: " in scope and 'href="pages/doc-contracts-services-globex.html"' in scope


def test_serve_sees_a_changed_wiki(web, live):
    page = web.root / "web-test-quotes.md"
    text = page.read_text(encoding="utf-8")
    try:
        page.write_text(text.replace("Raw HTML in a page", "Changed while serving; raw HTML"), encoding="utf-8")
        assert "Changed while serving" in _get(live + "pages/web-test-quotes.html")[2]
    finally:
        page.write_text(text, encoding="utf-8")


def test_the_live_view_reads_the_wiki_again_when_its_values_table_changes(web, tmp_path):
    """A build may rewrite the values table (the home page's provisions columns) and no page: the live view
    (and the MCP tools, through the same fingerprint) read the wiki again."""
    from wikigen.web.server import LiveSite
    from wikigen.wiki.provisions import Table, write_table

    copy = tmp_path / "wiki"
    shutil.copytree(web.root, copy)
    site = LiveSite(copy)
    first = site.views()
    assert site.views() is first  # nothing changed: the same read
    write_table(copy, Table({}, {}))
    assert site.views() is not first


def test_serve_refuses_a_taken_port(web):
    server = make_server(web.root, 0)
    try:
        with pytest.raises(WikigenError, match="choose another --port"):
            make_server(web.root, server.server_address[1])
    finally:
        server.server_close()


def test_cli_serve_prints_its_address_and_stops_on_ctrl_c(web):
    proc = subprocess.Popen(
        [sys.executable, "-m", "wikigen.cli", "serve", str(web.root), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        m = re.fullmatch(rf"serving {re.escape(str(web.root))} at (http://127\.0\.0\.1:\d+/) \(Ctrl\+C stops\)\n", line)
        assert m, (line, proc.stderr.read() if proc.poll() is not None else "")
        status, _, html = _get(m.group(1) + "growth.html")
        assert status == 200 and 'id="growth-chart"' in html
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 0


def test_the_documents_table_and_the_provisions_pages_show_a_possible_cell_as_such(web, tmp_path):
    """A possible cell (a clause that may state the field, no value claimed) is a "possible" link to its clause in
    the home page's documents table, never sorted among the values, with the note saying what it means; the
    provisions page's row marks it "possible" under the legend that says so."""
    from wikigen.search.sources import open_wiki

    from wikigen.web.render import source_key
    from wikigen.wiki.provisions import NOT_STATED, POSSIBLE, read_table, write_pages, write_table

    copy = tmp_path / "wiki"
    shutil.copytree(web.root, copy)
    table = read_table(copy)
    doc = "contracts/supply-acme"
    assert table.cell(doc, "termination_for_convenience")["status"] in (
        NOT_STATED,
        POSSIBLE,
    )  # a breach clause: not for convenience
    text = open_wiki(copy).sources.texts.text(doc)
    s = text.index("Either party may terminate this Agreement by written notice")
    e = text.index("notice of the breach.", s) + len("notice of the breach.")
    cells = table.documents[doc]["cells"]
    cells["termination_for_convenience"] = {
        "field": "termination_for_convenience",
        "status": POSSIBLE,
        "display": "",
        "type": "presence",
        "parts": {"score": 0.41},
        "quote": [s, e],
        "text": text[s:e],
    }
    write_table(copy, table)
    write_pages(copy, table)
    views = Views(SiteData.load(copy), live=False)
    home = views.render("index.html")
    row = home.split(f'<tr data-doc="{doc}"', 1)[1].split("</tr>", 1)[0]
    href = f"sources/{source_key(doc)}.html#chars={s}-{e}"
    link = f'<a class="cell-source possible" title="not sure; check the clause" href="{href}">possible</a></td>'
    assert re.search(r'<td class="c-value[^"]*" data-sort="">' + re.escape(link), row)  # sorted with the empty ones
    assert (
        "possible where a clause that may state it is quoted but no value is claimed: not sure; check the clause"
        in home
    )
    risk = views.render("pages/provisions-contract-risk.html")
    assert "possible: a clause that may state it is quoted on the document's page, no value claimed" in risk
    line = risk.split('href="../pages/doc-contracts-supply-acme.html"', 1)[1].split("</tr>", 1)[0]
    assert re.findall(r"<td>([^<]*)</td>", line)[0] == "possible"  # the first field's column: termination
