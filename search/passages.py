"""Split a document's text into passages with exact character offsets.

A passage is ``text[start:end]`` (Python str indices). Passages do not overlap, come in order, never
start or end with whitespace, and together cover every non-whitespace character of the text: only
whitespace, and an overlong token (below), is left out between two passages.

Cut points, in order of preference, inside the window ``[start + min_chars, start + max_chars]``:
a paragraph break (a blank line), else a sentence end, else any whitespace, else a hard cut at
``max_chars`` (text with no spaces at all, such as CJK).

A token longer than the longest passage (a run of ``MAX_CHARS`` + 1 or more characters without
whitespace, in a script written with spaces: a base64 attachment, a minified script, a hash chain) is
in no passage: it could only be cut mid-word into passages that read as nothing, and no analyzer
indexes a term that long (tantivy's drops terms over 40 bytes). `overlong_tokens` gives their spans,
the index counts them. A run holding CJK or another script written without spaces is text, and is cut.
"""

from __future__ import annotations

import re

from wikigen.search.analysis import CJK_RUN

from wikigen.core.sentences import boundaries
from wikigen.core.text import trim_span

__all__ = ["MAX_CHARS", "MIN_CHARS", "overlong_tokens", "split_passages"]

# About 1,000 characters: a passage of English is about 220 word pieces, inside the encoder's 256-token limit
# (search/dense/encoder.py), so its vector reads all of it; also the unit BM25 ranks and ask quotes from. Half and
# double were each worse beyond one standard error on a benchmark row (docs/benchmarks.md, Knobs).
MIN_CHARS = 800
MAX_CHARS = 1200  # ... cut at the last paragraph break, sentence end or space between the two

# A blank line: a newline, optional horizontal whitespace (\r included), another newline.
_HSPACE = " \t\r\f\v\u00a0"
_SENTENCE_CUTS = frozenset({"stop", "semicolon"})  # passages also end at a semicolon, never at a colon
# Anchored at the window start with a greedy ".*": one C-level match finds the LAST whitespace.
_LAST_SPACE = re.compile(r".*\s", re.S)
_NON_SPACE = re.compile(r"\S")
# Thai and Lao, Myanmar, Khmer: with CJK_RUN's scripts, the ones whose words no space separates
_UNSPACED = re.compile(rf"{CJK_RUN.pattern}|[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]")


def overlong_tokens(text: str, max_chars: int = MAX_CHARS) -> list[tuple[int, int]]:
    """The (start, end) of each token longer than max_chars: a run without whitespace, in no script
    written without spaces (see the module docstring). In text order."""
    # the lookbehind lets a run be tried from its first character only: one pass over the text
    runs = re.finditer(rf"(?<!\S)\S{{{max_chars + 1},}}", text)
    return [m.span() for m in runs if not _UNSPACED.search(text, m.start(), m.end())]


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
    """The passages of text as (start, end) character offsets; no overlong token is in one."""
    if min_chars < 1 or max_chars < min_chars:
        raise ValueError("need 1 <= min_chars <= max_chars")
    out: list[tuple[int, int]] = []
    a = 0
    for skip, resume in [*overlong_tokens(text, max_chars), (len(text), len(text))]:
        n = skip  # the stretch text[a:skip] up to the next overlong token, cut into passages
        m = _NON_SPACE.search(text, a, n)
        pos = m.start() if m else n
        while pos < n:
            if n - pos <= max_chars:
                cut = n
            else:
                cut = _cut(text, pos + min_chars, pos + max_chars)
            end = trim_span(text, pos, cut)[1]
            if end > pos:
                out.append((pos, end))
            m = _NON_SPACE.search(text, cut, n)
            pos = m.start() if m else n
        a = resume
    return out
