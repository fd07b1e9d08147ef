"""Topic pages left under an old slug: merged into the page their subject has now.

Topic slugs come from topic titles (`wikigen.core.slugs.topic_slug`); a wiki built by an older version,
whose slugs came from topic keys ("topic-definition" for "Definitions", a stem such as "topic-partie"),
or before a variant wording was merged into another topic, keeps those pages next to the new ones when
it is rebuilt. An agent that owns both the old page and its subject's new page merges the old into the
new (`wikigen.wiki.merge.merge_pages`: the old page is archived as `deprecated`, a redirect sends its
links on, its quotes the new page lacks move over), and logs it. An old page whose new page another
agent owns, or is not written yet, stays until a session where both are the same agent's.

    moves = old_topic_slugs(catalog)            # {"topic-definition": "topic-definitions", ...}
    merged = move_topic_pages(tools, catalog, mine, gone)
"""

from __future__ import annotations

import logging

from wikigen.agents.catalog import Catalog
from wikigen.agents.words import norm_key

from wikigen.core.errors import WikigenError
from wikigen.core.slugs import topic_slug

__all__ = ["move_topic_pages", "old_topic_slugs"]

log = logging.getLogger(__name__)


def old_topic_slugs(cat: Catalog) -> dict[str, str]:
    """{slug a topic's page may have had: the slug it has now}: the slugs of its key, its merged variants'
    keys and its aliases, where they differ from its page's slug and name no other topic's page."""
    current = {t.slug for t in cat.topics}
    out: dict[str, str] = {}
    for t in cat.topics:
        for name in (t.key, *t.variants, *t.aliases):
            old = topic_slug(name) if name else ""
            if old and old != t.slug and old not in current:
                out.setdefault(old, t.slug)
    return out


def _subject(cat: Catalog, title: str) -> str:
    """The current slug of the topic an old page's title names (its key, a variant's or an alias), or ""."""
    key = norm_key(title)
    for t in cat.topics:
        if key and (key == t.key or key in t.variants or key in {norm_key(a) for a in t.aliases}):
            return t.slug
    return ""


def move_topic_pages(tools, cat: Catalog, mine: dict[str, dict], gone: set[str]) -> list[tuple[str, str]]:
    """Merge this agent's topic pages under an old slug into their subject's page where the agent owns
    that page; [(old slug, new slug)] merged. `mine` ({slug: info} of the agent's pages) loses the
    merged slugs; a merge the wiki refuses is logged and skipped."""
    current = {t.slug for t in cat.topics}
    moves = old_topic_slugs(cat)
    done: list[tuple[str, str]] = []
    for slug, info in sorted(mine.items()):
        if info.get("type") != "topic" or slug in current or slug in gone:
            continue
        new = moves.get(slug) or _subject(cat, str(info.get("title") or ""))
        if not new or new == slug:
            continue
        if new not in mine:
            log.info("topic page %s: its subject's page is now %s, not this agent's (yet); kept", slug, new)
            continue
        try:
            tools.merge_pages(new, slug)
        except WikigenError as e:
            log.info("topic page %s: merge into %s refused: %s", slug, new, e)
            continue
        done.append((slug, new))
    for slug, _ in done:
        mine.pop(slug, None)
    if done:
        tools.append_log(
            "merged topic pages under old slugs",
            note="; ".join(f"{a} -> {b}" for a, b in done),
            pages=[b for _, b in done],
        )
    return done
