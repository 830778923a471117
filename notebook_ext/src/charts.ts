/**
 * Small line charts over iterations, as inline SVG: the run strip's sparklines and the health
 * view's small multiples. x is the iteration (0..n-1); a click reports the iteration under the
 * pointer. Log scales drop non-positive values; nulls leave gaps.
 */
const SVG_NS = 'http://www.w3.org/2000/svg';

export interface Line {
  values: (number | null)[];
  cls: string; // CSS class of the line: its colour
  label: string;
}

export interface ChartOptions {
  width: number;
  height: number;
  log?: boolean;
  /** fixed y range (else the data's) */
  range?: [number, number];
  /** horizontal reference lines (e.g. an update ratio of 1e-3) */
  refs?: { y: number; label: string }[];
  /** the current iteration, marked with a vertical line */
  current?: number | null;
  /** iterations where the structure changed, marked with ticks */
  changes?: number[];
  title?: string;
  onPick?: (iteration: number) => void;
}

function svgEl(tag: string, attrs: Record<string, string | number>): SVGElement {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function usable(v: number | null, log: boolean): v is number {
  return v !== null && Number.isFinite(v) && (!log || v > 0);
}

/** The y range of `lines`, padded a little; [0, 1] when there is no data. */
export function yRange(lines: Line[], log: boolean): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const l of lines) for (const v of l.values) if (usable(v, log)) {
    const y = log ? Math.log10(v) : v;
    lo = Math.min(lo, y);
    hi = Math.max(hi, y);
  }
  if (!Number.isFinite(lo)) return [0, 1];
  if (hi - lo < 1e-12) return [lo - 0.5, hi + 0.5];
  const pad = (hi - lo) * 0.08;
  return [lo - pad, hi + pad];
}

/** One chart: lines over iterations, a marker at the current one, clickable. */
export function lineChart(lines: Line[], o: ChartOptions): SVGSVGElement {
  const root = svgEl('svg', { width: o.width, height: o.height, viewBox: `0 0 ${o.width} ${o.height}`, class: 'mp-chart', role: 'img' }) as SVGSVGElement;
  if (o.title) {
    const t = svgEl('title', {});
    t.textContent = o.title;
    root.appendChild(t);
  }
  const n = Math.max(1, ...lines.map(l => l.values.length));
  const log = o.log ?? false;
  const [lo, hi] = o.range ? (log ? [Math.log10(o.range[0]), Math.log10(o.range[1])] : o.range) : yRange(lines, log);
  const pad = 2;
  const x = (k: number) => pad + (n === 1 ? (o.width - 2 * pad) / 2 : (k / (n - 1)) * (o.width - 2 * pad));
  const y = (v: number) => {
    const t = ((log ? Math.log10(v) : v) - lo) / (hi - lo || 1);
    return (o.height - pad - t * (o.height - 2 * pad)).toFixed(1);
  };
  for (const r of o.refs ?? []) {
    if (!usable(r.y, log)) continue;
    const line = svgEl('line', { x1: 0, x2: o.width, y1: y(r.y), y2: y(r.y), class: 'mp-chart-ref' });
    const t = svgEl('title', {});
    t.textContent = r.label;
    line.appendChild(t);
    root.appendChild(line);
  }
  for (const k of o.changes ?? []) root.appendChild(svgEl('line', { x1: x(k), x2: x(k), y1: 0, y2: 5, class: 'mp-chart-change' }));
  for (const l of lines) {
    let d = '';
    let pen = false;
    l.values.forEach((v, k) => {
      if (!usable(v, log)) {
        pen = false;
        return;
      }
      d += `${pen ? 'L' : 'M'}${x(k).toFixed(1)} ${y(v)}`;
      pen = true;
    });
    if (d) root.appendChild(svgEl('path', { d, class: `mp-chart-line ${l.cls}`, 'data-label': l.label }));
    if (n === 1 && usable(l.values[0], log)) root.appendChild(svgEl('circle', { cx: x(0), cy: y(l.values[0] as number), r: 2, class: `mp-chart-dot ${l.cls}` }));
  }
  if (o.current !== null && o.current !== undefined) {
    const cx = x(o.current);
    root.appendChild(svgEl('line', { x1: cx, x2: cx, y1: 0, y2: o.height, class: 'mp-chart-now', 'data-iteration': o.current }));
  }
  if (o.onPick) {
    root.classList.add('mp-clickable');
    root.addEventListener('click', e => {
      const r = root.getBoundingClientRect();
      const fx = r.width ? (e.clientX - r.left) / r.width : 0;
      const k = n === 1 ? 0 : Math.round(((fx * o.width - pad) / (o.width - 2 * pad)) * (n - 1));
      o.onPick!(Math.max(0, Math.min(n - 1, k)));
    });
  }
  return root;
}

/** A value for a chart's caption: 4 significant digits, exponent form when very small or large. */
export function short(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(2);
  return Number(v.toPrecision(4)).toString();
}
