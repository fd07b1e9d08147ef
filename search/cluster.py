"""What each machine of an engine must have before a command sends it work, asked of every machine at once.

A cluster engine (`wikigen.core.ray_engine`) runs the per-document stages on other machines, each with its
own files and Python: extraction there opens the corpus's files by the paths this machine's scan found, and
embedding loads the model package installed there. A machine without them would fail, or worse, report
the corpus's files unreadable (skipped documents); so `wikigen index` and `wikigen build` ask every machine
first and refuse with one EngineError naming each machine and what it lacks. The local engine's machine is
this one: there is nothing to ask.
"""

from __future__ import annotations

import os
from pathlib import Path

from wikigen.core.engine import Engine, Parallel
from wikigen.core.errors import EngineError

__all__ = ["check_cluster", "installed_version", "machine_problems"]


def installed_version() -> str:
    """The installed version of wikigen-memory ("not installed" when run from a bare checkout)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("wikigen-memory")
    except PackageNotFoundError:
        return "not installed"


def machine_problems(corpus_dir: str | None, dense: bool, wikigen_version: str) -> list[str]:
    """What this machine lacks to run a command's stages (run on each machine of the cluster): the corpus
    folder at `corpus_dir` (readable), the model package when `dense`, this version of wikigen-memory."""
    problems = []
    if corpus_dir is not None and not (os.path.isdir(corpus_dir) and os.access(corpus_dir, os.R_OK | os.X_OK)):
        problems.append(f"no readable corpus folder at {corpus_dir}")
    if dense:
        from wikigen.search.dense.encoder import DenseUnavailable, model_files

        try:
            model_files()
        except DenseUnavailable as e:
            problems.append(str(e))
    here = installed_version()
    if here != wikigen_version:
        problems.append(f"wikigen-memory {here}, not {wikigen_version} as on the driver")
    return problems


def check_cluster(workers: Parallel, corpus_dir: Path | None, *, dense: bool) -> None:
    """Raise EngineError when a machine of the engine lacks what the stages need (see machine_problems);
    nothing for local worker processes. corpus_dir: the corpus the stages read (None: no extraction)."""
    if not isinstance(workers, Engine):
        return
    where = str(Path(corpus_dir).resolve()) if corpus_dir is not None else None
    answers = workers.on_every_node(machine_problems, where, dense, installed_version())
    lacking = {node: problems for node, problems in answers.items() if problems}
    if lacking:
        raise EngineError(
            "machines of the cluster cannot run this command: "
            + "; ".join(f"{node}: {', '.join(p)}" for node, p in sorted(lacking.items()))
            + " (every machine needs the corpus folder at the same path and wikigen-memory installed as here)"
        )
