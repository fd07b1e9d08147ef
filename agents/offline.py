"""The offline agent: the default backend. No key, no network, deterministic (same input, same wiki).

It works from a topic catalog (`wikigen.agents.topics.discover`, computed once per build by the
orchestrator, or lazily here) and acts on the wiki only through the ToolBox, so every page passes
the same checks as a Claude agent's: quotes verified, ownership, size guard. Each quote's text is
read with `tools.read_document` at the span the catalog found, so it is the exact source text.

One session does the first of these that has work left, in order:

1. **documents** - a document page for every document in the agent's share that has none yet,
   and the agent's collection pages (session 1 of a fresh wiki);
2. **topics** - topic pages for the agent's topics that have none yet, at most `topics_per_session`
   a session, best-supported topics first; then
3. **revision** - rebuild every page the agent wrote in earlier sessions from what is known now
   (documents covered by other agents, topic pages others created, both read from the progress
   log and list_pages): new evidence, new links. A page that would not change has its quotes
   re-read from the corpus and, when they all still match, is marked `confirmed`.

The agent plans to a size budget (`plan_budget`, TARGET_RATIO of the corpus, counted like the size
guard: the larger of characters and tokens): it estimates the wiki a quote plan makes (pages, index.md,
log.md) and, when that is over the budget, first leaves out the collections least worth a page (a kind
of two or three documents, or one inside another collection; their members then link each other),
then shrinks every document's quote budget, then leaves out the least supported topics. Pages carry
little besides quotes: links are labelled only when the slug does not already read as the title.

What is "known" is what earlier sessions logged plus the agent's own writes in this session, never
what another agent is writing at the same moment: that keeps concurrent sessions deterministic.
Corpus text is only ever quoted, never followed: a document that says "ignore previous
instructions" is data like any other.
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass, field

from wikigen.agents.base import AgentTask, SessionOutcome
from wikigen.core.slugs import doc_slug, kind_slug, slugify, topic_slug
from wikigen.agents.topics import OUTLINE_CAP, Catalog, Topic, discover, related
from wikigen.core.sentences import cap_span
from wikigen.core.text import trim_span
from wikigen.core.errors import SizeLimitError, WikigenError
from wikigen.wiki.markup import Quote, format_quote
from wikigen.wiki.page import parse_page

log = logging.getLogger(__name__)

KIND_PREFIX = "kind:"          # AgentTask.topics entries naming a collection rather than a topic
MAX_DOCS_PER_TOPIC = 60
MAX_KEY_PASSAGES = 6
MAX_TITLE = 100
# Quote budgets, relative to each document's size: the wiki stays far below the corpus.
TOPIC_FRACTION = 0.13      # of a document's characters, spent on citing it across all topic pages
MIN_SLOTS = 2              # even a short document is quoted on this many topic pages
DOC_FRACTION = 0.05        # of a document's characters, quoted on its own page (opening, key passages)
MIN_QUOTE = 150            # no quote shorter than this is planned (it would not carry its fact)
TARGET_RATIO = 0.36         # the size budget: wiki characters / corpus characters the agent plans for
MIN_OPENING = 200          # a document page's opening quote, at least (title, parties, date)
RELATED = 3                # related topics listed at the end of a topic page
KIND_CAP = {"heading": 700, "term": 600, "entity": 450, "phrase": 450}
_VIA_RANK = {"heading": 0, "term": 1, "entity": 2, "phrase": 3}
_QUOTE_HEADER_LIKE = re.compile(r"^\s*\[!quote\]", re.IGNORECASE | re.MULTILINE)


def _one_line(text: str, n: int) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _label(text: str) -> str:
    """Text that is safe inside [[slug|label]] and a heading."""
    return _one_line(re.sub(r"[\[\]|#>*`]", " ", text), MAX_TITLE) or "untitled"


def _link(slug: str, label: str) -> str:
    """[[slug]] when the slug already reads as the label ("topic-law" for "Law", "kind-nda" for "Nda
    documents", "topic-definition" for "Definitions"), else [[slug|label]]."""
    said = slugify(label)
    key = slug.split("-", 1)[1] if "-" in slug else slug
    if said and len(key) >= 3 and (said == key or said.startswith(key) or key.startswith(said + "-")
                                   or key.endswith("-" + said)):
        return f"[[{slug}]]"
    return f"[[{slug}|{_label(label)}]]"


@dataclass
class _Known:
    """What the agent may build on in this session."""
    pages: dict[str, dict] = field(default_factory=dict)      # slug -> list_pages info
    sources: dict[str, list[str]] = field(default_factory=dict)   # topic slug -> doc ids it quotes

    def has(self, slug: str) -> bool:
        return slug in self.pages


def quote_plan(cat: Catalog, max_docs: int = MAX_DOCS_PER_TOPIC, scale: float = 1.0,
               skip: frozenset[str] = frozenset()) -> dict[tuple[str, str], int]:
    """(topic key, doc id) -> the quote's length cap, for the pairs that get a quote at all.

    A topic quotes at most max_docs documents (the best evidence first: a heading's section, then a
    definition, then a sentence; spread evenly otherwise). A document spends at most TOPIC_FRACTION of
    its size on quotes across topic pages: many topics with short quotes rather than few long ones,
    the topics earlier in the catalog (better supported) first. `scale` (<= 1, from the size budget)
    shrinks every document's share, the MIN_SLOTS floor included (down to one slot); topics in `skip`
    get no quote.
    """
    import hashlib

    ranked: dict[str, list[str]] = {}
    topics = [t for t in cat.topics if t.key not in skip]
    for t in topics:
        ranked[t.key] = sorted(t.spans, key=lambda d: (_VIA_RANK.get(t.via.get(d, "phrase"), 3),
                                                       hashlib.sha1(f"{t.key}\0{d}".encode()).hexdigest()))[:max_docs]
    slots: dict[str, int] = {}
    budget: dict[str, float] = {}
    overhead: dict[str, int] = {}
    for d in {d for docs in ranked.values() for d in docs}:
        outline = cat.outlines.get(d)
        chars = outline.chars if outline and outline.chars else 4000
        # what citing the document costs on a topic page: its heading link, the quote header and
        # its entry in `sources` each spell the doc id or its slug
        overhead[d] = 60 + 3 * len(doc_slug(d))
        unit = MIN_QUOTE + overhead[d]
        budget[d] = max(max(1.0, MIN_SLOTS * scale) * unit, TOPIC_FRACTION * scale * chars)
        slots[d] = int(budget[d] // unit)
    granted: dict[str, list[str]] = {}          # doc -> topic keys, in grant order
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
    plan: dict[tuple[str, str], int] = {}
    kinds = {t.key: t.kind for t in cat.topics}
    for d, keys in granted.items():
        each = budget[d] / len(keys) - overhead[d]
        for key in keys:
            plan[(key, d)] = int(min(KIND_CAP.get(kinds[key], 450), max(MIN_QUOTE, each)))
    return plan


# --- the size budget -------------------------------------------------------------------------------
# What a page costs besides its quotes' text, in characters, measured on built wikis: the front matter
# keys and a page's index.md line (PAGE_COST), a quote's header line and blank lines (QUOTE_COST), and
# how much of a quote's cap a quote fills on average (QUOTE_FILL).
PAGE_COST = 190
QUOTE_COST = 34
QUOTE_FILL = 0.8
LOG_COST = 260             # log.md per agent and session
WIKI_CHARS_PER_TOKEN = 3.3  # wiki pages' characters a token (slugs, links and quote headers split finely)
MIN_SCALE = 0.3            # quotes shrink no further; below it the least supported topics go instead


@dataclass
class Budget:
    """How the offline agent fits the wiki into target_ratio x the corpus's characters."""
    target: int                        # characters the wiki may take
    estimate: int                      # characters it is expected to take under this budget
    scale: float = 1.0                 # of the quote budgets (TOPIC_FRACTION, DOC_FRACTION, MIN_SLOTS)
    dropped_kinds: frozenset[str] = frozenset()
    dropped_topics: frozenset[str] = frozenset()


def weak_collections(cat: Catalog) -> list[str]:
    """Collections least worth a page, least first: a kind (not a folder) of two or three documents, or one
    whose members all belong to one other, larger collection (they reach each other through it)."""
    weak = []
    for c in cat.collections:
        if c.folder:
            continue
        members = set(c.members)
        inside = any(o is not c and len(o.members) > len(c.members) and members <= set(o.members)
                     for o in cat.collections)
        if len(c.members) <= 3 or inside:
            weak.append(c)
    return [c.key for c in sorted(weak, key=lambda c: (len(c.members), c.key))]


def estimate_chars(cat: Catalog, plan: dict[tuple[str, str], int], scale: float, dropped_kinds: frozenset[str],
                   agents: int = 2, sessions: int = 2) -> int:
    """The wiki's expected size in characters (pages, index.md, log.md) under a quote plan."""
    total = LOG_COST * agents * sessions + 200
    titles = {d: (o.title or d)[:MAX_TITLE] for d, o in cat.outlines.items()}
    topic_links: dict[str, int] = {}
    by_topic: dict[str, list[tuple[str, int]]] = {}
    for (key, d), cap in plan.items():
        by_topic.setdefault(key, []).append((d, cap))
    for t in cat.topics:
        quoted = by_topic.get(t.key, [])
        if len(quoted) < 2:
            continue
        total += PAGE_COST + 2 * len(t.slug) + 2 * len(t.title) + 50 + 3 * (len(t.slug) + 6)
        total += sum(len(a) + 4 for a in t.aliases)
        for d, cap in quoted:
            total += int(cap * QUOTE_FILL) + QUOTE_COST + 2 * len(d) + len(doc_slug(d)) + 10
            topic_links[d] = topic_links.get(d, 0) + len(t.slug) + 6
        total += sum(len(doc_slug(d)) + 6 for d in t.doc_ids[len(quoted):])
    for c in cat.collections:
        if c.key in dropped_kinds:
            continue
        total += PAGE_COST + 2 * len(c.slug) + 2 * len(c.title) + 40 + sum(len(a) + 4 for a in c.aliases)
        for d in c.members:
            total += len(d) + 2 * len(doc_slug(d)) + 12
    for d, o in cat.outlines.items():
        total += PAGE_COST + 2 * len(doc_slug(d)) + 2 * len(titles[d]) + len(d) + topic_links.get(d, 0)
        budget = DOC_FRACTION * scale * (o.chars or 4000)
        if o.opening:
            cap = min(500, max(MIN_OPENING * max(scale, 0.75), budget / 2), o.opening[1] - o.opening[0])
            total += int(cap * QUOTE_FILL) + QUOTE_COST + len(d)
        n_key = min(MAX_KEY_PASSAGES, int((budget / 2) // 220))
        total += n_key * (int(220 * QUOTE_FILL) + QUOTE_COST + len(d) + 30)
        total += 60 if o.dates else 0
    return total


def plan_budget(cat: Catalog, corpus_chars: int, target_ratio: float, max_docs: int = MAX_DOCS_PER_TOPIC,
                agents: int = 2, sessions: int = 2, corpus_tokens: int = 0) -> tuple[Budget, dict[tuple[str, str], int]]:
    """The largest quote plan whose wiki is expected within target_ratio x corpus_chars. Under pressure,
    in this order: weak collections go (they carry no quote), quotes shrink down to MIN_SCALE, then the
    least supported topics go (the catalog's last first, at most its weaker half), then quotes shrink
    further."""
    target = int(target_ratio * corpus_chars)
    if corpus_tokens:       # the guard takes the larger ratio: wiki markup has fewer characters a token
        target = min(target, int(target_ratio * corpus_tokens * WIKI_CHARS_PER_TOKEN))
    plan = quote_plan(cat, max_docs)
    kinds: frozenset[str] = frozenset()

    def est(p, scale):
        return estimate_chars(cat, p, scale, kinds, agents, sessions)

    e = est(plan, 1.0)
    if e <= target:
        return Budget(target, e), plan
    for key in weak_collections(cat):
        kinds = kinds | {key}
        e = est(plan, 1.0)
        if e <= target:
            return Budget(target, e, 1.0, kinds), plan

    def fit(lo: float, skip: frozenset[str]):
        scale = 1.0
        while True:
            p = quote_plan(cat, max_docs, scale, skip)
            e = est(p, scale)
            if e <= target or scale - 0.05 < lo - 1e-9:
                return scale, p, e, e <= target
            scale = round(scale - 0.05, 2)

    scale, plan, e, ok = fit(MIN_SCALE, frozenset())
    if ok:
        return Budget(target, e, scale, kinds), plan
    skip: frozenset[str] = frozenset()
    for t in reversed(cat.topics[len(cat.topics) // 2:]):
        skip = skip | {t.key}
        plan = quote_plan(cat, max_docs, MIN_SCALE, skip)
        e = est(plan, MIN_SCALE)
        if e <= target:
            return Budget(target, e, MIN_SCALE, kinds, skip), plan
    scale, plan, e, _ = fit(0.1, skip)
    return Budget(target, e, scale, kinds, skip), plan


class OfflineBackend:
    name = "offline"

    def __init__(self, catalog: Catalog | None = None, *, topics_per_session: int = 80,
                 max_docs_per_topic: int = MAX_DOCS_PER_TOPIC, target_ratio: float | None = TARGET_RATIO,
                 agents: int = 2, sessions: int = 2):
        self._catalog = catalog
        self.target_ratio = target_ratio          # None: no size budget (the quote fractions alone)
        self.agents, self.sessions = agents, sessions
        self.budget: Budget | None = None
        self._plan: dict[tuple[str, str], int] | None = None
        self._lock = threading.Lock()
        self.topics_per_session = topics_per_session
        self.max_docs_per_topic = max_docs_per_topic
        self.scale = 1.0                          # quote budgets scaled to the size budget (see plan)
        self.dropped_kinds: frozenset[str] = frozenset()   # collections not worth their page under the budget
        self.dropped_topics: frozenset[str] = frozenset()  # topics left out under the budget

    def plan(self, tools) -> dict[tuple[str, str], int]:
        cat = self.catalog(tools)
        with self._lock:
            if self._plan is None:
                if self.target_ratio is None:
                    self._plan = quote_plan(cat, self.max_docs_per_topic)
                else:
                    chars = getattr(tools.index, "corpus_chars", 0) or sum(o.chars for o in cat.outlines.values())
                    tokens = getattr(tools.index, "corpus_tokens", 0) or 0
                    self.budget, self._plan = plan_budget(cat, chars, self.target_ratio, self.max_docs_per_topic,
                                                          self.agents, self.sessions, tokens)
                    self.scale = self.budget.scale
                    self.dropped_kinds = self.budget.dropped_kinds
                    self.dropped_topics = self.budget.dropped_topics
                    log.info("size budget: %s", self.budget)
            return self._plan

    # --- the catalog ------------------------------------------------------------------------

    def catalog(self, tools) -> Catalog:
        with self._lock:
            if self._catalog is None:
                index = tools.index
                docs = index.documents()
                texts = {d.doc_id: index.texts.text(d.doc_id) for d in docs}
                self._catalog = discover(texts, {d.doc_id: d.title for d in docs})
            return self._catalog

    # --- the session --------------------------------------------------------------------------

    def run_session(self, task: AgentTask, tools) -> SessionOutcome:
        out = SessionOutcome(agent=task.agent, session=task.session)
        cat = self.catalog(tools)
        run = _Session(self, cat, task, tools, out)
        run.plan = self.plan(tools)
        try:
            run.go()
        except SizeLimitError as e:
            out.errors.append(str(e))
            out.stop_reason = "budget"
        return out


class _Session:
    def __init__(self, backend: OfflineBackend, cat: Catalog, task: AgentTask, tools, out: SessionOutcome):
        self.b, self.cat, self.task, self.tools, self.out = backend, cat, task, tools, out
        self.me = task.agent
        self.topic_keys = [k for k in task.topics if not k.startswith(KIND_PREFIX)]
        self.kind_keys = [k[len(KIND_PREFIX):] for k in task.topics if k.startswith(KIND_PREFIX)]
        self.known = _Known()
        self.mine: dict[str, dict] = {}
        self._titles: dict[str, str] = {}
        self.plan: dict[tuple[str, str], int] = {}

    # -- what is known ---------------------------------------------------------------------------

    def _log_entries(self) -> list[dict]:
        entries = self.tools.read_log(limit=200)
        if len(entries) >= 200:               # the tool shows the last 200; the whole log is needed here
            entries = self.tools.log.read().entries
        return entries

    def learn(self) -> None:
        listed = {p["slug"]: p for p in self.tools.list_pages()}
        earlier: set[str] = set()
        for e in self._log_entries():
            try:
                s = int(e.get("session", 0))
            except (TypeError, ValueError):
                continue
            if s < self.task.session:
                earlier.update(x for x in (e.get("pages") or []) if isinstance(x, str))
        self.mine = {s: p for s, p in listed.items() if p["owner"] == self.me}
        # pages from earlier sessions (anyone's), and my own pages (I know what I wrote)
        self.known.pages = {s: p for s, p in listed.items() if s in earlier or p["owner"] == self.me}

    def sources_of(self, slug: str) -> list[str]:
        if slug not in self.known.sources:
            try:
                self.known.sources[slug] = parse_page(self.tools.read_page(slug)).sources
            except WikigenError:
                self.known.sources[slug] = []
        return self.known.sources[slug]

    def wrote(self, slug: str, info: dict, sources: list[str]) -> None:
        self.known.pages[slug] = info
        self.known.sources[slug] = sources
        self.mine[slug] = info

    # -- the plan --------------------------------------------------------------------------------

    def go(self) -> None:
        self.learn()
        missing = [d for d in self.task.doc_ids if doc_slug(d) not in self.mine]
        kinds_missing = [k for k in self.kind_keys if kind_slug(k) not in self.mine and k not in self.b.dropped_kinds]
        if missing or kinds_missing:
            self.write_documents(missing)
            self.write_collections(kinds_missing)
            return
        revisable = sorted(self.mine)        # pages from earlier sessions, revised after the new ones
        self.write_topics()
        self.revise(revisable)

    # -- writing ---------------------------------------------------------------------------------

    def _title(self, doc_id: str) -> str:
        if doc_id not in self._titles:
            outline = self.cat.outlines.get(doc_id)
            title = outline.title if outline else ""
            if not title:
                try:
                    title = self.tools.read_document(doc_id, 0, 1).title
                except WikigenError:
                    title = ""
            self._titles[doc_id] = _label(title or doc_id)
        return self._titles[doc_id]

    def quote(self, doc_id: str, start: int, end: int, cap: int | None = None) -> str | None:
        """The quote form for text[start:end] read through the tools, cut to cap; None if unusable."""
        try:
            span = self.tools.read_document(doc_id, start, end)
        except WikigenError as e:
            self.out.errors.append(f"read {doc_id}: {e}")
            return None
        text = span.text
        s, e = 0, len(text)
        if cap is not None and e > cap:
            s, e = cap_span(text, 0, e, cap)
        else:
            s, e = trim_span(text, 0, e)
        body = text[s:e]
        if not body.strip() or _QUOTE_HEADER_LIKE.search(body):
            return None
        return format_quote(Quote(doc_id, span.start + s, span.start + e, body))

    def write(self, slug: str, title: str, description: str, body: str, type_: str, sources: list[str],
              aliases: list[str] | None = None, status: str = "draft") -> bool:
        try:
            self.tools.write_page(slug=slug, title=title, description=_one_line(description, 200), body=body,
                                  type=type_, sources=sources, aliases=aliases or [], status=status)
        except SizeLimitError:
            raise
        except WikigenError as e:
            self.out.errors.append(f"{slug}: {e}")
            return False
        if slug not in self.out.pages_written:
            self.out.pages_written.append(slug)
        self.wrote(slug, {"slug": slug, "title": title, "owner": self.me, "description": description,
                          "type": type_}, sources)
        return True

    # -- documents -------------------------------------------------------------------------------

    def doc_body(self, doc_id: str) -> tuple[str, str]:
        outline = self.cat.outlines.get(doc_id)
        parts: list[str] = []
        colls = [c for c in self.cat.collections_of(doc_id) if c.key not in self.b.dropped_kinds][:3]
        if colls:
            parts.append("In " + ", ".join(_link(c.slug, c.title) for c in colls) + ".")
        # a collection without a page (under the size budget): its members link each other instead
        peers = [m for c in self.cat.collections_of(doc_id) if c.key in self.b.dropped_kinds
                 for m in c.members if m != doc_id]
        if peers:
            parts.append("See also " + ", ".join(f"[[{doc_slug(m)}]]" for m in list(dict.fromkeys(peers))[:3]) + ".")
        if outline and outline.terms:
            names = []
            for term in dict.fromkeys(outline.terms):
                t = self.cat.topic(_norm(term))
                if t is not None and self.known.has(t.slug):
                    names.append(_link(t.slug, term))
            if names:
                parts.append("Defines " + ", ".join(names[:8]) + ".")
        opening_text = ""
        if outline and outline.opening:
            try:
                opening_text = self.tools.read_document(doc_id, *outline.opening).text
            except WikigenError:
                opening_text = ""
        dates = [d for d in (outline.dates if outline else []) if d not in opening_text[:500]]
        if dates:
            parts.append("Dates near the start: " + "; ".join(dates[:4]) + ".")
        chars = outline.chars if outline and outline.chars else 4000
        budget = DOC_FRACTION * self.b.scale * chars
        if outline and outline.opening:
            opening_cap = min(500, max(MIN_OPENING * max(self.b.scale, 0.75), budget / 2))
            q = self.quote(doc_id, *outline.opening, cap=int(opening_cap))
            if q:
                parts.append(q)
        passages = []
        n_key = min(MAX_KEY_PASSAGES, int((budget / 2) // 220))
        opening = outline.opening if outline and outline.opening else (0, 0)
        for label, key, s, e in self.key_passages(doc_id)[:n_key] if n_key else []:
            if opening[0] <= s and e <= opening[1] + 200:
                continue                       # the opening already shows it
            q = self.quote(doc_id, s, e, min(OUTLINE_CAP, 220))
            if not q:
                continue
            t = self.cat.topic(key)
            head = _link(t.slug, label) if t is not None and self.known.has(t.slug) else _label(label)
            passages.append(f"## {head}\n\n{q}")
        if passages:
            parts.append("\n\n".join(passages))
        topics = [(slug, info) for slug, info in sorted(self.known.pages.items())
                  if info.get("type") == "topic" and doc_id in self.sources_of(slug)]
        if topics:
            parts.append("Topics: " + ", ".join(_link(slug, info.get("title") or slug) for slug, info in topics) + ".")
        return "\n\n".join(parts) + "\n", ""

    def key_passages(self, doc_id: str) -> list[tuple[str, str, int, int]]:
        """One short passage per major heading (recurring headings first), else the doc's topic quotes."""
        outline = self.cat.outlines.get(doc_id)
        heads = outline.headings if outline else []
        if heads:
            top = min(h.level for h in heads)
            major = [h for h in heads if h.level == top and h.span[1] > h.span[0]]
            recurring = [h for h in major if self.cat.topic(h.key) is not None]
            pick = (recurring + [h for h in major if h not in recurring])[:MAX_KEY_PASSAGES]
            seen, out = set(), []
            for h in sorted(pick, key=lambda h: h.start):
                if h.key not in seen:
                    seen.add(h.key)
                    out.append((h.label, h.key, h.span[0], h.span[1]))
            if out:
                return out
        out = []
        for t in self.cat.topics:
            if doc_id in t.spans:
                out.append((t.title, t.key, *t.spans[doc_id]))
                if len(out) >= MAX_KEY_PASSAGES:
                    break
        return sorted(out, key=lambda x: x[2])

    def write_doc(self, doc_id: str, status: str = "draft") -> bool:
        body, desc = self.doc_body(doc_id)
        return self.write(doc_slug(doc_id), self._title(doc_id), desc, body, "document", [doc_id], status=status)

    def write_documents(self, doc_ids: list[str]) -> None:
        done = [d for d in doc_ids if self.write_doc(d)]
        if done:
            self.tools.append_log("wrote document pages", note=f"{len(done)} documents",
                                  pages=[doc_slug(d) for d in done], docs=done)

    def collection_body(self, key: str) -> tuple[str, str, list[str]] | None:
        coll = next((c for c in self.cat.collections if c.key == key), None)
        if coll is None or key in self.b.dropped_kinds:
            return None
        n = len(coll.members)
        if coll.folder:
            why = f"The {n} documents of the folder `{coll.folder}/`"
        else:
            why = f"{n} documents named \u201c{_label(coll.key)}\u201d"
        lines = [f"- [[{doc_slug(d)}]]" for d in coll.members]     # titles: in the index and on the pages
        return "\n".join(lines) + "\n", why, list(coll.members)

    def write_collections(self, keys: list[str]) -> None:
        done = []
        for key in keys:
            made = self.collection_body(key)
            if made is None:
                continue
            body, desc, members = made
            coll = next(c for c in self.cat.collections if c.key == key)
            if self.write(kind_slug(key), _label(coll.title), desc, body, "collection", members,
                          aliases=[_label(a) for a in coll.aliases]):
                done.append(kind_slug(key))
        if done:
            self.tools.append_log("wrote collection pages", pages=done)

    # -- topics ----------------------------------------------------------------------------------

    def topic_docs(self, t: Topic) -> list[str]:
        """The topic's documents that are covered (a document page known), in doc id order."""
        return [d for d in t.doc_ids if self.known.has(doc_slug(d))]

    def topic_body(self, t: Topic) -> tuple[str, str, list[str]] | None:
        docs = self.topic_docs(t)
        if len(docs) < 2:
            return None
        what = {"heading": "the section under this heading", "term": "its definition",
                "entity": "passages naming it", "phrase": "passages on it"}[t.kind]
        sections, quoted = [], []
        for d in docs:
            cap = self.plan.get((t.key, d))
            if cap is None:
                continue
            s, e = t.spans[d]
            q = self.quote(d, s, e, cap)
            if q:
                sections.append(f"## [[{doc_slug(d)}]]\n\n{q}")
                quoted.append(d)
        if len(quoted) < 2:
            return None
        parts = list(sections)
        rest = [d for d in docs if d not in quoted]
        if rest:
            parts.append("Also in " + ", ".join(f"[[{doc_slug(d)}]]" for d in rest) + ".")
        rel = [o for o in related(t, self.cat.topics, k=12) if self.known.has(o.slug)][:RELATED]
        if rel:
            parts.append("Related: " + ", ".join(_link(o.slug, o.title) for o in rel) + ".")
        desc = f"{what[:1].upper()}{what[1:]}, quoted from {len(quoted)} of {len(docs)} documents"
        return "\n\n".join(parts) + "\n", desc, quoted

    def write_topic(self, t: Topic, status: str = "draft") -> bool:
        if t.key in self.b.dropped_topics:
            return False
        made = self.topic_body(t)
        if made is None:
            return False
        body, desc, quoted = made
        return self.write(t.slug, _label(t.title), desc, body, "topic", quoted,
                          aliases=[_label(a) for a in t.aliases], status=status)

    def write_topics(self) -> None:
        todo = [self.cat.topic(k) for k in self.topic_keys]
        todo = [t for t in todo if t is not None and t.slug not in self.mine]
        done, left = [], 0
        for t in todo:
            if len(done) >= self.b.topics_per_session:
                left += 1
                continue
            if self.write_topic(t):
                done.append(t.slug)
        if done or left:
            self.tools.append_log("wrote topic pages", note=f"{len(done)} topics written, {left} left for later sessions",
                                  pages=done)

    # -- revision --------------------------------------------------------------------------------

    def reverified(self, slug: str) -> bool:
        """Every quote of the page still equals the corpus text at its span (read through the tools)."""
        try:
            page = parse_page(self.tools.read_page(slug))
            for q in page.quotes():
                if self.tools.read_document(q.doc_id, q.start, q.end).text != q.text:
                    return False
        except WikigenError:
            return False
        return True

    def revise(self, slugs: list[str]) -> None:
        changed, confirmed = [], []
        for slug in slugs:
            if slug in self.out.pages_written:
                continue
            try:
                old = parse_page(self.tools.read_page(slug))
            except WikigenError as e:
                self.out.errors.append(f"{slug}: {e}")
                continue
            made = self._rebuild(old)
            if made is None:
                continue
            title, desc, body, type_, sources, aliases = made
            if body != old.body or sources != old.sources or title != old.title:
                if self.write(slug, title, desc, body, type_, sources, aliases, status="draft"):
                    changed.append(slug)
            elif old.status == "draft" and self.reverified(slug):
                if self.write(slug, title, desc, body, type_, sources, aliases, status="confirmed"):
                    confirmed.append(slug)
        if changed:
            self.tools.append_log("revised pages", note="new evidence or links from other agents' pages",
                                  pages=changed)
        if confirmed:
            self.tools.append_log("confirmed pages", note="quotes re-read from the corpus and unchanged",
                                  pages=confirmed)

    def _rebuild(self, old):
        slug = old.slug
        if old.type == "document":
            doc = next((d for d in old.sources if doc_slug(d) == slug), None)
            if doc is None:
                return None
            body, desc = self.doc_body(doc)
            return self._title(doc), desc, body, "document", [doc], []
        if old.type == "collection":
            key = next((c.key for c in self.cat.collections if c.slug == slug), None)
            made = self.collection_body(key) if key else None
            if made is None:
                return None
            body, desc, members = made
            coll = next(c for c in self.cat.collections if c.key == key)
            return _label(coll.title), desc, body, "collection", members, [_label(a) for a in coll.aliases]
        if old.type == "topic":
            t = next((t for t in self.cat.topics if t.slug == slug), None)
            made = self.topic_body(t) if t else None
            if made is None:
                return None
            body, desc, quoted = made
            return _label(t.title), desc, body, "topic", quoted, [_label(a) for a in t.aliases]
        return None


def _norm(term: str) -> str:
    from wikigen.agents.topics import norm_key

    return norm_key(term)


__all__ = ["OfflineBackend", "KIND_PREFIX", "topic_slug"]
