"""Screenshots of the web view for the guide (`make screenshots`): the home page's documents table, a
document page, an answer with its linked citations, the graph and the growth view.

    python -m wikigen.web.screenshots [--wiki WIKI] [--out docs] [--question Q]

Without --wiki it builds the demo wiki first (the same steps as `make demo`, quietly, into a temporary
folder). It writes the wiki's static site to a temporary folder and opens its pages from disk in
headless Chromium, the Debian package at /usr/bin/chromium, driven by Playwright (which downloads no
browser here: it is given the system browser's path); the answer comes from `wikigen serve`'s server,
started on a free port for the shot.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def browser():
    """A headless Chromium from /usr/bin/chromium (RuntimeError, saying why, when it cannot start)."""
    if not CHROMIUM.exists():
        raise RuntimeError(f"{CHROMIUM} is absent: install Debian's chromium package (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise RuntimeError("the playwright package is absent: pip install -e '.[test]'") from None
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def _demo_wiki(tmp: Path) -> Path:
    from wikigen.demo import main as demo

    with contextlib.redirect_stdout(io.StringIO()):
        demo(tmp / "demo")
    return tmp / "demo" / "wiki"


QUESTION = "Which contracts renew automatically?"


def _document_page(site: Path) -> Path:
    """The document page to show: one with a callout (an amendment's note), else with the most quotes."""
    pages = sorted((site / "pages").glob("doc-*.html"))
    if not pages:
        return site / "index.html"
    texts = {p: p.read_text(encoding="utf-8") for p in pages}
    with_callout = sorted(
        (p for p in pages if 'class="callout' in texts[p]), key=lambda p: texts[p].index('class="callout')
    )
    return (with_callout or sorted(pages, key=lambda p: -texts[p].count('class="quote"')))[0]


def take(wiki: Path, out: Path, question: str = QUESTION) -> list[Path]:
    import threading

    from wikigen.web.server import make_server
    from wikigen.web.site import write_site

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="wikigen-shots-") as tmp:
        site = write_site(wiki, Path(tmp) / "site").out
        server = make_server(wiki, 0)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        shots = []
        try:
            with browser() as b:
                page = b.new_page(viewport={"width": 1200, "height": 820}, device_scale_factor=1)
                page.goto((site / "index.html").resolve().as_uri())
                shots.append(out / "home.png")
                page.screenshot(path=str(shots[-1]))
                page.set_viewport_size({"width": 1200, "height": 1400})  # the page's head down to its first callout
                page.goto(_document_page(site).resolve().as_uri())
                shots.append(out / "page.png")
                page.screenshot(path=str(shots[-1]))
                page.set_viewport_size({"width": 1200, "height": 820})
                url = f"http://127.0.0.1:{server.server_address[1]}/ask.html?q={quote(question)}"
                page.goto(url, timeout=300_000)
                shots.append(out / "ask.png")
                page.screenshot(path=str(shots[-1]))
                page.goto((site / "graph.html").resolve().as_uri())
                page.wait_for_function("window.wikigenGraph && window.wikigenGraph.nodes().length > 0")
                page.wait_for_timeout(300)
                shots.append(out / "graph.png")
                page.screenshot(path=str(shots[-1]), full_page=False)
                page.goto((site / "growth.html").resolve().as_uri())
                shots.append(out / "growth.png")
                page.locator("main").screenshot(path=str(shots[-1]))
        finally:
            server.shutdown()
            server.server_close()
        return shots


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wikigen.web.screenshots", description=__doc__.split("\n\n")[0])
    ap.add_argument("--wiki", help="a built wiki (default: build the demo wiki)")
    ap.add_argument("--out", default=str(ROOT / "docs"), help="folder for the PNGs (default docs/)")
    ap.add_argument("--question", default=QUESTION, help=f"the question of the ask shot (default {QUESTION!r})")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="wikigen-demo-") as tmp:
        wiki = Path(args.wiki) if args.wiki else _demo_wiki(Path(tmp))
        try:
            shots = take(wiki, Path(args.out), args.question)
        except RuntimeError as e:
            print(f"Error: {e}", file=sys.stderr)
            return 1
    for s in shots:
        print(f"wrote {s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
