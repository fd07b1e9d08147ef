"""Scan a corpus folder: which files are documents, their stable doc ids, and why others are skipped.

A doc id is the file's relative POSIX path without its extension (``contracts/acme-msa.txt`` ->
``contracts/acme-msa``). When two files would share an id (``a.txt`` and ``a.md``), both keep their
extension. Scanning only stats files; reading and extracting is a separate step (`load`), so an
incremental re-index reads nothing that has not changed.

Nothing here raises for a bad file: a file that cannot be used becomes a `Skipped` with its reason.
Hidden files and folders (names starting with ".") are ignored silently. A file whose name holds a secret
(an access key in `AKIA...-runbook.txt`) is skipped, shown with the secret kept out: its name would become
its doc id, so a page's slug, index.md, the log and the wiki's git history.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from wikigen.search.extract import DEFAULT_MAX_BYTES, SUFFIXES, extract_bytes, unsupported_reason

from wikigen.core.errors import CorpusError, ExtractError
from wikigen.wiki.secrets import Secret, find_secrets, redact

__all__ = [
    "Document",
    "FileEntry",
    "Scan",
    "Skipped",
    "doc_ids_for",
    "load",
    "load_corpus",
    "name_secrets",
    "scan_corpus",
]


@dataclass(frozen=True, slots=True)
class FileEntry:
    """A candidate document found by the scan (stat only, nothing read)."""

    doc_id: str
    path: str  # relative POSIX path inside the corpus
    abs_path: Path
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class Document:
    doc_id: str
    path: str
    text: str
    title: str
    sha256: str
    size: int
    mtime_ns: int
    encoding: str = "utf-8"


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    reason: str


@dataclass(slots=True)
class Scan:
    root: Path
    files: list[FileEntry] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    # files skipped because their name holds a secret: (the path as shown, the secrets), so `check` can
    # tell whether one ever reached the wiki; never printed
    secret_names: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)


# what a name must hold to be worth the detector: an assignment, a card-like digit group, a password's word, or
# a long run of letters and digits mixed (a key or a token); names of words and dates are most names, and a scan
# checks each
_NAME_CANDIDATE = re.compile(r"[=:@]|\d{4}[ _-]?\d{4}[ _-]?\d{4}|(?i:pass|pwd)")
_LONG_RUN = re.compile(r"[A-Za-z0-9]{16,}")


def _may_hold_secret(name: str) -> bool:
    if _NAME_CANDIDATE.search(name):
        return True
    return any(not run.isalpha() and not run.isdigit() for run in _LONG_RUN.findall(name))


def name_secrets(rel_path: str) -> list[Secret]:
    """The secrets in a relative path, found name by name (a folder and a file name are separate words)."""
    out, pos = [], 0
    for part in rel_path.split("/"):
        if _may_hold_secret(part):
            out += [Secret(x.kind, pos + x.start, pos + x.end) for x in find_secrets(part)]
        pos += len(part) + 1
    return out


def doc_ids_for(paths: list[str]) -> dict[str, str]:
    """relative POSIX path -> doc id: the path without extension, or with it when two would collide."""
    by_stem: dict[str, list[str]] = defaultdict(list)
    for p in paths:
        pp = PurePosixPath(p)
        stem = str(pp.with_suffix("")) if pp.suffix else p
        by_stem[stem].append(p)
    out: dict[str, str] = {}
    for stem, group in by_stem.items():
        if len(group) == 1:
            out[group[0]] = stem
        else:
            for p in group:
                out[p] = p
    # a kept-extension id could equal another file's stemmed id ("a.txt" from a.txt.md): keep paths
    seen: dict[str, int] = defaultdict(int)
    for v in out.values():
        seen[v] += 1
    for p, v in list(out.items()):
        if seen[v] > 1:
            out[p] = p
    return out


def _is_within(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


def scan_corpus(root: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, exclude: list[Path] | None = None) -> Scan:
    """Walk root (without following folder symlinks) and sort files into candidates and skipped.

    exclude: folders inside root to leave out (the index folder when it lives in the corpus).
    Raises CorpusError only when root itself is not a readable folder.
    """
    root = Path(root)
    if not root.exists():
        raise CorpusError(f"corpus folder {root} does not exist")
    if not root.is_dir():
        raise CorpusError(f"corpus {root} is not a folder")
    real_root = root.resolve()
    excluded = {p.resolve() for p in (exclude or [])}
    scan = Scan(root=real_root)
    found: list[tuple[str, Path, os.stat_result]] = []

    def rel(p: Path) -> str:
        return p.relative_to(real_root).as_posix()

    def onerror(err: OSError) -> None:
        name = Path(err.filename) if err.filename else real_root
        try:
            r = rel(name.resolve() if not name.is_absolute() else name)
        except ValueError:
            r = str(name)
        scan.skipped.append(Skipped(r or ".", f"unreadable folder: {err.strerror or err}"))

    for dirpath, dirnames, filenames in os.walk(real_root, onerror=onerror, followlinks=False):
        d = Path(dirpath)
        keep = []
        for name in sorted(dirnames):
            if name.startswith("."):
                continue
            sub = d / name
            if sub.is_symlink():
                scan.skipped.append(Skipped(rel(sub), _symlink_reason(sub, real_root, folder=True)))
                continue
            if sub in excluded:
                continue
            keep.append(name)
        dirnames[:] = keep
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            p = d / name
            r = rel(p)
            if _odd_name(r):
                scan.skipped.append(
                    Skipped(
                        r.encode("unicode_escape").decode("ascii"),
                        "file name holds a control character (newline, CR, tab...); rename the file to index it",
                    )
                )
                continue
            in_name = name_secrets(r)
            if in_name:  # a name is shown everywhere (doc id, page slug, index, log, commits): never a secret's
                kinds = ", ".join(dict.fromkeys(x.kind for x in in_name))
                shown = redact(r, in_name)
                scan.skipped.append(
                    Skipped(
                        shown, f"its name holds a secret ({kinds}); rename the file to index it, and rotate the secret"
                    )
                )
                scan.secret_names.append((shown, tuple(r[x.start : x.end] for x in in_name)))
                continue
            suffix = p.suffix.lower()
            if p.is_symlink():
                reason = _symlink_reason(p, real_root, folder=False)
                if reason:
                    scan.skipped.append(Skipped(r, reason))
                    continue
            if suffix not in SUFFIXES:
                scan.skipped.append(Skipped(r, unsupported_reason(suffix)))
                continue
            try:
                st = p.stat()
            except OSError as e:
                scan.skipped.append(Skipped(r, f"cannot stat: {e.strerror or e}"))
                continue
            if not stat.S_ISREG(st.st_mode):
                scan.skipped.append(Skipped(r, "not a regular file"))
                continue
            if st.st_size == 0:
                scan.skipped.append(Skipped(r, "empty file"))
                continue
            if st.st_size > max_bytes:
                scan.skipped.append(Skipped(r, f"too large: {_mb(st.st_size)} over the {_mb(max_bytes)} limit"))
                continue
            found.append((r, p, st))

    ids = doc_ids_for([r for r, _, _ in found])
    scan.files = [FileEntry(ids[r], r, p, st.st_size, st.st_mtime_ns) for r, p, st in found]
    scan.files.sort(key=lambda f: f.path)
    scan.skipped.sort(key=lambda s: s.path)
    return scan


def _odd_name(rel_path: str) -> bool:
    """A path a doc id, a quote header or a log line cannot carry: control or line/paragraph separators."""
    return any(unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") or c == "\ufeff" for c in rel_path)


def _mb(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 100_000 else f"{n} bytes"


def _symlink_reason(p: Path, root: Path, *, folder: bool) -> str:
    """'' when a file symlink points to a usable place inside the corpus, else the skip reason."""
    try:
        target = p.resolve(strict=True)
    except RuntimeError:
        return "symlink loop"
    except FileNotFoundError:
        return "broken symlink"
    except OSError as e:
        if getattr(e, "errno", None) == 40:  # ELOOP
            return "symlink loop"
        return f"unresolvable symlink: {e.strerror or e}"
    if not _is_within(target, root):
        return "symlink points outside the corpus"
    if folder:
        return "symlinked folder not followed (its files are indexed at their real path)"
    return ""


def read_and_hash(entry: FileEntry) -> tuple[bytes, str]:
    """The file's bytes and their sha256. Raises ExtractError when it cannot be read."""
    try:
        with open(entry.abs_path, "rb") as f:
            data = f.read()
    except PermissionError:
        raise ExtractError("unreadable: permission denied") from None
    except OSError as e:
        raise ExtractError(f"unreadable: {e.strerror or e}") from None
    return data, hashlib.sha256(data).hexdigest()


def load(entry: FileEntry, data: bytes | None = None, sha256: str | None = None) -> Document | Skipped:
    """Read (unless data is given) and extract one file. Never raises for a bad file."""
    try:
        if data is None or sha256 is None:
            data, sha256 = read_and_hash(entry)
        ex = extract_bytes(data, Path(entry.path).suffix)
    except ExtractError as e:
        return Skipped(entry.path, str(e))
    return Document(entry.doc_id, entry.path, ex.text, ex.title, sha256, len(data), entry.mtime_ns, ex.encoding)


def load_corpus(root: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[list[Document], list[Skipped]]:
    """Every usable document of a corpus folder, and the skipped files with their reasons."""
    scan = scan_corpus(root, max_bytes=max_bytes)
    docs: list[Document] = []
    skipped = list(scan.skipped)
    for entry in scan.files:
        r = load(entry)
        if isinstance(r, Document):
            docs.append(r)
        else:
            skipped.append(r)
    skipped.sort(key=lambda s: s.path)
    return docs, skipped
