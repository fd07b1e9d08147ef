"""Consolidation: what an offline agent does in a session that finds nothing new to write.

    Consolidator(tools, agent, session).run() -> {action: count}

Each action changes only the agent's own pages, through the ToolBox (quotes verified, ownership, size
guard), never deletes a page, and is logged in the progress log with its reason (fields `consolidation`,
`reason` and the action's counts):

* **reverify** - every quote of the agent's pages is read again from the current sources at its span;
  a quote that no longer matches is named (the build's freshness refresh re-anchors or removes it);
  the count of quotes re-read goes into the agent's "session finished" entry (an entry of its own only
  when some quote failed, so the log, which counts against the size budget, stays small);
* **merge** - a topic page all of whose quotes another of the agent's topic pages already carries is one
  subject with it: it is merged into that page (wikigen.wiki.merge: archived as `deprecated`, redirect,
  links repaired);
* **move** - a quote that consolidation placed on one of the agent's topic pages (in its tail, under
  FURTHER) which does not say that page's title or aliases but says another of the agent's topic pages'
  title or alias (the longest such phrase decides) belongs there: it is removed from the first page and
  written to the second (which does not quote that document yet), with its document's heading; the
  first page keeps at least one quote. The moves are logged (`moved`: "doc|start|end|from|to"), and a
  later extend never brings a moved document back to the page it left;
* **relate** - pages that share documents link each other: a topic page links the topic pages that quote
  the most of the same documents, a document page the document pages that share the most topic pages
  with it; at most RELATE_PER_SESSION new links a page a session, up to RELATE_MAX, so the link graph
  densifies session by session;
* **prune** - only when the size budget is tight (the wiki above TIGHT of its limit): the quotes of
  the agent's pages that no question-like probe reaches (each page's title and aliases, searched over
  every quote of the wiki, top PROBE_K) are dropped from its pages; the dropped spans are logged, and a
  later revision leaves them out (`dropped_spans`). Pages are never deleted;
* **extend** - while the wiki stays below EXTEND_BELOW of its size limit (each write projected), a topic
  page quotes more documents of its subject, at most EXTEND_PER_SESSION a page a session, the least
  covered pages first: those it only lists ("Also in ..."), at the span the topic catalog found, then
  documents whose text says its title or an alias (a corpus search for the title; the sentence that
  says it, at most SAID_CAP characters), each quote read through the tools (needs the agent's PageMaker);
* **flag** - a document page whose document holds text that addresses an AI agent or a tool quotes that
  line under a heading of its own (wikigen.agents.flagged; the store marks the quote), so readers and
  `ask` see it (a page written since the document page writer adds that section has it already);
* **describe** - an empty description is filled from what the page holds (how many documents it
  quotes, its topics); the index page, regenerated after every session, lists them.

The other actions that add text (relate, flag, describe) run only while the wiki is below GROW_BELOW
of its size limit, as the size guard counts it (characters or tokens, whichever is fuller).
What consolidation adds to a page sits in its tail (`Related pages:` and `## Merged from` sections),
which a later revision of the page keeps (`carry_tail`).
"""

from __future__ import annotations

import logging
import math
from collections import Counter, defaultdict
from typing import TYPE_CHECKING

from wikigen.agents.flagged import HEADINGS as FLAG_HEADINGS
from wikigen.agents.flagged import flagged_section
from wikigen.agents.moves import moved_from, plan_moves, subject_patterns, with_moved_in, without_moved_out
from wikigen.agents.tails import FURTHER, RELATED, carry_tail, split_tail  # noqa: F401 - carry_tail re-exported

from wikigen.core.errors import WikigenError
from wikigen.core.sentences import sentence_span
from wikigen.core.text import one_line
from wikigen.wiki.page import Page, parse_page

if TYPE_CHECKING:
    from wikigen.agents.catalog import Topic
    from wikigen.agents.page_bodies import PageMaker
    from wikigen.agents.tools import ToolBox

log = logging.getLogger(__name__)

RELATE_PER_SESSION = 3
RELATE_MAX = 9
MIN_SHARED = 1
TIGHT = 0.9  # above this share of the size limit, prune; below it nothing is dropped
GROW_BELOW = 0.6  # actions that add text (relate, flag, describe) run only below this share
EXTEND_BELOW = 0.75  # ... extend (quotes on topic pages, what the wiki knows) up to this share, each write
# projected (the guard warns at 0.8)
EXTEND_PER_SESSION = 8
SAID_ROUNDS = 4  # searches of 20 passages a page a session, for documents that say its title
SAID_CAP = 300  # characters of the sentence quoted from such a document
SAID_MIN = 80  # a shorter one (a heading) is quoted with the sentence that follows it
PROBE_K = 20
ACTIONS = ("reverify", "merge", "move", "relate", "extend", "flag", "prune", "describe")
REASONS = {
    "reverify": "nothing new to write: every quote is read again from the current sources",
    "merge": "all quotes of the merged page are already on the kept page: one subject",
    "move": "the quote says another page's subject and not its own page's: moved to the page it belongs on",
    "relate": "pages that share documents link each other, so the link graph densifies",
    "prune": "the size budget is tight: quotes that no question-like probe reaches are dropped",
    "extend": "the size budget has room: topic pages quote more documents of their subject (listed, or saying it)",
    "flag": "the document holds text addressed to an AI agent or a tool: quoted and marked, never followed",
    "describe": "empty descriptions filled from what the page holds, for the index page and search",
}


def _cosine(a: set, b: set) -> float:
    return len(a & b) / math.sqrt(len(a) * len(b)) if a and b else 0.0


class Consolidator:
    def __init__(self, tools: ToolBox, agent: str, session: int, maker: PageMaker | None = None):
        self.tools, self.me, self.session = tools, agent, session
        self.maker = maker  # the agent's PageMaker (catalog, plan, quote): needed by extend only
        self.pages: dict[str, Page] = {}
        self.counts: Counter = Counter()
        self._docs: list[str] | None = None
        self._moved: dict[str, set[str]] | None = None

    def load(self) -> None:
        self.pages = {}
        for info in self.tools.list_pages():
            try:
                self.pages[info["slug"]] = parse_page(self.tools.read_page(info["slug"]))
            except WikigenError as e:
                log.info("consolidation: %s: %s", info["slug"], e)  # merged by another agent meanwhile

    def mine(self, type_: str | None = None) -> list[Page]:
        return [p for s, p in sorted(self.pages.items()) if p.owner == self.me and (type_ is None or p.type == type_)]

    def run(self) -> dict[str, int]:
        """Every action in order; {action: count}, or {} for an agent that owns no page yet."""
        self.load()
        if not self.mine():
            return {}
        self.reverify()
        self.merge()
        self.move()
        self.flag()  # the small, telling additions first; extend, which fills the budget, last
        self.describe()
        self.relate()
        self.extend()
        self.prune()
        counts = {a: self.counts[a] for a in ACTIONS if self.counts[a]}
        if self.fullness() >= GROW_BELOW:  # the log counts against the budget: a full wiki logs only changes
            counts.pop("reverify", None)
        return counts

    def _write(self, page: Page, *, grow: bool = True, below: float = GROW_BELOW) -> bool:
        """Write one of the agent's pages; a write that adds text only while the wiki stays below `below`
        of its size limit once written (GROW_BELOW unless the action says otherwise)."""
        old = self.pages.get(page.slug)
        if grow and self.fullness(len(page.body) - len(old.body) if old is not None else len(page.body)) >= below:
            return False
        try:
            self.tools.write_page(
                slug=page.slug,
                title=page.title,
                description=page.description,
                body=page.body,
                type=page.type,
                sources=page.sources,
                aliases=page.aliases,
                status=page.status,
            )
        except WikigenError as e:
            log.info("consolidation: %s not written: %s", page.slug, e)
            return False
        self.pages[page.slug] = page
        return True

    # -- the actions ---------------------------------------------------------------------------------

    def reverify(self) -> None:
        checked, failed = 0, []
        for page in self.mine():
            for q in page.quotes():
                checked += 1
                try:
                    ok = self.tools.read_document(q.doc_id, q.start, q.end).text == q.text
                except WikigenError:
                    ok = False
                if not ok:
                    failed.append(f"{page.slug}: {q.doc_id} (chars {q.start}-{q.end})")
        self.entry(
            "reverify",
            [p.slug for p in self.mine()] if failed else [],
            f"{checked} quotes re-read from the sources, {len(failed)} no longer at their span",
            quotes=checked,
            failed=failed[:20],
        )

    def merge(self) -> None:
        topics = self.mine("topic")
        spans = {p.slug: {(q.doc_id, q.start, q.end) for q in p.quotes()} for p in topics}
        merged: list[str] = []
        gone: set[str] = set()
        for small in sorted(topics, key=lambda p: (len(spans[p.slug]), p.slug)):
            if small.slug in gone or not spans[small.slug]:
                continue
            into = [
                p
                for p in topics
                if p.slug != small.slug
                and p.slug not in gone
                and spans[small.slug] <= spans[p.slug]
                and len(spans[p.slug]) > len(spans[small.slug])
            ]
            if not into:
                continue
            keep = min(into, key=lambda p: (len(spans[p.slug]), p.slug))
            try:
                self.tools.merge_pages(keep.slug, small.slug)
            except WikigenError as e:
                log.info("consolidation: merge %s into %s refused: %s", small.slug, keep.slug, e)
                continue
            gone.add(small.slug)
            merged += [small.slug, keep.slug]
        if gone:
            self.load()
        self.entry(
            "merge", merged, f"{len(gone)} pages merged into pages that carry all their quotes", merged=len(gone)
        )

    def _page_known(self, slug: str) -> bool:
        """A page of the wiki: one of those loaded, or one the agent's PageMaker knows of."""
        return slug in self.pages or (self.maker is not None and self.maker.known.has(slug))

    def _moved_from(self) -> dict[str, set[str]]:
        """{page slug: documents whose quote a move took off that page} (from the progress log, read once)."""
        if self._moved is None:
            self._moved = moved_from(self.tools.log_entries())
        return self._moved

    def move(self) -> None:
        """Quotes in a topic page's tail that say another of the agent's topic pages' subject, not their own
        (agents.moves.plan_moves). The targets are written first (the quotes land), then the quotes leave
        their sources; a source whose quotes did not land keeps them."""
        moves, leaving = plan_moves(self.mine("topic"), self.pages, self._page_known)
        landed: set[tuple[str, str, int, int]] = set()
        changed, moved = [], []
        for slug, items in sorted(moves.items()):
            if self._write(with_moved_in(self.pages[slug], items, self.pages), grow=False):
                changed.append(slug)
                for src, b in items:
                    landed.add((src, b.quote.doc_id, b.quote.start, b.quote.end))
                    moved.append(f"{b.quote.doc_id}|{b.quote.start}|{b.quote.end}|{src}|{slug}")
        for slug, blocks in sorted(leaving.items()):
            go = [b for b in blocks if (slug, b.quote.doc_id, b.quote.start, b.quote.end) in landed]
            if go and self._write(without_moved_out(self.pages[slug], go), grow=False):
                changed.append(slug)
        if moved:
            self._moved = None
        self.entry(
            "move",
            sorted(set(changed)),
            f"{len(moved)} quotes moved to the pages whose subject they say",
            moved=moved,
            quotes_moved=len(moved),
        )

    def _doc_sets(self) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
        """{topic slug: documents it quotes}, {document page slug: topic pages quoting its document}."""
        topic_docs = {
            s: {q.doc_id for q in p.quotes()} | set(p.sources) for s, p in self.pages.items() if p.type == "topic"
        }
        doc_page = {p.sources[0]: s for s, p in self.pages.items() if p.type == "document" and p.sources}
        doc_topics: dict[str, set[str]] = defaultdict(set)
        for t, docs in topic_docs.items():
            for d in docs:
                if d in doc_page:
                    doc_topics[doc_page[d]].add(t)
        return topic_docs, doc_topics

    def relate(self) -> None:
        if self.fullness() >= GROW_BELOW:
            return
        topic_docs, doc_topics = self._doc_sets()
        changed, added = [], 0
        for page in self.mine():
            table = topic_docs if page.type == "topic" else doc_topics if page.type == "document" else None
            if table is None or page.slug not in table:
                continue
            have = set(page.links())
            mine = table[page.slug]
            ranked = sorted(
                (
                    (len(mine & other), _cosine(mine, other), s)
                    for s, other in table.items()
                    if s != page.slug and s not in have and len(mine & other) >= MIN_SHARED
                ),
                key=lambda x: (-x[0], -x[1], x[2]),
            )
            head, tail = split_tail(page.body)
            related = [line for line in tail.split("\n") if line.startswith(RELATED)]
            old = [x.strip() for x in related[0][len(RELATED) :].split(",")] if related else []
            room = min(RELATE_PER_SESSION, RELATE_MAX - len(old))
            new = [f"[[{s}]]" for _, _, s in ranked[: max(0, room)]]
            if not new:
                continue
            line = RELATED + ", ".join(old + new)
            rest = [x for x in tail.split("\n") if not x.startswith(RELATED)] if tail else []
            body = (
                "\n\n".join([head, line] + (["\n".join(rest).strip("\n")] if any(r.strip() for r in rest) else []))
                + "\n"
            )
            if self._write(page.with_(body=body)):
                changed.append(page.slug)
                added += len(new)
        self.entry("relate", changed, f"{added} links added between pages that share documents", links_added=added)

    def fullness(self, extra: int = 0) -> float:
        """How full the size budget is now (1.0: at the limit), as the size guard counts it: characters, or
        tokens estimated from the characters now at the tokens-per-character of the last session's end,
        whichever is fuller; with `extra` characters more when given."""
        chars, limit = self.tools.wiki_size()
        chars += max(0, extra)
        now = chars / limit if limit else 1.0
        last = next((e for e in reversed(self.tools.log_entries()) if e.get("action") == "session summary"), None)
        if last is None:
            return now
        try:
            per_char = last["wiki_tokens"] / last["wiki_chars"]
            return max(now, chars * per_char / (last["corpus_tokens"] * float(last["max_ratio"])))
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            return now

    def extend(self) -> None:
        maker = self.maker
        if maker is None or self.fullness() >= EXTEND_BELOW:
            return
        topics = {t.slug: t for t in maker.cat.topics}
        changed, added = [], 0
        # the least covered subjects first, so a budget that runs out mid-session leaves the well covered ones
        for page in sorted(self.mine("topic"), key=lambda p: (len({q.doc_id for q in p.quotes()}), p.slug)):
            sections = self._extension(maker, page, topics.get(page.slug))
            if not sections:
                continue
            head, tail = split_tail(page.body)
            if FURTHER not in tail:
                tail = "\n\n".join(x for x in (tail, FURTHER) if x)
            body = "\n\n".join([head, tail, *(sec for _, sec in sections)]) + "\n"
            sources = list(dict.fromkeys([*page.sources, *(d for d, _ in sections)]))
            if self._write(page.with_(body=body, sources=sources), below=EXTEND_BELOW):
                changed.append(page.slug)
                added += len(sections)
        self.entry("extend", changed, f"{added} quotes added for documents of the pages' subjects", quotes_added=added)

    def _extension(self, maker: PageMaker, page: Page, t: Topic | None) -> list[tuple[str, str]]:
        """(doc id, section) for up to EXTEND_PER_SESSION documents of the page's subject that it does not
        quote yet: first those the topic catalog found but the plan left out (at the catalog's span), then
        those whose text says the page's title or an alias (a search of the corpus, best first: the
        sentence that says it)."""
        from wikigen.core.slugs import doc_slug

        quoted = {q.doc_id for q in page.quotes()} | self._moved_from().get(page.slug, set())
        cap = None
        if t is not None:
            caps = [c for d in quoted if (c := maker.plan.get((t.key, d))) is not None]
            cap = min(caps) if caps else None
        sections: list[tuple[str, str]] = []

        def add(d: str, start: int, end: int, limit: int | None) -> None:
            q = maker.quote(d, start, end, limit)
            if q:
                sections.append((d, f"## [[{doc_slug(d)}]]\n\n{q}"))
                quoted.add(d)

        for d in t.doc_ids if t is not None else []:
            if len(sections) >= EXTEND_PER_SESSION:
                return sections
            span = t.spans.get(d) if t is not None else None
            if d not in quoted and span is not None and maker.known.has(doc_slug(d)):
                add(d, span[0], span[1], cap)
        for d, start, end in self._said(page, quoted, EXTEND_PER_SESSION - len(sections)):
            if len(sections) >= EXTEND_PER_SESSION:
                break
            if maker.known.has(doc_slug(d)):
                add(d, start, end, None)
        return sections

    def _said(self, page: Page, quoted: set[str], need: int) -> list[tuple[str, int, int]]:
        """(doc id, start, end) of the sentence, in up to `need` documents not in `quoted`, that says the
        page's title or one of its aliases (as a phrase), found by searching the corpus for the title."""
        pats = [p for p, _ in subject_patterns(page)]
        docs = self._docs if self._docs is not None else self._load_docs()
        if need <= 0 or not pats or not docs:
            return []
        out: list[tuple[str, int, int]] = []
        tried = set(quoted)
        for _ in range(SAID_ROUNDS):
            ids = [d for d in docs if d not in tried]
            if not ids:
                break
            try:
                hits = self.tools.search_corpus(page.title, k=20, doc_ids=ids)
            except WikigenError as err:
                log.info("consolidation: search for %s: %s", page.slug, err)
                break
            if not hits:
                break
            for h in hits:
                if any(d == h.doc_id for d, _, _ in out):
                    continue
                m = next((m for pat in pats if (m := pat.search(h.text))), None)
                if m is None:
                    continue
                s, e = sentence_span(h.text, m.start(), m.end(), SAID_CAP)
                if e - s < SAID_MIN and e < len(h.text):  # a heading ("Termination."): and the sentence after it
                    s, e = sentence_span(h.text, m.start(), e + 1, SAID_CAP)
                out.append((h.doc_id, h.start + s, h.start + e))
                if len(out) >= need:
                    return out
            tried.update(h.doc_id for h in hits)  # their best passages do not say it: not this session
        return out

    def _load_docs(self) -> list[str]:
        """The corpus's doc ids, read once (none when the list cannot be read)."""
        try:
            self._docs = sorted(self.tools.document_titles())
        except WikigenError as e:
            log.info("consolidation: no document list: %s", e)
            self._docs = []
        return self._docs

    def flag(self) -> None:
        if self.maker is None or self.fullness() >= GROW_BELOW:
            return
        changed = []
        for page in self.mine("document"):
            head, tail = split_tail(page.body)
            if any(h in tail for h in FLAG_HEADINGS) or not page.sources:  # written with the page, or before
                continue
            section = flagged_section(self.maker, page.sources[0])
            if not section:
                continue
            body = "\n\n".join(x for x in (head, tail, section.strip("\n")) if x) + "\n"
            if self._write(page.with_(body=body)):
                changed.append(page.slug)
        self.entry("flag", changed, f"{len(changed)} document pages quote text addressed to an AI agent or a tool")

    def unreached(self) -> set[tuple[str, str, int, int]]:
        """(slug, doc id, start, end) of the agent's quotes that no probe reaches."""
        from wikigen.ask.page_index import PageIndex

        pages = list(self.pages.values())
        index = PageIndex.build(pages)
        reached: set[tuple[str, str, int, int]] = set()
        for p in pages:
            for probe in dict.fromkeys([p.title, *p.aliases]):
                for h in index.search_quotes(probe, k=PROBE_K, by_page=False):  # by what the quote says
                    u = h.unit
                    reached.add((u.slug, u.doc_id, u.start, u.end))
        return {(p.slug, q.doc_id, q.start, q.end) for p in self.mine() for q in p.quotes()} - reached

    def prune(self) -> None:
        full = self.fullness()
        if full <= TIGHT:
            return
        drop = self.unreached()
        changed, dropped = [], []
        for page in self.mine():
            gone = [b for b in page.quote_blocks() if (page.slug, b.quote.doc_id, b.quote.start, b.quote.end) in drop]
            if not gone or len(gone) == len(page.quotes()):
                continue  # a page keeps at least one quote: pruning never empties a page
            lines = page.body.split("\n")
            cut = {i for b in gone for i in range(b.header_line, b.end_line)}
            body = "\n".join(x for i, x in enumerate(lines) if i not in cut)
            while "\n\n\n" in body:
                body = body.replace("\n\n\n", "\n\n")
            if self._write(page.with_(body=body), grow=False):
                changed.append(page.slug)
                dropped += [f"{b.quote.doc_id}|{b.quote.start}|{b.quote.end}" for b in gone]
        self.entry(
            "prune",
            changed,
            f"{len(dropped)} quotes no probe reaches dropped (wiki at {full:.0%} of its size limit)",
            dropped=dropped,
            quotes_dropped=len(dropped),
        )

    def describe(self) -> None:
        if self.fullness() >= GROW_BELOW:
            return
        _, doc_topics = self._doc_sets()
        changed = []
        for page in self.mine():
            if page.description.strip():
                continue
            docs = {q.doc_id for q in page.quotes()} | set(page.sources)
            if page.type == "document":
                topics = sorted(doc_topics.get(page.slug, ()), key=lambda s: self.pages[s].title)[:4]
                names = ", ".join(self.pages[s].title for s in topics)
                desc = f"{page.title}: {len(page.quotes())} passages quoted" + (f"; topics: {names}" if names else "")
            else:
                desc = f"{page.title}: what {len(docs)} documents say, quoted"
            if self._write(page.with_(description=one_line(desc, 200))):
                changed.append(page.slug)
        self.entry("describe", changed, f"{len(changed)} descriptions filled", described=len(changed))

    def entry(self, action: str, pages: list[str], note: str, **extra) -> None:
        """Count the action and log it with its reason (a reverify only when some quote failed)."""
        n = {
            "reverify": extra.get("quotes", 0),
            "merge": extra.get("merged", 0),
            "prune": extra.get("quotes_dropped", 0),
            "move": extra.get("quotes_moved", 0),
            "extend": extra.get("quotes_added", 0),
        }.get(action, len(pages))
        self.counts[action] += n
        if (n and action != "reverify") or extra.get("failed"):
            self.tools.append_log(
                f"consolidation: {action}",
                note=note,
                pages=pages,
                consolidation=action,
                reason=REASONS[action],
                **{k: v for k, v in extra.items() if v not in ([], None)},
            )


def dropped_spans(tools) -> set[tuple[str, int, int]]:
    """(doc id, start, end) of every quote a prune dropped (from the progress log): a revision leaves them out."""
    out = set()
    for e in tools.log_entries():
        if e.get("consolidation") == "prune":
            for item in e.get("dropped") or []:
                doc, _, rest = str(item).rpartition("|")
                doc, _, start = doc.rpartition("|")
                try:
                    out.add((doc, int(start), int(rest)))
                except ValueError:
                    continue
    return out


def redirected(tools) -> set[str]:
    """Slugs merged into other pages: never written again (the redirect sends their links on)."""
    return set(tools.redirects())
