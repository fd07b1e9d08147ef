"""The catalog cache: versioned JSON written atomically in the wiki folder, never a pickle; a cache that
cannot be used is rebuilt, and a cached catalog equals a freshly discovered one."""

from __future__ import annotations

import json

import pytest
from test_offline_agent import make_corpus
from wikigen.agents.catalog import catalog_from_data, catalog_to_data
from wikigen.agents.catalog_cache import CATALOG_VERSION, cache_path, load_catalog
from wikigen.agents.params import DiscoveryParams
from wikigen.agents.topics import discover
from wikigen.search.index import CorpusIndex

from wikigen.core.tokens import CharCounter


@pytest.fixture()
def index(tmp_path):
    corpus = make_corpus(tmp_path / "in", docs=8, schedule=40)
    idx, _ = CorpusIndex.build(corpus, tmp_path / "index", counter=CharCounter())
    return idx


def _fresh(index):
    docs = index.documents()
    return discover({d.doc_id: index.texts.text(d.doc_id) for d in docs}, {d.doc_id: d.title for d in docs})


def test_json_round_trip_keeps_every_field(index):
    cat = _fresh(index)
    assert cat.topics and cat.collections and any(o.headings for o in cat.outlines.values())
    back = catalog_from_data(json.loads(json.dumps(catalog_to_data(cat))))
    assert back == cat
    assert [t.key for t in back.topics] == [t.key for t in cat.topics]  # order kept
    assert all(isinstance(sp, tuple) for t in back.topics for sp in t.spans.values())
    assert back.topic(cat.topics[0].key) == cat.topics[0]


def test_cache_is_json_and_reused(index, tmp_path):
    cache = tmp_path / "wiki" / ".wikigen" / "cache"
    first = load_catalog(index, cache)
    files = [f for f in cache.iterdir() if f.is_file()]  # beside it: discovery/, the resumable shards
    assert [f.name for f in files] == [cache_path(index, cache).name] and files[0].suffix == ".json"
    data = json.loads(files[0].read_text(encoding="utf-8"))
    assert data["version"] == CATALOG_VERSION
    assert first == _fresh(index)
    # the cache is what is read next time: a topic renamed in the file shows up in the loaded catalog
    data["catalog"]["topics"][0]["title"] = "From the cache"
    files[0].write_text(json.dumps(data), encoding="utf-8")
    assert load_catalog(index, cache).topics[0].title == "From the cache"


@pytest.mark.parametrize(
    "content",
    [
        b"\x80\x04not json",
        b"[1, 2]",
        b'{"version": 4, "catalog": {}}',
        b'{"version": %d, "catalog": {"topics": [{"key": 1}]}}' % CATALOG_VERSION,
    ],
)
def test_an_unusable_cache_is_rebuilt(index, tmp_path, content):
    cache = tmp_path / "cache"
    path = cache_path(index, cache)
    cache.mkdir()
    path.write_bytes(content)
    (cache / "catalog-0123456789abcdef.pickle").write_bytes(b"\x80\x04old pickle")
    cat = load_catalog(index, cache)
    assert cat == _fresh(index)
    assert sorted(p.name for p in cache.iterdir() if p.is_file()) == [path.name]  # old caches removed
    assert json.loads(path.read_text(encoding="utf-8"))["version"] == CATALOG_VERSION


def test_other_discovery_knobs_use_another_cache(index, tmp_path):
    cache = tmp_path / "cache"
    assert cache_path(index, cache) != cache_path(index, cache, DiscoveryParams(min_docs=3))
    few = load_catalog(index, cache, DiscoveryParams(max_topics=3))
    assert len(few.topics) <= 3 and few != load_catalog(index, cache)
