"""Collections: documents of one kind, from file names, titles and folders (never from body text).

* A *head noun* is a word that ends the file names or titles of many documents ("agreement",
  "policy"): it names no kind by itself; the kind is the word (or the two words that always go
  together) right before it, and before each "and" before it ("manufacturing and supply
  agreement" -> manufacturing, supply). Titles count only through such a head, so a title that
  is really a preamble adds nothing.
* A file name without a head offers each of its words (and sticky word pairs: two words that always go
  together, in two names at least).
* A folder holding several documents (not nearly all of them) is a collection of its own.

A document may belong to several collections. A kind needs >= 2 documents and at most half of
them (half, so two kinds can split a corpus); two collections with the same documents are one.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Mapping

from wikigen.agents.catalog import Collection
from wikigen.agents.params import DiscoveryParams
from wikigen.agents.words import HANGUL, STOPWORDS, norm_key, plural, singular
from wikigen.search.facts.dates import MONTH_NUMBERS

_CONJ = frozenset({"and", "or", "&", "및", "또는"})
_NAME_TOKEN = re.compile(r"[^\W\d_]+|\d+|&")
_MONTH_SET = frozenset(MONTH_NUMBERS)  # month names and their abbreviations

Tokens = list[str | None]


def name_tokens(text: str, surface: dict[str, Counter] | None = None) -> Tokens:
    """A name's or title's words, lower case and singular; None where a number, date, single letter or
    function word breaks the run (so no phrase spans it); conjunctions are kept as "and"."""
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text.replace("…", " "))
    out: Tokens = []
    for raw in _NAME_TOKEN.findall(text):
        w = raw.lower()
        if w in _CONJ:
            out.append("and")
        elif w.isdigit() or w in STOPWORDS or w in _MONTH_SET or len(w) < (1 if HANGUL.search(w) else 2):
            out.append(None)
        else:
            word = singular(unicodedata.normalize("NFKC", w))
            out.append(word)
            if surface is not None:
                surface[word][unicodedata.normalize("NFKC", w)] += 1
    return out


def _last_word(toks: Tokens) -> str | None:
    for t in reversed(toks):
        if t is not None and t != "and":
            return t
    return None


class _Vocabulary:
    """Head nouns and sticky word pairs of a corpus's file names and titles."""

    def __init__(self, token_lists: list[Tokens], n_docs: int, params: DiscoveryParams):
        # heads: the most frequent final words of names and titles (each document's pair of lists counts once)
        final: Counter = Counter()
        for names, titles in zip(token_lists[0::2], token_lists[1::2]):
            final.update({w for w in (_last_word(names), _last_word(titles)) if w and len(w) >= 3})
        min_head = max(2, math.ceil(params.head_share * n_docs))
        self.heads = {w for w, c in final.items() if c >= min_head}
        # word and adjacent-pair document frequencies over names and titles, for sticky pairs
        self.wdf: Counter = Counter()
        self.pdf: Counter = Counter()
        for names, titles in zip(token_lists[0::2], token_lists[1::2]):
            ws: set[str] = set()
            ps: set[str] = set()
            for toks in (names, titles):
                ws |= {t for t in toks if t and t != "and"}
                ps |= {f"{a} {b}" for a, b in itertools.pairwise(toks) if a and b and "and" not in (a, b)}
            self.wdf.update(ws)
            self.pdf.update(ps)

    def sticky(self, a: str | None, b: str) -> bool:
        return (
            bool(a)
            and a != "and"
            and a not in self.heads
            and self.pdf[f"{a} {b}"] >= max(2, min(self.wdf[a], self.wdf[b]))
        )

    def is_head(self, toks: Tokens, i: int) -> bool:
        t = toks[i]
        if t in self.heads:
            return True
        # a name cut short ("...-license-agre"): its last word begins a head
        return i == len(toks) - 1 and t is not None and len(t) >= 3 and any(h.startswith(t) for h in self.heads)

    def head_of(self, t: str) -> str:
        return t if t in self.heads else min(h for h in self.heads if h.startswith(t))

    def anchored(self, toks: Tokens) -> list[tuple[str, str]]:
        """(kind, head) for the words right before each head, and before each "and" before it."""
        got: list[tuple[str, str]] = []
        for i, t in enumerate(toks):
            if t and t != "and" and self.is_head(toks, i):
                got += self._kinds_before(toks, i, self.head_of(t))
        return got

    def _kinds_before(self, toks: Tokens, i: int, head: str) -> list[tuple[str, str]]:
        got: list[tuple[str, str]] = []
        j = i - 1
        while j >= 0 and (w := toks[j]) and w != "and" and not self.is_head(toks, j):
            prev = toks[j - 1] if j > 0 else None
            if prev is not None and self.sticky(prev, w):
                # the pair is the kind; its last word too ("content license" is also a license)
                got += [(f"{prev} {w}", head), (w, head)]
                j -= 2
            else:
                got.append((w, head))
                j -= 1
            if j >= 0 and toks[j] == "and":
                j -= 1  # "x and y <head>": x is a kind too
                continue
            break
        return got

    def loose(self, toks: Tokens) -> list[str]:
        """Each word of a name without a head (sticky pairs as one), heads and short words left out."""
        out = []
        skip = False
        for k, w in enumerate(toks):
            if not w or w == "and" or w in self.heads:
                continue
            if len(w) < 3 and not HANGUL.search(w):
                continue
            nxt = toks[k + 1] if k + 1 < len(toks) else None
            if nxt and nxt != "and" and self.sticky(w, nxt):
                out.append(f"{w} {nxt}")
                skip = True
                continue
            if skip:
                skip = False
                continue
            out.append(w)
        return out


def _kind_collections(
    names: dict[str, Tokens],
    heads_of: dict[str, Tokens],
    surface: dict[str, Counter],
    vocab: _Vocabulary,
    n_docs: int,
    params: DiscoveryParams,
) -> list[Collection]:
    members: dict[str, set[str]] = defaultdict(set)
    head_votes: dict[str, Counter] = defaultdict(Counter)
    for d in sorted(names):
        pairs = vocab.anchored(names[d]) + vocab.anchored(heads_of[d])
        kinds = [(k, h) for k, h in pairs if len(k) >= 3 or HANGUL.search(k)]
        if not any(vocab.is_head(names[d], i) for i in range(len(names[d])) if names[d][i]):
            kinds += [(w, "") for w in vocab.loose(names[d])]
        for k, h in set(kinds):
            members[k].add(d)
            if h:
                head_votes[k][h] += 1  # documents naming the kind before this head
    max_df = max(2, int(params.kind_max_share * n_docs))
    out: list[Collection] = []
    for key in sorted(members):
        docs = sorted(members[key])
        if not (2 <= len(docs) <= max_df) or key in vocab.heads:
            continue
        head, votes = min(head_votes[key].items(), key=lambda kv: (-kv[1], kv[0]), default=("", 0))
        word = " ".join(surface[w].most_common(1)[0][0] if surface[w] else w for w in key.split())
        word = word[:1].upper() + word[1:]
        if head and votes * 2 >= len(docs):
            title = f"{word} {plural(head)}"
            aliases = [key, f"{key} {head}", f"{key} {plural(head)}"]
        else:
            title = f"{word} documents"
            aliases = [key]
        out.append(
            Collection(
                key=key, title=title, members=docs, aliases=[a for a in dict.fromkeys(aliases) if a != title.lower()]
            )
        )
    return out


def _folder_collections(
    doc_ids: list[str], taken: list[Collection], n_docs: int, params: DiscoveryParams
) -> list[Collection]:
    """Folders with several documents, not nearly all of them, unless a kind has the same documents."""
    folders: dict[str, list[str]] = defaultdict(list)
    for d in doc_ids:
        if "/" in d:
            folders[d.rsplit("/", 1)[0]].append(d)
    seen = {tuple(c.members) for c in taken}
    keys = {c.key for c in taken}
    out = []
    for folder, docs in sorted(folders.items()):
        if len(docs) < 2 or len(docs) > params.folder_max_share * n_docs or tuple(docs) in seen:
            continue
        leaf = folder.rsplit("/", 1)[-1]
        words = [t for t in name_tokens(leaf) if t and t != "and"]
        key = " ".join(words) if words else norm_key(leaf) or leaf
        if key in keys:
            key = norm_key(folder.replace("/", " ")) or folder
        if key in keys:
            continue
        label = re.sub(r"[-_]+", " ", leaf).strip() or leaf
        title = label[:1].upper() + label[1:]
        out.append(
            Collection(
                key=key,
                title=title,
                members=docs,
                folder=folder,
                aliases=[a for a in dict.fromkeys([key, label.lower()]) if a != title.lower()],
            )
        )
        seen.add(tuple(docs))
        keys.add(key)
    return out


def collections(
    titles: Mapping[str, str], n_docs: int, params: DiscoveryParams = DiscoveryParams()
) -> list[Collection]:
    """The collections of a corpus given {doc_id: title} (doc ids are file paths), sorted by key."""
    doc_ids = sorted(titles)
    surface: dict[str, Counter] = defaultdict(Counter)
    names = {d: name_tokens(d.rsplit("/", 1)[-1], surface) for d in doc_ids}
    heads_of = {d: name_tokens(titles.get(d) or "", surface) for d in doc_ids}
    vocab = _Vocabulary([toks for d in doc_ids for toks in (names[d], heads_of[d])], n_docs, params)
    out = _kind_collections(names, heads_of, surface, vocab, n_docs, params)
    out += _folder_collections(doc_ids, out, n_docs, params)
    # two collections with the same documents are one: a word pair before a word, a kind before a folder
    uniq: list[Collection] = []
    have: set[tuple[str, ...]] = set()
    for c in sorted(out, key=lambda c: (bool(c.folder), -len(c.key.split()), c.key)):
        if tuple(c.members) in have:
            continue
        have.add(tuple(c.members))
        uniq.append(c)
    return sorted(uniq, key=lambda c: c.key)
