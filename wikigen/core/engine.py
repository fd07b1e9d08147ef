"""What a build's per-document stages run on: the one seam between a stage and the processes that do its work.

An engine maps a function over items, `fn(item, *args)`, and yields the results in the items' order, so no
stage's output depends on where it ran. Two implement it:

* `Workers` (`wikigen.core.workers`), the local engine: forked processes on this machine, sized to the work;
* `RayEngine` (`wikigen.core.ray_engine`): Ray actors across a cluster (`pip install 'wikigen-memory[ray]'`).

A stage takes `workers: Parallel` - a count of local processes (None: one per core) or an engine - and asks
`engine_for(workers, chars)` for the engine to run on. The stages are extraction (`search/reading.py`),
passage embedding (`search/dense/store.py`), fact detection (`agents/document_facts.py`, `agents/figures.py`),
topic discovery's per-document passes (`agents/topics.py`) and the provisions table's values
(`agents/provisions.py`). What they produce is written by the caller, in this process: the wiki's pages, its
ownership and git, the index and the vector files never leave the driver.

    with open_engine("ray", address="ray://head:10001") as workers:
        CorpusIndex.build(corpus, index_dir, workers=workers)
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar, runtime_checkable

from wikigen.core.errors import UsageError

__all__ = ["ENGINES", "RAY_INSTALL", "Engine", "Parallel", "engine_for", "open_engine"]

R = TypeVar("R")

ENGINES = ("local", "ray")
RAY_INSTALL = "pip install 'wikigen-memory[ray]'"


@runtime_checkable
class Engine(Protocol):
    """Runs fn(item, *args) over items and yields the results in the items' order.

    `n`: how many items it works on at once. `map`'s window: at most this many items in flight (their
    results held until taken), for results too large to hold all; 0: as the engine sees fit. The items may
    be a lazy iterable: an engine takes them as it needs them. Exceptions of fn reach the caller.
    `on_every_node(fn, *args)`: fn(*args) once on each machine the engine runs on, {machine: result} (what
    a command asks of each machine before it sends work: `wikigen.search.cluster`). map gives a generator:
    closing it early (a caller that stops) frees the engine's workers for the next map."""

    n: int

    def map(self, fn: Callable[..., R], items: Iterable, *args: Any, window: int = 0) -> Generator[R, None, None]: ...

    def on_every_node(self, fn: Callable[..., R], *args: Any) -> dict[str, R]: ...


Parallel = int | None | Engine  # what a stage's `workers` argument accepts


def engine_for(workers: Parallel, chars: int) -> Engine:
    """The engine a stage of `chars` characters of work runs on: the engine given, or local worker processes
    (`workers` of them, None: one per core; work too small to pay for processes stays in this process)."""
    if isinstance(workers, Engine):
        return workers
    from wikigen.core.workers import Workers

    return Workers(workers, chars)


@contextmanager
def open_engine(name: str, *, address: str | None = None, workers: int | None = None) -> Iterator[Parallel]:
    """What the per-document stages of one command run on. "local": `workers` as given (local processes per
    stage). "ray": a RayEngine on the cluster at `address` (None: a Ray instance of this machine, started
    for the command), `workers` actors (None: one per CPU of the cluster); closed at the end. UsageError
    for an unknown name, an address without the ray engine, or Ray not installed (naming the install)."""
    if name not in ENGINES:
        raise UsageError(f"unknown engine {name!r}; choose one of: {', '.join(ENGINES)}")
    if name == "local":
        if address:
            raise UsageError("--ray-address needs --engine ray")
        yield workers
        return
    try:
        from wikigen.core.ray_engine import RayEngine
    except ImportError as e:
        raise UsageError(f"--engine ray needs Ray, which is not installed here ({e}): {RAY_INSTALL}") from None
    engine = RayEngine(address=address, workers=workers)
    try:
        yield engine
    finally:
        engine.close()
