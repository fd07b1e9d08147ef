"""The offline agent's pages: the body of a document, collection or topic page from the catalog, the quote
plan and what the agent knows of the wiki, every quote read through the ToolBox.

* a **document page** names its collections, links the topics its defined terms and key passages
  belong to, lists dates near its start, quotes its opening and one short passage per major
  heading, links the topic pages of its subjects (whether they quote it or only list or count it), and
  ends by quoting the lines that address an AI agent or a tool, if any (wikigen.agents.flagged);
* a **collection page** lists its members;
* a **topic page** quotes the topic from each covered document the quote plan grants, links the
  other documents that have it (under the size budget, the first few, and counts the rest: their
  pages link it), and links related topics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from wikigen.agents.base import SessionOutcome
from wikigen.agents.budget import Plan, document_budget, facts_budget, key_passage_count, opening_cap, passages_budget
from wikigen.agents.catalog import Catalog, Outline, Topic
from wikigen.agents.document_facts import FACTS_CHARS, document_sheet, with_provisions
from wikigen.agents.flagged import flagged_section
from wikigen.agents.params import OfflineParams
from wikigen.agents.topics import related
from wikigen.agents.words import norm_key
from wikigen.search.facts.sheet import Fact, FactSheet

from wikigen.core.errors import WikigenError
from wikigen.core.sentences import cap_span
from wikigen.core.slugs import doc_slug, slugify
from wikigen.core.text import one_line, trim_span
from wikigen.wiki.markup import WIKI_RE, Quote, format_quote
from wikigen.wiki.page import Page, parse_page
from wikigen.wiki.provisions import CHECK, NOT_STATED, POSSIBLE, STATED, mark
from wikigen.wiki.secrets import redact, secrets_in_quote

if TYPE_CHECKING:
    from wikigen.agents.tools import ToolBox

__all__ = ["Known", "PageMaker", "label", "link"]

_QUOTE_HEADER_LIKE = re.compile(r"^\s*\[!quote\]", re.IGNORECASE | re.MULTILINE)
_WHAT = {
    "heading": "the section under this heading",
    "term": "its definition",
    "entity": "passages naming it",
    "phrase": "passages on it",
}

SHORT_DOCUMENT = 3000  # characters: a shorter document's description leaves out its parties

Rebuilt = tuple[str, str, str, str, list[str], list[str]]  # title, description, body, type, sources, aliases


def label(text: str, limit: int) -> str:
    """Text that is safe inside [[slug|label]] and a heading, at most `limit` characters."""
    return one_line(re.sub(r"[\[\]|#>*`]", " ", text), limit) or "untitled"


def link(slug: str, text: str, limit: int) -> str:
    """[[slug]] when the slug already reads as the label ("topic-law" for "Law", "kind-nda" for "Nda
    documents", "topic-definition" for "Definitions"), else [[slug|label]]."""
    said = slugify(text)
    key = slug.split("-", 1)[1] if "-" in slug else slug
    if (
        said
        and len(key) >= 3
        and (said == key or said.startswith(key) or key.startswith(said + "-") or key.endswith("-" + said))
    ):
        return f"[[{slug}]]"
    return f"[[{slug}|{label(text, limit)}]]"


@dataclass
class Known:
    """What the agent may build on in this session."""

    pages: dict[str, dict] = field(default_factory=dict)  # slug -> list_pages info
    sources: dict[str, list[str]] = field(default_factory=dict)  # topic slug -> doc ids it quotes

    def has(self, slug: str) -> bool:
        return slug in self.pages


class PageMaker:
    """Page bodies for one agent's session; `known` is filled by the session."""

    def __init__(
        self,
        cat: Catalog,
        plan: Plan,
        params: OfflineParams,
        tools: ToolBox,
        out: SessionOutcome,
        *,
        scale: float = 1.0,
        dropped_kinds: frozenset[str] = frozenset(),
        sheets: dict[str, FactSheet] | None = None,
        max_listed: int | None = None,
    ):
        self.cat, self.plan, self.p, self.tools, self.out = cat, plan, params, tools, out
        self.scale = scale
        self.dropped_kinds = dropped_kinds
        self.max_listed = max_listed  # a topic page links this many of the documents it does not quote (None: all)
        self.known = Known()
        self._titles: dict[str, str] = {}
        self._sheets: dict[str, FactSheet] = {} if sheets is None else sheets  # shared by a build's sessions
        self._settled: dict[str, FactSheet] = {}  # the sheets with the provisions table's values

    def link(self, slug: str, text: str) -> str:
        return link(slug, text, self.p.max_title)

    def label(self, text: str) -> str:
        return label(text, self.p.max_title)

    def sources_of(self, slug: str) -> list[str]:
        if slug not in self.known.sources:
            try:
                self.known.sources[slug] = parse_page(self.tools.read_page(slug)).sources
            except WikigenError:
                self.known.sources[slug] = []
        return self.known.sources[slug]

    def title(self, doc_id: str) -> str:
        if doc_id not in self._titles:
            outline = self.cat.outlines.get(doc_id)
            title = outline.title if outline else ""
            if not title:
                try:
                    title = self.tools.read_document(doc_id, 0, 1).title
                except WikigenError:
                    title = ""
            self._titles[doc_id] = self.label(redact(title or doc_id))  # a title never carries a secret
        return self._titles[doc_id]

    def sheet(self, doc_id: str) -> FactSheet:
        """The document's fact sheet (title, description, key facts), its key facts as the provisions table says
        them where its kind's fields state them too (`with_provisions`: the page states one value per fact)."""
        if doc_id not in self._settled:
            row, fields = self.tools.document_values(doc_id)
            self._settled[doc_id] = with_provisions(self._sheet(doc_id), row, fields)
        return self._settled[doc_id]

    def _sheet(self, doc_id: str) -> FactSheet:
        """The document's fact sheet as its text gives it: made before the sessions by the build
        (`wikigen.agents.document_facts`), else here from its text read through the tools."""
        if doc_id not in self._sheets:
            outline = self.cat.outlines.get(doc_id)
            chars = min(outline.chars if outline and outline.chars else FACTS_CHARS, FACTS_CHARS)
            parts, pos = [], 0
            try:
                while pos < chars:
                    span = self.tools.read_document(doc_id, pos, chars)
                    if span.end <= pos:
                        break
                    parts.append(span.text)
                    pos = span.end
            except WikigenError as e:
                self.out.errors.append(f"read {doc_id}: {e}")
            self._sheets[doc_id] = document_sheet("".join(parts), outline.title if outline else "")
        return self._sheets[doc_id]

    def description(self, doc_id: str) -> str:
        """A document page's one-line description (a description never carries a secret); a short document's
        leaves out the parties (its page has little room, and they are in its key facts)."""
        outline = self.cat.outlines.get(doc_id)
        sheet = self.sheet(doc_id)
        short = outline is not None and 0 < outline.chars < SHORT_DOCUMENT
        return one_line(redact(sheet.short if short and sheet.short else sheet.description), 200)

    def quote(self, doc_id: str, start: int, end: int, cap: int | None = None, *, implicit: bool = False) -> str | None:
        """The quote form for text[start:end] read through the tools, cut to cap; None if unusable. implicit:
        without the doc id (for the document's own page, whose only source it is)."""
        try:
            span = self.tools.read_document(doc_id, start, end)
        except WikigenError as err:
            self.out.errors.append(f"read {doc_id}: {err}")
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
        if kept_out := secrets_in_quote(doc_id, span.start + s, body):  # never quote a secret
            self.out.errors.append(kept_out)
            return None
        try:
            return format_quote(Quote(doc_id, span.start + s, span.start + e, body), implicit=implicit)
        except WikigenError as err:  # one bad document is skipped with an error line, never ends the session
            self.out.errors.append(f"quote {doc_id!r}: {err}")
            return None

    # -- documents -------------------------------------------------------------------------------

    def _collections_line(self, doc_id: str) -> list[str]:
        parts = []
        colls = [c for c in self.cat.collections_of(doc_id) if c.key not in self.dropped_kinds][:3]
        if colls:
            parts.append("In " + ", ".join(self.link(c.slug, c.title) for c in colls) + ".")
        # a collection without a page (under the size budget): its members link each other instead
        peers = [
            m for c in self.cat.collections_of(doc_id) if c.key in self.dropped_kinds for m in c.members if m != doc_id
        ]
        if peers:
            parts.append("See also " + ", ".join(f"[[{doc_slug(m)}]]" for m in list(dict.fromkeys(peers))[:3]) + ".")
        return parts

    def _defines_line(self, outline: Outline | None) -> list[str]:
        names = []
        for term in dict.fromkeys(outline.terms if outline else []):
            t = self.cat.topic(norm_key(term))
            if t is not None and self.known.has(t.slug):
                names.append(self.link(t.slug, term))
        return ["Defines " + ", ".join(names[:8]) + "."] if names else []

    def _key_facts(self, doc_id: str, budget: float, *, only_title: bool = False) -> tuple[list[str], float]:
        """A "Key facts" section: each fact as a heading ("Effective date: 2023-03-01"), then the quote of the
        sentence that states it (facts stated by one sentence share its quote), within `budget` characters;
        and the characters spent."""
        groups: list[tuple[tuple[int, int], list[Fact]]] = []  # in the sheet's order (most telling first)
        for f in self.sheet(doc_id).facts:
            i = next((i for i, (q, _) in enumerate(groups) if q[0] < f.quote[1] and f.quote[0] < q[1]), None)
            if i is None:
                groups.append((f.quote, [f]))
            elif f.kind != "term":  # a term defined in a sentence already quoted (a party's alias) says nothing new
                (qs, qe), facts = groups[i]
                groups[i] = ((min(qs, f.quote[0]), max(qe, f.quote[1])), facts + [f])  # the quote carries every fact
        outline = self.cat.outlines.get(doc_id)
        short = outline is not None and 0 < outline.chars < SHORT_DOCUMENT  # no room to spare on its page
        lines: list[str] = []
        spent = 0.0
        shown: list[Fact] = []
        title = [(span, facts) for span, facts in groups if all(f.kind == "title" for f in facts)]
        rest = (
            [] if only_title else [(span, facts) for span, facts in groups if not all(f.kind == "title" for f in facts)]
        )

        def cost_of(span: tuple[int, int], facts: list[Fact]) -> float:
            return (span[1] - span[0]) + 40 + 20 * len(facts)

        # the first fact after the title (parties or date) may take twice the budget, when none fits in it
        title_cost = sum(cost_of(*g) for g in title)
        stretch = not short and not any(title_cost + cost_of(*g) <= budget for g in rest)
        for span, facts in rest + title if short else title + rest:  # a short page: the title if room is left
            s, e = span
            cost = cost_of(span, facts)
            first = (span, facts) in rest and all(f.kind == "title" for f in shown)
            if spent + cost > (2 * budget if first and stretch else budget):
                continue
            q = self.quote(doc_id, s, e, implicit=True)  # the sheet's span: the whole sentence, capped around its fact
            if not q:
                continue
            said = "; ".join(f"{f.label}: {self.label(redact(f.value))}" for f in facts)
            line = f"### {said}\n\n{q}"  # a heading: the quote is found by what it states
            if (span, facts) in title:
                lines.insert(0, line)  # shown first
            else:
                lines.append(line)
            shown += facts
            spent += cost
        if only_title:
            return lines, spent
        return (["## Key facts\n\n" + "\n\n".join(lines)] if lines else []), spent

    def _dates_and_opening(self, doc_id: str, outline: Outline | None, budget: float) -> list[str]:
        parts = []
        opening_text = ""
        if outline and outline.opening:
            try:
                opening_text = self.tools.read_document(doc_id, *outline.opening).text
            except WikigenError:
                opening_text = ""
        dates = [d for d in (outline.dates if outline else []) if d not in opening_text[:500]]
        if dates:
            parts.append("Dates near the start: " + "; ".join(dates[:4]) + ".")
        if outline and outline.opening:
            q = self.quote(doc_id, *outline.opening, cap=int(opening_cap(self.p, self.scale, budget)), implicit=True)
            if q:
                parts.append(q)
        return parts

    def _key_passages(self, doc_id: str, outline: Outline | None, budget: float) -> list[str]:
        """The document's key passages, best first, while their text fits the passages' share of the budget
        (a quote runs past its cap to keep its sentence whole, so the count alone would overshoot); then in
        the document's order."""
        n_key = key_passage_count(self.p, budget)
        share = n_key * self.p.key_passage_chars
        opening = outline.opening if outline and outline.opening else (0, 0)
        picked: list[tuple[int, str]] = []
        used = 0
        for text, key, s, e in self.key_passages(doc_id)[:n_key] if n_key else []:
            if used >= share:
                break
            if opening[0] <= s and e <= opening[1] + 200:
                continue  # the opening already shows it
            q = self.quote(doc_id, s, e, self.p.key_passage_chars, implicit=True)
            if not q:
                continue
            used += sum(len(line) - 1 for line in q.split("\n")[1:])
            t = self.cat.topic(key)
            head = self.link(t.slug, text) if t is not None and self.known.has(t.slug) else self.label(text)
            picked.append((s, f"## {head}\n\n{q}"))
        return ["\n\n".join(block for _, block in sorted(picked, key=lambda x: x[0]))] if picked else []

    def _provisions(self, doc_id: str) -> list[str]:
        """A "Provisions" section: the values the document states, one line each (the provisions table's row,
        wikigen.agents.provisions; each value's quote is in the table, `wikigen table`), and the fields it does not
        state. Short: the page's quotes stay with its key passages; a possible cell (a clause that may state the
        field, no value claimed) is marked in the list with where its clause is, quoted in the table like a value's
        (a page quoting every possible clause grew past its corpus on small ones)."""
        row, fields = self.tools.document_values(doc_id)
        cells = row.get("cells") or {}
        if not row.get("kind") or not cells:
            return []
        lines, missing = [], []
        for f in fields:
            cell = cells.get(f["name"]) or {}
            if cell.get("status") == POSSIBLE and cell.get("quote"):
                s, e = cell["quote"]
                lines.append(f"- {self.label(f['label'])}: {mark(POSSIBLE)} ({CHECK}: chars {int(s)}-{int(e)})")
            elif cell.get("status") == STATED:
                line = f"- {self.label(f['label'])}: {self.label(redact(str(cell.get('display') or 'Yes')))}"
                also = [redact(str(o.get("norm") or "")) for o in cell.get("others") or ()]
                if also:  # another sentence states another value: the reader sees both ("Stated differently")
                    line += " (another sentence says " + self.label(", ".join(also)) + ")"
                lines.append(line)
            elif cell.get("status") == NOT_STATED:
                missing.append(f["label"])
        if not lines and not missing:
            return []
        text = "\n".join(["## Provisions", "", *lines])
        if missing:
            text += ("\n\n" if lines else "") + "Not stated: " + ", ".join(missing) + "."
        return [text]

    def doc_body(self, doc_id: str) -> str:
        outline = self.cat.outlines.get(doc_id)
        budget = document_budget(self.p, self.scale, outline.chars if outline else 0)
        parts = self._collections_line(doc_id) + self._defines_line(outline)
        parts += self._provisions(doc_id)  # the document's values first, then what it says
        facts, spent = self._key_facts(doc_id, facts_budget(self.p, self.scale, budget))
        if facts:  # the facts carry what the opening quote was for (title, parties, date)
            parts += facts + self._key_passages(doc_id, outline, passages_budget(self.p, self.scale, budget, spent))
        else:
            parts += self._dates_and_opening(doc_id, outline, budget) + self._key_passages(doc_id, outline, budget)
        flagged = flagged_section(self, doc_id)  # text addressed to an AI agent, quoted under its heading, last
        return self._links_tail(doc_id, parts) + (f"\n{flagged}" if flagged else "")

    def _links_tail(self, doc_id: str, parts: list[str]) -> str:
        """The page's body: its parts, then links to the topic and figure pages of its subjects."""
        # quoted there, or listed or counted in "Also in"
        has = {t.slug for t in self.cat.topics if doc_id in t.spans}
        linked = {m.group(1) for m in WIKI_RE.finditer("\n".join(parts))}  # a key passage's heading links its topic
        topics = [
            (slug, info)
            for slug, info in sorted(self.known.pages.items())
            if info.get("type") == "topic" and (slug in has or doc_id in self.sources_of(slug)) and slug not in linked
        ]
        if topics:
            parts.append(
                "Topics: " + ", ".join(self.link(slug, info.get("title") or slug) for slug, info in topics) + "."
            )
        figures = [
            (slug, info)
            for slug, info in sorted(self.known.pages.items())
            if info.get("type") == "figure" and doc_id in self.sources_of(slug)
        ]
        if figures:  # figure pages (wikigen.agents.figure_pages) that quote this document's line
            parts.append(
                "Figures: " + ", ".join(self.link(slug, info.get("title") or slug) for slug, info in figures) + "."
            )
        return "\n\n".join(parts) + "\n"

    def key_passages(self, doc_id: str) -> list[tuple[str, str, int, int]]:
        """The document's subjects that no topic page quotes it on (the best-supported topics first), then one
        short passage per major heading (recurring headings first), else the doc's topic quotes: what the
        document says on a subject is then in the wiki once, on a topic page or on the document's own."""
        unquoted = [
            (t.title, t.key, *t.spans[doc_id])
            for t in self.cat.topics
            if doc_id in t.spans and (t.key, doc_id) not in self.plan
        ]
        if unquoted:
            rest = [
                h for h in self._heading_passages(doc_id) if not any(h[2] < e and s < h[3] for _, _, s, e in unquoted)
            ]
            return unquoted + rest
        return self._heading_passages(doc_id)

    def _heading_passages(self, doc_id: str) -> list[tuple[str, str, int, int]]:
        outline = self.cat.outlines.get(doc_id)
        heads = outline.headings if outline else []
        if heads:
            top = min(h.level for h in heads)
            major = [h for h in heads if h.level == top and h.span[1] > h.span[0]]
            recurring = [h for h in major if self.cat.topic(h.key) is not None]
            pick = (recurring + [h for h in major if h not in recurring])[: self.p.max_key_passages]
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
                if len(out) >= self.p.max_key_passages:
                    break
        return sorted(out, key=lambda x: x[2])

    # -- collections and topics ------------------------------------------------------------------

    def collection_body(self, key: str) -> tuple[str, str, list[str]] | None:
        coll = self.cat.collection(key)
        if coll is None or key in self.dropped_kinds:
            return None
        n = len(coll.members)
        if coll.folder:
            why = f"The {n} documents of the folder `{coll.folder}/`"
        else:
            why = f"{n} documents named \u201c{self.label(coll.key)}\u201d"
        lines = [f"- [[{doc_slug(d)}]]" for d in coll.members]  # titles: in the index and on the pages
        return "\n".join(lines) + "\n", why, list(coll.members)

    def topic_body(self, t: Topic) -> tuple[str, str, list[str]] | None:
        docs = [d for d in t.doc_ids if self.known.has(doc_slug(d))]  # covered: a document page known
        if len(docs) < 2:
            return None
        sections, quoted = [], []
        for d in docs:
            cap = self.plan.get((t.key, d))
            if cap is None:
                continue
            q = self.quote(d, *t.spans[d], cap)
            if q:
                sections.append(f"## [[{doc_slug(d)}]]\n\n{q}")
                quoted.append(d)
        if len(quoted) < 2:
            return None
        parts = list(sections)
        # documents of no collection first: no collection page links them, so a cut list must not leave them out
        rest = sorted((d for d in docs if d not in quoted), key=lambda d: bool(self.cat.collections_of(d)))
        if rest:  # under the size budget the list is cut: their pages link this one (a topic slug is shorter)
            listed = rest[: self.max_listed]
            said = [", ".join(f"[[{doc_slug(d)}]]" for d in listed)] if listed else []
            if len(listed) < len(rest):
                n = len(rest) - len(listed)
                said.append(f"{n} other document{'' if n == 1 else 's'}")
            parts.append("Also in " + " and ".join(said) + ".")
        rel = [o for o in related(t, self.cat.topics, k=12) if self.known.has(o.slug)][: self.p.related]
        if rel:
            parts.append("Related: " + ", ".join(self.link(o.slug, o.title) for o in rel) + ".")
        what = _WHAT[t.kind]
        desc = f"{what[:1].upper()}{what[1:]}, quoted from {len(quoted)} of {len(docs)} documents"
        return "\n\n".join(parts) + "\n", desc, quoted

    # -- revision --------------------------------------------------------------------------------

    def rebuild(self, old: Page) -> Rebuilt | None:
        """An existing page made again from what is known now; None when it can no longer be made."""
        slug = old.slug
        if old.type == "document":
            doc = next((d for d in old.sources if doc_slug(d) == slug), None)
            if doc is None:
                return None
            return self.title(doc), self.description(doc), self.doc_body(doc), "document", [doc], []
        if old.type == "collection":
            coll = next((c for c in self.cat.collections if c.slug == slug), None)
            made = self.collection_body(coll.key) if coll and coll.key else None
            if coll is None or made is None:
                return None
            body, desc, members = made
            return self.label(coll.title), desc, body, "collection", members, [self.label(a) for a in coll.aliases]
        if old.type == "topic":
            t = next((t for t in self.cat.topics if t.slug == slug), None)
            made_topic = self.topic_body(t) if t else None
            if t is None or made_topic is None:
                return None
            body, desc, quoted = made_topic
            return self.label(t.title), desc, body, "topic", quoted, [self.label(a) for a in t.aliases]
        return None
