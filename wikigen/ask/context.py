"""The context of an answer: candidate units, the items they are grouped into, and their greedy
assembly under a token budget.

A `Unit` is one candidate piece of source text (a passage of a document, or one quote of a wiki
page) with its exact character span. `ContextBuilder` takes units in the order the retrieval mode
offers them while they fit the budget; `finish()` groups them into `ContextItem`s (the quotes of one
page form one item, a passage is an item of its own) and counts the rendered context exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from wikigen.core.sentences import LINE, boundaries
from wikigen.core.slugs import doc_slug
from wikigen.core.tokens import TokenCounter
from wikigen.wiki.injection import kinds_of
from wikigen.wiki.secrets import Excerpt, keep_out


@dataclass
class Unit:
    """One candidate piece of context: a passage, or one quote of a page."""

    kind: str  # "passage" | "quote"
    doc_id: str
    start: int
    end: int
    text: str
    page: str = ""  # slug, for quotes
    label: str = ""  # heading / document title shown with a quote
    shown: Excerpt | None = None  # set when a secret was kept out of text: its verbatim parts

    def key(self) -> tuple[str, int, int]:
        return (self.doc_id, self.start, self.end)

    def span(self) -> dict:
        return {"doc_id": self.doc_id, "start": self.start, "end": self.end}

    def spans(self) -> list[dict]:
        """The source spans whose text the unit's text holds verbatim: its own span, or its parts around
        each secret kept out of it."""
        return self.shown.spans() if self.shown is not None else [self.span()]

    def spans_within(self, a: int, b: int) -> list[dict]:
        """The source spans of the verbatim parts of text[a:b]."""
        if self.shown is not None:
            return self.shown.spans_within(a, b)
        return [{"doc_id": self.doc_id, "start": self.start + a, "end": self.start + b}] if a < b else []


def quote_header(u: Unit) -> str:
    """A quote's header in the context. On its own document's page the page names the document, so the
    header gives only the span (a cuad-dev document id costs about 35 tokens)."""
    label = f" {u.label}" if u.label else ""
    if u.page == doc_slug(u.doc_id):
        return f"[chars {u.start}-{u.end}]{label}"
    return f"[{u.doc_id} chars {u.start}-{u.end}]{label}"


def span_text_in(page_text: str, sp: dict) -> str | None:
    """The text of the quote with span sp inside a page item's rendered text (None when absent)."""
    head = f"[{sp['doc_id']} chars {sp['start']}-{sp['end']}]"
    i = page_text.find(head)
    if i < 0:
        head = f"[chars {sp['start']}-{sp['end']}]"
        i = page_text.find(head)
    if i < 0:
        return None
    j = page_text.find("\n", i)
    if j < 0:
        return None
    k = page_text.find("\n\n[", j + 1)
    return page_text[j + 1 : k if k >= 0 else len(page_text)]


@dataclass
class ContextItem:
    kind: str  # "page" | "passage"
    ref: str  # page slug, or "doc_id (chars start-end)"
    text: str  # exactly what was put in the context
    spans: list[dict]  # [{"doc_id", "start", "end"}]: source spans carried verbatim in text
    parts: tuple[Unit, ...] = field(default=(), repr=False, compare=False)  # the units, one per span
    stale: list[str] = field(default_factory=list)  # doc ids of its spans whose source changed since indexing

    def to_dict(self) -> dict:
        d = {"kind": self.kind, "ref": self.ref, "text": self.text, "spans": [dict(s) for s in self.spans]}
        flags = self.flags()
        if flags:
            d["flags"] = flags
        if self.stale:
            d["stale"] = list(self.stale)
        return d

    def flags(self) -> list[dict]:
        """The item's source pieces whose text addresses an AI agent or a tool (wikigen.wiki.injection):
        [{"doc_id", "start", "end", "kinds"}]. They are data in the context, never instructions."""
        out = []
        for u in self.pieces():
            kinds = kinds_of(u.text)
            if kinds:
                out.append({**u.span(), "kinds": list(kinds)})
        return out

    def block(self) -> str:
        """The item as rendered into the model's context (what the budget counts)."""
        head = f"[page [[{self.ref}]]]" if self.kind == "page" else f"[passage {self.ref}]"
        if self.kind == "passage" and self.parts and self.parts[0].label:  # e.g. "SUPERSEDED by ..."
            head += f" {self.parts[0].label}"
        return f"{head}\n{self.text}"

    def pieces(self) -> list[Unit]:
        """The verbatim source pieces of the item, one per span (from its units, or read back from its text)."""
        if self.parts:
            return list(self.parts)
        if self.kind == "passage" and len(self.spans) == 1:
            sp = self.spans[0]
            return [Unit("passage", sp["doc_id"], sp["start"], sp["end"], self.text)]
        return [
            Unit("quote", sp["doc_id"], sp["start"], sp["end"], span_text_in(self.text, sp) or "", page=self.ref)
            for sp in self.spans
        ]


def render_context(items: Sequence[ContextItem]) -> str:
    return "\n\n".join(c.block() for c in items)


class ContextBuilder:
    """Greedy assembly of units under a token budget: quotes are grouped into one item per page
    (placed where the page's first quote came), passages are items of their own; the last passage
    that does not fit is trimmed to the rest of the budget. The final count is exact."""

    def __init__(
        self,
        counter: TokenCounter,
        budget: int,
        page_titles: dict[str, str] | None = None,
        *,
        texts: Callable[[str], str] | None = None,
    ):
        self.counter = counter
        self.texts = texts  # doc id -> its text: secrets are then found on the whole lines around a unit
        self.budget = max(0, int(budget))
        self.page_titles = page_titles or {}
        self.units: list[Unit] = []
        self.used = 0
        self.full = False
        self._keys: set[tuple[str, int, int]] = set()
        self._pages_open: set[str] = set()
        self.docs: dict[str, int] = {}  # doc id -> units taken

    def covers(self, doc_id: str, start: int, end: int) -> bool:
        """Whether a unit already taken overlaps [start, end) in doc_id."""
        return any(u.doc_id == doc_id and u.start < end and start < u.end for u in self.units)

    def _cost(self, u: Unit) -> int:
        if u.kind == "passage":
            label = f" {u.label}" if u.label else ""
            return self.counter.count(f"[passage {u.doc_id} (chars {u.start}-{u.end})]{label}\n{u.text}") + 2
        cost = self.counter.count(f"{quote_header(u)}\n{u.text}") + 2
        if u.page not in self._pages_open:
            cost += self.counter.count(f"[page [[{u.page}]]]\n{self.page_titles.get(u.page, u.page)}") + 2
        return cost

    def _carried(self, u: Unit) -> bool:
        """Whether a quote is already carried by a passage taken."""
        return u.kind == "quote" and any(
            v.kind == "passage" and v.doc_id == u.doc_id and v.start <= u.start and u.end <= v.end for v in self.units
        )

    def add(self, u: Unit, *, trim: bool = True) -> bool:
        """Take u if it fits (trimming a passage to the rest of the budget). False when it was not taken."""
        if self.full or u.key() in self._keys or not u.text.strip() or self._carried(u):
            return False
        cost = self._cost(u)
        if self.used + cost > self.budget:
            left = self.budget - self.used
            if not (trim and u.kind == "passage"):
                return False
            trimmed = self._trim(u, left)
            if trimmed is None:
                return False
            u = trimmed
            cost = self._cost(u)
            self.full = True
        self._keep_out(u)
        self.units.append(u)
        self._keys.add(u.key())
        self.used += cost
        self.docs[u.doc_id] = self.docs.get(u.doc_id, 0) + 1
        if u.kind == "quote":
            self._pages_open.add(u.page)
        return True

    def _keep_out(self, u: Unit) -> None:
        """Secrets never reach a model or an answer (wikigen.wiki.secrets.keep_out): each is replaced by its mark,
        and the unit keeps the verbatim parts around it, so its spans still verify."""
        doc = None
        if self.texts is not None:
            try:
                doc = self.texts(u.doc_id)
            except KeyError:
                doc = None
        if doc is not None and doc[u.start : u.end] == u.text:
            ex = keep_out(u.doc_id, doc, u.start, u.end)
        else:  # a page's quote (line endings normalised): found in its own text
            ex = keep_out(u.doc_id, u.text, base=u.start)
        if ex.kept_out:
            u.text, u.shown = ex.text, ex

    def _trim(self, u: Unit, left: int) -> Unit | None:
        """The longest prefix of the passage (cut at a sentence end or space) that fits in `left` tokens."""
        text = u.text
        frac = max(0.0, (left - 14) / max(1, self._cost(u)))
        n = int(len(text) * frac)
        while n > 40:
            cut = text[:n]
            end = max((b.end for b in boundaries(text, 0, n, LINE)), default=-1)
            if end > n * 0.6:
                cut = cut[:end]
            else:
                sp = cut.rfind(" ")
                if sp > n * 0.6:
                    cut = cut[:sp]
            cut = cut.rstrip()
            v = Unit("passage", u.doc_id, u.start, u.start + len(cut), cut)
            if self._cost(v) <= left:
                return v
            n = int(n * 0.85)
        return None

    def items(self) -> list[ContextItem]:
        items: list[ContextItem | None] = []
        page_item: dict[str, tuple[int, list[Unit]]] = {}
        for u in self.units:
            if u.kind == "passage":
                items.append(ContextItem("passage", f"{u.doc_id} (chars {u.start}-{u.end})", u.text, u.spans(), (u,)))
            elif u.page in page_item:
                page_item[u.page][1].append(u)
            else:
                page_item[u.page] = (len(items), [u])
                items.append(None)  # placeholder, filled below
        for slug, (pos, units) in page_item.items():
            parts = [self.page_titles.get(slug, slug)]
            parts.extend(f"{quote_header(u)}\n{u.text}" for u in units)
            spans = [sp for u in units for sp in u.spans()]
            items[pos] = ContextItem("page", slug, "\n\n".join(parts), spans, tuple(units))
        return items  # type: ignore[return-value]  # every placeholder is filled

    def finish(self) -> tuple[list[ContextItem], int]:
        """The items and the exact token count of the assembled context (dropping the last units if the
        estimate was short, which it should not be)."""
        while True:
            items = self.items()
            n = self.counter.count(render_context(items)) if items else 0
            if n <= self.budget or not self.units:
                return items, n
            self.units.pop()
