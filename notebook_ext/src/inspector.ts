/**
 * The inspector: everything the document knows about the selected (or current) node.
 *
 *   op node       op, layer path, attrs, the kernel that ran and why, its time (a GPU op: each CUDA
 *                 launch with its grid and block, and its GPU time from CUDA events; for a kernel the
 *                 autotuner chose: each candidate's measured time, the winner, where it came from); what the
 *                 op itself shows of the call (its node_info: a sparse product's nnz and pattern); each input and
 *                 output: shape, dtype, summary, histogram, heat map of small values, and the
 *                 gradient the backward pass computed for it, beside the value; a run_program op (a
 *                 @to_static Layer) links to its forward and backward Programs in the Program tab
 *   grad node     its forward op, the gradients it received and sent, the ops its rule ran (with the
 *                 autotune table of each kernel the autotuner chose; for run_program_grad its backward Program)
 *   tensor        a parameter/input/output: its value at the current step, its .grad, and each
 *                 optimizer update (lr, grad norm, update norm, the value after)
 *   layer, block  the layer path and the ops inside
 *
 * and for the Program tab (renderProgramInspector):
 *   program op    type, block, role, slots with shapes, attrs (long text folded), its source line; in a
 *                 pass diff what it replaced (a fused op, with its expression and kernel) or that the
 *                 pass removed / added it; at a run step its time and output summaries
 *   variable      shape, dtype, kind (parameter, data, persistable); in a run its value at the step,
 *                 what was fed and fetched
 */
import { GradNode, InnerOp, Kernel, KernelLaunch, KernelTuning, NodeInfo, OpNode, PassDiff, ProgramDoc, ProgramOp, ProgramRun, ProgramVar, SourceRef, State, TensorRec, TensorSummary } from './schema';
import { TraceIndex } from './trace_index';
import { clip, DiffMarks, programNode, shapeOf, summaryAt, varKind } from './program_graph';
import { blockPath, declaringBlock, programOpId } from './steps';
import { duration, el, heatmapSvg, histogramSvg, num, summaryLine, summaryText } from './format';
import { VNode, shapeText } from './views';
import { sourceText, tensorName } from './names';
import { lineChart } from './charts';
import { PROGRAM_ATTRS, ProgramOpener, programLinkView, programLinks } from './program_links';

/** Why a state has no values, in plain words. */
const OMITTED: Record<string, string> = {
  mode: 'values not kept: the trace keeps summaries only (--values none; --values all keeps them)',
  size: 'values not kept: the tensor is bigger than the values limit (--values all keeps them)',
  budget: "values not kept: the trace's byte budget ran out (--max-bytes)"
};

/** "step 12" as the toolbar counts (from 1, in the order steps ran), for doc step index `index`. */
function stepText(idx: TraceIndex, index: number): string {
  const pos = idx.positionOf.get(index);
  return pos === undefined ? `step ${index + 1}` : `step ${pos + 1}`;
}

/** A PyLayer call's attrs (schema 1.2): its class, the forward and backward the learner wrote, where. */
interface PyLayerInfo {
  name: string;
  forward: string | null;
  backward: string | null;
  /** the ops its forward ran (drawn as this one node) */
  ops: string[];
  source: SourceRef | null;
}

/** The op's attrs without the PyLayer fields, and those fields (null for any other op). */
export function splitPyLayer(all: Record<string, unknown>): { attrs: Record<string, unknown>; pylayer: PyLayerInfo | null } {
  if (typeof all.pylayer !== 'string') return { attrs: all, pylayer: null };
  const { pylayer, forward_source, backward_source, source, forward_ops, ...attrs } = all;
  const src = source !== null && typeof source === 'object' && typeof (source as SourceRef).file === 'string' ? (source as SourceRef) : null;
  return {
    attrs,
    pylayer: {
      name: pylayer as string,
      forward: typeof forward_source === 'string' ? forward_source : null,
      backward: typeof backward_source === 'string' ? backward_source : null,
      ops: Array.isArray(forward_ops) ? forward_ops.map(String) : [],
      source: src ? { file: src.file, line: Number(src.line) || 0, code: '', cell: src.cell } : null
    }
  };
}

/** A gradient that does not exist yet at the current step. */
const NOT_YET = 'not yet';

function row(table: HTMLElement, key: string, value: string | Node): void {
  const tr = el('tr');
  tr.appendChild(el('th', undefined, key));
  const td = el('td');
  if (typeof value === 'string') td.textContent = value;
  else td.appendChild(value);
  tr.appendChild(td);
  table.appendChild(tr);
}

/** One tensor state: summary line, histogram, heat map of its values (small tensors). */
function stateView(idx: TraceIndex, title: string, sid: string | null | undefined): HTMLElement {
  const box = el('div', 'mp-state');
  box.appendChild(el('div', 'mp-state-title', title));
  if (sid === NOT_YET) {
    box.appendChild(el('div', 'mp-muted', 'not computed yet at this step: the backward pass makes it later'));
    return box;
  }
  const s = sid ? idx.states.get(sid) : undefined;
  if (!s) {
    box.appendChild(el('div', 'mp-muted', sid === undefined ? 'not recorded' : 'none'));
    return box;
  }
  const summary = el('div', 'mp-summary', summaryText(s));
  if (s.summary.nan_count || s.summary.inf_count) summary.classList.add('mp-bad');
  box.appendChild(summary);
  if (s.summary.histogram) box.appendChild(histogramSvg(s.summary.histogram));
  const t = idx.tensors.get(s.tensor);
  if (s.values && t) {
    const map = heatmapSvg(s.values, t.shape);
    if (map) box.appendChild(map);
  } else if (s.values_omitted) {
    box.appendChild(el('div', 'mp-muted', OMITTED[s.values_omitted] ?? `values not kept (${s.values_omitted})`));
  }
  return box;
}

function tensorHead(idx: TraceIndex, t: TensorRec | undefined, tid: string, role?: string): string {
  const name = t ? tensorName(t, tid) : tid;
  return `${role ? role + ' ' : ''}${name} · ${shapeText(idx, tid) || '?'}${t && t.dtype === 'float32' ? ' float32' : ''} · ${t?.role ?? 'unknown'}`;
}

/** A tensor's value and gradient side by side. */
function tensorPair(idx: TraceIndex, tid: string, sid: string | null | undefined, gradSid: string | null | undefined, role: string): HTMLElement {
  // gradSid: a state id, null (no gradient flowed), NOT_YET, or undefined (no gradient column)
  const t = idx.tensors.get(tid);
  const box = el('div', 'mp-tensor');
  box.dataset.tensorId = tid;
  box.appendChild(el('div', 'mp-tensor-head', tensorHead(idx, t, tid, role)));
  const pair = el('div', 'mp-pair');
  pair.appendChild(stateView(idx, 'value', sid));
  if (gradSid !== undefined) pair.appendChild(stateView(idx, 'gradient', gradSid));
  box.appendChild(pair);
  return box;
}

/** The state of `tid` last seen at or before doc step `step` (else its first). */
export function stateAt(idx: TraceIndex, tid: string, step: number): State | undefined {
  const t = idx.tensors.get(tid);
  if (!t || !t.states.length) return undefined;
  let best = t.states[0];
  for (const sid of t.states) {
    const s = idx.states.get(sid);
    if (s && s.step <= step) best = sid;
  }
  return idx.states.get(best);
}

/** The state of `tid` at doc step `step`, or undefined when it did not exist yet (a gradient before backward). */
export function stateIfExists(idx: TraceIndex, tid: string, step: number): State | undefined {
  const s = stateAt(idx, tid, step);
  return s && s.step <= step ? s : undefined;
}

/** A row per Program the op names: a button that opens it in the Program tab. */
function programRows(idx: TraceIndex, n: OpNode, table: HTMLElement, open: ProgramOpener | undefined, attrs: [string, string][]): void {
  for (const link of programLinks(idx, n, attrs)) row(table, link.label, programLinkView(link, open));
}

function opInspector(idx: TraceIndex, n: OpNode, out: HTMLElement, step: number, open?: ProgramOpener): void {
  const table = el('table', 'mp-props');
  row(table, 'op', n.op);
  row(table, 'layer', n.layer ?? '(top level)');
  row(table, 'step', stepText(idx, n.step));
  row(table, 'kernel', `${n.kernel.name} (${n.kernel.backend}, ${n.kernel.dtype})`);
  const why = n.kernel.tuning ? 'chosen by the autotuner for this shape class' : { only: 'the only kernel for this op and dtype', priority: 'the highest priority of the candidates', preferred: 'chosen by the autotuner or set_preferred_kernel' }[n.kernel.reason] ?? n.kernel.reason;
  if (typeof n.attrs.pylayer !== 'string') row(table, 'why', `${why}; candidates: ${n.kernel.candidates.join(', ')}`);
  row(table, 'time', duration(n.end_ns - n.start_ns));
  if (n.kernel.device === 'gpu') gpuRows(table, n.kernel);
  if (n.kernel.tuning) row(table, 'autotune', autotuneTable(n.kernel.tuning));
  const { attrs, pylayer } = splitPyLayer(n.attrs);
  if (pylayer) {
    row(table, 'PyLayer', `${pylayer.name}: a Python op written by hand (its forward and backward below)`);
    if (pylayer.source) row(table, 'source', sourceText(pylayer.source));
    if (pylayer.ops.length) row(table, 'its forward ran', pylayer.ops.join(', '));
  }
  const { forward_program, backward_program, ...rest } = attrs;
  if (forward_program !== undefined || backward_program !== undefined) programRows(idx, n, table, open, PROGRAM_ATTRS);
  if (Object.keys(rest).length) row(table, 'attrs', el('code', undefined, JSON.stringify(rest)));
  if (typeof n.saturation === 'number') row(table, n.op === 'relu' ? 'dead outputs' : 'saturated outputs', `${(n.saturation * 100).toFixed(1)}%`);
  if (n.nan_inf) row(table, 'NaN/Inf', n.first_nan_inf ? `${n.nan_inf} here (the first in the trace)` : `${n.nan_inf} from an input`);
  out.appendChild(table);
  if (n.info) out.appendChild(nodeInfoView(n.info));
  if (pylayer) {
    for (const [title, code] of [['forward, as written', pylayer.forward], ['backward, as written', pylayer.backward]] as [string, string | null][]) {
      if (!code) continue;
      const box = el('div', 'mp-pylayer-source');
      box.dataset.testid = 'mp-pylayer-source';
      box.appendChild(el('div', 'mp-state-title', title));
      box.appendChild(el('pre', 'mp-code', code ?? ''));
      out.appendChild(box);
    }
  }
  const back = n.grad_node ? idx.backwardStepOf.get(n.grad_node) : undefined;
  const ran = back !== undefined && back.kind === 'backward_step' && back.index <= step;
  const notYet = (k: number) => (back && back.kind === 'backward_step' && !ran ? NOT_YET : undefined);
  const gradsIn = back && back.kind === 'backward_step' ? (ran ? back.grads_in : back.grads_in.map((_, k) => notYet(k))) : undefined;
  const gradsOut = back && back.kind === 'backward_step' ? (ran ? back.grads_out : back.grads_out.map((_, k) => notYet(k))) : undefined;
  n.inputs.forEach((tid, k) => out.appendChild(tensorPair(idx, tid, n.input_states[k], gradsOut ? gradsOut[k] ?? null : undefined, `in ${k}`)));
  n.outputs.forEach((tid, k) => out.appendChild(tensorPair(idx, tid, n.output_states[k], gradsIn ? gradsIn[k] ?? null : undefined, `out ${k}`)));
}

/** An op's own picture of the call (schema 1.4 info, from the node_info registered with the op): its title,
 * its rows as a small table, and its grid (a sparse matrix's pattern) as a heat map. */
export function nodeInfoView(info: NodeInfo): HTMLElement {
  const box = el('div', 'mp-node-info');
  box.dataset.testid = 'mp-node-info';
  box.appendChild(el('div', 'mp-state-title', info.title));
  const table = el('table', 'mp-props');
  for (const [label, text] of info.rows) row(table, label, text);
  box.appendChild(table);
  const map = info.grid ? heatmapSvg(info.grid.values, info.grid.shape) : null;
  if (map) {
    map.setAttribute('data-testid', 'mp-info-grid');
    box.appendChild(map);
  }
  return box;
}

/** "grid (4,1,1) × block (256,1,1)": a CUDA launch's dimensions, as the kernel sees them in gridDim and blockDim. */
export function launchText(l: KernelLaunch): string {
  return `grid (${l.grid.join(',')}) × block (${l.block.join(',')})`;
}

/** A GPU op's rows: each CUDA kernel it launched with its grid and block, and its time on the device. */
function gpuRows(table: HTMLElement, k: Kernel): void {
  const launches = k.launches ?? [];
  if (!launches.length) row(table, 'launch', '(no kernel launched)');
  launches.forEach((l, i) => row(table, launches.length > 1 ? `launch ${i + 1}` : 'launch', `${launchText(l)} · ${l.kernel}`));
  if (k.device_time_ns !== undefined) row(table, 'GPU time', `${duration(k.device_time_ns)} (CUDA events)`);
}

/** An autotune decision: each candidate with its time (µs) or why it was left out, the winner
 * highlighted, the default marked, and whether it was measured now or read from the cache. */
export function autotuneTable(t: KernelTuning): HTMLElement {
  const box = el('div', 'mp-autotune');
  box.dataset.testid = 'mp-autotune';
  const when = t.source === 'cache' ? 'from cache' : t.step === null ? 'measured' : `measured at step ${t.step}`;
  box.appendChild(el('div', 'mp-autotune-head', `${when}${t.shape_class ? ` · shape class ${t.shape_class}` : ''} · default ${t.default ?? '?'}`));
  const table = el('table', 'mp-autotune-table');
  const head = el('tr');
  for (const h of ['candidate', 'µs', 'error']) head.appendChild(el('th', undefined, h));
  table.appendChild(head);
  for (const c of t.candidates) {
    const tr = el('tr');
    tr.dataset.candidate = c.name;
    const won = c.name === t.winner;
    if (won) tr.classList.add('mp-winner');
    const name = `${c.name}${won ? ' ✔ winner' : ''}${c.name === t.default ? ' (default)' : ''}`;
    tr.appendChild(el('td', undefined, name));
    tr.appendChild(el('td', 'mp-num', c.time_ns === null ? '—' : (c.time_ns / 1e3).toFixed(1)));
    tr.appendChild(el('td', c.error ? 'mp-bad' : undefined, c.error ?? ''));
    table.appendChild(tr);
  }
  box.appendChild(table);
  return box;
}

/** The run of grad node `g` that the current doc step `step` sees: its latest at or before it, else its first. */
function gradStepAt(idx: TraceIndex, g: GradNode, step: number) {
  const runs = idx.backwardStepsOf.get(g.id) ?? [];
  let best = runs[0];
  for (const r of runs) if (r.index <= step) best = r;
  return best;
}

function gradInspector(idx: TraceIndex, g: GradNode, out: HTMLElement, step: number, open?: ProgramOpener): void {
  const table = el('table', 'mp-props');
  const fwd = g.forward_node ? idx.nodes.get(g.forward_node) : undefined;
  row(table, 'op', g.name);
  row(table, 'kind', g.kind === 'accumulate' ? 'accumulate: adds into a leaf\'s .grad' : 'gradient rule of ' + (g.op ?? '?'));
  row(table, 'layer', (fwd ? fwd.layer : idx.consumerLayer(g.tensor)) ?? '(top level)');
  if (fwd) row(table, 'forward op', `${fwd.op} (${fwd.id})`);
  if (fwd && typeof fwd.attrs.backward_program === 'string') programRows(idx, fwd, table, open, PROGRAM_ATTRS.slice(1));
  const s = gradStepAt(idx, g, step);
  const notYet = s !== undefined && s.index > step;
  if (s && s.kind === 'backward_step') {
    row(table, 'runs at', `${stepText(idx, s.index)}${notYet ? ' (not yet: this is still before it)' : ''}`);
    const gpuTime = (o: InnerOp) => (o.device_time_ns === undefined ? '' : ` (GPU ${duration(o.device_time_ns)})`);
    row(table, 'kernel', s.ops.length ? s.ops.map(o => `${o.op}: ${o.kernel} ${duration(o.duration_ns)}${gpuTime(o)}`).join('; ') : '(no ops)');
    row(table, 'time', duration(s.end_ns - s.start_ns));
    row(table, 'backward pass', `${s.pass} (the ${ordinal(s.pass)} backward() call of this trace)`);
    for (const o of s.ops) if (o.tuning) row(table, `autotune ${o.op}`, autotuneTable(o.tuning));
  } else row(table, 'ran', g.outside ? 'made before the trace' : 'not in this trace');
  out.appendChild(table);
  if (!s || s.kind !== 'backward_step') return;
  const grad = (sid: string | null) => (notYet ? NOT_YET : sid);
  if (g.kind === 'accumulate' && g.tensor) {
    out.appendChild(tensorPair(idx, g.tensor, stateAt(idx, g.tensor, Math.min(step, s.index))?.id, grad(s.grads_out[0] ?? null), 'leaf'));
    return;
  }
  s.grads_in.forEach((sid, k) => out.appendChild(tensorPair(idx, fwd?.outputs[k] ?? `out ${k}`, fwd ? fwd.output_states[k] : undefined, grad(sid), `grad in ${k}:`)));
  s.grads_out.forEach((sid, k) => out.appendChild(tensorPair(idx, fwd?.inputs[k] ?? `in ${k}`, fwd ? fwd.input_states[k] : undefined, grad(sid), `grad out ${k}:`)));
}

function ordinal(n: number): string {
  const s = ['th', 'st', 'nd', 'rd'];
  const v = n % 100;
  return n + (s[(v - 20) % 10] || s[v] || s[0]);
}

/** A tensor (a weight, an input, an output) at doc step `step`: its value then, its gradient if one exists
 * by then, and for a weight its latest optimizer update at or before the step, with the history of all. */
function tensorInspector(idx: TraceIndex, tid: string, step: number, out: HTMLElement): void {
  const t = idx.tensors.get(tid);
  const table = el('table', 'mp-props');
  row(table, 'op', t?.role === 'parameter' ? 'parameter (a weight the optimizer trains)' : (t?.role ?? 'tensor'));
  row(table, 'tensor', t ? tensorName(t, tid) : tid);
  if (t?.structured_name) row(table, 'state_dict key', t.structured_name);
  if (t?.name) row(table, 'Paddle name', t.name);
  row(table, 'layer', idx.consumerLayer(tid) ?? '(top level)');
  row(table, 'shape', shapeText(idx, tid) + (t ? ` ${t.dtype}` : ''));
  out.appendChild(table);
  const grad = t?.grad ? stateIfExists(idx, t.grad, step) : undefined;
  out.appendChild(tensorPair(idx, tid, stateAt(idx, tid, step)?.id, t?.grad ? (grad?.id ?? NOT_YET) : undefined, ''));
  const updates = idx.doc.optimizer_updates.filter(u => u.param === tid);
  if (!updates.length) return;
  const done = updates.filter(u => u.step <= step);
  const u = done[done.length - 1];
  const upd = el('table', 'mp-props mp-update');
  upd.dataset.testid = 'mp-latest-update';
  if (u) {
    row(upd, 'latest update', `${u.optimizer} at ${stepText(idx, u.step)} (${done.length} of ${updates.length})`);
    row(upd, 'lr', num(u.lr));
    row(upd, 'grad norm', num(u.grad_norm));
    row(upd, 'update norm', num(u.update_norm));
  } else row(upd, 'latest update', `none yet at this step (${updates.length} later)`);
  out.appendChild(upd);
  if (updates.length > 1) {
    const hist = el('div', 'mp-update-history');
    hist.dataset.testid = 'mp-update-history';
    hist.appendChild(el('div', 'mp-state-title', 'update norm, every update (log scale; the line is now)'));
    const values = updates.map(x => (typeof x.update_norm === 'number' ? x.update_norm : null));
    hist.appendChild(lineChart([{ values, cls: 'mp-line-ratio', label: 'update norm' }],
      { width: 200, height: 40, log: true, current: done.length ? done.length - 1 : null }));
    out.appendChild(hist);
  }
}

/** Fill `out` with the inspector for view node `node` at doc step `step`; `open` follows a run_program
 * node's links to its Programs (the TraceView switches to the Program tab). */
export function renderInspector(idx: TraceIndex, node: VNode | null, step: number, out: HTMLElement, open?: ProgramOpener): void {
  out.replaceChildren();
  if (node === null) {
    out.appendChild(el('div', 'mp-muted', 'Click a node, or step, to inspect it.'));
    return;
  }
  const t = idx.tensors.get(node.id);
  out.appendChild(el('div', 'mp-inspector-title', t ? tensorName(t, node.label) : node.label));
  const op = idx.nodes.get(node.id);
  const g = idx.gradNodes.get(node.id);
  if (op) opInspector(idx, op, out, step, open);
  else if (g) gradInspector(idx, g, out, step, open);
  else if (idx.tensors.has(node.id)) tensorInspector(idx, node.id, step, out);
  else {
    const table = el('table', 'mp-props');
    row(table, 'op', node.kind === 'collapsed' ? node.label : `${node.kind}: ${node.detail.join(' · ')}`);
    const ops = node.refs.map(r => idx.nodes.get(r)).filter((n): n is OpNode => n !== undefined);
    const layers = [...new Set(ops.map(n => n.layer ?? '(top level)'))];
    row(table, 'layer', layers.slice(0, 8).join(', ') + (layers.length > 8 ? ` … (+${layers.length - 8})` : ''));
    row(table, 'ops', `${ops.length}: ` + ops.slice(0, 24).map(n => `${n.op} (${n.id})`).join(', ') + (ops.length > 24 ? ' …' : ''));
    row(table, 'time', duration(ops.reduce((a, n) => a + n.end_ns - n.start_ns, 0)));
    out.appendChild(table);
    out.appendChild(el('div', 'mp-muted', node.kind === 'collapsed' ? 'Use the layers view to see these ops grouped.' : 'Double-click the box to open it.'));
  }
}

// ---- the Program tab ---------------------------------------------------------------------------

/** What the Program tab's inspector shows: node `id` of `program`, in a pass diff or at a run step. */
export interface ProgramInspection {
  program: ProgramDoc;
  id: string | null;
  diff: PassDiff | null;
  marks: DiffMarks | null;
  run: ProgramRun | null;
  /** the run step shown (0-based), null without a run */
  step: number | null;
  /** the op id of that step */
  stepNode: string | null;
}


/** An attribute's value: JSON, or for long / multi-line text (a fused op's generated kernel source)
 * its first line, unfolding to the whole text. */
export function attrValue(value: unknown): HTMLElement {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined || (text.length <= 80 && !text.includes('\n'))) return el('code', undefined, String(text));
  const box = el('details', 'mp-attr-long');
  box.appendChild(el('summary', undefined, clip(text.split('\n')[0], 60)));
  box.appendChild(el('pre', undefined, text));
  return box;
}

function summaryBox(title: string, t: TensorSummary | null): HTMLElement {
  const box = el('div', 'mp-state');
  box.appendChild(el('div', 'mp-state-title', title));
  const s = t?.summary;
  if (!t || !s) {
    box.appendChild(el('div', 'mp-muted', 'not recorded'));
    return box;
  }
  const dtype = t.dtype === 'float32' ? '' : ` ${t.dtype}`;
  const line = el('div', 'mp-summary', `[${t.shape.join(', ')}]${dtype} · ${summaryLine(s)}`);
  if (s.nan_count || s.inf_count) line.classList.add('mp-bad');
  box.appendChild(line);
  if (s.histogram) box.appendChild(histogramSvg(s.histogram));
  const map = t.values ? heatmapSvg(t.values, t.shape) : null;
  if (map) box.appendChild(map);
  else if (t.values_omitted) box.appendChild(el('div', 'mp-muted', OMITTED[t.values_omitted] ?? `values not kept (${t.values_omitted})`));
  return box;
}

/** Fill `out` with the Program tab's inspector. */
export function renderProgramInspector(ctx: ProgramInspection, out: HTMLElement): void {
  out.replaceChildren();
  const node = ctx.id ? programNode(ctx.program, ctx.id) : null;
  if (node === null || ctx.id === null) {
    out.appendChild(el('div', 'mp-muted', ctx.diff ? `${ctx.diff.pass}: ${ctx.diff.summary}` : 'Click an op or a variable, or step the run, to inspect it.'));
    return;
  }
  if (node.kind === 'op') programOpInspector(ctx, node.op, node.block, ctx.id, out);
  else programVarInspector(ctx, node.name, node.v, ctx.id, out);
}

function programOpInspector(ctx: ProgramInspection, op: ProgramOp, block: number, id: string, out: HTMLElement): void {
  const { program, diff } = ctx;
  out.appendChild(el('div', 'mp-inspector-title', `${op.type} · ${id}`));
  const table = el('table', 'mp-props');
  row(table, 'type', op.type);
  row(table, 'where', `block ${block}${blockPath(program, block) ? ' (sub-block)' : ''}, op ${op.index}`);
  row(table, 'role', op.role);
  const slot = (slots: Record<string, string[]>) => Object.entries(slots).map(([k, names]) =>
    `${k}: ${names.filter(n => n).map(n => `${n} ${shapeOf(program.blocks[declaringBlock(program, block, n)]?.vars.find(v => v.name === n))}`.trim()).join(', ')}`).join('\n');
  row(table, 'inputs', el('code', 'mp-slots', slot(op.inputs) || '–'));
  row(table, 'outputs', el('code', 'mp-slots', slot(op.outputs) || '–'));
  for (const [k, value] of Object.entries(op.attrs)) row(table, k, attrValue(value));
  if (op.sub_blocks.length) row(table, 'sub-blocks', op.sub_blocks.map(b => `block ${b}`).join(', '));
  if (op.source) row(table, 'source', el('code', undefined, `${sourceText(op.source)}  ${op.source.code}`));
  const replaced = ctx.marks?.replaced.get(id);
  if (replaced) row(table, 'replaces', replaced.map(r => `${r.type} (op ${r.index}${r.block ? `, block ${r.block}` : ''})`).join(', '));
  const fused = diff?.fused.find(f => programOpId(diff.after, f.into.block, f.into.index) === id);
  if (fused?.expression) row(table, 'expression', el('code', 'mp-slots', fused.expression.replace(/; /g, '\n')));
  if (fused?.kernel) row(table, 'kernel', fused.kernel);
  const cls = (diff ? (id.startsWith(diff.before + ':') ? ctx.marks?.before : ctx.marks?.after) : undefined)?.get(id) ?? [];
  if (cls.includes('mp-removed')) row(table, 'pass', `removed by ${diff?.pass}`);
  if (cls.includes('mp-fused-away')) row(table, 'pass', `fused away by ${diff?.pass}`);
  if (cls.includes('mp-added')) row(table, 'pass', `added by ${diff?.pass}`);
  out.appendChild(table);
  const rs = ctx.run && ctx.step !== null && ctx.stepNode === id ? ctx.run.steps[ctx.step] : undefined;
  if (!rs || !ctx.run || ctx.step === null) return;
  const t2 = el('table', 'mp-props');
  row(t2, 'run step', `${ctx.step + 1} / ${ctx.run.steps.length} (run ${ctx.run.run})`);
  row(t2, 'time', duration(rs.time_ns));
  out.appendChild(t2);
  for (const [name, summary] of Object.entries(rs.outputs ?? {})) {
    const box = el('div', 'mp-tensor');
    box.appendChild(el('div', 'mp-tensor-head', `out ${name}`));
    box.appendChild(summaryBox('value', summary));
    out.appendChild(box);
  }
}

function programVarInspector(ctx: ProgramInspection, name: string, v: ProgramVar | null, id: string, out: HTMLElement): void {
  out.appendChild(el('div', 'mp-inspector-title', `${name} · ${id}`));
  const table = el('table', 'mp-props');
  row(table, 'variable', name);
  row(table, 'shape', `${shapeOf(v)} ${v?.dtype ?? ''}`.trim() || '?');
  row(table, 'kind', varKind(v) + (v?.stop_gradient ? ' · stop_gradient' : ''));
  out.appendChild(table);
  const run = ctx.run;
  if (!run) return;
  const upto = ctx.step ?? run.steps.length - 1;
  out.appendChild(summaryBox(run.feed[name] ? 'fed' : 'value at this step', summaryAt(run, name, upto)));
  if (run.fetch[name]) out.appendChild(summaryBox('fetched', run.fetch[name]));
}
