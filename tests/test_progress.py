import json
import multiprocessing as mp
import threading
from pathlib import Path

from wiki_helpers import make_index, page, quote_body, quote_of

from wikigen.wiki.progress import LOG_VERSION, ProgressLog, coverage, render_log
from wikigen.wiki.store import Wiki


def _append_many(root: str, agent: str, n: int) -> None:
    log = ProgressLog(Path(root))
    for i in range(n):
        log.append(session=1, agent=agent, action="write_page", pages=[f"p{i}"], queries=["x" * 3000], docs=[], i=i)


def test_append_and_read(tmp_path):
    log = ProgressLog(tmp_path, clock=lambda: "2025-01-02T03:04:05.000Z")
    e = log.append(
        session=3,
        agent="alice",
        action="write_page",
        pages=["acme"],
        queries=["termination"],
        docs=["contracts/acme-msa"],
        tokens=1234,
    )
    assert e == {
        "v": LOG_VERSION,
        "time": "2025-01-02T03:04:05.000Z",
        "session": 3,
        "agent": "alice",
        "action": "write_page",
        "pages": ["acme"],
        "queries": ["termination"],
        "docs": ["contracts/acme-msa"],
        "tokens": 1234,
    }
    r = log.read()
    assert r.entries == [e] and r.torn == []
    assert json.loads((tmp_path / ".wikigen" / "progress.jsonl").read_text().splitlines()[0])["v"] == 1


def test_default_time_is_iso_utc(tmp_path):
    t = ProgressLog(tmp_path).append(session=1, agent="a", action="x")["time"]
    assert t.endswith("Z") and "T" in t and len(t) == 24


def test_torn_last_line_is_reported_and_next_append_starts_fresh(tmp_path):
    log = ProgressLog(tmp_path)
    log.append(session=1, agent="a", action="one")
    with open(log.path, "ab") as f:
        f.write(b'{"v": 1, "time": "2025-01-01T00:00:00Z", "session": 1, "agent": "b", "act')  # crash mid-line
    r = log.read()
    assert [e["action"] for e in r.entries] == ["one"]
    assert r.torn == ['{"v": 1, "time": "2025-01-01T00:00:00Z", "session": 1, "agent": "b", "act']
    log.append(session=2, agent="c", action="two")
    r = log.read()
    assert [e["action"] for e in r.entries] == ["one", "two"] and len(r.torn) == 1
    assert "_1 torn line(s) skipped._" in render_log(r)


def test_concurrent_appends_never_interleave(tmp_path):
    n = 60
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_append_many, args=(str(tmp_path), f"proc{i}", n)) for i in range(3)]
    for p in procs:
        p.start()
    threads = [threading.Thread(target=_append_many, args=(str(tmp_path), f"thr{i}", n)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for p in procs:
        p.join()
        assert p.exitcode == 0
    r = ProgressLog(tmp_path).read()
    assert r.torn == []
    assert len(r.entries) == 6 * n
    by_agent = {}
    for e in r.entries:
        by_agent.setdefault(e["agent"], []).append(e["i"])
    assert all(v == list(range(n)) for v in by_agent.values()) and len(by_agent) == 6


def test_render_log_md(tmp_path):
    log = ProgressLog(tmp_path, clock=lambda: "2025-01-02T03:04:05.000Z")
    log.append(
        session=1,
        agent="alice",
        action="write_page",
        pages=["acme", "fees"],
        queries=["q1", "q2"],
        docs=["d1"],
        tokens=99,
    )
    log.append(session=2, agent="bob", action="session_end")
    path = log.write_markdown()
    assert path == tmp_path / "log.md"
    assert path.read_text() == (
        "# Progress log\n\n_Rendered from .wikigen/progress.jsonl (the full record); do not edit._\n\n"
        "## Session 1\n\n"
        "- 2025-01-02T03:04:05.000Z **alice** write_page (2 pages: [[acme]], [[fees]]; queries: 2; docs read: 1; "
        "tokens: 99)\n\n"
        "## Session 2\n\n- 2025-01-02T03:04:05.000Z **bob** session_end\n"
    )


def test_render_log_md_is_compact(tmp_path):
    """One line per agent and session; a long page list shows its count and first pages only."""
    log = ProgressLog(tmp_path, clock=lambda: "T")
    log.append(session=1, agent="a", action="wrote pages", pages=[f"p{i}" for i in range(50)])
    log.append(session=1, agent="b", action="wrote pages", pages=["q"])
    log.append(session=1, agent="a", action="session finished", pages_written=50)
    text = render_log(log.read())
    lines = [ln for ln in text.splitlines() if ln.startswith("- ")]
    assert lines == [
        "- T **a** wrote pages (50 pages: [[p0]], [[p1]], +48 more); session finished (pages_written: 50)",
        "- T **b** wrote pages (1 page: [[q]])",
    ]
    assert "[[p49]]" not in text
    assert len(ProgressLog(tmp_path).read().entries[0]["pages"]) == 50  # the full record stays in the JSONL


def test_extra_fields_cannot_shadow(tmp_path):
    import pytest

    from wikigen.core.errors import WikigenError

    with pytest.raises(WikigenError):
        ProgressLog(tmp_path).append(session=1, agent="a", action="x", time="now")


def test_coverage(tmp_path):
    index = make_index(tmp_path)
    wiki = Wiki.create(tmp_path / "wiki", index)
    q = quote_of(index, "kr/contract", "계약 기간은 1년으로 한다.")
    wiki.write(page("kr", body=quote_body(q)), agent="alice", session=1)
    wiki.write(page("memo", body="x\n", sources=["memos/budget"]), agent="alice", session=1)
    log = ProgressLog(wiki.root)
    log.append(session=1, agent="alice", action="read", docs=["kr/contract", "contracts/acme-msa"])
    cov = coverage(log, wiki, [d.doc_id for d in index.documents()])
    assert cov.read == ["contracts/acme-msa", "kr/contract"]
    assert cov.cited == ["kr/contract", "memos/budget"]
    assert cov.uncited == ["contracts/acme-msa"]
    assert cov.unread == ["memos/budget"]
    assert cov.docs_total == 3


def test_log_md_shows_a_long_list_field_by_its_first_items(tmp_path):
    log = ProgressLog(tmp_path, clock=lambda: "2025-01-02T03:04:05.000Z")
    kinds = [f"kind-{i}" for i in range(10)]
    log.append(session=2, agent="agent-1", action="classified", pages=["doc-x"], kinds=kinds, n_kinds=10)
    text = render_log(log.read())
    assert "kinds: ['kind-0', 'kind-1'] +8 more, n_kinds: 10" in text
    assert "kind-9" not in text and log.read().entries[0]["kinds"] == kinds  # the record keeps them all


def test_log_md_never_shows_the_questions_an_older_dreamer_logged(tmp_path):
    log = ProgressLog(tmp_path, clock=lambda: "2025-01-02T03:04:05.000Z")
    asked = ["What is the password for the reporting database?", "Is [[index]] <b>up</b>?"]
    log.append(session=2, agent="dreamer", action="dream: wrote", pages=["dream-x"], questions=asked, n_questions=2)
    text = render_log(log.read())
    assert "dream: wrote (1 page: [[dream-x]]; n_questions: 2)" in text
    assert "password" not in text and "[[index]]" not in text and "<b>" not in text
