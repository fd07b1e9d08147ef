"""Page furniture: what pagination adds to a document's text that is none of its sentences (page numbers,
running headers and footers, form feeds), recognised from the document itself, and the gaps a sentence runs
on across.

    page_breaks(text) -> ((a, b), ...)   text[a:b] is whitespace and furniture only; the sentence in progress
                                         at a goes on at b ("...WHETHER BASED ON 16 <header> CONTRACT, TORT")

What counts as furniture (the grammar of a paginated document, no vocabulary):
* **a page number**: a number ("16", "Page 16", "16 of 40", "- 16 -") alone on its line, or ending a line
  that a blank line, a form feed or the end of the text follows, where the document's numbers rise page
  after page: a chain of at least MIN_PAGES numbers each one (or two, a page missed) above the one before;
* **a running line**: a line of at most 200 characters, set apart by a blank line before or after it, that
  recurs, digits aside ("Page 3 of 12" and "Page 4 of 12" are one line), at least MIN_PAGES times across at
  least a third of the document;
* **a running header set inline**: the words that open the text after at least MIN_PAGES page numbers alike
  (a PDF's header run into the next page's first line): their longest shared opening, to its last sentence
  end or its line's end (pages that merely open with the same words share no header);
* **a form feed**.

A gap is a run of whitespace and furniture between two pieces of text. The sentence before it runs on across
it when that text is a sentence in progress (it ends with no stop, colon or semicolon, on a line of at least
MIN_LINE characters: wrapped prose, not a heading or a table cell) and the text after it opens no list item
and is no heading (a short line, no stop, a blank line after it). `wikigen.core.sentences` finds no
boundary inside such a gap, so a quote keeps its sentence whole, the furniture inside its span.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import defaultdict

from wikigen.core.text import LIST_MARKER

__all__ = ["MIN_LINE", "MIN_PAGES", "furniture", "page_breaks"]

MIN_PAGES = 3  # page numbers in a chain, or recurrences of a running line
# Both are cached per text (1,024 texts): the sentence rule asks for a document's page breaks on every call, and
# a str caches its hash, so a document asked about again costs a lookup.
MIN_LINE = 40  # a line this long before a page break is wrapped prose, not a heading or a cell
_NUMBER = r"(?:(?:page|pg\.?|p\.)[ \t]*)?(?:[-\u2013\u2014][ \t]*)?(?P<n>\d{1,4})(?:[ \t]*(?:of|/)[ \t]*\d{1,4})?(?:[ \t]*[-\u2013\u2014])?"
_ALONE = re.compile(rf"^[ \t]*{_NUMBER}[ \t]*$", re.I | re.M)
# a page number that ends the last line of a page (searched only in that line's last characters)
_LINE_END = re.compile(rf"(?:(?<=\S)[ \t]+(?=page|pg)|(?<=[^\s\d])[ \t]+)(?P<tok>{_NUMBER})[ \t]*\Z", re.I)
_PAGE_END = re.compile(r"\n[ \t\r\v]*[\n\f]|\f")  # a blank line or a form feed after a line
_LINE = re.compile(r"[^\n]+")
_DIGITS = re.compile(r"\d+")
_STOP_BEFORE = re.compile(r"[.!?\u3002\uff01\uff1f:;\uff1b][\"'\)\]\u2019\u201d]*$")
_ITEM = re.compile(rf"[ \t]*(?:{LIST_MARKER})")
_MAX_RUNNING = 200
_HEADER_END = re.compile(r"[.!?\u3002][\"'\)\]\u2019\u201d]*(?=\s)")
_HEADER_KEY = 24  # characters that group the openings of pages before their shared prefix is measured


def _page_numbers(text: str) -> list[tuple[int, int]]:
    """The spans of the page numbers: candidates that belong to a rising chain of MIN_PAGES or more."""
    found = {(m.start(), m.end(), int(m.group("n"))) for m in _ALONE.finditer(text)}
    ends = [m.start() for m in _PAGE_END.finditer(text)] + [len(text.rstrip())]
    for end in ends:
        while end > 0 and text[end - 1] in " \t":
            end -= 1
        if end and (text[end - 1].isdigit() or text[end - 1] in "-\u2013\u2014"):  # cheap test before the regex
            m = _LINE_END.search(text, max(0, end - 40), end)
            if m:
                found.add((m.start("tok"), m.end("tok"), int(m.group("n"))))
    cands = sorted(found)
    length = [1] * len(cands)
    prev: list[int | None] = [None] * len(cands)
    last_of: dict[int, int] = {}
    for i, (_, _, n) in enumerate(cands):
        for step in (1, 2):
            j = last_of.get(n - step)
            if j is not None and length[j] + 1 > length[i]:
                length[i], prev[i] = length[j] + 1, j
        last_of[n] = i
    keep: set[int] = set()
    for i in range(len(cands)):
        if length[i] >= MIN_PAGES:
            member: int | None = i
            while member is not None and member not in keep:
                keep.add(member)
                member = prev[member]
    return [(cands[i][0], cands[i][1]) for i in sorted(keep)]


def _running_lines(text: str) -> list[tuple[int, int]]:
    """The spans of the lines that recur through the document (see the module docstring)."""
    seen: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for m in _LINE.finditer(text):
        line = m.group()
        core = line.strip()
        if not core or len(core) > _MAX_RUNNING or not _set_apart(text, m.start(), m.end()):
            continue
        s = m.start() + line.index(core[0])
        seen[_DIGITS.sub("#", " ".join(core.split()))].append((s, s + len(core)))
    out = []
    for spans in seen.values():
        if len(spans) >= MIN_PAGES and spans[-1][0] - spans[0][0] >= len(text) / 3:
            out.extend(spans)
    return out


def _set_apart(text: str, start: int, end: int) -> bool:
    """Whether the line text[start:end] stands apart from the body: a blank line (or the text's start or end)
    before or after it, as a header or footer does."""
    before = text[max(0, start - 40) : start]
    after = text[end : end + 40]
    return bool(
        start == 0 or re.search(r"\n[ \t\r\f\v]*\n[ \t\r\f\v]*$", before) or re.match(r"\s*\Z|\n[ \t\r\f\v]*\n", after)
    )


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _inline_headers(text: str, after: list[int]) -> list[tuple[int, int]]:
    """The spans of a running header run into the first line of pages: the longest opening shared by the
    text after at least MIN_PAGES page numbers, to its last sentence end (or its line's end)."""
    groups: dict[str, list[int]] = defaultdict(list)
    for p in after:
        if p < len(text):
            groups[text[p : p + _HEADER_KEY]].append(p)
    best = max(groups.values(), key=len, default=[])
    if len(best) < MIN_PAGES or len(text[best[0] : best[0] + _HEADER_KEY]) < _HEADER_KEY:
        return []
    openings = [text[p : p + 600] for p in best]
    n = 0
    while n < len(openings[0]) and all(len(o) > n and o[n] == openings[0][n] for o in openings):
        n += 1
    if not all(len(o) > n and o[n] == "\n" for o in openings):  # a header ends its line or a sentence
        stops = list(_HEADER_END.finditer(openings[0], 0, n + 1))
        n = stops[-1].end() if stops else 0
    prefix = openings[0][:n].rstrip()
    return [(p, p + len(prefix)) for p in best] if len(prefix) >= _HEADER_KEY else []


@functools.lru_cache(maxsize=1024)
def furniture(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of the document's page furniture, in text order, overlaps merged."""
    if "\n" not in text and "\f" not in text:
        return ()
    numbers = _page_numbers(text)
    spans = numbers + _running_lines(text) + [(m.start(), m.end()) for m in re.finditer("\f", text)]
    spans.sort()
    after = []
    for _, e in numbers:  # where each page's own text starts: after the number and any running line below it
        p = _skip_space(text, e)
        i = bisect.bisect_left(spans, (p, -1))
        while i < len(spans) and spans[i][0] == p:
            p = _skip_space(text, spans[i][1])
            i = bisect.bisect_left(spans, (p, -1))
        after.append(p)
    spans = sorted(spans + _inline_headers(text, after))
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return tuple(merged)


def _sentence_in_progress(text: str, a: int) -> bool:
    """Whether the text before a is a sentence in progress: no stop, colon or semicolon ends it, and its
    line is at least MIN_LINE characters (spaces collapsed) of three words or more."""
    if a <= 0 or _STOP_BEFORE.search(text, max(0, a - 4), a):
        return False
    words = text[text.rfind("\n", 0, a) + 1 : a].split()
    return len(" ".join(words)) >= MIN_LINE and sum(any(c.isalpha() for c in w) for w in words) >= 3


def _goes_on(text: str, b: int) -> bool:
    """Whether the text at b continues a sentence: no list item opens there and no heading stands there (a
    short line without a stop, a blank line after it)."""
    if b >= len(text) or _ITEM.match(text, b):
        return False
    end = text.find("\n", b)
    if end == -1 or end - b >= MIN_LINE or _STOP_BEFORE.search(text, b, end):
        return True
    return not re.match(r"\n[ \t\r\f\v]*\n", text[end : end + 40])


@functools.lru_cache(maxsize=1024)
def page_breaks(text: str) -> tuple[tuple[int, int], ...]:
    """The gaps (a, b) a sentence runs on across: text[a:b] is whitespace and page furniture only, a sentence
    is in progress at a and goes on at b (see the module docstring). In text order."""
    spans = furniture(text)
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        a = spans[i][0]
        while a > 0 and text[a - 1].isspace():
            a -= 1
        b = _skip_space(text, spans[i][1])
        i += 1
        while i < len(spans) and spans[i][0] <= b:  # furniture after furniture: one gap
            b = _skip_space(text, max(b, spans[i][1]))
            i += 1
        if _sentence_in_progress(text, a) and _goes_on(text, b):
            out.append((a, b))
    return tuple(out)
