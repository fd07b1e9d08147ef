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

__all__ = ["split_passages", "MIN_CHARS", "MAX_CHARS"]

MIN_CHARS = 800
MAX_CHARS = 1200

# The patterns are anchored at the window start with a greedy ".*", so one C-level match finds the
# LAST cut point of its kind inside the window (the regex engine backtracks from the window end).
# A blank line: a newline, optional horizontal whitespace (\r included), another newline.
_HSPACE = " \t\r\f\v\u00a0"
# A sentence end: terminal punctuation, optional closing quotes/brackets, then whitespace;
# a CJK full stop ends a sentence with no whitespace after it.
_LAST_SENTENCE = re.compile(r".*(?:[.!?;][\"'\)\]\u2019\u201d]*(?=\s)|[\u3002\uff01\uff1f\uff1b])", re.S)
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
        if not text[p + 1:j].strip(_HSPACE):
            return j + 1
        j = p
    for pattern in (_LAST_SENTENCE, _LAST_SPACE):
        m = pattern.match(text, lo, hi)
        if m:
            return m.end()
    if text[hi - 1] == "\r" and hi < len(text) and text[hi] == "\n":
        return hi - 1  # keep a \r\n pair together
    return hi


def _rstrip_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


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
        end = _rstrip_end(text, pos, cut)
        if end > pos:
            out.append((pos, end))
        m = _NON_SPACE.search(text, cut)
        pos = m.start() if m else n
    return out
