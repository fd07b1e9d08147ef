"""Sentences: the one place that says where a sentence (or a clause) ends, for passages, quotes and answers.

A boundary is one of four kinds, matched by one pattern:

* ``stop``       terminal punctuation (``. ! ?``, optionally followed by closing quotes or brackets) before
                 whitespace or the end of the text, or a CJK full stop (``。！？``), which needs no space;
* ``semicolon``  ``;`` before whitespace, or the CJK ``；``;
* ``colon``      ``:`` before whitespace;
* ``paragraph``  a blank line;
* ``line``       any other line end (for excerpts, where a list item or a heading line stands alone).

Callers choose which kinds count (`SENTENCE`: stops and paragraphs; `CLAUSE`: every kind). A boundary's
`end` is where the text before it stops: after the punctuation (closers included), or at the newline of
a paragraph break. Two rules keep a clause with its fact (`real_end`): a paragraph break right after a
colon is no end (what follows is what the colon announces), and neither is the dot of a bare enumerator
line ("6." or "(a)" alone on its line), so a clause number stays with its clause.
"""

from __future__ import annotations

import re
from typing import Iterator, NamedTuple

from wikigen.core.text import trim_span

CLOSERS = "\"'\\)\\]\u2019\u201d"
_BOUNDARY = re.compile(
    rf"(?P<stop>[.!?][{CLOSERS}]*(?=\s|$)|[\u3002\uff01\uff1f])"
    rf"|(?P<semicolon>;[{CLOSERS}]*(?=\s|$)|\uff1b)"
    rf"|(?P<colon>:[{CLOSERS}]*(?=\s|$))"
    r"|(?P<paragraph>\n[ \t\r\f\v]*\n)"
    r"|(?P<line>\n)"
)
SENTENCE = frozenset({"stop", "paragraph"})
CLAUSE = frozenset({"stop", "semicolon", "colon", "paragraph"})
LINE = frozenset({"stop", "paragraph", "line"})
MIN_SENTENCE = 40   # a shorter piece (a clause number, a heading) joins the sentence after it
_ENUMERATOR_LINE = re.compile(r"^[ \t]*\(?[0-9A-Za-z]{1,3}(?:\.[0-9]{1,3})*[.)]$")


class Boundary(NamedTuple):
    kind: str     # stop | semicolon | colon | paragraph
    end: int      # where the text before the boundary stops
    next: int     # where the text after it may start (the end of the match)


def boundaries(text: str, start: int = 0, end: int | None = None,
               kinds: frozenset[str] = SENTENCE) -> Iterator[Boundary]:
    """The boundaries of the given kinds whose match lies within text[start:end], in order."""
    stop = len(text) if end is None else end
    for m in _BOUNDARY.finditer(text, start, stop):
        kind = m.lastgroup
        if kind in kinds:
            yield Boundary(kind, m.start() if kind in ("paragraph", "line") else m.end(), m.end())


def real_end(text: str, b: Boundary) -> bool:
    """A boundary a quote may stop at: not a paragraph break after a colon, not a bare enumerator's dot."""
    before = text[:b.end].rstrip()
    if b.kind in ("paragraph", "line") and before.endswith(":"):
        return False
    return not _ENUMERATOR_LINE.match(before[before.rfind("\n") + 1:])


def sentences(text: str, kinds: frozenset[str] = CLAUSE, min_chars: int = MIN_SENTENCE) -> list[tuple[int, int]]:
    """(start, end) of the sentences of text, whole and in order, whitespace trimmed; a piece shorter than
    min_chars (a clause number, a heading) is joined to the sentence that follows it."""
    out: list[tuple[int, int]] = []
    pos, pending = 0, None
    for cut in [b.next for b in boundaries(text, kinds=kinds)] + [len(text)]:
        a, b = trim_span(text, pos, cut)
        pos = cut
        if b <= a:
            continue
        if pending is not None:
            a, pending = pending, None
        if b - a < min_chars:
            pending = a
            continue
        out.append((a, b))
    if pending is not None:
        b = len(text.rstrip())
        if out:
            out[-1] = (out[-1][0], b)
        elif b > pending:
            out.append((pending, b))
    return out


def cap_span(text: str, start: int, end: int, cap: int, keep_to: int = 0) -> tuple[int, int]:
    """Cap the span near `cap` chars at a sentence end: the last real one before the cap, else the first
    one after it (up to 300 chars more, so a sentence is not cut off before its fact), else a clause mark
    or a space before the cap. The span always keeps [start, keep_to)."""
    start, end = trim_span(text, start, end)
    if end - start <= cap:
        return start, end
    limit = start + cap
    floor = max(keep_to, start + cap // 4)
    best = None
    for b in boundaries(text, start, limit):
        if b.end >= floor and real_end(text, b):
            best = b.end
    if best is None:
        best = next((b.end for b in boundaries(text, limit, min(end, limit + 300))
                     if b.end >= floor and real_end(text, b)), None)
    if best is None:
        for mark in (";", ",", " "):
            i = text.rfind(mark, floor, limit)
            if i > start:
                best = i + (1 if mark != " " else 0)
                break
    if best is None:
        best = limit
    return trim_span(text, start, best)


def sentence_span(text: str, s: int, e: int, cap: int) -> tuple[int, int]:
    """The sentence(s) around text[s:e], capped at cap chars and kept containing [s, e) when possible."""
    lo = max(0, s - cap)
    left = lo
    for b in boundaries(text, lo, s):
        left = b.next
    if left == lo and lo > 0:            # no sentence start nearby: begin at a word
        sp = text.find(" ", lo, s)
        left = sp + 1 if sp != -1 else s
    b = next(boundaries(text, e, min(len(text), e + cap)), None)
    right = b.end if b else min(len(text), e + cap // 2)
    left, right = trim_span(text, left, right)
    if e - left > cap:                   # the sentence starts far before the match
        sp = text.find(" ", max(left, s - cap // 3), s)
        left = sp + 1 if sp != -1 else s
    return cap_span(text, left, right, cap, keep_to=min(e, left + cap))


def last_boundary(text: str, start: int, end: int, kinds: frozenset[str]) -> int | None:
    """The `next` of the last boundary of the given kinds within text[start:end] (a cut point), or None."""
    last = None
    for b in boundaries(text, start, end, kinds):
        last = b.next
    return last
