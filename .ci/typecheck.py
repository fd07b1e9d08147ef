"""mypy over the project's source trees, each module under the name it is installed as.

`search/` and `agents/` install as `wikigen.search` and `wikigen.agents` (pyproject.toml's
[tool.setuptools] package-dir), which mypy cannot know: run on the folders, it would call their modules
`search.index` and `agents.tools`, and every `from wikigen.search ...` in them would be a missing module.
The editable install finds them through an import hook, which mypy does not run either. So this script
lets mypy find the files as usual (the trees in [tool.mypy] files, or the paths given), then renames
each module of a mapped folder to its installed name before the check; errors name the real files.

    python .ci/typecheck.py             # everything in [tool.mypy] files
    python .ci/typecheck.py search/     # a part; any other mypy option may be given too
"""

from __future__ import annotations

import sys
import time
import tomllib
from pathlib import Path

from mypy import main as mypy_main
from mypy import util
from mypy.fscache import FileSystemCache

ROOT = Path(__file__).resolve().parent.parent


def installed_names() -> dict[str, str]:
    """{module name of a mapped folder, as mypy derives it from the path: its installed name}."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    package_dir = config["tool"]["setuptools"]["package-dir"]
    return {folder.replace("/", "."): package for package, folder in package_dir.items() if folder != package}


def rename(module: str, names: dict[str, str]) -> str:
    head, dot, rest = module.partition(".")
    return names[head] + dot + rest if head in names else module


def main(argv: list[str]) -> int:
    names = installed_names()
    fscache = FileSystemCache()
    sources, options = mypy_main.process_options(argv, stdout=sys.stdout, stderr=sys.stderr, fscache=fscache)
    for source in sources:
        source.module = rename(source.module, names)
    _, messages, blockers = mypy_main.run_build(sources, options, fscache, time.time(), sys.stdout, sys.stderr)
    n_errors, n_notes, n_files = util.count_stats(messages)
    if messages and n_notes < len(messages):  # as mypy itself decides its exit status
        print(f"Found {n_errors} errors in {n_files} files (checked {len(sources)} source files)")
        return 2 if blockers else 1
    print(f"Success: no issues found in {len(sources)} source files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
