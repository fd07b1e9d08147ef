"""Key-facts scoring for questions graded by a free-text gold answer (sec10q-dev's README).

A question's **key facts** are the numbers of three or more digits in its gold answer (amounts such as
``4,310`` or ``12,500`` or ``17.5``; a bare year such as ``2022`` does not count), each once, in order
of appearance; where the answer holds no such number and is at most 40 characters long, the answer
itself is the one key fact. A longer answer without such a number has no key facts: it cannot be
scored this way, and `score_keyfacts` returns None for it (callers leave it out of the mean and say
how many they left out).

A fact is **found** when it occurs in the context's text compared without whitespace and without
case (`4,310` is found in ``$ 4,310``, and ``No`` in ``no``). The score of a question is the share of
its key facts found. Pure functions on plain dicts and strings, like wikigen.ask.evaluate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["SHORT_ANSWER_CHARS", "context_text", "fact_found", "key_facts", "score_keyfacts"]

SHORT_ANSWER_CHARS = 40  # the README grading rule: a short answer (at most this long) is a key fact as it is
MIN_DIGITS = 3  # ... and a number of fewer digits (or a bare year) says too little to count as one
# a number: digits with thousands separators and an optional decimal part (a trailing comma or full
# stop is punctuation, not part of it)
_NUMBER = re.compile(r"\d(?:[\d,]*\d)?(?:\.\d+)?")
_BARE_YEAR = re.compile(r"(?:1[89]|2[01])\d\d")


def _squash(text: str) -> str:
    return "".join(text.split()).casefold()


def key_facts(answer: str) -> list[str]:
    """The key facts of a gold answer (see the module docstring), without repeats, in order."""
    if not isinstance(answer, str):
        return []
    facts: list[str] = []
    for m in _NUMBER.finditer(answer):
        n = m.group()
        if sum(c.isdigit() for c in n) < MIN_DIGITS or _BARE_YEAR.fullmatch(n):
            continue
        if n not in facts:
            facts.append(n)
    if not facts:
        short = answer.strip()
        if short and len(short) <= SHORT_ANSWER_CHARS:
            facts.append(short)
    return facts


def context_text(context: Sequence[dict] | str) -> str:
    """The text of an `ask --json` context list (each item's 'text'), or the string itself."""
    if isinstance(context, str):
        return context
    return "\n".join(str(item.get("text", "")) for item in context)


def fact_found(fact: str, text: str) -> bool:
    f = _squash(fact)
    return bool(f) and f in _squash(text)


def score_keyfacts(question: dict, context: Sequence[dict] | str) -> float | None:
    """Share of the question's key facts (from question['answer']) found in the context; None when
    the answer has no key facts."""
    facts = key_facts(question.get("answer") or "")
    if not facts:
        return None
    squashed = _squash(context_text(context))
    return sum(1 for f in facts if _squash(f) in squashed) / len(facts)
