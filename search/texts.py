"""The kept extracted texts: what every character offset in the project refers to.

Each document's extracted text is stored once, exactly (line endings included), so any quote can be
checked against it later. Offsets are Python str indices (code points), never UTF-8 bytes.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import queue
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from wikigen.core import confine
from wikigen.core.atomic import atomic_write, private_dir
from wikigen.core.text import Span, find_spans


class TextStore:
    """Extracted texts on disk, one file each, named by a hash of the doc id (doc ids may hold any character)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._cache: dict[str, str] = {}

    def _path(self, doc_id: str) -> Path:
        h = hashlib.sha1(doc_id.encode("utf-8")).hexdigest()
        return self.root / h[:2] / f"{h}.txt"

    def put(self, doc_id: str, text: str) -> None:
        private_dir(self._path(doc_id).parent)
        atomic_write(self._path(doc_id), text, private=True)
        self._cache.pop(doc_id, None)

    def writer(self) -> TextWriter:
        """A background writer for many texts: see TextWriter."""
        return TextWriter(self)

    def _write_unsynced(self, doc_id: str, text: str, made: set[Path]) -> Path:
        """Write text for doc_id through a temp file and a rename, without fsync (TextWriter syncs once)."""
        path = self._path(doc_id)
        if path.parent not in made:
            private_dir(path.parent)  # extracted texts are private (README "What is kept safe")
            made.add(path.parent)
        tmp = confine.inside(path.with_name(f".{path.name}.tmp"))  # one writer at a time: the index lock is held
        with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
        return path

    def remove(self, doc_id: str) -> None:
        self._cache.pop(doc_id, None)
        confine.remove(self._path(doc_id))

    def has(self, doc_id: str) -> bool:
        return doc_id in self._cache or self._path(doc_id).is_file()

    def text(self, doc_id: str) -> str:
        """The document's extracted text. KeyError when the store has no such document."""
        cached = self._cache.get(doc_id)
        if cached is not None:
            return cached
        try:
            with open(self._path(doc_id), encoding="utf-8", newline="") as f:
                text = f.read()
        except FileNotFoundError:
            raise KeyError(doc_id) from None
        if len(self._cache) > 512:
            self._cache.clear()
        self._cache[doc_id] = text
        return text

    def read(self, doc_id: str, start: int, end: int) -> str:
        return self.text(doc_id)[start:end]

    def locate(self, doc_id: str, needle: str, *, tolerant_whitespace: bool = False) -> list[Span]:
        """Where needle occurs verbatim in the document, as character spans; [] for an unknown document."""
        try:
            text = self.text(doc_id)
        except KeyError:
            return []
        return [Span(doc_id, s, e) for s, e in find_spans(text, needle, tolerant_whitespace=tolerant_whitespace)]


_DONE, _ABORT = object(), object()


class TextWriter:
    """Keep many texts without waiting on them: put() queues, a helper thread writes each one (temp file,
    rename, no fsync), and finish() returns once every text is durable. finish() makes them durable with
    one syncfs(2) of the store's file system, which writes back the data of every file and the renames in
    their folders, then waits for that (far cheaper than an fsync per file, each a journal commit); where
    syncfs is not available, every file and folder is fsynced. Call finish() before anything that refers
    to the texts (the manifest) is written, so that never points to a text that is not on disk.
    """

    def __init__(self, store: TextStore):
        self.store = store
        self._q: queue.SimpleQueue = queue.SimpleQueue()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="wikigen-texts", daemon=True)
        self._thread.start()

    def put(self, doc_id: str, text: str) -> None:
        if self._error is not None:
            raise self._error
        self.store._cache.pop(doc_id, None)
        self._q.put((doc_id, text))

    def finish(self) -> None:
        """Wait until every text put is written and durable; re-raise the writer's error."""
        self._q.put(_DONE)
        self._thread.join()
        if self._error is not None:
            raise self._error

    def abort(self) -> None:
        """Stop after the texts already queued, without syncing them."""
        self._q.put(_ABORT)
        self._thread.join()

    def _run(self) -> None:
        paths: list[Path] = []
        made: set[Path] = set()
        while True:
            item = self._q.get()
            if item is _ABORT:
                return
            if item is _DONE:
                break
            if self._error is None:  # after an error, only drain the queue
                try:
                    paths.append(self.store._write_unsynced(item[0], item[1], made))
                except BaseException as e:
                    self._error = e
        if self._error is None and paths:
            try:
                sync_files(self.store.root, paths)
            except BaseException as e:
                self._error = e


def _syncfs(folder: Path) -> bool:
    """syncfs(2) the file system holding folder; False where there is no syncfs (not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        fn = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return False
    fd = os.open(folder, os.O_RDONLY)
    try:
        if fn(fd) != 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err), str(folder))
    finally:
        os.close(fd)
    return True


def _fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_files(root: Path, paths: list[Path]) -> None:
    """Make the files (written under root) and their folder entries durable."""
    if _syncfs(root):
        return
    folders = sorted({p.parent for p in paths} | {Path(root), Path(root).parent})
    with ThreadPoolExecutor(max_workers=8, thread_name_prefix="textstore-sync") as pool:
        for f in [pool.submit(_fsync_path, p) for p in paths]:
            f.result()
    for d in folders:
        with contextlib.suppress(OSError):  # some platforms cannot fsync a folder
            _fsync_path(d)
