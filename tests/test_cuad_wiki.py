"""The product at real size: a wiki of half the cuad-dev contracts (126 contracts, about 320 pages), built once
for the run as `wikigen build` makes it by default (tests/eval_corpora.py). Its pages render in Chromium with no marker left as
text; no MCP reply exceeds its budget and paging returns everything once; MEMORY.md informs; the build passes
its own check. Skipped without the corpus.

The wiki is built in the background from the start of the run (tests/conftest.py) and these tests run last,
in one worker, by when it is built: the other workers run the rest of the suite meanwhile.
"""

from __future__ import annotations

import json
import re

import pytest
from eval_corpora import CUAD_TIMEOUT
from test_export import MD_LINK, _memory_lines, assert_sound_export, assert_values_whole, provisions_blocks
from test_mcp_server import _data, _pages_of, _session_run
from wikigen.search.sources import open_wiki

from wikigen.export import MAX_BYTES, MAX_LINES, MEMORY, export_claude_code, file_stem, utf8_len
from wikigen.mcp_server import compact
from wikigen.wiki.markup import explicit_quotes
from wikigen.wiki.provisions import read_table


@pytest.fixture()
def browser():
    """Chromium through Playwright, as tests/test_web_browser.py drives it (skipped where either is missing);
    closed after its test, since Playwright's event loop would refuse the MCP test's own."""
    from wikigen.web.screenshots import CHROMIUM, CHROMIUM_ARGS

    if not CHROMIUM.exists():
        pytest.skip(f"the browser check needs Debian's chromium at {CHROMIUM}")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser check needs playwright")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@CUAD_TIMEOUT
def test_no_literal_comments_or_callout_markers_on_any_page_of_the_cuad_wiki(browser, cuad_wiki, tmp_path):
    """Every page's HTML is read for the markers as text; the browser opens the pages whose markdown holds them
    (and a few others), where the HTML's reading must agree with what Chromium shows."""
    from test_web_browser import _UNRENDERED, BROWSER_SAMPLE, _main_text, _pages_render_markup

    from wikigen.web.model import SiteData
    from wikigen.web.site import static_bytes
    from wikigen.web.views import STATIC_FILES, Views

    data = SiteData.load(cuad_wiki)
    out = tmp_path / "site"  # the static site's pages (its sources and home, not read here, are left out)
    views = Views(data, live=False)
    for path in [p for p in views.paths() if p.startswith("pages/")]:
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_text(views.render(path) or "", encoding="utf-8")
    for name in STATIC_FILES:
        (out / "static").mkdir(exist_ok=True)
        (out / "static" / name).write_bytes(static_bytes(name))
    slugs = list(data.pages) + list(data.generated)
    marked = [s for s, p in data.pages.items() if "<!--" in p.body or "[!" in p.body]
    assert marked  # the amendment markers are there to hide
    for slug in slugs:
        text = _main_text((out / "pages" / f"{slug}.html").read_text(encoding="utf-8"))
        assert text.strip(), slug
        found = _UNRENDERED.search(text)
        assert found is None, (slug, found and found.group(0))
    tabled = [s for s in slugs if "\n|---" in (data.pages[s].body if s in data.pages else data.generated[s])]
    assert tabled  # the provisions pages
    sample = list(dict.fromkeys(marked[: BROWSER_SAMPLE // 2] + slugs[:: max(1, len(slugs) // (BROWSER_SAMPLE // 2))]))
    ctx = browser.new_context(viewport={"width": 1100, "height": 800})
    page = ctx.new_page()
    try:
        _pages_render_markup(page, out.resolve().as_uri() + "/", sample[:BROWSER_SAMPLE])
        _, tables = _pages_render_markup(page, out.resolve().as_uri() + "/", tabled)
        assert tables >= len(tabled)
    finally:
        ctx.close()


@CUAD_TIMEOUT
def test_no_reply_exceeds_its_budget_on_the_cuad_wiki(cuad_wiki):
    """Over stdio, on the cuad-dev wiki (126 contracts, about 320 pages): every tool at its default budget and
    at a small one; paging returns every page, hit, context item, line and character once."""
    from wikigen.core.tokens import default_counter
    from wikigen.mcp_server import DEFAULT_BUDGET

    count = default_counter().count
    w = open_wiki(cuad_wiki)
    texts = w.sources.texts
    biggest = max(w.pages(), key=lambda p: len(p.body))
    longest = max(w.sources.documents(), key=lambda d: d.chars)
    question = "Which contracts are governed by the laws of the State of New York?"

    async def body(session):
        out = {}
        for budget in (DEFAULT_BUDGET, 1500):
            b = {"budget": budget}
            out[budget] = {
                "list_pages": await _pages_of(session, "list_pages", b, "pages"),
                "topics": await _pages_of(session, "list_pages", {**b, "type": "topic"}, "pages"),
                "kinds": await _pages_of(session, "list_pages", {**b, "prefix": "kind-"}, "pages"),
                "documents": await _pages_of(session, "list_documents", b, "documents"),
                "search": await _pages_of(session, "search", {**b, "query": "governing law", "k": 50}, "hits"),
                "ask": await _pages_of(session, "ask", {**b, "question": question}, "context"),
                "read_page": await _pages_of(session, "read_page", {**b, "slug": biggest.slug}, "markdown"),
                "read_source": await _pages_of(
                    session, "read_source", {**b, "doc_id": longest.doc_id, "end": 30000}, "text"
                ),
                "stats": await _pages_of(session, "stats", b, "docs_uncited"),
                "table": await _pages_of(session, "table", {**b, "kind": "contract"}, "rows"),
            }
        out["default"] = _data(await session.call_tool("list_pages", {}))
        return out

    out = _session_run(cuad_wiki, body)["result"]
    assert count(compact(out["default"])) <= DEFAULT_BUDGET and out["default"]["next_cursor"] is not None
    for budget in (DEFAULT_BUDGET, 1500):
        replies = out[budget]
        for tool, parts in replies.items():
            for raw, _ in parts:
                assert count(raw) <= budget, (tool, budget, count(raw))
        slugs = [p["slug"] for _, d in replies["list_pages"] for p in d["pages"]]
        assert slugs == w.slugs()  # every page once, in order, over the parts
        assert len(replies["list_pages"]) > 1  # 320 pages do not fit one reply
        assert sorted(p["slug"] for _, d in replies["topics"] for p in d["pages"]) == sorted(
            p.slug for p in w.pages() if p.type == "topic"
        )
        assert all(p["slug"].startswith("kind-") for _, d in replies["kinds"] for p in d["pages"])
        docs = [r["doc_id"] for _, d in replies["documents"] for r in d["documents"]]
        assert sorted(docs) == sorted(d.doc_id for d in w.sources.documents())
        rows = [r["doc_id"] for _, d in replies["table"] for r in d["rows"]]
        assert len(rows) == len(set(rows)) == replies["table"][0][1]["total"] == len(docs)  # every contract once
        hits = [h for _, d in replies["search"] for h in d["hits"]]
        assert len(hits) == 50 and all(h["text"] == texts.read(h["doc_id"], h["start"], h["end"]) for h in hits)
        first = replies["ask"][0][1]
        assert list(first)[:2] == ["answer", "answer_spans"] and first["answer"]
        if first.get("answer_cut"):  # an answer longer than the budget: its first part, with the spans that part cites
            assert all(f"{a['start']}-{a['end']}" in first["answer"] for a in first["answer_spans"])
        context = [c for _, d in replies["ask"] for c in d["context"]]
        assert context and len({json.dumps(c, sort_keys=True) for c in context}) == len(context)
        markdown = "".join(d["markdown"] for _, d in replies["read_page"])
        assert markdown == explicit_quotes(biggest.body, biggest.quote_doc)
        assert "".join(d["text"] for _, d in replies["read_source"]) == texts.read(longest.doc_id, 0, 30000)
    assert len(out[1500]["read_page"]) > 1 and len(out[1500]["read_source"]) > 1


@CUAD_TIMEOUT
def test_full_cuad_wiki_memory_informs(cuad_wiki, tmp_path):
    """MEMORY.md of the cuad-dev wiki (126 contracts, more than its room holds): what to open first (the provisions
    files, the collections), one line per document as far as they fit (title, parties, date, key facts, each value
    whole), then every collection and the topics, each saying what it holds, within the limits; every page
    reachable, every contract's stated values in the provisions files."""
    from wikigen.search.documents import document_rows

    out = tmp_path / "memory"
    report = export_claude_code(open_wiki(cuad_wiki), out)
    got = assert_sound_export(out, cuad_wiki)
    w = open_wiki(cuad_wiki)
    contracts = len(w.sources.documents())
    assert contracts > 100
    assert report.pages == len(got["topics"]) - len(got["tables"]) > contracts  # a page per contract, plus topics
    memory = got["memory"][MEMORY]
    assert utf8_len(memory) > 0.9 * MAX_BYTES or len(memory.splitlines()) > 0.9 * MAX_LINES  # the room is used
    docs = _memory_lines(memory, "doc-")
    assert len(docs) >= 85, len(docs)  # as many documents as fit with their values (about 90), not 8 lines of links
    rows = {file_stem(r.slug): r for r in document_rows(w.pages(), w.sources, read_table(cuad_wiki)) if r.slug}
    shown = [(line, rows[MD_LINK.search(line).group(2)[:-3]]) for line in docs]
    for line, row in shown:
        title = " ".join(row.title.replace("|", "/").replace("[", "(").replace("]", ")").split())
        assert line.startswith(f"- [{title[:60]}"), (line, title)
        said = line.split("](", 1)[1]
        if row.names:  # the parties as the document names them, then its date
            assert row.names[0][:20] in said, (line, row.names)
        if row.date and not said.endswith("..."):
            assert f" {row.date.value}" in said, (line, row.date)
    assert sum(bool(row.names) for _, row in shown) > 0.7 * len(shown)
    assert sum(bool(row.date) for _, row in shown) > 0.7 * len(shown)
    assert assert_values_whole(got["memory"], cuad_wiki) > len(shown)  # then values, each whole (issue 43)
    for line, row in shown:  # a party's name shortened only at the end of a word
        for name in line.split(" — ", 1)[1].split(" · ")[0].split("; ") if row.names else []:
            if name.endswith("…"):
                kept = name[:-1]
                assert any(n.startswith(kept) and not n[len(kept)].isalnum() for n in row.names), (line, row.names)
    for line, row in shown:
        if row.date:
            assert line.split("](", 1)[1].count(row.date.value) == 1, line
    assert sum(any(f"{c.label}: " in line for c in row.extra.values()) for line, row in shown) > 0.7 * len(shown)
    topics = _memory_lines(memory, "topic-")
    assert len(topics) >= 20
    for line in topics:
        assert re.search(r"quoted from \d+ (of \d+ )?documents?", line, re.I), line  # what it holds
    assert memory.index("## Documents") < memory.index("## Topics") < memory.index("## Every page")
    every = got["memory"].get("index-document.md", "")
    assert every and f"{contracts} pages" in every  # every document, in the section files
    start = memory.split("## Start here\n", 1)[1].split("\n## ", 1)[0]
    first = {t for _, t in MD_LINK.findall(start)} & set(report.provisions)  # the provisions files, first
    assert first and {t for n in first for _, t in MD_LINK.findall(got["tables"][n])} | first >= set(report.provisions)
    blocks = provisions_blocks([got["tables"][n] for n in report.provisions])
    table = read_table(cuad_wiki)
    assert len(blocks) == len(table.documents)
    for doc_id, row in table.documents.items():
        figures = {f["name"] for f in table.fields(row.get("kind", "")) if f.get("type") == "figures"}
        for name, cell in (row.get("cells") or {}).items():
            if cell.get("status") == "stated" and cell.get("quote") and name not in figures:
                assert any(f"(chars {cell['quote'][0]}-{cell['quote'][1]})" in v for v in blocks[doc_id]), (
                    doc_id,
                    name,
                )
    kinds = [p for p in w.pages() if p.type == "collection"]
    assert all(f"]({file_stem(p.slug)}.md)" in memory for p in kinds)  # every collection, in MEMORY.md itself


@CUAD_TIMEOUT
def test_the_default_build_of_cuad_dev_passes_its_own_check(cuad_wiki):
    """A document of a kind no other document shares has no collection page; when no topic page quoted it
    either, a topic page's cut list of the rest left it out and nothing linked it (an orphan that failed
    `check`). A topic page lists such documents first."""
    from wikigen.wiki.links import analyze_links

    report = analyze_links(open_wiki(cuad_wiki).pages())
    assert report.orphans == [] and report.broken == []
