import { describe, expect, it } from 'vitest';
import { TraceView } from '../src/trace_view';
import { fixture } from './helpers';

async function mounted(name = 'mlp.json', view?: 'forward' | 'backward' | 'combined' | 'layers') {
  const v = new TraceView(fixture(name), { view });
  document.body.replaceChildren(v.node);
  await v.ready;
  return v;
}

const q = (v: TraceView, sel: string) => v.node.querySelector(sel) as HTMLElement;
const click = (v: TraceView, id: string) => q(v, `[data-testid="${id}"]`).click();
const current = (v: TraceView) => Array.from(v.node.querySelectorAll('g.node.mp-current')).map(g => g.getAttribute('data-node-id'));
const marked = (v: TraceView, cls: string) => Array.from(v.node.querySelectorAll(`g.node.${cls}`)).map(g => g.getAttribute('data-node-id')).sort();

describe('the debugger DOM (the contract the browser tests use)', () => {
  it('has the root, the graph, the controls, the views and the inspector', async () => {
    const v = await mounted();
    expect(v.node.classList.contains('mp-trace')).toBe(true);
    expect(v.node.dataset.testid).toBe('mp-trace');
    expect(v.node.dataset.schemaVersion).toBe('1.0');
    for (const id of ['mp-graph', 'mp-continue', 'mp-step-forward', 'mp-step-back', 'mp-step-into', 'mp-step-out', 'mp-reset', 'mp-step-label', 'mp-view', 'mp-inspector', 'mp-search']) {
      expect(q(v, `[data-testid="${id}"]`), id).not.toBeNull();
    }
    const scrubber = q(v, 'input[type=range][data-testid="mp-scrubber"]') as HTMLInputElement;
    expect(scrubber.max).toBe('15');
    const options = Array.from((q(v, '[data-testid="mp-view"]') as HTMLSelectElement).options).map(o => o.value);
    expect(options).toEqual(['forward', 'backward', 'combined', 'layers']);
    expect(q(v, '[data-testid="mp-graph"] svg')).not.toBeNull();
    const nodes = Array.from(v.node.querySelectorAll('g.node')).map(g => g.getAttribute('data-node-id'));
    expect(nodes).toEqual(expect.arrayContaining(['n1', 'n2', 'n3', 'n4', 'g1', 'g8', 't2']));
    expect(v.node.querySelector('[id^="node"]')).toBeNull(); // Graphviz's ids removed: several outputs per page
  });

  it('highlights the current op and the tensors it read and wrote; steps with the buttons', async () => {
    const v = await mounted();
    expect(q(v, '[data-testid="mp-step-label"]').textContent).toBe('step 1 / 16 · forward · linear (MLP.fc1)');
    expect(current(v)).toEqual(['n1']);
    expect(marked(v, 'mp-read')).toEqual(['t1', 't2', 't3']);
    expect(q(v, '[data-testid="mp-inspector"]').textContent).toMatch(/linear.*MLP\.fc1.*blas/s);
    expect(v.node.querySelectorAll('[data-testid="mp-inspector"] [data-testid="mp-histogram"]').length).toBeGreaterThan(0);
    expect(v.node.querySelector('[data-testid="mp-inspector"] [data-testid="mp-heatmap"]')).not.toBeNull();
    click(v, 'mp-step-forward');
    click(v, 'mp-step-forward');
    expect(q(v, '[data-testid="mp-step-label"]').textContent).toBe('step 3 / 16 · forward · linear (MLP.fc2)');
    expect(current(v)).toEqual(['n3']);
    expect(marked(v, 'mp-done')).toEqual(expect.arrayContaining(['n1', 'n2']));
    click(v, 'mp-step-back');
    expect(current(v)).toEqual(['n2']);
    expect(v.node.querySelectorAll('g.edge.mp-read').length).toBe(1); // relu reads fc1's output
    expect(v.node.querySelectorAll('g.edge.mp-written').length).toBe(1);
    click(v, 'mp-reset');
    expect(current(v)).toEqual(['n1']);
  });

  it('steps the backward pass: grad nodes current, gradient edges flowing', async () => {
    const v = await mounted();
    const scrubber = q(v, '[data-testid="mp-scrubber"]') as HTMLInputElement;
    scrubber.value = '9'; // linear_grad of fc1
    scrubber.dispatchEvent(new Event('input'));
    expect(q(v, '[data-testid="mp-step-label"]').textContent).toBe('step 10 / 16 · backward · linear_grad (MLP.fc1)');
    expect(current(v)).toEqual(['g1']);
    const flowing = Array.from(v.node.querySelectorAll('g.edge.mp-flowing'));
    expect(flowing.length).toBe(2); // to the weight's and the bias's accumulate nodes
    expect(q(v, '[data-testid="mp-inspector"]').textContent).toMatch(/linear_grad.*gradient/s);
    v.setView('forward');
    await v.ready;
    expect(current(v)).toEqual(['n1']); // the forward view shows the op the grad node belongs to
  });

  it('answers the keyboard shortcuts, scoped to the widget', async () => {
    const v = await mounted();
    const key = (k: string, shiftKey = false) => v.node.dispatchEvent(new KeyboardEvent('keydown', { key: k, shiftKey, bubbles: true, cancelable: true }));
    key('ArrowRight');
    expect(v.model.index).toBe(1);
    key('F10');
    expect(v.model.index).toBe(2);
    key('ArrowLeft');
    expect(v.model.index).toBe(1);
    key('F11', true); // step out of MLP: the loss
    expect(v.model.current?.label).toBe('cross_entropy_with_softmax');
    key('F11');
    expect(v.model.current?.phase).toBe('backward');
    key('F8');
    expect(v.model.playing).toBe(true);
    key('F8');
    expect(v.model.playing).toBe(false);
    const outside = new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true });
    document.body.dispatchEvent(outside);
    expect(v.model.index).toBe(4); // a key outside the widget is not ours
  });

  it('selects a clicked node, searches by op or layer name, zooms and fits', async () => {
    const v = await mounted();
    (v.node.querySelector('g.node[data-node-id="t2"]') as SVGGElement).dispatchEvent(new MouseEvent('click', { bubbles: true }));
    const inspector = q(v, '[data-testid="mp-inspector"]').textContent ?? '';
    expect(inspector).toMatch(/linear_0\.w_0/);
    expect(inspector).toMatch(/latest update/); // a parameter: its optimizer update, none yet at step 1
    const search = q(v, '[data-testid="mp-search"]') as HTMLInputElement;
    search.value = 'fc2';
    search.dispatchEvent(new Event('input'));
    expect(marked(v, 'mp-match')).toEqual(['n3']);
    search.value = 'relu';
    search.dispatchEvent(new Event('input'));
    expect(marked(v, 'mp-match')).toEqual(['g4', 'n2']); // relu and relu_grad
    expect(marked(v, 'mp-dim').length).toBe(18);
    const svg = v.node.querySelector('svg')!;
    const before = svg.getAttribute('viewBox');
    click(v, 'mp-zoom-in');
    expect(svg.getAttribute('viewBox')).not.toBe(before);
    click(v, 'mp-fit');
    expect(svg.getAttribute('viewBox')).toBe(before!.split(' ').map(Number).map(x => x.toFixed(1)).join(' '));
  });

  it('groups layers: steps box to box, step into opens the layer, Block ×N folds', async () => {
    const v = await mounted('blocks.json', 'layers');
    expect(v.view.kind).toBe('layers');
    expect(current(v)).toEqual(['L1']); // Deep.inp as one box
    click(v, 'mp-step-forward');
    expect(current(v)).toEqual(['L4']); // blocks.0.fc, a box in the open Block ×4 cluster
    click(v, 'mp-step-forward');
    expect(current(v)).toEqual(['n3']); // op k of every block is one node
    expect(v.view.nodes.find(n => n.id === 'n3')!.detail).toContain('×4');
    expect(v.node.querySelector('g.cluster')).not.toBeNull();
    expect(v.node.textContent).toMatch(/Block ×4/);
    const before = v.model.index;
    click(v, 'mp-step-out');
    expect(v.model.index).toBeGreaterThan(before);
  });
});
