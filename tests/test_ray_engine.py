"""`--engine ray` changes nothing in the output: on a local Ray cluster of this machine (2 CPUs), `wikigen build`
(on corpora/acme) and `wikigen index` (on part of acme, and on a few cuad-dev contracts) give the same index (manifest, kept texts,
search hits), the same passage vectors (byte for byte) and the same pages (byte for byte) as the local engine.

Skipped without Ray (`pip install 'wikigen-memory[ray]'`), the cuad-dev part without the dev corpora
($WIKIGEN_EVAL_DATA, else ../shared/eval). The cluster is started once for the module; each command opens its
own engine (actors) on it, as `--engine ray` does on a real cluster.
"""

import json
import logging
import os
import shutil
import sys
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'wikigen-memory[ray]'")

from shared_builds import sample_wiki  # noqa: E402
from wikigen.search.index import CorpusIndex  # noqa: E402

from wikigen import cli  # noqa: E402
from wikigen.core.errors import UsageError  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ACME = ROOT / "corpora" / "acme"
EVAL = Path(os.environ.get("WIKIGEN_EVAL_DATA") or ROOT.parent / "shared" / "eval")
CUAD = EVAL / "cuad-dev" / "docs"
pytestmark = pytest.mark.ray

QUERIES = ("termination notice", "governing law", "confidential information", "준거법", "payment within days")


@pytest.fixture(scope="module")
def cluster():
    # this module is not importable on the workers (tests/ is not a package): its functions go by value
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        object_store_memory=128 * 1024 * 1024,
        log_to_driver=False,
        logging_level=logging.WARNING,
    )
    yield
    ray.shutdown()


def _square(x: int, plus: int) -> int:
    if x < 0:
        raise UsageError(f"negative: {x}")
    return x * x + plus


def test_ray_map_is_the_local_map(cluster):
    from wikigen.core.ray_engine import RayEngine
    from wikigen.core.workers import Workers

    engine = RayEngine(workers=2)
    try:
        items = list(range(40))
        assert list(engine.map(_square, items, 3)) == list(Workers(1, 0).map(_square, items, 3))
        assert list(engine.map(_square, (i for i in range(9)), 0, window=2)) == [i * i for i in range(9)]  # lazy
        with pytest.raises(UsageError, match="negative: -1"):  # the function's own error, as itself
            list(engine.map(_square, [1, -1, 2], 0))
        stream = engine.map(_square, range(100), 0)
        assert next(stream) == 0
        stream.close()  # stopped early: the actors are free for the next map
        assert list(engine.map(_square, [5], 1)) == [26]
        assert list(engine.on_every_node(_square, 2, 0).values()) == [4]  # one machine here
    finally:
        engine.close()
    assert ray.is_initialized()  # the engine closes its actors, not a cluster it did not start


def _index_state(index_dir: Path):
    manifest = json.loads((index_dir / "manifest.json").read_text())
    idx = CorpusIndex.open(index_dir)
    texts = {d: idx.texts.text(d) for d in manifest["docs"]}
    hits = {q: sorted((h.doc_id, h.start, h.end, round(h.score, 4)) for h in idx.search(q, k=50)) for q in QUERIES}
    return manifest, texts, hits


def _vector_files(index_dir: Path) -> dict[str, bytes]:
    dense = index_dir / "dense"
    return {str(p.relative_to(dense)): p.read_bytes() for p in sorted(dense.rglob("*")) if p.is_file()}


def _pages(wiki: Path) -> dict[str, bytes]:
    """Every page of a wiki, byte for byte (log.md and the progress log carry times, so they are left out)."""
    return {p.name: p.read_bytes() for p in sorted(wiki.glob("*.md")) if p.name != "log.md"}


def _index_both(corpus: Path, tmp_path: Path, capsys) -> tuple[Path, Path]:
    local, on_ray = tmp_path / "ix-local", tmp_path / "ix-ray"
    for ix, extra in ((local, []), (on_ray, ["--engine", "ray"])):
        assert cli.main(["index", str(corpus), "--index", str(ix), "--quiet", "--json", *extra]) == 0
        assert json.loads(capsys.readouterr().out)["dense"]["embedded_documents"] > 0
    return local, on_ray


def test_a_build_on_ray_gives_the_local_pages_and_index(cluster, tmp_path, tmp_path_factory):
    """A build on the engine: extraction, facts, topics and values ran on the engine's actors, the pages and
    git in the driver. Against the run's shared local build of the same corpus and sessions (tests/shared_builds.py).
    Without vectors, which the next test compares on fewer documents (CI's time)."""
    local = sample_wiki(tmp_path_factory, tmp_path / "wiki-local", sessions=1)
    on_ray = tmp_path / "wiki-ray"
    argv = ["build", str(ACME), "--wiki", str(on_ray), "--sessions", "1", "--quiet", "--no-dense", "--engine", "ray"]
    assert cli.main(argv) == 0
    pages = _pages(local)
    assert len(pages) > 40 and pages == _pages(on_ray)
    assert _index_state(local / ".wikigen" / "index") == _index_state(on_ray / ".wikigen" / "index")


@pytest.mark.dense
def test_an_index_on_ray_gives_the_local_index_and_vectors(cluster, tmp_path, capsys):
    """acme's Korean documents and its amendments, indexed with passage vectors embedded on the actors."""
    corpus = tmp_path / "acme-part"
    for part in ("ko", "amendments"):
        shutil.copytree(ACME / part, corpus / part)
    local, on_ray = _index_both(corpus, tmp_path, capsys)
    assert _index_state(local) == _index_state(on_ray)
    vectors = _vector_files(local)
    assert any(name.endswith(".npy") for name in vectors) and vectors == _vector_files(on_ray)


@pytest.mark.dense
@pytest.mark.skipif(not CUAD.is_dir(), reason=f"the dev corpora are not here ({CUAD})")
def test_a_cuad_subset_indexed_on_ray_gives_the_local_index_and_vectors(cluster, tmp_path, capsys):
    corpus = tmp_path / "cuad"
    corpus.mkdir()
    for p in sorted(CUAD.iterdir(), key=lambda p: (p.stat().st_size, p.name))[:4]:  # the four shortest contracts
        shutil.copy2(p, corpus / p.name)
    local, on_ray = _index_both(corpus, tmp_path, capsys)
    assert _index_state(local) == _index_state(on_ray)
    vectors = _vector_files(local)
    assert any(name.endswith(".npy") for name in vectors) and vectors == _vector_files(on_ray)
