"""The one reader of questions files, for `wikigen ask --questions` and `wikigen eval`.

A questions file is UTF-8 text, one question a line (blank lines skipped):

- a JSON object with a non-empty string `question` (any other fields are kept: `id`, `kind`,
  `evidence`, ...);
- a JSON string;
- or a plain line of text, which is the question itself.

A line that starts like a JSON object or array (``{`` or ``[``) must be valid JSON: a broken object
is an error, never asked as a question. Every question gets an `id` (``q<line number>`` when it has none) and a
`kind` (``single`` when it has none).
"""

from __future__ import annotations

import json
from pathlib import Path

from wikigen.core.errors import WikigenError


def _json_string(line: str) -> str:
    """A line that is a JSON string is that string; any other line is the question as written."""
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        return line
    return value if isinstance(value, str) else line


def parse_question(line: str, where: str) -> dict:
    """One line of a questions file as a question dict (without defaults); `where` is 'path:line' for errors."""
    if line[0] in "{[":
        try:
            q = json.loads(line)
        except json.JSONDecodeError as e:
            raise WikigenError(f"{where}: not JSON ({e.msg})") from None
    else:
        q = _json_string(line)
    if isinstance(q, str):
        q = {"question": q}
    if not isinstance(q, dict) or not isinstance(q.get("question"), str) or not q["question"].strip():
        raise WikigenError(f"{where}: a question needs a non-empty 'question' field")
    return q


def read_questions(path: Path) -> list[dict]:
    """The questions of a file (see the module docstring), in file order."""
    path = Path(path)
    if not path.is_file():
        raise WikigenError(f"no questions file at {path}")
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError as e:
        raise WikigenError(f"{path}: not UTF-8 text (byte {e.start}); save the questions file as UTF-8") from None
    out = []
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        q = parse_question(line, f"{path}:{n}")
        q.setdefault("id", f"q{n}")
        q.setdefault("kind", "single")
        out.append(q)
    return out
