"""One answer on every surface: the same question asked through `wikigen ask --json`, the web view's ask page
(over real HTTP on 127.0.0.1), the MCP `ask` tool (the server a subprocess, driven over stdio by the SDK's
client) and the Python API (`wikigen.Answerer.open`) gets the same answer text and the same answer spans, on the
sample corpus's wiki as the default build makes it (the provisions table, the amendments and, where the model
runs here, the passage vectors). Each surface records its questions in the question log under its own name; the
web page names the documents by the titles the CLI's answer gives, and its search lists the CLI's hits."""

from __future__ import annotations

import html as html_lib
import json
import re
import threading
import urllib.request
from pathlib import Path

import pytest
from shared_builds import sample_wiki
from test_trust_keepout import _mcp_calls
from wikigen.search.sources import open_wiki

import wikigen
from wikigen.cli import main
from wikigen.web.render import source_key
from wikigen.web.server import make_server
from wikigen.wiki.provisions import NOT_STATED, POSSIBLE, STATED, read_table, write_pages, write_table
from wikigen.wiki.question_log import QuestionLog

QUESTIONS = [
    "Which contracts are governed by the laws of England and Wales?",  # a value that filters the collection
    "How many contracts have audit rights?",  # a count over the collection
    "What is the notice period for non-renewal in the Brightline MSA?",  # one document, amended since
    "한빛전자 공급계약의 준거법은 무엇입니까?",  # Korean, one document
    "어떤 계약이 대한민국 법률에 따릅니까?",  # Korean, over the collection
    "Which contracts can we cancel at any time?",  # a field no word names, found by meaning where vectors run
]
VALUE_QUESTION = QUESTIONS[0]
SEARCH = "governing law jurisdiction"


@pytest.fixture(scope="module")
def wiki(tmp_path_factory, _no_embedding_by_default) -> tuple[Path, bool]:
    """The sample wiki with passage vectors, as a build outside the tests makes it (the tests' builds skip the
    embedding step: tests/conftest.py), and whether it has them: where the model cannot run, every surface is
    BM25 alone alike."""
    root = sample_wiki(tmp_path_factory, tmp_path_factory.mktemp("surfaces") / "wiki", sessions=1)
    embed = _no_embedding_by_default[0]  # the real update_vectors
    return root, embed(open_wiki(root).sources).summary is not None


def _spans(answer_spans) -> list[tuple[str, int, int]]:
    return [(s["doc_id"], int(s["start"]), int(s["end"])) for s in answer_spans]


def _cli(wiki: Path, capsys, *args) -> dict:
    capsys.readouterr()
    assert main([*args, "--wiki", str(wiki), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=120) as r:
        assert r.status == 200
        return r.read().decode("utf-8")


def _web(wiki: Path, paths: list[str]) -> list[str]:
    server = make_server(wiki, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        return [_get(base + p) for p in paths]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _mcp(wiki: Path, questions: list[str]) -> list[dict]:
    return _mcp_calls(wiki, [("ask", {"question": q}) for q in questions], timeout=300)


def _answer_section(page: str) -> str:
    return page.split('<div class="answer markdown">', 1)[1].split("</div>", 1)[0]


def test_cli_web_mcp_and_api_give_the_same_answer_and_spans(wiki, capsys):
    wiki, vectors = wiki
    api = wikigen.Answerer.open(wiki)  # the public API, as the README opens it; it logs nothing
    assert (api.dense is not None) == vectors and api.values is not None and api.supersede is not None
    by_api = [api.ask(q).to_dict() for q in QUESTIONS]
    by_cli = [_cli(wiki, capsys, "ask", q) for q in QUESTIONS]
    query = "&mode=wiki%2Bsearch"
    pages = _web(wiki, [f"ask.html?q={urllib.request.quote(q)}{query}" for q in QUESTIONS])
    by_mcp = _mcp(wiki, QUESTIONS)

    titles = read_table(wiki).documents
    named = 0
    for q, a, c, page, m in zip(QUESTIONS, by_api, by_cli, pages, by_mcp, strict=True):
        assert a["answer"].strip() and a["answer_spans"], q  # each question is answered, with quotes
        data = re.search(r'<script type="application/json" id="answer-data">(.*?)</script>', page, re.S)
        assert data, q
        web = json.loads(data.group(1))
        for surface, got in (("cli", c), ("web", web), ("mcp", m)):
            assert got["answer"] == a["answer"], (surface, q, got["answer"][:400], a["answer"][:400])
            assert _spans(got["answer_spans"]) == _spans(a["answer_spans"]), (surface, q)
            assert got.get("reading") == a["reading"], (surface, q)  # the question read once, alike everywhere
        assert a["reading"] == api.read(q).to_dict(), q  # the answer's reading is the one `read` makes
        if q == QUESTIONS[-1] and vectors:  # termination for convenience, by the encoder's classifier
            assert a["reading"]["table"]["by"] == "meaning", a["reading"]
            assert a["reading"]["table"]["field"] == "termination_for_convenience", a["reading"]
        shown = _answer_section(page)
        for doc, start, end in _spans(a["answer_spans"]):  # the page shows that answer: each span linked
            assert f'href="sources/{source_key(doc)}.html#chars={start}-{end}"' in shown, (q, doc, start, end)
        # the page names documents by the titles the CLI's answer gives them (the provisions table's)
        for doc in {d for d, _, _ in _spans(c["answer_spans"])}:
            title = str((titles.get(doc) or {}).get("title") or "")
            if title and f"- {title}: " in c["answer"]:
                named += 1
                assert f"<li>{html_lib.escape(title)}: " in shown, (q, title)
                assert f"<li>{doc}: " not in shown and f"<li>{html_lib.escape(doc)}: " not in shown
    assert named >= 3  # the value question's contracts, named by title in the CLI's answer and on the page

    logged = {}
    for r in QuestionLog(wiki).read().entries:  # each surface under its own name, the API under none
        logged.setdefault(r["via"], []).append((r["question"], _spans(r["answer_spans"])))
    expected = [(q, _spans(a["answer_spans"])) for q, a in zip(QUESTIONS, by_api, strict=True)]
    assert {via: logged.get(via) for via in ("cli", "web", "mcp")} == dict.fromkeys(("cli", "web", "mcp"), expected)
    assert set(logged) == {"cli", "web", "mcp"}


def test_every_surface_lists_a_possible_document_apart_alike(tmp_path_factory, capsys):
    """A contract whose audit rights the table holds as possible (a clause quoted, no value claimed): the count
    question gets one answer on every surface, that contract apart from the ones that have audit rights ("And N
    possible: ..." with the others the clause model left possible), its clause among the answer's spans."""
    wiki = sample_wiki(tmp_path_factory, tmp_path_factory.mktemp("possible") / "wiki", sessions=1)
    table = read_table(wiki)
    doc, cells = next(
        (d, r["cells"])
        for d, r in table.rows("contract")
        if r["cells"]["audit_rights"]["status"] == NOT_STATED
        and any(c["status"] == STATED and c.get("quote") for c in r["cells"].values())
    )
    clause = next(c for c in cells.values() if c["status"] == STATED and c.get("quote"))  # the document's own text
    cells["audit_rights"] = {"field": "audit_rights", "status": POSSIBLE, "display": "", "type": "presence"}
    cells["audit_rights"].update(parts={"score": 0.41}, quote=clause["quote"], text=clause["text"])
    write_table(wiki, table)
    write_pages(wiki, table)
    question = QUESTIONS[1]  # "How many contracts have audit rights?"
    api = wikigen.Answerer.open(wiki).ask(question).to_dict()
    title = table.documents[doc]["title"]
    n = sum(r["cells"]["audit_rights"]["status"] == POSSIBLE for _, r in table.rows("contract"))
    line = re.search(
        r"\nAnd (\d+) possible \(a clause that may state it, not sure; check the clause\): (.*)\n", api["answer"]
    )
    assert line and int(line.group(1)) == n and title in line.group(2)
    assert (doc, *clause["quote"]) in _spans(api["answer_spans"])
    assert f"- {title}: Yes" not in api["answer"]  # never among those that have them
    cli = _cli(wiki, capsys, "ask", question)
    (page,) = _web(wiki, [f"ask.html?q={urllib.request.quote(question)}&mode=wiki%2Bsearch"])
    data = re.search(r'<script type="application/json" id="answer-data">(.*?)</script>', page, re.S)
    assert data
    (mcp,) = _mcp(wiki, [question])
    for surface, got in (("cli", cli), ("web", json.loads(data.group(1))), ("mcp", mcp)):
        assert got["answer"] == api["answer"], (surface, got["answer"][:400])
        assert _spans(got["answer_spans"]) == _spans(api["answer_spans"]), surface


def test_the_web_search_lists_the_cli_search_hits(wiki, capsys):
    wiki, _ = wiki
    cli = _cli(wiki, capsys, "search", SEARCH)["hits"]
    (page,) = _web(wiki, [f"search.html?q={urllib.request.quote(SEARCH)}"])
    corpus = page.split('id="corpus-results"', 1)[1]
    shown = re.findall(r'href="sources/([^"#]+)\.html#chars=(\d+)-(\d+)"', corpus)
    assert cli and [(k, int(s), int(e)) for k, s, e in shown[: len(cli)]] == [
        (source_key(h["doc_id"]), h["start"], h["end"]) for h in cli
    ]


def test_no_surface_builds_an_answerer_of_its_own():
    """The surfaces (the CLI and the functions it calls, the web view, MCP, the demo, the exports) open the
    Answerer with Answerer.open, never with its constructor and inputs of their own choosing."""
    import ast

    package = Path(wikigen.__file__).parent
    surfaces = [*package.glob("cli*.py"), *(package / "cli").rglob("*.py"), package / "demo.py", package / "export.py"]
    surfaces += [package / "mcp_server.py", package / "ask" / "batch.py", *sorted((package / "web").glob("*.py"))]
    built = []
    for path in surfaces:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Answerer":
                built.append(f"{path.relative_to(package)}:{node.lineno}")
    assert len(surfaces) > 6 and built == []
