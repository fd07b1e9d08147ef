"""Split a document's text into passages with exact character offsets.

A passage is ``text[start:end]`` (Python str indices). Passages do not overlap, come in order, never
start or end with whitespace, and together cover every non-whitespace character of the text: only
whitespace is left out between two passages.

Cut points, in order of preference, inside the window ``[start + min_chars, start + max_chars]``:
a paragraph break (a blank line), else a sentence end, else any whitespace, else a hard cut at
``max_chars`` (text with no spaces at all, such as CJK).
"""

from __future__ import annotations

import re

from wikigen.core.sentences import boundaries
from wikigen.core.text import trim_span

__all__ = ["MAX_CHARS", "MIN_CHARS", "split_passages"]

MIN_CHARS = 800
MAX_CHARS = 1200

# A blank line: a newline, optional horizontal whitespace (\r included), another newline.
_HSPACE = " \t\r\f\v\u00a0"
_SENTENCE_CUTS = frozenset({"stop", "semicolon"})  # passages also end at a semicolon, never at a colon
# Anchored at the window start with a greedy ".*": one C-level match finds the LAST whitespace.
_LAST_SPACE = re.compile(r".*\s", re.S)
_NON_SPACE = re.compile(r"\S")


def _cut(text: str, lo: int, hi: int) -> int:
    """Where to end a passage whose window is text[lo:hi]: after the last paragraph break, sentence
    end or whitespace in the window, else at hi."""
    j = text.rfind("\n", lo, hi)
    while j > lo:  # the last blank line, checked newline by newline from the window end
        p = text.rfind("\n", lo, j)
        if p < 0:
            break
        if not text[p + 1 : j].strip(_HSPACE):
            return j + 1
        j = p
    cut = None
    for b in boundaries(text, lo, hi, _SENTENCE_CUTS):
        if b.next < hi:  # the whitespace after it lies inside the window
            cut = b.next
    if cut is not None:
        return cut
    m = _LAST_SPACE.match(text, lo, hi)
    if m:
        return m.end()
    if text[hi - 1] == "\r" and hi < len(text) and text[hi] == "\n":
        return hi - 1  # keep a \r\n pair together
    return hi


def split_passages(text: str, *, min_chars: int = MIN_CHARS, max_chars: int = MAX_CHARS) -> list[tuple[int, int]]:
    """The passages of text as (start, end) character offsets."""
    if min_chars < 1 or max_chars < min_chars:
        raise ValueError("need 1 <= min_chars <= max_chars")
    out: list[tuple[int, int]] = []
    n = len(text)
    m = _NON_SPACE.search(text)
    pos = m.start() if m else n
    while pos < n:
        if n - pos <= max_chars:
            cut = n
        else:
            cut = _cut(text, pos + min_chars, pos + max_chars)
        end = trim_span(text, pos, cut)[1]
        if end > pos:
            out.append((pos, end))
        m = _NON_SPACE.search(text, cut)
        pos = m.start() if m else n
    return out
