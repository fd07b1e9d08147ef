"""Per-session figures for the growth view, and the chart's geometry.

Each build session logs one "session summary" entry (agent "system", see
``wikigen.wiki.progress.session_summary``): wiki and corpus size in characters and tokens, the limit,
pages, quotes, links repaired, documents cited. Wikis built before that entry existed fall back to
what the history still tells: the session's git commit subject ("session 3: 41 pages, 230 quotes,
4 links repaired, ratio 0.12, ...") gives pages, quotes, links repaired and the size ratio (the larger
of characters and tokens); a session only in the progress log gives the pages written in it. Every
figure that is not known is None, and the row says which are missing.

Dreaming (wikigen.agents.dreaming) shows too: a `wikigen dream` session's summary has kind "dream", a build
session that also dreamed carries a "dream" field, and each change the dreamer made is its own progress-log
entry (agent "dreamer", action "dream: wrote" / "extended" / "merged" / "replaced superseded", with how
many questions caused it): `SessionRow.dream_changes`. The questions themselves are never shown: they stay in
the wiki's private question log (an entry an older dreamer wrote with its questions is shown without them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wikigen.wiki.human import DREAMER
from wikigen.wiki.progress import SUMMARY_ACTION, SUMMARY_AGENT

DREAM_ACTION = "dream: "  # the dreamer's progress-log actions start so

COMMIT_RE = re.compile(r"^session (\d+): (\d+) pages, (\d+) quotes, (\d+) links repaired, ratio ([0-9.]+)")
FIGURES = (
    "wiki_chars",
    "wiki_tokens",
    "corpus_chars",
    "corpus_tokens",
    "pages",
    "quotes",
    "links_repaired",
    "docs_cited",
)


@dataclass
class SessionRow:
    session: int
    source: str  # summary | git | log
    wiki_chars: int | None = None
    wiki_tokens: int | None = None
    corpus_chars: int | None = None
    corpus_tokens: int | None = None
    pages: int | None = None
    quotes: int | None = None
    links_repaired: int | None = None
    docs_cited: int | None = None
    docs_total: int | None = None
    ratio: float | None = None  # from git history: the larger of the two ratios
    pages_written: int | None = None  # from the log only
    values_stated: int | None = None  # cells of the provisions table stated (wikigen.wiki.provisions)
    values_cells: int | None = None  # ... of all its cells
    kind: str = "build"  # build | dream (a `wikigen dream` session)
    dream_changes: list[DreamChange] = field(default_factory=list)  # what dreaming changed in the session

    @property
    def values_filled(self) -> float | None:
        """The share of the provisions table's cells that state a value, when the wiki has a table."""
        if self.values_stated is None or not self.values_cells:
            return None
        return self.values_stated / self.values_cells

    @property
    def dreamed(self) -> bool:
        return self.kind == "dream" or bool(self.dream_changes)

    @property
    def ratio_chars(self) -> float | None:
        return self.wiki_chars / self.corpus_chars if self.wiki_chars is not None and self.corpus_chars else None

    @property
    def ratio_tokens(self) -> float | None:
        if self.wiki_tokens is None or not self.corpus_tokens:
            return None
        return self.wiki_tokens / self.corpus_tokens

    @property
    def missing(self) -> list[str]:
        return [f for f in FIGURES if getattr(self, f) is None]


@dataclass(frozen=True)
class DreamChange:
    """One change a dreaming session made, from its progress-log entry."""

    action: str  # wrote | extended | merged | replaced superseded
    pages: tuple[str, ...]  # the page (and, for a merge, the page kept)
    n_questions: int  # how many questions caused it
    quotes: int


def _dream_change(e: dict) -> DreamChange:
    return DreamChange(
        str(e.get("action", ""))[len(DREAM_ACTION) :],
        tuple(p for p in (e.get("pages") or []) if isinstance(p, str)),
        _int(e.get("n_questions")) or len(e.get("questions") or []),
        _int(e.get("quotes_added")) or 0,
    )


def _int(v) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _from_summary(session: int, e: dict) -> SessionRow:
    return SessionRow(
        session,
        "summary",
        wiki_chars=_int(e.get("wiki_chars")),
        wiki_tokens=_int(e.get("wiki_tokens")),
        corpus_chars=_int(e.get("corpus_chars")),
        corpus_tokens=_int(e.get("corpus_tokens")),
        pages=_int(e.get("n_pages")),
        quotes=_int(e.get("quotes")),
        links_repaired=_int(e.get("links_repaired")),
        docs_cited=_int(e.get("docs_cited")),
        docs_total=_int(e.get("docs_total")),
        values_stated=_int(e.get("values_stated")),
        values_cells=_int(e.get("values_cells")),
    )


def session_rows(entries: list[dict], commits: list[tuple[str, str]]) -> list[SessionRow]:
    """One row per session, oldest first: from its summary entry, else its commit, else the log."""
    summaries: dict[int, dict] = {}
    written: dict[int, set[str]] = {}
    dreamt: dict[int, list[DreamChange]] = {}
    for e in entries:
        s = _int(e.get("session"))
        if s is None:
            continue
        if e.get("agent") == SUMMARY_AGENT and e.get("action") == SUMMARY_ACTION:
            summaries[s] = e  # the last one wins (a re-run session logs again)
        else:
            written.setdefault(s, set()).update(p for p in (e.get("pages") or []) if isinstance(p, str))
            if e.get("agent") == DREAMER and str(e.get("action", "")).startswith(DREAM_ACTION):
                dreamt.setdefault(s, []).append(_dream_change(e))
    from_git: dict[int, SessionRow] = {}
    for _, subject in commits:
        m = COMMIT_RE.match(subject)
        if m:
            s = int(m.group(1))
            from_git[s] = SessionRow(
                s,
                "git",
                pages=int(m.group(2)),
                quotes=int(m.group(3)),
                links_repaired=int(m.group(4)),
                ratio=float(m.group(5)),
            )
    rows = []
    for s in sorted(set(summaries) | set(from_git) | set(written)):
        if s in summaries:
            row = _from_summary(s, summaries[s])
        elif s in from_git:
            row = from_git[s]
        else:
            row = SessionRow(s, "log")
        row.pages_written = len(written.get(s, ()))
        row.kind = "dream" if summaries.get(s, {}).get("kind") == "dream" else "build"
        row.dream_changes = dreamt.get(s, [])
        rows.append(row)
    return rows


# --- the chart --------------------------------------------------------------------------------------


@dataclass
class Series:
    name: str
    css: str
    points: list[tuple[float, float, int, float]] = field(default_factory=list)  # x, y, session, value

    @property
    def polyline(self) -> str:
        return " ".join(f"{x:.1f},{y:.1f}" for x, y, _, _ in self.points)


@dataclass
class Chart:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    series: list[Series]
    hlines: list[tuple[str, str, float, float]]  # css, label, y, value
    xticks: list[tuple[float, int]]
    yticks: list[tuple[float, str]]


def growth_chart(
    rows: list[SessionRow], max_ratio: float, warn_fraction: float, *, width: int = 760, height: int = 340
) -> Chart:
    """Wiki size / corpus size per session, in characters and in tokens (and the ratio from git
    history for sessions without a summary), with the limit and warning lines."""
    left, right, top, bottom = 56, width - 150, 16, height - 40
    specs = [
        ("characters", "chars", lambda r: r.ratio_chars),
        ("tokens", "tokens", lambda r: r.ratio_tokens),
        ("ratio from git history", "history", lambda r: r.ratio if r.source == "git" else None),
    ]
    values = [v for _, _, f in specs for r in rows if (v := f(r)) is not None]
    warn = warn_fraction * max_ratio
    y_max = max([max_ratio * 1.15, *[v * 1.1 for v in values]])
    n = len(rows)

    def x_of(i: int) -> float:
        return left + (right - left) * (0.5 if n <= 1 else i / (n - 1))

    def y_of(v: float) -> float:
        return bottom - (bottom - top) * (v / y_max)

    series = []
    for name, css, f in specs:
        s = Series(name, css)
        for i, r in enumerate(rows):
            v = f(r)
            if v is not None:
                s.points.append((x_of(i), y_of(v), r.session, v))
        if s.points:
            series.append(s)
    step = _nice_step(y_max / 5)
    yticks = [(y_of(k * step), f"{k * step:.2f}") for k in range(int(y_max / step) + 1)]
    every = max(1, n // 12)
    xticks = [(x_of(i), r.session) for i, r in enumerate(rows) if i % every == 0 or i == n - 1]
    hlines = [
        ("limit", f"limit {max_ratio:.2f}", y_of(max_ratio), max_ratio),
        ("warn", f"warning {warn:.2f}", y_of(warn), warn),
    ]
    return Chart(width, height, left, right, top, bottom, series, hlines, xticks, yticks)


def _nice_step(raw: float) -> float:
    for step in (0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100):
        if step >= raw:
            return step
    return raw
