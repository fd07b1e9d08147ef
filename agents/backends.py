"""The agent backends by name: the one place a backend name ("offline", "claude") is parsed.

    get_backend("offline", catalog=cat, agents=4, sessions=4) -> OfflineBackend
    get_backend("claude", model="claude-sonnet-4-6")          -> ClaudeBackend (needs ANTHROPIC_API_KEY)

    answer_generator("offline")                               -> ExtractiveAnswer (for `wikigen ask`)

The CLI offers BACKENDS as the choices of `--backend` (build and ask); both make their backend here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wikigen.agents.base import AgentBackend

from wikigen.core.errors import UsageError

if TYPE_CHECKING:
    from wikigen.agents.catalog import Catalog
    from wikigen.agents.pacing import RatePacer
    from wikigen.agents.params import OfflineParams

    from wikigen.ask.generate import AnswerGenerator

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "answer_generator", "get_backend"]

BACKENDS = ("offline", "claude")
DEFAULT_BACKEND = "offline"


def get_backend(
    name: str,
    *,
    model: str | None = None,
    catalog: Catalog | None = None,
    agents: int = 2,
    sessions: int = 2,
    offline_params: OfflineParams | None = None,
    token_budget: int | None = None,
    max_turns: int | None = None,
    pacer: RatePacer | None = None,
) -> AgentBackend:
    """The backend called `name`. The offline one plans over `catalog` (found lazily when None) for a
    build of `agents` x `sessions`; the Claude one talks to `model`, each agent's session within
    `token_budget` tokens and `max_turns` turns. Raises UsageError for an unknown
    name, BackendError when the backend cannot be used (no API key)."""
    if name == "offline":
        from wikigen.agents.offline import OfflineBackend
        from wikigen.agents.params import OfflineParams

        return OfflineBackend(catalog, params=offline_params or OfflineParams(), agents=agents, sessions=sessions)
    if name == "claude":
        from wikigen.agents.claude import ClaudeBackend  # imports the anthropic SDK: only when asked for

        limits: dict[str, Any] = {  # the backend's own defaults for what is not given
            k: v
            for k, v in (("token_budget", token_budget), ("max_turns", max_turns), ("pacer", pacer))
            if v is not None
        }
        return ClaudeBackend(model=model, **limits)
    raise UsageError(f"unknown backend {name!r}; choose one of: {', '.join(BACKENDS)}")


def answer_generator(name: str, *, model: str | None = None) -> AnswerGenerator:
    """What writes `wikigen ask`'s answer for the backend called `name`: the extractive answer offline,
    Claude with the context passed as data. Raises UsageError for an unknown name."""
    if name == "offline":
        from wikigen.ask.generate import ExtractiveAnswer

        return ExtractiveAnswer()
    if name == "claude":
        from wikigen.agents.claude import ClaudeBackend

        return ClaudeBackend(model=model)
    raise UsageError(f"unknown backend {name!r}; choose one of: {', '.join(BACKENDS)}")
