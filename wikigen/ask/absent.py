"""Names a question gives that nothing in the corpus holds: "the Zebra Widgets agreement" in a corpus without
Zebra Widgets is answered "no document in this corpus matches 'Zebra Widgets'", not from another document.

A name is what a question writer capitalises: a run of capitalised words that is not the question's first word
alone (every sentence starts with a capital), or any text in quotation marks (any script). A name counts as
absent only when no document's id or title holds it and the corpus index finds it nowhere as a phrase, so a
real party, product or place, named anywhere in any document, never triggers it. When some of a question's names
are found and others are not (a misspelt party beside a real one), the answer stands and says which were not. Words that open questions or
name the corpus's own fields are not names (`QUESTION_WORDS` and the caller's `known` words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["NOT_IN_CORPUS", "absent_names", "question_names"]

NOT_IN_CORPUS = "No document in this corpus matches {names}."
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
_QUOTED = re.compile(r"[\"“「『']([^\"”」』'\n]{2,60})[\"”」』']")
_SENTENCE_START = re.compile(r"(?:^|[.?!:;]\s+|\n)\s*$")


def question_names(question: str, known: Iterable[str] = ()) -> list[str]:
    """The names a question gives (see the module docstring), in order, without repeats."""
    known_words = {w.casefold() for k in known for w in re.findall(r"\w+", k)}
    out: list[str] = []
    for m in _QUOTED.finditer(question):
        out.append(m.group(1).strip())
    for m in _NAME.finditer(question):
        words = m.group().split()
        start = m.start()
        opener = _OPENER.match(m.group())
        if opener and _SENTENCE_START.search(question[: m.start()]):  # its first word only opens the sentence
            words = m.group()[opener.end() :].split()
        while words and (words[0].casefold().strip(".'’") in QUESTION_WORDS or words[0].casefold() in known_words):
            start = question.index(words[0], start) + len(words[0])
            words = words[1:]
        while words and (words[-1].casefold().strip(".'’") in QUESTION_WORDS or words[-1].casefold() in known_words):
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
    anywhere in the corpus: index.phrase), and how many names it gives in all."""
    names = question_names(question, known)
    if not names:
        return [], 0
    identity = " ".join(f"{d.doc_id} {d.title}" for d in index.documents()).casefold()
    identity = re.sub(r"[-_/]+", " ", identity)
    out = []
    for name in names:
        key = re.sub(r"[-_/]+", " ", name.casefold())
        if key in identity:
            continue
        if index.phrase(name, k=1):
            continue
        out.append(name)
    return out, len(names)
