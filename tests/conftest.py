
import pytest


@pytest.fixture(autouse=True)
def _no_real_api_key(monkeypatch):
    """No test reaches a real model by accident."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
