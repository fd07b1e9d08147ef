"""Snippets for search hits: the densest cluster of query matches, matches in **bold**, character offsets."""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet

from wikigen.search.analysis import ANALYZER

SNIPPET_CHARS = 200  # a search hit's snippet shown by `wikigen search` and MCP: about this many characters


def highlight_ranges(text: str, terms: AbstractSet[str], runs: Iterable[str] = ()) -> list[tuple[int, int]]:
    """Char ranges in text that match the analyzed query terms or contain a CJK query run, merged."""
    ranges: list[tuple[int, int]] = []
    if terms:
        for tok in ANALYZER.pre_tokenize(text).tokens:
            if tok.text in terms:
                ranges.append((tok.char_offset_from, tok.char_offset_to))
    for run in runs:
        pieces = [run] if run in text else ([run[i : i + 2] for i in range(len(run) - 1)] or [run])
        for piece in pieces:
            i = text.find(piece)
            while i != -1:
                ranges.append((i, i + len(piece)))
                i = text.find(piece, i + 1)
    ranges.sort()
    merged: list[tuple[int, int]] = []
    for s, e in ranges:  # overlapping, touching or only whitespace apart: one range
        if merged and (s <= merged[-1][1] or text[merged[-1][1] : s].isspace()):
            if e > merged[-1][1]:
                merged[-1] = (merged[-1][0], e)
        else:
            merged.append((s, e))
    return merged


def phrase_ranges(text: str, terms: list[str], phrase: str) -> list[tuple[int, int]]:
    """Char ranges where the analyzed phrase occurs as consecutive tokens; else where its words occur
    (case-insensitive, any whitespace between them), which covers CJK inside longer words."""
    out: list[tuple[int, int]] = []
    if terms:
        toks = ANALYZER.pre_tokenize(text).tokens
        n = len(terms)
        for i in range(len(toks) - n + 1):
            if all(toks[i + j].text == terms[j] for j in range(n)):
                out.append((toks[i].char_offset_from, toks[i + n - 1].char_offset_to))
    if not out and phrase.split():
        pat = re.compile(r"\s+".join(re.escape(w) for w in phrase.split()), re.IGNORECASE)
        out = [(m.start(), m.end()) for m in pat.finditer(text)]
    return out


def make_snippet(
    text: str,
    terms: AbstractSet[str] = frozenset(),
    runs: Iterable[str] = (),
    width: int = SNIPPET_CHARS,
    ranges: list[tuple[int, int]] | None = None,
) -> str:
    """About `width` chars of text around the densest cluster of matches, matches in **bold**, one line.

    The matches are the analyzed query terms and CJK runs (see highlight_ranges), or the given ranges.
    """
    if ranges is None:
        ranges = highlight_ranges(text, terms, runs)
    if len(text) <= width:
        ws, we = 0, len(text)
    else:
        ws = 0
        if ranges:
            best, best_n = 0, -1
            for i, (s, _) in enumerate(ranges):
                n = sum(1 for s2, e2 in ranges[i:] if e2 <= s + width - 40)
                if n > best_n:
                    best, best_n = s, n
            ws = max(0, best - 40)
        we = min(len(text), ws + width)
        if we == len(text):
            ws = max(0, we - width)
        if ws > 0:  # start at a word
            sp = text.rfind(" ", max(0, ws - 20), ws)
            ws = sp + 1 if sp != -1 else ws
        if we < len(text):
            sp = text.find(" ", we, we + 20)
            we = sp if sp != -1 else we
    parts: list[str] = []
    pos = ws
    for s, e in ranges:
        if e <= ws or s >= we:
            continue
        s, e = max(s, ws), min(e, we)
        parts.append(text[pos:s])
        parts.append("**" + text[s:e] + "**")
        pos = e
    parts.append(text[pos:we])
    out = " ".join("".join(parts).split())
    return ("…" if ws > 0 else "") + out + ("…" if we < len(text) else "")
