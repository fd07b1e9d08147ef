"""Topic discovery from the corpus itself: no built-in vocabulary, clause list or domain rule.

`discover(texts, titles)` reads every document once and finds what recurs across documents:

* **headings** - short heading-like lines (markdown `#`, numbered `12. Governing Law.`,
  `ARTICLE 5 - CONFIDENTIALITY`, `제5조(비밀유지)`, ALL CAPS or Title Case lines) and numbered
  headings inline in flattened text; numbering, case and punctuation are normalised;
* **defined terms** - a quoted term in a definition (`"Term" means`, `(the "Term")`, `"용어"란`);
* **named entities** - capitalised multi-word names;
* **salient phrases** - 1-3 word n-grams (stopwords excluded) in several documents but not in most,
  that recur within the documents that have them.

Only what occurs in at least `min_docs` documents becomes a topic. Each topic keeps, per document,
one quote span: an exact `(start, end)` of the document text, as long as it must be to carry its
fact (the section under a heading, the defining sentence of a term, the sentence around a phrase),
cut at a sentence end and capped, never with leading or trailing whitespace.

The only word lists here are English and Korean function words (stopwords, particles) and the
generic structure markers of numbered headings (article/section/chapter/part, 제N조); month names
for dates. Everything else comes from the documents. Same input, same output.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from wikigen.core.sentences import cap_span, sentence_span
from wikigen.core.slugs import kind_slug, topic_slug
from wikigen.core.text import trim_span

# --- function words (English, Korean): the only vocabulary in this module ---------------------

STOPWORDS = frozenset("""
a about above across after again against all also am among an and any anyone anything are as at
be because been before being below between both but by can cannot could did do does doing done down
during each either else etc every few for from further had has have having he her here hereby herein
hereof hereto hereunder hers herself him himself his how however i if in into is it its itself just
may me might more most must my myself neither no nor not now of off on once one only onto or other
others otherwise our ours ourselves out over own per same shall she should since so some such than
that the their theirs them themselves then there thereby therefore therein thereof thereto these they
this those through thus to too toward towards under unless until up upon us very via was we were what
whatever when whenever where whereas wherein whether which while who whom whose why will with within
without would yet you your yours yourself yourselves
및 또는 그 이 저 것 수 등 각 위 내 외 중 때 바 데 더 또 및 의 를 을 은 는 이 가 에 와 과 도 로 으로 에서
에게 한 할 하는 하여 한다 있는 있다 없는 없다 된 되는 된다 경우 해당 관한 관하여 대한 대하여 따라 따른 의한
의하여 위한 위하여 모든 어떤 이러한 그러한 다음 각호 하고 하며 또한 다만 단 즉 이내 이하 이상 미만 초과 없이 아니
않는 않은 관련 통하여 대해
""".split())

_PARTICLES = sorted("""은 는 이 가 을 를 의 에 에서 에게 에는 에도 으로 로 와 과 도 만 까지 부터 으로서 로서 으로써 로써
이나 나 이며 며 이고 고 이다 하여 하는 한다 하고 된다 되는 하며 에의 과의 와의 으로부터 로부터 이란 란""".split(),
                    key=len, reverse=True)

MONTHS = ("january february march april may june july august september october november december "
          "jan feb mar apr jun jul aug sep sept oct nov dec").split()

Q_OPEN = "\"“”'‘「『"
Q_CLOSE = "\"”“'’」』"

HEADING_CAP = 700      # a heading topic's quote: the section under it
TERM_CAP = 600         # a defined term's quote: its defining sentence
PHRASE_CAP = 450       # a salient phrase or a name: the sentence(s) around it
OUTLINE_CAP = 320      # a document page's key passage under one heading


# --- data -------------------------------------------------------------------------------------

@dataclass
class Topic:
    key: str                                   # normalised: "governing law"
    kind: str                                  # heading | term | entity | phrase
    title: str                                 # the most common surface form
    aliases: list[str] = field(default_factory=list)
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)   # doc_id -> quote span
    score: float = 0.0
    via: dict[str, str] = field(default_factory=dict)    # doc_id -> the evidence kind of its span

    @property
    def slug(self) -> str:
        return topic_slug(self.key)

    @property
    def doc_ids(self) -> list[str]:
        return sorted(self.spans)


@dataclass
class Heading:
    label: str          # the heading text without its numbering
    key: str
    start: int          # where the heading (with its numbering) starts
    level: int          # 1 for top-level (12. / ARTICLE / # ), 2+ for 1.1, ## ...
    head_end: int = 0   # where the heading itself ends
    span: tuple[int, int] = (0, 0)   # the section under it, capped


@dataclass
class Outline:
    """What one document is: its opening, headings, defined terms and dates."""
    doc_id: str
    title: str
    opening: tuple[int, int] | None
    chars: int = 0
    headings: list[Heading] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    dates: list[str] = field(default_factory=list)


@dataclass
class Collection:
    key: str                                   # the kind ("supply", "joint venture") or a folder's name
    title: str                                 # "Supply agreements", "Policies"
    members: list[str]
    aliases: list[str] = field(default_factory=list)
    folder: str = ""                           # for a folder's collection, its path

    @property
    def slug(self) -> str:
        return kind_slug(self.key)


@dataclass
class Catalog:
    topics: list[Topic]
    outlines: dict[str, Outline]
    collections: list[Collection]

    def __post_init__(self) -> None:
        self._by_key = {t.key: t for t in self.topics}

    def topic(self, key: str) -> Topic | None:
        return self._by_key.get(key)

    def collection_of(self, doc_id: str) -> Collection | None:
        got = self.collections_of(doc_id)
        return got[0] if got else None

    def collections_of(self, doc_id: str) -> list[Collection]:
        """The collections a document belongs to: name kinds first (fewest members first), then folders."""
        return sorted((c for c in self.collections if doc_id in c.members),
                      key=lambda c: (bool(c.folder), len(c.members), c.key))


# --- text helpers -----------------------------------------------------------------------------

_HANGUL = re.compile(r"[가-힣]")
_DIGIT = re.compile(r"\d")


def _fold(word: str) -> str:
    if _HANGUL.search(word):
        for p in _PARTICLES:
            if word.endswith(p) and len(word) - len(p) >= 2:
                return word[: -len(p)]
        return word
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


_NUMBERING = re.compile(
    r"^\s*(?:(?:article|section|chapter|part)\s+)?"
    r"(?:\d+(?:\.\d+)*\.?|[ivxlc]+[.)]|[a-z][.)]|\([0-9a-z]{1,4}\))\s*[-–—:.)]?\s*", re.IGNORECASE)
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
    while words and words[0] in STOPWORDS and not _HANGUL.search(words[0]):
        words = words[1:]
    while words and words[-1] in STOPWORDS and not _HANGUL.search(words[-1]):
        words = words[:-1]
    return " ".join(_fold(w) for w in words)


def _display(label: str) -> str:
    label = strip_numbering(unicodedata.normalize("NFKC", label))
    label = re.sub(r"\s+", " ", label).strip()
    letters = [c for c in label if c.isalpha() and c.isascii()]
    if letters and all(c.isupper() for c in letters) and len(letters) > 3:
        label = " ".join(w.capitalize() if w.lower() not in STOPWORDS or len(w) < 2 else w.lower()
                         for w in label.split())
        label = label[:1].upper() + label[1:]
    return label


# --- headings ---------------------------------------------------------------------------------

_LINE = re.compile(r"[^\n]+")
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_NUM_LINE = re.compile(
    r"^(?P<num>(?:(?:article|section|chapter|part)\s+)?(?:\d{1,3}(?:\.\d{1,3})*\.?|[ivxlc]{1,6}[.)]|\([a-z0-9]{1,4}\)))"
    r"\s*[-–—:.)]?\s+(?P<label>\S.*)$", re.IGNORECASE)
_KO_LINE = re.compile(r"^(?P<num>제\s*\d+\s*[조장절관](?:의\s*\d+)?)\s*(?:[(（\[]\s*(?P<p>[^)）\]]{1,40}?)\s*[)）\]]|(?P<label>[^\s(].{0,40}))?")
_FUNC = r"(?:of|and|or|the|to|for|in|on|by|with|a|an|upon|under|from|at|as|&)"
_INLINE = re.compile(
    r"(?<![\w.,/$-])(?P<num>(?:(?:Section|SECTION|Article|ARTICLE)\s+)?\d{1,2}(?:\.\d{1,2}){0,3})\.?[ \t]+"
    r"(?P<label>[A-Z][A-Za-z'’&/-]*(?:[ \t]+(?:[A-Z][A-Za-z'’&/-]*|" + _FUNC + r")){0,7})"
    r"[ \t]*(?:\.|:|[ \t]-|[ \t]–|[ \t]—)(?=\s)")
_KO_INLINE = re.compile(r"(?P<num>제\s*\d+\s*조(?:의\s*\d+)?)\s*[(（]\s*(?P<label>[^)）\n]{1,30}?)\s*[)）]")


def _heading_like(label: str) -> bool:
    label = label.strip()
    if not (2 <= len(label) <= 80) or _DIGIT.search(label):
        return False
    if label[-1] in ",;" or label.count(",") > 1:
        return False
    words = label.split()
    if _HANGUL.search(label):
        return len(words) <= 6 and not re.search(r"(다|요|함|음)[.!?]?$", label) and len(label) <= 40
    if len(words) > 8:
        return False
    content = [w for w in words if w.lower().strip("()&,.:-") not in STOPWORDS]
    if not content:
        return False
    letters = [c for c in label if c.isalpha()]
    if letters and all(c.isupper() for c in letters):
        return True
    return all(w[:1].isupper() or not w[:1].isalpha() for w in content)


def _level(num: str) -> int:
    num = num.strip()
    if num.startswith("#"):
        return len(num)
    if num.startswith("("):
        return 3
    if re.match(r"(?i)(article|chapter|part|제)", num):
        return 1
    return num.rstrip(".").count(".") + 1


def _find_headings(text: str) -> list[Heading]:
    found: dict[int, Heading] = {}

    def add(label: str, start: int, level: int, head_end: int) -> None:
        label = label.strip().rstrip(".:").strip()
        if not _heading_like(label):
            return
        key = norm_key(label)
        if not key or len(key) < 2:
            return
        if start not in found:
            found[start] = Heading(label=_display(label), key=key, start=start, level=level, head_end=head_end)

    for m in _LINE.finditer(text):
        s, e = trim_span(text, m.start(), m.end())
        if s >= e or e - s > 120:
            continue
        line = text[s:e]
        h = _MD_HEADING.match(line)
        if h:
            add(h.group(2), s, len(h.group(1)), e)
            continue
        k = _KO_LINE.match(line)
        if k:
            add(k.group("p") or (k.group("label") or ""), s, 1, s + k.end())
            continue
        n = _NUM_LINE.match(line)
        if n:
            label = n.group("label")
            head = re.split(r"(?<=[.:])\s+", label, maxsplit=1)[0]   # "Term. The Agreement ..." -> "Term."
            add(head, s, _level(n.group("num")), s + n.start("label") + len(head))
            continue
        if len(line.split()) <= 8 and not line.endswith((",", ";")):
            letters = [c for c in line if c.isalpha()]
            if letters and (all(c.isupper() for c in letters) or _HANGUL.search(line)):
                add(line, s, 1, e)
            elif letters and len(line.split()) <= 6 and not line.endswith("."):
                add(line, s, 2, e)
    for rx in (_INLINE, _KO_INLINE):
        for m in rx.finditer(text):
            if m.start() in found:
                continue
            add(m.group("label"), m.start(), _level(m.group("num")), m.end())
    heads = sorted(found.values(), key=lambda h: h.start)
    # the section under each heading: up to the next heading, skipping sub-headings that come at once
    for i, h in enumerate(heads):
        end = len(text)
        for nxt in heads[i + 1:]:
            if nxt.start - h.head_end >= 15:      # some text of its own: not a sub-heading right below
                end = nxt.start
                break
        h.span = cap_span(text, h.start, end, HEADING_CAP)
    return heads


# --- defined terms, names, dates --------------------------------------------------------------

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
_DATE = re.compile(
    r"\b(?:(?:" + "|".join(m.capitalize() for m in MONTHS) + r")\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}"
    r"|\d{1,2}(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?(?:" + "|".join(m.capitalize() for m in MONTHS) + r"),?\s+\d{4}"
    r"|\d{4}-\d{2}-\d{2})\b|\d{4}\s*년\s*\d{1,2}\s*월(?:\s*\d{1,2}\s*일)?")


def _defined_terms(text: str) -> list[tuple[str, int, int]]:
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


def _names(text: str) -> dict[str, tuple[str, int, int]]:
    """Capitalised multi-word names (first occurrence per key), leading function words dropped."""
    out: dict[str, tuple[str, int, int]] = {}
    for m in _NAME.finditer(text):
        words = m.group(0).split()
        while words and words[0].lower() in STOPWORDS:
            words = words[1:]
        while words and words[-1].lower() in STOPWORDS:
            words = words[:-1]
        if len(words) < 2:
            continue
        surface = " ".join(words)
        key = norm_key(surface)
        if key and key not in out and len(key.split()) >= 2:
            s = m.start() + m.group(0).find(words[0])
            out[key] = (surface, s, s + len(surface))
    return out


# --- salient phrases --------------------------------------------------------------------------

_CLAUSE_SPLIT = re.compile(r"[\"“”()\[\]{};:!?,.\n|•·*#>_=+]+")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]|[가-힣]+|\d+")


def _ngrams(text: str, max_n: int = 3) -> Counter:
    counts: Counter = Counter()
    stop = STOPWORDS
    for clause in _CLAUSE_SPLIT.split(text.lower()):
        toks = _TOKEN.findall(clause)
        if not toks:
            continue
        toks = [t if t.isascii() else _fold(t) for t in toks]
        ok = [t not in stop and not t.isdigit() and (len(t) >= 3 or (len(t) >= 2 and not t.isascii()))
              for t in toks]
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


def _phrase_regex(phrase: str) -> re.Pattern[str]:
    parts = []
    for w in phrase.split():
        if _HANGUL.search(w):
            parts.append(re.escape(w) + r"[가-힣]*")
        else:
            parts.append(r"\b" + re.escape(w) + r"(?:s|es|'s|’s)?\b")
    return re.compile(r"[\s\W]+".join(parts), re.IGNORECASE)


# --- collections ------------------------------------------------------------------------------

HEAD_SHARE = 0.2        # a word ending the names/titles of >= 20% of the documents is a head noun
KIND_MAX_SHARE = 0.5    # a kind in more than half of the documents is too general
STICKY = 0.7            # two words form one kind when they are adjacent in >= 70% of the names having the rarer
_CONJ = frozenset({"and", "or", "&", "및", "또는"})
_NAME_TOKEN = re.compile(r"[^\W\d_]+|\d+|&")
_MONTH_SET = frozenset(MONTHS)


def _sing(word: str) -> str:
    """A plural folded to its singular ("policies" -> "policy", "services" -> "service")."""
    if _HANGUL.search(word) or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _plural(word: str) -> str:
    if _HANGUL.search(word) or not word:
        return word
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    return word + "s"


def _name_tokens(text: str, surface: dict[str, Counter] | None = None) -> list[str | None]:
    """A name's or title's words, lower case and singular; None where a number, date, single letter or
    function word breaks the run (so no phrase spans it); conjunctions are kept as "and"."""
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text.replace("…", " "))
    out: list[str | None] = []
    for raw in _NAME_TOKEN.findall(text):
        w = raw.lower()
        if w in _CONJ:
            out.append("and")
        elif w.isdigit() or w in STOPWORDS or w in _MONTH_SET or len(w) < (1 if _HANGUL.search(w) else 2):
            out.append(None)
        else:
            out.append(_sing(unicodedata.normalize("NFKC", w)))
            if surface is not None:
                surface[out[-1]][unicodedata.normalize("NFKC", w)] += 1
    return out


def _last_word(toks: list[str | None]) -> str | None:
    for t in reversed(toks):
        if t is not None and t != "and":
            return t
    return None


def _collections(titles: Mapping[str, str], n_docs: int) -> list[Collection]:
    """Documents of one kind, from file names, titles and folders (never from body text).

    * A *head noun* is a word that ends the file names or titles of many documents ("agreement",
      "policy"): it names no kind by itself; the kind is the word (or the two words that always go
      together) right before it, and before each "and" before it ("manufacturing and supply
      agreement" -> manufacturing, supply). Titles count only through such a head, so a title that
      is really a preamble adds nothing.
    * A file name without a head offers each of its words (and sticky word pairs).
    * A folder holding several documents (not nearly all of them) is a collection of its own.

    A document may belong to several collections. A kind needs >= 2 documents and at most half of
    them (half, so two kinds can split a corpus); two collections with the same documents are one.
    """
    doc_ids = sorted(titles)
    surface: dict[str, Counter] = defaultdict(Counter)
    names = {d: _name_tokens(d.rsplit("/", 1)[-1], surface) for d in doc_ids}
    heads_of = {d: _name_tokens(titles.get(d) or "", surface) for d in doc_ids}
    # heads: the most frequent final words of names and titles
    final: Counter = Counter()
    for d in doc_ids:
        final.update({w for w in (_last_word(names[d]), _last_word(heads_of[d])) if w and len(w) >= 3})
    min_head = max(2, math.ceil(HEAD_SHARE * n_docs))
    heads = {w for w, c in final.items() if c >= min_head}
    # word and adjacent-pair document frequencies over names and titles, for sticky pairs
    wdf: Counter = Counter()
    pdf: Counter = Counter()
    for d in doc_ids:
        ws: set[str] = set()
        ps: set[str] = set()
        for toks in (names[d], heads_of[d]):
            ws |= {t for t in toks if t and t != "and"}
            ps |= {f"{a} {b}" for a, b in zip(toks, toks[1:]) if a and b and "and" not in (a, b)}
        wdf.update(ws)
        pdf.update(ps)

    def sticky(a: str | None, b: str) -> bool:
        return bool(a) and a != "and" and a not in heads and pdf[f"{a} {b}"] >= 2 \
            and pdf[f"{a} {b}"] >= STICKY * min(wdf[a], wdf[b])

    def is_head(toks: list[str | None], i: int) -> bool:
        t = toks[i]
        if t in heads:
            return True
        # a name cut short ("...-license-agre"): its last word begins a head
        return i == len(toks) - 1 and t is not None and len(t) >= 3 and any(h.startswith(t) for h in heads)

    def anchored(toks: list[str | None]) -> list[tuple[str, str]]:
        """(kind, head) for the words right before each head, and before each "and" before it."""
        got = []
        for i in range(len(toks)):
            if not toks[i] or toks[i] == "and" or not is_head(toks, i):
                continue
            j = i - 1
            while j >= 0 and toks[j] and toks[j] != "and" and not is_head(toks, j):
                w = toks[j]
                prev = toks[j - 1] if j > 0 else None
                if prev is not None and sticky(prev, w):
                    # the pair is the kind; its last word too ("content license" is also a license)
                    got.append((f"{prev} {w}", toks[i] if toks[i] in heads else _head_of(toks[i])))
                    got.append((w, toks[i] if toks[i] in heads else _head_of(toks[i])))
                    j -= 2
                else:
                    got.append((w, toks[i] if toks[i] in heads else _head_of(toks[i])))
                    j -= 1
                if j >= 0 and toks[j] == "and":
                    j -= 1          # "x and y <head>": x is a kind too
                    continue
                break
        return got

    def _head_of(t: str) -> str:
        return min(h for h in heads if h.startswith(t))

    def loose(toks: list[str | None]) -> list[str]:
        out = []
        skip = False
        for k, w in enumerate(toks):
            if not w or w == "and" or w in heads:
                continue
            if len(w) < 3 and not _HANGUL.search(w):
                continue
            nxt = toks[k + 1] if k + 1 < len(toks) else None
            if nxt and nxt != "and" and sticky(w, nxt):
                out.append(f"{w} {nxt}")
                skip = True
                continue
            if skip:
                skip = False
                continue
            out.append(w)
        return out

    members: dict[str, set[str]] = defaultdict(set)
    head_votes: dict[str, Counter] = defaultdict(Counter)
    for d in doc_ids:
        pairs = anchored(names[d]) + anchored(heads_of[d])
        kinds = [(k, h) for k, h in pairs if len(k) >= 3 or _HANGUL.search(k)]
        if not any(is_head(names[d], i) for i in range(len(names[d])) if names[d][i]):
            kinds += [(w, "") for w in loose(names[d])]
        for k, h in set(kinds):
            members[k].add(d)
            if h:
                head_votes[k][h] += 1          # documents naming the kind before this head
    max_df = max(2, int(KIND_MAX_SHARE * n_docs))
    out: list[Collection] = []
    for key in sorted(members):
        docs = sorted(members[key])
        if not (2 <= len(docs) <= max_df) or key in heads:
            continue
        head, votes = min(head_votes[key].items(), key=lambda kv: (-kv[1], kv[0]), default=("", 0))
        word = " ".join(surface[w].most_common(1)[0][0] if surface[w] else w for w in key.split())
        word = word[:1].upper() + word[1:]
        if head and votes * 2 >= len(docs):
            title = f"{word} {_plural(head)}"
            aliases = [key, f"{key} {head}", f"{key} {_plural(head)}"]
        else:
            title = f"{word} documents"
            aliases = [key]
        out.append(Collection(key=key, title=title, members=docs,
                              aliases=[a for a in dict.fromkeys(aliases) if a != title.lower()]))
    # folders with several documents, not nearly all of them
    folders: dict[str, list[str]] = defaultdict(list)
    for d in doc_ids:
        if "/" in d:
            folders[d.rsplit("/", 1)[0]].append(d)
    seen = {tuple(c.members) for c in out}
    keys = {c.key for c in out}
    for folder, docs in sorted(folders.items()):
        if len(docs) < 2 or len(docs) > 0.8 * n_docs or tuple(docs) in seen:
            continue
        leaf = folder.rsplit("/", 1)[-1]
        words = [t for t in _name_tokens(leaf) if t and t != "and"]
        key = " ".join(words) if words else norm_key(leaf) or leaf
        if key in keys:
            key = norm_key(folder.replace("/", " ")) or folder
        if key in keys:
            continue
        label = re.sub(r"[-_]+", " ", leaf).strip() or leaf
        title = label[:1].upper() + label[1:]
        out.append(Collection(key=key, title=title, members=docs, folder=folder,
                              aliases=[a for a in dict.fromkeys([key, label.lower()])
                                       if a != title.lower()]))
        seen.add(tuple(docs))
        keys.add(key)
    # two collections with the same documents are one: a word pair before a word, a kind before a folder
    uniq: list[Collection] = []
    have: set[tuple[str, ...]] = set()
    for c in sorted(out, key=lambda c: (bool(c.folder), -len(c.key.split()), c.key)):
        if tuple(c.members) in have:
            continue
        have.add(tuple(c.members))
        uniq.append(c)
    return sorted(uniq, key=lambda c: c.key)


# --- discovery --------------------------------------------------------------------------------

def _opening(text: str) -> tuple[int, int] | None:
    s, e = trim_span(text, 0, len(text))
    if s >= e:
        return None
    return cap_span(text, s, min(e, s + 2000), 500)


def discover(texts: Mapping[str, str], titles: Mapping[str, str] | None = None, *, min_docs: int = 2,
             max_topics: int | None = None) -> Catalog:
    """Topics, outlines and collections of a corpus, {doc_id: text} (and optional {doc_id: title})."""
    doc_ids = sorted(texts)
    n = len(doc_ids)
    titles = dict(titles or {})
    outlines: dict[str, Outline] = {}
    cand: dict[str, dict[str, dict]] = {k: defaultdict(dict) for k in ("heading", "term", "entity", "phrase")}
    surfaces: dict[str, Counter] = defaultdict(Counter)
    ngram_df: Counter = Counter()
    ngram_burst: dict[str, float] = defaultdict(float)
    ngram_maxtf: Counter = Counter()

    for doc_id in doc_ids:
        text = texts[doc_id]
        heads = _find_headings(text)
        for h in heads:
            if doc_id not in cand["heading"][h.key] or h.level < cand["heading"][h.key][doc_id][2]:
                cand["heading"][h.key][doc_id] = (h.span[0], h.span[1], h.level)
            surfaces[h.key][h.label] += 1
        terms = _defined_terms(text)
        term_names: list[str] = []
        for term, s, e in terms:
            key = norm_key(term)
            if not key:
                continue
            if term not in term_names:
                term_names.append(term)
            if doc_id not in cand["term"][key]:
                span = sentence_span(text, s, e, TERM_CAP)
                cand["term"][key][doc_id] = (span[0], span[1], 0)
                surfaces[key][term] += 1
        for key, (surface, s, e) in _names(text).items():
            cand["entity"][key][doc_id] = (s, e, 0)
            surfaces[key][surface] += 1
        counts = _ngrams(text)
        for g, c in counts.items():
            ngram_df[g] += 1
            ngram_burst[g] += 1.0 + math.log(c)
            if c > ngram_maxtf[g]:
                ngram_maxtf[g] = c
        opening = _opening(text)
        head_end = opening[1] + 1500 if opening else 2500
        outlines[doc_id] = Outline(
            doc_id=doc_id, title=titles.get(doc_id) or _title_from_text(text) or doc_id, opening=opening,
            chars=len(text),
            headings=heads, terms=[t for t, s, _ in terms if s < head_end][:12],
            dates=list(dict.fromkeys(m.group(0) for m in _DATE.finditer(text, 0, min(len(text), 5000))))[:6])

    topics: dict[str, Topic] = {}
    ranked: dict[str, list[str]] = {}
    for kind in ("heading", "term", "entity"):
        keys = [k for k, d in cand[kind].items() if len(d) >= min_docs]
        keys.sort(key=lambda k: (-len(cand[kind][k]), k))
        ranked[kind] = keys
    # salient phrases: in >= min_docs documents, not in most, recurring inside the documents that have them
    max_df = max(min_docs, n // 2)
    phrase_keys = []
    for g, d in ngram_df.items():
        if d < min_docs or d > max_df or ngram_maxtf[g] < 2:
            continue
        if " " not in g and not _HANGUL.search(g):
            continue                      # a lone English word: headings and terms already carry those
        score = ngram_burst[g] * math.log(1 + n / d) * (1.0 + 0.5 * (g.count(" ")))
        phrase_keys.append((-score, g))
    phrase_keys.sort()
    total_chars = sum(len(texts[d]) for d in doc_ids)
    limit = max_topics if max_topics is not None else max(12, min(320, 2 * n + 20, total_chars // 6000))
    phrase_pick: list[str] = []
    gram_key: dict[str, str] = {}
    taken_keys = set(ranked["heading"]) | set(ranked["term"]) | set(ranked["entity"])
    for _, g in phrase_keys:
        if len(phrase_pick) >= limit:
            break
        key = norm_key(g)
        if not key or key in taken_keys:
            if key and key in phrase_pick:
                gram_key[g] = key
            continue
        if any((key in p or p in key) for p in phrase_pick[-200:]):
            continue
        phrase_pick.append(key)
        gram_key[g] = key
        taken_keys.add(key)
    phrase_set = set(phrase_pick)
    # phrase spans: the sentence around the phrase's first occurrence in each document that has it
    if phrase_pick:
        regexes = {k: _phrase_regex(k) for k in phrase_pick}
        for doc_id in doc_ids:
            text = texts[doc_id]
            keys = sorted({gram_key[g] for g in _ngrams(text) if g in gram_key})
            for k in keys:
                m = regexes[k].search(text)
                if m:
                    s, e = sentence_span(text, m.start(), m.end(), PHRASE_CAP)
                    cand["phrase"][k][doc_id] = (s, e, 0)
                    surfaces[k][m.group(0)] += 1
    ranked["phrase"] = [k for k in phrase_pick if len(cand["phrase"][k]) >= min_docs and k in phrase_set]

    # a script used by a minority of the documents (Korean in a mostly English corpus) keeps a share
    # of every kind's list, so the budget of topics is not spent on the majority script alone
    hangul_docs = sum(1 for d in doc_ids if len(_HANGUL.findall(texts[d][:5000])) >= 20)
    if 0 < hangul_docs < n:
        share = min(hangul_docs, n - hangul_docs) / n
        minority_is_hangul = hangul_docs <= n - hangul_docs
        step = max(2, int(1 / (2 * share)))
        for kind in ranked:
            ranked[kind] = _interleave(ranked[kind], step, minority_is_hangul)
    # pick topics round-robin across kinds, so no kind crowds out the others
    order: list[tuple[str, str]] = []
    iters = {k: iter(v) for k, v in ranked.items()}
    weights = {"heading": 3, "term": 2, "entity": 1, "phrase": 2}
    while iters and len(order) < limit:
        for kind in ("heading", "term", "entity", "phrase"):
            it = iters.get(kind)
            if it is None:
                continue
            for _ in range(weights[kind]):
                key = next(it, None)
                if key is None:
                    iters.pop(kind)
                    break
                if key not in topics:
                    topics[key] = Topic(key=key, kind=kind, title="")
                    order.append((kind, key))
            if len(order) >= limit:
                break
    for kind, key in order:
        t = topics[key]
        # per document, the best evidence: a heading's section, else a definition, else a sentence
        for k2 in ("heading", "term", "entity", "phrase"):
            for doc_id, (s, e, _lvl) in cand[k2].get(key, {}).items():
                if doc_id in t.spans:
                    continue
                if k2 == "entity":
                    s, e = sentence_span(texts[doc_id], s, e, PHRASE_CAP)
                if e > s:
                    t.spans[doc_id] = (s, e)
                    t.via[doc_id] = k2
        forms = [f for f, _ in sorted(surfaces[key].items(), key=lambda kv: (-kv[1], kv[0]))]
        t.title = _display(forms[0]) if forms else key
        t.title = t.title[:1].upper() + t.title[1:]
        t.aliases = list(dict.fromkeys(_display(f) for f in forms[1:6] if _display(f) != t.title))
        t.score = float(len(t.spans))
    final = [topics[k] for _, k in order if len(topics[k].spans) >= min_docs]
    return Catalog(topics=final, outlines=outlines, collections=_collections(
        {d: outlines[d].title for d in doc_ids}, n))


def _interleave(keys: list[str], step: int, minority_is_hangul: bool) -> list[str]:
    """Keys in rank order, with a minority-script key at least every `step` places while there are any."""
    minor = [k for k in keys if bool(_HANGUL.search(k)) == minority_is_hangul]
    major = [k for k in keys if bool(_HANGUL.search(k)) != minority_is_hangul]
    out: list[str] = []
    while minor or major:
        out.extend(major[: step - 1])
        major = major[step - 1:]
        if minor:
            out.append(minor.pop(0))
    return out


def _title_from_text(text: str) -> str:
    for m in _LINE.finditer(text[:3000]):
        line = m.group(0).strip().lstrip("#").strip()
        if len(line) >= 3:
            return line[:100]
    return ""


def related(topic: Topic, others: Iterable[Topic], k: int = 5) -> list[Topic]:
    """The topics whose documents overlap most with this one's (Jaccard), best first."""
    mine = set(topic.spans)
    scored = []
    for o in others:
        if o.key == topic.key:
            continue
        inter = len(mine & set(o.spans))
        if inter == 0:
            continue
        scored.append((-(inter / len(mine | set(o.spans))), o.key, o))
    scored.sort(key=lambda x: (x[0], x[1]))
    return [o for _, _, o in scored[:k]]
