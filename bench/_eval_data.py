"""Where the dev corpora are, for every benchmark: $WIKIGEN_EVAL_DATA, else the folder shared/eval beside this
checkout or beside one of its parents, so that a git worktree nested below another folder finds the same
corpora as the checkout beside them; tests/eval_corpora.py finds them the same way. When none exists, the
checkout's sibling (../shared/eval) is named, so that a benchmark's error says where it looked. Not a script: its name starts with "_",
so tests/test_bench_scripts.py does not ask it for --help."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def eval_root() -> Path:
    given = os.environ.get("WIKIGEN_EVAL_DATA")
    if given:
        return Path(given)
    for parent in REPO.parents:
        if (parent / "shared" / "eval").is_dir():
            return parent / "shared" / "eval"
    return REPO.parent / "shared" / "eval"


EVAL_ROOT = eval_root()
