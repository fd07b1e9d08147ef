"""Per-document work in worker processes: both cores for the CPU-bound passes of a build (reading and
extracting files, topic discovery, fact detection). `Workers` is the local engine (`wikigen.core.engine`);
`RayEngine` (`wikigen.core.ray_engine`) runs the same stages on a cluster.

`Workers(n, chars).map(fn, items, *args)` runs `fn(item, *args)` over items and yields the results in
the items' order, so the output never depends on how many processes ran it. It forks: the function and
its extra arguments (a corpus's texts, say) are inherited by the workers rather than pickled; only the
items and the results travel. On a platform without fork, with one worker asked for, or on a corpus
too small to pay for starting processes, it runs in this process. A worker that dies (killed for its
memory, say) loses no work: what it had not returned is done again in this process, with a warning.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

log = logging.getLogger(__name__)

R = TypeVar("R")  # what the function gives for one item

PARALLEL_MIN_CHARS = 4_000_000  # below this, starting worker processes costs more than it saves

_CONTEXT: tuple | None = None  # (function, extra arguments) of a worker process's map


def _set_context(context: tuple) -> None:
    global _CONTEXT
    _CONTEXT = context
    # Ctrl-C at a terminal signals the whole process group: the parent alone answers it (one line, exit
    # 130) and ends its workers, which would otherwise each print a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    """A worker whose parent was killed (SIGKILL, the out-of-memory killer) would wait on its queue
    forever: it ends within a second instead."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


def _run_in_context(item):
    if _CONTEXT is None:
        raise RuntimeError("_run_in_context runs in a worker process that Workers.map started")
    fn, args = _CONTEXT
    return fn(item, *args)


class Workers:
    """The local engine (`wikigen.core.engine.Engine`). workers: processes asked for (None: one per core);
    chars: the size of the work, in characters."""

    def __init__(self, workers: int | None, chars: int):
        n = (os.cpu_count() or 1) if workers is None else workers
        can_fork = "fork" in multiprocessing.get_all_start_methods()
        self.n = n if n > 1 and can_fork and chars >= PARALLEL_MIN_CHARS else 1

    def map(self, fn: Callable[..., R], items: Iterable, *args: Any, window: int = 0) -> Generator[R, None, None]:
        """fn(item, *args) for each item, in order. window: at most this many items in flight at once
        (their results held here until taken), for results too large to hold all (files' texts);
        0: every item handed out at once, in chunks. Lazy items are taken one at a time in this process,
        and all at once when processes run them."""
        if self.n == 1:
            yield from (fn(item, *args) for item in items)
            return
        items = items if isinstance(items, Sequence) else list(items)
        if len(items) <= 1:  # one item (a shard's leftover): not worth a fork
            yield from (fn(item, *args) for item in items)
            return
        done = 0
        try:
            for result in self._pooled(items, fn, args, window):
                yield result
                done += 1
        except BrokenProcessPool as e:  # a worker killed (out of memory, a signal): not the build
            log.warning("a worker process died (%s); the remaining %d items run in this process", e, len(items) - done)
            yield from (fn(item, *args) for item in items[done:])

    def on_every_node(self, fn: Callable[..., R], *args: Any) -> dict[str, R]:
        """fn(*args) on the one machine the local engine runs on: this one."""
        return {"localhost": fn(*args)}

    def _pooled(self, items: Sequence, fn: Callable[..., R], args: tuple, window: int) -> Iterator[R]:
        with ProcessPoolExecutor(
            max_workers=self.n,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_set_context,
            initargs=((fn, args),),
        ) as pool:
            try:
                if not window:
                    yield from pool.map(_run_in_context, items, chunksize=max(1, len(items) // (8 * self.n)))
                    return
                pending: deque = deque()
                for item in items:
                    pending.append(pool.submit(_run_in_context, item))
                    if len(pending) >= window:
                        yield pending.popleft().result()
                while pending:
                    yield pending.popleft().result()
            except BaseException:  # Ctrl-C, or the caller stopped early: end the workers now, not after their work
                _terminate(pool)
                raise


def _terminate(pool: ProcessPoolExecutor) -> None:
    """End a pool's worker processes at once and wait for them to be gone (shutdown alone waits for the items
    they hold; a worker left running would keep what it inherited, such as the index's lock, a while longer)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # no public handle on them; read before
    for proc in procs:  # shutdown, which forgets them
        if proc.is_alive():
            proc.terminate()
    pool.shutdown(wait=True, cancel_futures=True)
    for proc in procs:
        proc.join(timeout=10)
