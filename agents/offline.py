"""The offline agent: the default backend. No key, no network, deterministic (same input, same wiki).

It works from a topic catalog (`agents.topics.discover`, computed once per build by the
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

from agents.base import AgentTask, SessionOutcome
from agents.slugs import doc_slug, kind_slug, topic_slug
from agents.topics import OUTLINE_CAP, Catalog, Topic, _cut, discover, related
from wikigen.errors import SizeLimitError, WikigenError
from wikigen.page import Quote, format_quote, parse_page

log = logging.getLogger(__name__)

KIND_PREFIX = "kind:"          # AgentTask.topics entries naming a collection rather than a topic
MAX_DOCS_PER_TOPIC = 60
MAX_KEY_PASSAGES = 6
MAX_TITLE = 100
SHORT_TITLE = 40
# Quote budgets, relative to each document's size: the wiki stays far below the corpus.
TOPIC_FRACTION = 0.13      # of a document's characters, spent on citing it across all topic pages
MIN_SLOTS = 2              # even a short document is quoted on this many topic pages
DOC_FRACTION = 0.05        # of a document's characters, quoted on its own page (opening, key passages)
MIN_QUOTE = 150            # no quote shorter than this is planned (it would not carry its fact)
KIND_CAP = {"heading": 700, "term": 600, "entity": 450, "phrase": 450}
_VIA_RANK = {"heading": 0, "term": 1, "entity": 2, "phrase": 3}
_QUOTE_HEADER_LIKE = re.compile(r"^\s*\[!quote\]", re.IGNORECASE | re.MULTILINE)


def _one_line(text: str, n: int) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _label(text: str) -> str:
    """Text that is safe inside [[slug|label]] and a heading."""
    return _one_line(re.sub(r"[\[\]|#>*`]", " ", text), MAX_TITLE) or "untitled"


@dataclass
class _Known:
    """What the agent may build on in this session."""
    pages: dict[str, dict] = field(default_factory=dict)      # slug -> list_pages info
    sources: dict[str, list[str]] = field(default_factory=dict)   # topic slug -> doc ids it quotes

    def has(self, slug: str) -> bool:
        return slug in self.pages


def quote_plan(cat: Catalog, max_docs: int = MAX_DOCS_PER_TOPIC) -> dict[tuple[str, str], int]:
    """(topic key, doc id) -> the quote's length cap, for the pairs that get a quote at all.

    A topic quotes at most max_docs documents (the best evidence first: a heading's section, then a
    definition, then a sentence; spread evenly otherwise). A document spends at most TOPIC_FRACTION of
    its size on quotes across topic pages: many topics with short quotes rather than few long ones,
    the topics earlier in the catalog (better supported) first.
    """
    import hashlib

    ranked: dict[str, list[str]] = {}
    for t in cat.topics:
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
        budget[d] = max(MIN_SLOTS * unit, TOPIC_FRACTION * chars)
        slots[d] = int(budget[d] // unit)
    granted: dict[str, list[str]] = {}          # doc -> topic keys, in grant order
    # pass 1: every topic its two best-placed documents with slots left (more topics before longer lists)
    for t in cat.topics:
        cands = sorted((d for d in ranked[t.key] if slots[d] > 0), key=lambda d: (-slots[d], ranked[t.key].index(d)))
        if len(cands) < 2:
            continue
        for d in cands[:2]:
            slots[d] -= 1
            granted.setdefault(d, []).append(t.key)
    # pass 2: the rest of each topic's documents, best-supported topics first, while slots last
    for t in cat.topics:
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


class OfflineBackend:
    name = "offline"

    def __init__(self, catalog: Catalog | None = None, *, topics_per_session: int = 80,
                 max_docs_per_topic: int = MAX_DOCS_PER_TOPIC):
        self._catalog = catalog
        self._plan: dict[tuple[str, str], int] | None = None
        self._lock = threading.Lock()
        self.topics_per_session = topics_per_session
        self.max_docs_per_topic = max_docs_per_topic

    def plan(self, tools) -> dict[tuple[str, str], int]:
        cat = self.catalog(tools)
        with self._lock:
            if self._plan is None:
                self._plan = quote_plan(cat, self.max_docs_per_topic)
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
        kinds_missing = [k for k in self.kind_keys if kind_slug(k) not in self.mine]
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
            s, e = _cut(text, 0, e, cap)
        else:
            from agents.topics import trim
            s, e = trim(text, 0, e)
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
        colls = self.cat.collections_of(doc_id)[:3]
        facts = [f"Document `{doc_id}`"]
        if colls:
            facts.append("one of the " + " and of the ".join(f"[[{c.slug}|{_label(c.title)}]]" for c in colls))
        parts.append(", ".join(facts) + ".")
        if outline and outline.terms:
            names = []
            for term in dict.fromkeys(outline.terms):
                t = self.cat.topic(_norm(term))
                if t is not None and self.known.has(t.slug):
                    names.append(f"[[{t.slug}|{_label(term)}]]")
            if names:
                parts.append("Terms it defines: " + ", ".join(names[:8]) + ".")
        opening_text = ""
        if outline and outline.opening:
            try:
                opening_text = self.tools.read_document(doc_id, *outline.opening).text
            except WikigenError:
                opening_text = ""
        dates = [d for d in (outline.dates if outline else []) if d not in opening_text[:500]]
        if dates:
            parts.append("Dates mentioned near the start: " + "; ".join(dates[:4]) + ".")
        chars = outline.chars if outline and outline.chars else 4000
        budget = DOC_FRACTION * chars
        if outline and outline.opening:
            q = self.quote(doc_id, *outline.opening, cap=int(min(500, max(200, budget / 2))))
            if q:
                parts.append("## Opening\n\n" + q)
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
            head = f"[[{t.slug}|{_label(label)}]]" if t is not None and self.known.has(t.slug) else _label(label)
            passages.append(f"### {head}\n\n{q}")
        if passages:
            parts.append("## Key passages\n\n" + "\n\n".join(passages))
        topics = [(slug, info) for slug, info in sorted(self.known.pages.items())
                  if info.get("type") == "topic" and doc_id in self.sources_of(slug)]
        if topics:
            parts.append("Topics quoting it: " + ", ".join(
                f"[[{slug}|{_label(info.get('title') or slug)}]]" for slug, info in topics) + ".")
        n_quotes = sum(p.count("> [!quote]") for p in parts)
        desc = f"{self._title(doc_id)}: its opening" + (f" and {n_quotes - 1} key passages" if n_quotes > 1 else "")
        return "\n\n".join(parts) + "\n", desc

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
        if coll is None:
            return None
        n = len(coll.members)
        if coll.folder:
            why = f"the {n} documents of the folder `{coll.folder}/`"
        else:
            why = f"{n} documents whose titles or file names name the kind \u201c{_label(coll.key)}\u201d"
        lines = [f"{_label(coll.title)}: {why}.", ""]
        lines += [f"- [[{doc_slug(d)}|{self._title(d)}]]" for d in coll.members]
        return "\n".join(lines) + "\n", why[:1].upper() + why[1:], list(coll.members)

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
                sections.append(f"## [[{doc_slug(d)}|{self._title(d)[:SHORT_TITLE]}]]\n\n{q}")
                quoted.append(d)
        if len(quoted) < 2:
            return None
        intro = f"\u201c{_label(t.title)}\u201d: {what}, quoted from {len(quoted)} of the {len(docs)} documents that have it."
        if t.aliases:
            intro += " Also written: " + "; ".join(_label(a) for a in t.aliases[:4]) + "."
        parts = [intro, *sections]
        rest = [d for d in docs if d not in quoted]
        if rest:
            parts.append("## Also in\n\n" + ", ".join(f"[[{doc_slug(d)}]]" for d in rest))
        rel = [o for o in related(t, self.cat.topics, k=12) if self.known.has(o.slug)][:5]
        if rel:
            parts.append("## Related\n\n" + ", ".join(f"[[{o.slug}|{_label(o.title)}]]" for o in rel))
        desc = f"{_label(t.title)}: {what}, quoted from {len(quoted)} documents"
        return "\n\n".join(parts) + "\n", desc, quoted

    def write_topic(self, t: Topic, status: str = "draft") -> bool:
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
    from agents.topics import norm_key

    return norm_key(term)


__all__ = ["OfflineBackend", "KIND_PREFIX", "topic_slug"]
