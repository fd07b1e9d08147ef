"""Topics by meaning: one topic per subject whatever its wording.

Topic discovery (`wikigen.agents.topics`) finds candidate topics by their words: headings, defined
terms, names and recurring phrases. Here the candidates are compared by what they are about:

* **context vectors** - a candidate's quotes (the section under a heading, the sentence around a
  phrase or a name), one per document, as tf-idf vectors of their words with the candidate's own
  words left out; idf from the corpus's document frequencies. Two wordings of one subject ("Governing
  Law", "Applicable law and disputes") are quoted around the same words ("governed", "laws",
  "courts") though their titles differ.
  (Boilerplate is dropped before this, in `wikigen.agents.topics`, by how a phrase is used: never as
  a heading or defined term, and spread through its documents like a function word. Context
  coherence - the mean cosine between a candidate's per-document contexts over the corpus's chance
  level - was measured for it and did not separate formulaic boilerplate ("days prior", "forth in
  Section") from a subject ("governing law"), as boilerplate recurs in alike sentences.
  Coherence does rank the topics that remain (`coherence`): among headings, a subject is quoted alike
  in every document and a structural heading, "Purpose" or "Scope", heads different things.)
* **title similarity** - by a sentence encoder when one is given (the cosine of the titles'
  embeddings, `wikigen.search.dense`), else corpus-only: the overlap of the keys' content words.

**Merging**: candidates in order of support (most documents first); each joins the earlier cluster
with the most similar member when `title_weight * title + (1 - title_weight) * context >= merge_threshold` and
the two are not distinct sections of the same documents (both headings, disjoint spans, in a good
part of the smaller one's documents); else it heads a cluster of its own. A heading found in one
document only may join a cluster (a variant wording) but heads none. Same input, same output.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from wikigen.agents.catalog import Topic
from wikigen.agents.params import DiscoveryParams
from wikigen.agents.words import STOPWORDS, display, fold

log = logging.getLogger(__name__)

__all__ = ["Space", "TitleSimilarity", "coherence", "encoder_titles", "merge_topics", "word_titles"]

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[^\W\d_]+")
KIND_RANK = {"heading": 0, "term": 1, "entity": 2, "phrase": 3}

Vec = dict[str, float]
TitleSimilarity = Callable[[list[Topic], list[tuple[int, int]]], dict[tuple[int, int], float]]


def content_words(text: str) -> list[str]:
    """Content words of a text as topic discovery counts them (`evidence.ngrams`): lower case, folded
    unless ASCII, no function word, no number, ASCII words of three letters or more."""
    out = []
    for t in _TOKEN.findall(text.lower()):
        if t in STOPWORDS or (t.isascii() and len(t) < 3):
            continue
        out.append(t if t.isascii() else fold(t))
    return out


def _unit(v: Counter | Vec, keep: int) -> Vec:
    top = sorted(v.items(), key=lambda kv: (-kv[1], kv[0]))[:keep]
    norm = math.sqrt(sum(w * w for _, w in top)) or 1.0
    return {t: w / norm for t, w in top}


def _cos(a: Vec, b: Vec) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(w * b.get(t, 0.0) for t, w in a.items())


@dataclass
class Space:
    """Context vectors of candidate topics over one corpus."""

    texts: Mapping[str, str]
    df: Mapping[str, int]  # word -> documents having it (evidence.ngrams' unigrams)
    n_docs: int
    params: DiscoveryParams
    contexts: list[list[Vec]] = field(default_factory=list)  # per candidate, per sampled document
    vectors: list[Vec] = field(default_factory=list)  # per candidate, the sum of its contexts

    def idf(self, word: str) -> float:
        return math.log((self.n_docs + 1) / (self.df.get(word, 0) + 1)) + 0.1

    def context(self, text: str, own: set[str]) -> Vec:
        # a word of one document only (a name, a place) cannot show what documents share
        counts = Counter(w for w in content_words(text) if fold(w) not in own and self.df.get(w, 0) >= 2)
        return _unit({w: (1 + math.log(c)) * self.idf(w) for w, c in counts.items()}, self.params.context_terms)

    def add(self, t: Topic) -> None:
        own = {fold(w) for w in t.key.split()}
        docs = sorted(t.spans)
        k = self.params.max_contexts
        if len(docs) > k:  # an even spread over the documents, not the first few
            docs = [docs[int(i * len(docs) / k)] for i in range(k)]
        ctx = [
            self.context(
                self.texts[d][t.spans[d][0] : min(t.spans[d][1], t.spans[d][0] + self.params.context_chars)], own
            )
            for d in docs
        ]
        self.contexts.append(ctx)
        # what the contexts share: a word's weight is its idf times the share of the contexts having it,
        # so a name or a place quoted in one document weighs little against "governed" quoted in all
        share: Counter = Counter(w for c in ctx for w in c)
        self.vectors.append(
            _unit({w: n / len(ctx) * self.idf(w) for w, n in share.items()}, self.params.context_terms) if ctx else {}
        )

    def neighbours(self, keys: Sequence[str]) -> list[tuple[int, int]]:
        """Candidate pairs (i < j) worth comparing: sharing one of their strongest context words or a
        key word (an inverted index, so no all-pairs loop)."""
        post: dict[str, list[int]] = defaultdict(list)
        for i, v in enumerate(self.vectors):
            top = sorted(v.items(), key=lambda kv: (-kv[1], kv[0]))[: self.params.pair_terms]
            for w in {t for t, _ in top} | {"\0" + fold(x) for x in keys[i].split() if x not in STOPWORDS}:
                post[w].append(i)
        pairs: set[tuple[int, int]] = set()
        for ids in post.values():
            if len(ids) > self.params.max_posting:
                continue  # a word most candidates share says nothing about any two
            for a in range(len(ids)):
                for b in range(a + 1, len(ids)):
                    pairs.add((ids[a], ids[b]))
        return sorted(pairs)


def word_titles(topics: list[Topic], pairs: list[tuple[int, int]]) -> dict[tuple[int, int], float]:
    """Corpus-only title similarity: Jaccard overlap of the keys' content words."""
    words = [{fold(w) for w in t.key.split() if w not in STOPWORDS} for t in topics]
    out = {}
    for i, j in pairs:
        a, b = words[i], words[j]
        out[(i, j)] = len(a & b) / len(a | b) if a and b else 0.0
    return out


def encoder_titles(encoder) -> TitleSimilarity:
    """Title similarity by a sentence encoder (`wikigen.search.dense.encoder.Encoder`): the cosine of
    the titles' embeddings, each title embedded once, only for the titles of the pairs asked."""

    def sims(topics: list[Topic], pairs: list[tuple[int, int]]) -> dict[tuple[int, int], float]:
        need = sorted({i for p in pairs for i in p})
        titles = sorted({topics[i].title for i in need})
        vecs = dict(zip(titles, encoder.encode(titles))) if titles else {}
        return {(i, j): float(vecs[topics[i].title] @ vecs[topics[j].title]) for i, j in pairs}

    return sims


def _conflict(a: Topic, b: Topic) -> bool:
    """Distinct sections of the same documents: in a good part of the smaller one's documents both are
    headings there, neither inside the other's section."""
    shared = [d for d in a.spans if d in b.spans and a.via.get(d) == "heading" and b.via.get(d) == "heading"]
    apart = 0
    for d in shared:
        (s1, e1), (s2, e2) = a.spans[d], b.spans[d]
        if not (s1 <= s2 < e1 or s2 <= s1 < e2):
            apart += 1
    return apart > 0.25 * min(len(a.spans), len(b.spans))


def _surfaces(members: list[Topic], surfaces: Mapping[str, Counter]) -> list[str]:
    """The members' display forms, the most written first (ties: more documents, shorter, then A-Z);
    forms differing only in case count as one, written the way most often seen."""
    by_fold: dict[str, Counter] = defaultdict(Counter)
    for m in members:
        forms = surfaces.get(m.key) or Counter({m.title: 1})
        for f, c in forms.items():
            d = display(f)
            if d:
                d = d[:1].upper() + d[1:]
                by_fold[d.casefold()][d] += c
    ranked = sorted(by_fold.values(), key=lambda c: (-sum(c.values()), len(next(iter(c))), sorted(c)[0]))
    return [sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[0][0] for c in ranked]


def _combine(members: list[Topic], surfaces: Mapping[str, Counter]) -> Topic:
    head = members[0]
    forms = _surfaces(members, surfaces)
    t = Topic(
        key=head.key,
        kind=head.kind,
        title=forms[0] if forms else head.title,
        aliases=forms[1:11],
        variants=[m.key for m in members[1:]],
    )
    for m in sorted(members, key=lambda m: min((KIND_RANK[v] for v in m.via.values()), default=9)):
        for d, sp in m.spans.items():
            if d not in t.spans:
                t.spans[d], t.via[d] = sp, m.via.get(d, m.kind)
    t.score = float(len(t.spans))
    return t


def _greedy(topics, heads_ok, sims, params) -> list[list[int]]:
    """Clusters of candidate indices: each candidate (in order) joins the earlier cluster it is most
    similar to (its best match among the cluster's members, so "Applicable law" finds "Governing Law"
    through "Law"), unless it conflicts with the cluster's head; else it heads a new cluster."""
    near: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for (i, j), s in sims.items():
        near[j].append((i, s))
    cluster_of: dict[int, int] = {}
    clusters: dict[int, list[int]] = {}
    for j in range(len(topics)):
        best: dict[int, float] = {}
        for i, s in near.get(j, []):
            h = cluster_of.get(i)
            if h is not None and s >= params.merge_threshold and s > best.get(h, -1.0):
                best[h] = s
        h = _closest_cluster(topics, j, best)
        if h is not None:
            clusters[h].append(j)
            cluster_of[j] = h
        elif heads_ok[j]:
            clusters[j] = [j]
            cluster_of[j] = j
    _late_variants(topics, heads_ok, sims, params, clusters, cluster_of)
    return [clusters[h] for h in sorted(clusters)]


def _closest_cluster(topics, j: int, best: dict[int, float]) -> int | None:
    """The most similar cluster head (ties: the earlier) whose subject does not conflict with topic j."""
    ranked = sorted(best.items(), key=lambda hs: (-hs[1], hs[0]))
    return next((h for h, _ in ranked if not _conflict(topics[h], topics[j])), None)


def _content(key: str) -> set[str]:
    return {fold(w) for w in key.split() if w not in STOPWORDS}


def _late_variants(topics, heads_ok, sims, params, clusters: dict[int, list[int]], cluster_of: dict[int, int]) -> None:
    """A variant (a one-document heading, which heads no cluster) left alone because the wording it is
    closest to was placed after it ("Applicable law and disputes" before "Governing law and disputes")
    joins that wording's cluster now, when it shares a content word with the cluster's head (a chain of
    variants alone does not carry a subject); until no variant moves."""
    both: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for (i, j), s in sims.items():
        if s >= params.merge_threshold:
            both[i].append((j, s))
            both[j].append((i, s))
    moved = True
    while moved:
        moved = False
        for j in range(len(topics)):
            if j in cluster_of or heads_ok[j]:
                continue
            best: dict[int, float] = {}
            own = _content(topics[j].key)
            for i, s in both.get(j, []):
                h = cluster_of.get(i)
                if h is not None and s > best.get(h, -1.0) and own & _content(topics[h].key):
                    best[h] = s
            h = _closest_cluster(topics, j, best)
            if h is not None:
                clusters[h].append(j)
                cluster_of[j] = h
                moved = True


def coherence(
    topics: Sequence[Topic], texts: Mapping[str, str], df: Mapping[str, int], params: DiscoveryParams
) -> list[float]:
    """How alike each topic's quotes are: the mean cosine of each document's context vector to the sum
    of the other documents' (leave one out). A subject is quoted around the same words in every
    document ("Insurance": insurance, policy, cover); a structural heading ("Purpose", "Scope",
    "Background") heads something different in each. Used to rank topics, not to drop them."""
    space = Space(texts, df, len(texts), params)
    out = []
    for t in topics:
        space.add(t)
        contexts = space.contexts[-1]
        total: Counter = Counter()
        for c in contexts:
            total.update(c)
        squared = sum(v * v for v in total.values())
        sims = []
        for c in contexts:
            own = sum(w * w for w in c.values())
            dot = sum(w * total[term] for term, w in c.items())
            rest = squared - 2 * dot + own  # |others|^2
            sims.append((dot - own) / math.sqrt(rest) if rest > 1e-12 and own else 0.0)
        out.append(sum(sims) / len(sims) if sims else 0.0)
    return out


def merge_topics(
    candidates: list[Topic],
    variants: list[Topic],
    texts: Mapping[str, str],
    df: Mapping[str, int],
    surfaces,
    params: DiscoveryParams,
    title_sim: TitleSimilarity = word_titles,
    report: dict | None = None,
) -> list[Topic]:
    """The candidates (best first; the variants after them may join a candidate but head none) with
    variants merged, in the order of their heads. `report`, when given, gets the merges and the
    similarities of the pairs compared, for benchmarks and logs."""
    n_heads = len(candidates)
    candidates = candidates + variants
    space = Space(texts, df, len(texts), params)
    for t in candidates:
        space.add(t)
    kept = candidates
    ctx = {p: _cos(space.vectors[p[0]], space.vectors[p[1]]) for p in space.neighbours([t.key for t in kept])}
    pairs = sorted(ctx)  # every pair of neighbours: their titles are compared too
    titles = title_sim(kept, pairs)
    w = params.title_weight
    sims = {p: w * titles[p] + (1 - w) * ctx[p] for p in pairs}
    clusters = _greedy(kept, [i < n_heads for i in range(len(kept))], sims, params)
    merged = [_combine([kept[i] for i in c], surfaces) for c in clusters]
    if report is not None:
        report.update(
            pairs=len(pairs),
            merges={merged[n].key: [kept[i].key for i in c[1:]] for n, c in enumerate(clusters) if len(c) > 1},
            sims={(kept[i].key, kept[j].key): (round(ctx[(i, j)], 4), round(titles[(i, j)], 4)) for (i, j) in pairs},
        )
    log.info("topics by meaning: %d candidates, %d topics after merging", len(candidates), len(merged))
    return merged
