import { describe, expect, it } from 'vitest';
import { TraceIndex } from '../src/trace_index';
import { DEFAULT_BUDGET, buildView } from '../src/views';
import { toDot } from '../src/dot';
import { layoutSvg, loadGraphviz } from '../src/layout';
import { chainTrace, fixture } from './helpers';

describe('layout with Graphviz (wasm)', () => {
  it('draws each view node as an SVG group titled by its id', async () => {
    const svg = await layoutSvg(toDot(buildView(new TraceIndex(fixture('mlp.json')), 'combined')));
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    const titles = Array.from(doc.querySelectorAll('g.node > title')).map(t => t.textContent);
    expect(titles).toEqual(expect.arrayContaining(['n1', 'n4', 'g1', 'g8', 't2', 't10']));
    expect(doc.querySelector('g.node.mp-kind-op')).not.toBeNull();
    expect(doc.querySelectorAll('g.edge').length).toBeGreaterThan(10);
  });

  it('lays out a 1,000-op trace within the node budget (timings logged)', async () => {
    await loadGraphviz();
    const idx = new TraceIndex(chainTrace(500, true)); // 1,000 ops, no two blocks alike
    const timings: Record<string, number> = {};
    for (const [kind, budget] of [['forward', DEFAULT_BUDGET], ['forward', 1e9], ['layers', DEFAULT_BUDGET]] as const) {
      const t0 = performance.now();
      const view = buildView(idx, kind, { budget });
      const t1 = performance.now();
      await layoutSvg(toDot(view));
      timings[`${kind}(${view.nodes.length} nodes): view ms`] = Math.round(t1 - t0);
      timings[`${kind}(${view.nodes.length} nodes): layout ms`] = Math.round(performance.now() - t1);
    }
    console.log('1,000-op trace:', JSON.stringify(timings));
    // what keeps the page responsive is the node budget (times are logged above, not asserted: a test
    // is no benchmark; the README's table quotes them)
    const budgeted = Object.keys(timings).filter(k => k.startsWith(`forward(${DEFAULT_BUDGET} nodes)`) && k.endsWith('layout ms'));
    expect(budgeted.length).toBe(1);
  });
});
