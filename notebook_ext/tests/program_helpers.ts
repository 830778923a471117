// A small hand-built document with the static-Program sections (programs, pass_diffs, program_runs),
// shaped as the spec says: a main program with a cond (two sub-blocks), the program after an
// elementwise-fusion pass, an Executor run of the main program (a control-flow op before its
// sub-block's ops, as the Executor records them), and a dy2static program.
import type { PassDiff, ProgramDoc, ProgramOp, ProgramRun, ProgramVar, TensorSummary, TraceDocument } from '../src/schema';
import { fixture } from './helpers';

const v = (name: string, shape: number[], extra: Partial<ProgramVar> = {}): ProgramVar => ({
  name, shape, dtype: 'float32', persistable: false, stop_gradient: false, is_parameter: false, is_data: false, ...extra
});
const param = (name: string, shape: number[]) => v(name, shape, { persistable: true, is_parameter: true });
const op = (index: number, type: string, inputs: Record<string, string[]>, outputs: Record<string, string[]>,
  extra: Partial<ProgramOp> = {}): ProgramOp => ({ index, type, inputs, outputs, attrs: {}, sub_blocks: [], role: 'forward', source: null, ...extra });
export const summary = (mean: number, extra: Partial<TensorSummary['summary']> = {}): TensorSummary => ({
  shape: [2, 3], dtype: 'float32', values: [mean, mean, mean, mean, mean, mean], values_omitted: null,
  summary: {
    numel: 6, min: mean - 1, max: mean + 1, mean, std: 0.5, nan_count: 0, inf_count: 0,
    histogram: { min: mean - 1, max: mean + 1, counts: [1, 2, 3], stride: 1 }, ...extra
  }
});

function mainBlocks(fused: boolean) {
  const vars = [v('x', [-1, 4], { is_data: true, stop_gradient: true }), param('fc_0.w_0', [4, 3]), param('fc_0.b_0', [3]),
    v('tmp_0', [-1, 3]), v('tmp_2', [-1, 3]), v('m', []), v('pred', [], { dtype: 'bool' }), v('cond_0', [-1, 3]),
    v('loss', []), v('fc_0.w_0@GRAD', [4, 3]), v('lr', [1], { persistable: true })];
  if (!fused) vars.push(v('tmp_1', [-1, 3]));
  const head = fused
    ? [op(1, 'fused_elementwise', { X: ['tmp_0', 'fc_0.b_0'] }, { Out: ['tmp_2'] }, { attrs: { expr: 'tanh(a + b)' } })]
    : [op(1, 'elementwise_add', { X: ['tmp_0'], Y: ['fc_0.b_0'] }, { Out: ['tmp_1'] }),
      op(2, 'tanh', { X: ['tmp_1'] }, { Out: ['tmp_2'] })];
  const k = head.length + 1;
  const ops = [
    op(0, 'matmul', { X: ['x'], Y: ['fc_0.w_0'] }, { Out: ['tmp_0'] }, { attrs: { transpose_x: false } }),
    ...head,
    op(k, 'reduce_mean', { X: ['tmp_2'] }, { Out: ['m'] }),
    op(k + 1, 'less_than', { X: ['m'] }, { Out: ['pred'] }),
    op(k + 2, 'cond', { Cond: ['pred'], Input: ['tmp_2'] }, { Out: ['cond_0'] }, { sub_blocks: [1, 2] }),
    op(k + 3, 'mean', { X: ['cond_0'] }, { Out: ['loss'] }),
    op(k + 4, 'matmul_grad', { X: ['x'], 'Out@GRAD': ['tmp_0'] }, { 'Y@GRAD': ['fc_0.w_0@GRAD'] }, { role: 'backward' }),
    op(k + 5, 'sgd', { Param: ['fc_0.w_0'], Grad: ['fc_0.w_0@GRAD'], LearningRate: ['lr'] }, { ParamOut: ['fc_0.w_0'] }, { role: 'optimize' })
  ];
  return [
    { idx: 0, parent: -1, vars, ops },
    { idx: 1, parent: 0, vars: [v('t1_0', [-1, 3])], ops: [op(0, 'relu', { X: ['tmp_2'] }, { Out: ['t1_0'] }), op(1, 'assign', { X: ['t1_0'] }, { Out: ['cond_0'] })] },
    { idx: 2, parent: 0, vars: [v('t2_0', [-1, 3])], ops: [op(0, 'scale', { X: ['tmp_2'] }, { Out: ['t2_0'] }, { attrs: { scale: 2 } })] }
  ];
}

export const ORIGINAL = 'def forward(self, x):\n    y = self.fc(x)\n    if y.mean() > 0:\n        y = y * 2\n    return y\n';
export const TRANSFORMED = 'def forward(self, x):\n    y = self.fc(x)\n    y = convert_ifelse(y.mean() > 0, true_fn_0, false_fn_0, (y,))\n    return y\n';

function dy2static(): ProgramDoc {
  const src = (line: number, code: string) => ({ file: '/work/model.py', line, code });
  return {
    id: 'P2', name: 'to_static: forward', role: 'dy2static', text: '{ // block 0\n}\n',
    origin: { kind: 'dy2static', function: 'forward', file: '/work/model.py', first_line: 10, original_source: ORIGINAL, transformed_source: TRANSFORMED },
    blocks: [
      { idx: 0, parent: -1, vars: [v('x', [2, 4], { is_data: true }), param('fc.w', [4, 3]), v('y', [2, 3]), v('m', []), v('c', [], { dtype: 'bool' }), v('out', [2, 3])],
        ops: [op(0, 'matmul', { X: ['x'], Y: ['fc.w'] }, { Out: ['y'] }, { source: src(11, 'y = self.fc(x)') }),
          op(1, 'reduce_mean', { X: ['y'] }, { Out: ['m'] }, { source: src(12, 'if y.mean() > 0:') }),
          op(2, 'greater_than', { X: ['m'] }, { Out: ['c'] }, { source: src(12, 'if y.mean() > 0:') }),
          op(3, 'cond', { Cond: ['c'], Input: ['y'] }, { Out: ['out'] }, { sub_blocks: [1], source: src(12, 'if y.mean() > 0:') })] },
      { idx: 1, parent: 0, vars: [v('y2', [2, 3])], ops: [op(0, 'scale', { X: ['y'] }, { Out: ['y2'] }, { source: src(13, 'y = y * 2') })] }
    ]
  };
}

export function programs(): ProgramDoc[] {
  return [
    { id: 'P0', name: 'main', role: 'main', text: '{ // block 0\n  matmul ...\n}\n', blocks: mainBlocks(false), origin: null },
    { id: 'P1', name: 'after fuse_elementwise', role: 'pass', text: '{ // block 0 (fused)\n}\n', blocks: mainBlocks(true), origin: null },
    dy2static()
  ];
}

export function passDiffs(): PassDiff[] {
  const ref = (index: number, type: string, outputs: string[]) => ({ block: 0, index, type, outputs });
  return [
    { pass: 'fuse_elementwise', step: 1, before: 'P0', after: 'P1', summary: 'fused 1 chain of 2 ops', changed: true, time_ms: 0.41,
      ops_before: 12, ops_after: 11, removed: [ref(1, 'elementwise_add', ['tmp_1']), ref(2, 'tanh', ['tmp_2'])],
      added: [ref(1, 'fused_elementwise', ['tmp_2'])],
      fused: [{ into: ref(1, 'fused_elementwise', ['tmp_2']), from: [ref(1, 'elementwise_add', ['tmp_1']), ref(2, 'tanh', ['tmp_2'])] }], details: {} },
    { pass: 'constant_folding', step: 0, before: 'P0', after: 'P0', summary: 'nothing to fold', changed: false, time_ms: 0.05,
      ops_before: 12, ops_after: 12, removed: [], added: [], fused: [], details: {} }
  ];
}

export function runs(): ProgramRun[] {
  const step = (i: number, block: number, opIdx: number, type: string, outs: string[]) =>
    ({ step: i, block, op: opIdx, type, time_ns: 1000 * (i + 1), outputs: Object.fromEntries(outs.map(o => [o, summary(i)])) });
  return [{
    program: 'P0', run: 0, feed: { x: summary(0.5) }, steps_dropped: 0, fetch: { loss: summary(7) },
    steps: [step(0, 0, 0, 'matmul', ['tmp_0']), step(1, 0, 1, 'elementwise_add', ['tmp_1']), step(2, 0, 2, 'tanh', ['tmp_2']),
      step(3, 0, 3, 'reduce_mean', ['m']), step(4, 0, 4, 'less_than', ['pred']), step(5, 0, 5, 'cond', ['cond_0']),
      step(6, 1, 0, 'relu', ['t1_0']), step(7, 1, 1, 'assign', ['cond_0']), step(8, 0, 6, 'mean', ['loss']),
      step(9, 0, 7, 'matmul_grad', ['fc_0.w_0@GRAD']), step(10, 0, 8, 'sgd', ['fc_0.w_0'])]
  }];
}

/** The MLP trace with the program sections added (or, with `eager` false, the sections alone). */
export function programDocument(eager = true): TraceDocument {
  const base = fixture('mlp.json');
  const doc = { ...base, programs: programs(), pass_diffs: passDiffs(), program_runs: runs() };
  if (!eager) {
    doc.graph = { forward: { nodes: [], edges: [] }, backward: { nodes: [], edges: [] } };
    doc.steps = [];
    doc.tensors = [];
    doc.states = [];
    doc.layers = [];
    doc.optimizer_updates = [];
  }
  return doc;
}
