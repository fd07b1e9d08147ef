"""Conflicts: two documents that state different values for the same figure about the same parties.

    find_conflicts({"a": text_a, "b": text_b}, chains=[])
        -> [Conflict(label="written notice non-renewal", kind="duration", parties=(...), sides=(Side, Side))]

Generic rules, kept strict so that what is listed is worth a reader's look:

* a **labelled figure** is a duration, amount or percentage (`wikigen.search.facts.numbers`) with the
  content words right before it in its clause (two or three words, function words dropped): "a notice
  period of thirty (30) days" -> ("notice period", "30 days");
* a document **states** a figure when it gives that label one value only (a label given several values
  in one document is a list or a schedule, not a term);
* two documents **conflict** on a figure when they have the same parties (`find_parties`, compared
  without case and legal form; two at least), the same title (case, digits and punctuation aside),
  state the figure with different values, and are not in one amendment chain (an amendment and its base,
  or two amendments of one base: there the later text supersedes, it does not conflict).

Offsets are characters; each side carries the value's span and the sentence quoting it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

from wikigen.search.facts.amendments import Amendment, party_keys
from wikigen.search.facts.numbers import Mention, find_amounts, find_durations, find_percentages
from wikigen.search.facts.title import document_title

from wikigen.core.sentences import sentence_span

__all__ = ["Conflict", "Side", "find_conflicts", "labelled_figures"]

QUOTE_CAP = 320  # a side's quote: its sentence, cut to about this many characters on the page
LABEL_WORDS = 3  # a figure's label: at most this many words before it ("non-renewal at least 90 days")
_STOP = re.compile(r"[.;:!?()\[\]\"“”]|\n")
_JOINERS = frozenset({"of", "for", "to", "the", "a", "an"})
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_FUNCTION = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "within",
        "from",
        "than",
        "not",
        "no",
        "less",
        "more",
        "least",
        "most",
        "any",
        "each",
        "either",
        "other",
        "such",
        "this",
        "that",
        "these",
        "those",
        "its",
        "their",
        "his",
        "her",
        "our",
        "your",
        "be",
        "is",
        "are",
        "was",
        "were",
        "been",
        "being",
        "shall",
        "will",
        "would",
        "may",
        "might",
        "must",
        "can",
        "could",
        "should",
        "give",
        "gives",
        "given",
        "giving",
        "party",
        "parties",
        "upon",
        "after",
        "before",
        "prior",
        "during",
        "per",
        "or",
        "and",
        "as",
        "which",
        "who",
        "whose",
        "it",
        "all",
        "up",
        "out",
        "into",
        "over",
        "under",
        "about",
        "following",
        "following",
        "herein",
        "hereof",
        "hereunder",
        "thereof",
        "there",
        "then",
    ]
)


@dataclass(frozen=True)
class Side:
    doc_id: str
    value: str  # normal form ("30 days", "USD 240,000", "15%")
    start: int  # the value as written, character offsets
    end: int
    quote_start: int  # the sentence stating it
    quote_end: int
    text: str  # the sentence's text


@dataclass(frozen=True)
class Conflict:
    label: str
    kind: str  # duration | amount | percentage
    parties: tuple[str, ...]
    sides: tuple[Side, Side]

    def to_dict(self) -> dict:
        return {
            "label": self.label,
            "kind": self.kind,
            "parties": list(self.parties),
            "sides": [asdict(s) for s in self.sides],
        }


def _label(text: str, start: int, end: int) -> str:
    """The figure's label: the content words of a possessive right after it ("30 days' written notice"),
    else the content words right before it in its clause, joined by "of"/"for"/"to" at most ("notice of
    non-renewal at least 90 days"), at most LABEL_WORDS, two at least; "" when there is none."""
    after = re.match(r"[’']s?\s+((?:[^\W\d_][\w-]*\s+){0,2}[^\W\d_][\w-]*)", text[end : end + 60])
    if after:
        words = [w.casefold() for w in _WORD.findall(after.group(1))]
        words = words[: next((i for i, w in enumerate(words) if w in _FUNCTION), len(words))]
        if words:  # a possessive names its figure, even in one word
            return " ".join(words)
    lo = max(0, start - 120)
    before = text[lo:start]
    cut = [m.end() for m in _STOP.finditer(before)]
    words = _WORD.findall(before[cut[-1] :] if cut else before)
    picked: list[str] = []
    for w in reversed(words):
        low = w.casefold()
        if low in _FUNCTION:
            if picked and low not in _JOINERS:
                break
            continue
        picked.append(low)
        if len(picked) == LABEL_WORDS:
            break
    return " ".join(reversed(picked)) if len(picked) >= 2 else ""


def labelled_figures(text: str) -> dict[tuple[str, str], list[Mention]]:
    """(kind, label) -> the mentions of that labelled figure in the text, in order."""
    out: dict[tuple[str, str], list[Mention]] = defaultdict(list)
    for find in (find_durations, find_amounts, find_percentages):
        for m in find(text):
            label = _label(text, m.start, m.end)
            if label:
                out[(m.kind, label)].append(m)
    return out


def _title_key(text: str) -> str:
    return " ".join(_WORD.findall(document_title(text).casefold()))


def _groups(chains: Sequence[Amendment]) -> dict[str, str]:
    """doc id -> the base of its amendment chain (union of amendments and bases)."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for a in chains:
        parent[root(a.doc_id)] = root(a.base_id)
    return {d: root(d) for d in parent}


def _stated(text: str) -> dict[tuple[str, str], Mention]:
    """The labelled figures the text gives exactly one value."""
    out = {}
    for key, ms in labelled_figures(text).items():
        if len({m.value for m in ms}) == 1:
            out[key] = ms[0]
    return out


def _side(doc_id: str, text: str, m: Mention) -> Side:
    qs, qe = sentence_span(text, m.start, m.end, QUOTE_CAP)
    return Side(doc_id, m.value, m.start, m.end, qs, qe, text[qs:qe])


def find_conflicts(
    texts: Mapping[str, str], chains: Sequence[Amendment] = (), *, same_title: bool = True
) -> list[Conflict]:
    """Every conflict of the corpus (module docstring), sorted by label then doc ids. same_title=False
    also compares documents of different titles (a looser rule, for measuring)."""
    by_key: dict[tuple, list[str]] = defaultdict(list)
    parties: dict[str, dict] = {}
    for doc_id, text in texts.items():
        keys = party_keys(text)
        if len(keys) < 2:
            continue
        parties[doc_id] = keys
        by_key[(frozenset(keys), _title_key(text) if same_title else "*")].append(doc_id)
    group = _groups(chains)
    out: list[Conflict] = []
    for (names, title), docs in by_key.items():
        if len(docs) < 2 or not title:
            continue
        stated = {d: _stated(texts[d]) for d in sorted(docs)}
        for i, a in enumerate(sorted(docs)):
            for b in sorted(docs)[i + 1 :]:
                if group.get(a, a) == group.get(b, b) and (a in group or b in group):
                    continue
                for key in sorted(set(stated[a]) & set(stated[b])):
                    ma, mb = stated[a][key], stated[b][key]
                    if ma.value != mb.value:
                        out.append(
                            Conflict(
                                key[1], key[0], tuple(sorted(names)), (_side(a, texts[a], ma), _side(b, texts[b], mb))
                            )
                        )
    return sorted(out, key=lambda c: (c.label, c.sides[0].doc_id, c.sides[1].doc_id))
