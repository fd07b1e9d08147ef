"""Tuning knobs live in params objects (wikigen/ask/params.py, agents/params.py); a number left at module level in
wikigen/ask or search/ is a format version, a resource limit, a display cap or a library default, and says which
in a comment on its line or on a comment line above (the one-line reason issue 45 asks of every constant). This test finds
each module-level numeric constant with the parser and fails on one that gives no reason."""

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("wikigen/ask", "search")


def _numeric(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _numeric(node.operand)
    if isinstance(node, ast.BinOp):
        return _numeric(node.left) and _numeric(node.right)
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(_numeric(e) for e in node.elts)
    return False


def module_constants(path: Path) -> list[tuple[str, int, bool]]:
    """(name, line, has a comment on its lines or the line above) of each module-level numeric constant."""
    src = path.read_text(encoding="utf-8")
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(src).readline) if t.type == tokenize.COMMENT]
    comments = {t.start[0] for t in tokens}
    own_line = {t.start[0] for t in tokens if t.line.lstrip().startswith("#")}  # not another statement's comment
    out = []
    for node in ast.parse(src).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            name, value = node.target.id, node.value
        else:
            continue
        if name.startswith("__") or not _numeric(value):
            continue
        end = node.end_lineno or node.lineno
        said = node.lineno - 1 in own_line or any(n in comments for n in range(node.lineno, end + 1))
        out.append((name, node.lineno, said))
    return out


def test_every_module_constant_says_why():
    bare = [
        f"{path.relative_to(ROOT)}:{line} {name}"
        for folder in FOLDERS
        for path in sorted((ROOT / folder).rglob("*.py"))
        for name, line, reasoned in module_constants(path)
        if not reasoned
    ]
    assert not bare, "module constants without a reason (a comment on the line or above):\n" + "\n".join(bare)


def test_the_check_sees_a_bare_constant(tmp_path):
    f = tmp_path / "m.py"
    f.write_text('X = 3\n# why\nY = 0.5\nZ = 2 * 1024  # why\nW = 4\nNAME = "text"\nFLAG = True\n', encoding="utf-8")
    # W has no reason: the comment above it is Z's
    assert module_constants(f) == [("X", 1, False), ("Y", 3, True), ("Z", 4, True), ("W", 5, False)]
