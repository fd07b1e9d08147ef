"""Issue 25, item 6: after a source changes, every surface says which quotes cite it and what to run.

A wiki is built, then one contract is edited in place, keeping its size and mtime (so only its content hash
tells). `check` names each page and quote that cites it; `stats` does not count those quotes as verified;
`ask --json`, MCP `ask` (over stdio) and the web view (ask and page views, over HTTP) mark them stale; each
says to run `wikigen build CORPUS --wiki WIKI`.
"""

from __future__ import annotations

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

DOC = "contracts/supply-acme"
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
