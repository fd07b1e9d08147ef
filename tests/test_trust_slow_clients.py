"""Issue 42, item 6: a slow client cannot hold the web server. One byte every few seconds keeps each read within
its timeout, so the whole request has a deadline (`make_server(..., request_deadline=)`, REQUEST_DEADLINE); and
when every connection is taken by requests still arriving, a new one gets the slot of the one that has waited
longest, so 64 such clients do not keep a reader out.

Everything runs on 127.0.0.1 and stops by itself: each dripping loop is bounded, each socket has a timeout.
"""

from __future__ import annotations

import select
import socket
import threading
import time

import pytest
from test_safety_limits import _get, small_wiki  # noqa: F401  (a fixture)

DRIP = 0.5  # seconds between two bytes of a dripping client
HEADER = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 400  # never finished within a test


def _serve(wiki, deadline: float):
    from wikigen.web.server import make_server

    srv = make_server(wiki, 0, request_deadline=deadline)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def _closed(s: socket.socket) -> bool:
    """Whether the server has closed (or reset) the connection: it reads as ended, not as waiting."""
    if not select.select([s], [], [], 0)[0]:
        return False
    try:
        return s.recv(4096) == b""
    except OSError:
        return True


def _drip(s: socket.socket, i: int) -> bool:
    """Send the i-th byte of the never-finished request; False when the server let the connection go."""
    try:
        s.sendall(HEADER[i % len(HEADER) : i % len(HEADER) + 1])
    except OSError:
        return False
    return not _closed(s)


def test_a_client_that_drips_a_byte_every_half_second_is_let_go_at_the_deadline(small_wiki):  # noqa: F811
    srv = _serve(small_wiki, deadline=2.0)
    try:
        with socket.create_connection(("127.0.0.1", srv.server_address[1]), timeout=10) as s:
            began = time.monotonic()
            for i in range(40):  # 20 s at most: far past the deadline, far short of READ_TIMEOUT between bytes
                if not _drip(s, i):
                    break
                time.sleep(DRIP)
            held = time.monotonic() - began
            assert i < 39, f"a dripping client kept its connection for {held:.1f} s"
        assert 1.5 <= held < 8.0, held  # at the deadline (2 s), with room for a loaded machine
        assert _get(srv.server_address[1]).startswith(b"HTTP/1.0 200")
    finally:
        srv.shutdown()
        srv.server_close()


def test_a_reader_is_served_while_64_clients_drip(small_wiki):  # noqa: F811
    from wikigen.web.server import MAX_CONNECTIONS

    srv = _serve(small_wiki, deadline=60.0)  # the drippers stay within it: only making room lets the reader in
    port = srv.server_address[1]
    stop = threading.Event()
    socks = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(MAX_CONNECTIONS)]
    let_go: list[int] = []

    def drip() -> None:
        for i in range(120):  # 60 s at most
            for k, s in enumerate(socks):
                if k not in let_go and not _drip(s, i):
                    let_go.append(k)
            if stop.wait(DRIP):
                return

    dripper = threading.Thread(target=drip, daemon=True)
    dripper.start()
    try:
        time.sleep(3 * DRIP)  # every dripper has its connection and has sent a few bytes
        assert not let_go
        began = time.monotonic()
        reply = _get(port)
        took = time.monotonic() - began
        assert reply.startswith(b"HTTP/1.0 200"), reply[:80]
        assert took < 10.0, took
        time.sleep(3 * DRIP)
        assert len(let_go) == 1  # the one that waited longest made room; the others still drip
    finally:
        stop.set()
        dripper.join(10)
        for s in socks:
            s.close()
        srv.shutdown()
        srv.server_close()


@pytest.mark.parametrize("deadline", [2.0])
def test_a_request_sent_whole_is_answered_well_within_the_deadline(small_wiki, deadline):  # noqa: F811
    srv = _serve(small_wiki, deadline=deadline)
    try:
        with socket.create_connection(("127.0.0.1", srv.server_address[1]), timeout=30) as s:
            s.sendall(b"GET /growth.html HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            time.sleep(deadline / 4)  # headers in two parts, both inside the deadline
            s.sendall(b"\r\n")
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        assert data.startswith(b"HTTP/1.0 200") and b'id="growth-chart"' in data
    finally:
        srv.shutdown()
        srv.server_close()
