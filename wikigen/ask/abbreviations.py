"""Abbreviations a question uses that the index cannot read ("R&D", "SG&A", "PP&E"), spelled out from the wiki's
own page titles ("Research and development", "Selling, general and administrative").

The index's analyser splits "R&D" into "r" and "d", which match anything, so a question that says "R&D" asks
search and the page index for nothing. A word written as an abbreviation (capital letters, an ampersand
between them) whose terms are all one or two characters long is spelled out by the titles whose content
words begin with its letters, in order ("and", "of", "the" are no content words; a run of a title's words
that ends where the title or one of its parts ends counts: "Gross property, plant and equipment" spells out
"PP&E", "Mortgage- and asset-backed securities" does not spell out "M&A"): the run the most documents' pages
carry (a second as common, or a limit on a run's length, changed no answer on the dev corpora). The spelled-out
words are added to the question; the abbreviation stays. Nothing here knows a corpus: the titles are the wiki's
(figure labels, topic headings).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from wikigen.ask.page_index import terms

__all__ = ["Abbreviations"]

ABBREVIATION = re.compile(r"(?<![\w&])[A-Z]{1,3}(?:&[A-Z]{1,3})+(?![\w&])")  # "R&D", "SG&A", "PP&E"
CONNECTORS = frozenset({"and", "of", "the", "for", "in", "on", "to", "or", "a", "an"})
WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def _phrase_ends(title: str, at: int) -> bool:
    """Whether a phrase of the title may end at `at`: at the title's end or before a comma, colon, semicolon or
    parenthesis (an abbreviation stands for a whole name, "property, plant and equipment" in "Property, plant and
    equipment, net"; not for the words that qualify another, "mortgage- and asset-backed")."""
    rest = title[at:].lstrip()
    return not rest or rest[0] in ",;:(" or not any(c.isalpha() for c in rest)


class Abbreviations:
    """The wiki's titles by the initials of each run of their content words, to spell out the abbreviations of a
    question: a run counts once for every document its page quotes ("research and development" in eight
    reports' labels outweighs "repayment of debt" in one)."""

    def __init__(self, titled: Iterable[tuple[str, int]]):
        self._by_initials: dict[str, Counter[str]] = {}
        for title, docs in titled:
            title = title or ""
            found = list(WORD.finditer(title))
            words = [m.group(0) for m in found]
            content = [i for i, w in enumerate(words) if w.lower() not in CONNECTORS]
            for a in range(len(content)):
                for b in range(a + 1, len(content)):
                    run = content[a : b + 1]
                    if not _phrase_ends(title, found[run[-1]].end()):
                        continue  # "Mortgage- and asset-backed securities": "mortgage and asset" ends inside a word
                    key = "".join(words[i][0].lower() for i in run)
                    phrase = " ".join(w.lower() for w in words[run[0] : run[-1] + 1])
                    self._by_initials.setdefault(key, Counter())[phrase] += max(1, docs)

    def spelled(self, abbreviation: str) -> list[str]:
        """The phrase an abbreviation stands for: the most common (of equals, the first the titles give)."""
        found = self._by_initials.get("".join(c.lower() for c in abbreviation if c.isalpha()))
        return [found.most_common(1)[0][0]] if found else []

    def expand(self, question: str) -> str:
        """The question with the spelled-out words of each abbreviation the index cannot read added after it."""
        extra: list[str] = []
        for m in ABBREVIATION.finditer(question):
            if any(len(t) > 2 for t in terms(m.group(0))):
                continue  # the index reads it as a word of its own
            for phrase in self.spelled(m.group(0)):
                if phrase not in extra:
                    extra.append(phrase)
        return f"{question} ({'; '.join(extra)})" if extra else question
