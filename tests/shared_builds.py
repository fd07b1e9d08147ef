"""Wikis built once per test run and shared by every pytest-xdist worker: the shipped sample corpus's wiki as
`wikigen build` makes it (and the cuad-dev wiki, tests/eval_corpora.py). A test module that only reads or
changes such a wiki gets a copy of its own, so a build the suite would repeat in ten modules runs once, and no
test sees another's changes. A copy is the same wiki: its config names the index by a path inside the wiki."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

SAMPLE = Path(__file__).resolve().parent.parent / "corpora" / "acme"


def shared_folder(tmp_path_factory) -> Path:
    """The folder every pytest-xdist worker of this run shares (their base folders' parent)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def build_once(shared: Path, name: str, corpus: Path, **config) -> Path:
    """The wiki of corpus built with BuildConfig(**config) into shared/NAME/wiki, unless it is built: whoever
    holds the lock first builds, the others wait for it and find it built."""
    from wikigen.agents.orchestrate import BuildConfig, build

    from wikigen.core.locks import file_lock

    root = shared / name / "wiki"
    with file_lock(shared / f"{name}.lock"):
        if not (root.parent / "built").exists():
            report = build(BuildConfig(corpus=corpus, wiki=root, quiet=True, **config))
            assert report.ok, report.stopped_reason
            (root.parent / "built").write_text("ok", encoding="utf-8")
    return root


def copy_wiki(built: Path, dest: Path) -> Path:
    """A copy of the built wiki at dest (its index, history and private state included)."""
    shutil.copytree(built, dest, symlinks=True)
    cfg = json.loads((dest / ".wikigen" / "config.json").read_text(encoding="utf-8"))
    assert not Path(cfg["index_dir"]).is_absolute(), "the copy would share the built wiki's index"
    return dest


def sample_wiki(tmp_path_factory, dest: Path, *, sessions: int) -> Path:
    """At dest, a copy of the sample corpus's wiki as the default build makes it (2 agents, offline; no passage
    vectors, as every test build unless marked dense) after `sessions` sessions."""
    built = build_once(shared_folder(tmp_path_factory), f"sample-{sessions}", SAMPLE, agents=2, sessions=sessions)
    return copy_wiki(built, dest)
