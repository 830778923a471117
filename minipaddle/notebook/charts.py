"""Small self-contained SVG charts for notebooks: no plotting library needed.

    from minipaddle.notebook.charts import line_chart, xy_chart
    from IPython.display import SVG
    SVG(line_chart({"train loss": losses}, title="loss"))                  # series against the step
    SVG(xy_chart({"density": (xs, pdf)}, bars={"samples": (edges, counts)}))  # curves over x, histograms
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

    out = _frame(width, height, left, top, pw, ph, title, xlabel)
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


def xy_chart(curves: dict[str, tuple], title: str = "", width: int = 480, height: int = 300,
             xlabel: str = "x", ylabel: str = "", bars: dict[str, tuple] | None = None,
             paths: dict[str, tuple] | None = None) -> str:
    """An SVG document with curves y(x), histograms and paths on shared axes.

    curves: name -> (xs, ys), drawn as lines; bars: name -> (edges, heights), len(edges) =
    len(heights) + 1, drawn as a histogram behind the curves; paths: name -> (xs, ys), drawn as lines
    with a dot per point (an optimizer's iterates). Non-finite points are skipped."""
    bars, paths = bars or {}, paths or {}
    left, right, top, bottom = 56, 12, 28, 36
    pw, ph = width - left - right, height - top - bottom
    xs_all = [float(v) for xs, _ in (*curves.values(), *paths.values()) for v in xs]
    xs_all += [float(v) for edges, _ in bars.values() for v in edges]
    ys_all = [float(v) for _, ys in (*curves.values(), *paths.values()) for v in ys]
    ys_all += [float(v) for _, heights in bars.values() for v in heights] + ([0.0] if bars else [])
    (x_lo, x_hi), (y_lo, y_hi) = _range(xs_all), _range(ys_all)

    def x_of(v: float) -> float:
        return left + pw * (v - x_lo) / (x_hi - x_lo)

    def y_of(v: float) -> float:
        return top + ph * (1 - (v - y_lo) / (y_hi - y_lo))

    out = _frame(width, height, left, top, pw, ph, title, xlabel)
    out.append(f'<text x="12" y="{top + ph / 2}" text-anchor="middle" transform="rotate(-90 12 {top + ph / 2})">'
               f'{html.escape(ylabel)}</text>')
    for t in _ticks(y_lo, y_hi):
        y = y_of(t)
        out.append(f'<line x1="{left - 4}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#eee"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{t:.3g}</text>')
    for t in _ticks(x_lo, x_hi):
        out.append(f'<text x="{x_of(t):.1f}" y="{top + ph + 14}" text-anchor="middle">{t:.3g}</text>')
    k = 0
    for name, (edges, heights) in bars.items():
        colour = PALETTE[k % len(PALETTE)]
        for a, b, h in zip(edges[:-1], edges[1:], heights):
            if math.isfinite(h):
                out.append(f'<rect x="{x_of(a):.1f}" y="{y_of(h):.1f}" width="{max(x_of(b) - x_of(a) - 0.5, 0.5):.1f}" '
                           f'height="{max(y_of(y_lo) - y_of(h), 0):.1f}" fill="{colour}" fill-opacity="0.35"/>')
        out.append(_legend(name, colour, left + pw, top, k))
        k += 1
    for group, dots in ((curves, False), (paths, True)):
        for name, (xs, ys) in group.items():
            colour = PALETTE[k % len(PALETTE)]
            points = [(x_of(float(x)), y_of(float(y))) for x, y in zip(xs, ys)
                      if math.isfinite(float(x)) and math.isfinite(float(y))]
            if points:
                line = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
                out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.6" points="{line}"/>')
            if dots:
                out.extend(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="2.5" fill="{colour}"/>' for px, py in points)
            out.append(_legend(name, colour, left + pw, top, k))
            k += 1
    out.append("</svg>")
    return "\n".join(out)


def _range(values: list[float]) -> tuple[float, float]:
    finite = [v for v in values if math.isfinite(v)]
    lo, hi = (min(finite), max(finite)) if finite else (0.0, 1.0)
    return (lo - 0.5, hi + 0.5) if hi - lo < 1e-12 else (lo, hi)


def _legend(name: str, colour: str, right: float, top: float, k: int) -> str:
    return (f'<text x="{right - 4}" y="{top + 14 + 14 * k}" text-anchor="end" fill="{colour}">'
            f'{html.escape(name)}</text>')


def _frame(width: int, height: int, left: float, top: float, pw: float, ph: float, title: str, xlabel: str) -> list:
    """The SVG's opening, white background, title, both axes and the x label."""
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif" font-size="11">',
            f'<rect width="{width}" height="{height}" fill="white"/>',
            f'<text x="{width / 2}" y="16" text-anchor="middle" font-size="13">{html.escape(title)}</text>',
            f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#444"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#444"/>',
            f'<text x="{left + pw / 2}" y="{height - 6}" text-anchor="middle">{html.escape(xlabel)}</text>']
