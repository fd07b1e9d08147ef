"""What one document offers topic discovery besides its headings: defined terms, names, dates and
salient n-grams, each found with a regular expression over the text (no vocabulary but function words).

* **defined terms** - a quoted term in a definition (`"Term" means`, `(the "Term")`, `"용어"란`);
* **named entities** - capitalised multi-word names;
* **dates** - `March 3, 2020`, `3rd day of March, 2020`, `2020-03-03`, `2020년 3월 3일`;
* **n-grams** - 1-3 word runs inside a clause, stopwords and numbers excluded.
"""

from __future__ import annotations

import re
from functools import lru_cache
from collections import Counter

from wikigen.agents.words import HANGUL, MONTHS, STOPWORDS, fold, norm_key, plural

Q_OPEN = "\"“”'‘「『"
Q_CLOSE = "\"”“'’」』"

_TERM = r"([A-Z][\w'’&/.-]*(?:[ \t]+[\w'’&/.-]+){0,5}|[가-힣][가-힣\w ]{0,20})"
_Q1, _Q2 = f"[{Q_OPEN}]", f"[{Q_CLOSE}]"
_DEF_PATTERNS = [
    re.compile(_Q1 + _TERM + _Q2 + r"\s*(?:,\s*)?(?:shall\s+)?(?:means?|mean|refers?\s+to|has\s+the\s+meaning|"
               r"have\s+the\s+meaning|shall\s+have\s+the\s+meaning|is\s+defined|includes?)\b"),
    re.compile(r"\((?:[^()\n]{0,80}?)" + _Q1 + _TERM + _Q2 + r"[^()\n]{0,40}\)"),
    re.compile(_Q1 + _TERM + _Q2 + r"\s*(?:이?란|(?:이)?라\s*함은|(?:이)?라\s*한다|(?:은|는)\s)"),
    re.compile(r"\(\s*이하\s*" + _Q1 + "?" + _TERM + _Q2 + "?"),
]
_NAME = re.compile(r"(?<![\w.])[A-Z][a-z]+(?:[ \t]+(?:(?:of|and|&|for|de)[ \t]+)?[A-Z][a-z]+){1,4}")
DATE = re.compile(
    r"\b(?:(?:" + "|".join(m.capitalize() for m in MONTHS) + r")\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}"
    r"|\d{1,2}(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?(?:" + "|".join(m.capitalize() for m in MONTHS) + r"),?\s+\d{4}"
    r"|\d{4}-\d{2}-\d{2})\b|\d{4}\s*년\s*\d{1,2}\s*월(?:\s*\d{1,2}\s*일)?")


def defined_terms(text: str) -> list[tuple[str, int, int]]:
    """(term, start, end) of each definition, in text order; one per term position."""
    out = []
    seen: set[int] = set()
    for rx in _DEF_PATTERNS:
        for m in rx.finditer(text):
            term = m.group(1).strip().rstrip(".")
            if m.start(1) in seen or not term or len(term) > 60:
                continue
            seen.add(m.start(1))
            out.append((term, m.start(), m.end()))
    out.sort(key=lambda t: t[1])
    return out


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
    """The first `limit` distinct dates in the text's first `within` characters."""
    return list(dict.fromkeys(m.group(0) for m in DATE.finditer(text, 0, min(len(text), within))))[:limit]


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
        else:       # the key's word is singular (words.fold): match it and its plural
            forms = sorted({w, plural(w)}, key=lambda f: (-len(f), f))
            parts.append(r"\b(?:" + "|".join(re.escape(f) for f in forms) + r")(?:s|es|'s|’s)?\b")
    return re.compile(r"[\s\W]+".join(parts), re.IGNORECASE)
