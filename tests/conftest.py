import pytest


@pytest.fixture(autouse=True)
def _no_real_api_key(monkeypatch):
    """No test reaches a real model by accident."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def _skip_embedding(index, progress=None, *, encoder=None, engine=None):
    import wikigen.search.dense.service as service

    return service.DenseOutcome(None, "")


@pytest.fixture(scope="session", autouse=True)
def _no_embedding_by_default():
    """Embedding every passage of every corpus a test builds costs about 20 s per acme build on this
    machine (minutes under load): builds and `wikigen index` in tests skip it (silently) unless the test
    is marked `@pytest.mark.dense`. The switch is session-wide, so module-scoped fixtures, which are set
    up before any function-scoped fixture, skip it too. Yields the real `update_vectors` and `want_vectors`."""
    import wikigen.search.dense.service as service

    patch = pytest.MonkeyPatch()
    real = service.update_vectors, service.want_vectors
    patch.setattr(service, "update_vectors", _skip_embedding)
    patch.setattr(service, "want_vectors", lambda index: None)  # nor do they ask for them (no "missing" notes)
    yield real
    patch.undo()


@pytest.fixture(autouse=True)
def _dense_vectors_only_where_asked(request, monkeypatch, _no_embedding_by_default):
    """A test marked `dense` runs the real embedding step (tests/test_dense_*.py)."""
    if request.node.get_closest_marker("dense") is None:
        return
    import wikigen.search.dense.service as service

    monkeypatch.setattr(service, "update_vectors", _no_embedding_by_default[0])
    monkeypatch.setattr(service, "want_vectors", _no_embedding_by_default[1])


@pytest.fixture(scope="session")
def cuad_wiki(tmp_path_factory):
    """The cuad-dev wiki, built once for every test that uses it (tests/eval_corpora.py)."""
    from eval_corpora import build_cuad_wiki

    return build_cuad_wiki(tmp_path_factory)


def _uses_cuad_wiki(item) -> bool:
    return "cuad_wiki" in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(items):
    """The tests on the cuad-dev wiki run last (in their order), by when its background build is done."""
    items[:] = [i for i in items if not _uses_cuad_wiki(i)] + [i for i in items if _uses_cuad_wiki(i)]


@pytest.fixture(scope="session", autouse=True)
def _cuad_wiki_built_meanwhile(request, tmp_path_factory):
    """When the run holds a test on the cuad-dev wiki, its build (a minute and more) begins at once in a process
    of its own, beside the other tests, rather than in the worker that first needs it. A build still running
    when its worker is done is stopped (a test then waiting builds the wiki itself)."""
    from eval_corpora import start_cuad_build

    started = start_cuad_build(tmp_path_factory) if any(map(_uses_cuad_wiki, request.session.items)) else None
    yield
    if started is not None and started.poll() is None:
        started.terminate()
        started.wait(30)
