import { describe, expect, it } from 'vitest';
import { launchText, renderInspector } from '../src/inspector';
import { TraceIndex } from '../src/trace_index';
import type { Kernel, TraceDocument } from '../src/schema';
import { fixture } from './helpers';

// A GPU op's kernel record (schema 1.3): a transposed operand is copied first, then the matmul runs.
const gpuKernel: Kernel = {
  name: 'cuda_bankfree', backend: 'gpu', dtype: 'float32', reason: 'priority',
  candidates: ['cuda_bankfree', 'cuda_prefetch', 'cuda_regblock', 'cuda_tiled', 'cuda_naive'], tuning: null,
  device: 'gpu', device_time_ns: 81_500,
  launches: [
    { kernel: 'transpose_kernel', grid: [1, 1, 1], block: [16, 16, 1] },
    { kernel: 'matmul_bankfree_kernel', grid: [2, 1, 1], block: [256, 1, 1] }
  ],
  grid: [2, 1, 1], block: [256, 1, 1]
};

const vnode = (id: string) => ({ id, kind: 'op', label: id, detail: [], refs: [id] }) as never;

/** The inspector's rows for the first forward node of mlp.json, given that node's kernel record. */
function rowsFor(kernel: Kernel): Map<string, string> {
  const doc = JSON.parse(JSON.stringify(fixture('mlp.json'))) as TraceDocument;
  const node = doc.graph.forward.nodes[0];
  node.kernel = kernel;
  const out = document.createElement('div');
  renderInspector(new TraceIndex(doc), vnode(node.id), node.step, out);
  const table = out.querySelector('table.mp-props')!;
  return new Map(Array.from(table.querySelectorAll(':scope > tr')).map(tr =>
    [tr.querySelector('th')!.textContent ?? '', tr.querySelector('td')!.textContent ?? '']));
}

describe('a GPU op in the inspector', () => {
  it('writes a launch as CUDA names it: grid and block, x y z', () => {
    expect(launchText({ kernel: 'k', grid: [4, 1, 1], block: [256, 1, 1] })).toBe('grid (4,1,1) × block (256,1,1)');
  });

  it('shows each CUDA launch with its grid and block, then the GPU time', () => {
    const rows = rowsFor(gpuKernel);
    expect(rows.get('kernel')).toBe('cuda_bankfree (gpu, float32)');
    expect(rows.get('launch 1')).toBe('grid (1,1,1) × block (16,16,1) · transpose_kernel');
    expect(rows.get('launch 2')).toBe('grid (2,1,1) × block (256,1,1) · matmul_bankfree_kernel');
    expect(rows.get('GPU time')).toBe('81.5 µs (CUDA events)');
    const keys = Array.from(rows.keys());
    expect(keys.indexOf('time')).toBeLessThan(keys.indexOf('launch 1'));
    expect(keys.indexOf('launch 2')).toBeLessThan(keys.indexOf('GPU time'));
  });

  it('labels a single launch "launch", and says so when the op launched no kernel', () => {
    const one = rowsFor({ ...gpuKernel, launches: gpuKernel.launches!.slice(1) });
    expect(one.get('launch')).toBe('grid (2,1,1) × block (256,1,1) · matmul_bankfree_kernel');
    expect(one.has('launch 1')).toBe(false);
    const none = rowsFor({ ...gpuKernel, launches: [], grid: undefined, block: undefined });
    expect(none.get('launch')).toBe('(no kernel launched)');
    expect(none.get('GPU time')).toBe('81.5 µs (CUDA events)');
  });

  it('shows no GPU rows for a CPU op (documents before 1.3 have none)', () => {
    const doc = fixture('mlp.json');
    const rows = rowsFor(doc.graph.forward.nodes[0].kernel);
    expect(rows.has('GPU time')).toBe(false);
    expect(Array.from(rows.keys()).some(k => k.startsWith('launch'))).toBe(false);
  });

  it('adds the GPU time of the ops a backward rule ran to the grad node\'s kernel row', () => {
    const doc = JSON.parse(JSON.stringify(fixture('mlp.json'))) as TraceDocument;
    const step = doc.steps.find(s => s.kind === 'backward_step' && s.ops.length > 0)!;
    if (step.kind !== 'backward_step') throw new Error('no backward step');
    step.ops[0] = { op: 'multiply', kernel: 'multiply', duration_ns: 40_000, device_time_ns: 12_000 };
    const out = document.createElement('div');
    renderInspector(new TraceIndex(doc), { id: step.node, kind: 'grad', label: step.node, detail: [], refs: [step.node] } as never,
      step.index, out);
    expect(out.textContent).toContain('multiply: multiply 40.0 µs (GPU 12.0 µs)');
  });
});
