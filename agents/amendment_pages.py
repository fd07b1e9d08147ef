"""Amendments on the wiki: the base document's page and the amendment's page link each other, the base's
page shows the current terms, and every page quoting superseded text says so beside it.

Run after each session's agents (`apply_amendments`, from the orchestrator), with the chains found by
`wikigen.search.facts.amendments`. Generated text sits between marker comments, so a later run replaces
it and never doubles it; every quote in it is written through `Wiki.write` and so verified against the
sources like any other. The markup:

On the base document's page::

    <!-- wikigen:amendments -->
    ## Current terms

    Amended by [[doc-amendment-1]] (2025-01-20).

    ### Renewal notice

    Current term (2025-01-20):

    > [!quote] amendments/amendment-1 (chars 812-960)
    > 2. Renewal notice. In clause 4.2 of the Agreement, the words "at least ninety (90) days" ...

    > [!note] superseded by [[doc-amendment-1]] (2025-01-20)

    > [!quote] contracts/msa (chars 4410-4630)
    > 4.2 On expiry of the Initial Term, ... at least ninety (90) days before the end ...
    <!-- /wikigen:amendments -->

On the amendment's page: "Amends [[doc-base]]: <changed terms>." in the same markers. On any other
page, right after a quote that overlaps a superseded text: the note and the current term's quote, between
`<!-- wikigen:current -->` markers.

The chains are kept in WIKI/.wikigen/amendments.json for `ask` (`wikigen.search.facts.amendments.read_chains`).
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from wikigen.search.facts.amendments import Amendment, Change, find_amendments
from wikigen.search.facts.conflicts import Conflict, find_conflicts

from wikigen.core import confine
from wikigen.core.atomic import atomic_write
from wikigen.core.errors import WikigenError
from wikigen.core.slugs import doc_slug
from wikigen.core.text import trim_span
from wikigen.wiki.conflicts_page import write_conflicts
from wikigen.wiki.markup import Quote, format_quote, scan_quotes

log = logging.getLogger(__name__)

__all__ = [
    "STORE",
    "SUPERSEDED_NOTE",
    "AmendmentReport",
    "Findings",
    "apply_amendments",
    "detect_amendments",
    "strip_generated",
]

STORE = Path(".wikigen") / "amendments.json"
SECTION = ("<!-- wikigen:amendments -->", "<!-- /wikigen:amendments -->")
BESIDE = ("<!-- wikigen:current -->", "<!-- /wikigen:current -->")
SUPERSEDED_NOTE = "> [!note] superseded by"
_BLOCK = {
    m: re.compile(rf"\n*{re.escape(a)}.*?{re.escape(b)}\n?", re.S)
    for m, (a, b) in (("section", SECTION), ("beside", BESIDE))
}


@dataclass
class AmendmentReport:
    chains: int = 0
    changes: int = 0
    conflicts: int = 0
    pages: list[str] = field(default_factory=list)  # pages rewritten
    errors: list[str] = field(default_factory=list)


@dataclass
class Findings:
    chains: list[Amendment]
    conflicts: list[Conflict]


def detect_amendments(index) -> Findings:
    """The corpus's amendment chains and the conflicts outside them, from the index's kept texts."""
    texts = {d.doc_id: index.texts.text(d.doc_id) for d in index.documents()}
    chains = find_amendments(texts)
    return Findings(chains, find_conflicts(texts, chains))


def _quote(texts, doc_id: str, span: tuple[int, int]) -> str:
    text = texts.text(doc_id)
    s, e = trim_span(text, *span)
    return format_quote(Quote(doc_id, s, e, text[s:e]))


def _when(a: Amendment) -> str:
    return f" ({a.date})" if a.date else ""


def current_changes(chains: list[Amendment]) -> dict[str, list[tuple[Amendment, Change]]]:
    """Base doc id -> its changed terms in base order; where two amendments change the same text, the
    later one (by its own date) is the current term."""
    out: dict[str, list[tuple[Amendment, Change]]] = {}
    for a in sorted(chains, key=lambda a: (a.date or "", a.doc_id)):
        kept = out.setdefault(a.base_id, [])
        for c in a.changes:
            kept[:] = [(x, k) for x, k in kept if not (k.old_span[0] < c.old_span[1] and c.old_span[0] < k.old_span[1])]
            kept.append((a, c))
    for kept in out.values():
        kept.sort(key=lambda p: p[1].old_span)
    return out


def _base_section(texts, base_id: str, chains: list[Amendment], current: list[tuple[Amendment, Change]]) -> str:
    links = ", ".join(f"[[{doc_slug(a.doc_id)}]]{_when(a)}" for a in chains)
    parts = [SECTION[0], "## Current terms", "", f"Amended by {links}."]
    for a, c in current:
        slug = doc_slug(a.doc_id)
        parts += [
            "",
            f"### {c.label or c.kind}",
            "",
            f"Current term{_when(a)}:",
            "",
            _quote(texts, a.doc_id, c.new_quote),
            "",
            f"{SUPERSEDED_NOTE} [[{slug}]]{_when(a)}",
            "",
            _quote(texts, base_id, c.old_quote),
        ]
    parts.append(SECTION[1])
    return "\n".join(parts)


def _amendment_section(a: Amendment) -> str:
    terms = "; ".join(dict.fromkeys(c.label or c.kind for c in a.changes))
    said = f": it changes {terms}" if terms else ""
    return "\n".join(
        [
            SECTION[0],
            "## Amends",
            "",
            f"Amends [[{doc_slug(a.base_id)}]]{said}. The current terms are quoted there.",
            SECTION[1],
        ]
    )


def strip_generated(body: str) -> str:
    """The body without the text this module writes (for comparing an agent's rebuilt body with the old one)."""
    for rx in _BLOCK.values():
        body = rx.sub("\n\n", body)
    return re.sub(r"\n{3,}", "\n\n", body).strip("\n") + "\n"


def _strip(body: str, which: str) -> str:
    return _BLOCK[which].sub("\n\n", body).strip("\n") + "\n" if _BLOCK[which].search(body) else body


def _beside(body: str, texts, current: dict[str, list[tuple[Amendment, Change]]], page_doc: str | None = None) -> str:
    """The body with, after each quote overlapping a superseded text, the note and the current term."""
    lines = body.split("\n")
    inserts: list[tuple[int, str]] = []
    for b in scan_quotes(body, page_doc):
        q = b.quote
        for a, c in current.get(q.doc_id, ()):
            if q.start < c.old_span[1] and c.old_span[0] < q.end:
                slug = doc_slug(a.doc_id)
                block = "\n".join(
                    [
                        "",
                        BESIDE[0],
                        f"{SUPERSEDED_NOTE} [[{slug}]]{_when(a)}; the current term:",
                        "",
                        _quote(texts, a.doc_id, c.new_quote),
                        BESIDE[1],
                    ]
                )
                inserts.append((b.end_line, block))
                break
    for at, block in sorted(inserts, reverse=True):
        lines[at:at] = block.split("\n")
    return "\n".join(lines)


def _wanted(
    page,
    texts,
    chains_of: dict[str, list[Amendment]],
    by_doc: dict[str, Amendment],
    current: dict[str, list[tuple[Amendment, Change]]],
) -> str:
    body = _strip(_strip(page.body, "section"), "beside")
    if page.type == "document" and len(page.sources) == 1:
        doc = page.sources[0]
        if doc in chains_of:
            body = body.rstrip("\n") + "\n\n" + _base_section(texts, doc, chains_of[doc], current.get(doc, [])) + "\n"
        elif doc in by_doc:
            body = body.rstrip("\n") + "\n\n" + _amendment_section(by_doc[doc]) + "\n"
        return body
    return _beside(body, texts, current, page.quote_doc)


def apply_amendments(wiki, found: Findings, session: int) -> AmendmentReport:
    """Write the chains' sections and notes into the wiki's pages (each as its owner), keep the chains in
    WIKI/.wikigen/amendments.json and write the conflicts page (wikigen.wiki.conflicts_page). A page
    that cannot be written is reported, not raised."""
    chains = found.chains
    report = AmendmentReport(len(chains), sum(len(a.changes) for a in chains), conflicts=len(found.conflicts))
    save_amendments(wiki.root, chains)
    write_conflicts(wiki.root, [c.to_dict() for c in found.conflicts])
    texts = wiki.sources.texts
    chains_of: dict[str, list[Amendment]] = {}
    for a in sorted(chains, key=lambda a: (a.date or "", a.doc_id)):
        chains_of.setdefault(a.base_id, []).append(a)
    by_doc = {a.doc_id: a for a in chains}
    current = current_changes(chains)
    for page in wiki.pages():
        if not chains and SECTION[0] not in page.body and BESIDE[0] not in page.body:
            continue
        try:
            body = _wanted(page, texts, chains_of, by_doc, current)
            if body != page.body:
                wiki.write(page.with_(body=body), agent=page.owner, session=session)
                report.pages.append(page.slug)
        except (WikigenError, KeyError) as e:
            report.errors.append(f"{page.slug}: {e}")
    return report


def save_amendments(root, chains: list[Amendment]) -> None:
    path = Path(root) / STORE
    confine.make_dirs(path.parent, root)
    atomic_write(path, json.dumps([a.to_dict() for a in chains], ensure_ascii=False, indent=1) + "\n", root=root)
