"""`wikigen site WIKI --out DIR`: the web view written as a static site that opens from disk or any host.

Every page of ``Views.paths()`` is written, plus the package's static files. Page search runs in the
browser over a small JSON index embedded in search.html; corpus search and ask need `wikigen serve`,
and the site says so where they would be.

Safety: the site is never written into the wiki folder (it would be committed with the wiki's history),
and never over a non-empty folder that is not a site written earlier (marked by ``.wikigen-site``).
Rewriting a site first removes the pages/ and sources/ it wrote before, so no stale page stays.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from wikigen.core import confine
from wikigen.core.atomic import atomic_write
from wikigen.core.errors import WikigenError
from wikigen.web.model import SiteData
from wikigen.web.views import STATIC_FILES, Views

MARKER = ".wikigen-site"


@dataclass
class SiteSummary:
    out: Path
    pages: int
    sources: int
    files: int

    def to_text(self) -> str:
        index = (self.out / "index.html").resolve()
        return (
            f"wrote {self.files} files to {self.out}: {self.pages} pages, {self.sources} source views\n"
            f"open {index.as_uri()} in a browser (or serve the folder with any web server)"
        )


def static_bytes(name: str) -> bytes:
    if name not in STATIC_FILES:
        raise KeyError(name)
    return resources.files("wikigen.web").joinpath("static", name).read_bytes()


def _check_out(wiki_root: Path, out: Path) -> None:
    w, o = wiki_root.resolve(), out.resolve()
    if o == w or o.is_relative_to(w):
        raise WikigenError(
            f"--out {out} is inside the wiki folder {wiki_root}; choose a folder outside it "
            "(the wiki's history would commit the site)"
        )
    if w.is_relative_to(o):
        raise WikigenError(f"--out {out} contains the wiki folder {wiki_root}; choose another folder")
    if o.exists() and not o.is_dir():
        raise WikigenError(f"--out {out} is a file, not a folder")
    if o.is_dir() and any(o.iterdir()) and not (o / MARKER).exists():
        raise WikigenError(
            f"--out {out} is a folder that holds other files; give an empty or new folder "
            "(a folder written by 'wikigen site' before is rewritten)"
        )


def write_site(wiki_root: Path, out: Path, *, data: SiteData | None = None) -> SiteSummary:
    """Write the static site of the wiki at ``wiki_root`` into ``out``."""
    wiki_root, out = Path(wiki_root), Path(out)
    _check_out(wiki_root, out)
    data = data or SiteData.load(wiki_root)
    views = Views(data, live=False)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / MARKER, "written by wikigen site; rewritten as a whole by the next run\n", root=out)
    for sub in ("pages", "sources", "static"):  # every write below is kept inside out (wikigen.core.confine)
        confine.remove_tree(out / sub, out)
    n = 0
    for path in views.paths():
        html = views.render(path)
        if html is None:
            continue
        target = out / path
        confine.make_dirs(target.parent, out)
        confine.write_bytes(target, html.encode("utf-8"), out)
        n += 1
    confine.make_dirs(out / "static", out)
    for name in STATIC_FILES:
        confine.write_bytes(out / "static" / name, static_bytes(name), out)
        n += 1
    return SiteSummary(out, len(data.pages) + len(data.generated), len(data.docs), n)
