"""Figure pages: one page per labelled figure that recurs across documents (`wikigen.agents.figures`),
quoting the line that states it from each document, in time order of each document's own date.

    ## [[doc-report-2023-q1]] (2023-03-31)

    > [!quote] report-2023-q1 (chars 5120-5149)
    > Units shipped   1,240   1,085

Which figures get a page is decided once per build under the size budget: the best-ranked figures
while their pages' expected characters stay within `share` of the wiki's target size, at most
`max_docs` documents quoted on one page (the earliest and the latest kept first, so a page always
spans the whole period). Each figure page is owned by the agent whose share of the corpus holds one of
its documents picked by a hash (`owner_doc`); it is written in the agent's first session after
its document pages, and rebuilt like the other pages when revised.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wikigen.agents.figures import Figure, FigureParams
from wikigen.agents.params import OfflineParams

from wikigen.core.slugs import doc_slug

if TYPE_CHECKING:
    from wikigen.agents.page_bodies import PageMaker

__all__ = ["FigurePlan", "figure_page", "owner_doc", "page_chars", "plan_figures"]


@dataclass(frozen=True)
class FigurePlan:
    figures: tuple[Figure, ...]  # the figures that get a page, best first
    chars: int  # their pages' expected characters
    dropped: int  # figures found but left without a page under the budget


def _kept_docs(f: Figure, max_docs: int) -> list[str]:
    """The documents a figure's page quotes, in time order: all when few, else the first and last
    and an even spread between them."""
    order = f.order
    if len(order) <= max_docs:
        return list(order)
    step = (len(order) - 1) / (max_docs - 1)
    picks = sorted({round(i * step) for i in range(max_docs)})
    return [order[i] for i in picks]


def page_chars(f: Figure, max_docs: int, costs: OfflineParams = OfflineParams()) -> int:
    """The expected characters of a figure's page (a page's and a quote's fixed costs: the offline agent's size
    estimates, `costs`)."""
    total = costs.page_cost + 2 * len(f.slug) + 2 * len(f.title) + 80 + sum(len(a) + 4 for a in f.aliases)
    for d in _kept_docs(f, max_docs):
        m = f.mentions[d]
        total += (m.end - m.start) + costs.quote_cost + len(d) + 2 * len(doc_slug(d)) + 30
    return total


def plan_figures(
    figures: list[Figure],
    target_chars: int | None,
    params: FigureParams = FigureParams(),
    costs: OfflineParams = OfflineParams(),
) -> FigurePlan:
    """The figures that get a page: best first while their pages fit in params.share x target_chars
    (every figure found when there is no target)."""
    kept, used = [], 0
    for f in figures:
        cost = page_chars(f, params.max_docs, costs)
        if target_chars is not None and used + cost > params.share * target_chars:
            continue
        kept.append(f)
        used += cost
    return FigurePlan(tuple(kept), used, len(figures) - len(kept))


def owner_doc(f: Figure) -> str:
    """The document whose agent writes the figure's page: one of its documents, picked by a hash of the
    figure's key and the doc id (so figures spread over the agents holding their documents)."""
    return min(f.mentions, key=lambda d: hashlib.sha1(f"{f.key}\0{d}".encode()).hexdigest())


def figure_page(
    maker: PageMaker, f: Figure, params: FigureParams = FigureParams()
) -> tuple[str, str, list[str]] | None:
    """(body, description, quoted doc ids) of a figure's page, every quote read through the tools;
    None when fewer than two documents could be quoted."""
    sections, quoted = [], []
    for d in _kept_docs(f, params.max_docs):
        m = f.mentions[d]
        q = maker.quote(d, m.start, m.end, params.phrase_chars if m.kind == "phrase" else None)
        if not q:
            continue
        when = f" ({f.dates[d]})" if d in f.dates else ""
        sections.append(f"## [[{doc_slug(d)}]]{when}\n\n{q}")
        quoted.append(d)
    if len(quoted) < 2:
        return None
    dated = [f.dates[d] for d in quoted if d in f.dates]
    span = f", {dated[0]} to {dated[-1]}" if len(dated) >= 2 else ""
    desc = f"\u201c{f.title}\u201d as {len(quoted)} documents state it{span}"
    intro = "Each document's line, in time order of the document's own date." if dated else "Each document's line."
    rest = [d for d in f.order if d not in quoted]
    parts = [intro] + sections
    if rest:
        parts.append("Also in " + ", ".join(f"[[{doc_slug(d)}]]" for d in rest) + ".")
    return "\n\n".join(parts) + "\n", desc, quoted
