"""`wikigen eval`'s chart, eval-chart.svg: grouped bars of the scores by answer mode and question kind
(single accuracy, aggregate recall, aggregate precision) beside the mean context tokens by mode.

A plain SVG file written here (no plotting library): it opens in any browser and diffs as text. Every
label is XML-escaped; the numbers come from `wikigen.ask.evaluate.summarize`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import escape

from wikigen.core.atomic import atomic_write

SERIES = (  # (legend, question kind, summary key)
    ("single accuracy", "single", "score"),
    ("aggregate recall", "aggregate", "score"),
    ("aggregate precision", "aggregate", "precision"),
)
COLORS = ("#4c72b0", "#dd8452", "#55a868")
TOKENS_COLOR = "#8c8c8c"
WIDTH, HEIGHT = 880, 340
TOP, BOTTOM, LEFT = 40, 60, 50  # margins around each panel's plot area
PLOT_H = HEIGHT - TOP - BOTTOM


def _text(x: float, y: float, s: str, *, size: int = 11, anchor: str = "middle", weight: str = "normal") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
        f'font-weight="{weight}">{escape(s)}</text>'
    )


def _panel(
    x0: float, width: float, title: str, modes: list[str], groups: list[list[float]], top: float, fmt: str
) -> list[str]:
    """One bar panel: per mode a group of bars (one per series, colors in order), values scaled to `top`."""
    out = [_text(x0 + width / 2, TOP - 18, title, size=13, weight="bold")]
    base = TOP + PLOT_H
    out.append(f'<line x1="{x0:.1f}" y1="{base}" x2="{x0 + width:.1f}" y2="{base}" stroke="#333"/>')
    slot = width / max(1, len(modes))
    for j, mode in enumerate(modes):
        vals = groups[j]
        bar = 0.8 * slot / max(1, len(vals))
        for i, v in enumerate(vals):
            h = PLOT_H * (v / top if top else 0.0)
            x = x0 + j * slot + 0.1 * slot + i * bar
            color = COLORS[i % len(COLORS)] if len(vals) > 1 else TOKENS_COLOR
            out.append(f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{bar:.1f}" height="{h:.1f}" fill="{color}"/>')
            out.append(_text(x + bar / 2, base - h - 3, format(v, fmt), size=9))
        out.append(_text(x0 + (j + 0.5) * slot, base + 16, mode))
    return out


def draw_chart(summary: Sequence[dict], path: Path, *, budget: int = 0) -> Path:
    """Write the chart of an eval summary (rows with mode, kind, n, score, precision, mean_tokens) to path."""
    modes = list(dict.fromkeys(s["mode"] for s in summary))
    scores = []
    tokens = []
    for m in modes:
        row_of = {s["kind"]: s for s in summary if s["mode"] == m}
        scores.append([float((row_of[kind].get(key) if kind in row_of else 0.0) or 0.0) for _, kind, key in SERIES])
        rows = [s for s in summary if s["mode"] == m]
        n = sum(s["n"] for s in rows)
        tokens.append([sum(s["mean_tokens"] * s["n"] for s in rows) / n if n else 0.0])
    left_w = (WIDTH - 3 * LEFT) * 2 / 3
    right_x = 2 * LEFT + left_w
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        'font-family="sans-serif">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        *_panel(LEFT, left_w, "Evidence found, by mode and question kind", modes, scores, 1.0, ".2f"),
        *_panel(
            right_x,
            WIDTH - right_x - LEFT / 2,
            f"Context tokens per question (budget {budget})" if budget else "Context tokens per question",
            modes,
            tokens,
            max([t[0] for t in tokens] + [budget, 1]),
            ".0f",
        ),
    ]
    for i, (label, _, _) in enumerate(SERIES):  # the legend, under the score panel
        x = LEFT + i * 170
        parts.append(f'<rect x="{x}" y="{HEIGHT - 22}" width="12" height="12" fill="{COLORS[i]}"/>')
        parts.append(_text(x + 18, HEIGHT - 12, label, anchor="start"))
    parts.append("</svg>")
    path = Path(path)
    atomic_write(path, "\n".join(parts) + "\n")
    return path
