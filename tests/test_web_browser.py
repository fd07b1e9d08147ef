"""The web view in a real browser: headless Chromium (Debian's package, /usr/bin/chromium) driven by
Playwright, against both the static site (file:// URLs) and `wikigen serve` (a real server on 127.0.0.1).

Checked with screenshots and the DOM: the graph has a node per page and is not blank; a quote's link
opens the source view with exactly the quote's text highlighted; the growth chart has one point per
session; a hostile <script> in a document, a quote, a page body or a search is shown and never run.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from web_helpers import HOSTILE, build_web_wiki

from wikigen.web.model import SiteData
from wikigen.web.screenshots import CHROMIUM, CHROMIUM_ARGS
from wikigen.web.server import make_server
from wikigen.web.site import write_site

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
    page.wait_for_function("window.wikigenGraph && window.wikigenGraph.nodes().length > 0")
    cy = page.evaluate("[window.wikigenGraph.nodes().length, window.wikigenGraph.edges().length]")
    assert cy == [len(data.pages), len(data.graph()["edges"])] and cy[1] > 0
    assert page.locator("#graph canvas").count() >= 1
    shot = tmp_path / "graph.png"
    page.locator("#graph").screenshot(path=str(shot))
    blue, colours = _pixels(shot, BLUE)
    assert blue > 200 and colours > 20, (blue, colours)  # document nodes drawn, not a blank canvas
    with page.expect_navigation(url="**/pages/web-test-quotes.html"):  # a node opens its page
        page.evaluate("setTimeout(() => window.wikigenGraph.getElementById('web-test-quotes').emit('tap'), 0)")


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
    link = page.locator("#answer a.quote-source").first
    shown = link.locator("xpath=ancestor::figure").locator("blockquote").inner_text()
    link.click()
    mark = page.wait_for_selector("mark#highlight")
    assert " ".join(mark.text_content().split()) == " ".join(shown.split())
