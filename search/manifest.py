"""The index folder's manifest.json: doc id -> path, sha256, size, mtime_ns, chars, tokens, title, passages."""

from __future__ import annotations

import json
from pathlib import Path

import tantivy
from wikigen.search.schema import SCHEMA_VERSION

from wikigen.core.atomic import atomic_write
from wikigen.core.errors import SearchIndexError

MANIFEST_VERSION = 1  # the manifest's format: another version is rebuilt, never misread


def tantivy_exists(tdir: Path) -> bool:
    try:
        return tdir.is_dir() and tantivy.Index.exists(str(tdir))
    except ValueError:
        return False


def manifest_path(index_dir: Path) -> Path:
    return index_dir / "manifest.json"


def read_manifest(index_dir: Path) -> dict | None:
    try:
        with open(manifest_path(index_dir), encoding="utf-8") as f:
            m = json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise SearchIndexError(
            f"the index manifest in {index_dir} is unreadable ({e}); "
            f"delete the folder and run `wikigen index CORPUS --index {index_dir}` again"
        ) from None
    if not isinstance(m, dict) or not isinstance(m.get("docs"), dict):
        raise SearchIndexError(
            f"the index manifest in {index_dir} is malformed; "
            f"delete the folder and run `wikigen index CORPUS --index {index_dir}` again"
        )
    return m


def write_manifest(index_dir: Path, root: Path, docs: dict[str, dict]) -> None:
    m = {
        "version": MANIFEST_VERSION,
        "schema": SCHEMA_VERSION,
        "root": str(root),
        "docs": {k: docs[k] for k in sorted(docs)},
    }
    atomic_write(manifest_path(index_dir), json.dumps(m, ensure_ascii=False, indent=0), private=True)
