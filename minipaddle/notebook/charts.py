"""Small self-contained SVG charts (loss curves) for notebooks: no plotting library needed.

    from minipaddle.notebook.charts import line_chart
    from IPython.display import SVG
    SVG(line_chart({"train loss": losses}, title="loss"))
"""
from __future__ import annotations

import html
import math

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")


def _ticks(lo: float, hi: float, n: int = 4) -> list[float]:
    if hi <= lo:
        return [lo]
    step = 10 ** math.floor(math.log10((hi - lo) / n))
    for m in (1, 2, 5, 10):
        if (hi - lo) / (step * m) <= n:
            step *= m
            break
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step) + 1)]


def line_chart(series: dict[str, list[float]], title: str = "", width: int = 480, height: int = 260,
               xlabel: str = "step", log_y: bool = False) -> str:
    """An SVG document plotting each named series against its index; non-finite points are skipped."""
    left, right, top, bottom = 56, 12, 28, 36
    pw, ph = width - left - right, height - top - bottom
    finite = [v for ys in series.values() for v in ys if math.isfinite(v) and (v > 0 or not log_y)]
    n = max((len(ys) for ys in series.values()), default=0)
    tf = (lambda v: math.log10(v)) if log_y else (lambda v: v)
    lo, hi = (tf(min(finite)), tf(max(finite))) if finite else (0.0, 1.0)
    if hi - lo < 1e-12:
        lo, hi = lo - 0.5, hi + 0.5

    def x_of(i: int) -> float:
        return left + pw * (i / max(n - 1, 1))

    def y_of(v: float) -> float:
        return top + ph * (1 - (tf(v) - lo) / (hi - lo))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="16" text-anchor="middle" font-size="13">{html.escape(title)}</text>',
           f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#444"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#444"/>',
           f'<text x="{left + pw / 2}" y="{height - 6}" text-anchor="middle">{html.escape(xlabel)}</text>']
    for t in _ticks(lo, hi):
        y = top + ph * (1 - (t - lo) / (hi - lo))
        label = f"{10 ** t:.3g}" if log_y else f"{t:.3g}"
        out.append(f'<line x1="{left - 4}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#eee"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    out.append(f'<text x="{left}" y="{top + ph + 14}" text-anchor="middle">0</text>')
    out.append(f'<text x="{left + pw}" y="{top + ph + 14}" text-anchor="middle">{max(n - 1, 0)}</text>')
    for k, (name, ys) in enumerate(series.items()):
        colour = PALETTE[k % len(PALETTE)]
        points = [f"{x_of(i):.1f},{y_of(v):.1f}" for i, v in enumerate(ys) if math.isfinite(v) and (v > 0 or not log_y)]
        if points:
            out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.6" points="{" ".join(points)}"/>')
        out.append(f'<text x="{left + pw - 4}" y="{top + 14 + 14 * k}" text-anchor="end" fill="{colour}">'
                   f'{html.escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)
