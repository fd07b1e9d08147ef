"""Positions for the graph view, computed once in Python so the browser only draws (cytoscape's "preset"
layout). cytoscape's own force layout ("cose") is quadratic per step: on this machine it took 22 s for
1,200 nodes, 127 s for 3,000; so a wiki of a thousand pages would open on a frozen tab.

The layout is in three steps, all deterministic (a seeded start, a fixed number of steps):

1. **Anchors**: the hubs (the pages that gather others: kinds, topics, figures; when the caller names none,
   the best-linked pages), at most `max_anchors` of them, are laid out by a force-directed layout
   (Fruchterman-Reingold, in numpy: O(anchors^2) per step, with a pull to the middle so unlinked parts do
   not drift apart). Two anchors attract each other by their direct links and by the pages they share (a
   document linked from both), so topics about the same documents sit together.
2. **Clusters**: every other page sits around one anchor it links to, the one of the lowest hub rank (a
   kind before a topic) and then the fewest links (the most specific: a document beside its NDA kind
   rather than beside the kind every contract is in), on a sunflower spiral with the other pages of that
   anchor. Each anchor's cluster is a disc sized by its pages; the discs are pushed apart until none
   overlaps another, so a kind is a cluster of its documents and not a part of a hairball.
3. **The rest**: a page linked only to such pages is placed next to them in a second pass; pages with no
   links at all go in a grid below the drawing.

So the cost grows with anchors^2 + pages, not pages^2: the 1,000-page and larger graphs open in seconds.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

__all__ = ["MAX_ANCHORS", "graph_positions"]

MAX_ANCHORS = 300
STEPS = 150
SPACING = 60.0  # drawing units between neighbouring anchors (a node is about 12 units wide)
GRAVITY = 1.0  # a pull to the middle, growing with the distance: parts with no link between them stay near
GOLDEN = math.pi * (3 - math.sqrt(5))


def _force_layout(n: int, weights: np.ndarray, seed: int, steps: int) -> np.ndarray:
    """Fruchterman-Reingold on n nodes with a symmetric weight matrix; positions in about [-1, 1]^2."""
    rng = np.random.default_rng(seed)
    pos = rng.uniform(-1.0, 1.0, (n, 2))
    if n == 1:
        return np.zeros((1, 2))
    k = math.sqrt(4.0 / n)  # the ideal distance in a 2 x 2 square
    t = 0.2
    cool = t / (steps + 1)
    for _ in range(steps):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.sqrt((delta**2).sum(-1))
        np.fill_diagonal(dist, 1.0)
        dist = np.maximum(dist, 0.01)
        force = k * k / dist**2 - weights * dist / k  # repulsion minus attraction, over the distance
        np.fill_diagonal(force, 0.0)
        disp = (delta * force[:, :, None]).sum(1) - GRAVITY * pos * np.sqrt((pos**2).sum(-1, keepdims=True)) / k
        length = np.maximum(np.sqrt((disp**2).sum(-1)), 0.01)
        pos += disp * (np.minimum(length, t) / length)[:, None]
        t -= cool
    return pos - pos.mean(0)


def graph_positions(
    nodes: list[str],
    edges: list[tuple[str, str]],
    *,
    hubs: dict[str, int] | None = None,
    max_anchors: int = MAX_ANCHORS,
    seed: int = 42,
    steps: int = STEPS,
) -> dict[str, tuple[float, float]]:
    """Node -> (x, y) in drawing units, for every node (see the module docstring). hubs, when given, names the
    pages that gather others (kinds, topics, figures) with a rank: a page sits in the cluster of the linked hub
    of the lowest rank, the most specific of them; without it the best-linked pages are the anchors."""
    if not nodes:
        return {}
    adj: dict[str, set[str]] = defaultdict(set)
    for u, v in edges:
        if u != v:
            adj[u].add(v)
            adj[v].add(u)
    linked = [n for n in nodes if adj[n]]
    rank = hubs if hubs is not None else {}
    by_degree = sorted(linked, key=lambda n: (-len(adj[n]), n))
    anchors = [n for n in by_degree if n in rank][:max_anchors] or by_degree[:max_anchors]
    index = {a: i for i, a in enumerate(anchors)}
    out: dict[str, tuple[float, float]] = {}
    scale = SPACING * math.sqrt(max(1, len(anchors))) / 2
    spread = SPACING * 0.28
    placed = set(anchors)
    rest = [n for n in nodes if n not in placed]
    homes = _homes(rest, adj, placed, rank)
    if anchors:
        w = np.zeros((len(anchors), len(anchors)))
        for a in anchors:
            for b in adj[a]:
                if b in index:
                    w[index[a], index[b]] = 1.0
        for n in linked:  # a page two anchors share pulls them together (less when it links many)
            if n in index:
                continue
            mine = [index[a] for a in adj[n] if a in index]
            for i in mine:
                for j in mine:
                    if i != j:
                        w[i, j] += 1.0 / len(mine)
        w = np.minimum(w, 3.0)
        pos = _force_layout(len(anchors), w, seed, steps) * scale
        # each anchor's cluster is a disc of its pages' spiral: pushed apart, so no two clusters overlap
        radius = np.array([spread * math.sqrt(len(homes.get(a, [])) + 3) for a in anchors]) + SPACING * 0.4
        pos = _separate(pos, radius)
        out = {a: (float(pos[i, 0]), float(pos[i, 1])) for i, a in enumerate(anchors)}
    for _ in range(3):  # pages next to anchors first, then pages next to those
        if not homes:
            break
        for home, members in sorted(homes.items()):
            cx, cy = out[home]
            for i, n in enumerate(sorted(members), 1):
                r, angle = spread * math.sqrt(i + 3), i * GOLDEN
                out[n] = (cx + r * math.cos(angle), cy + r * math.sin(angle))
        placed = set(out)
        rest = [n for n in rest if n not in placed]
        homes = _homes(rest, adj, placed, rank)
    if rest:  # no links: a grid below the drawing
        top = max((y for _, y in out.values()), default=0.0) + 3 * SPACING
        left = min((x for x, _ in out.values()), default=0.0)
        cols = max(1, int(math.sqrt(len(rest)) * 2))
        for i, n in enumerate(sorted(rest)):
            out[n] = (left + (i % cols) * SPACING * 0.6, top + (i // cols) * SPACING * 0.6)
    return {n: (round(out[n][0], 1), round(out[n][1], 1)) for n in nodes}


def _homes(rest: list[str], adj: dict[str, set[str]], placed: set[str], rank: dict[str, int]) -> dict[str, list[str]]:
    """Placed page -> the unplaced pages that sit around it: each beside its linked placed page of the lowest
    rank (a kind before a topic), then the fewest links (the most specific: a small kind before a large one)."""
    homes: dict[str, list[str]] = defaultdict(list)
    for n in rest:
        near = [m for m in adj[n] if m in placed]
        if near:
            homes[min(near, key=lambda m: (rank.get(m, len(rank) + 99), len(adj[m]), m))].append(n)
    return homes


def _separate(pos: np.ndarray, radius: np.ndarray, steps: int = 200) -> np.ndarray:
    """Discs at pos with these radii moved apart until none overlaps another, each pair pushed along the line
    between them (the picture's arrangement kept); O(n^2) per step, for the few hundred anchors."""
    pos = pos.copy()
    n = len(pos)
    if n < 2:
        return pos
    need = radius[:, None] + radius[None, :]
    for _ in range(steps):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.sqrt((delta**2).sum(-1))
        np.fill_diagonal(dist, np.inf)
        overlap = np.maximum(need - dist, 0.0)
        if overlap.max() < 0.5:
            break
        safe = np.maximum(dist, 1e-6)
        tiny = dist < 1e-6  # two discs on one spot: apart along a fixed direction of their indices
        unit = delta / safe[:, :, None]
        if tiny.any():
            i, j = np.nonzero(tiny)
            angle = (i * 7 + j * 13).astype(float)
            unit[i, j] = np.stack([np.cos(angle), np.sin(angle)], -1) * np.sign(i - j)[:, None]
        pos += (unit * (overlap / 2)[:, :, None]).sum(1) * 0.5
    return pos
