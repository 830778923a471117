// Fixtures: real trace documents written by make_fixtures.py, and a synthetic deep trace.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TraceDocument } from '../src/schema';

export function fixture(name: string): TraceDocument {
  return JSON.parse(readFileSync(join(__dirname, 'fixtures', name), 'utf-8')) as TraceDocument;
}

const summary = { numel: 4, min: 0, max: 1, mean: 0.5, std: 0.5, nan_count: 0, inf_count: 0, histogram: null };

/** A forward trace of `blocks` blocks (matmul with a weight, then relu): 2 * blocks ops. With
 * `distinct`, every block has another width, so none fold together. */
export function chainTrace(blocks: number, distinct = false): TraceDocument {
  const doc = {
    format: 'minipaddle.trace', schema_version: '1.0',
    recording: { values: 'none', total_steps: 0, first_step: 0, dropped_steps: 0, notes: [] },
    layers: [{ path: 'M', name: 'M', parent: null, depth: 0, nodes: [] as string[] },
      { path: 'M.blocks', name: 'blocks', parent: 'M', depth: 1, nodes: [] as string[] }],
    tensors: [] as object[], states: [] as object[],
    graph: { forward: { nodes: [] as object[], edges: [] as object[] }, backward: { nodes: [], edges: [] } },
    steps: [] as object[], optimizer_updates: [], nan_inf: { first: null, count: 0, occurrences: [] }
  };
  let t = 0, s = 0, n = 0;
  const tensor = (role: string, producer: string | null, width: number) => {
    const id = `t${++t}`;
    const sid = `s${++s}`;
    doc.tensors.push({ id, name: role === 'parameter' ? `w_${t}` : null, shape: [4, width], dtype: 'float32', role, stop_gradient: role !== 'parameter', producer, grad_of: null, grad: null, states: [sid] });
    doc.states.push({ id: sid, tensor: id, step: n, version: 0, summary, values: null, values_omitted: 'mode' });
    return id;
  };
  let x = tensor('input', null, 8);
  let prev: string | null = null;
  for (let b = 0; b < blocks; b++) {
    const layer = `M.blocks.${b}`;
    doc.layers.push({ path: layer, name: String(b), parent: 'M.blocks', depth: 2, nodes: [] });
    const width = distinct ? 8 + b : 8;
    const w = tensor('parameter', null, width);
    for (const op of ['matmul', 'relu']) {
      const id = `n${++n}`;
      const inputs = op === 'matmul' ? [x, w] : [x];
      const out = tensor('activation', id, width);
      doc.graph.forward.nodes.push({ id, op, layer, inputs, input_states: [], outputs: [out], output_states: [], attrs: {}, kernel: { name: 'k', backend: 'cpu', dtype: 'float32', reason: 'only', candidates: ['k'] }, start_ns: 0, end_ns: 10, grad_node: null, nan_inf: null, first_nan_inf: false, step: n - 1 });
      inputs.forEach((tid, index) => doc.graph.forward.edges.push({ source: tid === x ? prev : null, target: id, tensor: tid, index }));
      doc.steps.push({ index: n - 1, kind: 'op', phase: 'forward', node: id, states: [], t_ns: n });
      (doc.layers[doc.layers.length - 1].nodes as string[]).push(id);
      x = out;
      prev = id;
    }
  }
  return doc as unknown as TraceDocument;
}
