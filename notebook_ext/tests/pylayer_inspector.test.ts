import { describe, expect, it } from 'vitest';
import { renderInspector, splitPyLayer } from '../src/inspector';
import { TraceIndex } from '../src/trace_index';
import { fixture } from './helpers';

describe('a PyLayer node in the inspector', () => {
  it('shows the forward and backward the learner wrote, and where', () => {
    const doc = fixture('mlp.json');
    const n = doc.graph.forward.nodes[1];
    n.op = 'MySigmoid';
    n.attrs = { pylayer: 'MySigmoid', forward_source: 'def forward(ctx, x):\n    return 1 / (1 + paddle.exp(-x))',
      backward_source: 'def backward(ctx, dy):\n    ...', source: { file: '/tmp/ipykernel_1/2.py', line: 3, cell: 7 }, forward_ops: ['neg', 'exp'], axis: 1 };
    const out = document.createElement('div');
    const idx = new TraceIndex(doc);
    renderInspector(idx, { id: n.id, kind: 'op', label: n.op, detail: [], cluster: null, order: 0, refs: [n.id], nanInf: null }, 0, out);
    const blocks = out.querySelectorAll('[data-testid="mp-pylayer-source"] pre');
    expect(blocks.length).toBe(2);
    expect(blocks[0].textContent).toMatch(/def forward\(ctx, x\)/);
    expect(out.textContent).toMatch(/cell \[7\], line 3/);
    expect(out.textContent).toMatch(/\{"axis":1\}/); // the other attrs, without the sources
    expect(out.textContent).toMatch(/its forward ran\s*neg, exp/);
  });

  it('leaves other ops alone', () => {
    expect(splitPyLayer({ axis: 1 }).pylayer).toBeNull();
  });
});
