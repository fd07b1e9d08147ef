"""What one document offers topic discovery besides its headings: defined terms, names, dates and
salient n-grams, each found with a regular expression over the text (no vocabulary but function words).

* **defined terms** - a quoted term in a definition (`"Term" means`, `(the "Term")`, `"용어"란`; search/facts/parties);
* **named entities** - capitalised multi-word names;
* **dates** - `March 3, 2020`, `3rd day of March, 2020`, `2020-03-03`, `2020년 3월 3일` (search/facts/dates);
* **n-grams** - 1-3 word runs inside a clause, stopwords and numbers excluded.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from wikigen.agents.words import HANGUL, STOPWORDS, fold, norm_key, plural
from wikigen.search.facts.dates import find_dates
from wikigen.search.facts.parties import find_terms

_NAME = re.compile(r"(?<![\w.])[A-Z][a-z]+(?:[ \t]+(?:(?:of|and|&|for|de)[ \t]+)?[A-Z][a-z]+){1,4}")


def defined_terms(text: str) -> list[tuple[str, int, int]]:
    """(term, start, end) of each definition, in text order; one per term position. The rule is
    `wikigen.search.facts.parties.find_terms` (document fact sheets read the same)."""
    return [(m.value, m.start, m.end) for m in find_terms(text)]


def _trim_function_words(words: list[str]) -> list[str]:
    while words and words[0].lower() in STOPWORDS:
        words = words[1:]
    while words and words[-1].lower() in STOPWORDS:
        words = words[:-1]
    return words


def names(text: str) -> dict[str, tuple[str, int, int]]:
    """Capitalised multi-word names (first occurrence per key), leading function words dropped."""
    out: dict[str, tuple[str, int, int]] = {}
    for m in _NAME.finditer(text):
        words = _trim_function_words(m.group(0).split())
        if len(words) < 2:
            continue
        surface = " ".join(words)
        key = norm_key(surface)
        if key and key not in out and len(key.split()) >= 2:
            s = m.start() + m.group(0).find(words[0])
            out[key] = (surface, s, s + len(surface))
    return out


def dates(text: str, within: int, limit: int) -> list[str]:
    """The first `limit` distinct dates in the text's first `within` characters, as written
    (`wikigen.search.facts.dates.find_dates`: the one date rule)."""
    return list(dict.fromkeys(d.text for d in find_dates(text[:within])))[:limit]


# --- salient phrases -------------------------------------------------------------------------------

_CLAUSE_SPLIT = re.compile(r"[\"“”()\[\]{};:!?,.\n|•·*#>_=+]+")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]|[가-힣]+|\d+")


def _gram_token(t: str) -> bool:
    return t not in STOPWORDS and not t.isdigit() and (len(t) >= 3 or (len(t) >= 2 and not t.isascii()))


def ngrams(text: str, max_n: int = 3) -> Counter:
    """Counts of the 1..max_n word runs inside each clause: no stopword, number or short word in a run,
    except a function word in the middle of three ("right to use")."""
    counts: Counter = Counter()
    for clause in _CLAUSE_SPLIT.split(text.lower()):
        toks = _TOKEN.findall(clause)
        if not toks:
            continue
        toks = [t if t.isascii() else fold(t) for t in toks]
        ok = [_gram_token(t) for t in toks]
        n_t = len(toks)
        for i in range(n_t):
            if not ok[i]:
                continue
            t0 = toks[i]
            counts[t0] += 1
            if max_n >= 2 and i + 1 < n_t:
                t1 = toks[i + 1]
                if ok[i + 1]:
                    counts[t0 + " " + t1] += 1
                if max_n >= 3 and i + 2 < n_t and ok[i + 2] and not t1.isdigit():
                    counts[t0 + " " + t1 + " " + toks[i + 2]] += 1
    return counts


@lru_cache(maxsize=4096)
def phrase_regex(phrase: str) -> re.Pattern[str]:
    """A phrase key as it may occur in text: any case, plurals and particles, any separators."""
    parts = []
    for w in phrase.split():
        if HANGUL.search(w):
            parts.append(re.escape(w) + r"[가-힣]*")
        else:  # the key's word is singular (words.fold): match it and its plural
            forms = sorted({w, plural(w)}, key=lambda f: (-len(f), f))
            parts.append(r"\b(?:" + "|".join(re.escape(f) for f in forms) + r")(?:s|es|'s|’s)?\b")
    return re.compile(r"[\s\W]+".join(parts), re.IGNORECASE)
