"""Cost before and during a Claude run: the dry run, --max-tokens / --max-cost, the per-session limits,
and usage and cost per session after the run (on stdout and in the progress log).

The Claude runs go over real HTTP to the local Messages server (tests/fake_messages_server.py),
with a scripted model that reads a document, writes one page quoting it, then searches forever: a model
that never stops, so only the limits end its sessions.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from fake_messages_server import FakeMessagesServer
from test_build_claude import DOCS, FILLER, read_then_write
from wikigen.agents.base import TokenUsage
from wikigen.agents.cost import PRICES, SpendLimit, cost_of, estimate_session, price_for

from wikigen.cli import main

ROOT = Path(__file__).resolve().parent.parent


def endless_model(body: dict) -> dict:
    """Read the first document of the share, write one page quoting its first line, then search forever."""
    return read_then_write(body) or {
        "stop_reason": "tool_use",
        "content": [{"type": "tool_use", "name": "search_corpus", "input": {"query": "terminate notice"}}],
    }


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text + FILLER, encoding="utf-8")
    return folder


@pytest.fixture
def fake(monkeypatch):
    with FakeMessagesServer() as server:
        server.respond_with(endless_model)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "local-test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.delenv("WIKIGEN_MODEL", raising=False)
        yield server


def _log(wiki: Path) -> list[dict]:
    return [
        json.loads(line) for line in (wiki / ".wikigen" / "progress.jsonl").read_text(encoding="utf-8").splitlines()
    ]


# --- the price table and the estimate ----------------------------------------------------------------


def test_price_lookup_exact_dated_family_and_unknown():
    assert price_for("claude-haiku-4-5")[0] == "claude-haiku-4-5"
    assert price_for("claude-opus-4-1-20250805")[0] == "claude-opus-4-1"  # a dated snapshot
    assert price_for("claude-sonnet-4-6")[0] == "claude-sonnet-4-*"  # the Sonnet 4 family price
    assert price_for("claude-opus-4-7") is None  # not guessed from opus 4
    assert price_for("llama-3") is None
    u = TokenUsage(input=1_000_000, output=1_000_000, cache_creation=1_000_000, cache_read=1_000_000)
    p = PRICES["claude-haiku-4-5"]
    assert cost_of(u, p) == pytest.approx(p.input + p.output + p.cache_write + p.cache_read)


def test_estimate_stops_at_the_turn_limit_and_at_the_budget():
    chars, tokens = [30_000] * 10, [7_500] * 10
    free = estimate_session(
        "a", chars, tokens, prefix_tokens=3000, task_tokens=500, token_budget=10**9, max_turns=10**6
    )
    assert free.stopped_by == "done" and free.covered == 1.0 and free.turns == 10 * 5 + 10 + 1
    short = estimate_session("a", chars, tokens, prefix_tokens=3000, task_tokens=500, token_budget=10**9, max_turns=12)
    assert short.stopped_by == "turn_limit" and short.turns == 12 and short.covered < 0.25
    poor = estimate_session(
        "a", chars, tokens, prefix_tokens=3000, task_tokens=500, token_budget=50_000, max_turns=10**6
    )
    assert poor.stopped_by == "budget" and poor.usage.total > 50_000 and poor.turns < free.turns
    # more turns re-send more of the conversation: the cache share of input grows
    assert free.usage.cache_read > short.usage.cache_read


def test_dry_run_prints_the_estimate_and_sends_nothing(corpus, tmp_path, fake, capsys):
    wiki = tmp_path / "wiki"
    args = [
        "build",
        str(corpus),
        "--wiki",
        str(wiki),
        "--backend",
        "claude",
        "--agents",
        "2",
        "--sessions",
        "3",
        "--model",
        "claude-haiku-4-5",
        "--dry-run",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("dry run: 4 documents, ")
    assert "2 agents x 3 sessions, model claude-haiku-4-5" in out
    assert re.search(r"each session: [\d,]+ tokens sent and received, cache share \d+% of input, about \$\d", out)
    assert "prices (claude-haiku-4-5, USD per million tokens): input 1.0, output 5.0" in out
    assert "estimate: cl100k token counts and Anthropic list prices as of" in out
    assert main(args + ["--json"]) == 0
    est = json.loads(capsys.readouterr().out)
    agents = est["per_session"]["agents"]
    assert len(agents) == 2 and sum(a["documents"] for a in agents) == 4
    per = est["per_session"]["usage"]
    assert per == {k: sum(a["usage"][k] for a in agents) for k in per}
    assert est["total"]["usage"] == {k: 3 * v for k, v in per.items()}
    assert est["total"]["cost_usd"] == pytest.approx(3 * est["per_session"]["cost_usd"], rel=1e-3)
    assert fake.requests == [] and not wiki.exists()  # nothing sent, nothing written


# --- limits during a run ----------------------------------------------------------------------------


def test_session_turns_is_an_option(corpus, tmp_path, fake, capsys):
    wiki = tmp_path / "wiki"
    code = main(
        [
            "build",
            str(corpus),
            "--wiki",
            str(wiki),
            "--backend",
            "claude",
            "--agents",
            "2",
            "--sessions",
            "1",
            "--session-turns",
            "4",
            "--quiet",
        ]
    )
    assert code == 0
    assert len(fake.requests) == 2 * 4  # the model never stops: 4 turns each
    finished = [e for e in _log(wiki) if e.get("action") == "session finished"]
    assert sorted(e["stop_reason"] for e in finished) == ["turn_limit", "turn_limit"]
    assert all(e["turns"] == 4 for e in finished)


def test_max_tokens_stops_the_build_cleanly_with_pages_kept(corpus, tmp_path, fake, capsys):
    wiki = tmp_path / "wiki"
    code = main(
        [
            "build",
            str(corpus),
            "--wiki",
            str(wiki),
            "--backend",
            "claude",
            "--agents",
            "2",
            "--sessions",
            "3",
            "--session-turns",
            "1000",
            "--max-tokens",
            "20000",
            "--quiet",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured
    assert re.search(
        r"build stopped after session 1: --max-tokens reached: [\d,]+ tokens used \(limit 20,000\)", captured.err
    )
    lines = [ln for ln in captured.out.splitlines() if ln.startswith("session ")]
    assert len(lines) == 1 and ", about $" in lines[0]  # session 2 and 3 never ran
    assert sorted(p.name for p in wiki.glob("doc-agent-*.md")) == ["doc-agent-1.md", "doc-agent-2.md"]
    finished = [e for e in _log(wiki) if e.get("action") == "session finished"]
    assert {e["stop_reason"] for e in finished} == {"spend_limit"}
    used = sum(sum(e["usage"].values()) for e in finished)
    assert used >= 20_000
    assert len(fake.requests) < 100  # not the 2 x 1000 turns the sessions allowed
    for e in finished:  # cost per session in the progress log
        assert e["cost_usd"] == pytest.approx(
            cost_of(TokenUsage(**e["usage"]), price_for("claude-sonnet-4-6")[1]), abs=1e-6
        )
    m = re.search(
        r"usage: ([\d,]+) tokens \(input [\d,]+, output [\d,]+, cache write [\d,]+, cache read [\d,]+\), "
        r"about \$([\d.]+)",
        captured.out,
    )
    assert m and int(m.group(1).replace(",", "")) == used
    log = subprocess.run(["git", "-C", str(wiki), "log", "--format=%s"], capture_output=True, text=True).stdout
    assert log.startswith("session 1: 2 pages")  # the pages written before the stop are committed
    assert json.loads(_cli(capsys, ["stats", str(wiki), "--json"]))["quotes_verified"] == 2


def test_max_cost_needs_a_known_price(corpus, tmp_path, fake, capsys):
    code = main(
        [
            "build",
            str(corpus),
            "--wiki",
            str(tmp_path / "wiki"),
            "--backend",
            "claude",
            "--model",
            "claude-opus-9",
            "--max-cost",
            "1.5",
            "--quiet",
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "Error: --max-cost needs the model's price, and 'claude-opus-9' is not in the price table" in err
    assert fake.requests == [] and not (tmp_path / "wiki").exists()  # refused before anything was done


def test_spend_limit_is_shared_and_thread_safe():
    import threading

    limit = SpendLimit(max_tokens=10_000)

    def spend():
        for _ in range(100):
            limit.add(TokenUsage(input=10, output=10))

    threads = [threading.Thread(target=spend) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert limit.usage.total == 8 * 100 * 20
    assert limit.exceeded() == "--max-tokens reached: 16,000 tokens used (limit 10,000)"


def _cli(capsys, argv) -> str:
    main(argv)
    return capsys.readouterr().out
