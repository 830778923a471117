/**
 * Small pieces of the inspector: numbers, shapes, an SVG histogram of a state's 32 bins and an SVG
 * heat map of a small tensor's values. Everything returns DOM nodes built with textContent (never
 * innerHTML), so names from user code cannot inject markup.
 */
import { Histogram, Num, State, Summary } from './schema';

const SVG_NS = 'http://www.w3.org/2000/svg';

export function num(v: Num | null | undefined): string {
  if (v === null || v === undefined) return '–';
  if (typeof v === 'string') return v;
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e5) ? v.toExponential(3) : v.toPrecision(4);
}

export function toNumber(v: Num): number {
  if (typeof v === 'number') return v;
  return v === 'NaN' ? NaN : v === 'Infinity' ? Infinity : -Infinity;
}

export function duration(ns: number): string {
  if (ns < 1e3) return `${ns} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(1)} µs`;
  return `${(ns / 1e6).toFixed(2)} ms`;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** A 32-bin histogram as an inline SVG bar chart (data-testid="mp-histogram"). */
export function histogramSvg(h: Histogram, width = 180, height = 48): SVGElement {
  const root = svg('svg', { width, height: height + 12, viewBox: `0 0 ${width} ${height + 12}`, class: 'mp-histogram', 'data-testid': 'mp-histogram', role: 'img' });
  const peak = Math.max(1, ...h.counts);
  const w = width / h.counts.length;
  h.counts.forEach((c, i) => {
    const bh = c === 0 ? 0 : Math.max(1, (c / peak) * height);
    const bar = svg('rect', { x: (i * w).toFixed(2), y: (height - bh).toFixed(2), width: Math.max(0.5, w - 1).toFixed(2), height: bh.toFixed(2), class: 'mp-bar' });
    const title = svg('title', {});
    const lo = h.min + ((h.max - h.min) * i) / h.counts.length;
    const hi = h.min + ((h.max - h.min) * (i + 1)) / h.counts.length;
    title.textContent = `[${num(lo)}, ${num(hi)}): ${c}`;
    bar.appendChild(title);
    root.appendChild(bar);
  });
  for (const [x, anchor, v] of [[0, 'start', h.min], [width, 'end', h.max]] as [number, string, number][]) {
    const t = svg('text', { x, y: height + 10, 'text-anchor': anchor, class: 'mp-axis' });
    t.textContent = num(v);
    root.appendChild(t);
  }
  return root;
}

/** Values as a grid of cells coloured by value (rows x cols: the last dim, the rest flattened). */
export function heatmapSvg(values: Num[], shape: number[], cell = 10): SVGElement | null {
  if (values.length === 0 || values.length > 1024) return null;
  const cols = shape.length ? Math.max(1, shape[shape.length - 1]) : 1;
  const rows = Math.ceil(values.length / cols);
  const nums = values.map(toNumber);
  const finite = nums.filter(Number.isFinite);
  const lim = Math.max(1e-12, ...finite.map(Math.abs));
  const size = Math.max(4, Math.min(cell, Math.floor(240 / cols)));
  const root = svg('svg', { width: cols * size, height: rows * size, class: 'mp-heatmap', 'data-testid': 'mp-heatmap', role: 'img' });
  nums.forEach((v, i) => {
    const r = svg('rect', { x: (i % cols) * size, y: Math.floor(i / cols) * size, width: size, height: size });
    if (!Number.isFinite(v)) r.setAttribute('class', 'mp-cell-bad');
    else {
      const t = v / lim; // diverging: blue for negative, red for positive, by magnitude
      r.setAttribute('fill', t >= 0 ? `rgba(220, 38, 38, ${t.toFixed(3)})` : `rgba(37, 99, 235, ${(-t).toFixed(3)})`);
    }
    const title = svg('title', {});
    title.textContent = `[${unravel(i, shape).join(', ')}] = ${num(values[i])}`;
    r.appendChild(title);
    root.appendChild(r);
  });
  return root;
}

function unravel(i: number, shape: number[]): number[] {
  const out: number[] = [];
  for (let k = shape.length - 1; k >= 0; k--) {
    out.unshift(i % shape[k]);
    i = Math.floor(i / shape[k]);
  }
  return out;
}

/** "min −0.42 · max 1.3 · mean 0.1 · std 0.3" plus NaN/Inf counts when there are any. */
export function summaryText(s: State): string {
  return summaryLine(s.summary);
}

/** The same line for a bare summary (a static run's op outputs, feeds and fetches). */
export function summaryLine(m: Summary): string {
  const parts = [`min ${num(m.min)}`, `max ${num(m.max)}`, `mean ${num(m.mean)}`, `std ${num(m.std)}`];
  if (m.nan_count) parts.push(`NaN ${m.nan_count}`);
  if (m.inf_count) parts.push(`Inf ${m.inf_count}`);
  return parts.join(' · ');
}
