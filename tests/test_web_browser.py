"""The web view in a real browser: headless Chromium (Debian's package, /usr/bin/chromium) driven by
Playwright, against both the static site (file:// URLs) and `wikigen serve` (a real server on 127.0.0.1).

Checked with screenshots and the DOM: the graph has a node per page and is not blank, and its type filter,
search and neighbourhood work at 1,000+ pages; on the sample wiki and a 600-page one the graph's labels never
overlap, enough of them are drawn, and a page's neighbourhood (#focus=SLUG) shows that page and its
neighbours only, each labelled; a quote's link opens the source view with exactly the quote's
text highlighted; the home page's documents table sorts and filters; an answer is rendered markdown whose
citations open their spans; callouts are callouts and comment markers are not shown, on every page of the
test wiki (the cuad-dev wiki's pages: tests/test_cuad_wiki.py); the growth chart has one point per session; a hostile <script> in a
document, a quote, a page body or a search is shown and never run.
"""

from __future__ import annotations

import re
import shutil
import threading
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from shared_builds import sample_wiki
from web_helpers import HOSTILE, add_documents, add_many_pages, build_web_wiki

from wikigen.web.model import SiteData
from wikigen.web.screenshots import CHROMIUM, CHROMIUM_ARGS
from wikigen.web.server import make_server
from wikigen.web.site import write_site


def _wait_until(page, expression: str, timeout: float = 30.0) -> None:
    """Wait until a JavaScript expression is truthy in the page. Playwright's wait_for_function compiles its
    predicate with eval in the page when it has to poll, which the pages' Content-Security-Policy refuses
    (script-src 'self'); page.evaluate runs through the devtools protocol, which the policy does not govern."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for: {expression}")
        time.sleep(0.05)


pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"the browser tests need Debian's chromium at {CHROMIUM} (apt-get install -y chromium; .ci/run installs it)",
)
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="the browser tests need playwright (pip install -e '.[test]')"
)
Image = pytest.importorskip("PIL.Image", reason="the screenshot checks need Pillow (pip install -e '.[test]')")

BLUE = (47, 126, 216)  # document nodes and the characters series (wikigen.css --doc)
HIGHLIGHT = (255, 224, 102)  # the source view's <mark>


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    return build_web_wiki(tmp_path_factory.mktemp("webb"))


@pytest.fixture(scope="module")
def data(web):
    return SiteData.load(web.root)


@pytest.fixture(scope="module")
def site_url(web, data, tmp_path_factory):
    out = write_site(web.root, tmp_path_factory.mktemp("site") / "site", data=data).out
    return out.resolve().as_uri() + "/"


@pytest.fixture(scope="module")
def live_url(web):
    server = make_server(web.root, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    thread.join(5)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(params=["static", "live"])
def base(request):
    return request.getfixturevalue("site_url" if request.param == "static" else "live_url")


@pytest.fixture()
def page(browser, base):
    ctx = browser.new_context(viewport={"width": 1100, "height": 800})
    ctx.set_default_timeout(10_000)
    pg = ctx.new_page()
    pg.js_errors, pg.requests = [], []
    pg.on("pageerror", lambda e: pg.js_errors.append(str(e)))
    pg.on("request", lambda r: pg.requests.append(r.url))
    yield pg
    try:
        assert pg.js_errors == [], pg.js_errors
        outside = [u for u in pg.requests if not u.startswith(base)]
        assert outside == [], f"requests outside the site (a CDN?): {outside}"
    finally:
        ctx.close()


def _pixels(path: Path, rgb: tuple[int, int, int], tol: int = 12) -> tuple[int, int]:
    """(pixels within tol of rgb, distinct colours) of a screenshot."""
    img = Image.open(path).convert("RGB")
    near = sum(n for n, c in img.getcolors(img.width * img.height) if all(abs(a - b) <= tol for a, b in zip(c, rgb)))
    return near, len(img.getcolors(img.width * img.height))


def _pwned(page) -> list[str]:
    return page.evaluate("['__pwned', '__pwned2', '__pwned3'].map(k => typeof window[k])")


def test_graph_has_a_node_per_page_and_is_drawn(page, base, data, tmp_path):
    page.goto(base + "graph.html")
    _wait_until(page, "window.wikigenGraph && window.wikigenGraph.nodes().length > 0")
    cy = page.evaluate("[window.wikigenGraph.nodes().length, window.wikigenGraph.edges().length]")
    assert cy == [len(data.pages), len(data.graph()["edges"])] and cy[1] > 0
    assert page.locator("#graph canvas").count() >= 1
    shot = tmp_path / "graph.png"
    page.locator("#graph").screenshot(path=str(shot))
    blue, colours = _pixels(shot, BLUE)
    assert blue > 200 and colours > 20, (blue, colours)  # document nodes drawn, not a blank canvas
    page.evaluate("void window.wikigenGraph.getElementById('web-test-quotes').emit('tap')")  # a click shows its links
    assert "Quotes <b>for</b> the web test (topic)" in page.locator("#graph-status").inner_text()
    with page.expect_navigation(url="**/pages/web-test-quotes.html"):  # the link it shows opens the page
        page.click("#graph-open")


def test_quote_links_highlight_their_span(page, base, web, tmp_path):
    for i, q in enumerate(web.quotes):  # hostile text, CRLF after an emoji, Korean
        page.goto(base + f"pages/{web.page_slug}.html")
        page.locator("figure.quote a.quote-source").nth(i).click()
        mark = page.wait_for_selector("mark#highlight")
        assert mark.text_content() == q.text
        assert page.url.endswith(f"#chars={q.start}-{q.end}")
        box = mark.bounding_box()
        assert box is not None and 0 <= box["y"] < 800  # scrolled into view
        shot = tmp_path / f"quote{i}.png"
        page.screenshot(path=str(shot))
        assert _pixels(shot, HIGHLIGHT, tol=20)[0] > 300  # the highlight is on screen
        assert _pwned(page) == ["undefined"] * 3


def test_every_quote_of_the_wiki_highlights_exactly(page, base, data):
    links = data.links("")
    quotes = [q for qs in data.quotes_by_doc.values() for _, q in qs]
    assert len(quotes) >= 10
    for q in quotes:
        page.goto(base + links.source(q.doc_id, q.start, q.end))
        assert page.wait_for_selector("mark#highlight").text_content() == q.text, q


def test_growth_chart_has_one_point_per_session(page, base, web, tmp_path):
    page.goto(base + "growth.html")
    for series in ("chars", "tokens"):
        sessions = page.locator(f"#growth-chart circle.point-{series}").evaluate_all(
            "els => els.map(e => e.getAttribute('data-session'))"
        )
        assert sessions == [str(s) for s in range(1, web.sessions + 1)]
    assert page.locator("#growth-chart .hline.limit").count() == 1
    assert page.locator("#growth-chart .hline.warn").count() == 1
    assert page.locator("#sessions tbody tr").count() == web.sessions
    shot = tmp_path / "growth.png"
    page.locator("#growth-chart").screenshot(path=str(shot))
    assert _pixels(shot, BLUE, tol=20)[0] > 100  # the characters line and its points are drawn
    assert page.locator("#coverage-map a.cell").count() == 9


def test_hostile_script_is_shown_never_run(page, base, web, data):
    page.goto(base + f"pages/{web.page_slug}.html")
    assert _pwned(page) == ["undefined"] * 3
    assert page.locator("figure.quote blockquote").first.inner_text().startswith(HOSTILE)
    body = page.locator("article").inner_text()
    assert "<script>window.__pwned2=1</script>" in body and 'onerror="window.__pwned3=1"' in body
    assert page.locator("h1").inner_text() == "Quotes <b>for</b> the web test"
    page.goto(base + data.links("").source("notes/hostile"))
    assert HOSTILE in page.locator("#doc-text").inner_text() and _pwned(page) == ["undefined"] * 3
    page.goto(base + "search.html?q=" + "pwned%20script")
    page.wait_for_selector("#page-results li")
    assert _pwned(page) == ["undefined"] * 3


def test_search_and_ask(page, base):
    page.goto(base + "index.html")
    page.fill("header .searchbox input", "registered post")
    page.press("header .searchbox input", "Enter")
    page.wait_for_selector("#page-results li a")
    assert "web-test-quotes.html" in " ".join(
        page.locator("#page-results li a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    )
    page.goto(base + "search.html?q=" + "%ED%95%B4%EC%A7%80")  # 해지: Korean, inside a longer word
    page.wait_for_selector("#page-results li a")
    assert page.locator("#page-results a[href='pages/web-test-quotes.html']").count() == 1
    page.goto(base + "ask.html")
    if base.startswith("file:"):
        assert "wikigen serve" in page.locator("#ask-static").inner_text()
        assert page.locator("#corpus-results").count() == 0
        return
    page.fill("#q", "Which agreements are governed by the laws of England and Wales?")
    page.click("form.bigsearch button[type=submit]")
    page.wait_for_selector("#answer")
    link = page.locator("#context a.quote-source").first
    shown = link.locator("xpath=ancestor::figure").locator("blockquote").inner_text()
    link.click()
    mark = page.wait_for_selector("mark#highlight")
    assert " ".join(mark.text_content().split()) == " ".join(shown.split())


def _visible_rows(page) -> list[list[str]]:
    return page.locator("#documents tbody tr:not([hidden])").evaluate_all(
        "rows => rows.map(r => Array.from(r.cells).map(c => c.getAttribute('data-sort')))"
    )


def test_home_table_sorts_and_filters(page, base, data):
    page.goto(base + "index.html")
    rows = _visible_rows(page)
    assert len(rows) == len(data.rows) == 9
    assert [r[0] for r in rows] == sorted((r[0] for r in rows), key=str.casefold)  # by title at first
    page.click("#documents th:nth-child(3) button")  # Date: oldest first, documents without one last
    dates = [r[2] for r in _visible_rows(page)]
    known = [d for d in dates if d]
    assert known == sorted(known) and len(known) >= 6 and dates[: len(known)] == known
    assert page.locator("#documents th:nth-child(3)").get_attribute("aria-sort") == "ascending"
    page.click("#documents th:nth-child(3) button")  # again: newest first
    assert [r[2] for r in _visible_rows(page) if r[2]] == sorted(known, reverse=True)
    page.fill("#doc-filter", "globex")  # a party's name, any case
    shown = _visible_rows(page)
    assert len(shown) == 1 and "globex" in shown[0][1]
    assert page.locator("#doc-count").inner_text() == f"1 of {len(data.rows)} documents"
    page.fill("#doc-filter", "")
    kind = next(r.kind for r in data.rows if sum(x.kind == r.kind for x in data.rows) >= 2)
    page.select_option("#kind-filter", kind)
    assert len(_visible_rows(page)) == sum(r.kind == kind for r in data.rows)
    page.select_option("#kind-filter", "")
    page.fill("#doc-filter", "공급")  # Korean filters too: the title 공급 계약
    assert len(_visible_rows(page)) == 1
    href = page.locator("#documents tbody tr:not([hidden]) td.c-title a").get_attribute("href")
    page.click("#documents tbody tr:not([hidden]) td.c-title a")
    assert unquote(page.url).endswith(href) and page.locator("h1").inner_text() == "공급 계약"


def test_home_table_shows_the_provisions_columns(page, base, data):
    """The provisions table's values are columns of the home table, the fullest first; the others are shown from
    "Columns"; a value links to its quote's span, highlighted."""
    extra = data.extra_columns()
    assert "Governing law" in extra and len(extra) > 4  # the web corpus's contracts state it
    page.goto(base + "index.html")
    heads = page.locator("#documents thead th:visible").all_inner_texts()
    assert [h.strip(" \u25b2\u25bc") for h in heads] == ["Document", "Parties", "Date", "Kind", *extra[:4]]
    hidden = extra[4]
    page.click("#columns summary")
    page.check(f"#columns input[data-col='{4 + 4}']")
    assert hidden in page.locator("#documents thead th:visible").all_inner_texts()
    cells = page.locator("#documents tbody tr td:nth-child(9):visible")
    assert cells.count() == len(data.rows)
    page.uncheck("#columns input[data-col='4']")
    assert extra[0] not in page.locator("#documents thead th:visible").all_inner_texts()
    page.check("#columns input[data-col='4']")
    col = 5 + extra.index("Governing law")
    if extra.index("Governing law") >= 4:
        page.check(f"#columns input[data-col='{col - 1}']")
    row = next(r for r in data.rows if "Governing law" in r.extra)
    cell = row.extra["Governing law"]
    link = page.locator(f"#documents tr[data-doc='{row.doc_id}'] td:nth-child({col}) a")
    assert link.inner_text() == cell.value
    link.click()
    mark = page.wait_for_selector("mark#highlight")
    assert mark.text_content() == data.text(row.doc_id)[cell.start : cell.end]
    assert "England" in mark.text_content()  # the clause that states it


def test_ask_answer_is_markdown_and_its_citations_open_their_spans(browser, live_url, data):
    ctx = browser.new_context(viewport={"width": 1100, "height": 800})
    ctx.set_default_timeout(60_000)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(live_url + "ask.html?q=Which+agreements+renew+automatically%3F")
        answer = page.locator("#answer .answer")
        assert answer.locator("li").count() >= 2  # the answer's list is a list, not a grey block of markdown
        assert "\n- " not in answer.inner_text() and page.locator("#answer pre").count() == 0
        cites = answer.locator("a[href*='#chars=']")
        assert cites.count() >= 2
        href = cites.first.get_attribute("href")
        m = re.search(r"sources/([^#]+)\.html#chars=(\d+)-(\d+)$", href)
        doc = data.doc_by_key(m.group(1))
        start, end = int(m.group(2)), int(m.group(3))
        cites.first.click()
        mark = page.wait_for_selector("mark#highlight")
        assert mark.text_content() == data.text(doc.doc_id)[start:end].replace("\r\n", "\n")
        page.go_back()
        assert page.locator("#context figure.quote").count() >= 2  # the context below the answer
        assert errors == []
    finally:
        ctx.close()


@pytest.fixture(scope="module")
def big_site(web, tmp_path_factory):
    """The test wiki plus 1,100 generated pages, as a static site: a graph of 1,100+ nodes."""
    root = tmp_path_factory.mktemp("big") / "wiki"
    shutil.copytree(web.root, root, symlinks=True)
    add_many_pages(root, 1100)
    data = SiteData.load(root)
    out = write_site(root, tmp_path_factory.mktemp("bigsite") / "site", data=data).out
    return out.resolve().as_uri() + "/", data


def test_graph_filters_at_a_thousand_pages(browser, big_site, tmp_path):
    base, data = big_site
    graph = data.graph()
    n = len(graph["nodes"])
    types = {}
    for node in graph["nodes"]:
        types[node["type"]] = types.get(node["type"], 0) + 1
    assert n > 1000 and types["figure"] >= 100
    ctx = browser.new_context(viewport={"width": 1200, "height": 820})
    ctx.set_default_timeout(60_000)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(base + "graph.html")
        _wait_until(page, "window.wikigenGraph && window.wikigenGraph.nodes().length > 0")
        shown = "window.wikigenGraph.nodes().filter(x => x.visible()).length"
        assert page.evaluate(shown) == n
        assert page.locator("#graph-status").inner_text().startswith(f"{n} of {n} pages shown")
        page.uncheck("#type-filter input[value=topic]")
        assert page.evaluate(shown) == n - types["topic"]
        page.uncheck("#type-filter input[value=document]")
        assert page.evaluate(shown) == n - types["topic"] - types["document"]
        assert page.locator("#graph-status").inner_text().startswith(f"{n - types['topic'] - types['document']} of")
        shot = tmp_path / "big-graph.png"
        page.locator("#graph").screenshot(path=str(shot))
        assert _pixels(shot, (192, 80, 138), tol=20)[0] > 200  # the figure pages are drawn
        page.check("#type-filter input[value=topic]")
        page.check("#type-filter input[value=document]")
        page.fill("#graph-search", "Generated topic 0500")  # find a page, and only its neighbourhood
        page.press("#graph-search", "Enter")
        page.select_option("#graph-depth", "1")
        near = page.evaluate(
            "window.wikigenGraph.getElementById('topic-generated-0500').closedNeighborhood().nodes().length"
        )
        assert page.evaluate(shown) == near == 1 + 3 + 2 + 2  # three documents, two topics before, two after
        labels = page.evaluate(
            "window.wikigenGraph.nodes().filter(x => x.visible()).map(x => x.style('label')).filter(l => l)"
        )
        assert len(labels) == near  # every page of a neighbourhood is labelled
        page.click("#graph-reset")
        assert page.evaluate(shown) == n
        assert errors == []
    finally:
        ctx.close()


# every drawn label's box on screen, as cytoscape measures it: [id, x1, y1, x2, y2] of each shown page with a label
LABEL_BOXES = """() => window.wikigenGraph.nodes().filter(x => x.visible() && x.style('label') && +x.style('opacity') > 0.5)
  .map(x => { const b = x.renderedBoundingBox({includeNodes: false, includeEdges: false, includeLabels: true});
              return [x.id(), b.x1, b.y1, b.x2, b.y2]; })"""


# a shown page without a label, well inside the graph's box and the window: [id, x, y] in the window, or null
UNLABELLED_ON_SCREEN = """() => { const cy = window.wikigenGraph, box = cy.container().getBoundingClientRect();
  const x = cy.nodes().filter(n => n.visible() && !n.style('label')).filter(n => { const p = n.renderedPosition();
    return p.x > 20 && p.y > 20 && p.x < cy.width() - 20 && p.y < cy.height() - 20 &&
      box.top + p.y < window.innerHeight - 20; })[0];
  if (!x) { return null; }
  const p = x.renderedPosition();
  return [x.id(), box.left + p.x, box.top + p.y]; }"""


# the labels are placed for the view's zoom (a graph page that does not say so is taken as placed)
PLACED = """window.wikigenGraph && (d => d.zoom === undefined || d.zoom === window.wikigenGraph.zoom().toFixed(4))
  (document.getElementById('graph').dataset)"""
# [pages whose middle is on screen, their labels' font sizes on screen]
ON_SCREEN = """(cy => { const on = cy.nodes().filter(x => { const p = x.renderedPosition();
    return x.visible() && p.x >= 0 && p.y >= 0 && p.x <= cy.width() && p.y <= cy.height(); });
  return [on.length, on.filter(x => x.style('label')).map(x => parseFloat(x.style('font-size')) * cy.zoom())]; })
  (window.wikigenGraph)"""


def _settled_graph(browser, url: str, shot: Path, zoom: float = 0.0) -> dict:
    """The graph page at url once it is drawn and its labels are placed for its zoom, its screenshot at shot.
    Returns labels (every label box), shown (the pages shown), errors (the page's), hover ([the pages labelled
    while the pointer is on an unlabelled one, then once it has left the graph], or None when every page on
    screen has a label) and, with zoom, zoomed: [ON_SCREEN, then ON_SCREEN and the label boxes once the view
    is zoomed by that factor about its middle]."""
    ctx = browser.new_context(viewport={"width": 1100, "height": 800})
    ctx.set_default_timeout(60_000)
    page = ctx.new_page()
    out: dict = {"errors": [], "hover": None, "zoomed": []}
    page.on("pageerror", lambda e: out["errors"].append(str(e)))
    hovering = "window.wikigenGraph.nodes('.hover').map(x => [x.id(), x.style('label')])"
    try:
        page.goto(url)
        _wait_until(page, "window.wikigenGraph && window.wikigenGraph.nodes().length > 0")
        _wait_until(page, PLACED)
        page.locator("#graph").screenshot(path=str(shot))
        out["labels"] = page.evaluate(LABEL_BOXES)
        out["shown"] = set(page.evaluate("window.wikigenGraph.nodes().filter(x => x.visible()).map(x => x.id())"))
        unlabelled = page.evaluate(UNLABELLED_ON_SCREEN)
        if unlabelled:
            page.mouse.move(unlabelled[1], unlabelled[2])
            out["hover"] = [page.evaluate(hovering)]
            page.mouse.move(1, 1)
            out["hover"].append(page.evaluate(hovering))
        if zoom:
            out["zoomed"].append(page.evaluate(ON_SCREEN))
            page.evaluate(
                f"(cy => cy.zoom({{level: cy.zoom() * {zoom}, renderedPosition: {{x: cy.width() / 2, y: cy.height() / 2}}}}))"
                "(window.wikigenGraph)"
            )
            _wait_until(page, PLACED)
            out["zoomed"] += [page.evaluate(ON_SCREEN), page.evaluate(LABEL_BOXES)]
            page.locator("#graph").screenshot(path=str(shot.with_name("zoomed-" + shot.name)))
        return out
    finally:
        ctx.close()


def _overlapping(labels: list) -> list[tuple[str, str]]:
    return [
        (a[0], b[0])
        for i, a in enumerate(labels)
        for b in labels[i + 1 :]
        if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]
    ]


@pytest.fixture(scope="module")
def acme_site(tmp_path_factory):
    """The sample corpus's wiki (corpora/acme, about 60 pages) as a static site."""
    root = sample_wiki(tmp_path_factory, tmp_path_factory.mktemp("acme-graph") / "wiki", sessions=2)
    data = SiteData.load(root)
    out = write_site(root, tmp_path_factory.mktemp("acme-site") / "site", data=data).out
    return out.resolve().as_uri() + "/", data


@pytest.fixture(scope="module")
def six_hundred_site(tmp_path_factory):
    """The sample wiki plus 500 generated documents in eight kinds and forty topics: a graph of about 600."""
    root = sample_wiki(tmp_path_factory, tmp_path_factory.mktemp("six-hundred") / "wiki", sessions=2)
    add_documents(root, 500)
    data = SiteData.load(root)
    out = write_site(root, tmp_path_factory.mktemp("six-hundred-site") / "site", data=data).out
    return out.resolve().as_uri() + "/", data


@pytest.mark.parametrize(("site", "size", "least"), [("acme_site", 55, 10), ("six_hundred_site", 550, 20)])
def test_graph_labels_fit_without_overlap_and_a_focus_shows_the_neighbourhood(
    browser, request, tmp_path, site, size, least
):
    base, data = request.getfixturevalue(site)
    graph = data.graph()
    assert len(graph["nodes"]) >= size
    seen = _settled_graph(browser, base + "graph.html", tmp_path / "graph.png", zoom=3.0)
    labels = seen["labels"]
    assert seen["errors"] == []
    assert len(seen["shown"]) == len(graph["nodes"])
    assert _overlapping(labels) == []  # no label drawn over another
    assert len(labels) >= least, len(labels)
    kinds = sorted((n for n in graph["nodes"] if n["type"] == "collection"), key=lambda n: -n["deg"])[:5]
    named = {lab[0] for lab in labels}
    assert kinds and all(k["id"] in named for k in kinds), (kinds, named)  # the clusters are named
    assert seen["hover"] is not None  # some pages go without a label; pointed at, one shows it, until it leaves
    hovered, left = seen["hover"]
    assert hovered and all(label for _, label in hovered) and left == [], seen["hover"]
    # zoomed in, labels keep their size on screen and still never overlap, and more of the pages shown have one
    (pages, sizes), (zoomed_pages, zoomed_sizes), zoomed_labels = seen["zoomed"]
    assert _overlapping(zoomed_labels) == []
    assert all(abs(size - sizes[0]) < 0.5 for size in sizes + zoomed_sizes), (sizes, zoomed_sizes)
    assert len(zoomed_sizes) / zoomed_pages > len(sizes) / pages, (len(sizes), pages, len(zoomed_sizes), zoomed_pages)
    # a document's neighbourhood, as its page links it: that page and its neighbours only, every one labelled
    near: dict[str, set[str]] = {}
    for e in graph["edges"]:
        near.setdefault(e["source"], set()).add(e["target"])
        near.setdefault(e["target"], set()).add(e["source"])
    doc = max((n for n in graph["nodes"] if n["type"] == "document"), key=lambda n: (n["deg"], n["id"]))["id"]
    seen = _settled_graph(browser, base + f"graph.html#focus={quote(doc)}", tmp_path / "focus.png")
    assert seen["errors"] == []
    assert seen["shown"] == near[doc] | {doc}
    assert _overlapping(seen["labels"]) == []
    assert {lab[0] for lab in seen["labels"]} == seen["shown"]


_UNRENDERED = re.compile(r"<!--|-->|\[![a-z]+\]", re.I)


_TABLE_CELLS = "() => [...document.querySelectorAll('main table')].map(t => [...t.rows].map(r => r.cells.length))"


def _pages_render_markup(page, site: str, slugs: list[str]) -> tuple[int, int]:
    """Open every page; none shows a comment marker, a callout's [!type] or a wiki link's "[[" as text, and every
    row of every table has as many cells as its header (a link's "|" in a cell split none). Returns the callouts
    and the tables seen."""
    callouts = tables = 0
    for slug in slugs:
        page.goto(site + f"pages/{slug}.html")
        text = page.locator("main").inner_text()
        found = _UNRENDERED.search(text)
        assert found is None, (slug, found and found.group(0))
        assert "[[" not in text, slug
        for rows in page.evaluate(_TABLE_CELLS):
            assert all(n == rows[0] for n in rows), (slug, rows)
            tables += 1
        callouts += page.locator("aside.callout").count()
    return callouts, tables


def test_callouts_render_and_comments_do_not_show(page, base, data, web):
    callouts, tables = _pages_render_markup(page, base, list(data.pages) + list(data.generated))
    assert callouts >= 2
    assert tables >= 3  # the provisions table and its groups' pages render with one cell per column
    page.goto(base + f"pages/{web.page_slug}.html")
    note = page.locator("aside.callout-note")
    assert note.locator(".callout-label").inner_text().lower() == "note"
    assert note.locator(".callout-title a.wikilink").get_attribute("href") == "../pages/doc-notes-hostile.html"
    assert note.locator("em").inner_text() == "emphasis"
    assert page.locator("aside.callout-warning").count() == 1


class _MainText(HTMLParser):
    """The text of a page's <main> as the HTML holds it (comments are not text; scripts and styles are left out)."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # inside <main> while > 0
        self.skip = 0  # inside <script> or <style>
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "main" or self.depth:
            self.depth += tag not in VOID
        self.skip += tag in ("script", "style") and self.depth > 0

    def handle_endtag(self, tag):
        if self.depth and tag not in VOID:
            self.depth -= 1
        if tag in ("script", "style") and self.skip:
            self.skip -= 1

    def handle_data(self, data):
        if self.depth and not self.skip:
            self.parts.append(data)


VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
BROWSER_SAMPLE = 24  # pages of the cuad-dev wiki opened in the browser: those whose markdown holds the markers first


def _main_text(html: str) -> str:
    parser = _MainText()
    parser.feed(html)
    return "".join(parser.parts)


def test_the_html_reading_of_a_page_finds_what_the_browser_would_show():
    """The reading the cuad-dev test relies on: a marker left as text is found; a real comment is not text."""
    html = "<html><body><nav>[!x]</nav><main><p>a <!-- hidden --> b</p><script>var s='[!note]'</script></main></body></html>"
    assert _UNRENDERED.search(_main_text(html)) is None
    assert _main_text(html).split() == ["a", "b"]
    shown = "<main><blockquote><p>[!warning] careful</p></blockquote><p>&lt;!-- left --&gt;</p></main>"
    assert _UNRENDERED.findall(_main_text(shown)) == ["[!warning]", "<!--", "-->"]


def test_print_shows_the_content_without_navigation(page, base, web):
    page.goto(base + f"pages/{web.page_slug}.html")
    assert not page.locator("#provenance dl").is_visible()  # folded on screen
    page.emulate_media(media="print")
    assert page.evaluate("getComputedStyle(document.querySelector('header.top')).display") == "none"
    assert page.evaluate("getComputedStyle(document.querySelector('footer')).display") == "none"
    assert page.locator("article.markdown figure.quote").first.is_visible()
    assert page.locator("#provenance dl").is_visible()  # unfolded on paper
    page.goto(base + "index.html")
    page.emulate_media(media="print")
    assert not page.locator("#doc-filter").is_visible() and page.locator("#documents").is_visible()


def test_the_static_site_keeps_the_served_views_csp_from_disk(browser, web, tmp_path):
    """A page's text that makes an image of another host (a question copied into a page, a document's markdown)
    loads nothing from a static site opened from disk, as from `wikigen serve`; the site's own scripts still run."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from wikigen.wiki.page import Page, render_page

    hits: list[str] = []

    class Counter(BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Counter)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    root = tmp_path / "wiki"
    shutil.copytree(web.root, root, symlinks=True)
    url = f"http://127.0.0.1:{server.server_address[1]}/x.png"
    page_md = Page("topic-image", "An image", "tester", "An image from another host", body=f"![p]({url})\n")
    (root / "topic-image.md").write_text(render_page(page_md), encoding="utf-8")
    base = write_site(root, tmp_path / "site").out.resolve().as_uri() + "/"
    ctx = browser.new_context()
    ctx.set_default_timeout(10_000)
    pg = ctx.new_page()
    refused: list[str] = []
    pg.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
    try:
        pg.goto(base + "pages/topic-image.html")
        assert pg.locator(f'article img[src="{url}"]').count() == 1  # the markdown made an image ...
        pg.wait_for_timeout(500)
        assert hits == [] and any(url in m for m in refused)  # ... that the policy refused to load
        pg.goto(base + "graph.html")  # the site's own scripts run under the same policy
        _wait_until(pg, "window.wikigenGraph && window.wikigenGraph.nodes().length > 0")
    finally:
        ctx.close()
        server.shutdown()
        server.server_close()
        thread.join(5)
