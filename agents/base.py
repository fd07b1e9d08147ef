"""What every agent backend shares: the task it is given and the outcome it reports.

A backend is one small interface, `AgentBackend.run_session(task, tools) -> SessionOutcome`. The
offline agent and the Claude agent both derive from it and act on the wiki only through the ToolBox;
`wikigen.agents.backends.get_backend(name)` makes one by name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from wikigen.core.engine import Parallel

if TYPE_CHECKING:
    from wikigen.agents.tools import ToolBox

KIND_PREFIX = "kind:"  # AgentTask.topics entries naming a collection rather than a topic


@dataclass
class AgentTask:
    agent: str  # e.g. "agent-1": owns the pages it creates
    session: int  # 1-based session number across the wiki's whole history
    doc_ids: list[str]  # this agent's share of the corpus
    topics: list[str] = field(default_factory=list)  # topic keys (and KIND_PREFIX + collection keys) assigned
    brief: str = ""  # what the orchestrator wants from this session (plain text)


@dataclass
class TokenUsage:
    input: int = 0
    output: int = 0
    cache_creation: int = 0
    cache_read: int = 0

    def add(self, other: TokenUsage) -> None:
        self.input += other.input
        self.output += other.output
        self.cache_creation += other.cache_creation
        self.cache_read += other.cache_read

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_creation + self.cache_read

    def to_dict(self) -> dict:
        return {
            "input": self.input,
            "output": self.output,
            "cache_creation": self.cache_creation,
            "cache_read": self.cache_read,
        }


@dataclass
class SessionOutcome:
    agent: str
    session: int
    pages_written: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # tool errors and refused writes, one line each
    usage: TokenUsage = field(default_factory=TokenUsage)
    turns: int = 0
    stop_reason: str = "done"  # done | budget | turn_limit | spend_limit | api_error
    fatal: str | None = None  # set when the session ended on an unrecoverable backend error
    consolidation: dict[str, int] = field(default_factory=dict)  # action -> count, in a consolidation session


class AgentBackend(ABC):
    """A way to run one agent's session. `name` is what `wikigen build --backend` calls it."""

    name: str = ""
    # True for a backend whose agents decide from the wiki as they read it (no model, no network): a session's
    # agents then take turns, each seeing what the ones before it wrote, the first agent rotating from session
    # to session, so a build is repeatable whatever the machine's load. False: they run at once (threads).
    takes_turns: bool = False

    def prepare(  # noqa: B027
        self, texts: Mapping[str, str], *, workers: Parallel = 1, progress: Callable[[int, int], None] | None = None
    ) -> None:
        """Whole-corpus work done once a build, before its sessions, with `workers` processes or engine (the
        corpus's {doc_id: text}); progress(done, total) as it goes. None by default."""

    @abstractmethod
    def run_session(self, task: AgentTask, tools: ToolBox) -> SessionOutcome:
        """Work on the wiki through `tools` for one session; report what happened. Raises BackendError
        when the backend cannot go on at all (the build then stops after this session)."""
