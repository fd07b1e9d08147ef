"""Slugs for the pages the agents write: pure functions, so every part (build, ask, web, tests) agrees.

The slug rule, for every script: the text in Unicode NFC, lower-cased (`str.lower`), every run of
characters that are not Unicode letters or digits (punctuation, spaces, symbols, `_`) made one
``-``, no leading or trailing ``-``. Latin accents are kept only where NFC composes them into one
letter (``é`` stays ``é``); Hangul, kana, Cyrillic and the rest stay readable (``비밀유지`` ->
``비밀유지``). A slug is 1-80 characters and at most 200 bytes of UTF-8 (so ``<slug>.md`` fits every
file system's 255-byte name limit); `SLUG_PATTERN` is the check (`wikigen.wiki.page.SLUG_RE`).

A slug keeps a short hash of its source text only where it must: when the text is too long for the
limits, or (for document ids) when the slug loses information that another id could differ by, or
when two titles of one build would share a slug (`unique_slugs`). Otherwise it reads as its text.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

MAX_SLUG = 80
MAX_SLUG_BYTES = 200
# one Unicode letter or digit ([^\W_]: a word character that is not "_"), then letters, digits or "-"
SLUG_PATTERN = r"[^\W_](?:[^\W_]|-){0,79}"
_SLUG_RE = re.compile(SLUG_PATTERN)
_NON_SLUG = re.compile(r"[\W_]+")


def _hash(text: str, n: int = 8) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:n]


def slugify(text: str) -> str:
    """NFC Unicode letters and digits, lower-cased, joined by '-'; '' when nothing is left."""
    folded = unicodedata.normalize("NFC", text).lower()
    return unicodedata.normalize("NFC", _NON_SLUG.sub("-", folded)).strip("-")


def is_slug(slug: str) -> bool:
    """Whether a string is a well-formed slug: the pattern, lower case, NFC, within the byte limit."""
    return (
        isinstance(slug, str)
        and _SLUG_RE.fullmatch(slug) is not None
        and slug == slug.lower()
        and unicodedata.is_normalized("NFC", slug)
        and len(slug.encode("utf-8")) <= MAX_SLUG_BYTES
    )


def _fit(base: str, room: int, byte_room: int) -> str:
    """base cut to `room` characters and `byte_room` bytes of UTF-8, without a trailing '-'."""
    base = base[:room]
    while len(base.encode("utf-8")) > byte_room:
        base = base[:-1]
    return base.strip("-")


def _prefixed(prefix: str, text: str, lossless: bool) -> str:
    base = slugify(text)
    room = MAX_SLUG - len(prefix)
    if lossless and base and len(base) <= room and is_slug(prefix + base):
        return prefix + base
    h = _hash(text)
    keep = _fit(base, room - len(h) - 1, MAX_SLUG_BYTES - len(prefix.encode("utf-8")) - len(h) - 1)
    return f"{prefix}{keep}-{h}" if keep else f"{prefix}{h}"


def doc_slug(doc_id: str) -> str:
    """`doc-<slugified doc id>`: `contracts/acme-msa` -> `doc-contracts-acme-msa`. A doc id the slug
    does not spell exactly (capitals, spaces, other punctuation than '/' and '-') keeps a hash, so two
    ids never share a slug: `계약/비밀유지` -> `doc-계약-비밀유지-<hash>`."""
    plain = (
        re.fullmatch(r"(?:[^\W_]|[/-])+", doc_id) is not None
        and doc_id == doc_id.lower()
        and unicodedata.is_normalized("NFC", doc_id)
        and "--" not in doc_id
        and "//" not in doc_id
    )
    return _prefixed("doc-", doc_id, plain)


def topic_slug(title: str) -> str:
    """`topic-<title>`: `Governing Law` -> `topic-governing-law`, `비밀유지` -> `topic-비밀유지`."""
    return _prefixed("topic-", title, True)


def kind_slug(key: str) -> str:
    """`kind-<key>` for a collection key (`supply` -> `kind-supply`)."""
    return _prefixed("kind-", key, True)


def figure_slug(key: str) -> str:
    """`figure-<key>` for a figure's normalised label (`net sales` -> `figure-net-sales`)."""
    return _prefixed("figure-", key, True)


def dream_slug(subject: str) -> str:
    """`dream-<subject>` for the dreaming agent's page on a subject people asked about."""
    return _prefixed("dream-", subject, True)


def unique_slugs(prefix: str, texts: list[str]) -> list[str]:
    """One slug per text (`prefix` + its slug), in order; where two texts would share one, every text
    after the first keeps a hash of itself, so the slugs are distinct and do not depend on order."""
    slugs = [_prefixed(prefix, t, True) for t in texts]
    first: dict[str, str] = {}
    for t, s in sorted(zip(texts, slugs), key=lambda x: x[0]):
        first.setdefault(s, t)
    return [s if first[s] == t else _prefixed(prefix, t, False) for t, s in zip(texts, slugs)]


def strip_accents(slug: str) -> str:
    """A slug with Latin accents removed (`café-münchen` -> `cafe-munchen`): where links are repaired,
    a target written with accents still finds a page whose slug was written without them."""
    folded = unicodedata.normalize("NFKD", slug)
    return unicodedata.normalize("NFC", "".join(c for c in folded if not unicodedata.combining(c)))
