"""The dev corpora ($WIKIGEN_EVAL_DATA, else ../shared/eval, read-only), found from any checkout: shared/eval
beside the checkout or beside one of its parents (a git worktree nested below another folder). Tests that use
them skip when they are absent."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from shared_builds import build_once, shared_folder

CUAD_WIKI_ENV = "WIKIGEN_CUAD_WIKI"  # a wiki of the tests' cuad-dev contracts built before (2 agents, 2 sessions,
# offline), to reuse
# The first test that asks for the cuad-dev wiki builds it (about 25 s alone, minutes under a heavy load): its
# time limit covers that build, not only the test.
CUAD_TIMEOUT = pytest.mark.timeout(1800)


def eval_corpus(name: str) -> Path | None:
    """The dev corpus NAME: in $WIKIGEN_EVAL_DATA, else in shared/eval next to this checkout or one of its
    parents; None when absent."""
    given = os.environ.get("WIKIGEN_EVAL_DATA")
    if given:
        p = Path(given) / name
        return p if p.is_dir() else None
    for parent in Path(__file__).resolve().parents:
        p = parent / "shared" / "eval" / name
        if p.is_dir():
            return p
    return None


def half_of(docs: Path, dest: Path) -> Path:
    """Every second document of docs (in file-name order), copied into dest once (made under another name, then
    renamed: a second caller finds it whole or makes its own and drops it). The tests' cuad-dev wiki is built from
    these 126 contracts: a wiki that still outgrows every reply budget and MEMORY.md's room, for half the build of
    the whole corpus (about 37 s of CPU against 66 s, in a test run that has two cores)."""
    if dest.is_dir():
        return dest
    part = dest.with_name(f"{dest.name}.{os.getpid()}")
    shutil.rmtree(part, ignore_errors=True)
    part.mkdir(parents=True)
    for f in sorted(p for p in docs.iterdir() if p.is_file())[::2]:
        shutil.copyfile(f, part / f.name)
    try:
        part.rename(dest)
    except OSError:  # another process made it first
        shutil.rmtree(part, ignore_errors=True)
    return dest


def _build_locked(corpus: Path, shared: Path) -> Path:
    """The wiki of half the cuad-dev contracts in shared/cuad-shared/wiki, built by whoever asks first
    (tests/shared_builds.py)."""
    return build_once(shared, "cuad-shared", half_of(corpus / "docs", shared / "cuad-half"), dense=False)


def build_cuad_wiki(tmp_path_factory) -> Path:
    """The wiki of half the cuad-dev contracts (`half_of`) as `wikigen build` makes it by default (2 agents, 2
    sessions, offline; no passage vectors), built once per test run: by the background build `start_cuad_build` began, or else here, by the
    first of pytest-xdist's workers to ask, while the others wait on the lock. Or the one named by
    $WIKIGEN_CUAD_WIKI. Skips without the corpus."""
    given = os.environ.get(CUAD_WIKI_ENV)
    if given:
        return Path(given)
    corpus = eval_corpus("cuad-dev")
    if corpus is None:
        pytest.skip("the cuad-dev corpus (../shared/eval/cuad-dev) is not present")
    return _build_locked(corpus, shared_folder(tmp_path_factory))


def start_cuad_build(tmp_path_factory) -> subprocess.Popen | None:
    """Begin building the cuad-dev wiki in a process of its own (once per run: the first worker to get here),
    so that it is built by the time the tests that use it run (tests/conftest.py puts them last); the process,
    or None when it was begun already, the wiki is given or the corpus is absent. Its output goes to
    cuad-shared/build.log."""
    corpus = eval_corpus("cuad-dev")
    if os.environ.get(CUAD_WIKI_ENV) or corpus is None:
        return None
    shared = shared_folder(tmp_path_factory)
    (shared / "cuad-shared").mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(shared / "cuad-shared" / "started", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return None
    with open(shared / "cuad-shared" / "build.log", "wb") as log:
        return subprocess.Popen(
            [sys.executable, __file__, str(corpus), str(shared)],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=Path(__file__).resolve().parent.parent,
        )


if __name__ == "__main__":  # the background build: eval_corpora.py CORPUS SHARED
    _build_locked(Path(sys.argv[1]), Path(sys.argv[2]))
