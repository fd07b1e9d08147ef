"""Sentence windows: the part of a passage that holds the clause asked about.

`sentence_windows` scores runs of whole sentences (wikigen.core.sentences) by the query terms they
hold; `pick_windows` chooses a document's best non-overlapping windows among its best passages.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import NamedTuple

from wikigen.ask.context import Unit
from wikigen.ask.page_index import terms
from wikigen.core.sentences import sentences
from wikigen.search.index import Hit

_LEAD = re.compile(r"^\W*(?:[\dA-Za-z]{1,3}[.)]\s*){0,3}([^\n.:]{1,60}?)(?:\.|:|\n)\s*\S")


def lead(sentence: str) -> str:
    """A window's heading: the short run of words that opens its first sentence ("7.3 Audit Rights.",
    "ARTICLE 9 - TERMINATION"), after a clause number ('' when the sentence has no short lead)."""
    m = _LEAD.match(sentence)
    if not m:
        return ""
    head = m.group(1).strip()
    return head if 0 < len(head) <= 60 and len(head.split()) <= 8 else ""


def sentence_windows(text: str, weights: dict[str, float], width: int) -> list[tuple[int, int, float]]:
    """Windows of consecutive whole sentences of text (each at most about `width` characters, or one
    longer sentence), with their score: the idf weights of the query terms they hold, a little more
    for a repeated term. Only windows that hold a query term."""
    sents = sentences(text)
    if not sents:
        return []
    sterms = [terms(text[a:b]) for a, b in sents]
    out = []
    for i in range(len(sents)):
        counts: dict[str, int] = {}
        j = i
        while j < len(sents) and (j == i or sents[j][1] - sents[i][0] <= width):
            for t in sterms[j]:
                if t in weights:
                    counts[t] = counts.get(t, 0) + 1
            j += 1
            score = sum(weights[t] * (1 + 0.25 * math.log(n)) for t, n in counts.items())
            if score > 0:
                out.append((sents[i][0], sents[j - 1][1], score))
    return out


class WindowCandidate(NamedTuple):
    score: float  # the window's own score (its query terms)
    rank: int  # the passage's rank in its document (ties: the better passage first)
    hit: Hit  # the passage
    start: int  # the window's span inside the passage's text
    end: int


def pick_windows(
    hits: Sequence[Hit],
    weights: dict[str, float],
    width: int,
    per_doc: int,
) -> list[Unit]:
    """A document's best `per_doc` non-overlapping sentence windows among its passages `hits` (best first).
    A window scores its query terms; of equal windows, the one in the better-ranked passage comes first."""
    if not hits:
        return []
    cands = [
        WindowCandidate(sc, rank, h, a, b)
        for rank, h in enumerate(hits)
        for a, b, sc in sentence_windows(h.text, weights, width)
    ]
    cands.sort(key=lambda c: (-c.score, c.rank))
    picked: list[Unit] = []
    for c in cands:
        s0, e0 = c.hit.start + c.start, c.hit.start + c.end
        if any(u.start < e0 and s0 < u.end for u in picked):
            continue
        picked.append(Unit("passage", c.hit.doc_id, s0, e0, c.hit.text[c.start : c.end]))
        if len(picked) >= per_doc:
            break
    return picked
