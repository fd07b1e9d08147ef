"""pyproject.toml lists every folder that ships: an importable folder left out of `packages` is what setuptools
warns about at every install ("Package ... is absent from the `packages` configuration")."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_shipped_folder_is_a_listed_package():
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(tool["packages"])
    folders = set()
    for name, where in tool["package-dir"].items():
        base = ROOT / where
        for d in [base, *(p for p in base.rglob("*") if p.is_dir())]:
            rel = d.relative_to(base).parts
            if "__pycache__" in rel or any(part.startswith(".") for part in rel):
                continue
            if any(f.is_file() for f in d.iterdir()):
                folders.add(".".join((name, *rel)))
    assert folders - listed == set()
    assert listed - folders == set()
    data = tool["package-data"]
    assert all(pkg in listed for pkg in data)
    assert any(pkg.endswith(".schemas") for pkg in data)  # the shipped schemas travel with the wheel
