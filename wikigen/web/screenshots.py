"""Screenshots of the demo wiki's graph and growth views for the README (`make screenshots`).

    python -m wikigen.web.screenshots [--wiki WIKI] [--out docs]

Without --wiki it builds the demo wiki first (the same steps as `make demo`, quietly, into a temporary
folder). It writes the wiki's static site to a temporary folder and opens its pages from disk in
headless Chromium, the Debian package at /usr/bin/chromium, driven by Playwright (which downloads no
browser here: it is given the system browser's path).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path

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


def take(wiki: Path, out: Path) -> list[Path]:
    from wikigen.web.site import write_site

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="wikigen-shots-") as tmp:
        site = write_site(wiki, Path(tmp) / "site").out
        shots = []
        with browser() as b:
            page = b.new_page(viewport={"width": 1200, "height": 820}, device_scale_factor=1)
            page.goto((site / "graph.html").resolve().as_uri())
            page.wait_for_function("window.wikigenGraph && window.wikigenGraph.nodes().length > 0")
            page.wait_for_timeout(300)
            shots.append(out / "graph.png")
            page.screenshot(path=str(shots[-1]), full_page=False)
            page.goto((site / "growth.html").resolve().as_uri())
            shots.append(out / "growth.png")
            page.locator("main").screenshot(path=str(shots[-1]))
        return shots


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wikigen.web.screenshots", description=__doc__.split("\n\n")[0])
    ap.add_argument("--wiki", help="a built wiki (default: build the demo wiki)")
    ap.add_argument("--out", default=str(ROOT / "docs"), help="folder for graph.png and growth.png (default docs/)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="wikigen-demo-") as tmp:
        wiki = Path(args.wiki) if args.wiki else _demo_wiki(Path(tmp))
        try:
            shots = take(wiki, Path(args.out))
        except RuntimeError as e:
            print(f"Error: {e}", file=sys.stderr)
            return 1
    for s in shots:
        print(f"wrote {s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
