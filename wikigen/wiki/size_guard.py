"""Wiki size against corpus size, in characters, bytes and tokens.

What counts as the wiki: every ``.md`` file under the wiki folder that an agent writes, skipping hidden
folders (.wikigen/, .git/, .obsidian/) and archive/. The generated bookkeeping at the top of the wiki
(the files with reserved names: index.md, index-*.md, log.md, conflicts.md, provisions-*.md) is measured and reported
beside the ratio, not inside it: wikigen rewrites it after every session, the log grows by a session
with every build whatever the agents write, and no agent can shrink it, so counting it made the wiki of
an unchanged corpus climb past its limit by being rebuilt (a 3-document corpus stopped after 11 builds).
The write-time check, `wikigen build`, `check` and `stats` all measure this way (one definition).

* The write-time check (``SizeTracker``) uses characters: cheap, and exact across processes. It keeps
  a per-file cache keyed by (inode, size, mtime) so a check re-reads only files that changed.
* Reports (``check_size``) add tokens from the injectable counter, cached by content hash in
  ``.wikigen/cache/tokens.json``. The level is decided by the larger of the character and token
  ratios: ``stop`` above ``max_ratio``, ``warn`` from ``warn_fraction * max_ratio`` on, else ``ok``.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from wikigen.core import confine
from wikigen.core.atomic import atomic_write
from wikigen.core.tokens import TokenCounter
from wikigen.wiki.page import is_reserved

WARN_FRACTION = 0.8


def generated_files(root: Path) -> list[Path]:
    """The generated bookkeeping: the .md files at the top of the wiki whose names are reserved (index.md,
    index-*.md, log.md, conflicts.md), sorted."""
    return sorted(p for p in Path(root).glob("*.md") if is_reserved(p.stem) and p.is_file() and not p.is_symlink())


def wiki_files(root: Path) -> list[Path]:
    """Every .md file of the wiki that counts against its size limit, sorted: outside hidden folders and
    the archive of deprecated pages, and not generated bookkeeping (see generated_files)."""
    generated = set(generated_files(root))
    out: list[Path] = []
    archive = os.path.join(str(root), "archive")
    stack = [Path(root)]
    while stack:
        d = stack.pop()
        try:
            entries = list(os.scandir(d))
        except FileNotFoundError:
            continue
        for e in entries:
            if e.name.startswith("."):
                continue
            if e.is_dir(follow_symlinks=False):
                if e.path != archive:  # deprecated pages (wikigen.wiki.freshness) are history, not size
                    stack.append(Path(e.path))
            elif e.name.endswith(".md") and e.is_file(follow_symlinks=False) and Path(e.path) not in generated:
                out.append(Path(e.path))
    return sorted(out)


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        return f.read()


class SizeTracker:
    """Total characters of the wiki's .md files, recomputed cheaply (stat everything, read what changed)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._cache: dict[str, tuple[tuple[int, int, int], int]] = {}
        self._lock = threading.Lock()
        self._known: dict[str, int] | None = None  # file -> chars as of the last scan plus own writes
        self._known_stamp: tuple[int, int] | None = None
        self._known_total = 0

    def file_chars(self) -> dict[str, int]:
        with self._lock:
            seen: dict[str, int] = {}
            for path in wiki_files(self.root):
                try:
                    st = path.stat()
                except FileNotFoundError:
                    continue
                key = (st.st_ino, st.st_size, st.st_mtime_ns)
                rel = path.relative_to(self.root).as_posix()
                hit = self._cache.get(rel)
                if hit is None or hit[0] != key:
                    try:
                        hit = (key, len(_read(path)))
                    except FileNotFoundError:
                        continue
                    self._cache[rel] = hit
                seen[rel] = hit[1]
            for rel in set(self._cache) - set(seen):
                del self._cache[rel]
            return seen

    def total_chars(self) -> int:
        return sum(self.file_chars().values())

    # --- the write-time check, without a scan of every file per write --------------------------------
    # A full scan stats every page, so a check per write made a build's page writing grow with the
    # square of the wiki (measured: bench/scale_bench.py). Between scans the tracker keeps the files'
    # sizes and is told of its own writes; it scans again when the wiki folder may have changed behind
    # it: another writer bumped the shared write generation, or the folder's mtime moved.

    def _generation_path(self) -> Path:
        return self.root / ".wikigen" / "locks" / "size-generation"

    def _stamp(self) -> tuple[int, int]:
        try:
            gen = int(self._generation_path().read_text() or 0)
        except (FileNotFoundError, ValueError):
            gen = 0
        try:
            mtime = os.stat(self.root).st_mtime_ns
        except FileNotFoundError:
            mtime = 0
        return mtime, gen

    def sizes_for_write(self, name: str, *, rescan: bool = False) -> tuple[int, int]:
        """(total characters of the wiki, characters of file `name` now). Call it holding the wiki-wide
        size lock; rescan=True forces a full scan (the store does, near the limit, so it is exact there)."""
        stamp = self._stamp()
        with self._lock:
            fresh = self._known is not None and stamp == self._known_stamp and not rescan
        if not fresh:
            known = self.file_chars()
            with self._lock:
                self._known, self._known_stamp = dict(known), stamp
                self._known_total = sum(known.values())
        with self._lock:
            return self._known_total, (self._known or {}).get(name, 0)

    def wrote(self, name: str, chars: int) -> None:
        """Tell the tracker of a write it has just made (still holding the size lock)."""
        gen_path = self._generation_path()
        _, gen = self._stamp()
        confine.make_dirs(gen_path.parent, self.root)
        confine.write_bytes(gen_path, str(gen + 1).encode("ascii"), self.root)
        with self._lock:
            if self._known is None:
                return
            self._known_total += chars - self._known.get(name, 0)
            self._known[name] = chars
            self._known_stamp = self._stamp()

    def invalidate(self) -> None:
        """Files were written behind the tracker (the index, the log): scan again at the next check."""
        with self._lock:
            self._known = None


class TokenCache:
    """Token counts by content hash, so stats over an unchanged wiki do not tokenize again."""

    def __init__(self, path: Path | None, counter: TokenCounter):
        self.path = Path(path) if path else None
        self.counter = counter
        self._name = type(counter).__name__
        self._data: dict[str, int] = {}
        self._dirty = False
        if self.path and self.path.is_file():
            try:
                self._data = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                self._data = {}

    def count_many(self, texts: list[str]) -> list[int]:
        keys = [f"{self._name}:{hashlib.sha1(t.encode('utf-8')).hexdigest()}" for t in texts]
        todo = [i for i, k in enumerate(keys) if k not in self._data]
        if todo:
            for i, n in zip(todo, self.counter.count_many([texts[i] for i in todo])):
                self._data[keys[i]] = n
            self._dirty = True
        return [self._data[k] for k in keys]

    def save(self) -> None:
        if self.path and self._dirty:
            live = self._data
            atomic_write(self.path, json.dumps(live, separators=(",", ":")))
            self._dirty = False


@dataclass
class WikiSize:
    files: dict[str, int]  # relative path -> characters (the pages that count)
    chars: int
    bytes: int
    tokens: int | None
    file_tokens: dict[str, int] = field(default_factory=dict)
    generated: dict[str, int] = field(default_factory=dict)  # bookkeeping file -> characters (not counted)

    @property
    def generated_chars(self) -> int:
        return sum(self.generated.values())


def measure_wiki(root: Path, counter: TokenCounter | None = None, *, cache_path: Path | None = None) -> WikiSize:
    root = Path(root)
    texts: dict[str, str] = {}
    for path in wiki_files(root):
        try:
            texts[path.relative_to(root).as_posix()] = _read(path)
        except FileNotFoundError:
            continue
    files = {k: len(v) for k, v in texts.items()}
    generated = {}
    for path in generated_files(root):
        try:
            generated[path.name] = len(_read(path))
        except FileNotFoundError:
            continue
    nbytes = sum(len(v.encode("utf-8")) for v in texts.values())
    tokens, file_tokens = None, {}
    if counter is not None:
        cache = TokenCache(cache_path, counter)
        counts = cache.count_many(list(texts.values()))
        cache.save()
        file_tokens = dict(zip(texts, counts))
        tokens = sum(counts)
    return WikiSize(files, sum(files.values()), nbytes, tokens, file_tokens, generated)


def _ratio(a: int, b: int) -> float:
    if b <= 0:
        return 0.0 if a == 0 else float("inf")
    return a / b


@dataclass
class SizeReport:
    level: str  # ok | warn | stop
    message: str
    max_ratio: float
    wiki_chars: int
    wiki_bytes: int
    wiki_tokens: int | None
    corpus_chars: int
    corpus_tokens: int | None
    ratio_chars: float
    ratio_tokens: float | None
    largest: list[tuple[str, int]]  # (file, characters), largest first
    generated: list[tuple[str, int]] = field(default_factory=list)  # bookkeeping (file, characters): not counted

    @property
    def generated_chars(self) -> int:
        return sum(c for _, c in self.generated)

    @property
    def ok(self) -> bool:
        return self.level == "ok"


def check_size(
    root: Path,
    corpus_chars: int,
    corpus_tokens: int | None = None,
    *,
    max_ratio: float = 1.0,
    counter: TokenCounter | None = None,
    warn_fraction: float = WARN_FRACTION,
    cache_path: Path | None = None,
    top: int = 5,
) -> SizeReport:
    """How the wiki's size stands against the corpus: ok, warn (approaching max_ratio) or stop (above it)."""
    root = Path(root)
    if cache_path is None and (root / ".wikigen").is_dir():
        cache_path = root / ".wikigen" / "cache" / "tokens.json"
    size = measure_wiki(root, counter if corpus_tokens is not None else None, cache_path=cache_path)
    r_chars = _ratio(size.chars, corpus_chars)
    r_tokens = _ratio(size.tokens, corpus_tokens) if size.tokens is not None and corpus_tokens is not None else None
    largest = sorted(size.files.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    if r_tokens is not None and r_tokens > r_chars:
        ratio, unit, have, of = r_tokens, "tokens", size.tokens, corpus_tokens
    else:
        ratio, unit, have, of = r_chars, "characters", size.chars, corpus_chars
    if ratio > max_ratio:
        level = "stop"
    elif ratio >= warn_fraction * max_ratio:
        level = "warn"
    else:
        level = "ok"
    names = ", ".join(f"{n} ({c:,} chars)" for n, c in largest) or "none"
    state = {"stop": "is larger than allowed", "warn": "is approaching the limit", "ok": "is within the limit"}[level]
    message = (
        f"wiki {state}: {ratio:.2f}x the corpus in {unit} ({have:,} of {of:,}); "
        f"limit {max_ratio:.2f}x; largest pages: {names}"
    )
    if size.generated:
        message += (
            f"; generated bookkeeping not counted: {', '.join(sorted(size.generated))} ({size.generated_chars:,} chars)"
        )
    if level == "stop":
        message += " - stop the build, then shorten or merge the largest pages"
    return SizeReport(
        level,
        message,
        max_ratio,
        size.chars,
        size.bytes,
        size.tokens,
        corpus_chars,
        corpus_tokens,
        r_chars,
        r_tokens,
        largest,
        sorted(size.generated.items()),
    )
