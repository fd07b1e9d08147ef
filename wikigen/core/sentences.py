"""Sentences: the one place that says where a sentence (or a clause) ends, for passages, quotes and answers.

A boundary is one of four kinds, matched by one pattern:

* ``stop``       terminal punctuation (``. ! ?``, optionally followed by closing quotes or brackets) before
                 whitespace or the end of the text, or a CJK full stop (``。！？``), which needs no space;
* ``semicolon``  ``;`` before whitespace, or the CJK ``；``;
* ``colon``      ``:`` before whitespace;
* ``paragraph``  a blank line;
* ``item``       a line end before a line that opens with a list marker ("1.", "4.2", "(a)", "ii)", a
                 bullet, a circled number such as "①"): a list item or the heading above a list ends there;
* ``line``       any other line end (for excerpts, where a list item or a heading line stands alone).

Callers choose which kinds count (`SENTENCE`: stops and paragraphs; `CLAUSE`: every kind). A boundary's
`end` is where the text before it stops: after the punctuation (closers included), or at the newline of
a paragraph break. Two rules keep a clause with its fact (`real_end`): a paragraph break right after a
colon is no end (what follows is what the colon announces), and neither is the dot of a bare enumerator
line ("6." or "(a)" alone on its line), so a clause number stays with its clause.

A dot is no ``stop`` (`_false_stop`) when it closes an abbreviation ("U.S.", "Inc.", "e.g.", "Mr.",
"No. 5", an initial "J."), a clause number that opens its line, alone or after one word ("4." in
"4. TERM", "4.2." in "4.2. On expiry", "Item 1." in "Item 1. Financial Statements"), or when the next word starts in lower case ("the fee, i.e. the charge"). Whether a
mark is a boundary is decided on the whole text, never on the window asked about: the dot of "4.2"
is no stop even when a window ends right after "4.".

A page break inside a sentence is no boundary: where page furniture (a page number, a running header or
footer, a form feed: `wikigen.core.pages`) interrupts a sentence in progress, the sentence runs on across
it, so a quote of it is whole, with the furniture inside its span ("...WHETHER BASED ON 16 <header>
CONTRACT, TORT ...").
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import NamedTuple

from wikigen.core.pages import page_breaks
from wikigen.core.text import LIST_MARKER, trim_span

CLOSERS = "\"'\\)\\]\u2019\u201d"
_BOUNDARY = re.compile(
    rf"(?P<stop>[.!?][{CLOSERS}]*(?=\s|$)|[\u3002\uff01\uff1f])"
    rf"|(?P<semicolon>;[{CLOSERS}]*(?=\s|$)|\uff1b)"
    rf"|(?P<colon>:[{CLOSERS}]*(?=\s|$))"
    r"|(?P<paragraph>\n[ \t\r\f\v]*\n)"
    rf"|(?P<item>\n(?=[ \t]*(?:{LIST_MARKER})))"
    r"|(?P<line>\n)"
)
_MARK = re.compile("[.!?\u3002\uff01\uff1f;\uff1b:\n]")  # the characters a _BOUNDARY match can start with
SENTENCE = frozenset({"stop", "paragraph", "item"})
CLAUSE = frozenset({"stop", "semicolon", "colon", "paragraph", "item"})
LINE = frozenset({"stop", "paragraph", "item", "line"})
MIN_SENTENCE = 40  # a shorter piece (a clause number, a heading) joins the sentence after it
# A capped quote may run on to this many characters to end its sentence (legal sentences run long: of the
# cuad-dev quotes cut mid-sentence under the older cap + 300 rule, 89% end within 1,000 characters).
LONGEST_SENTENCE = 1000
_ENUMERATOR_LINE = re.compile(r"^[ \t]*\(?[0-9A-Za-z]{1,3}(?:\.[0-9]{1,3})*[.)]$")
# Abbreviations whose dot ends no sentence (general English, legal and business writing), lower case,
# without their final dot; "U.S."-like dotted letters and single initials are caught by a pattern.
ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "sr",
        "jr",
        "st",
        "messrs",
        "mme",
        "mlle",
        "rev",
        "hon",
        "gen",
        "col",
        "capt",
        "lt",
        "sgt",
        "inc",
        "ltd",
        "co",
        "corp",
        "llc",
        "plc",
        "bros",
        "assn",
        "dept",
        "univ",
        "govt",
        "intl",
        "e.g",
        "i.e",
        "cf",
        "viz",
        "etc",
        "al",
        "vs",
        "v",
        "approx",
        "est",
        "min",
        "max",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    ]
)
# abbreviations that end no sentence only before a number ("No. 5", "Art. 3", "Sec. 2.1", "p. 4")
NUMBER_ABBREVIATIONS = frozenset(
    [
        "no",
        "nos",
        "art",
        "arts",
        "sec",
        "secs",
        "para",
        "paras",
        "p",
        "pp",
        "fig",
        "figs",
        "vol",
        "ch",
        "cl",
        "reg",
        "sch",
    ]
)
_DOTTED = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]?$")  # U.S / e.g / N.A
# words that open a sentence: after "Exhibit A." one of them starts a new sentence, after an initial
# ("J. Smith") a name follows
_OPENERS = frozenset(
    [
        "the",
        "this",
        "that",
        "these",
        "those",
        "each",
        "any",
        "all",
        "if",
        "in",
        "on",
        "at",
        "for",
        "from",
        "to",
        "by",
        "as",
        "no",
        "neither",
        "either",
        "not",
        "notwithstanding",
        "upon",
        "unless",
        "except",
        "subject",
        "it",
        "its",
        "we",
        "you",
        "they",
        "he",
        "she",
        "a",
        "an",
        "such",
        "there",
        "where",
        "when",
        "what",
        "who",
        "whom",
        "whose",
        "which",
        "why",
        "how",
        "is",
        "are",
        "was",
        "were",
        "does",
        "do",
        "did",
        "can",
        "may",
        "shall",
        "will",
        "would",
        "should",
        "must",
    ]
)
_COMPANY = frozenset(["inc", "ltd", "co", "corp", "llc", "plc"])
_ENUMERATOR = re.compile(r"^\(?(?:[0-9]{1,3}(?:\.[0-9]{1,3})*|[ivxlcIVXLC]{1,5}|[A-Za-z])\)?$")
_NEXT_WORD = re.compile(r"\s*(\S)")


class Boundary(NamedTuple):
    kind: str  # stop | semicolon | colon | paragraph | item | line
    end: int  # where the text before the boundary stops
    next: int  # where the text after it may start (the end of the match)


def _opens_line(text: str, i: int) -> bool:
    """Whether at most one word stands before text[i] on its line. Read back no further than that word: a
    search for the line start would read a long line from its beginning at every clause number in it."""
    j = i
    for word in (False, True, False):  # spaces, one word, spaces
        while j > 0 and text[j - 1] != "\n" and text[j - 1].isspace() != word:
            j -= 1
    return j == 0 or text[j - 1] == "\n"


def _false_stop(text: str, dot: int, after: int) -> bool:
    """Whether the "." at text[dot] (its match ending at `after`) closes an abbreviation, an initial or a
    line-opening clause number, or is followed by a word in lower case: then it ends no sentence."""
    nxt = _NEXT_WORD.match(text, after)
    if nxt and nxt.group(1).islower():
        return True
    i = dot
    while i > 0 and not text[i - 1].isspace():
        i -= 1
    word = text[i:dot].lstrip("(\"'\u201c\u2018[")
    if not word:
        return False
    low = word.lower()
    if _ENUMERATOR.match(word) and _opens_line(text, i):  # "4." / "4.2." / "(a)." / "Item 1.": a clause number
        return True
    if low in _COMPANY and nxt:  # "Beta Inc. What is ..." ends; "Beta Inc. shall" does not
        follow = re.match(r"\w+", text[nxt.start(1) : nxt.start(1) + 30])
        return not (follow and follow.group(0).lower() in _OPENERS)
    if low in ABBREVIATIONS or _DOTTED.match(word):
        return True
    if len(word) == 1 and word.isupper() and nxt:  # an initial, unless a sentence opener follows
        follow = re.match(r"\w+", text[nxt.start(1) : nxt.start(1) + 30])
        return not (follow and follow.group(0).lower() in _OPENERS)
    return low in NUMBER_ABBREVIATIONS and nxt is not None and nxt.group(1).isdigit()


def boundaries(
    text: str, start: int = 0, end: int | None = None, kinds: frozenset[str] = SENTENCE
) -> Iterator[Boundary]:
    """The boundaries of the given kinds whose match lies within text[start:end], in order. A mark's
    lookahead reads past `end`, so a window that ends inside "4.2" finds no stop after "4.". None lies in
    a page break a sentence runs on across (`wikigen.core.pages.page_breaks`, read from the whole text)."""
    stop = len(text) if end is None else end
    gaps = page_breaks(text)
    g = bisect.bisect_right(gaps, start, key=lambda gap: gap[1])  # the first gap not yet behind the match
    # The matches finditer would give, tried only where a mark stands before the window's end: finditer
    # itself would read on to the text's next mark, past the window, which in a long line without one is
    # the rest of the text, on every call (passages ask window by window: quadratic).
    after = start  # where the previous match ended: marks inside it start no match
    for c in _MARK.finditer(text, start, stop):
        if c.start() < after:
            continue
        m = _BOUNDARY.match(text, c.start())
        if m is None:
            continue
        after = m.end()
        if m.end() > stop:
            continue  # a match running past the window (a long blank run): not within it
        kind = m.lastgroup
        if kind not in kinds:
            continue
        if gaps:
            while g < len(gaps) and gaps[g][1] <= m.start():
                g += 1
            if g < len(gaps) and gaps[g][0] <= m.start():
                continue  # inside a page break the sentence runs on across
        if kind == "stop" and text[m.start()] == "." and _false_stop(text, m.start(), m.end()):
            continue
        yield Boundary(kind, m.start() if kind in ("paragraph", "item", "line") else m.end(), m.end())


def real_end(text: str, b: Boundary) -> bool:
    """A boundary a quote may stop at: not a paragraph break after a colon, not a bare enumerator's dot."""
    before = text[: b.end].rstrip()
    if b.kind in ("paragraph", "item", "line") and before.endswith(":"):
        return False
    return not _ENUMERATOR_LINE.match(before[before.rfind("\n") + 1 :])


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


def first_body_end(text: str, start: int, end: int) -> int:
    """Where the first sentence of text[start:end] that is not `heading_like` ends, the headings before it
    ("2. Grant of License.", "(a) Products.") joined to it; `start` when there is none. A quote stopping
    earlier would hold a heading and no fact."""
    pos = start
    for b in boundaries(text, start, end, SENTENCE):
        if not real_end(text, b):
            continue
        a, e = trim_span(text, pos, b.end)
        if not heading_like(text[a:e]):
            return b.end
        pos = b.next
    return start


_WORD = re.compile(r"[^\W\d_]{2,}")
_ENDS_STOP = re.compile(rf"[.!?\u3002\uff01\uff1f][{CLOSERS}]*$")


def heading_like(piece: str) -> bool:
    """A piece with no fact of its own: no letters ("4.2"); a short line whose words are capitalised but the
    short ones ("(i) Audit Right.", "11.5 Effect of Termination or Expiration: Surviving Obligations.",
    "(a) Products."); or a piece under MIN_SENTENCE that ends with no stop ("Date:", "제5조 비밀유지").
    Uncased scripts are judged by the last rule alone."""
    piece = piece.strip()
    if not any(c.isalpha() for c in piece):
        return True
    words = _WORD.findall(piece)
    later = [w for w in words[1:] if len(w) >= 4]  # a sentence's first word is capitalised anyway
    if len(piece) <= 120 and (
        all(w[0].isupper() for w in later) if later else 0 < len(words) <= 2 and all(w[0].isupper() for w in words)
    ):
        return True
    return len(piece) < MIN_SENTENCE and not _ENDS_STOP.search(piece)


def _reach(gaps: tuple[tuple[int, int], ...], start: int, n: int) -> int:
    """Where n characters from start end when the page breaks after start (`page_breaks`) count for none."""
    pos = start + n
    for a, b in gaps:
        if b <= start:
            continue
        if a >= pos:
            break
        pos += b - max(a, start)
    return pos


def cap_span(text: str, start: int, end: int, cap: int, keep_to: int = 0) -> tuple[int, int]:
    """Cap the span near `cap` chars at a sentence end: the last real one before the cap, else the first
    one after it, as long as the span stays within max(LONGEST_SENTENCE, cap + max(300, cap)) chars (so a
    sentence such as a long definition is not cut off before its fact); failing that a clause end (";",
    then ":") the same way, else the span's own end within that length, else a comma or a space before the
    cap. The span always keeps [start, keep_to) and its first body sentence (`first_body_end`): a heading
    alone is no quote. Page furniture a sentence runs on across counts toward no length."""
    start, end = trim_span(text, start, end)
    gaps = page_breaks(text)
    limit = _reach(gaps, start, cap)
    if end <= limit:
        return start, end
    over = min(end, _reach(gaps, start, max(LONGEST_SENTENCE, cap + max(300, cap))))
    floor = max(keep_to, start + cap // 4, first_body_end(text, start, over))
    best = None
    for kinds in (SENTENCE, frozenset({"semicolon"}), frozenset({"colon"})):
        ends = [b.end for b in boundaries(text, start, limit, kinds) if b.end >= floor and real_end(text, b)]
        best = (
            ends[-1]
            if ends
            else next(
                (b.end for b in boundaries(text, limit, over, kinds) if b.end >= floor and real_end(text, b)), None
            )
        )
        if best is not None:
            break
    if best is None and end <= over:
        best = end  # the span's own end (a section's, a page break's) before a comma
    if best is None:
        for mark in (",", " "):
            i = text.rfind(mark, floor, limit)
            if i > start:
                best = i + (1 if mark != " " else 0)
                break
    if best is None:
        best = limit
    return trim_span(text, start, best)


def sentence_span(text: str, s: int, e: int, cap: int) -> tuple[int, int]:
    """The sentence(s) around text[s:e], capped at cap chars and kept containing [s, e) when possible; a
    `heading_like` sentence is joined by the one after it."""
    lo = max(0, s - cap)
    left = lo
    for b in boundaries(text, lo, s):
        left = b.next
    if left == lo and lo > 0:  # no sentence start nearby: begin at a word
        sp = text.find(" ", lo, s)
        left = sp + 1 if sp != -1 else s
    # a heading-like sentence ("(i) Audit Right.") carries no fact: the next one joins it
    stop = next(
        (
            b
            for b in boundaries(text, e, min(len(text), e + max(2 * cap, LONGEST_SENTENCE)))
            if not heading_like(text[left : b.end])
        ),
        None,
    )
    right = stop.end if stop else min(len(text), e + cap // 2)
    left, right = trim_span(text, left, right)
    if e - left > cap:  # the sentence starts far before the match
        sp = text.find(" ", max(left, s - cap // 3), s)
        left = sp + 1 if sp != -1 else s
    return cap_span(text, left, right, cap, keep_to=min(e, left + cap))
