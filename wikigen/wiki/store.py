"""Wiki: read, list and write pages with ownership, per-page locks, quote checks and the size guard.

A write: validate slug, owner and fields -> verify every quote (re-anchoring drifted spans) -> under
the page's cross-process lock (WIKI/.wikigen/locks/<slug>.lock) check ownership against the page on
disk -> under the wiki-wide size lock (locks/wiki-size.lock) (held only around the size check and the os.replace) refuse a
write that would push the wiki above max_ratio * corpus characters -> atomic_write. Any error leaves
nothing of the page written. Locks are wikigen.core.locks.file_lock (blocking flocks on POSIX). Writes that do not grow the wiki are never refused by the size guard,
so an oversize wiki can always be shrunk.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wikigen.core import confine
from wikigen.core.atomic import atomic_write, make_private
from wikigen.core.errors import OwnershipError, PageError, SearchIndexError, SizeLimitError, WikigenError
from wikigen.core.locks import file_lock
from wikigen.core.slugs import is_slug
from wikigen.core.text import normalize_newlines
from wikigen.core.tokens import TokenCounter
from wikigen.wiki.freshness import stamp_hashes
from wikigen.wiki.injection import mark_page
from wikigen.wiki.page import Page, is_reserved, parse_page, render_page, validate_owner, validate_page, validate_slug
from wikigen.wiki.provisions import STORE as VALUES_STORE
from wikigen.wiki.provisions import Table, read_table
from wikigen.wiki.quotes import QuoteCheck, verify_page
from wikigen.wiki.secrets import refuse_secrets
from wikigen.wiki.size_guard import SizeTracker
from wikigen.wiki.sources import Sources

log = logging.getLogger(__name__)

STATE_DIR = ".wikigen"
NEAR_LIMIT = 0.98  # above this share of the size limit, a write's size check re-reads every file
CONFIG_VERSION = 1


def not_a_wiki(root: Path) -> WikigenError:
    """The error for a folder that is no wiki, with the command that makes one. A folder that holds files (most
    often the documents themselves) is told to build a wiki of its own beside it, never a build into it."""
    root = Path(root)
    try:
        holds_files = root.is_dir() and any(root.iterdir())
    except OSError:
        holds_files = False
    if holds_files:
        fix = f"if it holds your documents, build a wiki of them with 'wikigen build {root} --wiki {root}-wiki'"
    else:
        fix = f"build one with 'wikigen build CORPUS --wiki {root}'"
    return WikigenError(f"{root} is not a wiki (no {STATE_DIR}/config.json); {fix}")


@dataclass
class WriteResult:
    slug: str
    path: Path
    created: bool
    chars: int
    wiki_chars: int
    ratio: float
    reanchored: list[QuoteCheck] = field(default_factory=list)


def _rel_or_abs(root: Path, p: Path | None) -> str | None:
    if p is None or str(p) in ("", "."):
        return None
    p = Path(p).resolve()
    try:
        return p.relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(p)


def _kept_settings(root: Path) -> dict:
    """The keys of an existing config.json that Wiki.create does not set itself ({} when there is none)."""
    try:
        old = json.loads((root / STATE_DIR / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(old, dict):
        return {}
    return {k: v for k, v in old.items() if k not in ("version", "corpus_dir", "index_dir", "max_ratio")}


class Wiki:
    def __init__(
        self,
        root: Path,
        sources: Sources | None = None,
        *,
        max_ratio: float = 1.0,
        counter: TokenCounter | None = None,
        config: dict | None = None,
        open_sources: Callable[[Path], Sources] | None = None,
    ):
        self.root = Path(root)
        self._sources = sources
        self._open_sources = open_sources
        self.max_ratio = float(max_ratio)
        self.counter = counter
        self.config = config or {}
        self.state = self.root / STATE_DIR
        self.locks = self.state / "locks"
        self._size = SizeTracker(self.root)

    # --- opening -------------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        root: Path,
        sources,
        *,
        max_ratio: float = 1.0,
        counter: TokenCounter | None = None,
        corpus_dir: Path | None = None,
        index_dir: Path | None = None,
    ) -> Wiki:
        """Make (or re-configure) a wiki folder: state dir, config.json, git repository."""
        from wikigen.wiki.history import init_repo

        root = Path(root)
        confine.make_dirs(root / STATE_DIR / "locks", root)  # a state folder linked out of the wiki: refused
        make_private(root / STATE_DIR)  # 0700 folders, 0600 files (README "What is kept safe")
        corpus_dir = corpus_dir or getattr(sources, "corpus_dir", None) or getattr(sources, "root", None) or None
        index_dir = index_dir or getattr(sources, "index_dir", None)
        config = {
            **_kept_settings(root),  # what a person set (e.g. "question_log": false) survives a rebuild
            "version": CONFIG_VERSION,
            "corpus_dir": _rel_or_abs(root, corpus_dir),
            "index_dir": _rel_or_abs(root, index_dir),
            "max_ratio": float(max_ratio),
        }
        atomic_write(root / STATE_DIR / "config.json", json.dumps(config, indent=2) + "\n")
        init_repo(root)
        return cls(root, sources, max_ratio=max_ratio, counter=counter, config=config)

    @classmethod
    def open(
        cls,
        root: Path,
        sources: Sources | None = None,
        *,
        counter: TokenCounter | None = None,
        open_sources: Callable[[Path], Sources] | None = None,
    ) -> Wiki:
        """Open a wiki folder. Without sources, `open_sources(index_dir)` opens the corpus index that
        config.json records, on first use."""
        root = Path(root)
        cfg_path = root / STATE_DIR / "config.json"
        try:
            config = json.loads(cfg_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise not_a_wiki(root) from None
        except ValueError as e:
            raise WikigenError(f"{cfg_path} is not valid JSON: {e}") from None
        confine.make_dirs(root / STATE_DIR / "locks", root)
        return cls(
            root,
            sources,
            max_ratio=config.get("max_ratio", 1.0),
            counter=counter,
            config=config,
            open_sources=open_sources,
        )

    @property
    def sources(self) -> Sources:
        """The corpus the quotes are checked against; opened on first use with `open_sources` and the
        index folder config.json records (see wikigen.search.sources.open_wiki)."""
        if self._sources is None:
            index_dir = self.config.get("index_dir")
            if not index_dir or self._open_sources is None:
                raise SearchIndexError(
                    f"wiki {self.root} has no corpus index attached; open it with "
                    "wikigen.search.sources.open_wiki(root) or Wiki.open(root, sources)"
                )
            path = Path(index_dir)
            if not path.is_absolute():
                path = self.root / path
            self._sources = self._open_sources(path)
        return self._sources

    # --- reading -------------------------------------------------------------------------------

    def files_changed(self) -> None:
        """Files of the wiki were written other than through write() (index.md, log.md): the next size
        check scans the folder again."""
        self._size.invalidate()

    def size_now(self) -> tuple[int, float]:
        """(characters of the wiki's files now, the size limit in characters: max_ratio x the corpus)."""
        return self._size.total_chars(), self.max_ratio * self.sources.corpus_chars

    def table(self) -> Table:
        """The provisions table (wikigen.wiki.provisions), each document whose corpus file changed since it was
        indexed marked stale; unmarked, with a warning, when the corpus index cannot be opened."""
        try:
            sources = self.sources
        except WikigenError as e:
            log.warning("the values are shown without telling which are stale: %s", e)
            sources = None
        return read_table(self.root, sources)

    def path(self, slug: str) -> Path:
        return self.root / f"{validate_slug(slug)}.md"

    def slugs(self) -> list[str]:
        out = []
        for p in self.root.glob("*.md"):
            s = p.stem
            if is_slug(s) and not is_reserved(s) and p.is_file() and not p.is_symlink():
                out.append(s)
        return sorted(out)

    def exists(self, slug: str) -> bool:
        try:
            return self.path(slug).is_file()
        except PageError:
            return False

    def read(self, slug: str) -> Page:
        path = self.path(slug)
        if path.is_symlink():
            raise PageError(f"{path.name} is a symlink; a page must be a regular file inside the wiki")
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise PageError(f"no page {slug!r}; list the pages to find its slug") from None
        try:
            return parse_page(text)
        except PageError as e:
            raise PageError(f"{path.name}: {e}") from None

    def read_generated(self, name: str) -> str:
        """The markdown of a generated page (index: the wiki's entry page, log, conflicts, index-*, provisions-*;
        `wikigen.wiki.page.is_reserved`), as wikigen wrote it; PageError when there is no such page."""
        if not isinstance(name, str) or not is_slug(name) or not is_reserved(name):
            raise PageError(f"{name!r} is no generated page (index, log, conflicts, index-*, provisions-*)")
        path = self.root / f"{name}.md"
        if path.is_symlink():
            raise PageError(f"{path.name} is a symlink; a page must be a regular file inside the wiki")
        try:
            return normalize_newlines(path.read_text(encoding="utf-8", errors="replace"))
        except FileNotFoundError:
            raise PageError(f"no page {name!r} in this wiki yet; it is written after each build session") from None

    def load(self) -> tuple[list[Page], list[str]]:
        """Every page that parses, and one message per file that does not."""
        pages, errors = [], []
        for slug in self.slugs():
            try:
                page = self.read(slug)
            except PageError as e:
                errors.append(str(e))
                continue
            if page.slug != slug:
                errors.append(f"{slug}.md: front matter slug {page.slug!r} differs from the file name")
                continue
            pages.append(page)
        return pages, errors

    def pages(self) -> list[Page]:
        pages, errors = self.load()
        for e in errors:
            log.warning("skipping page: %s", e)
        return pages

    # --- writing -------------------------------------------------------------------------------

    def _lock(self, name: str):
        """The cross-process lock WIKI/.wikigen/locks/<name>.lock."""
        return file_lock(self.locks / f"{name}.lock")

    def write(self, page: Page, *, agent: str, session: int) -> WriteResult:
        """Verify, check ownership and size, then write atomically. Raises QuoteError, OwnershipError,
        SizeLimitError or PageError; on any error nothing of the page is written."""
        validate_owner(agent)
        validate_slug(page.slug)
        if page.owner and page.owner != agent:
            raise OwnershipError(
                f"agent {agent!r} cannot write page {page.slug!r} as owner {page.owner!r}; "
                "an agent writes pages it owns"
            )
        page = page.with_(owner=agent)
        validate_page(page)
        page, checks = verify_page(page, self.sources)
        page = stamp_hashes(page, self.sources)
        page = page.with_(body=mark_page(page.body))  # quoted text that addresses an AI agent is marked
        refuse_secrets(page)
        path = self.path(page.slug)
        with self._lock(f"page-{page.slug}"):
            created = not path.exists()
            if not created:
                try:
                    old = parse_page(path.read_text(encoding="utf-8"))
                except PageError as e:
                    raise PageError(
                        f"page {page.slug!r} on disk cannot be read ({e}); fix or remove {path.name}"
                    ) from None
                if old.owner != agent:
                    raise OwnershipError(
                        f"page {page.slug!r} is owned by {old.owner!r}; agent {agent!r} may change only "
                        f"its own pages - write a page of your own and link to [[{page.slug}]]"
                    )
                page = page.with_(created_session=old.created_session, updated_session=session)
            else:
                page = page.with_(created_session=session, updated_session=session)
            text = render_page(page)
            with self._lock("wiki-size"):
                corpus = self.sources.corpus_chars
                limit = self.max_ratio * corpus
                total, old_chars = self._size.sizes_for_write(path.name)
                if total - old_chars + len(text) > NEAR_LIMIT * limit:  # near the limit: exact
                    total, old_chars = self._size.sizes_for_write(path.name, rescan=True)
                new_total = total - old_chars + len(text)
                ratio = new_total / corpus if corpus > 0 else float("inf")
                if new_total > limit and len(text) > old_chars:
                    raise SizeLimitError(
                        f"writing {page.slug!r} would make the wiki {new_total:,} characters, {ratio:.2f}x the corpus "
                        f"({corpus:,}); the limit is {self.max_ratio:.2f}x - shorten this page or merge pages"
                    )
                atomic_write(path, text, root=self.root)
                self._size.wrote(path.name, len(text))
        return WriteResult(
            page.slug, path, created, len(text), new_total, ratio, [c for c in checks if c.status == "reanchored"]
        )


def fingerprint(wiki_root: Path) -> tuple:
    """Changes whenever a page, the values table, the progress log or the config changes (names, sizes,
    mtimes): a reader that keeps what it read of the wiki (the live web view, the MCP tools) reads it again
    when this differs, since a build may run while it serves."""
    root = Path(wiki_root)
    items = []
    for path in [
        *root.glob("*.md"),
        root / VALUES_STORE,
        root / ".wikigen" / "progress.jsonl",
        root / ".wikigen" / "config.json",
    ]:
        try:
            st = path.stat()
        except OSError:
            continue
        items.append((path.name, st.st_size, st.st_mtime_ns))
    return tuple(sorted(items))
