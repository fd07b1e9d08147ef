"""The question log: every surface (the CLI, the web view, MCP) records what was asked and how well the wiki
served it in WIKI/.wikigen/questions.jsonl (0600, no secret), `--no-log` and the config switch keep it out,
and `wikigen asked` lists it."""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
import urllib.parse
import urllib.request
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from shared_builds import copy_wiki, sample_wiki
from wikigen.agents.orchestrate import BuildConfig, build

from wikigen.ask.context import ContextItem, Unit
from wikigen.ask.served import WEAK_SHARE, wiki_share
from wikigen.cli import main
from wikigen.web.server import make_server
from wikigen.wiki.question_log import LOG_NAME, QuestionLog, asked_questions, logging_enabled

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpora" / "acme"
QUESTION = "Which law governs the Brightline MSA?"
FAKE_KEY = "AKIAIOSFODNN7EXAMPLE"  # AWS's documented example access key id


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return sample_wiki(tmp_path_factory, tmp_path_factory.mktemp("qlog") / "wiki", sessions=1)


@pytest.fixture
def wiki(built, tmp_path):
    """A fresh copy of the built wiki per test (each test reads its own log)."""
    return copy_wiki(built, tmp_path / "wiki")


def _records(root: Path) -> list[dict]:
    return QuestionLog(root).read().entries


# --- what a record says -------------------------------------------------------------------------------


def _item(kind: str, doc: str, start: int, end: int) -> ContextItem:
    u = Unit("quote" if kind == "page" else "passage", doc, start, end, "x" * (end - start), page="p")
    return ContextItem(kind, "p" if kind == "page" else f"{doc} ({start}-{end})", u.text, [u.span()], (u,))


def test_wiki_share_counts_the_answers_characters_that_a_wiki_item_holds():
    items = [_item("page", "a", 0, 100), _item("passage", "b", 0, 100), _item("passage", "a", 100, 200)]
    assert wiki_share([{"doc_id": "a", "start": 50, "end": 150}], items) == 0.5  # half in the quote
    assert wiki_share([{"doc_id": "b", "start": 0, "end": 100}], items) == 0.0  # a search passage
    assert wiki_share([{"doc_id": "a", "start": 0, "end": 40}, {"doc_id": "b", "start": 0, "end": 60}], items) == 0.4
    assert wiki_share([], items) is None  # the answer quotes nothing
    assert WEAK_SHARE == 0.5


def test_a_generated_answer_without_spans_has_its_contexts_share_and_no_answer_is_empty():
    from wikigen.ask.retrieval import AskResult
    from wikigen.ask.served import served_record

    items = [_item("page", "a", 0, 300), _item("passage", "b", 0, 100)]
    model = served_record(AskResult("q?", "wiki+search", "The law of England.", items, 90), budget=4000)
    assert model["empty"] is False and model["wiki_share"] == model["context_wiki_share"] == 0.75
    assert model["weak"] is False
    none = served_record(AskResult("q?", "wiki+search", "Not found in the corpus.", items, 90), budget=4000)
    assert none["empty"] is True and none["weak"] is True and none["wiki_share"] is None
    absent = served_record(AskResult("q?", "wiki", "No document in this corpus matches 'Zorg'.", items, 9), budget=9)
    assert absent["empty"] is True


# --- each surface writes it ----------------------------------------------------------------------------


def test_cli_ask_records_the_question_privately(wiki, capsys):
    assert main(["ask", QUESTION, "--wiki", str(wiki), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    path = wiki / ".wikigen" / LOG_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    (rec,) = _records(wiki)
    assert rec["question"] == QUESTION and rec["mode"] == "wiki+search" and rec["via"] == "cli"
    assert rec["answer_spans"] == shown["answer_spans"]
    spans = [{**{k: s[k] for k in ("doc_id", "start", "end")}} for c in shown["context"] for s in c["spans"]]
    assert [{k: s[k] for k in ("doc_id", "start", "end")} for s in rec["context_spans"]] == spans
    assert {s["from"] for s in rec["context_spans"]} <= {"wiki", "search"}
    kinds = {c["kind"] for c in shown["context"]}
    assert ("wiki" in {s["from"] for s in rec["context_spans"]}) == ("page" in kinds)
    assert rec["empty"] is (not shown["answer_spans"])
    assert rec["weak"] is (rec["empty"] or rec["wiki_share"] < WEAK_SHARE)
    assert 0.0 <= rec["context_wiki_share"] <= 1.0


def test_wiki_mode_answers_are_the_wikis_and_search_mode_answers_are_weak(wiki):
    assert main(["ask", QUESTION, "--wiki", str(wiki), "--mode", "search"]) == 0
    assert main(["ask", QUESTION, "--wiki", str(wiki), "--mode", "wiki"]) == 0
    search, wiki_only = _records(wiki)
    assert search["wiki_share"] in (0.0, None) and search["weak"] is True
    assert wiki_only["empty"] or (wiki_only["wiki_share"] == 1.0 and wiki_only["weak"] is False)


def test_a_secret_in_a_question_never_reaches_the_log(wiki):
    assert main(["ask", f"Who holds the key {FAKE_KEY} for the Brightline MSA?", "--wiki", str(wiki)]) == 0
    raw = (wiki / ".wikigen" / LOG_NAME).read_text(encoding="utf-8")
    assert FAKE_KEY not in raw
    assert "[secret kept out" in _records(wiki)[0]["question"]


def test_questions_file_answers_are_recorded_one_each(wiki, tmp_path):
    qs = tmp_path / "q.jsonl"
    qs.write_text("".join(json.dumps({"id": f"q{i}", "question": q}) + "\n" for i, q in enumerate([QUESTION, "x?"])))
    assert main(["ask", "--wiki", str(wiki), "--questions", str(qs), "--out", str(tmp_path / "a.jsonl")]) == 0
    assert [r["question"] for r in _records(wiki)] == [QUESTION, "x?"]


def test_web_view_ask_records_the_question(wiki):
    server = make_server(wiki, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/ask.html?" + urllib.parse.urlencode(
            {"q": QUESTION, "mode": "wiki"}
        )
        with urllib.request.urlopen(url, timeout=60) as r:
            assert r.status == 200
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    (rec,) = _records(wiki)
    assert rec["question"] == QUESTION and rec["mode"] == "wiki" and rec["via"] == "web"


def _mcp_ask(wiki: Path, *extra: str) -> dict:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "wikigen.cli", "mcp", str(wiki), *extra],
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        cwd=str(wiki.parent),
    )
    out = {}

    async def run():
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                r = await session.call_tool("ask", {"question": QUESTION, "mode": "wiki+search"})
                assert not r.is_error, r.content
                out["answer"] = json.loads(r.content[0].text)

    anyio.run(run)
    return out["answer"]


def test_mcp_ask_records_the_question(wiki):
    answer = _mcp_ask(wiki)
    (rec,) = _records(wiki)
    assert rec["question"] == QUESTION and rec["via"] == "mcp"
    assert rec["answer_spans"] or answer["answer"] == "Not found in the corpus."


# --- and none of them when it is off ---------------------------------------------------------------------


def _web_ask(wiki: Path, **kw) -> None:
    server = make_server(wiki, 0, **kw)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/ask.html?" + urllib.parse.urlencode({"q": QUESTION})
        with urllib.request.urlopen(url, timeout=60) as r:
            assert r.status == 200
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_nothing_is_written_when_the_log_is_off(wiki, capsys, tmp_path):
    path = wiki / ".wikigen" / LOG_NAME
    assert main(["ask", QUESTION, "--wiki", str(wiki), "--no-log"]) == 0
    _web_ask(wiki, log=False)  # `wikigen serve --no-log`
    assert not path.exists()
    assert main(["asked", str(wiki), "--log", "off"]) == 0
    assert "question log off" in capsys.readouterr().out
    assert logging_enabled(wiki) is False
    assert main(["ask", QUESTION, "--wiki", str(wiki)]) == 0  # the switch holds for every surface
    _web_ask(wiki)
    _mcp_ask(wiki)
    assert not path.exists()
    # a rebuild keeps the switch (config.json is rewritten by every build)
    assert build(BuildConfig(corpus=CORPUS, wiki=wiki, agents=2, sessions=1, quiet=True, dense=False)).ok
    assert logging_enabled(wiki) is False
    assert main(["asked", str(wiki), "--log", "on"]) == 0
    assert main(["ask", QUESTION, "--wiki", str(wiki), "--no-log"]) == 0
    _mcp_ask(wiki, "--no-log")
    assert not path.exists()
    assert main(["ask", QUESTION, "--wiki", str(wiki)]) == 0
    assert len(_records(wiki)) == 1


def test_the_question_log_stays_out_of_the_wikis_history(wiki):
    import subprocess

    assert main(["ask", QUESTION, "--wiki", str(wiki)]) == 0
    assert build(BuildConfig(corpus=CORPUS, wiki=wiki, agents=2, sessions=1, quiet=True, dense=False)).ok
    tracked = subprocess.run(["git", "ls-files"], cwd=wiki, capture_output=True, text=True).stdout.split()
    assert f".wikigen/{LOG_NAME}" not in tracked
    assert not any(t.startswith(".wikigen/page-index/") for t in tracked)


# --- wikigen asked ------------------------------------------------------------------------------------


def test_asked_lists_each_question_once_with_how_it_was_served(wiki, capsys):
    for mode in ("wiki+search", "search", "wiki+search"):
        assert main(["ask", QUESTION, "--wiki", str(wiki), "--mode", mode]) == 0
    assert main(["ask", "What is the liability cap in the supply agreements?", "--wiki", str(wiki)]) == 0
    capsys.readouterr()
    assert main(["asked", str(wiki), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["enabled"] is True and d["records"] == 4 and d["questions"] == 2
    first = d["asked"][0]
    assert first["question"] == QUESTION and first["times"] == 3 and first["mode"] == "wiki+search"
    recs = asked_questions(_records(wiki))
    assert d["weak"] == sum(a.weak for a in recs)
    assert main(["asked", str(wiki)]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].startswith("question log on: 2 questions asked (4 times), ")
    assert any(line.rstrip().endswith(f"{QUESTION} x3") for line in text[1:])
    assert main(["asked", str(wiki), "--weak", "--json"]) == 0
    weak_only = json.loads(capsys.readouterr().out)
    assert all(a["weak"] for a in weak_only["asked"]) and weak_only["questions"] == d["weak"]


def test_asked_on_a_folder_that_is_no_wiki_says_so(tmp_path, capsys):
    assert main(["asked", str(tmp_path)]) == 1
    assert "is not a wiki" in capsys.readouterr().err
