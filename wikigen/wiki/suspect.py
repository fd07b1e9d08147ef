"""Text on a page that looks like a quote of a document but is not a verified quote, sources that are not
documents of the corpus, and page files that are not regular files inside the wiki (`check` reports all).

A verified quote has exactly one form, the `> [!quote] DOC_ID (chars START-END)` callout, and is checked
against its source. Anything else that reads like one is flagged so a reader is never misled:
  * a plain blockquote (`> text` outside a quote callout; other callouts such as `> [!note]` are fine);
  * a fenced code block holding prose (mostly words, with a sentence end) rather than code;
  * a `[!quote]` header inside a code fence.
"""

from __future__ import annotations

import re
from pathlib import Path

from wikigen.core.errors import PageError
from wikigen.core.text import normalize_newlines
from wikigen.wiki.markup import scan_quotes

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_CALLOUT = re.compile(r"^>\s*\[!(\w+)\]")
_PROSE_MIN = 40
_CODE_INFO = re.compile(r"^\s*(text|quote|txt|)\s*$", re.I)


def _looks_like_prose(text: str) -> bool:
    t = text.strip()
    if len(t) < _PROSE_MIN:
        return False
    letters = sum(c.isalpha() or c.isspace() for c in t)
    code = sum(c in "{}();=<>[]$#_/\\|`" for c in t)
    return letters / len(t) > 0.85 and code / len(t) < 0.02 and re.search(r"[.!?。다]\s*$|[.!?]\s", t) is not None


def suspect_quotes(body: str) -> list[tuple[int, str]]:
    """(1-based body line, why) for each quote-like block that is not a verified quote."""
    lines = normalize_newlines(body).split("\n")
    in_quote: set[int] = set()
    try:
        for b in scan_quotes(body, page_doc=""):
            in_quote.update(range(b.header_line, b.end_line))
    except PageError:
        pass  # reported by the quote checks
    out: list[tuple[int, str]] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m:
            fence, info, start = m.group(1), m.group(2), i
            i += 1
            content = []
            while i < len(lines) and not (lines[i].lstrip().startswith(fence[0] * len(fence))):
                content.append(lines[i])
                i += 1
            text = "\n".join(content)
            if "[!quote]" in text:
                out.append((start + 1, "a code block holds a quote header; a quote in code is never verified"))
            elif _CODE_INFO.match(info) and _looks_like_prose(text):
                out.append(
                    (
                        start + 1,
                        "a code block holds prose that reads like a quote; use the verified "
                        "'> [!quote] DOC_ID (chars START-END)' form or plain text",
                    )
                )
            i += 1
            continue
        if lines[i].startswith(">") and i not in in_quote:
            start = i
            c = _CALLOUT.match(lines[i])
            block = []
            while i < len(lines) and lines[i].startswith(">") and i not in in_quote:
                block.append(lines[i].lstrip(">").strip())
                i += 1
            if c is None and len(" ".join(block).strip()) >= 20:
                out.append(
                    (
                        start + 1,
                        "a plain blockquote reads like a quote but is not verified; use "
                        "'> [!quote] DOC_ID (chars START-END)' or remove the '>'",
                    )
                )
            continue
        i += 1
    return out


def odd_page_files(root: Path) -> list[tuple[str, str]]:
    """(name, why) for every *.md at the top of the wiki that is not a regular file inside it."""
    root = Path(root)
    out = []
    real_root = root.resolve()
    for p in sorted(root.glob("*.md")):
        if p.is_symlink():
            out.append((p.name, "is a symlink; pages must be regular files inside the wiki (it is not loaded)"))
        elif not p.is_file():
            out.append((p.name, "is not a regular file (it is not loaded)"))
        else:
            try:
                p.resolve().relative_to(real_root)
            except ValueError:
                out.append((p.name, "resolves outside the wiki (it is not loaded)"))
    return out


def unknown_sources(sources: list[str], known: set[str]) -> list[tuple[str, str]]:
    out = []
    for s in sources:
        if ".." in s.split("/") or s.startswith("/") or "\\" in s:
            out.append((s, "is a path, not a doc id of the corpus"))
        elif s not in known:
            out.append((s, "is not a document of the corpus"))
    return out
