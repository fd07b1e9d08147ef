"""`wikigen serve WIKI`: the web view live on 127.0.0.1.

The standard library's ThreadingHTTPServer serves the same pages as the static site (``Views``), re-read
whenever the wiki's files change, plus what needs the server:

* search.html?q=...   pages (the ask page index, wikigen.ask.page_index) and corpus passages
  (CorpusIndex.search), the same searches as the CLI;
* ask.html?q=...&mode=...   wikigen.ask.retrieval.Answerer: the answer rendered as markdown, each of its
  citations a link to the span it cites, then the context it rests on, each quote linked to its span.

Read-only: GET and HEAD only; nothing is written but the page-index cache `ask` keeps under
WIKI/.wikigen and, for each question asked, a record in the wiki's question log (WIKI/.wikigen/questions.jsonl;
off with log=False, `wikigen serve --no-log`, or the wiki's config). Responses carry a Content-Security-Policy that allows only the package's own scripts
(wikigen.web.views.CSP; every page carries it in a <meta> as well, so the static site has it too),
and a request whose Host is not 127.0.0.1 or localhost is refused (DNS rebinding).

Each connection has a thread; a client that opens one and sends nothing (or half a request) would hold
it for ever, so every read has a timeout (READ_TIMEOUT: the connection is closed when it passes), and at
most MAX_CONNECTIONS connections are served at once (the next is answered 503 and closed at once).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from wikigen.ask.modes import MODES
from wikigen.ask.retrieval import STALE_CHECK_SECONDS, Answerer
from wikigen.core.errors import WikigenError
from wikigen.core.text import normalize_newlines
from wikigen.web.model import SiteData
from wikigen.web.site import static_bytes
from wikigen.web.views import CSP, Views, environment
from wikigen.wiki.question_log import open_question_log
from wikigen.wiki.store import fingerprint

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
SEARCH_K = 20
READ_TIMEOUT = 15.0  # seconds a connection may wait for the next bytes of a request
MAX_CONNECTIONS = 64  # connections served at once (a thread each)
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
                data = views.data
                if data.sources is None:
                    raise WikigenError(f"the corpus index could not be opened: {data.sources_error}")
                self._answerer = Answerer(
                    data.sources,
                    list(data.pages.values()),
                    cache_dir=self.root / ".wikigen" / "page-index",
                    wiki_root=self.root,
                    question_log=open_question_log(self.root, "web") if self.log else None,
                )
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
        answerer = self.answerer(views)
        with self._ask_lock:
            result = answerer.ask(query, mode=mode)
        context = []
        for c in result.context:
            spans = []
            for sp in c.spans:  # the verbatim parts: around a secret kept out, never over it
                try:
                    text = normalize_newlines(views.data.excerpt(sp["doc_id"], sp["start"], sp["end"]).text)
                except (KeyError, OSError):
                    text = ""
                if len(text) > SPAN_CHARS:
                    text = text[: SPAN_CHARS - 3] + "..."
                spans.append({**sp, "text": text})
            context.append({"kind": c.kind, "ref": c.ref, "spans": spans, "stale": c.stale})
        return {
            "answer": result.answer,
            "answer_spans": [dict(s) for s in result.answer_spans or []],
            "mode": result.mode,
            "tokens": result.tokens,
            "context": context,
            "stale": result.stale,
            "scope": result.named_scope(),
        }

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


def _handler(site: LiveSite) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "wikigen"
        timeout = READ_TIMEOUT  # applied to the socket: a read that waits longer ends the connection

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
    """A thread per connection, at most MAX_CONNECTIONS at once: past that a connection gets 503 and is closed."""

    daemon_threads = True

    def __init__(self, address, handler):
        super().__init__(address, handler)
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request, client_address) -> None:
        if not self._slots.acquire(blocking=False):
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


def make_server(wiki_root: Path, port: int = 8000, *, log: bool = True) -> ThreadingHTTPServer:
    """A server for the wiki on 127.0.0.1:port (0: a free port; see ``server.server_address``); log: each
    question asked is recorded in the wiki's question log."""
    try:  # the port first: a busy one is refused before the wiki is read
        server = _BoundedServer((HOST, port), BaseHTTPRequestHandler)
    except OSError as e:
        raise WikigenError(f"cannot listen on {HOST}:{port}: {e.strerror or e}; choose another --port") from None
    try:
        server.RequestHandlerClass = _handler(LiveSite(Path(wiki_root), log=log))
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
