"""Text primitives every layer shares: newline normalisation and where a needle occurs in a text.

Offsets are Python str indices (code points), never UTF-8 bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# what opens a list item at a line's start: a bullet, a circled number ("①"), "-" or "*", "1." / "4.2" / "(a)" /
# "ii)" / "a." (the sentence rule ends a sentence before one; page furniture never joins across one)
LIST_MARKER = (
    r"[\u2460-\u2473\u2022\u00b7\u25aa\u25cf\u25e6]|[-*][ \t]"
    r"|\(?(?:[0-9]{1,3}(?:\.[0-9]{1,3})*|[a-zA-Z]|[ivxlcIVXLC]{1,5})[.)][ \t]|[0-9]{1,3}(?:\.[0-9]{1,3})+[ \t]"
    r"|\((?:[a-zA-Z]{1,4}|[0-9]{1,3})\)[ \t]"
)


@dataclass(frozen=True, order=True)
class Span:
    doc_id: str
    start: int
    end: int


def normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _whitespace_pattern(needle: str) -> re.Pattern[str] | None:
    words = needle.split()
    if not words:
        return None
    return re.compile(r"\s+".join(re.escape(w) for w in words))


def find_spans(text: str, needle: str, *, tolerant_whitespace: bool = False, limit: int = 100) -> list[tuple[int, int]]:
    """Every (start, end) where needle occurs in text. Tolerant: any run of whitespace matches any other."""
    if not needle:
        return []
    out: list[tuple[int, int]] = []
    if not tolerant_whitespace:
        i = text.find(needle)
        while i != -1 and len(out) < limit:
            out.append((i, i + len(needle)))
            i = text.find(needle, i + 1)
        return out
    pat = _whitespace_pattern(needle)
    if pat is None:
        return []
    for m in pat.finditer(text):
        out.append((m.start(), m.end()))
        if len(out) >= limit:
            break
    return out


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without leading or trailing whitespace (empty spans collapse to (start, start))."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def one_line(text: str, limit: int | None = None) -> str:
    """Whitespace runs folded to one space, trimmed; cut to `limit` characters with an ellipsis."""
    line = " ".join(text.split())
    if limit is not None and len(line) > limit:
        line = line[: max(0, limit - 1)].rstrip() + "\u2026"
    return line
