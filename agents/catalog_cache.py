"""The topic catalog of a corpus, cached as JSON in the wiki folder (WIKI/.wikigen/cache).

The cache file is named by a hash of the format version, the discovery knobs and every document's
id, content hash and title, so a changed corpus or knob finds no cache and discovers anew. It is
plain JSON written atomically: opening someone else's wiki reads data, never runs code. A file that
cannot be read, is not JSON, has another version or not the catalog's shape is ignored (and
replaced by a fresh catalog).
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

from wikigen.agents.catalog import Catalog, catalog_from_data, catalog_to_data
from wikigen.agents.discovery_cache import ShardCache
from wikigen.agents.params import DiscoveryParams
from wikigen.agents.topics import discover

from wikigen.core import confine
from wikigen.core.atomic import atomic_write
from wikigen.core.engine import Parallel

log = logging.getLogger(__name__)

CATALOG_VERSION = 14  # 14: topic reach removed (13 added it); 12: a quote carries the sentence after its heading (sentences.first_body_end); 11: quotes run on to end their sentence (wikigen.core.sentences.LONGEST_SENTENCE); 10: ranked by support x coherence; 9: shared titles as written again (8 told them apart, and collections were named worse); 7: titles by search.facts.title; 6: topics merged by meaning; 5: JSON; 4-: pickle


def cache_path(index, cache_dir: Path, params: DiscoveryParams = DiscoveryParams()) -> Path:
    h = hashlib.sha256(f"v{CATALOG_VERSION}\0{params!r}\n".encode())
    for d in sorted(index.documents(), key=lambda d: d.doc_id):
        h.update(f"{d.doc_id}\0{d.sha256}\0{d.title}\n".encode())
    return Path(cache_dir) / f"catalog-{h.hexdigest()[:16]}.json"


def read_cached(path: Path) -> Catalog | None:
    """The catalog in a cache file; None when there is none usable there."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        log.warning("catalog cache %s unreadable (%s); discovering topics again", path, e)
        return None
    if not isinstance(data, dict) or data.get("version") != CATALOG_VERSION:
        log.info("catalog cache %s has another version; discovering topics again", path)
        return None
    try:
        return catalog_from_data(data.get("catalog"))
    except ValueError as e:
        log.warning("catalog cache %s is not a catalog (%s); discovering topics again", path, e)
        return None


def write_cached(path: Path, cat: Catalog) -> None:
    """Write the cache file atomically, removing older catalog caches (JSON or pickle) beside it."""
    path = Path(path)
    confine.make_dirs(path.parent)  # kept inside its wiki (wikigen.core.confine)
    for old in path.parent.glob("catalog-*"):
        if old != path and old.suffix in (".json", ".pickle", ".tmp"):
            confine.remove(old)
    text = json.dumps({"version": CATALOG_VERSION, "catalog": catalog_to_data(cat)}, ensure_ascii=False)
    atomic_write(path, text)


def load_catalog(
    index, cache_dir: Path, params: DiscoveryParams = DiscoveryParams(), workers: Parallel = 1, progress=None
) -> Catalog:
    """The corpus's catalog: from the cache when it has this corpus's, else discovered (with `workers`
    processes; the catalog does not depend on how many) and cached."""
    path = cache_path(index, cache_dir, params)
    cat = read_cached(path)
    if cat is not None:
        return cat
    docs = index.documents()
    texts = {d.doc_id: index.texts.text(d.doc_id) for d in docs}
    # an interrupted run resumes; the catalog's version is in the key, so a rule change (which bumps it)
    # does not reuse per-document evidence found under the old rules
    shards = ShardCache(Path(cache_dir) / "discovery", f"catalog v{CATALOG_VERSION} {params!r}")
    cat = discover(
        texts, {d.doc_id: d.title for d in docs}, params=params, workers=workers, progress=progress, cache=shards
    )
    log.info("topic discovery: %s", ", ".join(f"{k} {v}" for k, v in sorted(shards.stats.items())))
    write_cached(path, cat)
    return cat
