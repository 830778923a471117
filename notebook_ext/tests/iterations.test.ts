import { describe, expect, it } from 'vitest';
import { Iterations, sliceDocument } from '../src/iterations';
import { TraceIndex } from '../src/trace_index';
import { TraceView } from '../src/trace_view';
import { fixture } from './helpers';

// train.json: five SGD iterations of the MLP; the fourth (index 3) adds an L2 penalty (four more ops)
const doc = () => fixture('train.json');

async function mounted() {
  const v = new TraceView(doc());
  document.body.replaceChildren(v.node);
  await v.ready;
  return v;
}

const q = (v: TraceView, sel: string) => v.node.querySelector(sel) as HTMLElement;
const click = (v: TraceView, id: string) => q(v, `[data-testid="${id}"]`).click();
const current = (v: TraceView) => Array.from(v.node.querySelectorAll('[data-testid="mp-graph"] > svg g.node.mp-current')).map(g => g.getAttribute('data-node-id'));

describe('iterations', () => {
  it('splits the run at the recorder\'s iterations and finds the iteration of any step', () => {
    const its = new Iterations(new TraceIndex(doc()));
    expect(its.several).toBe(true);
    expect(its.length).toBe(5);
    expect(its.list.map(i => i.first)).toEqual([0, 16, 32, 48, 72]);
    expect(its.at(0)).toBe(0);
    expect(its.at(47)).toBe(2);
    expect(its.at(48)).toBe(3);
    expect(its.list.every(i => i.loss !== null && i.loss > 0)).toBe(true);
    const s = its.list.map(i => i.structure);
    expect(s[0]).toBe(s[1]); // the first iteration too: its backward runs in another order, on the same graph
    expect(s[1]).toBe(s[2]);
    expect(s[4]).toBe(s[1]);
    expect(s[3]).not.toBe(s[1]); // the penalty's iteration has its own structure
    expect(its.changes).toContain(3);
  });

  it('cuts out one iteration: its own ops and grad nodes only', () => {
    const idx = new TraceIndex(doc());
    const sub = sliceDocument(idx, 16, 31);
    expect(sub.graph.forward.nodes.length).toBe(4); // fc1, relu, fc2, loss
    expect(sub.steps.length).toBe(16);
    const ids = new Set(sub.graph.backward.nodes.map(g => g.id));
    for (const e of sub.graph.backward.edges) expect(ids.has(e.source) && ids.has(e.target)).toBe(true);
    for (const e of sub.graph.forward.edges) expect(e.source === null || sub.graph.forward.nodes.some(n => n.id === e.source)).toBe(true);
  });

  it('maps an iteration\'s ops, tensors and grad nodes onto its representative\'s', () => {
    const idx = new TraceIndex(doc());
    const its = new Iterations(idx);
    const to = its.toRep(4);
    const rep = its.rep(4);
    const repOps = idx.doc.graph.forward.nodes.filter(n => n.step >= idx.doc.steps[its.list[rep].first].index && n.step <= idx.doc.steps[its.list[rep].last].index);
    const ops = idx.doc.graph.forward.nodes.filter(n => n.step >= idx.doc.steps[72].index);
    ops.forEach((n, i) => {
      expect(to.get(n.id)).toBe(repOps[i].id);
      expect(to.get(n.outputs[0])).toBe(repOps[i].outputs[0]);
      if (n.grad_node) expect(to.get(n.grad_node)).toBe(repOps[i].grad_node);
    });
    expect(its.fromRep(4).get(repOps[0].id)).toBe(ops[0].id);
  });
});

describe('the debugger on a training run', () => {
  it('draws one iteration, with the run strip and the iteration it is in', async () => {
    const v = await mounted();
    expect(v.node.querySelectorAll('[data-testid="mp-graph"] > svg g.node.mp-kind-op').length).toBe(4);
    expect(q(v, '[data-testid="mp-iteration"]').textContent).toMatch(/^iteration 1 of 5/);
    expect(q(v, '[data-testid="mp-step-label"]').textContent).toMatch(/^step 1 \/ 88 · iteration 1 of 5 · forward/);
    for (const s of ['loss', 'grad', 'ratio']) expect(q(v, `[data-testid="mp-spark-${s}"] path.mp-chart-line`), s).not.toBeNull();
    expect(q(v, '[data-testid="mp-legend"]').textContent).toMatch(/gradient op \(backward\)/);
  });

  it('moves to the same step of the next iteration without redrawing the graph', async () => {
    const v = await mounted();
    v.goToIteration(1, false);
    await v.ready;
    for (let i = 0; i < 2; i++) click(v, 'mp-step-forward');
    const svg = q(v, '[data-testid="mp-graph"] > svg');
    const here = current(v);
    const step = v.model.index;
    click(v, 'mp-iter-next');
    expect(v.iteration).toBe(2);
    expect(v.model.index).toBe(step + 16);
    expect(q(v, '[data-testid="mp-graph"] > svg')).toBe(svg); // the same drawing: nothing moved
    expect(current(v)).toEqual(here);
    expect(q(v, '[data-testid="mp-inspector"]').textContent).toMatch(/MLP\.fc2/);
  });

  it('draws an iteration of another structure on its own, and comes back', async () => {
    const v = await mounted();
    v.goToIteration(3, false);
    await v.ready;
    expect(v.node.querySelectorAll('[data-testid="mp-graph"] > svg g.node.mp-kind-op').length).toBe(8); // pow, sum, scale, add of the penalty
    expect(q(v, '[data-testid="mp-iteration"]').textContent).toMatch(/structure 2 of 2/);
    v.goToIteration(4, false);
    await v.ready;
    expect(v.node.querySelectorAll('[data-testid="mp-graph"] > svg g.node.mp-kind-op').length).toBe(4);
  });

  it('finds a weight by its state_dict name and shows no gradient before backward', async () => {
    const v = await mounted();
    const search = q(v, '[data-testid="mp-search"]') as HTMLInputElement;
    search.value = 'fc1.weight';
    search.dispatchEvent(new Event('input'));
    const hits = Array.from(v.node.querySelectorAll('[data-testid="mp-graph"] > svg g.node.mp-match')).map(g => g.getAttribute('data-node-id'));
    expect(hits.length).toBeGreaterThan(0);
    search.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    const text = q(v, '[data-testid="mp-inspector"]').textContent ?? '';
    expect(text).toMatch(/fc1\.weight/);
    expect(text).toMatch(/not computed yet/);
    expect(text).toMatch(/latest update.*none yet/s);
    v.model.seek(v.model.length - 1); // the last step: the weight has a gradient and 5 updates
    search.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    const later = q(v, '[data-testid="mp-inspector"]').textContent ?? '';
    expect(later).not.toMatch(/not computed yet/);
    expect(later).toMatch(/\(5 of 5\)/);
    expect(v.node.querySelectorAll('[data-testid="mp-update-history"]').length).toBe(1);
  });

  it('has a Health tab whose charts select a layer at an iteration', async () => {
    const v = await mounted();
    expect(v.tabs).toContain('health');
    v.showTab('health');
    const cards = v.node.querySelectorAll('[data-testid="mp-health-layer"]');
    expect(cards.length).toBeGreaterThanOrEqual(2);
    expect(v.node.querySelectorAll('[data-testid="mp-health-param"]').length).toBe(4);
    expect(v.node.textContent).toMatch(/fc1\.weight/);
  });
});

describe('a live update', () => {
  it('opens on the newest step and says the loop is still running', async () => {
    const v = new TraceView(doc(), { start: 'last', live: true });
    document.body.replaceChildren(v.node);
    await v.ready;
    expect(v.model.index).toBe(v.model.length - 1);
    expect(q(v, '[data-testid="mp-iteration"]').textContent).toMatch(/^iteration 5 of 5/);
    expect(v.node.querySelector('.mp-notes')?.textContent).toMatch(/still running/);
    expect(current(v).length).toBe(1);
  });
});
