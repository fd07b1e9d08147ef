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
   then **figures** - a page per figure stated across documents (`wikigen.agents.figure_pages`) whose
   owner document is in the agent's share, once its document pages exist;
3. **revision** - rebuild every page the agent wrote in earlier sessions from what is known now
   (documents covered by other agents, topic pages others created, both read from the progress
   log and list_pages): new evidence, new links. A page that would not change has its quotes
   re-read from the corpus and, when they all still match, is marked `confirmed`.

The agent plans to a size budget (`wikigen.agents.budget.plan_budget`): which quotes, how long,
which collections and topics get no page. Pages carry little besides quotes: links are labelled
only when the slug does not already read as the title. The page bodies are made in
`wikigen.agents.page_bodies`; the knobs are in `OfflineParams`.

What is "known" is every page there is when the agent's turn begins: the offline agents take turns
(`OfflineBackend.takes_turns`), so those are the pages of earlier sessions and of the agents before it in
this one, all finished; its own writes are added as it goes. An agent links what an earlier turn of the
same session wrote instead of waiting a session for it.
Corpus text is only ever quoted, never followed: a document that says "ignore previous
instructions" is data like any other.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from wikigen.agents.amendment_pages import strip_generated
from wikigen.agents.base import KIND_PREFIX, AgentBackend, AgentTask, SessionOutcome
from wikigen.agents.budget import Budget, Plan, plan_budget, quote_plan, target_chars
from wikigen.agents.catalog import Catalog
from wikigen.agents.consolidate import Consolidator, carry_tail, dropped_spans, redirected, split_tail
from wikigen.agents.document_facts import detect_facts
from wikigen.agents.figure_pages import FigurePlan, figure_page, owner_doc, plan_figures
from wikigen.agents.figures import Figure, FigureParams, find_figures
from wikigen.agents.page_bodies import PageMaker, label
from wikigen.agents.params import DiscoveryParams, OfflineParams
from wikigen.agents.slug_moves import move_topic_pages
from wikigen.agents.topics import discover

from wikigen.core.engine import Parallel
from wikigen.core.errors import SizeLimitError, WikigenError
from wikigen.core.slugs import doc_slug, kind_slug
from wikigen.core.text import one_line
from wikigen.wiki.injection import mark_page
from wikigen.wiki.markup import QUOTE_HEADER_RE
from wikigen.wiki.page import parse_page

if TYPE_CHECKING:
    from wikigen.agents.tools import ToolBox

__all__ = ["KIND_PREFIX", "OfflineBackend"]

log = logging.getLogger(__name__)


class OfflineBackend(AgentBackend):
    name = "offline"
    takes_turns = True  # deterministic: the same corpus and settings give the same wiki

    def __init__(
        self,
        catalog: Catalog | None = None,
        *,
        params: OfflineParams = OfflineParams(),
        discovery: DiscoveryParams = DiscoveryParams(),
        agents: int = 2,
        sessions: int = 2,
        figures: FigureParams = FigureParams(),
    ):
        self._catalog = catalog
        self.params = params
        self.discovery = discovery  # for a catalog found here (none given)
        self.agents, self.sessions = agents, sessions
        self.budget: Budget | None = None  # the size budget, once planned (None: no target ratio)
        self._plan: Plan | None = None
        self.figure_params = figures
        self._figures: FigurePlan | None = None
        self._lock = threading.Lock()
        self.sheets: dict = {}  # doc id -> its FactSheet, read once per build
        self._found: list[Figure] | None = None  # the corpus's figures, when `prepare` found them

    @property
    def dropped_kinds(self) -> frozenset[str]:
        """Collections not worth their page under the size budget."""
        return self.budget.dropped_kinds if self.budget else frozenset()

    @property
    def dropped_topics(self) -> frozenset[str]:
        """Topics left out under the size budget."""
        return self.budget.dropped_topics if self.budget else frozenset()

    @property
    def scale(self) -> float:
        """The quote budgets scaled to the size budget."""
        return self.budget.scale if self.budget else 1.0

    def prepare(self, texts, *, workers: Parallel = 1, progress=None) -> None:
        """Fact detection (document fact sheets, figures) for the whole corpus in `workers` processes,
        before the sessions: the same sheets and figures the sessions would make one by one."""
        if self._catalog is None:
            return  # the sheets need the catalog's titles: the sessions make them on demand
        titles = {d: o.title for d, o in self._catalog.outlines.items()}
        facts = detect_facts(texts, titles, figures=self.figure_params, workers=workers, progress=progress)
        with self._lock:
            self.sheets.update(facts.sheets)
            self._found = facts.figures

    def plan(self, tools: ToolBox) -> Plan:
        cat = self.catalog(tools)
        with self._lock:
            if self._plan is None:
                figures = self._plan_figures(tools, cat)
                if self.params.target_ratio is None:
                    self._plan = quote_plan(cat, self.params)
                else:
                    chars, tokens = tools.corpus_size()
                    chars = chars or sum(o.chars for o in cat.outlines.values())
                    self.budget, self._plan = plan_budget(
                        cat,
                        chars,
                        self.params,
                        agents=self.agents,
                        sessions=self.sessions,
                        corpus_tokens=tokens,
                        reserve=figures.chars,
                    )
                    log.info("size budget: %s", self.budget)
            return self._plan

    def _plan_figures(self, tools: ToolBox, cat: Catalog) -> FigurePlan:
        """The figures that get a page (called under the lock, once a build)."""
        if self._figures is None:
            target = None
            if self.params.target_ratio is not None:
                chars, tokens = tools.corpus_size()
                target = target_chars(self.params, chars or sum(o.chars for o in cat.outlines.values()), tokens)
            found = self._found if self._found is not None else find_figures(tools.corpus_texts(), self.figure_params)
            self._figures = plan_figures(found, target, self.figure_params, self.params)
            log.info(
                "figure pages: %d planned (%d characters), %d left out under the size budget",
                len(self._figures.figures),
                self._figures.chars,
                self._figures.dropped,
            )
        return self._figures

    def figures(self, tools: ToolBox) -> FigurePlan:
        self.plan(tools)
        return self._figures or FigurePlan((), 0, 0)

    def catalog(self, tools: ToolBox) -> Catalog:
        with self._lock:
            if self._catalog is None:
                self._catalog = discover(tools.corpus_texts(), tools.document_titles(), params=self.discovery)
            return self._catalog

    def run_session(self, task: AgentTask, tools: ToolBox) -> SessionOutcome:
        out = SessionOutcome(agent=task.agent, session=task.session)
        cat = self.catalog(tools)
        plan = self.plan(tools)
        run = _Session(self, cat, plan, task, tools, out)
        try:
            run.go()
        except SizeLimitError as e:
            out.errors.append(str(e))
            out.stop_reason = "budget"
        return out


class _Session(PageMaker):
    """One agent's session: what it knows, what it writes, in which order."""

    def __init__(
        self, backend: OfflineBackend, cat: Catalog, plan: Plan, task: AgentTask, tools: ToolBox, out: SessionOutcome
    ):
        super().__init__(
            cat,
            plan,
            backend.params,
            tools,
            out,
            scale=backend.scale,
            dropped_kinds=backend.dropped_kinds,
            sheets=backend.sheets,
            max_listed=backend.budget.max_listed if backend.budget else None,
        )
        self.dropped_topics = backend.dropped_topics
        self.figure_plan = backend.figures(tools)
        self.figure_params = backend.figure_params
        self.task = task
        self.me = task.agent
        self.topic_keys = [k for k in task.topics if not k.startswith(KIND_PREFIX)]
        self.kind_keys = [k[len(KIND_PREFIX) :] for k in task.topics if k.startswith(KIND_PREFIX)]
        self.mine: dict[str, dict] = {}
        self.dropped: set[tuple[str, int, int]] | None = None  # quotes a consolidation pruned

    # -- what is known ---------------------------------------------------------------------------

    def learn(self) -> None:
        listed = {p["slug"]: p for p in self.tools.list_pages()}
        self.mine = {s: p for s, p in listed.items() if p["owner"] == self.me}
        # every page there is: the offline agents take turns, so the pages of the agents before me in this session
        # are finished ones, as are those of earlier sessions
        self.known.pages = dict(listed)

    def quote(self, doc_id: str, start: int, end: int, cap: int | None = None, *, implicit: bool = False) -> str | None:
        """A quote as PageMaker makes it, except one a consolidation pruned (wikigen.agents.consolidate)."""
        made = super().quote(doc_id, start, end, cap, implicit=implicit)
        if made is None:
            return None
        if self.dropped is None:
            self.dropped = dropped_spans(self.tools)
        m = QUOTE_HEADER_RE.match(made.split("\n", 1)[0])
        if m and (doc_id, int(m.group("start")), int(m.group("end"))) in self.dropped:
            return None
        return made

    def wrote(self, slug: str, info: dict, sources: list[str]) -> None:
        self.known.pages[slug] = info
        self.known.sources[slug] = sources
        self.mine[slug] = info

    # -- the plan --------------------------------------------------------------------------------

    def go(self) -> None:
        self.learn()
        missing = [d for d in self.task.doc_ids if doc_slug(d) not in self.mine]
        kinds_missing = [k for k in self.kind_keys if kind_slug(k) not in self.mine and k not in self.dropped_kinds]
        if missing or kinds_missing:
            self.write_documents(missing)
            self.write_collections(kinds_missing)
            return
        revisable = sorted(self.mine)  # pages from earlier sessions, revised after the new ones
        new = self.write_topics()
        moved = {old for old, _ in move_topic_pages(self.tools, self.cat, self.mine, redirected(self.tools))}
        new += self.write_figures()
        new += self.revise([s for s in revisable if s not in moved])
        if not new:  # nothing new to write: consolidate (wikigen.agents.consolidate)
            self.out.consolidation = Consolidator(self.tools, self.me, self.task.session, self).run()

    # -- writing ---------------------------------------------------------------------------------

    def write(
        self,
        slug: str,
        title: str,
        description: str,
        body: str,
        type_: str,
        sources: list[str],
        aliases: list[str] | None = None,
        status: str = "draft",
    ) -> bool:
        try:
            self.tools.write_page(
                slug=slug,
                title=title,
                description=one_line(description, 200),
                body=body,
                type=type_,
                sources=sources,
                aliases=aliases or [],
                status=status,
            )
        except SizeLimitError:
            raise
        except WikigenError as e:
            self.out.errors.append(f"{slug}: {e}")
            return False
        if slug not in self.out.pages_written:
            self.out.pages_written.append(slug)
        self.wrote(
            slug, {"slug": slug, "title": title, "owner": self.me, "description": description, "type": type_}, sources
        )
        return True

    def write_documents(self, doc_ids: list[str]) -> None:
        done = [
            d
            for d in doc_ids
            if self.write(doc_slug(d), self.title(d), self.description(d), self.doc_body(d), "document", [d])
        ]
        if done:
            self.tools.append_log(
                "wrote document pages", note=f"{len(done)} documents", pages=[doc_slug(d) for d in done], docs=done
            )

    def write_collections(self, keys: list[str]) -> None:
        done = []
        for key in keys:
            made = self.collection_body(key)
            coll = self.cat.collection(key)
            if made is None or coll is None:
                continue
            body, desc, members = made
            if self.write(
                kind_slug(key),
                label(coll.title, self.p.max_title),
                desc,
                body,
                "collection",
                members,
                aliases=[label(a, self.p.max_title) for a in coll.aliases],
            ):
                done.append(kind_slug(key))
        if done:
            self.tools.append_log("wrote collection pages", pages=done)

    def write_topics(self) -> list[str]:
        gone = redirected(self.tools)  # merged into other pages by a consolidation: never written again
        todo = [
            t
            for t in (self.cat.topic(k) for k in self.topic_keys)
            if t is not None and t.slug not in self.mine and t.slug not in gone
        ]
        done: list[str] = []
        left = 0
        for t in todo:
            if len(done) >= self.p.topics_per_session:
                left += 1
                continue
            if t.key in self.dropped_topics:
                continue
            made = self.topic_body(t)
            if made is None:
                continue
            body, desc, quoted = made
            if self.write(
                t.slug,
                label(t.title, self.p.max_title),
                desc,
                body,
                "topic",
                quoted,
                aliases=[label(a, self.p.max_title) for a in t.aliases],
            ):
                done.append(t.slug)
        if done or left:
            self.tools.append_log(
                "wrote topic pages", note=f"{len(done)} topics written, {left} left for later sessions", pages=done
            )
        return done

    def write_figures(self) -> list[str]:
        """Pages for the planned figures whose owner document is in this agent's share."""
        mine = set(self.task.doc_ids)
        done = []
        for f in self.figure_plan.figures:
            if f.slug in self.mine or owner_doc(f) not in mine:
                continue
            made = figure_page(self, f, self.figure_params)
            if made is None:
                continue
            body, desc, quoted = made
            if self.write(
                f.slug,
                label(f.title, self.p.max_title),
                desc,
                body,
                "figure",
                quoted,
                aliases=[label(a, self.p.max_title) for a in f.aliases],
            ):
                done.append(f.slug)
        if done:
            self.tools.append_log("wrote figure pages", note=f"{len(done)} figures stated across documents", pages=done)
        return done

    def rebuild(self, old):
        if old.type != "figure":
            return super().rebuild(old)
        f = next((f for f in self.figure_plan.figures if f.slug == old.slug), None)
        made = figure_page(self, f, self.figure_params) if f else None
        if f is None or made is None:
            return None
        body, desc, quoted = made
        return (
            label(f.title, self.p.max_title),
            desc,
            body,
            "figure",
            quoted,
            [label(a, self.p.max_title) for a in f.aliases],
        )

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

    def revise(self, slugs: list[str]) -> list[str]:
        """Rebuild the pages; the slugs whose content changed (a confirmation is not a change)."""
        changed, confirmed = [], []
        for slug in slugs:
            if slug in self.out.pages_written:
                continue
            try:
                old = parse_page(self.tools.read_page(slug))
            except WikigenError as e:
                self.out.errors.append(f"{slug}: {e}")
                continue
            made = self.rebuild(old)
            if made is None:
                continue
            title, desc, body, type_, sources, aliases = made
            body = mark_page(carry_tail(old.body, body))  # what consolidation added stays; as the store marks it
            if strip_generated(body) == strip_generated(old.body):
                body = old.body  # only the amendments' generated text differs: nothing new to write
            desc = desc or old.description
            aliases = list(dict.fromkeys([*aliases, *old.aliases])) if split_tail(old.body)[1] else aliases
            sources = list(dict.fromkeys([*sources, *old.sources])) if split_tail(old.body)[1] else sources
            if body != old.body or sources != old.sources or title != old.title:
                if self.write(slug, title, desc, body, type_, sources, aliases, status="draft"):
                    changed.append(slug)
            elif (
                old.status == "draft"
                and self.reverified(slug)
                and self.write(slug, title, desc, body, type_, sources, aliases, status="confirmed")
            ):
                confirmed.append(slug)
        if changed:
            self.tools.append_log("revised pages", note="new evidence or links from other agents' pages", pages=changed)
        if confirmed:
            self.tools.append_log(
                "confirmed pages", note="quotes re-read from the corpus and unchanged", pages=confirmed
            )
        return changed
