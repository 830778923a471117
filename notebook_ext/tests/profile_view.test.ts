// The Profile view: the pure model (sorting, the time scale, spans packed into rows, what is in view and
// under the pointer, the memory line) and the DOM over a real profile of three MLP training steps
// (fixtures/profile.json, written by make_profile_fixture.py), plus a synthetic 20k-span profile.
import { describe, expect, it, vi } from 'vitest';
import { fixture } from './helpers';
import {
  PROFILE_LANES, ProfileSection, ProfileSpan, ProfileStat, TimeScale, drawRow, hitTest, memoryPoints, packLanes,
  ratioBase, sortStats, spanTarget, spansInView, tickLabel, ticks
} from '../src/profile_types';
import { ProfileView, describe as describeSpan, flopsText, renderProfileView } from '../src/profile_view';

function realProfile(): ProfileSection {
  return (fixture('profile.json') as unknown as { profile: ProfileSection }).profile;
}

function stat(name: string, total: number, calls = 1, flops: number | null = null): ProfileStat {
  return { name, calls, total_ns: total, avg_ns: total / calls, max_ns: total, min_ns: total, flops };
}

function span(lane: ProfileSpan['lane'], start: number, end: number, extra: Partial<ProfileSpan> = {}): ProfileSpan {
  return { lane, name: 'op', cat: 'Operator', start_ns: start, end_ns: end, node: null, forward_node: null,
    layer: null, kernel: null, ...extra };
}

/** A deterministic PRNG (mulberry32), so the property checks replay. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` back-to-back forward ops of ~1 µs over 3 steps, with a backward span per op: a long profile. */
function bigProfile(n: number): ProfileSection {
  const spans: ProfileSpan[] = [];
  for (let i = 0; i < n; i++) {
    spans.push(span('forward', i * 1000, i * 1000 + 800, { name: i % 2 ? 'relu' : 'linear', node: `n${i + 1}` }));
  }
  const duration = n * 1000;
  const steps = [0, 1, 2].map(k => ({ index: k, start_ns: (k * duration) / 3, end_ns: ((k + 1) * duration) / 3,
    num_samples: 16 }));
  return { generator: 'minipaddle.profiler', settings: {}, duration_ns: duration, steps, phases: [],
    ops: [stat('linear', n * 400, n / 2), stat('relu', n * 400, n / 2)], spans, spans_dropped: 1234,
    memory: { peak_bytes: 4096, freed_bytes: 0, allocated_bytes: 4096,
      samples: spans.map((s, i) => [s.end_ns, (i % 7) * 512] as [number, number]) }, errors: [] };
}

describe('op table model', () => {
  const rows = [stat('b', 30, 3, 100), stat('a', 50, 1), stat('c', 30, 9, 7)];

  it('sorts by any column, ties in their given order, missing FLOPs last either way', () => {
    expect(sortStats(rows, 'total', true).map(r => r.name)).toEqual(['a', 'b', 'c']);
    expect(sortStats(rows, 'total', false).map(r => r.name)).toEqual(['b', 'c', 'a']);
    expect(sortStats(rows, 'calls', true).map(r => r.name)).toEqual(['c', 'b', 'a']);
    expect(sortStats(rows, 'name', false).map(r => r.name)).toEqual(['a', 'b', 'c']);
    expect(sortStats(rows, 'flops', true).map(r => r.name)).toEqual(['b', 'c', 'a']);
    expect(sortStats(rows, 'flops', false).map(r => r.name)).toEqual(['c', 'b', 'a']);
    expect(rows.map(r => r.name)).toEqual(['b', 'a', 'c']); // a copy: the section is not reordered
  });

  it('sorts the kernels under each op by the same key', () => {
    const op = { ...stat('linear', 10), children: [stat('kernel blas', 2), stat('kernel numba', 8)] };
    expect(sortStats([op], 'total', true)[0].children!.map(c => c.name)).toEqual(['kernel numba', 'kernel blas']);
  });

  it('takes ratios of the ProfileSteps time, like the Python summary', () => {
    const p = realProfile();
    expect(ratioBase(p)).toBe(p.steps.reduce((s, st) => s + st.end_ns - st.start_ns, 0));
    expect(ratioBase({ ...p, steps: [] })).toBe(p.duration_ns);
  });
});

describe('time scale', () => {
  it('maps the window onto the pixels and back', () => {
    const s = new TimeScale(1e6, 500);
    expect(s.x(0)).toBe(0);
    expect(s.x(1e6)).toBe(500);
    expect(s.t(s.x(123_456))).toBeCloseTo(123_456);
  });

  it('zooms about the anchor, clamps to the window and to the minimum span', () => {
    const s = new TimeScale(1e6, 500);
    const anchor = s.t(100);
    s.zoom(4, 100);
    expect(s.span).toBeCloseTo(2.5e5);
    expect(s.t(100)).toBeCloseTo(anchor);
    s.zoom(1e9);
    expect(s.span).toBe(200);
    s.zoom(1e-9);
    expect([s.t0, s.t1]).toEqual([0, 1e6]);
    s.zoom(10, 0);
    s.pan(-1e6);
    expect(s.t0).toBe(0);
    s.pan(1e9);
    expect(s.t1).toBe(1e6);
    s.reset();
    expect([s.t0, s.t1]).toEqual([0, 1e6]);
  });

  it('puts ticks on round times and labels them in the visible unit', () => {
    expect(ticks(0, 1e6, 5)).toEqual([0, 2e5, 4e5, 6e5, 8e5, 1e6]);
    expect(ticks(1234, 1300, 3)).toEqual([1250, 1300]);
    expect(ticks(1234, 1300, 4)).toEqual([1240, 1260, 1280, 1300]);
    expect(tickLabel(2e6, 1e7)).toBe('2 ms');
    expect(tickLabel(2.5e9, 1e10)).toBe('2.5 s');
    expect(tickLabel(1500, 1e4)).toBe('1.5 µs');
  });
});

describe('spans in rows', () => {
  it('adds the gpu lane, last, only when a span ran on the GPU', () => {
    const p = realProfile();
    const kernel = { ...p.spans[0], lane: 'gpu' as const, cat: 'Kernel', name: 'add_map_xy_float32' };
    const lanes = packLanes([...p.spans, kernel]);
    expect(lanes.map(l => l.lane)).toEqual([...PROFILE_LANES.filter(l => l !== 'gpu'), 'gpu']);
    expect(lanes[lanes.length - 1].rows[0].spans).toEqual([p.spans.length]);
  });

  it('has every lane, nests spans inside spans, and loses none', () => {
    const p = realProfile();
    const lanes = packLanes(p.spans);
    expect(lanes.map(l => l.lane)).toEqual(PROFILE_LANES.filter(l => l !== 'gpu'));   // a CPU run: no gpu lane
    const all = lanes.flatMap(l => l.rows.flatMap(r => r.spans)).sort((a, b) => a - b);
    expect(all).toEqual(p.spans.map((_, i) => i));
    const backward = lanes.find(l => l.lane === 'backward')!;
    // the Backward phase, the grad nodes it ran, the ops their rules ran
    expect(new Set(backward.rows[0].spans.map(i => p.spans[i].name))).toEqual(new Set(['Backward']));
    expect(new Set(backward.rows[1].spans.map(i => p.spans[i].cat))).toEqual(new Set(['Backward']));
    expect(new Set(backward.rows[2].spans.map(i => p.spans[i].cat))).toEqual(new Set(['OperatorInner']));
    const forward = lanes.find(l => l.lane === 'forward')!;
    expect(new Set(forward.rows[1].spans.map(i => p.spans[i].cat))).toEqual(new Set(['Operator']));
    const python = lanes.find(l => l.lane === 'python')!;
    expect(python.rows[0].spans.map(i => p.spans[i].cat)).toEqual(['ProfileStep', 'ProfileStep', 'ProfileStep']);
    expect(lanes.find(l => l.lane === 'dataloader')!.rows[0].spans).toEqual([]);
  });

  it('finds exactly the spans overlapping a window (against brute force)', () => {
    const r = rng(7);
    const spans = Array.from({ length: 400 }, () => {
      const start = Math.floor(r() * 1e5);
      return span('forward', start, start + Math.floor(r() * r() * 2e4));
    });
    const rows = packLanes(spans).find(l => l.lane === 'forward')!.rows;
    for (let k = 0; k < 50; k++) {
      const t0 = r() * 1e5, t1 = t0 + r() * 2e4;
      const got = rows.flatMap(row => spansInView(row, spans, t0, t1)).sort((a, b) => a - b);
      const want = spans.flatMap((s, i) => (s.end_ns >= t0 && s.start_ns <= t1 ? [i] : []));
      expect(got).toEqual(want);
    }
  });

  it('hit-tests the shortest span containing a time, else the nearest within the tolerance', () => {
    const spans = [span('forward', 0, 100), span('forward', 200, 210), span('forward', 300, 301)];
    const row = packLanes(spans)[1].rows[0];
    expect(hitTest(row, spans, 50, 0)).toBe(0);
    expect(hitTest(row, spans, 205, 5)).toBe(1);
    expect(hitTest(row, spans, 297, 5)).toBe(2);
    expect(hitTest(row, spans, 150, 5)).toBeNull();
    const nested = [span('backward', 0, 100), span('backward', 0, 100), span('backward', 40, 50)];
    const rows = packLanes(nested)[2].rows;
    expect(rows.length).toBe(3);
    expect(hitTest(rows[2], nested, 45, 1)).toBe(2);
  });

  it('draws thin spans as pixel runs, so the SVG stays as small as the width', () => {
    const p = bigProfile(20_000);
    const row = packLanes(p.spans)[1].rows[0];
    const scale = new TimeScale(p.duration_ns, 800);
    const lit = (i: number) => p.spans[i].name === 'relu';
    const d = drawRow(row, p.spans, scale, 2, lit);
    expect(d.rects.length).toBe(0);
    expect(d.dense.length + d.denseHighlighted.length).toBeLessThanOrEqual(2 * 800);
    scale.show(5_000_000, 5_020_000); // 20 spans in view: each its own rect
    const near = drawRow(row, p.spans, scale, 2, lit);
    expect(near.rects.length).toBeGreaterThanOrEqual(20);
    expect(near.rects.length).toBeLessThanOrEqual(22);
    expect(near.dense).toEqual([]);
  });

  it('names the graph node of a span: its own, or the forward op of a backward span', () => {
    expect(spanTarget(span('forward', 0, 1, { node: 'n3' }))).toBe('n3');
    expect(spanTarget(span('backward', 0, 1, { forward_node: 'n2' }))).toBe('n2');
    expect(spanTarget(span('python', 0, 1))).toBeNull();
  });
});

describe('memory line', () => {
  it('is a step line from the level at the window start, at most a few points per pixel', () => {
    const samples: [number, number][] = [[1000, 100], [2000, 300], [2001, 200], [3000, 50]];
    const scale = new TimeScale(4000, 40);
    expect(memoryPoints(samples, scale)).toEqual([[0, 0], [10, 0], [10, 100], [10, 100], [20, 100], [20, 300],
      [20, 200], [30, 200], [30, 50], [30, 50], [40, 50]]);
    scale.show(2500, 4000);
    expect(memoryPoints(samples, scale)[0]).toEqual([0, 200]);
    const many = Array.from({ length: 20_000 }, (_, i) => [i, i % 100] as [number, number]);
    expect(memoryPoints(many, new TimeScale(20_000, 500)).length).toBeLessThanOrEqual(5 * 502);
  });
});

describe('profile view DOM', () => {
  const mount = (profile: ProfileSection = realProfile()) => {
    const host = document.createElement('div');
    document.body.appendChild(host);
    const selectNode = vi.fn();
    renderProfileView(host, profile, selectNode);
    const q = (sel: string) => [...host.querySelectorAll<HTMLElement>(sel)];
    return { host, selectNode, q };
  };
  const rowNames = (q: (s: string) => HTMLElement[]) => q('[data-testid="mp-profile-row"]').map(r => r.dataset.op);

  it('lists every op by total time, with FLOPs and ratio columns, and the Model phases', () => {
    const p = realProfile();
    const { q } = mount(p);
    expect(q('[data-testid="mp-profile-view"]').length).toBe(1);
    expect(rowNames(q)).toEqual(sortStats(p.ops, 'total', true).map(o => o.name));
    expect(q('[data-testid="mp-profile-sort-flops"]').length).toBe(1);
    const linear = q('[data-testid="mp-profile-row"][data-op="linear"]')[0];
    expect(linear.textContent).toContain(flopsText(p.ops.find(o => o.name === 'linear')!.flops));
    expect(linear.textContent).toMatch(/%/);
    const phases = q('[data-testid="mp-profile-phases"] tbody tr').map(r => r.firstChild!.textContent);
    expect(phases).toEqual(p.phases.map(ph => ph.name));
    expect(phases).toContain('ProfileStep');
  });

  it('sorts by a clicked header, reverses on a second click, and marks the sorted column', () => {
    const p = realProfile();
    const { q } = mount(p);
    const calls = q('[data-testid="mp-profile-sort-calls"]')[0];
    calls.click();
    expect(rowNames(q)).toEqual(sortStats(p.ops, 'calls', true).map(o => o.name));
    expect(calls.getAttribute('aria-sort')).toBe('descending');
    calls.click();
    expect(rowNames(q)).toEqual(sortStats(p.ops, 'calls', false).map(o => o.name));
    expect(calls.getAttribute('aria-sort')).toBe('ascending');
    q('[data-testid="mp-profile-sort-name"]')[0].click();
    expect(rowNames(q)).toEqual([...p.ops.map(o => o.name)].sort((a, b) => a.localeCompare(b)));
    expect(calls.getAttribute('aria-sort')).toBe('none');
  });

  it('expands an op to the kernels it ran', () => {
    const p = realProfile();
    const { q } = mount(p);
    expect(q('[data-testid="mp-profile-kernel-row"]').length).toBe(0);
    q('[data-testid="mp-profile-row"][data-op="linear_grad"] [data-testid="mp-profile-expand"]')[0].click();
    const kernels = q('[data-testid="mp-profile-kernel-row"]').map(r => r.firstChild!.textContent);
    expect(kernels).toEqual(p.ops.find(o => o.name === 'linear_grad')!.children!.map(c => c.name));
    expect(q('[data-testid="mp-profile-row"].mp-selected').length).toBe(0); // expanding is not selecting
  });

  it('draws the six lanes, the steps, and the memory line', () => {
    const p = realProfile();
    const { q } = mount(p);
    expect(q('[data-testid="mp-timeline-lane"]').map(l => l.getAttribute('data-lane')))
      .toEqual(PROFILE_LANES.filter(l => l !== 'gpu'));
    expect(q('[data-testid="mp-timeline-step"]').length).toBe(p.steps.length);
    expect(q('[data-testid="mp-timeline-memory"] path').length).toBe(1);
    expect(q('[data-testid="mp-timeline-span"]').length).toBeGreaterThan(0);
    expect(q('[data-testid="mp-timeline-dropped"]').length).toBe(0);
    const note = q('[data-testid="mp-timeline-memory-note"]')[0].textContent!;
    expect(note).toContain(`peak ${(p.memory!.peak_bytes / 1024).toFixed(1)} KiB`);
    expect(q('[data-testid="mp-timeline-gpu-memory"]').length).toBe(0);
    const pool = { allocated: 2048, reserved: 8192, peak_allocated: 4096, peak_reserved: 8192, hits: 30, misses: 10,
      hit_rate: 0.75 };
    const onGpu = mount({ ...p, memory: { ...p.memory!, device: { '0': pool } } }).q;
    expect(onGpu('[data-testid="mp-timeline-gpu-memory"]').map(n => n.textContent)).toEqual([
      'GPU 0 memory pool: allocated 2.0 KiB (peak 4.0 KiB) · reserved 8.0 KiB (peak 8.0 KiB) · 30 of 40 '
      + 'allocations reused a cached block (75%)']);
    const host = { page_faults: 66, fresh_bytes: 270336, heap_free_bytes: 5 * 1048576, keeps_freed_pages: true,
      reuse_rate: 0.995 };
    const onCpu = mount({ ...p, memory: { ...p.memory!, host } }).q;
    expect(onCpu('[data-testid="mp-timeline-host-memory"]').map(n => n.textContent)).toEqual([
      'CPU memory: 100% of the allocated bytes reused freed memory · 264.0 KiB came fresh from the OS '
      + '(66 page faults) · malloc keeps 5.0 MiB free for reuse']);
    const tiny = mount({ ...p, memory: { ...p.memory!, host: { ...host, reuse_rate: null } } }).q;  // too little to tell
    expect(tiny('[data-testid="mp-timeline-host-memory"]')[0].textContent).toBe(
      'CPU memory: 264.0 KiB came fresh from the OS (66 page faults) · malloc keeps 5.0 MiB free for reuse');
    const bare = mount({ ...p, memory: null }).q;
    expect(bare('[data-testid="mp-timeline-memory"]').length + bare('[data-testid="mp-timeline-memory-note"]').length)
      .toBe(0);
  });

  it('selects the graph node of a clicked span, and the forward node of a backward span', () => {
    const p = realProfile();
    const { q, selectNode } = mount(p);
    const fwd = p.spans.findIndex(s => s.node === 'n3');
    const bwd = p.spans.findIndex(s => s.cat === 'Backward' && s.forward_node === 'n2');
    for (const [i, node] of [[fwd, 'n3'], [bwd, 'n2']] as [number, string][]) {
      const view = new ProfileView(p, selectNode);
      document.body.appendChild(view.node);
      view.timeline!.selected = i;
      view.timeline!.zoomToSelection();
      view.timeline!.draw();
      const rect = view.node.querySelector<SVGElement>(`[data-testid="mp-timeline-span"][data-span="${i}"]`)!;
      expect(rect.getAttribute('data-node')).toBe(node);
      rect.dispatchEvent(new MouseEvent('click', { bubbles: true }));
      expect(selectNode).toHaveBeenLastCalledWith(node);
      const selected = view.node.querySelector(`[data-testid="mp-timeline-span"].mp-selected`)!;
      expect(selected.getAttribute('data-span')).toBe(String(i));
      const detail = view.node.querySelector('[data-testid="mp-timeline-detail"]')!;
      expect(detail.textContent).toContain(`graph node ${node}`);
      const marked = [...view.node.querySelectorAll<HTMLElement>('[data-testid="mp-profile-row"].mp-span-op')];
      expect(marked.map(r => r.dataset.op)).toEqual([p.spans[i].name]); // the span's op, in the table
    }
    const calls = selectNode.mock.calls.length;
    const spans = q('[data-testid="mp-timeline-span"]');
    const step = spans.find(s => p.spans[Number(s.dataset.span)].cat === 'ProfileStep')!;
    step.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    expect(selectNode.mock.calls.length).toBe(calls); // a ProfileStep is no graph node
    expect(q('.mp-span.mp-selected').map(e => e.dataset.span)).toEqual([step.dataset.span]);
    expect(q('[data-testid="mp-timeline-detail"]')[0].textContent).toContain('no graph node');
  });

  it('highlights the spans of a clicked op row, and clears them on a second click', () => {
    const p = realProfile();
    const view = new ProfileView(p, () => undefined);
    const row = view.node.querySelector<HTMLElement>('[data-testid="mp-profile-row"][data-op="relu"]')!;
    row.click();
    expect(row.classList.contains('mp-selected')).toBe(true);
    const lit = [...view.node.querySelectorAll<SVGElement>('.mp-span.mp-highlight, .mp-span-dense.mp-highlight')];
    expect(lit.length).toBeGreaterThan(0);
    for (const g of lit.filter(e => e.dataset.span)) expect(p.spans[Number(g.dataset.span)].name).toBe('relu');
    expect(view.node.querySelector('[data-testid="mp-timeline-detail"]')!.textContent).toContain('relu: 3 spans');
    view.node.querySelector<HTMLElement>('[data-testid="mp-profile-row"][data-op="relu"]')!.click();
    expect(view.node.querySelectorAll('.mp-highlight').length).toBe(0);
  });

  it('zooms with the buttons and the keyboard, and fits back', () => {
    const view = new ProfileView(realProfile(), () => undefined);
    const t = view.timeline!;
    const range = () => view.node.querySelector('[data-testid="mp-timeline-range"]')!.textContent;
    const whole = range();
    view.node.querySelector<HTMLElement>('[data-testid="mp-timeline-zoom-in"]')!.click();
    expect(t.scale.span).toBeCloseTo(t.scale.duration / 2);
    expect(range()).not.toBe(whole);
    t.node.dispatchEvent(new KeyboardEvent('keydown', { key: '+', bubbles: true }));
    expect(t.scale.span).toBeCloseTo(t.scale.duration / 4);
    t.node.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    expect(t.scale.t0).toBeGreaterThan(t.scale.duration * 3 / 8 - 1);
    view.node.querySelector<HTMLElement>('[data-testid="mp-timeline-reset"]')!.click();
    expect(range()).toBe(whole);
    const toSpan = view.node.querySelector<HTMLButtonElement>('[data-testid="mp-timeline-zoom-selection"]')!;
    expect(toSpan.disabled).toBe(true); // nothing selected yet
    t.select(realProfile().spans.findIndex(s => s.node === 'n2'));
    expect(toSpan.disabled).toBe(false);
    toSpan.click();
    const relu = realProfile().spans.find(s => s.node === 'n2')!;
    expect(t.scale.t0).toBeLessThanOrEqual(relu.start_ns);
    expect(t.scale.t1).toBeGreaterThanOrEqual(relu.end_ns);
    expect(t.scale.span).toBeLessThan(2 * (relu.end_ns - relu.start_ns) + 1000);
    t.node.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    expect(t.selected).toBeNull();
    expect(toSpan.disabled).toBe(true);
    t.node.dispatchEvent(new KeyboardEvent('keydown', { key: '0', bubbles: true }));
    expect(range()).toBe(whole);
    const svgEl = t.node.querySelector('svg')!;
    const wheel = (init: WheelEventInit) => { // happy-dom's WheelEvent drops the modifier keys of its init
      const e = new WheelEvent('wheel', { ...init, bubbles: true, cancelable: true });
      Object.defineProperties(e, { ctrlKey: { value: !!init.ctrlKey }, shiftKey: { value: !!init.shiftKey } });
      svgEl.dispatchEvent(e);
      return e;
    };
    expect(wheel({ deltaY: 100 }).defaultPrevented).toBe(false); // a plain wheel scrolls the notebook
    expect(t.scale.span).toBe(t.scale.duration);
    expect(wheel({ deltaY: -200, ctrlKey: true }).defaultPrevented).toBe(true);
    expect(t.scale.span).toBeCloseTo(t.scale.duration / Math.exp(0.4));
    const t0 = t.scale.t0;
    wheel({ deltaY: 50, shiftKey: true });
    expect(t.scale.t0).toBeGreaterThan(t0);
  });

  it('shows a tooltip with the name, duration, layer and kernel of the span under the pointer', () => {
    const p = realProfile();
    const view = new ProfileView(p, () => undefined);
    document.body.appendChild(view.node);
    const i = p.spans.findIndex(s => s.layer === 'MLP.fc1');
    view.timeline!.selected = i;
    view.timeline!.zoomToSelection();
    view.timeline!.draw();
    view.node.querySelector(`[data-span="${i}"] rect`)!.dispatchEvent(new MouseEvent('mousemove', { bubbles: true }));
    const tip = view.node.querySelector<HTMLElement>('[data-testid="mp-timeline-tooltip"]')!;
    expect(tip.hidden).toBe(false);
    expect(tip.textContent).toBe(describeSpan(p.spans[i]).join(''));
    expect(tip.textContent).toContain('layer MLP.fc1');
    expect(tip.textContent).toContain('kernel blas');
  });

  it('keeps 20k spans cheap to draw, and reports the spans it dropped', () => {
    const { q } = mount(bigProfile(20_000));
    expect(q('svg *').length).toBeLessThan(2_000);
    expect(q('[data-testid="mp-timeline-dropped"]')[0].textContent).toContain('1234 more spans');
    q('[data-testid="mp-profile-row"][data-op="relu"]')[0].click();
    expect(q('.mp-span-dense.mp-highlight').length).toBe(1);
  });

  it('says so instead of failing on a document without a profile', () => {
    const { q, host } = mount(null as unknown as ProfileSection);
    expect(q('[data-testid="mp-profile-view"]').length).toBe(1);
    expect(host.textContent).toContain('no profile section');
  });
});
