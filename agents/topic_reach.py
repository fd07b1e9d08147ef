"""A topic's reach: the documents that hold its subject in other words than the topic's own.

Discovery finds a topic's documents by its wording: a heading, a defined term, a phrase. A document
that states the same subject under another heading, or under none ("Such books and records shall be
open for inspection ..." inside a "Payments" section, for "Audit Rights"), is not among them. Here each
topic's context vector (`wikigen.agents.meaning.Space`: the words its quotes share, weighed by idf)
scores every sentence of the corpus through an inverted index of sentence words; a document outside
the topic joins it when its best sentence scores at least as high as the members' own best sentences
do at the `reach_quantile` (the lower quartile: a document must hold the subject as plainly as most
members). Its span is that sentence (`sentence_span`, so a heading-like one takes the sentence after
it), its evidence kind REACH: it is quoted on its document's page, under a heading that links the topic,
not on the topic page (`wikigen.agents.budget._ranked_docs`).

`bench/topic_reach_bench.py` measures how often the added spans cover an expert-labelled clause, against
the spans found by wording and sentences of the same document drawn at random.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np
from wikigen.agents.catalog import REACH, Topic
from wikigen.agents.meaning import Space, content_words
from wikigen.agents.params import DiscoveryParams

from wikigen.core.sentences import SENTENCE, sentence_span, sentences


class SentenceIndex:
    """Every sentence of the corpus (doc id, start, end), and for each content word the sentences holding it."""

    def __init__(self, texts: Mapping[str, str]):
        self.spans: list[tuple[str, int, int]] = []
        postings: dict[str, list[int]] = defaultdict(list)
        self.docs: list[tuple[str, int, int]] = []  # each document's sentences: spans[a:b]
        for d in sorted(texts):
            text = texts[d]
            a = len(self.spans)
            for s, e in sentences(text, SENTENCE):
                i = len(self.spans)
                self.spans.append((d, s, e))
                for w in set(content_words(text[s:e])):
                    postings[w].append(i)
            if len(self.spans) > a:
                self.docs.append((d, a, len(self.spans)))
        self.postings = {w: np.array(p, dtype=np.int64) for w, p in postings.items()}

    def best_per_doc(self, vector: Mapping[str, float]) -> dict[str, tuple[float, int]]:
        """doc id -> (score, sentence) of its sentence holding the most of the vector's weight (the first
        such sentence; a document none of whose sentences scores above 0 is left out)."""
        score = np.zeros(len(self.spans))
        for w, x in vector.items():  # a word's sentences are distinct, so the sums add in the vector's order
            p = self.postings.get(w)
            if p is not None:
                score[p] += x
        if not self.docs:
            return {}
        tops = np.maximum.reduceat(score, [a for _, a, _ in self.docs])
        best: dict[str, tuple[float, int]] = {}
        for (d, a, b), top in zip(self.docs, tops):
            if top > 0:
                i = a + int(np.argmax(score[a:b]))
                best[d] = (float(score[i]), i)
        return best


def reach(topics: Sequence[Topic], texts: Mapping[str, str], df: Mapping[str, int], params: DiscoveryParams) -> int:
    """Add to each topic of at least reach_min_docs documents the documents that hold its subject in other
    words (see the module docstring); returns the number of (topic, document) pairs added."""
    if params.reach_quantile is None or not topics:
        return 0
    index = SentenceIndex(texts)
    space = Space(texts, df, len(texts), params)
    added = 0
    for t in topics:
        space.add(t)
        vector = space.vectors[-1]
        if len(t.spans) < params.reach_min_docs or not vector:
            continue
        best = index.best_per_doc(vector)
        own = sorted(best.get(d, (0.0, -1))[0] for d in t.spans)
        floor = own[int(len(own) * params.reach_quantile)]
        if floor <= 0:
            continue
        for d, (score, i) in sorted(best.items()):
            if d in t.spans or score < floor:
                continue
            _, s, e = index.spans[i]
            t.spans[d] = sentence_span(texts[d], s, e, params.phrase_cap)
            t.via[d] = REACH
            added += 1
    return added
