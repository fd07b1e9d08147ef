"""The public API: `from wikigen import ...` gives exactly the names of wikigen.__all__, each the object of
the module it lives in (as httpx's tests/test_exported_members.py keeps its surface declared)."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import types

import pytest

import wikigen


def test_all_is_exactly_the_public_names():
    public = {
        n for n in dir(wikigen) if not n.startswith("_") and not isinstance(getattr(wikigen, n), types.ModuleType)
    }
    assert set(wikigen.__all__) == public | {"__version__"}


@pytest.mark.parametrize("name", [n for n in wikigen.__all__ if n != "__version__"])
def test_each_name_is_its_home_modules_object(name):
    obj = getattr(wikigen, name)
    home = sys.modules[obj.__module__]
    assert home.__name__.startswith("wikigen.") and getattr(home, name) is obj


def test_star_import_gives_the_api_and_a_misspelt_name_is_an_attribute_error():
    code = (
        "from wikigen import *\n"
        "import wikigen\n"
        "assert all(n in globals() for n in wikigen.__all__)\n"
        "try:\n    wikigen.CorpusIndx\nexcept AttributeError as e:\n    print(e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert r.stdout.strip() == "module 'wikigen' has no attribute 'CorpusIndx'"


def test_version_is_the_distributions():
    assert wikigen.__version__ == importlib.metadata.version("wikigen-memory")
