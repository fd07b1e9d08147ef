"""`wikigen serve WIKI`: the web view live on 127.0.0.1.

The standard library's ThreadingHTTPServer serves the same pages as the static site (``Views``), re-read
whenever the wiki's files change, plus what needs the server:

* search.html?q=...   pages (the ask page index, wikigen.ask.page_index) and corpus passages
  (CorpusIndex.search), the same searches as the CLI;
* ask.html?q=...&mode=...   the Answerer opened as every surface opens it (Answerer.open: the provisions
  table, the passage vectors, the amendments), so the answer is `wikigen ask`'s: rendered as markdown, each of
  its citations a link to the span it cites, then the context it rests on, each quote linked to its span and
  naming its document by title; the answer's text and spans are also in the page as JSON (#answer-data).

Read-only: GET and HEAD only; nothing is written but the page-index cache `ask` keeps under
WIKI/.wikigen and, for each question asked, a record in the wiki's question log (WIKI/.wikigen/questions.jsonl;
off with log=False, `wikigen serve --no-log`, or the wiki's config). Responses carry a Content-Security-Policy that allows only the package's own scripts
(wikigen.web.views.CSP; every page carries it in a <meta> as well, so the static site has it too),
and a request whose Host is not 127.0.0.1 or localhost is refused (DNS rebinding).

Each connection has a thread; a client that opens one and sends nothing (or half a request) would hold
it for ever, so every read has a timeout (READ_TIMEOUT: the connection is closed when it passes), and the
whole request (request line and headers; GET and HEAD take no body) must arrive within REQUEST_DEADLINE
seconds of the server's first wait for it, however the bytes trickle in (one byte every few seconds keeps
every read within its timeout, never within the deadline). At most MAX_CONNECTIONS connections are served at
once. When all are taken, the connection that has waited longest for its request is let go to make room
(a request still arriving is all it loses: it cannot be one being answered); only when every connection is
being answered is the next one answered 503 and closed at once. So clients that hold connections open
without finishing a request cannot keep others out.
"""

from __future__ import annotations

import contextlib
import io
import logging
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from wikigen.ask.modes import MODES
from wikigen.ask.retrieval import Answerer
from wikigen.core.errors import WikigenError
from wikigen.core.text import normalize_newlines
from wikigen.web.model import SiteData
from wikigen.web.site import static_bytes
from wikigen.web.views import CSP, Views, environment
from wikigen.wiki.freshness import STALE_CHECK_SECONDS
from wikigen.wiki.store import fingerprint

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
SEARCH_K = 20
READ_TIMEOUT = 15.0  # seconds a connection may wait for the next bytes of a request
REQUEST_DEADLINE = 20.0  # seconds the whole request (line and headers) may take to arrive, however it trickles
MAX_CONNECTIONS = 64  # connections served at once (a thread each)
ROOM_WAIT = 5.0  # seconds a new connection waits for the slot of the connection let go to make room for it
BUSY = b"HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
SPAN_CHARS = 1200  # longest quote text shown per span in an answer
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".LICENSE": "text/plain; charset=utf-8",
}


class LiveSite:
    """The wiki as the server sees it: SiteData and the Answerer, rebuilt when the wiki changes."""

    def __init__(self, wiki_root: Path, *, log: bool = True):
        self.root = Path(wiki_root)
        self.log = log
        self._lock = threading.Lock()
        self._ask_lock = threading.Lock()
        self._fp: tuple | None = None
        self._views: Views | None = None
        self._answerer: Answerer | None = None
        self._checked = 0.0  # when the corpus was last looked at for changed sources
        self.views()  # fail now, with the project's error, if the wiki does not open

    def views(self) -> Views:
        fp = fingerprint(self.root)
        with self._lock:
            if self._views is None or fp != self._fp:
                self._views = Views(SiteData.load(self.root), live=True)
                self._fp, self._answerer = fp, None
                self._checked = time.monotonic()
            elif time.monotonic() - self._checked > STALE_CHECK_SECONDS:  # the corpus may change, not the wiki
                self._views.data.check_sources()
                self._checked = time.monotonic()
            return self._views

    def answerer(self, views: Views) -> Answerer:
        with self._lock:
            if self._answerer is None:
                if views.data.sources is None:
                    raise WikigenError(f"the corpus index could not be opened: {views.data.sources_error}")
                # opened as every surface opens it (the provisions table, passage vectors, amendments)
                self._answerer = Answerer.open(self.root, log="web" if self.log else None)
            return self._answerer

    def search(self, views: Views, query: str) -> dict:
        data = views.data
        answerer = self.answerer(views)
        pages = []
        with self._ask_lock:
            for h in answerer.page_index.search(query, k=SEARCH_K):
                p = data.pages.get(h.slug)
                if p is not None:
                    pages.append({"slug": h.slug, "type": h.type, "title": p.title, "description": p.description})
            corpus = answerer.index.search(query, k=SEARCH_K)
        return {"pages": pages, "corpus": corpus}

    def ask(self, views: Views, query: str, mode: str) -> dict:
        """The answer as `wikigen ask --json` gives it (AskResult.to_dict), each context span with the text a
        reader may see of it, and `scope` and `stale` always present (None when the question named no document,
        when no source changed)."""
        answerer = self.answerer(views)
        with self._ask_lock:
            result = answerer.ask(query, mode=mode)
        answer = result.to_dict()
        for c in answer["context"]:
            c.setdefault("stale", [])
            for sp in c["spans"]:  # the verbatim parts: around a secret kept out, never over it
                try:
                    text = normalize_newlines(views.data.excerpt(sp["doc_id"], sp["start"], sp["end"]).text)
                except (KeyError, OSError):
                    text = ""
                if len(text) > SPAN_CHARS:
                    text = text[: SPAN_CHARS - 3] + "..."
                sp["text"] = text
        answer["scope"] = result.named_scope()
        answer.setdefault("stale", None)
        return answer

    def respond(self, target: str) -> tuple[int, str, bytes]:
        """(status, content type, body) for a GET of ``target``."""
        parts = urlsplit(target)
        path = unquote(parts.path).lstrip("/") or "index.html"
        if path.startswith("static/"):
            try:
                name = path[len("static/") :]
                return 200, TYPES.get(Path(name).suffix, "application/octet-stream"), static_bytes(name)
            except KeyError:
                return self._not_found(path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        q = query.get("q", "").strip()
        views = self.views()
        kwargs: dict = {"query": q}
        try:
            if path == "search.html" and q:
                kwargs["search"] = self.search(views, q)
            elif path == "ask.html":
                mode = query.get("mode") or "wiki+search"
                kwargs["mode"] = mode
                if q:
                    if mode not in MODES:
                        raise WikigenError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
                    kwargs["answer"] = self.ask(views, q, mode)
        except WikigenError as e:
            kwargs["error"] = str(e)
        html = views.render(path, **kwargs)
        if html is None:
            return self._not_found(path)
        return 200, TYPES[".html"], html.encode("utf-8")

    def _not_found(self, path: str) -> tuple[int, str, bytes]:
        root = "../" * path.count("/")
        views = self.views()
        html = (
            environment()
            .get_template("notfound.html")
            .render(site=views.data, root=root, live=True, links=views.data.links(root), path=path)
        )
        return 404, TYPES[".html"], html.encode("utf-8")


def _local_host(host: str) -> bool:
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return name in ("127.0.0.1", "localhost", "[::1]")


class _RequestReader(io.RawIOBase):
    """A connection's bytes for the handler's rfile: each read waits at most READ_TIMEOUT, and while a request
    is arriving (`start` .. `arrived`) at most until its deadline; past it the read raises TimeoutError, which
    BaseHTTPRequestHandler answers by closing the connection. `let_go` ends a request still arriving."""

    def __init__(self, sock: socket.socket, deadline: float):
        super().__init__()
        self.sock = sock
        self.deadline = deadline
        self.until: float | None = None  # when the request now arriving must have arrived
        self.let_go = False  # the server took the connection back to make room for another

    def readable(self) -> bool:
        return True

    def start(self) -> None:
        self.until = time.monotonic() + self.deadline

    def arrived(self) -> None:
        self.until = None
        self.sock.settimeout(READ_TIMEOUT)  # what the response's writes wait for

    def readinto(self, b) -> int:
        if self.let_go:
            raise TimeoutError("the connection was let go to make room: its request was still arriving")
        wait = READ_TIMEOUT
        if self.until is not None:
            wait = min(wait, self.until - time.monotonic())
            if wait <= 0:
                raise TimeoutError(f"the request did not arrive within {self.deadline:g} s")
        self.sock.settimeout(wait)
        n = self.sock.recv_into(b)
        if self.let_go:
            raise TimeoutError("the connection was let go to make room: its request was still arriving")
        return n


def _handler(site: LiveSite, deadline: float = REQUEST_DEADLINE) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "wikigen"
        timeout = READ_TIMEOUT  # applied to the socket: a read that waits longer ends the connection
        reader: _RequestReader

        def setup(self) -> None:
            super().setup()
            self.reader = _RequestReader(self.connection, deadline)
            self.rfile = io.BufferedReader(self.reader)

        def handle_one_request(self) -> None:
            """One request, which must arrive within the deadline; while it arrives the server may let the
            connection go to make room (_BoundedServer)."""
            self.reader.start()
            self.server.arriving(self.connection, self.reader)  # type: ignore[attr-defined]
            try:
                super().handle_one_request()
            finally:
                self.server.answering(self.connection)  # type: ignore[attr-defined]

        def parse_request(self) -> bool:
            ok = super().parse_request()  # reads the headers (within the deadline)
            self.server.answering(self.connection, self.reader)  # type: ignore[attr-defined]
            self.reader.arrived()
            return ok

        def _send(self, head_only: bool) -> None:
            try:
                if not _local_host(self.headers.get("Host", "")):
                    # a page on another site that rebinds its name to 127.0.0.1 must not read the wiki
                    status, ctype, body = 403, "text/plain; charset=utf-8", b"only 127.0.0.1 and localhost are served"
                else:
                    status, ctype, body = site.respond(self.path)
            except Exception:
                log.exception("error serving %s", self.path)
                status, ctype, body = 500, "text/plain; charset=utf-8", b"internal error; see the server's log"
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Content-Security-Policy", CSP)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            if not head_only:
                self.wfile.write(body)

        def do_GET(self) -> None:
            self._send(False)

        def do_HEAD(self) -> None:
            self._send(True)

        def log_message(self, format: str, *args) -> None:
            log.debug("%s - %s", self.address_string(), format % args)

    return Handler


class _BoundedServer(ThreadingHTTPServer):
    """A thread per connection, at most MAX_CONNECTIONS at once. Past that, the connection that has waited
    longest for its request is let go and the new one takes its slot; when every connection is being
    answered, the new one gets 503 and is closed."""

    daemon_threads = True

    def __init__(self, address, handler):
        super().__init__(address, handler)
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._arriving: dict[socket.socket, tuple[float, _RequestReader]] = {}  # requests still arriving
        self._arriving_lock = threading.Lock()

    def arriving(self, sock: socket.socket, reader: _RequestReader) -> None:
        with self._arriving_lock:
            self._arriving[sock] = (time.monotonic(), reader)

    def answering(self, sock: socket.socket, reader: _RequestReader | None = None) -> None:
        """The connection's request has arrived (or the connection is done): it is no longer let go for room.
        TimeoutError when it was let go already."""
        with self._arriving_lock:
            self._arriving.pop(sock, None)
            if reader is not None and reader.let_go:
                raise TimeoutError("the connection was let go to make room: its request was still arriving")

    def _make_room(self) -> bool:
        """Let go of the connection that has waited longest for its request; False when there is none."""
        with self._arriving_lock:
            if not self._arriving:
                return False
            sock = min(self._arriving, key=lambda s: self._arriving[s][0])
            _, reader = self._arriving.pop(sock)
            reader.let_go = True
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # its thread's read returns at once, and the thread ends
        log.debug("a connection still sending its request was let go to make room for another")
        return True

    def process_request(self, request, client_address) -> None:
        if not self._slots.acquire(blocking=False) and not (
            self._make_room() and self._slots.acquire(timeout=ROOM_WAIT)
        ):
            with contextlib.suppress(OSError):
                request.sendall(BUSY)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


def make_server(
    wiki_root: Path, port: int = 8000, *, log: bool = True, request_deadline: float = REQUEST_DEADLINE
) -> ThreadingHTTPServer:
    """A server for the wiki on 127.0.0.1:port (0: a free port; see ``server.server_address``); log: each
    question asked is recorded in the wiki's question log; request_deadline: the seconds a whole request may
    take to arrive."""
    try:  # the port first: a busy one is refused before the wiki is read
        server = _BoundedServer((HOST, port), BaseHTTPRequestHandler)
    except OSError as e:
        raise WikigenError(f"cannot listen on {HOST}:{port}: {e.strerror or e}; choose another --port") from None
    try:
        server.RequestHandlerClass = _handler(LiveSite(Path(wiki_root), log=log), request_deadline)
    except BaseException:
        server.server_close()
        raise
    return server


def serve(wiki_root: Path, port: int = 8000, *, ready: Callable[[str], None] | None = None, log: bool = True) -> None:
    """Serve until interrupted; ``ready`` gets the URL once the server listens."""
    server = make_server(wiki_root, port, log=log)
    url = f"http://{HOST}:{server.server_address[1]}/"
    if ready is not None:
        ready(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
