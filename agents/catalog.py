"""The records topic discovery produces: Topic, Heading, Outline, Collection and the Catalog holding them.

A Catalog turns into plain JSON data and back (`catalog_to_data`, `catalog_from_data`) so the build can
cache it as a JSON file: reading a cache never runs code, and a record that does not have the expected
shape raises ValueError (the caller rebuilds the catalog).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wikigen.core.slugs import kind_slug, topic_slug


@dataclass
class Topic:
    key: str  # normalised: "governing law"
    kind: str  # heading | term | entity | phrase
    title: str  # the most common surface form
    aliases: list[str] = field(default_factory=list)
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)  # doc_id -> quote span
    score: float = 0.0
    via: dict[str, str] = field(default_factory=dict)  # doc_id -> the evidence kind of its span
    variants: list[str] = field(default_factory=list)  # the keys of other wordings merged into this topic
    page: str = ""  # its page's slug, from the title (unique in the catalog)

    @property
    def slug(self) -> str:
        return self.page or topic_slug(self.title or self.key)

    @property
    def doc_ids(self) -> list[str]:
        return sorted(self.spans)


@dataclass
class Heading:
    label: str  # the heading text without its numbering
    key: str
    start: int  # where the heading (with its numbering) starts
    level: int  # 1 for top-level (12. / ARTICLE / # ), 2+ for 1.1, ## ...
    head_end: int = 0  # where the heading itself ends
    span: tuple[int, int] = (0, 0)  # the section under it, capped


@dataclass
class Outline:
    """What one document is: its opening, headings, defined terms and dates."""

    doc_id: str
    title: str
    opening: tuple[int, int] | None
    chars: int = 0
    headings: list[Heading] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    dates: list[str] = field(default_factory=list)


@dataclass
class Collection:
    key: str  # the kind ("supply", "joint venture") or a folder's name
    title: str  # "Supply agreements", "Policies"
    members: list[str]
    aliases: list[str] = field(default_factory=list)
    folder: str = ""  # for a folder's collection, its path

    @property
    def slug(self) -> str:
        return kind_slug(self.key)


@dataclass
class Catalog:
    topics: list[Topic]
    outlines: dict[str, Outline]
    collections: list[Collection]

    def __post_init__(self) -> None:
        self._by_key: dict[str, Topic] = {}
        for t in self.topics:  # a merged wording finds its topic too
            for k in t.variants:
                self._by_key.setdefault(k, t)
        for t in self.topics:
            self._by_key[t.key] = t

    def topic(self, key: str) -> Topic | None:
        return self._by_key.get(key)

    def collection(self, key: str) -> Collection | None:
        return next((c for c in self.collections if c.key == key), None)

    def collection_of(self, doc_id: str) -> Collection | None:
        got = self.collections_of(doc_id)
        return got[0] if got else None

    def collections_of(self, doc_id: str) -> list[Collection]:
        """The collections a document belongs to: name kinds first (fewest members first), then folders."""
        return sorted(
            (c for c in self.collections if doc_id in c.members), key=lambda c: (bool(c.folder), len(c.members), c.key)
        )


# --- JSON data -------------------------------------------------------------------------------------


def _span(value: Any) -> tuple[int, int]:
    s, e = value
    return int(s), int(e)


def catalog_to_data(cat: Catalog) -> dict:
    """The catalog as JSON-ready data (dicts, lists, strings, numbers); key order kept."""
    return {
        "topics": [
            {
                "key": t.key,
                "kind": t.kind,
                "title": t.title,
                "aliases": list(t.aliases),
                "spans": {d: list(sp) for d, sp in t.spans.items()},
                "score": t.score,
                "via": dict(t.via),
                "variants": list(t.variants),
                "page": t.page,
            }
            for t in cat.topics
        ],
        "outlines": [
            {
                "doc_id": o.doc_id,
                "title": o.title,
                "opening": list(o.opening) if o.opening else None,
                "chars": o.chars,
                "terms": list(o.terms),
                "dates": list(o.dates),
                "headings": [
                    {
                        "label": h.label,
                        "key": h.key,
                        "start": h.start,
                        "level": h.level,
                        "head_end": h.head_end,
                        "span": list(h.span),
                    }
                    for h in o.headings
                ],
            }
            for o in cat.outlines.values()
        ],
        "collections": [
            {"key": c.key, "title": c.title, "members": list(c.members), "aliases": list(c.aliases), "folder": c.folder}
            for c in cat.collections
        ],
    }


def catalog_from_data(data: Any) -> Catalog:
    """The catalog of `catalog_to_data`'s output (any JSON value read back); ValueError when the data does
    not have that shape."""
    try:
        topics = [
            Topic(
                key=str(t["key"]),
                kind=str(t["kind"]),
                title=str(t["title"]),
                aliases=[str(a) for a in t["aliases"]],
                spans={str(d): _span(sp) for d, sp in t["spans"].items()},
                score=float(t["score"]),
                via={str(d): str(v) for d, v in t["via"].items()},
                variants=[str(k) for k in t["variants"]],
                page=str(t["page"]),
            )
            for t in data["topics"]
        ]
        outlines = {}
        for o in data["outlines"]:
            heads = [
                Heading(
                    label=str(h["label"]),
                    key=str(h["key"]),
                    start=int(h["start"]),
                    level=int(h["level"]),
                    head_end=int(h["head_end"]),
                    span=_span(h["span"]),
                )
                for h in o["headings"]
            ]
            outlines[str(o["doc_id"])] = Outline(
                doc_id=str(o["doc_id"]),
                title=str(o["title"]),
                opening=_span(o["opening"]) if o["opening"] is not None else None,
                chars=int(o["chars"]),
                headings=heads,
                terms=[str(x) for x in o["terms"]],
                dates=[str(x) for x in o["dates"]],
            )
        collections = [
            Collection(
                key=str(c["key"]),
                title=str(c["title"]),
                members=[str(m) for m in c["members"]],
                aliases=[str(a) for a in c["aliases"]],
                folder=str(c["folder"]),
            )
            for c in data["collections"]
        ]
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise ValueError(f"not a catalog: {type(e).__name__}: {e}") from None
    return Catalog(topics=topics, outlines=outlines, collections=collections)
