"""Headings of one document: heading-like lines and numbered headings inline in flattened text.

A heading is a markdown `#` line, a numbered line (`12. Governing Law.`, `ARTICLE 5 - CONFIDENTIALITY`,
`제5조(비밀유지)`), an ALL CAPS or Title Case line, or a numbered heading inside a paragraph of flattened
text. Each keeps the section under it (up to the next heading with text of its own), capped at a
sentence end.
"""

from __future__ import annotations

import re

from wikigen.agents.catalog import Heading
from wikigen.agents.words import DIGIT, HANGUL, STOPWORDS, display, norm_key, strip_numbering

from wikigen.core.sentences import cap_span
from wikigen.core.text import trim_span

LINE = re.compile(r"[^\n]+")
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_NUM_LINE = re.compile(
    r"^(?P<num>(?:(?:article|section|chapter|part)\s+)?(?:\d{1,3}(?:\.\d{1,3})*\.?|[ivxlc]{1,6}[.)]|\([a-z0-9]{1,4}\)))"
    r"\s*[-–—:.)]?\s+(?P<label>\S.*)$",
    re.IGNORECASE,
)
_KO_LINE = re.compile(
    r"^(?P<num>제\s*\d+\s*[조장절관](?:의\s*\d+)?)\s*(?:[(（\[]\s*(?P<p>[^)）\]]{1,40}?)\s*[)）\]]|(?P<label>[^\s(].{0,40}))?"
)
_FUNC = r"(?:of|and|or|the|to|for|in|on|by|with|a|an|upon|under|from|at|as|&)"
_INLINE = re.compile(
    r"(?<![\w.,/$-])(?P<num>(?:(?:Section|SECTION|Article|ARTICLE)\s+)?\d{1,2}(?:\.\d{1,2}){0,3})\.?[ \t]+"
    r"(?P<label>[A-Z][A-Za-z'’&/-]*(?:[ \t]+(?:[A-Z][A-Za-z'’&/-]*|" + _FUNC + r")){0,7})"
    r"[ \t]*(?:\.|:|[ \t]-|[ \t]–|[ \t]—)(?=\s)"
)
_KO_INLINE = re.compile(r"(?P<num>제\s*\d+\s*조(?:의\s*\d+)?)\s*[(（]\s*(?P<label>[^)）\n]{1,30}?)\s*[)）]")


def heading_like(label: str, whole_line: bool = False) -> bool:
    """Whether a label reads as a heading: short, no digits, its content words capitalised (ALL CAPS or
    Title Case); a numbered line that is nothing but its label may be in sentence case ("6. Applicable
    law"), as long as it has at most five words and no final period."""
    label = label.strip()
    if not (2 <= len(label) <= 80) or DIGIT.search(label):
        return False
    if label[-1] in ",;" or label.count(",") > 1:
        return False
    words = label.split()
    if HANGUL.search(label):
        return len(words) <= 6 and not re.search(r"(다|요|함|음)[.!?]?$", label) and len(label) <= 40
    if len(words) > 8:
        return False
    content = [w for w in words if w.lower().strip("()&,.:-") not in STOPWORDS]
    if not content:
        return False
    letters = [c for c in label if c.isalpha()]
    if letters and all(c.isupper() for c in letters):
        return True
    if whole_line and label[:1].isupper() and len(words) <= 5 and not label.endswith("."):
        return True
    return all(w[:1].isupper() or not w[:1].isalpha() for w in content)


def level(num: str) -> int:
    num = num.strip()
    if num.startswith("#"):
        return len(num)
    if num.startswith("("):
        return 3
    if re.match(r"(?i)(article|chapter|part|제)", num):
        return 1
    return num.rstrip(".").count(".") + 1


class _Found:
    """The headings found so far, by start offset (the first found at an offset wins)."""

    def __init__(self) -> None:
        self.by_start: dict[int, Heading] = {}

    def add(self, label: str, start: int, lvl: int, head_end: int, whole_line: bool = False) -> None:
        label = label.strip()
        whole_line = whole_line and not label.endswith(".")
        label = strip_numbering(label.rstrip(".:").strip()).strip()
        if not heading_like(label, whole_line):
            return
        key = norm_key(label)
        if not key or len(key) < 2:
            return
        if start not in self.by_start:
            self.by_start[start] = Heading(label=display(label), key=key, start=start, level=lvl, head_end=head_end)


def _line_heading(found: _Found, line: str, s: int, e: int) -> None:
    """A heading that is a whole line of its own, text[s:e] == line."""
    h = _MD_HEADING.match(line)
    if h:
        found.add(h.group(2), s, len(h.group(1)), e, whole_line=True)
        return
    k = _KO_LINE.match(line)
    if k:
        found.add(k.group("p") or (k.group("label") or ""), s, 1, s + k.end())
        return
    n = _NUM_LINE.match(line)
    if n:
        label = n.group("label")
        head = re.split(r"(?<=[.:])\s+", label, maxsplit=1)[0]  # "Term. The Agreement ..." -> "Term."
        found.add(head, s, level(n.group("num")), s + n.start("label") + len(head), whole_line=head == label)
        return
    if len(line.split()) <= 8 and not line.endswith((",", ";")):
        letters = [c for c in line if c.isalpha()]
        if letters and (all(c.isupper() for c in letters) or HANGUL.search(line)):
            found.add(line, s, 1, e)
        elif letters and len(line.split()) <= 6 and not line.endswith("."):
            found.add(line, s, 2, e)


def find_headings(text: str, cap: int) -> list[Heading]:
    """The document's headings in text order, each with the section under it capped at `cap` characters."""
    found = _Found()
    for m in LINE.finditer(text):
        s, e = trim_span(text, m.start(), m.end())
        if s >= e or e - s > 120:
            continue
        _line_heading(found, text[s:e], s, e)
    for rx in (_INLINE, _KO_INLINE):
        for m in rx.finditer(text):
            if m.start() in found.by_start:
                continue
            found.add(m.group("label"), m.start(), level(m.group("num")), m.end())
    heads = sorted(found.by_start.values(), key=lambda h: h.start)
    # the section under each heading: up to the next heading, skipping sub-headings that come at once
    for i, h in enumerate(heads):
        end = len(text)
        for nxt in heads[i + 1 :]:
            if nxt.start - h.head_end >= 15:  # some text of its own: not a sub-heading right below
                end = nxt.start
                break
        h.span = cap_span(text, h.start, end, cap)
    return heads
