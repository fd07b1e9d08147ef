"""Each agent's share of the work: documents laid out cluster by cluster and cut into runs of about equal
size, topics and collections to the agent that owns most of their documents; existing pages stay with
their owners."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from wikigen.agents.base import KIND_PREFIX
from wikigen.agents.catalog import Catalog

from wikigen.core.slugs import doc_slug

log = logging.getLogger(__name__)


@dataclass
class Plan:
    agents: list[str]
    docs: dict[str, list[str]]  # agent -> doc ids
    topics: dict[str, list[str]]  # agent -> topic keys, then "kind:<key>" collection keys


def _doc_order(cat: Catalog, doc_ids: list[str]) -> list[str]:
    """Documents laid out cluster by cluster (louvain on the document-topic graph, seed fixed)."""
    import networkx as nx

    g: nx.Graph[tuple[str, str]] = nx.Graph()
    g.add_nodes_from(("d", d) for d in doc_ids)
    wanted = set(doc_ids)
    for t in cat.topics:
        for d in t.spans:
            if d in wanted:
                g.add_edge(("t", t.key), ("d", d))
    try:
        comms = nx.community.louvain_communities(g, seed=42)
    except Exception:
        log.warning("document clustering failed; splitting in doc id order", exc_info=True)
        return sorted(doc_ids)
    groups = [sorted(d for kind, d in c if kind == "d") for c in comms]
    groups = [grp for grp in groups if grp]
    groups.sort(key=lambda grp: (-len(grp), grp[0]))
    order = [d for grp in groups for d in grp]
    return order + sorted(wanted - set(order))


def _doc_owners(
    cat: Catalog, doc_ids: list[str], sizes: dict[str, int], agents: list[str], owners: dict[str, str]
) -> dict[str, str]:
    """doc id -> agent: the owner of its existing page, else contiguous runs of the clustered order,
    about equal in size (a document whose page belongs to no agent of this build gets none)."""
    doc_owner: dict[str, str] = {}
    free = []
    for d in doc_ids:
        o = owners.get(doc_slug(d))
        if o in agents:
            doc_owner[d] = o
        elif o is None:
            free.append(d)
    order = _doc_order(cat, free)
    total = sum(max(1, sizes.get(d, 1)) for d in order)
    target = total / len(agents) if agents else total
    acc, i = 0, 0
    for d in order:
        doc_owner[d] = agents[min(i, len(agents) - 1)]
        acc += max(1, sizes.get(d, 1))
        if acc >= target * (i + 1) and i < len(agents) - 1:
            i += 1
    return doc_owner


def plan_shares(
    cat: Catalog, doc_ids: list[str], sizes: dict[str, int], agents: list[str], owners: dict[str, str]
) -> Plan:
    """Each agent's documents, topics and collections; existing pages stay with their owners."""
    doc_owner = _doc_owners(cat, doc_ids, sizes, agents, owners)

    def by_majority(slug: str, members: list[str]) -> str | None:
        o = owners.get(slug)
        if o is not None:
            return o if o in agents else None
        counts = dict.fromkeys(agents, 0)
        for d in members:
            if d in doc_owner:
                counts[doc_owner[d]] += 1
        return max(agents, key=lambda a: (counts[a], -agents.index(a)))

    docs: dict[str, list[str]] = {a: [] for a in agents}
    for d in doc_ids:
        if d in doc_owner:
            docs[doc_owner[d]].append(d)
    topics: dict[str, list[str]] = {a: [] for a in agents}
    for t in cat.topics:
        a = by_majority(t.slug, t.doc_ids)
        if a is not None:
            topics[a].append(t.key)
    for c in cat.collections:
        a = by_majority(c.slug, c.members)
        if a is not None:
            topics[a].append(KIND_PREFIX + c.key)
    return Plan(agents, docs, topics)
