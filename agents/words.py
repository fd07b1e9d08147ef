"""Words for topic discovery: the only vocabulary of wikigen.agents, and how words are folded into keys.

The lists here are English and Korean function words (stopwords, particles) and month names for dates;
everything else topic discovery finds comes from the documents. `norm_key` is the one normal form of a
heading, term, phrase or name: numbering, case, punctuation, particles and plurals folded.
"""

from __future__ import annotations

import re
import unicodedata

from wikigen.core.text import without_particle

# --- function words (English, Korean) ------------------------------------------------------------

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "across",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "among",
        "an",
        "and",
        "any",
        "anyone",
        "anything",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "cannot",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "done",
        "down",
        "during",
        "each",
        "either",
        "else",
        "etc",
        "every",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hereby",
        "herein",
        "hereof",
        "hereto",
        "hereunder",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "however",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "may",
        "me",
        "might",
        "more",
        "most",
        "must",
        "my",
        "myself",
        "neither",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "one",
        "only",
        "onto",
        "or",
        "other",
        "others",
        "otherwise",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "per",
        "same",
        "shall",
        "she",
        "should",
        "since",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "thereby",
        "therefore",
        "therein",
        "thereof",
        "thereto",
        "these",
        "they",
        "this",
        "those",
        "through",
        "thus",
        "to",
        "too",
        "toward",
        "towards",
        "under",
        "unless",
        "until",
        "up",
        "upon",
        "us",
        "very",
        "via",
        "was",
        "we",
        "were",
        "what",
        "whatever",
        "when",
        "whenever",
        "where",
        "whereas",
        "wherein",
        "whether",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "within",
        "without",
        "would",
        "yet",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "및",
        "또는",
        "그",
        "이",
        "저",
        "것",
        "수",
        "등",
        "각",
        "위",
        "내",
        "외",
        "중",
        "때",
        "바",
        "데",
        "더",
        "또",
        "및",
        "의",
        "를",
        "을",
        "은",
        "는",
        "이",
        "가",
        "에",
        "와",
        "과",
        "도",
        "로",
        "으로",
        "에서",
        "에게",
        "한",
        "할",
        "하는",
        "하여",
        "한다",
        "있는",
        "있다",
        "없는",
        "없다",
        "된",
        "되는",
        "된다",
        "경우",
        "해당",
        "관한",
        "관하여",
        "대한",
        "대하여",
        "따라",
        "따른",
        "의한",
        "의하여",
        "위한",
        "위하여",
        "모든",
        "어떤",
        "이러한",
        "그러한",
        "다음",
        "각호",
        "하고",
        "하며",
        "또한",
        "다만",
        "단",
        "즉",
        "이내",
        "이하",
        "이상",
        "미만",
        "초과",
        "없이",
        "아니",
        "않는",
        "않은",
        "관련",
        "통하여",
        "대해",
    ]
)


HANGUL = re.compile(r"[가-힣]")
DIGIT = re.compile(r"\d")


# --- plurals and particles -----------------------------------------------------------------------


def singular(word: str) -> str:
    """The one plural rule: a plural folded to its singular ("policies" -> "policy", "services" ->
    "service", "taxes" -> "tax"); a Korean word or a word of three letters or fewer stays as it is.
    Keys only: titles are written forms (`wikigen.agents.meaning`), never these."""
    if HANGUL.search(word) or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zzes")):
        return word[:-2]  # "addresses" -> "address", "taxes" -> "tax"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def fold(word: str) -> str:
    """A word as a key folds it: a Korean word without its particle, any other word singular."""
    if HANGUL.search(word):
        return without_particle(word)
    return singular(word)


def plural(word: str) -> str:
    """The English plural of a singular noun ("policy" -> "policies", "box" -> "boxes")."""
    if HANGUL.search(word) or not word:
        return word
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    return word + "s"


# --- keys and display forms ----------------------------------------------------------------------

_NUMBERING = re.compile(
    r"^\s*(?:(?:article|section|chapter|part|schedule|annex|appendix)\s+(?:[a-z]|[ivxlc]+)\s*[-–—:.)]\s*"
    r"|(?:(?:article|section|chapter|part)\s+)?"
    r"(?:\d+(?:\.\d+)*\.?|[ivxlc]+[.)]|[a-z][.)]|\([0-9a-z]{1,4}\))\s*[-–—:.)]?\s*)",
    re.IGNORECASE,
)
_KO_NUMBERING = re.compile(r"^\s*제\s*\d+\s*[조장절관항](?:의\s*\d+)?\s*")


def strip_numbering(label: str) -> str:
    label = _KO_NUMBERING.sub("", label)
    prev = None
    while prev != label:
        prev = label
        label = _NUMBERING.sub("", label, count=1) if re.match(r"^\s*(?:\S+\s+\S|\S*\d|\()", label) else label
    label = label.strip(" \t-–—:.;,()[]（）")
    return label


def norm_key(label: str) -> str:
    """Normalised key of a heading, term or phrase: numbering, case, punctuation and plurals folded."""
    label = unicodedata.normalize("NFKC", label)
    label = strip_numbering(label).lower()
    label = re.sub(r"[’']s\b", "", label)
    words = re.findall(r"[^\W_]+", label)
    while words and words[0] in STOPWORDS and not HANGUL.search(words[0]):
        words = words[1:]
    while words and words[-1] in STOPWORDS and not HANGUL.search(words[-1]):
        words = words[:-1]
    return " ".join(fold(w) for w in words)


def display(label: str) -> str:
    """A heading or term as a title: numbering dropped, spaces collapsed, ALL CAPS made Title Case."""
    label = strip_numbering(unicodedata.normalize("NFKC", label))
    label = re.sub(r"\s+", " ", label).strip()
    letters = [c for c in label if c.isalpha() and c.isascii()]
    if letters and all(c.isupper() for c in letters) and len(letters) > 3:
        label = " ".join(
            w.capitalize() if w.lower() not in STOPWORDS or len(w) < 2 else w.lower() for w in label.split()
        )
        label = label[:1].upper() + label[1:]
    return label
