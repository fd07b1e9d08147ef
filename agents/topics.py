"""Topic discovery from the corpus itself: no built-in vocabulary, clause list or domain rule.

`discover(texts, titles)` reads every document once and finds what recurs across documents:

* **headings** - short heading-like lines and numbered headings inline in flattened text
  (`wikigen.agents.headings`); numbering, case and punctuation are normalised;
* **defined terms** - a quoted term in a definition (`wikigen.agents.evidence`);
* **named entities** - capitalised multi-word names;
* **salient phrases** - 1-3 word n-grams (stopwords excluded) in several documents but not in most,
  that recur within the documents that have them.

Only what occurs in at least `min_docs` documents becomes a topic. Each topic keeps, per document,
one quote span: an exact `(start, end)` of the document text, as long as it must be to carry its
fact (the section under a heading, the defining sentence of a term, the sentence around a phrase),
cut at a sentence end and capped, never with leading or trailing whitespace. Collections (documents
of one kind) come from file names, titles and folders (`wikigen.agents.doc_collections`).

The only word lists are function words and month names (`wikigen.agents.words`); the knobs are in
`DiscoveryParams`. Everything else comes from the documents. Same input, same output.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping

from wikigen.agents.catalog import Catalog, Collection, Heading, Outline, Topic
from wikigen.agents.discovery_cache import DocEvidence, ShardCache, evidence_from_data, evidence_to_data
from wikigen.agents.doc_collections import collections
from wikigen.agents.evidence import dates, defined_terms, names, ngrams, phrase_regex
from wikigen.agents.headings import find_headings
from wikigen.agents.meaning import coherence, encoder_titles, merge_topics, word_titles
from wikigen.agents.params import DiscoveryParams
from wikigen.agents.words import HANGUL, STOPWORDS, display, norm_key, plural
from wikigen.search.facts.title import document_title

from wikigen.core.engine import Engine, Parallel, engine_for
from wikigen.core.sentences import cap_span, sentence_span
from wikigen.core.slugs import unique_slugs
from wikigen.core.text import trim_span

__all__ = ["Catalog", "Collection", "DiscoveryParams", "Heading", "Outline", "Topic", "discover", "norm_key", "related"]

KINDS = ("heading", "term", "entity", "phrase")  # the kinds of evidence, best first


class _Evidence:
    """Per kind, key and document the candidate span `(start, end, level)`, the surface forms of each key,
    and the n-gram statistics of the corpus."""

    def __init__(self) -> None:
        self.cand: dict[str, dict[str, dict]] = {k: defaultdict(dict) for k in KINDS}
        self.surfaces: dict[str, Counter] = defaultdict(Counter)
        self.ngram_df: Counter = Counter()
        self.ngram_burst: dict[str, float] = defaultdict(float)
        self.ngram_maxtf: Counter = Counter()

    def add_headings(self, doc_id: str, heads: list[Heading]) -> None:
        for h in heads:
            got = self.cand["heading"][h.key]
            if doc_id not in got or h.level < got[doc_id][2]:
                got[doc_id] = (h.span[0], h.span[1], h.level)
            self.surfaces[h.key][h.label] += 1

    def ranked(self, kind: str, min_docs: int) -> list[str]:
        """The keys of one kind in at least min_docs documents, the most documents first."""
        keys = [k for k, d in self.cand[kind].items() if len(d) >= min_docs]
        keys.sort(key=lambda k: (-len(self.cand[kind][k]), k))
        return keys


def _opening(text: str, params: DiscoveryParams) -> tuple[int, int] | None:
    s, e = trim_span(text, 0, len(text))
    if s >= e:
        return None
    return cap_span(text, s, min(e, s + params.opening_window), params.opening_cap)


def _read_document(item: tuple[str, str, str], params: DiscoveryParams) -> DocEvidence:
    """One document's evidence and outline; item is (doc_id, text, title)."""
    doc_id, text, title = item
    heads = find_headings(text, params.heading_cap)
    found = defined_terms(text)
    terms, seen = [], set()
    for term, s, e in found:
        key = norm_key(term)
        if key and key not in seen:
            seen.add(key)
            span = sentence_span(text, s, e, params.term_cap)
            terms.append((key, term, span[0], span[1]))
    opening = _opening(text, params)
    head_end = opening[1] + 1500 if opening else 2500
    outline = Outline(
        doc_id=doc_id,
        title=document_title(text, title) or doc_id,
        opening=opening,
        chars=len(text),
        headings=heads,
        terms=[t for t, s, _ in found if s < head_end][: params.outline_terms],
        dates=dates(text, 5000, params.outline_dates),
    )
    return DocEvidence(doc_id, heads, terms, names(text), ngrams(text), outline)


def _add_document(ev: _Evidence, d: DocEvidence) -> None:
    ev.add_headings(d.doc_id, d.heads)
    for key, term, s, e in d.terms:
        if d.doc_id not in ev.cand["term"][key]:
            ev.cand["term"][key][d.doc_id] = (s, e, 0)
            ev.surfaces[key][term] += 1
    for key, (surface, s, e) in d.names.items():
        ev.cand["entity"][key][d.doc_id] = (s, e, 0)
        ev.surfaces[key][surface] += 1
    for g, c in d.ngrams.items():
        ev.ngram_df[g] += 1
        ev.ngram_burst[g] += 1.0 + math.log(c)
        if c > ev.ngram_maxtf[g]:
            ev.ngram_maxtf[g] = c


def _pick_phrases(
    ev: _Evidence, taken: set[str], n_docs: int, limit: int, min_docs: int
) -> tuple[list[str], dict[str, str]]:
    """Salient phrase keys (in >= min_docs documents, not in most, recurring inside the documents that
    have them), best first, and the n-gram -> key of each n-gram that stands for a picked key."""
    max_df = max(min_docs, n_docs // 2)
    scored = []
    for g, d in ev.ngram_df.items():
        if d < min_docs or d > max_df or ev.ngram_maxtf[g] < 2:
            continue
        if " " not in g and not HANGUL.search(g):
            continue  # a lone English word: headings and terms already carry those
        score = ev.ngram_burst[g] * math.log(1 + n_docs / d) * (1.0 + 0.5 * (g.count(" ")))
        scored.append((-score, g))
    scored.sort()
    pick: list[str] = []
    gram_key: dict[str, str] = {}
    taken = set(taken)
    for _, g in scored:
        if len(pick) >= limit:
            break
        key = norm_key(g)
        if not key or key in taken:
            if key and key in pick:
                gram_key[g] = key
            continue
        if any((key in p or p in key) for p in pick[-200:]):
            continue
        pick.append(key)
        gram_key[g] = key
        taken.add(key)
    return pick, gram_key


SEGMENTS = 8  # a document is cut into this many equal parts to see where a phrase occurs


def _phrase_hits(
    item: tuple[str, str, str], gram_key: dict[str, str], cap: int
) -> list[tuple[str, int, int, str, int, int]]:
    """(key, start, end, surface, count, parts): the sentence around each picked phrase's first
    occurrence in one document, how often the phrase occurs there, and in how many of the document's
    SEGMENTS equal parts."""
    _doc_id, text, _ = item
    lower = text.lower()
    step = len(text) // SEGMENTS + 1
    count: Counter = Counter()
    parts: Counter = Counter()
    for n in range(SEGMENTS):
        seen = set()
        for g, c in ngrams(text[n * step : (n + 1) * step]).items():
            k = gram_key.get(g)
            if k is not None and g.count(" ") == k.count(" "):
                count[k] += c
                seen.add(k)
        parts.update(seen)
    out = []
    fast = _aligned(text, lower)
    for k in sorted(count):
        first = k.split()[0]
        at = lower.find(first[: max(3, len(first) - 1)]) if first.isascii() else 0  # skip to where it may start
        if fast and first.isascii():
            m = _first_match(text, lower, k, max(0, at - 1))
        else:
            m = phrase_regex(k).search(text, max(0, at - 1))
        if m:
            s, e = sentence_span(text, m.start(), m.end(), cap)
            out.append((k, s, e, m.group(0), count[k], parts[k]))
    return out


_ASCII_FOLD = re.compile("[a-z]", re.IGNORECASE)


def _aligned(text: str, lower: str) -> bool:
    """Whether `lower` has the text's offsets and an ASCII letter matches (ignoring case) only ASCII
    letters in it (no Kelvin sign or long s): then a phrase with an ASCII first word can only start
    where `lower` has one of that word's forms."""
    return len(lower) == len(text) and not any(_ASCII_FOLD.match(c) for c in set(text) if not c.isascii())


def _first_match(text: str, lower: str, key: str, start: int) -> re.Match | None:
    """phrase_regex(key).search(text, start), found faster (the same match): the regex is tried only
    where `lower` has a form of the key's first word (str.find, not the regex's scan letter by letter).
    Only for texts where _aligned holds and an ASCII first word."""
    rx = phrase_regex(key)
    first = key.split()[0]
    forms = {first.lower(), plural(first).lower()}
    at = {f: lower.find(f, start) for f in forms}  # each form's next place, found again only once passed
    while True:
        q = min((p for p in at.values() if p >= 0), default=-1)
        if q < 0:
            return None
        m = rx.match(text, q)
        if m:
            return m
        for f, p in at.items():
            if p == q:
                at[f] = lower.find(f, q + 1)


def _spread(uses: list[tuple[int, int]]) -> float:
    """How evenly a phrase is spread through the documents that use it often (three times or more):
    the parts of a document it occurs in over the parts that as many occurrences at random places
    would fill, averaged. About 1 for a connective used anywhere ("subject to Section", "days prior");
    well below 1 for a subject, whose mentions gather in the section about it. 0 with no such document
    (no evidence either way)."""
    ratios = [parts / (SEGMENTS * (1 - (1 - 1 / SEGMENTS) ** c)) for c, parts in uses if c >= 3]
    return sum(ratios) / len(ratios) if len(ratios) >= 2 else 0.0


def _section_share(spans: Mapping[str, tuple], outlines: Mapping[str, Outline]) -> float:
    """Of the documents where a phrase occurs under a heading, the share where that heading is the one
    most common for it: a subject's phrase sits in the section about it ("hold harmless" under
    Indemnification), a connective under any heading at all ("set forth in Exhibit")."""
    under: Counter = Counter()
    for doc_id, (s, _e, _lvl) in spans.items():
        heads = outlines[doc_id].headings if doc_id in outlines else []
        i = bisect.bisect_right([h.start for h in heads], s) - 1
        if i >= 0:
            under[heads[i].key] += 1
    total = sum(under.values())
    return under.most_common(1)[0][1] / total if total >= 3 else 1.0


def _interleave(keys: list[str], step: int, minority_is_hangul: bool) -> list[str]:
    """Keys in rank order, with a minority-script key at least every `step` places while there are any."""
    minor = [k for k in keys if bool(HANGUL.search(k)) == minority_is_hangul]
    major = [k for k in keys if bool(HANGUL.search(k)) != minority_is_hangul]
    out: list[str] = []
    while minor or major:
        out.extend(major[: step - 1])
        major = major[step - 1 :]
        if minor:
            out.append(minor.pop(0))
    return out


def _balance_scripts(ranked: dict[str, list[str]], texts: Mapping[str, str]) -> None:
    """A script used by a minority of the documents (Korean in a mostly English corpus) keeps a share
    of every kind's list, so the budget of topics is not spent on the majority script alone."""
    n = len(texts)
    hangul_docs = sum(1 for d in texts if len(HANGUL.findall(texts[d][:5000])) >= 20)
    if 0 < hangul_docs < n:
        share = min(hangul_docs, n - hangul_docs) / n
        minority_is_hangul = hangul_docs <= n - hangul_docs
        step = max(2, int(1 / (2 * share)))
        for kind in ranked:
            ranked[kind] = _interleave(ranked[kind], step, minority_is_hangul)


def _round_robin(ranked: dict[str, list[str]], limit: int, weights: Mapping[str, int]) -> list[tuple[str, str]]:
    """(kind, key) picked round-robin across kinds (weights[kind] a round), so no kind crowds out the
    others; a key comes once, under its first kind."""
    order: list[tuple[str, str]] = []
    seen: set[str] = set()
    iters = {k: iter(v) for k, v in ranked.items()}
    while iters and len(order) < limit:
        for kind in KINDS:
            it = iters.get(kind)
            if it is None:
                continue
            for _ in range(weights[kind]):
                key = next(it, None)
                if key is None:
                    iters.pop(kind)
                    break
                if key not in seen:
                    seen.add(key)
                    order.append((kind, key))
            if len(order) >= limit:
                break
    return order


def _make_topic(kind: str, key: str, ev: _Evidence, texts: Mapping[str, str], params: DiscoveryParams) -> Topic:
    t = Topic(key=key, kind=kind, title="")
    # per document, the best evidence: a heading's section, else a definition, else a sentence
    for k2 in KINDS:
        for doc_id, (s, e, _lvl) in ev.cand[k2].get(key, {}).items():
            if doc_id in t.spans:
                continue
            if k2 == "entity":
                s, e = sentence_span(texts[doc_id], s, e, params.phrase_cap)
            if e > s:
                t.spans[doc_id] = (s, e)
                t.via[doc_id] = k2
    forms = [f for f, _ in sorted(ev.surfaces[key].items(), key=lambda kv: (-kv[1], kv[0]))]
    t.title = display(forms[0]) if forms else key
    t.title = t.title[:1].upper() + t.title[1:]
    t.aliases = list(dict.fromkeys(display(f) for f in forms[1:6] if display(f) != t.title))
    t.score = float(len(t.spans))
    return t


def discover(
    texts: Mapping[str, str],
    titles: Mapping[str, str] | None = None,
    *,
    params: DiscoveryParams = DiscoveryParams(),
    workers: Parallel = 1,
    progress: Callable[[int, int], None] | None = None,
    encoder=None,
    report: dict | None = None,
    cache: ShardCache | None = None,
) -> Catalog:
    """Topics, outlines and collections of a corpus, {doc_id: text} (and optional {doc_id: title}).
    workers: processes for the per-document reading (None: one per core) or an engine (`wikigen.core.engine`);
    the catalog is the same.
    progress(done, total), when given, is called as the documents are read (each is read twice: total
    is twice the documents). encoder: a sentence encoder (`wikigen.search.dense.encoder.Encoder`) to
    compare topic titles by meaning; None compares them by their words (`wikigen.agents.meaning`).
    report: filled with what merging did. cache: per-document results persisted as they are computed
    (`wikigen.agents.discovery_cache`), so an interrupted run resumes; the catalog is the same."""
    doc_ids = sorted(texts)
    texts = {d: texts[d] for d in doc_ids}
    titles = dict(titles or {})
    return _discover(
        texts,
        titles,
        params,
        engine_for(workers, sum(len(t) for t in texts.values())),
        progress,
        encoder,
        report,
        cache,
    )


def _passes(workers: Engine, cache: ShardCache | None, progress: Callable[[int, int], None] | None, n: int):
    """A function running one per-document pass (fn over items, in order), through the cache when there
    is one, calling progress as documents finish: the first pass counts 1..n, the second n+1..2n."""

    def run(nth: int, kind: str, fn: Callable, items: list, args: tuple, extra: str, encode, decode) -> Iterator:
        got: Iterator
        if cache is None:
            got = workers.map(fn, items, *args)
        else:
            got = cache.map(kind, extra, items, lambda todo: workers.map(fn, todo, *args), encode, decode)
        for i, result in enumerate(got, 1):
            if progress is not None:
                progress(nth * n + i, 2 * n)
            yield result

    return run


def _hits_from_data(v) -> list[tuple[str, int, int, str, int, int]]:
    try:
        return [(str(k), int(s), int(e), str(f), int(c), int(p)) for k, s, e, f, c, p in v]
    except (TypeError, ValueError) as e:
        raise ValueError(f"not a document's phrase hits: {e}") from None


def _discover(
    texts: dict[str, str],
    titles: dict[str, str],
    params: DiscoveryParams,
    workers: Engine,
    progress: Callable[[int, int], None] | None = None,
    encoder=None,
    report: dict | None = None,
    cache: ShardCache | None = None,
) -> Catalog:
    doc_ids = list(texts)
    items = [(d, texts[d], titles.get(d, "")) for d in doc_ids]
    run = _passes(workers, cache, progress, len(items))
    ev = _Evidence()
    outlines = {}
    for d in run(0, "evidence", _read_document, items, (params,), "", evidence_to_data, evidence_from_data):
        _add_document(ev, d)
        outlines[d.doc_id] = d.outline
    ranked = {kind: ev.ranked(kind, params.min_docs) for kind in ("heading", "term", "entity")}
    limit = params.topic_limit(len(doc_ids), sum(len(t) for t in texts.values()))
    pool = limit * params.pool_factor  # candidates: boilerplate and variants are removed below
    taken = set(ranked["heading"]) | set(ranked["term"]) | set(ranked["entity"])
    pick, gram_key = _pick_phrases(ev, taken, len(doc_ids), limit * params.phrase_pool, params.min_docs)
    uses: dict[str, list[tuple[int, int]]] = defaultdict(list)
    if pick:
        extra = json.dumps(sorted(gram_key.items()), ensure_ascii=False)
        # run() first: zip then exhausts it, so the pass finishes (its last shard is written)
        for hits, (doc_id, _, _) in zip(
            run(
                1,
                "hits",
                _phrase_hits,
                items,
                (gram_key, params.phrase_cap),
                extra,
                lambda h: [list(x) for x in h],
                _hits_from_data,
            ),
            items,
        ):
            for k, s, e, surface, c, parts in hits:
                ev.cand["phrase"][k][doc_id] = (s, e, 0)
                ev.surfaces[k][surface] += 1
                uses[k].append((c, parts))
    if progress is not None and items and not pick:
        progress(2 * len(items), 2 * len(items))
    # boilerplate: a phrase never used as a heading or a defined term, spread through its documents
    # like a function word, names no subject
    spread = {k: _spread(uses[k]) for k in pick}
    where = {k: _section_share(ev.cand["phrase"][k], outlines) for k in pick}
    boiler = {
        k
        for k in pick
        if (spread[k] >= params.max_spread or where[k] < params.min_section_share)
        and k not in ev.cand["heading"]
        and k not in ev.cand["term"]
    }
    if report is not None:
        report.update(spread=spread, section_share=where, boilerplate=sorted(boiler))
    ranked["phrase"] = [k for k in pick if len(ev.cand["phrase"][k]) >= params.min_docs and k not in boiler]
    _balance_scripts(ranked, texts)
    order = _round_robin(ranked, pool, params.kind_weights)
    position = {key: n for n, (_, key) in enumerate(order)}
    cands = [
        t for t in (_make_topic(kind, key, ev, texts, params) for kind, key in order) if len(t.spans) >= params.min_docs
    ]
    cands.sort(key=lambda t: (-len(t.spans), KINDS.index(t.kind), position[t.key]))
    variants = _variant_headings(ev, cands, texts, params, limit)
    merged = merge_topics(
        cands,
        variants,
        texts,
        ev.ngram_df,
        ev.surfaces,
        params,
        encoder_titles(encoder) if encoder is not None else word_titles,
        report,
    )
    # the limit, round-robin across kinds again, each kind's merged topics by support (documents)
    by_key = {t.key: t for t in merged}
    again = {
        kind: [
            t.key for t in sorted((t for t in merged if t.kind == kind), key=lambda t: (-len(t.spans), position[t.key]))
        ]
        for kind in KINDS
    }
    _balance_scripts(again, texts)
    chosen = [by_key[key] for _, key in _round_robin(again, limit, params.kind_weights)][:limit]
    # the catalog's order (a size budget drops its last topics first): subjects the documents name
    # themselves (headings, defined terms) before phrases and names, each by its support (documents)
    # times how alike its quotes are (a subject before a structural heading such as "Purpose")
    group = {"heading": 0, "term": 0, "phrase": 1, "entity": 2}
    alike = dict(zip((t.key for t in chosen), coherence(chosen, texts, ev.ngram_df, params)))
    ordered = {
        "all": [
            t.key
            for t in sorted(
                chosen, key=lambda t: (group[t.kind], -round(len(t.spans) * alike[t.key], 6), position[t.key])
            )
        ]
    }
    _balance_scripts(ordered, texts)
    final = [by_key[key] for key in ordered["all"]]
    for t, slug in zip(final, unique_slugs("topic-", [t.title for t in final])):
        t.page = slug
    return Catalog(
        topics=final,
        outlines=outlines,
        collections=collections({d: outlines[d].title for d in doc_ids}, len(doc_ids), params),
    )


def _variant_headings(
    ev: _Evidence, cands: list[Topic], texts: Mapping[str, str], params: DiscoveryParams, limit: int
) -> list[Topic]:
    """Headings of one document only that share a content word with a candidate: possible variant
    wordings ("Applicable law and disputes" beside "Governing Law"), top-level headings first."""
    words = {w for t in cands for w in t.key.split() if w not in STOPWORDS}
    keys = {t.key for t in cands}
    singles = [
        (lvl, k)
        for k, got in ev.cand["heading"].items()
        if len(got) == 1 and k not in keys and words & set(k.split())
        for (_s, _e, lvl) in got.values()
    ]
    singles.sort()
    return [_make_topic("heading", k, ev, texts, params) for _, k in singles[: params.variant_pool * limit]]


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
