"""Slugs for the pages the agents write: pure functions, so every part (build, ask, tests) agrees.

A slug is ``[a-z0-9][a-z0-9-]{0,79}``. Text that does not fit that alphabet (capitals are folded,
accents are stripped; Hangul and other scripts cannot be spelled) or that is too long keeps a short
hash of the original, so two different keys never share a slug by accident.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

MAX_SLUG = 80
_NON_SLUG = re.compile(r"[^a-z0-9]+")


def _hash(text: str, n: int = 8) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:n]


def slugify(text: str) -> str:
    """Lower-case ASCII words joined by '-', accents stripped; '' when nothing is left."""
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(c for c in folded if not unicodedata.combining(c)).lower()
    return _NON_SLUG.sub("-", folded).strip("-")


def _prefixed(prefix: str, key: str, lossless: bool) -> str:
    base = slugify(key)
    room = MAX_SLUG - len(prefix)
    if lossless and base and len(base) <= room:
        return prefix + base
    h = _hash(key)
    keep = base[: room - len(h) - 1].strip("-")
    return f"{prefix}{keep}-{h}" if keep else f"{prefix}{h}"


def doc_slug(doc_id: str) -> str:
    """`doc-<slugified doc id>`: `contracts/acme-msa` -> `doc-contracts-acme-msa`."""
    plain = re.fullmatch(r"[a-z0-9/-]+", doc_id) is not None and "--" not in doc_id and "//" not in doc_id
    return _prefixed("doc-", doc_id, plain)


def topic_slug(key: str) -> str:
    """`topic-<key>` for a normalised topic key (`governing law` -> `topic-governing-law`)."""
    return _prefixed("topic-", key, re.fullmatch(r"[a-z0-9 -]+", key) is not None)


def kind_slug(key: str) -> str:
    """`kind-<key>` for a collection key (`supply` -> `kind-supply`)."""
    return _prefixed("kind-", key, re.fullmatch(r"[a-z0-9 -]+", key) is not None)


def figure_slug(key: str) -> str:
    """`figure-<key>` for a figure's normalised label (`net sales` -> `figure-net-sales`)."""
    return _prefixed("figure-", key, re.fullmatch(r"[a-z0-9 -]+", key) is not None)
