import { describe, expect, it } from 'vitest';
import { autotuneTable, renderInspector } from '../src/inspector';
import { TraceIndex } from '../src/trace_index';
import type { KernelTuning, TraceDocument } from '../src/schema';
import { fixture } from './helpers';

const tuning: KernelTuning = {
  shape_class: '16x16,16x32', source: 'tuned', winner: 'numba', default: 'blas', step: 1,
  candidates: [
    { name: 'blas', time_ns: 12400, error: null },
    { name: 'numba', time_ns: 8100, error: null },
    { name: 'slow', time_ns: null, error: "result differs from the default's" }
  ]
};

const rows = (box: HTMLElement) => Array.from(box.querySelectorAll('tr[data-candidate]')) as HTMLElement[];
const cells = (tr: HTMLElement) => Array.from(tr.querySelectorAll('td')).map(td => td.textContent);

describe('the autotune table in the inspector', () => {
  it('lists each candidate with its time in µs, its error, the winner highlighted and the default marked', () => {
    const box = autotuneTable(tuning);
    expect(box.dataset.testid).toBe('mp-autotune');
    expect(box.querySelector('.mp-autotune-head')!.textContent).toBe('measured at step 1 · shape class 16x16,16x32 · default blas');
    const [blas, numba, slow] = rows(box);
    expect(cells(blas)).toEqual(['blas (default)', '12.4', '']);
    expect(cells(numba)).toEqual(['numba ✔ winner', '8.1', '']);
    expect(cells(slow)).toEqual(['slow', '—', "result differs from the default's"]);
    expect(rows(box).filter(r => r.classList.contains('mp-winner')).map(r => r.dataset.candidate)).toEqual(['numba']);
    expect(slow.querySelector('td.mp-bad')).not.toBeNull();
  });

  it('says "from cache" for a decision read from the autotune cache', () => {
    const box = autotuneTable({ ...tuning, source: 'cache', step: null, winner: 'blas' });
    expect(box.querySelector('.mp-autotune-head')!.textContent).toMatch(/^from cache/);
    expect(rows(box).filter(r => r.classList.contains('mp-winner')).map(r => r.dataset.candidate)).toEqual(['blas']);
  });

  it('appears in an op node\'s inspector only when its kernel was tuned', () => {
    const doc = JSON.parse(JSON.stringify(fixture('mlp.json'))) as TraceDocument;
    const [tuned, plain] = doc.graph.forward.nodes;
    tuned.kernel = { ...tuned.kernel, name: 'numba', reason: 'preferred', candidates: ['blas', 'numba'], tuning };
    plain.kernel = { ...plain.kernel, tuning: null };
    const idx = new TraceIndex(doc);
    const out = document.createElement('div');
    const vnode = (id: string) => ({ id, kind: 'op', label: id, detail: [], refs: [id] }) as never;
    renderInspector(idx, vnode(tuned.id), tuned.step, out);
    const table = out.querySelector('[data-testid="mp-autotune"]') as HTMLElement;
    expect(table).not.toBeNull();
    expect(rows(table).map(r => r.dataset.candidate)).toEqual(['blas', 'numba', 'slow']);
    renderInspector(idx, vnode(plain.id), plain.step, out);
    expect(out.querySelector('[data-testid="mp-autotune"]')).toBeNull();
    expect(out.textContent).toContain(plain.kernel.name);
    renderInspector(idx, vnode(tuned.id), tuned.step, out);
    expect(out.textContent).toContain('chosen by the autotuner for this shape class');
  });

  it('shows a tuned kernel a backward rule ran in the grad node\'s inspector', () => {
    const doc = JSON.parse(JSON.stringify(fixture('mlp.json'))) as TraceDocument;
    const step = doc.steps.find(s => s.kind === 'backward_step' && s.ops.length > 0)!;
    if (step.kind !== 'backward_step') throw new Error('no backward step');
    step.ops[0] = { ...step.ops[0], op: 'matmul', kernel: 'numba', tuning };
    const idx = new TraceIndex(doc);
    const out = document.createElement('div');
    renderInspector(idx, { id: step.node, kind: 'grad', label: step.node, detail: [], refs: [step.node] } as never, step.index, out);
    const table = out.querySelector('[data-testid="mp-autotune"]') as HTMLElement;
    expect(table).not.toBeNull();
    expect(out.textContent).toContain('autotune matmul');
    expect(table.querySelector('tr.mp-winner')!.getAttribute('data-candidate')).toBe('numba');
  });
});
