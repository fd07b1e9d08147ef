"""Positions for the graph view, computed once in Python so the browser only draws (cytoscape's "preset"
layout). cytoscape's own force layout ("cose") is quadratic per step: on this machine it took 22 s for
1,200 nodes, 127 s for 3,000; so a wiki of a thousand pages would open on a frozen tab.

The layout is in two steps, both deterministic (a seeded start, a fixed number of steps):

1. **Anchors**: the `max_anchors` best-linked pages (by degree: in a wiki, the topic, collection and
   figure pages that gather documents) are laid out by a force-directed layout (Fruchterman-Reingold, in
   numpy: O(anchors^2) per step, with a pull to the middle so unlinked parts do not drift apart). Two anchors attract each other by their direct links and by the pages
   they share (a document linked from both), so topics about the same documents sit together.
2. **The rest** sit around the most specific anchor they link to (the one with the fewest links: a
   document beside its collection rather than beside a topic every document has), on a sunflower spiral
   with the other pages of that anchor. A page linked only to such pages is placed next to them in a
   second pass; pages with no links at all go in a grid below the drawing.

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
    max_anchors: int = MAX_ANCHORS,
    seed: int = 42,
    steps: int = STEPS,
) -> dict[str, tuple[float, float]]:
    """Node -> (x, y) in drawing units, for every node (see the module docstring)."""
    if not nodes:
        return {}
    adj: dict[str, set[str]] = defaultdict(set)
    for u, v in edges:
        if u != v:
            adj[u].add(v)
            adj[v].add(u)
    linked = [n for n in nodes if adj[n]]
    anchors = sorted(linked, key=lambda n: (-len(adj[n]), n))[:max_anchors]
    index = {a: i for i, a in enumerate(anchors)}
    out: dict[str, tuple[float, float]] = {}
    scale = SPACING * math.sqrt(max(1, len(anchors))) / 2
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
        out = {a: (float(pos[i, 0]), float(pos[i, 1])) for i, a in enumerate(anchors)}
    spread = SPACING * 0.28
    placed = set(out)
    rest = [n for n in nodes if n not in placed]
    for _ in range(3):  # pages next to anchors first, then pages next to those
        homes: dict[str, list[str]] = defaultdict(list)
        for n in rest:
            near = [m for m in adj[n] if m in placed]
            if near:
                homes[min(near, key=lambda m: (len(adj[m]), m))].append(n)
        if not homes:
            break
        for home, members in sorted(homes.items()):
            cx, cy = out[home]
            for i, n in enumerate(sorted(members), 1):
                r, angle = spread * math.sqrt(i + 3), i * GOLDEN
                out[n] = (cx + r * math.cos(angle), cy + r * math.sin(angle))
        placed = set(out)
        rest = [n for n in rest if n not in placed]
    if rest:  # no links: a grid below the drawing
        top = max((y for _, y in out.values()), default=0.0) + 3 * SPACING
        left = min((x for x, _ in out.values()), default=0.0)
        cols = max(1, int(math.sqrt(len(rest)) * 2))
        for i, n in enumerate(sorted(rest)):
            out[n] = (left + (i % cols) * SPACING * 0.6, top + (i // cols) * SPACING * 0.6)
    return {n: (round(out[n][0], 1), round(out[n][1], 1)) for n in nodes}
