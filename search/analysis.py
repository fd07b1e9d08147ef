"""How the corpus index analyses text: the English analyzer (tantivy's en_stem chain), CJK runs and grams.

Shared by the corpus index, its snippets and the wiki's page index, so a term means the same everywhere.
"""

from __future__ import annotations

import re

import tantivy
from tantivy import Filter, TextAnalyzerBuilder, Tokenizer

# Hangul (syllables, jamo, compatibility jamo), Han (CJK unified + ext A + compatibility + ext B..),
# Hiragana, Katakana (+ phonetic extensions, half-width).
CJK_RUN = re.compile(
    "[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
    "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]+"
)


def en_analyzer(stopwords: bool = False) -> tantivy.TextAnalyzer:
    """The chain of tantivy's built-in "en_stem" (simple + remove_long(40) + lowercase + english stemmer),
    optionally dropping English stopwords (for queries)."""
    b = TextAnalyzerBuilder(Tokenizer.simple()).filter(Filter.remove_long(40)).filter(Filter.lowercase())
    if stopwords:
        b = b.filter(Filter.stopword("english"))
    return b.filter(Filter.stemmer("english")).build()


ANALYZER = en_analyzer()


def cjk_grams(text: str) -> str:
    """Space-separated unigrams and bigrams of every CJK run in text ('' when there is none)."""
    if text.isascii():  # the common case, and 100x faster than the regex scan
        return ""
    out: list[str] = []
    for run in CJK_RUN.findall(text):
        out.extend(run)
        out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return " ".join(out)


def terms(query: str) -> list[str]:
    """The query's analyzed (en_stem) terms, unique, in order."""
    return list(dict.fromkeys(ANALYZER.analyze(query)))
