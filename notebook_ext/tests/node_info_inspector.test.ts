import { describe, expect, it } from 'vitest';
import { nodeInfoView, renderInspector } from '../src/inspector';
import { TraceIndex } from '../src/trace_index';
import type { NodeInfo, TraceDocument } from '../src/schema';
import { fixture } from './helpers';

// What sparse_csr_dense_matmul's node_info records (schema 1.4 opNode.info): a 64 x 64 adjacency, its
// pattern downsampled to 32 x 32 blocks of 2 x 2 (each the fraction stored): here a band around the diagonal.
const band: number[] = [];
for (let i = 0; i < 32; i++) for (let j = 0; j < 32; j++) band.push(i === j ? 1 : Math.abs(i - j) === 1 ? 0.25 : 0);
const sparseInfo: NodeInfo = {
  title: 'sparse operand x',
  rows: [['sparse matrix', '[64, 64] CSR'], ['nnz', '190 of 4096 (4.6%)'], ['stored per row', 'min 2 · mean 3.0 · max 3'],
    ['pattern', '32 x 32 cells, each up to 2 x 2 entries: the fraction stored']],
  grid: { shape: [32, 32], values: band }
};

const vnode = (id: string) => ({ id, kind: 'op', label: id, detail: [], refs: [id] }) as never;

/** The inspector of mlp.json's first forward node, given that node's info. */
function inspect(info: NodeInfo | undefined): HTMLElement {
  const doc = JSON.parse(JSON.stringify(fixture('mlp.json'))) as TraceDocument;
  const node = doc.graph.forward.nodes[0];
  if (info) node.info = info;
  const out = document.createElement('div');
  renderInspector(new TraceIndex(doc), vnode(node.id), node.step, out);
  return out;
}

describe("an op's own picture in the inspector (node_info)", () => {
  it('shows the rows as a table under the op\'s props, titled', () => {
    const out = inspect(sparseInfo);
    const box = out.querySelector('[data-testid="mp-node-info"]')!;
    expect(box).not.toBeNull();
    expect(box.previousElementSibling?.matches('table.mp-props')).toBe(true);  // right under the props table
    expect(box.querySelector('.mp-state-title')?.textContent).toBe('sparse operand x');
    const rows = Array.from(box.querySelectorAll('table.mp-props tr')).map(tr =>
      [tr.querySelector('th')?.textContent, tr.querySelector('td')?.textContent]);
    expect(rows).toEqual(sparseInfo.rows);
  });

  it('draws the grid with the heat map helper: one cell per block, 7 px cells for 32 columns', () => {
    const grid = inspect(sparseInfo).querySelector('[data-testid="mp-node-info"] svg[data-testid="mp-info-grid"]')!;
    expect(grid).not.toBeNull();
    expect(grid.classList.contains('mp-heatmap')).toBe(true);
    const cells = grid.querySelectorAll('rect');
    expect(cells.length).toBe(32 * 32);
    expect([grid.getAttribute('width'), grid.getAttribute('height')]).toEqual(['224', '224']);
    // the diagonal block is full (the strongest colour), an empty block transparent
    expect(cells[0].getAttribute('fill')).toBe('rgba(220, 38, 38, 1.000)');
    expect(cells[1].getAttribute('fill')).toBe('rgba(220, 38, 38, 0.250)');
    expect(cells[5].getAttribute('fill')).toBe('rgba(220, 38, 38, 0.000)');
    expect(cells[33].querySelector('title')?.textContent).toBe('[1, 1] = 1');
  });

  it('shows the rows alone when the info has no grid (a GPU op keeps its indices on the device)', () => {
    const box = nodeInfoView({ title: 'sparse operand x', rows: [['nnz', '6 of 28 (21.4%)']], grid: null });
    expect(box.querySelector('svg')).toBeNull();
    expect(box.querySelector('td')?.textContent).toBe('6 of 28 (21.4%)');
  });

  it('shows nothing more for an op without info (documents before 1.4 have none)', () => {
    const out = inspect(undefined);
    expect(out.querySelector('[data-testid="mp-node-info"]')).toBeNull();
    expect(out.querySelector('table.mp-props')).not.toBeNull();
  });
});
