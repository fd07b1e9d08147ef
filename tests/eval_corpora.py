"""The dev corpora ($WIKIGEN_EVAL_DATA, else ../shared/eval, read-only), found from any checkout: the main one
(/work/main) or a worktree below it (/work/wt/NAME). Tests that use them skip when they are absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CUAD_WIKI_ENV = "WIKIGEN_CUAD_WIKI"  # a cuad-dev wiki built before (2 agents, 2 sessions, offline), to reuse
# The first test that asks for the cuad-dev wiki builds it (about a minute alone, six under a load of 15): its
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


def build_cuad_wiki(tmp_path_factory) -> Path:
    """The cuad-dev wiki as `wikigen build` makes it by default (2 agents, 2 sessions, offline; no passage
    vectors), built once per test run (by the first of pytest-xdist's workers to ask); or the one named by
    $WIKIGEN_CUAD_WIKI. Skips without the corpus."""
    from wikigen.agents.orchestrate import BuildConfig, build

    from wikigen.core.locks import file_lock

    given = os.environ.get(CUAD_WIKI_ENV)
    if given:
        return Path(given)
    corpus = eval_corpus("cuad-dev")
    if corpus is None:
        pytest.skip("the cuad-dev corpus (../shared/eval/cuad-dev) is not present")
    # one build for the whole run: pytest-xdist's workers share their base folder's parent, and the first worker
    # to get there builds while the others wait on the lock (each worker built its own before: two builds a run)
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    root = shared / "cuad-shared" / "wiki"
    with file_lock(shared / "cuad-shared.lock"):
        if not (root.parent / "built").exists():
            report = build(BuildConfig(corpus=corpus / "docs", wiki=root, quiet=True, dense=False))
            assert report.ok, report.stopped_reason
            (root.parent / "built").write_text("ok", encoding="utf-8")
    return root
