"""The offline agent's arithmetic: which quotes go on which topic page, and how long, within a size budget.

`quote_plan` grants each (topic, document) pair a quote cap from each document's quote budget;
`estimate_chars` predicts the wiki's size under a plan; `plan_budget` finds the largest plan whose
wiki is expected within the target ratio of the corpus (counted like the size guard: the larger of
characters and tokens). Under pressure, in this order: topic pages link at most `max_listed` of the
documents they do not quote and count the rest (those documents' pages link the topic), the
collections least worth a page go (a kind of two or three documents, or one inside another
collection; their members then link each other), every document's quote budget shrinks, then the
least supported topics go. All knobs are in `OfflineParams`; same catalog and knobs, same plan.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from wikigen.agents.catalog import Catalog, Topic
from wikigen.agents.params import OfflineParams

from wikigen.core.slugs import doc_slug

_VIA_RANK = {"heading": 0, "term": 1, "entity": 2, "phrase": 3}

Plan = dict[tuple[str, str], int]  # (topic key, doc id) -> the quote's length cap


@dataclass
class Budget:
    """How the offline agent fits the wiki into target_ratio x the corpus's characters."""

    target: int  # characters the wiki may take
    estimate: int  # characters it is expected to take under this budget
    scale: float = 1.0  # of the quote budgets (topic_fraction, doc_fraction)
    dropped_kinds: frozenset[str] = frozenset()
    dropped_topics: frozenset[str] = frozenset()
    max_listed: int | None = None  # of the documents a topic page does not quote, it links this many (None: all)


def _ranked_docs(t: Topic, max_docs: int) -> list[str]:
    """A topic's documents found by its wording, best evidence first (a heading's section, a definition, a
    sentence), spread evenly (by a hash) within one kind of evidence; at most max_docs."""
    return sorted(
        t.spans,
        key=lambda d: (_VIA_RANK.get(t.via.get(d, "phrase"), 3), hashlib.sha1(f"{t.key}\0{d}".encode()).hexdigest()),
    )[:max_docs]


def _grant(topics: list[Topic], ranked: dict[str, list[str]], slots: dict[str, int]) -> dict[str, list[str]]:
    """doc -> the topic keys it is quoted on, in grant order, while its slots last."""
    granted: dict[str, list[str]] = {}
    # pass 1: every topic its two best-placed documents with slots left (more topics before longer lists)
    for t in topics:
        cands = sorted((d for d in ranked[t.key] if slots[d] > 0), key=lambda d: (-slots[d], ranked[t.key].index(d)))
        if len(cands) < 2:
            continue
        for d in cands[:2]:
            slots[d] -= 1
            granted.setdefault(d, []).append(t.key)
    # pass 2: the rest of each topic's documents, best-supported topics first, while slots last
    for t in topics:
        for d in ranked[t.key]:
            if slots[d] > 0 and t.key not in granted.get(d, []):
                slots[d] -= 1
                granted.setdefault(d, []).append(t.key)
    return granted


def quote_plan(
    cat: Catalog, params: OfflineParams = OfflineParams(), scale: float = 1.0, skip: frozenset[str] = frozenset()
) -> Plan:
    """(topic key, doc id) -> the quote's length cap, for the pairs that get a quote at all.

    A topic quotes at most max_docs_per_topic documents (the best evidence first: a heading's section,
    then a definition, then a sentence; spread evenly otherwise). A document spends at most
    topic_fraction of its size on quotes across topic pages: many topics with short quotes rather than
    few long ones, the topics earlier in the catalog (better supported) first. `scale` (<= 1, from the
    size budget) shrinks every document's share, down to one slot (every document is quoted somewhere);
    topics in `skip` get no quote.
    """
    topics = [t for t in cat.topics if t.key not in skip]
    ranked = {t.key: _ranked_docs(t, params.max_docs_per_topic) for t in topics}
    slots: dict[str, int] = {}
    budget: dict[str, float] = {}
    overhead: dict[str, int] = {}
    for d in {d for docs in ranked.values() for d in docs}:
        outline = cat.outlines.get(d)
        chars = outline.chars if outline and outline.chars else 4000
        # what citing the document costs on a topic page: its heading link, the quote header and
        # its entry in `sources` each spell the doc id or its slug
        overhead[d] = 60 + 3 * len(doc_slug(d))
        unit = params.min_quote + overhead[d]
        budget[d] = max(unit, params.topic_fraction * scale * chars)
        slots[d] = int(budget[d] // unit)
    granted = _grant(topics, ranked, slots)
    plan: Plan = {}
    kinds = {t.key: t.kind for t in cat.topics}
    for d, keys in granted.items():
        each = budget[d] / len(keys) - overhead[d]
        for key in keys:
            plan[(key, d)] = int(min(params.kind_cap.get(kinds[key], 450), max(params.min_quote, each)))
    return plan


def weak_collections(cat: Catalog) -> list[str]:
    """Collections least worth a page, least first: a kind (not a folder) of two or three documents, or one
    whose members all belong to one other, larger collection (they reach each other through it)."""
    weak = []
    for c in cat.collections:
        if c.folder:
            continue
        members = set(c.members)
        inside = any(
            o is not c and len(o.members) > len(c.members) and members <= set(o.members) for o in cat.collections
        )
        if len(c.members) <= 3 or inside:
            weak.append(c)
    return [c.key for c in sorted(weak, key=lambda c: (len(c.members), c.key))]


def document_budget(params: OfflineParams, scale: float, chars: int) -> float:
    """Characters a document page may quote of its document (chars: its size, 0 when unknown)."""
    return params.doc_fraction * scale * (chars or 4000)


def opening_cap(params: OfflineParams, scale: float, budget: float) -> float:
    """A document page's opening quote cap under its document budget."""
    return min(params.max_opening, max(params.min_opening * max(scale, 0.75), budget / 2))


FACTS_SHARE = 1.5  # x the opening quote's cap: what a document page may spend on its key facts


def facts_budget(params: OfflineParams, scale: float, budget: float) -> float:
    """Characters a document page may spend on its key facts' quotes: the opening quote they replace and
    up to half as much again, which the page's key passages give up (so the page's size is what it was;
    a page without key passages has nothing to give)."""
    cap = opening_cap(params, scale, budget)
    passages = key_passage_count(params, budget) * params.key_passage_chars
    return cap + min((FACTS_SHARE - 1.0) * cap, passages / 2)


def passages_budget(params: OfflineParams, scale: float, budget: float, facts_spent: float) -> float:
    """The document budget left to key passages once the key facts took `facts_spent` characters."""
    extra = max(0.0, facts_spent - opening_cap(params, scale, budget))
    return max(0.0, budget - 2 * extra)


def key_passage_count(params: OfflineParams, budget: float) -> int:
    return min(params.max_key_passages, int((budget / 2) // params.key_passage_chars))


def _topic_pages_chars(
    cat: Catalog, plan: Plan, params: OfflineParams, max_listed: int | None = None
) -> tuple[int, dict[str, int]]:
    """Characters of the topic pages, and per document the characters of its links to them."""
    total = 0
    topic_links: dict[str, int] = {}
    by_topic: dict[str, list[tuple[str, int]]] = {}
    for (key, d), cap in plan.items():
        by_topic.setdefault(key, []).append((d, cap))
    for t in cat.topics:
        quoted = by_topic.get(t.key, [])
        if len(quoted) < 2:
            continue
        total += params.page_cost + 2 * len(t.slug) + 2 * len(t.title) + 50 + 3 * (len(t.slug) + 6)
        total += sum(len(a) + 4 for a in t.aliases)
        for d, cap in quoted:
            total += int(cap * params.quote_fill) + params.quote_cost + 2 * len(d) + len(doc_slug(d)) + 10
            topic_links[d] = topic_links.get(d, 0) + len(t.slug) + 6
        rest = t.doc_ids[len(quoted) :]
        for d in rest:  # the documents it does not quote link it; it links them ...
            topic_links[d] = topic_links.get(d, 0) + len(t.slug) + 6
        total += sum(len(doc_slug(d)) + 6 for d in rest[:max_listed])
        total += 30 if max_listed is not None and len(rest) > max_listed else 0  # ... or counts the rest
    return total, topic_links


def _passages_available(cat: Catalog, plan: Plan) -> dict[str, int]:
    """Per document, how many key passages its page could quote at most (page_bodies.key_passages): its topics
    that no topic page quotes it on, and its major headings."""
    out: dict[str, int] = {}
    for t in cat.topics:
        for d in t.spans:
            if (t.key, d) not in plan:
                out[d] = out.get(d, 0) + 1
    for d, o in cat.outlines.items():
        if o.headings:
            top = min(h.level for h in o.headings)
            out[d] = out.get(d, 0) + sum(1 for h in o.headings if h.level == top)
    return out


def _document_pages_chars(
    cat: Catalog, plan: Plan, topic_links: dict[str, int], scale: float, params: OfflineParams
) -> int:
    total = 0
    available = _passages_available(cat, plan)
    for d, o in cat.outlines.items():
        title = (o.title or d)[: params.max_title]
        total += params.page_cost + 2 * len(doc_slug(d)) + 2 * len(title) + len(d) + topic_links.get(d, 0)
        budget = document_budget(params, scale, o.chars)
        if o.opening:  # the key facts or the opening quote (the facts' excess comes out of the key passages)
            cap = min(opening_cap(params, scale, budget), o.opening[1] - o.opening[0])
            total += int(cap * params.quote_fill) + 2 * params.quote_cost  # its quotes do not spell the doc id
        total += 2 * 110  # the description, in the front matter and in index.md
        # key passages: their text fills the share; a passage runs to its sentence's end, past a short cap
        text = min(key_passage_count(params, budget), available.get(d, 0)) * params.key_passage_chars
        count = -(-text // max(params.key_passage_chars, params.sentence_chars))
        total += int(text * params.quote_fill) + count * (params.quote_cost + 30)
        total += 60 if o.dates else 0
    return total


def estimate_chars(
    cat: Catalog,
    plan: Plan,
    scale: float,
    dropped_kinds: frozenset[str],
    params: OfflineParams = OfflineParams(),
    agents: int = 2,
    sessions: int = 2,
    max_listed: int | None = None,
) -> int:
    """The wiki's expected size in characters (pages, index.md, log.md) under a quote plan."""
    total = params.log_cost * agents * sessions + 200
    topic_chars, topic_links = _topic_pages_chars(cat, plan, params, max_listed)
    total += topic_chars
    for c in cat.collections:
        if c.key in dropped_kinds:
            continue
        total += params.page_cost + 2 * len(c.slug) + 2 * len(c.title) + 40 + sum(len(a) + 4 for a in c.aliases)
        for d in c.members:
            total += len(d) + 2 * len(doc_slug(d)) + 12
    return total + _document_pages_chars(cat, plan, topic_links, scale, params)


class _Fitter:
    """plan_budget's steps over one catalog and target."""

    def __init__(self, cat: Catalog, target: int, params: OfflineParams, agents: int, sessions: int):
        self.cat, self.target, self.params = cat, target, params
        self.agents, self.sessions = agents, sessions
        self.kinds: frozenset[str] = frozenset()
        self.max_listed: int | None = None

    def estimate(self, plan: Plan, scale: float) -> int:
        return estimate_chars(
            self.cat, plan, scale, self.kinds, self.params, self.agents, self.sessions, self.max_listed
        )

    def budget(self, e: int, scale: float = 1.0, skip: frozenset[str] = frozenset()) -> Budget:
        return Budget(self.target, e, scale, self.kinds, skip, self.max_listed)

    def shrink(self, lo: float, skip: frozenset[str]) -> tuple[float, Plan, int, bool]:
        """Quotes shrunk in steps of 0.05 until the wiki fits or the scale would go below lo."""
        scale = 1.0
        while True:
            p = quote_plan(self.cat, self.params, scale, skip)
            e = self.estimate(p, scale)
            if e <= self.target or scale - 0.05 < lo - 1e-9:
                return scale, p, e, e <= self.target
            scale = round(scale - 0.05, 2)


def target_chars(params: OfflineParams, corpus_chars: int, corpus_tokens: int = 0) -> int:
    """The characters the wiki may take under params.target_ratio (which must be set)."""
    ratio = float(params.target_ratio or 0.0)
    target = int(ratio * corpus_chars)
    if corpus_tokens:  # the guard takes the larger ratio: wiki markup has fewer characters a token
        target = min(target, int(ratio * corpus_tokens * params.wiki_chars_per_token))
    return target


def plan_budget(
    cat: Catalog,
    corpus_chars: int,
    params: OfflineParams = OfflineParams(),
    *,
    agents: int = 2,
    sessions: int = 2,
    corpus_tokens: int = 0,
    reserve: int = 0,
) -> tuple[Budget, Plan]:
    """The largest quote plan whose wiki is expected within params.target_ratio x corpus_chars. Under
    pressure, in this order: topic pages link at most params.max_listed of the documents they do not quote
    and count the rest (a doc slug can run to 80 characters; those documents' pages link the topic), weak
    collections go (they carry no quote), quotes shrink down to min_scale, then the least supported topics
    go (the catalog's last first, at most its weaker half), then quotes shrink further. `reserve` characters of the target are kept for other pages (figure pages)."""
    if params.target_ratio is None:
        raise ValueError("plan_budget needs a target_ratio (without one, quote_plan alone is the plan)")
    target = max(0, target_chars(params, corpus_chars, corpus_tokens) - reserve)
    fit = _Fitter(cat, target, params, agents, sessions)
    plan = quote_plan(cat, params)
    e = fit.estimate(plan, 1.0)
    if e <= target:
        return fit.budget(e), plan
    fit.max_listed = params.max_listed
    e = fit.estimate(plan, 1.0)
    if e <= target:
        return fit.budget(e), plan
    for key in weak_collections(cat):
        fit.kinds = fit.kinds | {key}
        e = fit.estimate(plan, 1.0)
        if e <= target:
            return fit.budget(e), plan
    scale, plan, e, ok = fit.shrink(params.min_scale, frozenset())
    if ok:
        return fit.budget(e, scale), plan
    skip: frozenset[str] = frozenset()
    for t in reversed(cat.topics[len(cat.topics) // 2 :]):
        skip = skip | {t.key}
        plan = quote_plan(cat, params, params.min_scale, skip)
        e = fit.estimate(plan, params.min_scale)
        if e <= target:
            return fit.budget(e, params.min_scale, skip), plan
    scale, plan, e, _ = fit.shrink(0.1, skip)
    return fit.budget(e, scale, skip), plan
