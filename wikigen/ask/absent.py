"""Names a question gives that nothing in the corpus holds: "the Zebra Widgets agreement" in a corpus without
Zebra Widgets is answered "no document in this corpus matches 'Zebra Widgets'", not from another document.

A name is what a question writer capitalises: a run of capitalised words that is not the question's first word
alone (every sentence starts with a capital), or any text in quotation marks (any script). A name counts as
absent only when no document's id or title holds it and the corpus index finds it nowhere as a phrase, so a
real party, product or place, named anywhere in any document, never triggers it. When some of a question's names
are found and others are not (a misspelt party beside a real one), the answer stands and says which were not.
A name is held when it is, or each of its parts is ("Acme's Supply Agreement", "Acme and Initech"; a name
opening the question is also tried without its first word, "Consider Acme"; a part without its last word
when that tells documents apart, "the Acme Supply MSA"). Words that open questions or name the
corpus's own fields are not names (`QUESTION_WORDS` and the caller's `known` words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from wikigen.core.text import ACRONYM_PLURAL, acronyms_singular

__all__ = ["NOT_IN_CORPUS", "READ_AS", "absent_names", "question_names"]

NOT_IN_CORPUS = "No document in this corpus matches {names}."
READ_AS = "Read {names}, the name a document writes."  # a misspelt name its documents were found by
QUESTION_WORDS = frozenset(
    [
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "is",
        "are",
        "was",
        "were",
        "do",
        "does",
        "did",
        "can",
        "could",
        "should",
        "would",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "has",
        "have",
        "had",
        "list",
        "name",
        "show",
        "find",
        "give",
        "tell",
        "compare",
        "summarize",
        "summarise",
        "describe",
        "explain",
        "across",
        "in",
        "on",
        "of",
        "for",
        "the",
        "a",
        "an",
        "and",
        "or",
        "any",
        "all",
        "each",
        "every",
        "this",
        "that",
        "these",
        "those",
        "there",
        "please",
        "i",
        "we",
        "you",
        "it",
        "its",
    ]
)
_WORD = r"[A-Z][\w&'’.-]*"
_NAME = re.compile(rf"(?<![\w.-]){_WORD}(?:\s+(?:(?:of|and|&|de|van|von|the|for)\s+)?{_WORD})*")
_OPENER = re.compile(r"^\S+\s+(?:(?:the|a|an|of|and|for)\s+)+")  # "Consider the ...": a verb opening the question
_QUOTED = re.compile(r"(?<!\w)[\"“「『']([^\"”」』'\n]{2,60})[\"”」』'](?!\w)")  # not an apostrophe
_SENTENCE_START = re.compile(r"(?:^|[.?!:;]\s+|\n)\s*$")


def _unnamed(word: str, known_words: set[str]) -> bool:
    """Whether a capitalised word of a question names nothing: a question word or a known one ("Fla." of "Fla.
    law" among the known places)."""
    w = word.casefold().strip(".'’")
    return w in QUESTION_WORDS or w in known_words


def question_names(question: str, known: Iterable[str] = ()) -> list[str]:
    """The names a question gives (see the module docstring), in order, without repeats."""
    known = list(known)
    known_words = {w.casefold() for k in known for w in re.findall(r"\w+", k)} | {
        k.casefold().strip(".'’") for k in known
    }
    out: list[str] = []
    for m in _QUOTED.finditer(question):
        out.append(m.group(1).strip())
    for m in _NAME.finditer(question):
        words = m.group().split()
        start = m.start()
        opener = _OPENER.match(m.group())
        if opener and _SENTENCE_START.search(question[: m.start()]):  # its first word only opens the sentence
            words = m.group()[opener.end() :].split()
        while words and _unnamed(words[0], known_words):
            start = question.index(words[0], start) + len(words[0])
            words = words[1:]
        while words and _unnamed(words[-1], known_words):
            words = words[:-1]
        if not words:
            continue
        if len(words) == 1 and _SENTENCE_START.search(question[: question.index(words[0], m.start())]):
            continue  # a capital that only opens the sentence
        name = " ".join(words).strip(".'’-")
        name = re.sub(r"['’]s$", "", name)
        if len(name) >= 2 and name not in out:
            out.append(name)
    return out


def absent_names(question: str, index, *, known: Iterable[str] = ()) -> tuple[list[str], int]:
    """The question's names that no document holds (not in any document's id or title, and not found as a phrase
    anywhere in the corpus: index.phrase), and how many names it gives in all. A name made of parts is held when
    a part that tells documents apart is (held by some documents, not most); its other parts that nothing holds
    are then given as absent too, and counted as names."""
    names = question_names(question, known)
    if not names:
        return [], 0
    docs = index.documents()
    identity = " ".join(f"{d.doc_id} {d.title}" for d in docs).casefold()
    identity = re.sub(r"[-_/]+", " ", identity)
    most = len(docs) // 2 if len(docs) >= 4 else len(docs)
    out, named = [], 0
    for name in names:
        if _holders(name, identity, index, 1):
            named += 1
            continue
        at = question.find(name)
        parts = _parts(name, bool(at >= 0 and _SENTENCE_START.search(question[:at])))
        held = [_part_held(ways, identity, index, most) for ways in parts]
        if all(held) and held:  # every part held ("Acme's R&D"), or held without the word opening the question
            named += 1
        elif len(parts) > 1 and any(0 < h <= most for h in held):
            out += [ways[-1] for ways, h in zip(parts, held, strict=True) if h == 0]
            named += len(parts)
        else:  # absent: said by the parts nothing holds, without a word that only opens the question
            unheld = [ways[-1] for ways, h in zip(parts, held, strict=True) if h == 0] or [name]
            out += unheld
            named += len(unheld)
    return out, named


_JOINS = re.compile(r"['’]s?(?=\s|$)|\s+(?:and|&)\s+")


def _parts(name: str, opens_sentence: bool) -> list[list[str]]:
    """The parts of a name, each with the ways it may be written: "Acme's Supply Agreement" -> [["Acme"],
    ["Supply Agreement"]]; "Acme and Initech" -> [["Acme"], ["Initech"]]; a name that opens its sentence may
    open with a capitalised common word ("Consider Acme's ...": [["Consider Acme", "Acme"], ...])."""
    pieces = [
        p.strip() for p in _JOINS.split(name) if len(p.strip()) >= 2 and p.strip().casefold() not in QUESTION_WORDS
    ]
    out = [[p] for p in pieces]
    if opens_sentence and out and " " in pieces[0]:
        out[0].append(pieces[0].split(None, 1)[1])
    for ways in out:  # an acronym's plural ("NDAs", "MSAs") is held where the acronym is: no stemmer cuts it
        if ACRONYM_PLURAL.fullmatch(ways[-1]):
            ways.append(acronyms_singular(ways[-1]))
    return out


def _part_held(ways: list[str], identity: str, index, most: int) -> int:
    """How many documents hold a part of a name, written any of its ways; a part none holds whole is held by its
    words but the last when those tell documents apart ("Brightline Logistics MSA": a short form the documents
    spell out), not by a word most documents hold ("Global Widgets" is not held by "Global")."""
    held = max((_holders(way, identity, index, most + 1) for way in ways), default=0)
    head = ways[-1].rsplit(None, 1)[0] if " " in ways[-1] else ""
    if not held and head:
        h = _holders(head, identity, index, most + 1)
        held = h if h <= most else 0
    return held


def _holders(name: str, identity: str, index, upto: int) -> int:
    """How many documents hold the name (in their id or title, or as a phrase of their text), counted up to upto."""
    if re.sub(r"[-_/]+", " ", name.casefold()) in identity:
        return 1
    return min(upto, len({h.doc_id for h in index.phrase(name, k=max(upto * 4, 1))}))
