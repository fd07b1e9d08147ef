"""The MCP server at real size, on the cuad-dev wiki (tests/test_cuad_wiki.py says how it is built): no reply
exceeds its budget and paging returns everything once. A module of its own so that pytest-xdist's loadscope can
give it to one worker and the other cuad-dev tests to another, at the end of the run."""

from __future__ import annotations

import json

from eval_corpora import CUAD_TIMEOUT
from test_mcp_server import _data, _pages_of, _session_run
from wikigen.search.sources import open_wiki

from wikigen.mcp_server import compact
from wikigen.wiki.markup import explicit_quotes


@CUAD_TIMEOUT
def test_no_reply_exceeds_its_budget_on_the_cuad_wiki(cuad_wiki):
    """Over stdio, on the cuad-dev wiki (252 contracts, about 450 pages): every tool at its default budget and
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
        assert len(replies["list_pages"]) > 1  # 450 pages do not fit one reply
        assert sorted(p["slug"] for _, d in replies["topics"] for p in d["pages"]) == sorted(
            p.slug for p in w.pages() if p.type == "topic"
        )
        assert all(p["slug"].startswith("kind-") for _, d in replies["kinds"] for p in d["pages"])
        docs = [r["doc_id"] for _, d in replies["documents"] for r in d["documents"]]
        assert sorted(docs) == sorted(d.doc_id for d in w.sources.documents())
        rows = [r["doc_id"] for _, d in replies["table"] for r in d["rows"]]
        assert len(rows) == len(set(rows)) == replies["table"][0][1]["total"] > 200  # every contract once
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
