"""Ray as the engine of a build's per-document stages (`wikigen.core.engine`): the same map as the local worker
processes, over the machines of a Ray cluster. An optional extra: `pip install 'wikigen-memory[ray]'`.

One Ray actor per worker, one CPU each, started at the first map and kept until `close`. A map puts its
function and extra arguments in the cluster's object store once (their cloudpickle); each actor loads them
once and keeps them for as long as the maps that follow bring the same ones (by a hash of those bytes): the
corpus's texts are unpickled once per actor, not per item, and the sentence encoder, which pickles as its
settings (`OnnxEncoder.__reduce__`), loads the model once per actor for a whole embedding run. Items go out
in chunks through Ray's own `ActorPool` (it hands each chunk to an idle actor), with a bounded number of
chunks taken from the items at a time, so a lazy stream of items (the passages to embed) is never all in
memory; the results come back in the items' order. Ray restarts an actor that dies and retries its chunk;
past that the map fails with an EngineError.

Every machine runs the stage's function itself, so each needs wikigen-memory installed (the same version, in
the same Python), the model package for embedding, and the corpus folder at the same path (a shared or
copied folder): `wikigen.search.cluster.check_cluster` asks each machine before any heavy step. Actors
take their thread count from OMP_NUM_THREADS, which Ray sets to their CPUs (`default_threads` in
`wikigen.search.dense.encoder`).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from itertools import islice
from typing import Any, TypeVar

import ray
from ray import cloudpickle
from ray.util import ActorPool
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from wikigen.core.errors import EngineError

__all__ = ["RayEngine"]

log = logging.getLogger(__name__)

R = TypeVar("R")

RESTARTS = 2  # times Ray restarts a dead actor and retries its chunk before the map fails


@ray.remote(num_cpus=1, max_restarts=RESTARTS, max_task_retries=RESTARTS)
class _Worker:
    """Runs chunks of one map's items; keeps the map's function and arguments between chunks and maps."""

    def __init__(self) -> None:
        self._key = ""
        self._fn: Callable[..., Any] | None = None
        self._args: tuple = ()

    def run(self, key: str, context: list, chunk: list) -> list:
        # context: [ObjectRef] in a list, so that Ray does not fetch it for every chunk (only on a new key)
        if key != self._key:
            self._fn, self._args = cloudpickle.loads(ray.get(context[0]))
            self._key = key
        assert self._fn is not None
        return [self._fn(item, *self._args) for item in chunk]


def _on_node(fn: Callable[..., R], args: tuple) -> R:
    return fn(*args)


class RayEngine:
    """address: a Ray cluster's address ("auto", "ray://head:10001", ...); None: the Ray of this process when
    it has one (a test's, a notebook's), else a Ray instance started on this machine, stopped at `close`.
    workers: actors (None: one per CPU of the cluster)."""

    def __init__(self, *, address: str | None = None, workers: int | None = None):
        self._started = False
        if not ray.is_initialized():
            try:
                if address:
                    ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
                else:
                    ray.init(include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
            except (ConnectionError, RuntimeError, ValueError) as e:
                where = address or "this machine"
                raise EngineError(f"cannot start or reach a Ray cluster at {where}: {e}") from None
            self._started = True
        elif address:
            log.info("Ray is already initialised in this process: --ray-address %s is not used", address)
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if cpus < 1:
            raise EngineError("the Ray cluster has no CPU to run workers on")
        self.n = max(1, workers if workers is not None else cpus)
        self._actors: list = []

    def map(self, fn: Callable[..., R], items: Iterable, *args: Any, window: int = 0) -> Generator[R, None, None]:
        """fn(item, *args) for each item, in order (see the module docstring). window: at most this many items
        taken and not yet returned; 0: chunks of about an eighth of each actor's share."""
        blob = cloudpickle.dumps((fn, args))
        key = hashlib.sha256(blob).hexdigest()
        context = [ray.put(blob)]
        size = max(1, len(items) // (8 * self.n)) if isinstance(items, Sequence) and not window else 1
        ahead = max(1, window // size) if window else 2 * self.n  # chunks out at once
        pool = ActorPool(self._workers())
        source = iter(items)
        out = 0  # chunks submitted and not yet taken back
        try:
            while True:
                while out < ahead:
                    chunk = list(islice(source, size))
                    if not chunk:
                        break
                    pool.submit(lambda actor, c: actor.run.remote(key, context, c), chunk)
                    out += 1
                if not out:
                    break
                out -= 1
                yield from _results(pool)
        except (GeneratorExit, Exception):  # the caller stopped early, or an item failed: the chunks still out
            _drain(pool)  # finish (a few per actor), so the actors are free for the next map
            raise
        except BaseException:  # Ctrl-C: the actors end now, not after their chunks
            self._drop_workers()
            raise

    def on_every_node(self, fn: Callable[..., R], *args: Any) -> dict[str, R]:
        """fn(*args) run once on each live machine of the cluster that has CPUs: {node address: result}."""
        nodes = [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU")]
        task: Any = ray.remote(num_cpus=0)(_on_node)
        refs = {
            n.get("NodeManagerAddress", n["NodeID"]): task.options(
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=n["NodeID"], soft=False)
            ).remote(fn, args)
            for n in nodes
        }
        try:
            return dict(zip(refs, ray.get(list(refs.values())), strict=True))
        except ray.exceptions.RayError as e:
            if isinstance(e, ray.exceptions.RayTaskError):
                raise _cause(e) from None
            raise EngineError(f"a machine of the Ray cluster did not answer: {e}") from None

    def close(self) -> None:
        """End the actors, and the Ray instance when this engine started it."""
        self._drop_workers()
        if self._started and ray.is_initialized():
            ray.shutdown()

    def _workers(self) -> list:
        if not self._actors:
            actor: Any = _Worker  # an actor class: @ray.remote gave it .remote(), which mypy cannot see
            self._actors = [actor.remote() for _ in range(self.n)]
        return self._actors

    def _drop_workers(self) -> None:
        for actor in self._actors:
            ray.kill(actor)
        self._actors = []


def _results(pool: ActorPool) -> Iterator:
    """The results of the next chunk, in order; a function's own error as itself, a lost actor as EngineError."""
    try:
        chunk = pool.get_next()
    except ray.exceptions.RayTaskError as e:
        raise _cause(e) from None
    except ray.exceptions.RayError as e:
        raise EngineError(f"a Ray worker was lost and its work could not be retried: {e}") from None
    yield from chunk


def _cause(e: ray.exceptions.RayTaskError) -> BaseException:
    """The exception the function raised on its worker (a WikigenError stays one, with its own message)."""
    cause = getattr(e, "cause", None)
    return cause if isinstance(cause, BaseException) else e.as_instanceof_cause()


def _drain(pool: ActorPool) -> None:
    while pool.has_next():
        with contextlib.suppress(ray.exceptions.RayError):
            pool.get_next()
