"""The layering in ARCHITECTURE.md, kept true: imports flow one way and no module imports itself back.

Every module of the product is read with ast (lazy imports inside functions count too). Layers, lowest
first: core, wiki, search, ask, agents, then the surfaces on top (the CLI and what it serves). A module
may import its own layer and the layers below it, never one above; and the graph of imports between
modules has no cycle. The package root is a surface: its public API names classes of every layer
(imported on first use), so no layer below the surfaces may import from it.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"wikigen": ROOT / "wikigen", "wikigen.search": ROOT / "search", "wikigen.agents": ROOT / "agents"}
LAYERS = ["core", "wiki", "search", "ask", "agents", "surface"]


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for pkg, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([pkg, *parts])
            if pkg == "wikigen" and parts and parts[0] in ("search", "agents"):
                continue  # never present: those folders are mapped in, not nested
            out[name] = path
    return out


MODULES = _modules()


def layer_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in ("core", "wiki", "search", "ask", "agents"):
        return parts[1]
    if module == "wikigen":
        return "surface"  # the package root: the public API, re-exporting every layer (lazily)
    if len(parts) >= 2 and parts[1] == "web":
        return "surface"  # the web view (wikigen serve / wikigen site): a user-facing surface, like the CLI
    return "surface"


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if path.name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: str, path: Path) -> set[str]:
    """The project modules that `module` imports (the longest known module name of each import)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, path, node)
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names)
    out = set()
    for n in names:
        while n and n not in MODULES:
            n = n.rpartition(".")[0]
        if n and n != module:
            out.add(n)
    return out


def import_graph() -> nx.DiGraph:
    g: nx.DiGraph[str] = nx.DiGraph()
    for module, path in MODULES.items():
        g.add_node(module)
        for target in imports_of(module, path):
            g.add_edge(module, target)
    return g


def test_every_module_is_found():
    assert {
        "wikigen.core.errors",
        "wikigen.wiki.store",
        "wikigen.search.index",
        "wikigen.ask.retrieval",
        "wikigen.agents.orchestrate",
        "wikigen.cli",
    } <= set(MODULES)


def test_no_upward_import():
    bad = []
    for src, dst in import_graph().edges:
        if LAYERS.index(layer_of(dst)) > LAYERS.index(layer_of(src)):
            bad.append(f"{src} ({layer_of(src)}) imports {dst} ({layer_of(dst)})")
    assert not bad, "upward imports:\n" + "\n".join(sorted(bad))


OPTIONAL = ("ray",)  # the packages of pyproject's optional extras that a module may import at its top


@pytest.mark.parametrize("layer", LAYERS[:-1])
def test_importing_a_layer_loads_no_layer_above_it(layer):
    """The package root imports its public names on first use: importing every module of a layer (which
    runs the root's __init__) loads no module of a higher layer, nor the root's exports."""
    mine = sorted(m for m in MODULES if layer_of(m) == layer)
    # a module built on an optional extra (ray_engine on `ray`) imports where the extra is installed
    tries = "".join(
        f"try:\n    import {m}\nexcept ModuleNotFoundError as e:\n    if e.name.split('.')[0] not in {OPTIONAL!r}:\n"
        "        raise\n"
        for m in mine
    )
    code = "import sys\n" + tries + "print('\\n'.join(sys.modules))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    loaded = {m for m in r.stdout.split() if m in MODULES and m != "wikigen"}
    above = sorted(m for m in loaded if LAYERS.index(layer_of(m)) > LAYERS.index(layer))
    assert mine and not above, f"importing the {layer} layer loaded {above}"


def test_no_import_cycle():
    g = import_graph()
    cycles = list(nx.simple_cycles(g))
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c + [c[0]]) for c in cycles[:10])


def test_no_global_import_names():
    """search/ and agents/ install as wikigen.search and wikigen.agents: nothing imports them bare."""
    bare = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and node.level == 0
                else []
            )
            bare += [f"{module}: {n}" for n in names if n.split(".")[0] in ("search", "agents")]
    assert not bare, bare


def entry_points() -> set[str]:
    """The modules run as programs: pyproject's [project.scripts] and the Makefile's `python -m NAME`."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    scripts = re.findall(r'^\w[\w-]* = "([\w.]+):\w+"', pyproject, flags=re.M)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(scripts) | set(re.findall(r"python -m ([\w.]+)", makefile))


def test_every_module_serves_the_product():
    """A module of the product is imported by another module of the product or run as a program: a helper
    that only tests or benches use (a fake server, a fixture) lives in tests/ or bench/, not in the package."""
    g = import_graph()
    runs = entry_points()
    assert "wikigen.cli" in runs and "wikigen.web.screenshots" in runs, runs
    unused = sorted(
        str(MODULES[m].relative_to(ROOT))
        for m in g
        if g.in_degree(m) == 0 and MODULES[m].name != "__init__.py" and m not in runs
    )
    assert not unused, "modules that nothing in the product imports or runs: " + ", ".join(unused)


def test_a_module_sits_in_the_layer_of_its_work():
    """A module that neither imports nor is imported by a module of its own layer sits in the highest layer it
    imports from: it has nothing to do with a higher one (the documents table, imported by the surfaces only
    and built on the wiki and the corpus facts, is the search layer's, not the ask layer's)."""
    g = import_graph()
    misplaced = []
    for m in g:
        mine = layer_of(m)
        if mine == "surface" or MODULES[m].name == "__init__.py":
            continue
        near = [layer_of(n) for n in (*g.successors(m), *g.predecessors(m))]
        if mine in near:
            continue
        top = LAYERS[max((LAYERS.index(layer_of(d)) for d in g.successors(m)), default=0)]
        if top != mine:
            misplaced.append(f"{MODULES[m].relative_to(ROOT)} ({mine}) belongs to the {top} layer")
    assert not misplaced, "modules above their work: " + ", ".join(misplaced)


# --- ARCHITECTURE.md's module map names every module ------------------------------------------------------------

_FOLDERS = {"wikigen": "wikigen", "search": "wikigen.search", "agents": "wikigen.agents"}
_MAP_FOLDER = re.compile(r"^((?:wikigen|search|agents)/(?:[a-z_0-9]+/)*)(?:\s|$)")
_MAP_MODULE = re.compile(r"^  ([a-z_0-9]+)\.py(?:\s|$)")


def module_map(text: str) -> dict[str, int]:
    """The modules ARCHITECTURE.md's module map names, each with its line number. In a fenced block, a line that
    starts with a folder (`search/dense/   ...`) opens that package (naming its __init__); each line under it
    indented by two spaces and starting with a file name (`  store.py   ...`) names a module of it; deeper
    indented lines continue a description."""
    named: dict[str, int] = {}
    package = None
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            fenced, package = not fenced, None
            continue
        if not fenced:
            continue
        if folder := _MAP_FOLDER.match(line):
            top, *rest = folder.group(1).strip("/").split("/")
            package = ".".join([_FOLDERS[top], *rest])
            named.setdefault(package, number)
        elif package and (module := _MAP_MODULE.match(line)):
            name = module.group(1)
            named.setdefault(package if name == "__init__" else f"{package}.{name}", number)
    return named


def test_module_map_reads_folders_modules_and_continuations():
    text = "```\nsearch/dense/   dense\n  store.py      vectors\n                wrapped.py here\n```\n  late.py\n"
    assert module_map(text) == {"wikigen.search.dense": 2, "wikigen.search.dense.store": 3}


def test_architecture_names_every_module_and_no_other():
    """Every module under wikigen/, search/ and agents/ has its line in ARCHITECTURE.md's module map (a module
    added without one fails here, by name), and the map names no module that is gone."""
    named = module_map((ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8"))
    assert "wikigen.core.errors" in named, "the module map was not found in ARCHITECTURE.md"

    def where(m: str) -> str:
        return str(MODULES[m].relative_to(ROOT))

    missing = sorted(where(m) for m in MODULES if m not in named)
    gone = sorted(f"{m} (line {n})" for m, n in named.items() if m not in MODULES)
    assert not missing, "modules with no line in ARCHITECTURE.md's module map: " + ", ".join(missing)
    assert not gone, "ARCHITECTURE.md's module map names modules that do not exist: " + ", ".join(gone)
