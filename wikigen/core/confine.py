"""Writes that stay in their folder: the one guard for every write, move and delete under a wiki (its pages,
archive/, the .wikigen state), an export folder or an index folder.

    inside(path, root=None) -> path      OutsideRootError when path, its symlinks followed, leaves root
    remove(path, root=None)              unlink, after the same check (a missing file is fine)
    remove_tree(path, root=None)         rmtree, after the same check
    make_dirs(path, root=None)           mkdir -p, after the same check
    rename(src, dst, root=None)          os.rename, both paths checked
    write_bytes(path, data, root=None)   a plain write (not atomic), after the check: files rebuilt whole
    links_out(root) -> [(rel, target)]   the symlinks under root that lead outside it (`wikigen check`)

A symlink inside a wiki (`ln -s /elsewhere WIKI/archive`) would otherwise carry a write, a move or a
delete to wherever it points. Each operation resolves its path (os.path.realpath: every symlink on the
way followed) and refuses, with the link named, a path that is not the root or under it. The root is the
folder the caller names (the wiki, the export folder); for a path inside a wiki's state folder
(`WIKI/.wikigen/...`) it is, when not named, the folder that holds `.wikigen`, read from the path as
written, so every state file and cache is confined without its writer having to know the wiki.
Symlinks that stay inside the root are followed as usual. The check runs just before the operation; a
link swapped in between the two is not caught (nothing here holds the folder open).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from wikigen.core.errors import OutsideRootError

STATE_DIR = ".wikigen"  # a wiki's state folder: paths under it are confined to the wiki that holds it


def state_root(path: Path) -> Path | None:
    """The folder holding the `.wikigen` that `path` (as written, links not followed) passes through."""
    parts = Path(path).parts
    if STATE_DIR not in parts:
        return None
    i = len(parts) - 1 - parts[::-1].index(STATE_DIR)
    return Path(*parts[:i]) if i else Path(".")


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _first_link_out(path: Path, root: Path, real_root: str) -> tuple[Path, str] | None:
    """The first symlink between root and path (as written) that leads outside root, with its target."""
    try:
        rel = Path(os.path.abspath(path)).relative_to(os.path.abspath(root))
    except ValueError:
        return None
    p = Path(os.path.abspath(root))
    for part in rel.parts:
        p = p / part
        if os.path.islink(p):
            target = os.path.realpath(p)
            if not _under(target, real_root):
                return p, target
    return None


def inside(path: Path, root: Path | None = None) -> Path:
    """`path`, after checking that it stays inside `root` (default: its wiki, for a path under `.wikigen`)
    with every symlink followed; OutsideRootError naming the link otherwise. A path with no root to keep
    to is returned unchecked."""
    path = Path(path)
    root = Path(root) if root is not None else state_root(path)
    if root is None:
        return path
    real_root = os.path.realpath(root)
    if _under(os.path.realpath(path), real_root):
        return path
    link = _first_link_out(path, root, real_root)
    if link is not None:
        where = f"the symlink {link[0]} -> {link[1]}"
        fix = f"replace {link[0]} with a folder (or remove the link)"
    else:
        where, fix = "its path", "give a path inside it"
    raise OutsideRootError(
        f"refused to write {path}: {where} leads outside {root}; wikigen writes, moves and deletes nothing "
        f"through a link out of its folder - {fix} and run again"
    )


def remove(path: Path, root: Path | None = None) -> None:
    """Delete a file (nothing if it is gone), refusing a path that leaves root (see `inside`)."""
    inside(path, root).unlink(missing_ok=True)


def remove_tree(path: Path, root: Path | None = None) -> None:
    """Delete a folder and everything in it (nothing if it is gone), refusing a path that leaves root."""
    shutil.rmtree(inside(path, root), ignore_errors=True)


def make_dirs(path: Path, root: Path | None = None, *, mode: int = 0o777) -> Path:
    """mkdir -p, refusing a path that leaves root (see `inside`)."""
    inside(path, root).mkdir(parents=True, exist_ok=True, mode=mode)
    return Path(path)


def rename(src: Path, dst: Path, root: Path | None = None) -> None:
    """os.rename(src, dst), refusing either path when it leaves root (see `inside`)."""
    os.rename(inside(src, root), inside(dst, root))


def write_bytes(path: Path, data: bytes, root: Path | None = None) -> None:
    """Write data to path, plainly (no temp file, no fsync), refusing a path that leaves root: for files a
    later run rebuilds whole (a static site, a counter); pages and records use core.atomic.atomic_write."""
    inside(path, root).write_bytes(data)


def links_out(root: Path, *, skip: tuple[str, ...] = (".git",)) -> list[tuple[str, str]]:
    """(path relative to root, target) of every symlink under root whose target is outside it, links not
    followed; folders named in `skip` at the top are not read (git's own files)."""
    root = Path(root)
    real_root = os.path.realpath(root)
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        if dirpath == str(root):
            dirnames[:] = [d for d in dirnames if d not in skip]
        for name in [*dirnames, *filenames]:
            p = os.path.join(dirpath, name)
            if os.path.islink(p):
                target = os.path.realpath(p)
                if not _under(target, real_root):
                    out.append((Path(p).relative_to(root).as_posix(), target))
    return sorted(out)
