"""Pacing for many agents on one API key: a token bucket shared by the build's agents, so they wait in
the client instead of failing on 429s after the SDK's retries (measured: bench/claude_concurrency_bench.py,
where 50 unpaced sessions lost 39 to 429s and 50 paced ones lost none)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class RatePacer:
    """Blocks each request until the per-minute budgets (input tokens, requests) have room for it. The
    buckets hold one second of budget, so a burst cannot overrun the API's own short-window limits."""

    def __init__(
        self,
        *,
        input_tokens_per_minute: float | None = None,
        requests_per_minute: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self._rates = {"tokens": (input_tokens_per_minute or 0) / 60.0, "requests": (requests_per_minute or 0) / 60.0}
        self._level = dict(self._rates)  # a full second's budget to start
        self._clock, self._sleep = clock, sleep
        self._t = clock()
        self._lock = threading.Lock()
        self.waited = 0.0  # seconds spent waiting, all requests

    def _refill(self) -> None:
        now = self._clock()
        for k, rate in self._rates.items():
            self._level[k] = min(rate, self._level[k] + (now - self._t) * rate)
        self._t = now

    def _wait_for(self, need: dict[str, float]) -> float:
        """0 and the budgets taken when the request may go now; else how long to wait. A request larger
        than a bucket goes once the bucket is full and leaves it in debt, so the next ones wait longer."""
        self._refill()
        waits = [
            (min(need[k], rate) - self._level[k]) / rate
            for k, rate in self._rates.items()
            if rate > 0 and min(need[k], rate) > self._level[k]
        ]
        if not waits:
            for k, rate in self._rates.items():
                if rate > 0:
                    self._level[k] -= need[k]
            return 0.0
        return max(waits)

    def acquire(self, input_tokens: int) -> None:
        """Wait until a request of about `input_tokens` fits the budgets, then take them."""
        need = {"tokens": float(input_tokens), "requests": 1.0}
        while True:
            with self._lock:
                wait = self._wait_for(need)
            if wait <= 0:
                return
            pause = min(wait, 1.0)
            self.waited += pause
            self._sleep(pause)
