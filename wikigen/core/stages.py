"""Named stages of a long job, timed: `with clock("indexing"): ...` adds the seconds to clock.seconds and
tells a listener when each stage starts and ends, so a caller can show progress or attribute memory."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

# on_stage(name, None) when a stage starts; on_stage(name, seconds) when it ends
StageListener = Callable[[str, "float | None"], None]


class StageClock:
    def __init__(self, listener: StageListener | None = None):
        self.seconds: dict[str, float] = {}
        self._listener = listener

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        if self._listener is not None:
            self._listener(name, None)
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - t0)

    def add(self, name: str, seconds: float) -> None:
        """Count seconds spent on a stage measured elsewhere (and tell the listener it ended)."""
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds
        if self._listener is not None:
            self._listener(name, seconds)
