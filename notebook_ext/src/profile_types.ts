/**
 * The trace document's `profile` section (`$defs/profile` in minipaddle/visualizer/schema/trace.schema.json,
 * written by minipaddle/profiler/section.py) and the pure model the Profile view draws from: sorting the op
 * table, the time scale of the timeline (zoom and pan), spans packed into rows per lane, which spans are in
 * view, what is under the pointer. No DOM here, so all of it is unit-tested directly.
 *
 * Times are ns from the profiler window's start. The timeline may hold 20k spans: every query is a binary
 * search over a row's spans sorted by start, and spans narrower than a few pixels merge into pixel runs,
 * so the number of SVG elements is bounded by the width in pixels, not by the number of spans.
 */

/** 'gpu' (schema 1.5): a GPU op's kernels on the device (CUDA events), from the op's start. */
export type ProfileLane = 'python' | 'forward' | 'backward' | 'optimizer' | 'numba-jit' | 'dataloader' | 'gpu';

export const PROFILE_LANES: readonly ProfileLane[] = [
  'python', 'forward', 'backward', 'optimizer', 'numba-jit', 'dataloader', 'gpu'
];

export interface ProfileStat {
  name: string;
  calls: number;
  total_ns: number;
  avg_ns: number;
  max_ns: number;
  min_ns: number;
  flops?: number | null;
  children?: ProfileStat[];
}

export interface ProfileSpan {
  lane: ProfileLane;
  name: string;
  cat: string;
  start_ns: number;
  end_ns: number;
  node: string | null;
  forward_node: string | null;
  layer: string | null;
  kernel: string | null;
}

export interface ProfileStep {
  index: number;
  start_ns: number;
  end_ns: number;
  num_samples: number | null;
}

export interface ProfileMemory {
  peak_bytes: number;
  freed_bytes: number;
  allocated_bytes: number;
  /** [time ns, live bytes of op outputs] */
  samples: [number, number][];
  /** GPU id -> the device memory pool's numbers at the window's end (hits, misses: within it) */
  device?: Record<string, ProfilePool>;
  /** the host's malloc over the window: pages faulted in fresh, and the share of op bytes that reused memory */
  host?: ProfileHostMemory | null;
}

export interface ProfileHostMemory {
  page_faults: number;
  fresh_bytes: number;
  heap_free_bytes: number | null;
  keeps_freed_pages: boolean;
  /** null below 1 MiB of op outputs, where the process's other page faults swamp the share */
  reuse_rate: number | null;
}

export interface ProfilePool {
  allocated: number;
  reserved: number;
  peak_allocated: number;
  peak_reserved: number;
  hits: number;
  misses: number;
  hit_rate: number;
}

export interface ProfileSection {
  generator: 'minipaddle.profiler';
  settings: Record<string, boolean>;
  duration_ns: number;
  steps: ProfileStep[];
  phases: ProfileStat[];
  ops: ProfileStat[];
  spans: ProfileSpan[];
  spans_dropped: number;
  memory: ProfileMemory | null;
  errors: string[];
}

// ---- the op table ---------------------------------------------------------------------------------

export type SortKey = 'name' | 'calls' | 'total' | 'avg' | 'max' | 'min' | 'ratio' | 'flops';
export const SORT_KEYS: readonly SortKey[] = ['name', 'calls', 'total', 'avg', 'max', 'min', 'ratio', 'flops'];

function sortValue(s: ProfileStat, key: SortKey): number | string | null {
  switch (key) {
    case 'name': return s.name;
    case 'calls': return s.calls;
    case 'avg': return s.avg_ns;
    case 'max': return s.max_ns;
    case 'min': return s.min_ns;
    case 'flops': return s.flops ?? null;
    default: return s.total_ns; // total, ratio (a share of the same total)
  }
}

/** A sorted copy of `rows` (and of their children): ties keep their order, missing FLOPs go last. */
export function sortStats(rows: readonly ProfileStat[], key: SortKey, descending: boolean): ProfileStat[] {
  const sign = descending ? -1 : 1;
  const keyed = rows.map((row, i) => ({ row, i, v: sortValue(row, key) }));
  keyed.sort((a, b) => {
    if (a.v === null || b.v === null) return a.v === b.v ? a.i - b.i : a.v === null ? 1 : -1;
    const c = typeof a.v === 'string' ? a.v.localeCompare(b.v as string) : a.v - (b.v as number);
    return c !== 0 ? sign * c : a.i - b.i;
  });
  return keyed.map(({ row }) => row.children?.length
    ? { ...row, children: sortStats(row.children, key, descending) } : row);
}

/** The time the Ratio column is a share of, as the Python summary computes it: all ProfileSteps (or the
 * whole window when no step ended). */
export function ratioBase(profile: ProfileSection): number {
  const steps = profile.steps.reduce((sum, s) => sum + (s.end_ns - s.start_ns), 0);
  return steps || Math.max(1, profile.duration_ns);
}

/** The graph node a span stands for: the op's node, or for a backward span the forward op whose grad ran. */
export function spanTarget(span: ProfileSpan): string | null {
  return span.node ?? span.forward_node ?? null;
}

// ---- the time scale -------------------------------------------------------------------------------

export const MIN_WINDOW_NS = 200;

/** The visible window [t0, t1] of [0, duration] mapped onto `width` pixels. */
export class TimeScale {
  t0 = 0;
  t1: number;

  constructor(readonly duration: number, public width: number) {
    this.duration = Math.max(1, duration);
    this.t1 = this.duration;
  }

  get span(): number {
    return this.t1 - this.t0;
  }

  x(t: number): number {
    return ((t - this.t0) / this.span) * this.width;
  }

  t(x: number): number {
    return this.t0 + (x / this.width) * this.span;
  }

  /** Zoom by `factor` (>1 zooms in) keeping the time under pixel `anchorX` where it is. */
  zoom(factor: number, anchorX = this.width / 2): void {
    const anchor = this.t(anchorX);
    const span = Math.min(this.duration, Math.max(MIN_WINDOW_NS, this.span / factor));
    const frac = anchorX / this.width;
    this.set(anchor - frac * span, span);
  }

  /** Move the window by `dx` pixels (positive: later times come into view). */
  pan(dx: number): void {
    this.set(this.t0 + (dx / this.width) * this.span, this.span);
  }

  /** Show [start, end] (widened to the minimum window), kept inside [0, duration]. */
  show(start: number, end: number): void {
    const span = Math.min(this.duration, Math.max(MIN_WINDOW_NS, end - start));
    this.set((start + end) / 2 - span / 2, span);
  }

  reset(): void {
    this.t0 = 0;
    this.t1 = this.duration;
  }

  private set(t0: number, span: number): void {
    const start = Math.min(Math.max(0, t0), this.duration - span);
    this.t0 = start;
    this.t1 = start + span;
  }
}

/** About `count` round tick times (1, 2 or 5 times a power of ten) inside [t0, t1]. */
export function ticks(t0: number, t1: number, count: number): number[] {
  const raw = Math.max(1, (t1 - t0) / Math.max(1, count));
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map(m => m * pow).find(s => s >= raw) ?? 10 * pow;
  const out: number[] = [];
  for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) out.push(t);
  return out;
}

/** A tick's label: the time from the window's start in the unit that suits the visible span. */
export function tickLabel(t: number, span: number): string {
  if (span >= 5e8) return `${+(t / 1e9).toFixed(3)} s`;
  if (span >= 5e5) return `${+(t / 1e6).toFixed(3)} ms`;
  if (span >= 5e2) return `${+(t / 1e3).toFixed(3)} µs`;
  return `${Math.round(t)} ns`;
}

// ---- spans packed into rows -----------------------------------------------------------------------

export const MAX_DEPTH = 6;

/** One row of a lane: its spans (indices into profile.spans) sorted by start, with the running maximum of
 * their ends, so the spans overlapping any window are found by binary search. */
export interface SpanRow {
  lane: ProfileLane;
  depth: number;
  spans: number[];
  starts: Float64Array;
  maxEnd: Float64Array;
}

export interface LaneRows {
  lane: ProfileLane;
  rows: SpanRow[];
}

/** Each lane's spans, nested ones one row deeper than the span they sit in (ProfileStep > user event,
 * Backward > the ops its rule ran); deeper than MAX_DEPTH shares the last row. Lanes with no span keep one
 * empty row, so a learner sees that nothing ran there (no numba compile, no dataloader). */
export function packLanes(spans: readonly ProfileSpan[]): LaneRows[] {
  // every CPU lane, empty or not (a fixed layout); the gpu lane only when something ran on a GPU
  const byLane = new Map<string, number[]>(PROFILE_LANES.filter(l => l !== 'gpu').map(l => [l, []]));
  spans.forEach((s, i) => {
    if (!byLane.has(s.lane)) byLane.set(s.lane, []);
    byLane.get(s.lane)!.push(i);
  });
  return [...byLane.entries()].map(([lane, indices]) => {
    indices.sort((a, b) => spans[a].start_ns - spans[b].start_ns || spans[b].end_ns - spans[a].end_ns || a - b);
    const perDepth: number[][] = [[]];
    const open: number[] = []; // ends of the spans enclosing the current one
    for (const i of indices) {
      while (open.length && open[open.length - 1] <= spans[i].start_ns) open.pop();
      const depth = Math.min(open.length, MAX_DEPTH);
      open.push(spans[i].end_ns);
      (perDepth[depth] ??= []).push(i);
    }
    const rows = perDepth.map((ids, depth) => makeRow(lane as ProfileLane, depth, ids ?? [], spans));
    return { lane: lane as ProfileLane, rows };
  });
}

function makeRow(lane: ProfileLane, depth: number, ids: number[], spans: readonly ProfileSpan[]): SpanRow {
  const starts = new Float64Array(ids.length);
  const maxEnd = new Float64Array(ids.length);
  let m = -Infinity;
  ids.forEach((id, k) => {
    starts[k] = spans[id].start_ns;
    m = Math.max(m, spans[id].end_ns);
    maxEnd[k] = m;
  });
  return { lane, depth, spans: ids, starts, maxEnd };
}

/** First index k with arr[k] > value (arr ascending), or with arr[k] >= value when `inclusive`. */
function bound(arr: Float64Array, value: number, inclusive: boolean): number {
  let lo = 0, hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (inclusive ? arr[mid] < value : arr[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The spans of `row` that overlap [t0, t1], in start order. */
export function spansInView(row: SpanRow, spans: readonly ProfileSpan[], t0: number, t1: number): number[] {
  const out: number[] = [];
  const hi = bound(row.starts, t1, false);
  for (let k = bound(row.maxEnd, t0, true); k < hi; k++) {
    if (spans[row.spans[k]].end_ns >= t0) out.push(row.spans[k]);
  }
  return out;
}

/** The span of `row` under time `t`: one containing it (the shortest), else the nearest within `tolerance`
 * ns (thin spans are hard to hit exactly); null if none. */
export function hitTest(row: SpanRow, spans: readonly ProfileSpan[], t: number, tolerance: number): number | null {
  let best: number | null = null;
  let bestKey = Infinity;
  for (const i of spansInView(row, spans, t - tolerance, t + tolerance)) {
    const s = spans[i];
    const inside = s.start_ns <= t && t <= s.end_ns;
    const distance = inside ? 0 : Math.min(Math.abs(s.start_ns - t), Math.abs(s.end_ns - t));
    const key = inside ? -1 / Math.max(1, s.end_ns - s.start_ns) : distance; // inside beats near; shorter wins
    if (key < bestKey) {
      bestKey = key;
      best = i;
    }
  }
  return best;
}

/** What one row draws in the current window: spans at least `minPx` wide as their own rects, the thinner
 * ones merged into pixel runs [x0, x1] (one path), with the runs of highlighted spans kept apart. */
export interface RowDrawing {
  rects: number[];
  dense: [number, number][];
  denseHighlighted: [number, number][];
}

export function drawRow(row: SpanRow, spans: readonly ProfileSpan[], scale: TimeScale, minPx: number,
                        highlighted: (i: number) => boolean = () => false): RowDrawing {
  const out: RowDrawing = { rects: [], dense: [], denseHighlighted: [] };
  for (const i of spansInView(row, spans, scale.t0, scale.t1)) {
    const s = spans[i];
    const x0 = scale.x(s.start_ns), x1 = scale.x(s.end_ns);
    if (x1 - x0 >= minPx) {
      out.rects.push(i);
      continue;
    }
    const runs = highlighted(i) ? out.denseHighlighted : out.dense;
    const px0 = Math.floor(x0), px1 = Math.max(px0 + 1, Math.ceil(x1));
    const last = runs[runs.length - 1];
    if (last && px0 <= last[1]) last[1] = Math.max(last[1], px1);
    else runs.push([px0, px1]);
  }
  return out;
}

/** The memory counter in the window as a step line, at most one point pair per pixel column (its max). */
export function memoryPoints(samples: readonly [number, number][], scale: TimeScale): [number, number][] {
  if (!samples.length) return [];
  let lo = 0, hi = samples.length;
  while (lo < hi) { // the last sample at or before t0 sets the level the window opens with
    const mid = (lo + hi) >> 1;
    if (samples[mid][0] <= scale.t0) lo = mid + 1;
    else hi = mid;
  }
  let level = lo > 0 ? samples[lo - 1][1] : 0;
  const points: [number, number][] = [[0, level]];
  let column = -1, columnMax = 0; // samples in one pixel column draw as its max, then its last level
  for (let k = lo; k < samples.length && samples[k][0] <= scale.t1; k++) {
    const x = Math.round(scale.x(samples[k][0]));
    if (x !== column) {
      if (column >= 0) points.push([column, columnMax], [column, level]);
      points.push([x, level]);
      column = x;
      columnMax = samples[k][1];
    } else {
      columnMax = Math.max(columnMax, samples[k][1]);
    }
    level = samples[k][1];
  }
  if (column >= 0) points.push([column, columnMax], [column, level]);
  points.push([scale.width, level]);
  return points;
}
