"""A full `wikigen build --backend claude` over real HTTP to the scripted Messages server on 127.0.0.1.

The scripted model is a tiny policy: read the first document of its share, write one page quoting
that document's first line with the exact span it was given, then stop. Two agents run concurrently,
so the policy reads everything it needs from the request itself.
"""

from __future__ import annotations

import json
import re

from fake_messages_server import FakeMessagesServer

from wikigen.cli import main

DOC_RE = re.compile(r'<document doc_id="([^"]+)" start="(\d+)" end="(\d+)"[^>]*>\n')

FILLER = "".join(f"Clause {i}. The parties shall keep records of deliveries made in month {i}.\n" for i in range(1, 40))
DOCS = {
    "supply-orrin.txt": "Supply agreement between Kestrel and Orrin.\nEither party may terminate on 60 days notice.\n",
    "supply-hanbit.txt": "Supply agreement between Kestrel and Hanbit.\nEither party may terminate on 90 days notice.\n",
    "nda-orrin.txt": "Confidentiality agreement with Orrin.\nThe duty of confidence lasts five years.\n",
    "nda-hanbit.txt": "비밀유지계약서 한빛과 케스트럴 사이.\n비밀유지 의무는 3년간 지속된다.\n",
}


def _text(content) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") or json.dumps(b.get("content", "")) for b in content)


def _results(body: dict) -> list[str]:
    out = []
    for m in body["messages"]:
        if m["role"] == "user" and not isinstance(m["content"], str):
            out += [
                b["content"] if isinstance(b["content"], str) else _text(b["content"])
                for b in m["content"]
                if b.get("type") == "tool_result"
            ]
    return out


def read_then_write(body: dict) -> dict | None:
    """A scripted agent's first two turns: read the first document of its share, then write one page
    quoting that document's first line; None once both are done."""
    task = _text(body["messages"][0]["content"])
    named = re.search(r"You are (agent-\d+)", task)
    assert named is not None
    agent = named.group(1)
    share = re.findall(r"^- (\S+)$", task, flags=re.M)
    results = _results(body)
    if not results:
        return {
            "stop_reason": "tool_use",
            "content": [{"type": "tool_use", "name": "read_document", "input": {"doc_id": share[0]}}],
        }
    if len(results) == 1:
        m = DOC_RE.search(results[0])
        assert m is not None
        doc_id, start = m.group(1), int(m.group(2))
        first_line = results[0][m.end() :].split("\n", 1)[0]
        quote = f"> [!quote] {doc_id} (chars {start}-{start + len(first_line)})\n> {first_line}\n"
        return {
            "stop_reason": "tool_use",
            "content": [
                {
                    "type": "tool_use",
                    "name": "write_page",
                    "input": {
                        "slug": f"doc-{agent}",
                        "title": f"What {agent} read",
                        "type": "document",
                        "description": f"The opening of {doc_id}",
                        "body": f"Read by {agent}.\n\n{quote}",
                    },
                }
            ],
        }
    return None


def scripted_model(body: dict) -> dict:
    return read_then_write(body) or {"stop_reason": "end_turn", "content": [{"type": "text", "text": "Page written."}]}


def test_a_full_build_runs_through_a_local_messages_server(tmp_path, monkeypatch, capsys):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in DOCS.items():
        (corpus / name).write_text(text + FILLER, encoding="utf-8")
    wiki = tmp_path / "wiki"

    with FakeMessagesServer() as fake:
        for _ in range(3 * 2):  # three turns for each of the two agents
            fake.enqueue_function(scripted_model)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "local-test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
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
                "--quiet",
            ]
        )

    out = capsys.readouterr().out
    assert code == 0, out
    assert re.search(r"session 1: 2 pages, 2 quotes, \d+ links repaired, ratio [\d.]+, [1-9]\d* tokens", out), out
    assert len(fake.requests) == 6
    assert all(r.headers["authorization"] == "Bearer local-test-key" for r in fake.requests)
    assert all(r.body["system"][-1]["cache_control"]["type"] == "ephemeral" for r in fake.requests)

    pages = json.loads(_cli_json(capsys, ["pages", str(wiki), "--json"]))
    assert sorted(p["front_matter"]["owner"] for p in pages) == ["agent-1", "agent-2"]
    stats = json.loads(_cli_json(capsys, ["stats", str(wiki), "--json"]))
    assert stats["quotes"] == stats["quotes_verified"] == 2
    assert stats["broken_links"] == 0

    log_lines = (wiki / ".wikigen" / "progress.jsonl").read_text(encoding="utf-8").splitlines()
    usage = [json.loads(ln) for ln in log_lines if "usage" in json.loads(ln) or "tokens" in json.loads(ln)]
    assert usage, "token usage of the Claude sessions is recorded in the progress log"
    assert (wiki / "index.md").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus", "wiki"]


def _cli_json(capsys, argv: list[str]) -> str:
    assert main(argv) in (0, 1)
    return capsys.readouterr().out
