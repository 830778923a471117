/**
 * The extension's Profile view: the `profile` section of a trace document (what `%paddle_profile` records)
 * drawn as plain DOM, so it is unit-testable and any tab can mount it:
 *
 *   timeline   one lane per kind of work (python, forward, backward, optimizer, numba-jit, dataloader),
 *              spans as SVG rects scaled to their duration, ProfileSteps as bands, the memory counter as a
 *              line; zoom (buttons, Ctrl+wheel, + / -), pan (drag, Shift+wheel, arrows), hover tooltip.
 *              Clicking a span selects its graph node (the op's, or for backward work its forward op's).
 *   Operators  the op table (profile_table.ts): sortable, each op expandable to the kernels it ran;
 *              clicking a row highlights that op's spans in the timeline.
 *   Model      the phases table (ProfileStep, Dataloader, Forward, Backward, Optimization, Others).
 *
 * Only the spans in view are drawn, and those under MIN_PX pixels merge into one path per row, so 20k spans
 * cost no more SVG than the width has pixels. DOM contract (browser tests): data-testid mp-profile-view,
 * mp-profile-table, mp-profile-row[data-op], mp-profile-sort-<key>, mp-timeline, mp-timeline-lane[data-lane],
 * mp-timeline-span[data-span][data-node].
 */
import '../style/profile.css';
import { duration, el } from './format';
import { OpTable, phasesTable } from './profile_table';
import {
  LaneRows, ProfileSection, ProfileSpan, TimeScale, drawRow, hitTest, memoryPoints, packLanes, spanTarget,
  tickLabel, ticks
} from './profile_types';

export type { ProfileSection } from './profile_types';
export { OpTable, flopsText } from './profile_table';

const SVG_NS = 'http://www.w3.org/2000/svg';
const ROW_H = 16;
const LANE_GAP = 4;
const LABEL_W = 84;
const AXIS_H = 28; // tick labels above, step labels below
const MEMORY_H = 36;
const MIN_PX = 2;
const DEFAULT_WIDTH = 900;
const ZOOM_STEP = 2;

/** Draw `profile` into `host`; a click on a span that names a graph node calls `selectNode(nodeId)` when a
 * graph was recorded beside the profile (`%paddle_profile -g`); without one (null) it only shows the span's details. */
export type NodePicker = ((nodeId: string) => void) | null;

export function renderProfileView(host: HTMLElement, profile: ProfileSection, selectNode: NodePicker): void {
  host.textContent = '';
  host.appendChild(new ProfileView(profile, selectNode).node);
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}):
  SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

/** A css class for a span's category: mp-cat-operator, mp-cat-backward, ..., mp-cat-user for RecordEvents. */
function catClass(cat: string): string {
  const known = ['ProfileStep', 'Operator', 'OperatorInner', 'Backward', 'Forward', 'Optimization', 'Dataloader',
    'NumbaJIT', 'Kernel'];
  return known.includes(cat) ? `mp-cat-${cat.toLowerCase()}` : 'mp-cat-user';
}

/** The whole view over one profile section. */
export class ProfileView {
  readonly node: HTMLDivElement;
  readonly timeline: Timeline | null = null;
  readonly table: OpTable | null = null;

  constructor(readonly profile: ProfileSection, selectNode: NodePicker) {
    this.node = el('div', 'mp-profile-view');
    this.node.dataset.testid = 'mp-profile-view';
    if (!profile || !Array.isArray(profile.spans) || !Array.isArray(profile.ops)) {
      this.node.appendChild(el('div', 'mp-profile-note', 'This trace has no profile section: run the code under '
        + '%paddle_profile (or paddle.profiler.Profiler) to record one.'));
      return;
    }
    this.node.appendChild(this.header());
    // the operator table first: "which op took the time" is the first question a profile answers
    this.timeline = new Timeline(profile, selectNode);
    this.table = new OpTable(profile, name => this.timeline!.setHighlight(name));
    this.timeline.onSpan = span => this.table!.markSpanOp(span?.name ?? null);
    this.node.append(el('h4', 'mp-profile-title', 'Operators'), this.table.node);
    this.node.append(el('h4', 'mp-profile-title', 'Timeline'), this.timeline.node);
    this.node.append(el('h4', 'mp-profile-title', 'Model'), phasesTable(profile));
  }

  private header(): HTMLElement {
    const p = this.profile;
    const head = el('div', 'mp-profile-header');
    const steps = p.steps.length === 1 ? '1 step' : `${p.steps.length} steps`;
    const dropped = p.spans_dropped ? ` (+${p.spans_dropped} not kept)` : '';
    head.appendChild(el('span', undefined, `${steps} · ${duration(p.duration_ns)} · ${p.ops.length} operators · `
      + `${p.spans.length} spans${dropped}`));
    if (p.errors.length) {
      const errors = el('ul', 'mp-profile-errors');
      errors.dataset.testid = 'mp-profile-errors';
      for (const e of p.errors) errors.appendChild(el('li', undefined, e));
      head.appendChild(errors);
    }
    return head;
  }
}

// ---- the timeline ---------------------------------------------------------------------------------

interface RowPlace {
  lane: LaneRows;
  row: number;
  y: number;
}

/** Lanes of spans over a zoomable, pannable time axis. */
export class Timeline {
  readonly node: HTMLDivElement;
  readonly scale: TimeScale;
  readonly lanes: LaneRows[];
  selected: number | null = null;
  highlight: string | null = null;
  /** told of each selected span (the view marks its op's row in the table) */
  onSpan: (span: ProfileSpan | null) => void = () => undefined;
  private svgEl: SVGSVGElement;
  private plot: HTMLDivElement;
  private tip: HTMLDivElement;
  private detail: HTMLDivElement;
  private rangeLabel: HTMLSpanElement;
  private toSpan!: HTMLButtonElement;
  private places: RowPlace[] = [];
  private laneTops: number[] = [];
  private height = 0;
  private dragX: number | null = null;
  private dragged = false;
  private frame = 0;

  constructor(readonly profile: ProfileSection, private selectNode: NodePicker) {
    this.lanes = packLanes(profile.spans);
    this.scale = new TimeScale(profile.duration_ns, DEFAULT_WIDTH - LABEL_W);
    this.node = el('div', 'mp-timeline');
    this.node.dataset.testid = 'mp-timeline';
    this.node.tabIndex = 0;
    this.node.setAttribute('data-lm-suppress-shortcuts', 'true');
    this.node.appendChild(this.toolbar());
    this.rangeLabel = this.node.querySelector('.mp-timeline-range') as HTMLSpanElement;
    this.plot = this.node.appendChild(el('div', 'mp-timeline-plot'));
    this.svgEl = this.plot.appendChild(svg('svg', { class: 'mp-timeline-svg', role: 'img' }));
    this.tip = this.plot.appendChild(el('div', 'mp-timeline-tooltip'));
    this.tip.dataset.testid = 'mp-timeline-tooltip';
    this.tip.hidden = true;
    this.detail = this.node.appendChild(el('div', 'mp-timeline-detail',
      selectNode ? 'Click a span to see it and select its node in the graph; click an operator above to highlight its spans.'
        : 'Click a span to see what it is; click an operator above to highlight its spans.'));
    this.detail.dataset.testid = 'mp-timeline-detail';
    if (profile.memory) {
      const m = profile.memory;
      const note = this.node.appendChild(el('div', 'mp-profile-note', `memory (bytes of op outputs): peak `
        + `${bytes(m.peak_bytes)} · allocated ${bytes(m.allocated_bytes)} · freed ${bytes(m.freed_bytes)}`));
      note.dataset.testid = 'mp-timeline-memory-note';
      for (const [id, pool] of Object.entries(m.device ?? {})) {
        const line = this.node.appendChild(el('div', 'mp-profile-note', `GPU ${id} memory pool: allocated `
          + `${bytes(pool.allocated)} (peak ${bytes(pool.peak_allocated)}) · reserved ${bytes(pool.reserved)} `
          + `(peak ${bytes(pool.peak_reserved)}) · ${pool.hits} of ${pool.hits + pool.misses} allocations `
          + `reused a cached block (${Math.round(pool.hit_rate * 100)}%)`));
        line.dataset.testid = 'mp-timeline-gpu-memory';
      }
      if (m.host) {
        const h = m.host;
        const kept = h.heap_free_bytes === null ? '' : ` · malloc keeps ${bytes(h.heap_free_bytes)} free for reuse`;
        const share = h.reuse_rate === null ? ''
          : `${Math.round(h.reuse_rate * 100)}% of the allocated bytes reused freed memory · `;
        const line = this.node.appendChild(el('div', 'mp-profile-note', `CPU memory: ${share}`
          + `${bytes(h.fresh_bytes)} came fresh from the OS (${h.page_faults} page faults)${kept}`));
        line.dataset.testid = 'mp-timeline-host-memory';
      }
    }
    if (profile.spans_dropped) {
      const note = this.node.appendChild(el('div', 'mp-profile-note', `${profile.spans_dropped} more spans were `
        + `recorded than the timeline keeps (the first ${profile.spans.length}); profile fewer steps, or use a `
        + 'scheduler window, to see them all. The tables count every span.'));
      note.dataset.testid = 'mp-timeline-dropped';
    }
    this.layoutRows();
    this.listen();
    this.draw();
    if (typeof ResizeObserver !== 'undefined') {
      new ResizeObserver(() => this.requestDraw()).observe(this.plot);
    }
  }

  private toolbar(): HTMLElement {
    const bar = el('div', 'mp-toolbar mp-timeline-bar');
    const add = (id: string, text: string, title: string, action: () => void) => {
      const b = bar.appendChild(el('button', 'mp-button', text));
      b.type = 'button';
      b.dataset.testid = id;
      b.title = title;
      b.addEventListener('click', () => {
        action();
        this.draw();
      });
      return b;
    };
    add('mp-timeline-zoom-in', '+', 'Zoom in (+, Ctrl+wheel)', () => this.scale.zoom(ZOOM_STEP));
    add('mp-timeline-zoom-out', '−', 'Zoom out (-, Ctrl+wheel)', () => this.scale.zoom(1 / ZOOM_STEP));
    add('mp-timeline-reset', 'fit', 'Show the whole window (0)', () => this.scale.reset());
    this.toSpan = add('mp-timeline-zoom-selection', 'to span', 'Zoom to the selected span', () => this.zoomToSelection());
    const range = bar.appendChild(el('span', 'mp-timeline-range'));
    range.dataset.testid = 'mp-timeline-range';
    bar.appendChild(el('span', 'mp-timeline-hint', 'drag or Shift+wheel to pan · Ctrl+wheel to zoom'));
    return bar;
  }

  /** Where each lane and row sits vertically (fixed: zoom changes x only). */
  private layoutRows(): void {
    let y = AXIS_H;
    for (const lane of this.lanes) {
      this.laneTops.push(y);
      lane.rows.forEach((_, row) => this.places.push({ lane, row, y: y + row * ROW_H }));
      y += lane.rows.length * ROW_H + LANE_GAP;
    }
    this.height = y + (this.profile.memory ? MEMORY_H + LANE_GAP : 0);
  }

  private width(): number {
    return Math.max(200, (this.plot.clientWidth || DEFAULT_WIDTH) - LABEL_W);
  }

  /** Redraw now; requestDraw coalesces pointer moves into one redraw per frame. */
  draw(): void {
    this.frame = 0;
    this.scale.width = this.width();
    const w = this.scale.width + LABEL_W;
    this.svgEl.setAttribute('width', String(w));
    this.svgEl.setAttribute('height', String(this.height));
    this.svgEl.setAttribute('viewBox', `0 0 ${w} ${this.height}`);
    this.svgEl.textContent = '';
    const plot = svg('g', { transform: `translate(${LABEL_W},0)` });
    this.drawSteps(plot);
    this.drawAxis(plot);
    this.lanes.forEach((lane, i) => plot.appendChild(this.drawLane(lane, this.laneTops[i])));
    if (this.profile.memory) plot.appendChild(this.drawMemory());
    this.svgEl.appendChild(plot);
    const labels = this.svgEl.appendChild(svg('g', { class: 'mp-timeline-labels' }));
    labels.appendChild(svg('rect', { x: 0, y: 0, width: LABEL_W, height: this.height, class: 'mp-timeline-gutter' }));
    this.lanes.forEach((lane, i) => {
      const empty = lane.rows.every(r => r.spans.length === 0);
      const t = labels.appendChild(svg('text', { x: 4, y: this.laneTops[i] + 12, class: empty ? 'mp-muted' : '' }));
      t.textContent = lane.lane;
    });
    if (this.profile.memory) {
      const top = this.height - MEMORY_H;
      labels.appendChild(svg('text', { x: 4, y: top + 12 })).textContent = 'memory';
      labels.appendChild(svg('text', { x: 4, y: top + 26, class: 'mp-muted' })).textContent =
        `≤ ${bytes(this.memoryScale())}`;
    }
    this.toSpan.disabled = this.selected === null;
    this.rangeLabel.textContent = `${duration(Math.round(this.scale.t0))} – ${duration(Math.round(this.scale.t1))}`;
  }

  requestDraw(): void {
    if (this.frame) return;
    const raf = typeof requestAnimationFrame === 'function'
      ? requestAnimationFrame : (f: () => void) => setTimeout(f, 16);
    this.frame = raf(() => this.draw()) as unknown as number;
  }

  private drawLane(lane: LaneRows, top: number): SVGGElement {
    const g = svg('g', { class: 'mp-timeline-lane', 'data-testid': 'mp-timeline-lane', 'data-lane': lane.lane });
    const spans = this.profile.spans;
    const lit = (i: number) => spans[i].name === this.highlight;
    g.appendChild(svg('rect', { x: 0, y: top, width: this.scale.width, height: lane.rows.length * ROW_H,
      class: 'mp-lane-bg' }));
    lane.rows.forEach((row, depth) => {
      const y = top + depth * ROW_H + 1;
      const drawn = drawRow(row, spans, this.scale, MIN_PX, lit);
      const dense = `mp-span-dense mp-dense-${lane.lane}`;
      const groups: [[number, number][], string][] = [[drawn.dense, dense],
        [drawn.denseHighlighted, `${dense} mp-highlight`]];
      for (const [runs, cls] of groups) {
        if (!runs.length) continue;
        const d = runs.map(([a, b]) => `M${a} ${y}h${b - a}v${ROW_H - 2}h${a - b}z`).join('');
        g.appendChild(svg('path', { d, class: cls }));
      }
      for (const i of drawn.rects) g.appendChild(this.spanRect(spans[i], i, y));
    });
    return g;
  }

  private spanRect(s: ProfileSpan, i: number, y: number): SVGElement {
    const x0 = Math.max(-1, this.scale.x(s.start_ns));
    const x1 = Math.min(this.scale.width + 1, this.scale.x(s.end_ns));
    const classes = ['mp-span', catClass(s.cat)];
    if (i === this.selected) classes.push('mp-selected');
    if (s.name === this.highlight) classes.push('mp-highlight');
    const g = svg('g', { class: classes.join(' '), 'data-testid': 'mp-timeline-span', 'data-span': i });
    const target = spanTarget(s);
    if (target) g.setAttribute('data-node', target);
    g.appendChild(svg('rect', { x: x0.toFixed(1), y, width: Math.max(1, x1 - x0).toFixed(1), height: ROW_H - 2 }));
    const chars = Math.floor((x1 - x0 - 6) / 6.5);
    if (chars >= 3) {
      const t = g.appendChild(svg('text', { x: (x0 + 3).toFixed(1), y: y + ROW_H - 5 }));
      t.textContent = s.name.length <= chars ? s.name : `${s.name.slice(0, chars - 1)}…`;
    }
    return g;
  }

  private drawSteps(plot: SVGGElement): void {
    for (const step of this.profile.steps) {
      if (step.end_ns < this.scale.t0 || step.start_ns > this.scale.t1) continue;
      const x0 = Math.max(0, this.scale.x(step.start_ns));
      const x1 = Math.min(this.scale.width, this.scale.x(step.end_ns));
      const g = plot.appendChild(svg('g', { class: `mp-tl-step${step.index % 2 ? ' mp-tl-step-odd' : ''}`,
        'data-testid': 'mp-timeline-step', 'data-step': step.index }));
      g.appendChild(svg('rect', { x: x0.toFixed(1), y: AXIS_H - 2, width: Math.max(0.5, x1 - x0).toFixed(1),
        height: this.height - AXIS_H + 2 }));
      g.appendChild(svg('line', { x1: x0.toFixed(1), x2: x0.toFixed(1), y1: 0, y2: this.height }));
      if (x1 - x0 > 30) {
        const t = g.appendChild(svg('text', { x: (x0 + 3).toFixed(1), y: AXIS_H - 6 }));
        t.textContent = `step ${step.index}`;
      }
    }
  }

  private drawAxis(plot: SVGGElement): void {
    const axis = plot.appendChild(svg('g', { class: 'mp-timeline-axis' }));
    const { t0, t1, width } = this.scale;
    for (const t of ticks(t0, t1, Math.max(2, Math.floor(width / 110)))) {
      const x = this.scale.x(t);
      axis.appendChild(svg('line', { x1: x.toFixed(1), x2: x.toFixed(1), y1: AXIS_H - 4, y2: this.height }));
      const atEnd = x > width - 50; // the last label reads leftwards, inside the plot
      const label = axis.appendChild(svg('text', { x: (atEnd ? x - 2 : x + 2).toFixed(1), y: 9,
        'text-anchor': atEnd ? 'end' : 'start' }));
      label.textContent = tickLabel(t, t1 - t0);
    }
  }

  /** The memory line's full height in bytes: the peak (or a larger sample). */
  private memoryScale(): number {
    const memory = this.profile.memory!;
    return memory.samples.reduce((m, sample) => Math.max(m, sample[1]), Math.max(1, memory.peak_bytes));
  }

  private drawMemory(): SVGGElement {
    const memory = this.profile.memory!;
    const top = this.height - MEMORY_H;
    const g = svg('g', { class: 'mp-timeline-memory', 'data-testid': 'mp-timeline-memory' });
    const peak = this.memoryScale();
    const y = (v: number) => (top + MEMORY_H - 2 - (v / peak) * (MEMORY_H - 6)).toFixed(1);
    const points = memoryPoints(memory.samples, this.scale);
    g.appendChild(svg('rect', { x: 0, y: top, width: this.scale.width, height: MEMORY_H, class: 'mp-lane-bg' }));
    g.appendChild(svg('path', { d: points.map(([x, v], k) => `${k ? 'L' : 'M'}${x} ${y(v)}`).join('') }));
    return g;
  }

  // ---- interaction --------------------------------------------------------------------------------

  /** The span under a pointer event: the rect it hit, else the nearest span of the row (thin ones merge). */
  spanAt(e: MouseEvent): number | null {
    const hit = (e.target as Element | null)?.closest?.('[data-span]');
    if (hit) return Number(hit.getAttribute('data-span'));
    const box = this.svgEl.getBoundingClientRect();
    const x = e.clientX - box.left - LABEL_W, y = e.clientY - box.top;
    if (x < 0) return null;
    const place = this.places.find(p => y >= p.y && y < p.y + ROW_H);
    if (!place) return null;
    const tolerance = (3 * this.scale.span) / this.scale.width;
    return hitTest(place.lane.rows[place.row], this.profile.spans, this.scale.t(x), tolerance);
  }

  /** Select span `i` (null: none): mark it, say what it is, and select its node in the graph. */
  select(i: number | null): void {
    this.selected = i;
    this.draw();
    this.onSpan(i === null ? null : this.profile.spans[i]);
    if (i === null) {
      this.detail.textContent = this.selectNode ? 'Click a span to see it and select its node in the graph.' : 'Click a span to see what it is.';
      return;
    }
    const s = this.profile.spans[i];
    const target = this.selectNode ? spanTarget(s) : null;
    this.detail.textContent = describe(s).join(' · ')
      + (target ? ` · graph node ${target}` : this.selectNode ? ' · (no graph node for this span)' : '');
    if (target && this.selectNode) this.selectNode(target);
  }

  /** Highlight the spans of operator `name` (null: none); says how many there are. */
  setHighlight(name: string | null): void {
    this.highlight = name;
    this.draw();
    if (name !== null) {
      const n = this.profile.spans.reduce((c, s) => c + (s.name === name ? 1 : 0), 0);
      this.detail.textContent = `${name}: ${n} span${n === 1 ? '' : 's'} highlighted in the timeline`;
    }
  }

  zoomToSelection(): void {
    if (this.selected === null) return;
    const s = this.profile.spans[this.selected];
    const pad = Math.max(100, (s.end_ns - s.start_ns) * 0.25);
    this.scale.show(s.start_ns - pad, s.end_ns + pad);
  }

  private showTip(e: MouseEvent): void {
    const i = this.spanAt(e);
    if (i === null) {
      this.tip.hidden = true;
      return;
    }
    this.tip.textContent = '';
    for (const line of describe(this.profile.spans[i])) this.tip.appendChild(el('div', undefined, line));
    const box = this.plot.getBoundingClientRect();
    const x = e.clientX - box.left, y = e.clientY - box.top;
    this.tip.style.left = `${Math.min(x + 12, Math.max(0, box.width - 220))}px`;
    this.tip.style.top = `${y + 14}px`;
    this.tip.hidden = false;
  }

  private listen(): void {
    const s = this.svgEl;
    s.addEventListener('click', e => {
      if (this.dragged) return; // the end of a drag is not a click
      this.select(this.spanAt(e));
      this.node.focus({ preventScroll: true });
    });
    s.addEventListener('mousedown', e => {
      if (e.button !== 0) return;
      this.dragX = e.clientX;
      this.dragged = false;
    });
    s.addEventListener('mousemove', e => {
      if (this.dragX !== null && e.buttons & 1) {
        const dx = this.dragX - e.clientX;
        if (Math.abs(dx) >= 3 || this.dragged) {
          this.dragged = true;
          this.dragX = e.clientX;
          this.scale.pan(dx);
          this.tip.hidden = true;
          this.requestDraw();
          return;
        }
      }
      this.showTip(e);
    });
    const endDrag = () => {
      this.dragX = null;
    };
    s.addEventListener('mouseup', endDrag);
    s.addEventListener('mouseleave', () => {
      endDrag();
      this.tip.hidden = true;
    });
    s.addEventListener('wheel', e => this.onWheel(e), { passive: false });
    this.node.addEventListener('keydown', e => this.onKey(e));
  }

  private onWheel(e: WheelEvent): void {
    const box = this.svgEl.getBoundingClientRect();
    if (e.ctrlKey || e.metaKey) { // zoom about the pointer; a plain wheel still scrolls the notebook
      e.preventDefault();
      const x = e.clientX - box.left - LABEL_W;
      this.scale.zoom(Math.exp(-e.deltaY * 0.002), Number.isFinite(x) ? Math.max(0, x) : this.scale.width / 2);
      this.requestDraw();
    } else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      e.preventDefault();
      this.scale.pan(e.deltaX || e.deltaY);
      this.requestDraw();
    }
  }

  private onKey(e: KeyboardEvent): void {
    const step = this.scale.width / 10;
    const actions: Record<string, () => void> = {
      '+': () => this.scale.zoom(ZOOM_STEP), '=': () => this.scale.zoom(ZOOM_STEP),
      '-': () => this.scale.zoom(1 / ZOOM_STEP), '0': () => this.scale.reset(),
      ArrowLeft: () => this.scale.pan(-step), ArrowRight: () => this.scale.pan(step),
      Escape: () => this.select(null)
    };
    const action = actions[e.key];
    if (!action) return;
    e.preventDefault();
    e.stopPropagation(); // these keys are the timeline's, not the notebook's
    action();
    this.draw();
  }
}

/** The lines of a span's tooltip: name and category, duration, when, layer, kernel. */
export function describe(s: ProfileSpan): string[] {
  const lines = [`${s.name} (${s.cat})`, `${duration(s.end_ns - s.start_ns)} at ${duration(s.start_ns)}`];
  if (s.layer) lines.push(`layer ${s.layer}`);
  if (s.kernel) lines.push(`kernel ${s.kernel}`);
  if (s.node) lines.push(`node ${s.node}`);
  else if (s.forward_node) lines.push(`grad of node ${s.forward_node}`);
  return lines;
}
