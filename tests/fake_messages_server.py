"""A local Messages-API server that replies from a script: for tests and offline demos of the Claude backend.

    with FakeMessagesServer() as fake:
        fake.enqueue_tool_use("search_corpus", {"query": "termination"})
        fake.enqueue_error(429, retry_after_ms=20)
        fake.enqueue_text("Done.")
        backend = ClaudeBackend(api_key="test", base_url=fake.url)
        ...
        fake.requests[0].body["tools"]          # every request, parsed, with its headers

It speaks just enough of POST /v1/messages (HTTP/1.1, content-length, Bearer or x-api-key) for the
anthropic SDK. Each request takes the next step from the queue; an empty queue replies with an
end_turn text, or, after `loop_forever(name, input)`, with the same tool call every time. Usage in
each reply is a deterministic estimate from the request size, with cache_creation_input_tokens on
the first request that marks a cache_control prefix and cache_read_input_tokens on the ones after.

Run `.venv/bin/python tests/fake_messages_server.py` to serve it on a port for a demo (it logs the URL). It lives
with the tests, not in the package: only the tests and bench/claude_concurrency_bench.py use it.
"""

from __future__ import annotations

import collections
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeMessagesServer", "RecordedRequest"]

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any  # the parsed JSON body (None if it was not JSON)


@dataclass
class _Step:
    kind: str  # reply | function | error | delay | raw
    content: list[dict] = field(default_factory=list)
    stop_reason: str = "end_turn"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    message: str = ""
    delay: float = 0.0
    usage: dict | None = None
    fn: Callable[[dict], dict] | None = None
    raw: bytes = b""
    content_type: str = "application/json"


class FakeMessagesServer:
    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, default_text: str = "Done."):
        self.default_text = default_text
        self.requests: list[RecordedRequest] = []
        self.replies: list[dict] = []  # every message sent back (status 200), in order
        self._steps: collections.deque[_Step] = collections.deque()
        self._forever: _Step | None = None
        self._responder: Callable[[dict], dict] | None = None
        self._lock = threading.Lock()
        self._ids = 0
        self._cached_prefixes: set[str] = set()
        self._httpd = ThreadingHTTPServer((host, port), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # --- lifecycle ------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        host, port = self._httpd.socket.getsockname()[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeMessagesServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-messages", daemon=True
            )
            self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> FakeMessagesServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # --- the script -----------------------------------------------------------------------------

    def enqueue_tool_use(self, name: str, input: Any, *, text: str | None = None, usage: dict | None = None) -> None:
        """A reply with one tool_use block (input may be anything, to script malformed calls), stop_reason tool_use."""
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        content.append({"type": "tool_use", "id": None, "name": name, "input": input})
        self._push(_Step("reply", content, "tool_use", usage=usage))

    def enqueue_tool_uses(self, calls: list[tuple[str, Any]], *, usage: dict | None = None) -> None:
        """One reply with several tool_use blocks."""
        content = [{"type": "tool_use", "id": None, "name": n, "input": i} for n, i in calls]
        self._push(_Step("reply", content, "tool_use", usage=usage))

    def enqueue_text(self, text: str = "Done.", *, stop_reason: str = "end_turn", usage: dict | None = None) -> None:
        self._push(_Step("reply", [{"type": "text", "text": text}], stop_reason, usage=usage))

    def enqueue_reply(self, content: list[dict], stop_reason: str = "end_turn", *, usage: dict | None = None) -> None:
        """A reply with these content blocks verbatim (e.g. an unknown block type); tool_use ids are filled in."""
        self._push(_Step("reply", [dict(b) for b in content], stop_reason, usage=usage))

    def enqueue_function(self, fn: Callable[[dict], dict]) -> None:
        """A reply computed from the request body: fn(body) -> {"content": [...], "stop_reason": ...}.

        Lets a script act on what the tools returned, e.g. quote a span from a read_document result.
        A returned {"status": 429, "message": ..., "headers": {...}} is sent as that HTTP error instead.
        """
        self._push(_Step("function", fn=fn))

    def respond_with(self, fn: Callable[[dict], dict] | None) -> None:
        """Once the queue is empty, answer every request with fn(body), as enqueue_function does (a
        simulated model for load tests); None goes back to the default reply."""
        self._responder = fn

    def enqueue_error(
        self, status: int, *, retry_after_ms: int | None = None, message: str | None = None, times: int = 1
    ) -> None:
        """`times` error replies with this HTTP status (429, 529, 500, 400, ...), optionally with retry-after-ms."""
        headers = {"retry-after-ms": str(retry_after_ms)} if retry_after_ms is not None else {}
        for _ in range(times):
            self._push(_Step("error", status=status, headers=headers, message=message or f"scripted {status} error"))

    def enqueue_raw(
        self, body: bytes | str, *, status: int = 200, content_type: str = "text/html", times: int = 1
    ) -> None:
        """`times` replies with exactly these bytes (a misbehaving endpoint: an HTML page with status 200, a
        truncated JSON body, ...)."""
        data = body.encode("utf-8") if isinstance(body, str) else body
        for _ in range(times):
            self._push(_Step("raw", status=status, raw=data, content_type=content_type))

    def enqueue_delay(self, seconds: float, *, times: int = 1) -> None:
        """`times` requests that wait `seconds` before replying (with the default text), to cause client timeouts."""
        for _ in range(times):
            self._push(_Step("delay", delay=seconds))

    def loop_forever(self, name: str, input: Any) -> None:
        """Once the queue is empty, answer every request with this same tool call (a model that never stops)."""
        self._forever = _Step("reply", [{"type": "tool_use", "id": None, "name": name, "input": input}], "tool_use")

    def pending(self) -> int:
        with self._lock:
            return len(self._steps)

    def _push(self, step: _Step) -> None:
        with self._lock:
            self._steps.append(step)

    # --- serving --------------------------------------------------------------------------------

    def _next_step(self) -> _Step:
        with self._lock:
            if self._steps:
                return self._steps.popleft()
        if self._forever is not None:
            return self._forever
        if self._responder is not None:
            return _Step("function", fn=self._responder)
        return _Step("reply", [{"type": "text", "text": self.default_text}], "end_turn")

    def _record(self, req: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(req)

    def _message(self, step: _Step, body: dict) -> dict:
        content = []
        with self._lock:
            for b in step.content:
                b = json.loads(json.dumps(b))
                if b.get("type") == "tool_use" and not b.get("id"):
                    self._ids += 1
                    b["id"] = f"toolu_{self._ids:04d}"
                content.append(b)
            self._ids += 1
            msg_id = f"msg_{self._ids:04d}"
        reply = {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "fake"),
            "content": content,
            "stop_reason": step.stop_reason,
            "stop_sequence": None,
            "usage": step.usage or self._usage(body, content),
        }
        with self._lock:
            self.replies.append(reply)
        return reply

    def _usage(self, body: dict, content: list[dict]) -> dict:
        prefix = json.dumps([body.get("system"), body.get("tools")], sort_keys=True)
        prefix_tokens = len(prefix) // 4 if "cache_control" in prefix else 0
        with self._lock:
            first = prefix_tokens and prefix not in self._cached_prefixes
            if prefix_tokens:
                self._cached_prefixes.add(prefix)
        return {
            "input_tokens": len(json.dumps(body.get("messages", []))) // 4 + 1,
            "output_tokens": len(json.dumps(content)) // 4 + 1,
            "cache_creation_input_tokens": prefix_tokens if first else 0,
            "cache_read_input_tokens": 0 if first else prefix_tokens,
        }


class _Handler(BaseHTTPRequestHandler):
    """One request to the fake server; `fake` is set by _handler_for."""

    fake: FakeMessagesServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def _send(self, status: int, obj: dict, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header("request-id", f"req_fake_{len(self.fake.requests):04d}")
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing to answer

    def _send_raw(self, step: _Step) -> None:
        """Exactly the scripted bytes (an endpoint that misbehaves: HTML with 200, truncated JSON)."""
        try:
            self.send_response(step.status)
            self.send_header("content-type", step.content_type)
            self.send_header("content-length", str(len(step.raw)))
            self.end_headers()
            self.wfile.write(step.raw)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        err = ERROR_TYPES.get(status, "api_error")
        self._send(status, {"type": "error", "error": {"type": err, "message": message}}, headers)

    def do_POST(self):
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw.decode("utf-8")) if raw else {}
        except (UnicodeDecodeError, json.JSONDecodeError):
            body = None
        self.fake._record(RecordedRequest("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        auth = self.headers.get("authorization", "")
        if not (auth.startswith("Bearer ") and auth[7:].strip()) and not self.headers.get("x-api-key"):
            return self._error(401, "no API key: send Authorization: Bearer KEY or x-api-key")
        if not isinstance(body, dict):
            return self._error(400, "the request body must be a JSON object")
        path = self.path.split("?", 1)[0]
        if path == "/v1/messages/count_tokens":
            return self._send(200, {"input_tokens": len(json.dumps(body)) // 4 + 1})
        if path != "/v1/messages":
            return self._error(404, f"no route {path}")
        return self._answer(body)

    def _answer(self, body: dict) -> None:
        """The next scripted step's answer to a Messages request."""
        step = self.fake._next_step()
        if step.kind == "raw":
            return self._send_raw(step)
        if step.kind == "error":
            return self._error(step.status, step.message, step.headers)
        if step.fn is not None:  # a "function" step
            try:
                made = step.fn(body)
            except Exception as e:
                return self._error(400, f"scripted function failed: {type(e).__name__}: {e}")
            if "status" in made:
                return self._error(made["status"], made.get("message", "scripted error"), made.get("headers"))
            step = _Step("reply", made["content"], made.get("stop_reason", "end_turn"), usage=made.get("usage"))
        if step.kind == "delay":
            time.sleep(step.delay)
            step = _Step("reply", [{"type": "text", "text": self.fake.default_text}], "end_turn")
        self._send(200, self.fake._message(step, body))


def _handler_for(fake: FakeMessagesServer) -> type[BaseHTTPRequestHandler]:
    return type("Handler", (_Handler,), {"fake": fake})


def main() -> int:  # pragma: no cover - a manual demo helper
    import logging

    with FakeMessagesServer() as fake:
        logging.basicConfig(level=logging.INFO)
        logging.getLogger(__name__).info("fake Messages API at %s (Ctrl-C to stop)", fake.url)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
