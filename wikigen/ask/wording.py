"""What a question's words say of its reach: does it ask about one document or about many?

Three parts of `ask` change what they do for a question about many documents: retrieval gives many documents a
window each (`retrieval.Answerer`), the extractive answer gives one line per document (`generate`), and the
provisions table lists the documents that meet a condition instead of giving one document's value (`values`).
They all ask `asks_many`, so they never disagree.

The rule is the grammar of a question, English and Korean, with no word of any corpus:

* **the wiki's scope first**: a question the wiki scoped to a document asks about that document; one scoped to
  a collection asks about its members (unless it points at one document, below);
* **one document**: a singular demonstrative anywhere in the question, "this" ("this agreement", "in this
  contract"), or "that" where it is no relative pronoun: after a preposition, an auxiliary, or opening the
  question ("under that agreement", "does that contract"; "contracts that renew" is a relative clause);
  Korean 이 / 본 / 해당 / 그 standing as a word before a noun ("이 계약", "본 계약서");
* **many documents**, read in the asking clause (`ask_clause`: "Consider the Acme lease. Which party pays the
  taxes?" asks "Which party pays the taxes?"): a word that ranges over a set ("which", "each", "every", "all",
  "across", "how many", "number of", "list", but not before a unit of time: "how many days", "몇 개월" ask a
  length stated in a document, not a count of documents); or a word that ranges over a set only before a plural
  ("any contracts" but not "is there any cap": "any" before a singular asks whether one thing exists; "what
  agreements", "these reports"); Korean 어떤 / 어느 / 모든 / 각 / 몇 / 목록 / 나열 / 전부 / 모두, or a noun with the
  plural ending 들 ("계약들은").

A plural is told by its form: an English word ending in "s", not "ss"/"us"/"is", and not one of the few function
words that end so. After "what" a verb can take that form too; a verb is followed by "if", "when", "to" or "as",
which a plural subject never is ("what happens if ..." names no plural).
"""

from __future__ import annotations

import itertools
import re
from typing import Protocol

from wikigen.search.facts.numbers import DURATION_UNIT, KO_DURATION_UNIT

__all__ = ["ask_clause", "asking_clauses", "asks_many", "points_at_one", "range_words"]


class _Scoped(Protocol):
    kind: str  # "document" | "collection" | "" (wikigen.ask.scope.Scope)


# a clause ends at ; : ? ! (and their CJK forms), and at a full stop before a capital or a digit: "N.Y. law" and
# "Cal. law" are no sentence's end
_CLAUSE_END = re.compile(r"(?:[;:?!。？]\s+|\.\s+(?=[^\W_a-z]))(?=\S)")

# a singular demonstrative: "this", or "that" after a preposition, an auxiliary, or opening the question
_AFTER_THAT = (
    r"in|under|of|for|by|from|to|with|on|about|within|per|"
    r"does|do|did|is|are|was|were|can|could|will|would|may|might|must|shall|should|has|have|had"
)
_ONE = re.compile(
    rf"\bthis\b|(?:^|[.;:?!,]\s*|\b(?:{_AFTER_THAT})\s+)that\s+(?=[^\W\d_])|(?<!\S)(?:이|본|해당|그)\s+(?=\w)",
    re.IGNORECASE,
)
# words that range over a set, whatever follows them ("at all" is no quantifier)
# ("how many days", "number of months", "몇 개월" ask a length of time, not a count of documents)
_SET = re.compile(
    rf"\b(?:which|each|every|(?<!\bat\s)all|across|(?:how\s+many|number\s+of)(?!\s+{DURATION_UNIT}\b)|list|enumerate)\b"
    rf"|어떤|어느|모든|(?<!\S)각\s|몇(?!\s*{KO_DURATION_UNIT})|목록|나열|전부|모두"
    r"|(?<=\w)들(?:은|는|이|을|의|에|만|도)?(?=[\s?？.!]|$)",
    re.IGNORECASE,
)
# words that range over a set before a plural: "any contracts", "what agreements", "these reports"
_BEFORE_PLURAL = re.compile(
    r"\b(?P<quantifier>any|what|these|those)\s+(?:of\s+(?:the\s+|our\s+|your\s+|their\s+)?)?(?P<word>[a-z]+)\b", re.I
)
_NOT_PLURAL = frozenset(
    [
        "is",
        "was",
        "has",
        "does",
        "this",
        "its",
        "his",
        "hers",
        "ours",
        "yours",
        "theirs",
        "us",
        "thus",
        "plus",
        "less",
        "unless",
        "whereas",
        "across",
        "besides",
        "always",
        "perhaps",
        "sometimes",
        "news",
    ]
)
# the documents a question ranges over: a quantifier, a count, the plural naming them ("all 252 contracts",
# "how many agreements", "which of the reports")
_RANGE = re.compile(
    r"\b(?P<quantifier>all|any|each|every|which|what|these|those|how\s+many|number\s+of)\s+"
    r"(?:of\s+(?:the\s+|our\s+|your\s+|their\s+|these\s+|those\s+)?)?"
    r"(?:(?P<count>\d[\d,.]*)\s+(?:[a-z-]+\s+(?=[a-z]+s\b))?)?(?P<word>[a-z]+)\b",
    re.I,
)
# what a verb is followed by and a plural subject never is: "what happens if", "what applies to", "what counts as"
_AFTER_VERB = re.compile(r"\s*(?:if|when|whenever|unless|to|as)\b", re.I)


def asking_clauses(question: str) -> list[str]:
    """The question's clauses that may ask, the last first: those that end with a question mark when there are
    any, else all of them. The one that asks is most often the last ("Consider the X agreement between A and B.
    Is there a cap on liability?"), but a sentence can follow a question and ask nothing of its own ("Which
    contracts have a non-compete? Please list them.", "...? Thanks!"); a clause that only names the document
    ("Consider the X agreement between A and B (the "Parties").") asks nothing when a question follows it."""
    cuts = [0, *(m.end() for m in _CLAUSE_END.finditer(question.rstrip()))]
    clauses = [question[a:b] for a, b in reversed(list(itertools.pairwise([*cuts, len(question)])))]
    asked = [c for c in clauses if c.rstrip().endswith(("?", "？"))]
    return asked or clauses


def ask_clause(question: str) -> str:
    """The part of a question that asks (the first of `asking_clauses`): "Consider the X agreement between A and
    B. Is there a cap on liability?" asks "Is there a cap on liability?"; "Which contracts renew? List them."
    asks "Which contracts renew?"."""
    return asking_clauses(question)[0]


def points_at_one(question: str) -> bool:
    """Whether the question points at one document with a singular demonstrative ("this agreement", "under that
    contract", "이 계약")."""
    return bool(_ONE.search(question))


def range_words(text: str) -> list[str]:
    """The words by which a question (or its asking part) says which documents it ranges over rather than what
    it asks: "many" of "how many", and a count and a plural after a quantifier ("across all 252 contracts"
    gives "252", "contracts"; "which agreements" gives "agreements"; "which law" gives nothing: a singular
    names what is asked)."""
    out = []
    for m in _RANGE.finditer(text):
        if m.group("quantifier").lower().startswith("how"):  # "how many"
            out.append("many")
        if _plural(m, text):
            out += [w for w in (m.group("count"), m.group("word")) if w]
    return out


def _plural(m: re.Match[str], text: str) -> bool:
    """Whether the word after a quantifier is a plural noun (`_BEFORE_PLURAL`'s match in text)."""
    w = m.group("word").lower()
    if len(w) < 4 or not w.endswith("s") or w.endswith(("ss", "us", "is")) or w in _NOT_PLURAL:
        return False
    return m.group("quantifier").lower() != "what" or not _AFTER_VERB.match(text, m.end())


def asks_many(question: str, scope: _Scoped | None = None) -> bool:
    """Whether a question asks about many documents rather than one (the module's docstring has the rule)."""
    if scope is not None and scope.kind == "document":
        return False
    if points_at_one(question):
        return False
    if scope is not None and scope.kind == "collection":
        return True
    clause = ask_clause(question)
    if _SET.search(clause):
        return True
    return any(_plural(m, clause) for m in _BEFORE_PLURAL.finditer(clause))
