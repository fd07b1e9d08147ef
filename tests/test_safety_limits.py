"""Issue 25, item 9: resource limits. A zip-bomb .docx is a reported skip, not gigabytes of memory; `serve`
lets go of half-open and idle connections; `wikigen mcp` answers a line that is not JSON-RPC with a
JSON-RPC error instead of dropping it."""

from __future__ import annotations

import io
import json
import os
import select
import socket
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest
from test_offline_agent import make_corpus

from wikigen.cli import main

REPO = Path(__file__).resolve().parent.parent
DOCX = REPO / "corpora" / "acme" / "policies" / "calibration-policy.docx"


def zip_bomb_docx(unpacked_mb: int) -> bytes:
    """A real .docx whose word/document.xml holds `unpacked_mb` MB of paragraphs of one letter: a few
    hundred KB on disk."""
    src = zipfile.ZipFile(DOCX)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename != "word/document.xml":
                z.writestr(info.filename, data)
                continue
            xml = data.decode("utf-8")
            cut = xml.index("<w:body>") + len("<w:body>")
            with z.open("word/document.xml", "w", force_zip64=True) as f:
                f.write(xml[:cut].encode())
                para = b"<w:p><w:r><w:t>" + b"A" * 980 + b"</w:t></w:r></w:p>"
                chunk = para * 1000
                for _ in range(unpacked_mb):
                    f.write(chunk)
                f.write(xml[cut:].encode())
    return out.getvalue()


# VmHWM, not ru_maxrss: Linux carries ru_maxrss across exec, so a child of a large pytest process would
# report the parent's size; VmHWM is the peak of this process's own memory since it started.
PEAK = """
import re, sys
from pathlib import Path
from wikigen.search.index import CorpusIndex
_, summary = CorpusIndex.build(Path(sys.argv[1]), Path(sys.argv[2]), workers=1)
print([r for p, r in summary.skipped if p.endswith("bomb.docx")], summary.documents)
print(int(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1)) // 1024)
"""


def test_a_zip_bomb_docx_is_skipped_with_a_reason_in_little_memory(tmp_path):
    corpus = make_corpus(tmp_path, docs=2)
    bomb = zip_bomb_docx(60)
    assert len(bomb) < 1_000_000
    (corpus / "bomb.docx").write_bytes(bomb)
    proc = subprocess.run(
        [sys.executable, "-c", PEAK, str(corpus), str(tmp_path / "idx")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    reasons, peak_mb = proc.stdout.strip().splitlines()
    assert "unpacks to" in reasons and "zip bomb" in reasons
    assert reasons.endswith(" 2")  # the two other documents are indexed
    assert int(peak_mb) < 400, f"peak {peak_mb} MB"


def test_an_ordinary_docx_is_still_read():
    from wikigen.search.extract import extract_bytes

    got = extract_bytes(DOCX.read_bytes(), ".docx")
    assert "calibrat" in got.text.lower()


# --- serve: half-open and idle connections ---------------------------------------------------------


@pytest.fixture
def small_wiki(tmp_path):
    corpus = make_corpus(tmp_path, docs=2)
    wiki = tmp_path / "wiki"
    assert main(["build", str(corpus), "--wiki", str(wiki), "--agents", "1", "--sessions", "1", "--quiet"]) == 0
    return wiki


def _serving(wiki: Path):
    from wikigen.web import server as web_server

    srv = web_server.make_server(wiki, 0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


@pytest.fixture
def server(small_wiki, monkeypatch):
    from wikigen.web import server as web_server

    monkeypatch.setattr(web_server, "READ_TIMEOUT", 3.0, raising=False)
    srv = _serving(small_wiki)
    yield srv
    srv.shutdown()
    srv.server_close()


def _closed_by_server(s: socket.socket, within: float) -> bool:
    s.settimeout(within)
    try:
        while True:
            data = s.recv(4096)
            if not data:
                return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def _get(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return data


def test_half_open_connections_are_let_go_and_the_server_still_answers(server):
    port = server.server_address[1]
    before = threading.active_count()
    socks = []
    for i in range(12):
        s = socket.create_connection(("127.0.0.1", port))
        if i % 3 == 0:
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # headers never finished
        elif i % 3 == 1:
            s.sendall(b"GE")  # the request line never finished
        socks.append(s)  # and a third send nothing at all
    deadline, peak = time.time() + 5, 0
    while peak < before + 12 and time.time() < deadline:
        peak = max(peak, threading.active_count())
        time.sleep(0.01)
    assert peak >= before + 6  # the server took them: a thread each
    assert all(_closed_by_server(s, 15) for s in socks)
    for s in socks:
        s.close()
    deadline = time.time() + 10
    while threading.active_count() > before and time.time() < deadline:
        time.sleep(0.1)
    assert threading.active_count() <= before
    assert _get(port).startswith(b"HTTP/1.0 200")


def test_an_idle_keep_alive_connection_is_let_go(server):
    port = server.server_address[1]
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    s.settimeout(30)
    assert s.recv(65536).startswith(b"HTTP/1.")
    assert _closed_by_server(s, 10)  # no second request: the server closes it after its read timeout
    s.close()


def test_connections_past_the_cap_are_answered_busy_at_once(small_wiki, monkeypatch):
    """Every slot is answering a request (a slow page, held here): the next connection gets 503 at once. (A slot
    whose request is still arriving is let go instead: tests/test_trust_slow_clients.py.)"""
    from wikigen.web import server as web_server

    monkeypatch.setattr(web_server, "READ_TIMEOUT", 20.0)
    monkeypatch.setattr(web_server, "MAX_CONNECTIONS", 2)
    release, answering = threading.Event(), threading.Semaphore(0)
    respond = web_server.LiveSite.respond

    def slow(self, target):
        if target == "/growth.html":
            answering.release()
            release.wait(30)
        return respond(self, target)

    monkeypatch.setattr(web_server.LiveSite, "respond", slow)
    srv = _serving(small_wiki)
    try:
        port = srv.server_address[1]
        held = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(2)]
        for s in held:
            s.sendall(b"GET /growth.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert answering.acquire(timeout=20) and answering.acquire(timeout=20)  # both are being answered
        with socket.create_connection(("127.0.0.1", port), timeout=10) as third:
            assert third.recv(200).startswith(b"HTTP/1.0 503")
        release.set()
        for s in held:
            assert s.recv(200).startswith(b"HTTP/1.0 200")
            s.close()
        deadline = time.time() + 10
        while time.time() < deadline:  # the slots come back when the held connections end
            if _get(port).startswith(b"HTTP/1.0 200"):
                break
            time.sleep(0.2)
        else:
            pytest.fail("the server never served again")
    finally:
        release.set()
        srv.shutdown()
        srv.server_close()


# --- MCP: a line that is not JSON-RPC ----------------------------------------------------------------


def _readline(proc: subprocess.Popen, timeout: float) -> str | None:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    return proc.stdout.readline() if ready else None


def test_mcp_answers_malformed_json_with_a_parse_error_and_keeps_serving(tmp_path):
    corpus = make_corpus(tmp_path, docs=2)
    wiki = tmp_path / "wiki"
    assert main(["build", str(corpus), "--wiki", str(wiki), "--agents", "1", "--sessions", "1", "--quiet"]) == 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "wikigen.cli", "mcp", str(wiki)],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    try:
        proc.stdin.write("{this is not json\n")
        proc.stdin.flush()
        line = _readline(proc, 60)
        assert line is not None, "no answer to a malformed line"
        err = json.loads(line)
        assert err["jsonrpc"] == "2.0" and err["id"] is None and err["error"]["code"] == -32700

        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 7, "no": "method"}) + "\n")  # JSON, not JSON-RPC
        proc.stdin.flush()
        err = json.loads(_readline(proc, 60))
        assert err["id"] is None and err["error"]["code"] == -32600

        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        proc.stdin.write(json.dumps(init) + "\n")
        proc.stdin.flush()
        ok = json.loads(_readline(proc, 60))
        assert ok["id"] == 1 and "result" in ok
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
