
import pytest


@pytest.fixture(autouse=True)
def _no_real_api_key(monkeypatch):
    """No test reaches a real model by accident."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


@pytest.fixture(autouse=True)
def _dense_vectors_only_where_asked(request, monkeypatch):
    """Embedding every passage of every corpus a test builds costs about 20 s per acme build on this
    machine: builds and `wikigen index` in tests skip it (silently) unless the test is marked
    `@pytest.mark.dense`. The dense tests (tests/test_dense_*.py) run the real path."""
    if request.node.get_closest_marker("dense") is not None:
        return
    import wikigen.search.dense.service as service

    monkeypatch.setattr(service, "update_vectors", lambda index, progress=None, *, encoder=None:
                        service.DenseOutcome(None, ""))
