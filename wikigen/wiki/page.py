"""Page, Quote, the front matter and the one quote form; parse_page / render_page.

A page file is YAML front matter between two ``---`` lines, then the markdown body. A quote is an
Obsidian ``quote`` callout (plain markdown shows it as a blockquote)::

    > [!quote] contracts/acme-msa (chars 1200-1350)
    > Either party may terminate this Agreement
    > upon ninety (90) days' written notice.

(On a page with exactly one source the doc id may be left out: `Page.quote_doc`.) Every following line that starts with ``>`` belongs to the quote; the quote ends at the first line
that does not (or at the next quote header). Quotes inside fenced code blocks are not quotes.
``parse_page(render_page(p)) == p`` for every valid page (bodies use ``\\n`` line endings).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace

import yaml

from wikigen.core.errors import PageError, WikigenError
from wikigen.core.slugs import SLUG_PATTERN, is_slug
from wikigen.core.text import normalize_newlines
from wikigen.wiki.markup import Quote, QuoteBlock, body_links, scan_quotes

SLUG_RE = re.compile(SLUG_PATTERN)  # the one slug rule: wikigen.core.slugs (Unicode letters, digits, '-')
OWNER_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
RESERVED_SLUGS = frozenset({"index", "log", "conflicts"})  # generated files, not pages
STATUSES = ("draft", "confirmed", "deprecated")
MAX_DESCRIPTION = 200
FIELDS = (
    "title",
    "slug",
    "owner",
    "description",
    "type",
    "status",
    "sources",
    "aliases",
    "created_session",
    "updated_session",
)
OPTIONAL_FIELDS = ("source_hashes",)  # written only when set, so pages without them stay as they were
_SHA_RE = re.compile(r"[0-9a-f]{8,64}")  # a sha256 hex digest or its prefix


GENERATED_PREFIXES = ("index-", "provisions-")  # section indexes, the provisions table (wikigen.wiki.provisions)


def is_reserved(slug: str) -> bool:
    return slug in RESERVED_SLUGS or slug.startswith(GENERATED_PREFIXES)


def validate_slug(slug: object) -> str:
    """The slug itself, or PageError. A valid slug can never name a file outside the wiki folder."""
    if not isinstance(slug, str) or not is_slug(slug):
        raise PageError(
            f"bad slug {slug!r}: use 1-80 lower-case letters (any script), digits and '-', "
            "starting with a letter or digit (wikigen.core.slugs.slugify makes one)"
        )
    if is_reserved(slug):
        raise PageError(
            f"slug {slug!r} is reserved (index, log, conflicts, index-* and provisions-* are generated pages); choose another"
        )
    return slug


def validate_owner(owner: object) -> str:
    if not isinstance(owner, str) or not OWNER_RE.fullmatch(owner):
        raise PageError(f"bad agent name {owner!r}: use 1-64 characters A-Z, a-z, 0-9, '_', '.', '-'")
    return owner


@dataclass
class Page:
    slug: str
    title: str
    owner: str
    description: str
    type: str = "topic"
    status: str = "draft"
    sources: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    created_session: int = 0
    updated_session: int = 0
    body: str = ""
    source_hashes: dict[str, str] = field(default_factory=dict)  # doc id -> sha256 of the source it quotes

    @property
    def quote_doc(self) -> str | None:
        """The document a quote header without a doc id quotes: the page's only source (else None)."""
        return self.sources[0] if len(self.sources) == 1 else None

    def quote_blocks(self) -> list[QuoteBlock]:
        return scan_quotes(self.body, self.quote_doc)

    def quotes(self) -> list[Quote]:
        return [b.quote for b in self.quote_blocks()]

    def links(self) -> list[str]:
        """Target slugs of the page's [[links]], in order (not in code, not in quotes)."""
        return [link.target for link in body_links(self.body)]

    def front_matter(self) -> dict:
        d = asdict(self)
        d.pop("body")
        out = {k: d[k] for k in FIELDS}
        for k in OPTIONAL_FIELDS:
            if d[k]:
                out[k] = dict(sorted(d[k].items())) if isinstance(d[k], dict) else d[k]
        return out

    def written_front_matter(self) -> dict:
        """The front matter as the page file holds it: when the sources are exactly the documents with a hash,
        `sources` maps each doc id to its hash, in the sources' order, and `source_hashes` is not written, so
        each doc id is spelled once (long file names made the two lists a fifth of a wiki's tokens).
        `parse_page` reads either form."""
        out = self.front_matter()
        hashes = out.get("source_hashes")
        if hashes and set(hashes) == set(self.sources) and len(set(self.sources)) == len(self.sources):
            out["sources"] = {s: hashes[s] for s in self.sources}
            del out["source_hashes"]
        return out

    def with_(self, **changes) -> Page:
        return replace(self, **changes)


def validate_page(page: Page) -> Page:
    """PageError naming the first field that is not acceptable."""
    validate_slug(page.slug)
    validate_owner(page.owner)
    for name in ("title", "description", "type"):
        if not isinstance(getattr(page, name), str):
            raise PageError(f"page {page.slug!r}: {name} must be a string")
    if not page.title.strip() or "\n" in page.title:
        raise PageError(f"page {page.slug!r}: title must be one non-empty line")
    if "\n" in page.description or "\r" in page.description or len(page.description) > MAX_DESCRIPTION:
        raise PageError(
            f"page {page.slug!r}: description must be one line of at most {MAX_DESCRIPTION} characters "
            f"(got {len(page.description)})"
        )
    if not page.type or "\n" in page.type:
        raise PageError(f"page {page.slug!r}: type must be one non-empty line")
    if page.status not in STATUSES:
        raise PageError(f"page {page.slug!r}: status {page.status!r} is not one of {', '.join(STATUSES)}")
    for name in ("sources", "aliases"):
        v = getattr(page, name)
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise PageError(f"page {page.slug!r}: {name} must be a list of strings")
        if any("\n" in x or "\r" in x for x in v):
            raise PageError(f"page {page.slug!r}: {name} entries must be one line each")
    for name in ("created_session", "updated_session"):
        v = getattr(page, name)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise PageError(f"page {page.slug!r}: {name} must be a non-negative integer")
    if not isinstance(page.body, str):
        raise PageError(f"page {page.slug!r}: body must be a string")
    h = page.source_hashes
    if not isinstance(h, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and _SHA_RE.fullmatch(v) and "\n" not in k and "\r" not in k
        for k, v in h.items()
    ):
        raise PageError(f"page {page.slug!r}: source_hashes must map doc ids to sha256 hex digests (8-64 hex digits)")
    return page


# libyaml's loader and dumper, where PyYAML was built with it, are 5-12x faster than the pure-Python ones
# (front matter was a third of a cuad-dev build's time). The C dumper escapes some characters the Python
# one writes as they are (emoji, NEL): a front matter whose C dump holds an escape is dumped again in
# Python, so pages keep their bytes whichever is installed.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def dump_front_matter(fm: dict) -> str:
    out = yaml.dump(fm, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, width=10**6)
    if "\\" in out and _DUMPER is not yaml.SafeDumper:
        out = yaml.safe_dump(fm, sort_keys=False, allow_unicode=True, width=10**6)
    return out


def render_page(page: Page) -> str:
    validate_page(page)
    return f"---\n{dump_front_matter(page.written_front_matter())}---\n{normalize_newlines(page.body)}"


def split_front_matter(text: str) -> tuple[str, str, int]:
    """(yaml, body, number of lines before the body). PageError when there is no front matter."""
    text = normalize_newlines(text)
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.startswith("---\n"):
        raise PageError("page has no front matter: it must start with a '---' line")
    end = text.find("\n---\n", 3)
    if end == -1:
        if text.endswith("\n---"):
            end = len(text) - 4
        else:
            raise PageError("page front matter is not closed by a '---' line")
    fm = text[4 : end + 1]
    body = text[end + 5 :]
    return fm, body, fm.count("\n") + 2


def parse_page(text: str) -> Page:
    fm_text, body, _ = split_front_matter(text)
    try:
        fm = yaml.load(fm_text, Loader=_LOADER) if fm_text.strip() else {}
    except yaml.YAMLError as e:
        raise PageError(f"page front matter is not valid YAML: {e}") from None
    if not isinstance(fm, dict):
        raise PageError("page front matter must be a YAML mapping")
    missing = [k for k in ("title", "slug", "owner", "description") if k not in fm]
    if missing:
        raise PageError(f"page front matter lacks {', '.join(missing)}")

    def as_str(v) -> str:
        return "" if v is None else v if isinstance(v, str) else str(v)

    def as_list(name) -> list[str]:
        v = fm.get(name) or []
        if isinstance(v, dict):  # `sources` as doc id -> hash (Page.written_front_matter)
            v = list(v)
        if isinstance(v, str):
            v = [v]
        if not isinstance(v, list):
            raise PageError(f"page front matter: {name} must be a list")
        return [as_str(x) for x in v]

    def as_int(name) -> int:
        v = fm.get(name, 0)
        try:
            return int(v or 0)
        except (TypeError, ValueError):
            raise PageError(f"page front matter: {name} must be an integer, not {v!r}") from None

    def as_hashes(v) -> dict[str, str]:
        if v is None:
            return {}
        if not isinstance(v, dict):
            raise PageError("page front matter: source_hashes must be a mapping of doc id to sha256")
        return {as_str(k): as_str(x) for k, x in v.items()}

    page = Page(
        slug=as_str(fm["slug"]),
        title=as_str(fm["title"]),
        owner=as_str(fm["owner"]),
        description=as_str(fm["description"]),
        type=as_str(fm.get("type", "topic")),
        status=as_str(fm.get("status", "draft")),
        sources=as_list("sources"),
        aliases=as_list("aliases"),
        created_session=as_int("created_session"),
        updated_session=as_int("updated_session"),
        body=body,
        source_hashes={
            **({k: h for k, h in as_hashes(fm["sources"]).items() if h} if isinstance(fm.get("sources"), dict) else {}),
            **as_hashes(fm.get("source_hashes")),
        },
    )
    return validate_page(page)


def count_quotes(pages) -> int:
    """The quotes on the pages: the one count `stats`, the web view, the build's session line and the growth
    view all show (a page whose quotes do not parse counts none; `check` reports it)."""
    n = 0
    for p in pages:
        try:
            n += len(p.quote_blocks())
        except WikigenError:
            continue
    return n
