"""Issue 25, item 6 and issue 42, item 5: after a source changes, every surface that shows a value or a quote of
it says so, and what to run.

A wiki is built, then one contract is edited in place, keeping its size and mtime (so only its content hash
tells). `check` names each page and quote that cites it; `stats` does not count those quotes as verified;
`ask --json`, MCP `ask` (over stdio) and the web view (ask and page views, over HTTP) mark them stale; each
says to run `wikigen build CORPUS --wiki WIKI`. The provisions table marks the document's row stale wherever it
is shown: `table` (plain, --json, --csv), MCP `table` and `list_documents`, the web view's home table and
provisions pages; MCP `read_page` marks a page that quotes it, and MCP `read_source` and the web view's source
page return the text as indexed (the text every quote's offsets count), marked stale.
"""

from __future__ import annotations

import csv
import io
import json
import re
import threading
import urllib.parse
import urllib.request

import pytest
from test_offline_agent import make_corpus
from test_trust_keepout import _mcp_calls
from test_trust_stale import _edit_keep_size_and_mtime

from wikigen.cli import main
from wikigen.core.slugs import doc_slug

DOC = "contracts/supply-acme"
WHY = "its source changed since it was indexed"
QUESTION = "How long is the term of the supply agreement with Acme and how is it renewed?"


@pytest.fixture(scope="module")
def changed(tmp_path_factory):
    from wikigen.search.sources import open_wiki

    root = tmp_path_factory.mktemp("stale-surfaces")
    corpus = make_corpus(root, docs=3)
    wiki = root / "wiki"
    assert main(["build", str(corpus), "--wiki", str(wiki), "--agents", "2", "--sessions", "2", "--quiet"]) == 0
    quoted = [(p.slug, q) for p in open_wiki(wiki).pages() for q in p.quotes() if q.doc_id == DOC]
    assert quoted
    victim = next(line for _, q in quoted for line in q.text.split("\n") if len(line) > 20)
    _edit_keep_size_and_mtime(corpus / "contracts" / "supply-acme.txt", victim, victim[::-1])
    return wiki, corpus, quoted


def _run_hint(corpus, wiki) -> str:
    return f"wikigen build {corpus.resolve()} --wiki {wiki}"


def test_check_names_every_page_and_quote_that_cites_the_changed_source(changed, capsys):
    wiki, corpus, quoted = changed
    assert main(["check", str(wiki)]) == 1
    out = capsys.readouterr().out
    for slug, q in quoted:
        line = next(
            (x for x in out.splitlines() if x.startswith(f"{slug}.md:") and f"(chars {q.start}-{q.end})" in x), ""
        )
        assert f"quote {DOC} (chars {q.start}-{q.end}): its source changed since it was indexed" in line, (slug, out)
        assert _run_hint(corpus, wiki) in line


def test_stats_does_not_count_quotes_of_a_changed_source_as_verified(changed, capsys):
    wiki, _, quoted = changed
    assert main(["stats", str(wiki), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["quotes_stale"] == len(quoted)
    assert stats["quotes_verified"] == stats["quotes"] - len(quoted)
    assert main(["stats", str(wiki)]) == 0
    assert f"note: {len(quoted)} quotes cite sources that changed since they were indexed" in capsys.readouterr().out


def test_ask_json_and_text_mark_stale_context_items(changed, capsys):
    wiki, corpus, _ = changed
    assert main(["ask", QUESTION, "--wiki", str(wiki), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    stale = [c for c in result["context"] if any(s["doc_id"] == DOC for s in c["spans"])]
    assert stale and all(c.get("stale") == [DOC] for c in stale)
    assert all("stale" not in c for c in result["context"] if c not in stale)
    assert result["stale"] == {"docs": {DOC: "its source changed since it was indexed"}, "run": _run_hint(corpus, wiki)}
    assert main(["ask", QUESTION, "--wiki", str(wiki)]) == 0
    text = capsys.readouterr().out
    assert f"! stale: {DOC}: its source changed since it was indexed" in text
    assert f"-- stale sources: run `{_run_hint(corpus, wiki)}` to refresh" in text


def test_mcp_ask_marks_stale_quotes(changed):
    wiki, corpus, _ = changed
    (result,) = _mcp_calls(wiki, [("ask", {"question": QUESTION})])
    stale = [c for c in result["context"] if any(s["doc_id"] == DOC for s in c["spans"])]
    assert stale and all(c["stale"] == [DOC] for c in stale)
    assert result["stale"]["run"] == _run_hint(corpus, wiki)


def test_web_view_marks_stale_quotes_on_pages_and_answers(changed):
    from wikigen.web.server import make_server

    wiki, corpus, quoted = changed
    server = make_server(wiki, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with urllib.request.urlopen(f"{base}ask.html?q={urllib.parse.quote_plus(QUESTION)}", timeout=120) as r:
            page = r.read().decode("utf-8")
        assert 'id="stale"' in page and _run_hint(corpus, wiki) in page
        assert f'<span class="badge stale" title="its source changed since it was indexed">stale: {DOC}</span>' in page
        slug, q = quoted[0]
        with urllib.request.urlopen(f"{base}pages/{slug}.html", timeout=120) as r:
            page = r.read().decode("utf-8")
        fig = re.search(rf'<figure class="quote" data-doc="{DOC}" data-start="{q.start}".*?</figure>', page, re.S)
        assert fig and 'class="badge stale"' in fig.group(0)
        assert 'id="stale"' in page and _run_hint(corpus, wiki) in page
    finally:
        server.shutdown()
        server.server_close()


# --- issue 42, item 5: values and source text ---------------------------------------------------------


def _kind(wiki) -> str:
    from wikigen.wiki.provisions import read_table

    table = read_table(wiki)
    assert DOC in table.documents and table.documents[DOC].get("cells"), "the contract has values"
    return table.documents[DOC]["kind"]


def test_table_marks_the_changed_documents_values_as_text_json_and_csv(changed, capsys):
    wiki, _, _ = changed
    kind = _kind(wiki)
    assert main(["table", str(wiki), "--kind", kind, "--json"]) == 0
    recs = {r["doc_id"]: r for r in json.loads(capsys.readouterr().out)}
    assert recs[DOC]["stale"] == WHY
    assert len(recs) > 1 and all("stale" not in r for d, r in recs.items() if d != DOC)

    assert main(["table", str(wiki), "--kind", kind]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{DOC}  "))
    assert lines[at + 1] == f"  ! stale: {WHY}; these values may no longer be what it says"
    assert sum("! stale:" in line for line in lines) == 1

    assert main(["table", str(wiki), "--kind", kind, "--csv"]) == 0
    rows = {r["doc_id"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert rows[DOC]["stale"] == WHY and all(r["stale"] == "" for d, r in rows.items() if d != DOC)


def test_mcp_table_documents_page_and_source_mark_the_changed_document(changed):
    from wikigen.search.sources import open_wiki

    wiki, corpus, quoted = changed
    slug = quoted[0][0]
    other = next(p.slug for p in open_wiki(wiki).pages() if p.type == "document" and DOC not in p.sources)
    table, documents, page, clean, source = _mcp_calls(
        wiki,
        [
            ("table", {"kind": _kind(wiki)}),
            ("list_documents", {}),
            ("read_page", {"slug": slug}),
            ("read_page", {"slug": other}),
            ("read_source", {"doc_id": DOC}),
        ],
    )
    note = {"docs": {DOC: WHY}, "run": _run_hint(corpus, wiki)}
    rows = {r["doc_id"]: r for r in table["rows"]}
    assert rows[DOC]["stale"] == WHY and all("stale" not in r for d, r in rows.items() if d != DOC)
    assert table["stale"] == note
    docs = {r["doc_id"]: r for r in documents["documents"]}
    assert docs[DOC]["stale"] == WHY and all("stale" not in r for d, r in docs.items() if d != DOC)
    assert page["stale"] == note and "stale" not in clean

    # the text as indexed, which the quotes' offsets count, marked stale: not the file's new text
    indexed = open_wiki(wiki).sources.texts.text(DOC)
    now = (corpus / "contracts" / "supply-acme.txt").read_text(encoding="utf-8")
    assert source["stale"] == note
    assert source["text"] == indexed and source["text"] != now
    for _, q in quoted:
        assert source["text"][q.start : q.end] == q.text


def test_web_home_provisions_and_source_pages_mark_the_changed_document(changed):
    from wikigen.web.render import source_key
    from wikigen.web.server import make_server

    wiki, corpus, _ = changed
    hub = f"provisions-{_kind(wiki)}"
    tables = sorted(p.stem for p in wiki.glob(f"{hub}-*.md") if f"[[{doc_slug(DOC)}\\|" in p.read_text("utf-8"))
    assert tables, "a provisions table page lists the contract"
    server = make_server(wiki, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"

    def get(path: str) -> str:
        with urllib.request.urlopen(base + path, timeout=120) as r:
            return r.read().decode("utf-8")

    badge = f'<span class="badge stale" title="{WHY}">stale</span>'
    try:
        home = get("index.html")
        rows = re.findall(r'<tr data-doc="([^"]+)"[^>]*>(.*?)</tr>', home, re.S)
        assert len(rows) > 1
        for doc, row in rows:
            assert (badge in row) == (doc == DOC), doc
        assert f'<tr data-doc="{DOC}" data-kind="' in home and 'class="stale"' in home
        assert 'id="stale"' in home and _run_hint(corpus, wiki) in home

        page = get(f"pages/{tables[0]}.html")
        link = re.search(
            rf'<a class="wikilink" href="\.\./pages/{doc_slug(DOC)}\.html"[^>]*>[^<]*</a>( <span[^>]*>stale</span>)?',
            page,
        )
        assert link and link.group(1) == " " + badge, page
        assert page.count(">stale</span>") == 1  # only the changed document's row
        assert 'id="stale"' in page and _run_hint(corpus, wiki) in page

        source = get(f"sources/{source_key(DOC)}.html")
        assert 'id="stale"' in source and _run_hint(corpus, wiki) in source
    finally:
        server.shutdown()
        server.server_close()
