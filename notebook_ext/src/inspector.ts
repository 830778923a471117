/**
 * The inspector: everything the document knows about the selected (or current) node.
 *
 *   op node       op, layer path, attrs, the kernel that ran and why, its time; each input and
 *                 output: shape, dtype, summary, histogram, heat map of small values, and the
 *                 gradient the backward pass computed for it, beside the value
 *   grad node     its forward op, the gradients it received and sent, the ops its rule ran
 *   tensor        a parameter/input/output: its value at the current step, its .grad, and each
 *                 optimizer update (lr, grad norm, update norm, the value after)
 *   layer, block  the layer path and the ops inside
 */
import { GradNode, OpNode, State, TensorRec } from './schema';
import { TraceIndex } from './trace_index';
import { duration, el, heatmapSvg, histogramSvg, num, summaryText } from './format';
import { VNode, shapeText } from './views';

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
    box.appendChild(el('div', 'mp-muted', `values not kept (${s.values_omitted})`));
  }
  return box;
}

function tensorHead(idx: TraceIndex, t: TensorRec | undefined, tid: string, role?: string): string {
  const name = t?.name ? `${t.name} (${tid})` : tid;
  return `${role ? role + ' ' : ''}${name} · ${shapeText(idx, tid) || '?'}${t && t.dtype === 'float32' ? ' float32' : ''} · ${t?.role ?? 'unknown'}`;
}

/** A tensor's value and gradient side by side. */
function tensorPair(idx: TraceIndex, tid: string, sid: string | null | undefined, gradSid: string | null | undefined, role: string): HTMLElement {
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

function opInspector(idx: TraceIndex, n: OpNode, out: HTMLElement): void {
  const table = el('table', 'mp-props');
  row(table, 'op', n.op);
  row(table, 'layer', n.layer ?? '(top level)');
  row(table, 'step', String(n.step));
  row(table, 'kernel', `${n.kernel.name} (${n.kernel.backend}, ${n.kernel.dtype})`);
  const why = { only: 'the only kernel for this op and dtype', priority: 'the highest priority of the candidates', preferred: 'chosen by the autotuner or set_preferred_kernel' }[n.kernel.reason] ?? n.kernel.reason;
  row(table, 'why', `${why}; candidates: ${n.kernel.candidates.join(', ')}`);
  row(table, 'time', duration(n.end_ns - n.start_ns));
  if (Object.keys(n.attrs).length) row(table, 'attrs', el('code', undefined, JSON.stringify(n.attrs)));
  if (n.nan_inf) row(table, 'NaN/Inf', n.first_nan_inf ? `${n.nan_inf} here (the first in the trace)` : n.nan_inf);
  out.appendChild(table);
  const back = n.grad_node ? idx.backwardStepOf.get(n.grad_node) : undefined;
  const gradsIn = back && back.kind === 'backward_step' ? back.grads_in : undefined;
  const gradsOut = back && back.kind === 'backward_step' ? back.grads_out : undefined;
  n.inputs.forEach((tid, k) => out.appendChild(tensorPair(idx, tid, n.input_states[k], gradsOut ? gradsOut[k] ?? null : undefined, `in ${k}`)));
  n.outputs.forEach((tid, k) => out.appendChild(tensorPair(idx, tid, n.output_states[k], gradsIn ? gradsIn[k] ?? null : undefined, `out ${k}`)));
}

function gradInspector(idx: TraceIndex, g: GradNode, out: HTMLElement): void {
  const table = el('table', 'mp-props');
  const fwd = g.forward_node ? idx.nodes.get(g.forward_node) : undefined;
  row(table, 'op', g.name);
  row(table, 'kind', g.kind === 'accumulate' ? 'accumulate: adds into a leaf\'s .grad' : 'gradient rule of ' + (g.op ?? '?'));
  row(table, 'layer', (fwd ? fwd.layer : idx.consumerLayer(g.tensor)) ?? '(top level)');
  if (fwd) row(table, 'forward op', `${fwd.op} (${fwd.id})`);
  const s = idx.backwardStepOf.get(g.id);
  if (s && s.kind === 'backward_step') {
    row(table, 'kernel', s.ops.length ? s.ops.map(o => `${o.op}: ${o.kernel} ${duration(o.duration_ns)}`).join('; ') : '(no ops)');
    row(table, 'time', duration(s.end_ns - s.start_ns));
    row(table, 'pass', String(s.pass));
  } else row(table, 'ran', g.outside ? 'made before the trace' : 'not in this trace');
  out.appendChild(table);
  if (!s || s.kind !== 'backward_step') return;
  if (g.kind === 'accumulate' && g.tensor) {
    out.appendChild(tensorPair(idx, g.tensor, stateAt(idx, g.tensor, s.index)?.id, s.grads_out[0] ?? null, 'leaf'));
    return;
  }
  s.grads_in.forEach((sid, k) => out.appendChild(tensorPair(idx, fwd?.outputs[k] ?? `out ${k}`, fwd ? fwd.output_states[k] : undefined, sid, `grad in ${k}:`)));
  s.grads_out.forEach((sid, k) => out.appendChild(tensorPair(idx, fwd?.inputs[k] ?? `in ${k}`, fwd ? fwd.input_states[k] : undefined, sid, `grad out ${k}:`)));
}

function tensorInspector(idx: TraceIndex, tid: string, step: number, out: HTMLElement): void {
  const t = idx.tensors.get(tid);
  const table = el('table', 'mp-props');
  row(table, 'op', t?.role === 'parameter' ? 'parameter' : (t?.role ?? 'tensor'));
  row(table, 'tensor', t?.name ? `${t.name} (${tid})` : tid);
  row(table, 'layer', idx.consumerLayer(tid) ?? '(top level)');
  row(table, 'shape', shapeText(idx, tid) + (t ? ` ${t.dtype}` : ''));
  out.appendChild(table);
  const grad = t?.grad ? stateAt(idx, t.grad, step) : undefined;
  out.appendChild(tensorPair(idx, tid, stateAt(idx, tid, step)?.id, t?.grad ? grad?.id ?? null : undefined, ''));
  for (const u of idx.doc.optimizer_updates.filter(u => u.param === tid)) {
    const upd = el('table', 'mp-props mp-update');
    row(upd, 'update', `${u.optimizer} (${u.id}, step ${u.step})`);
    row(upd, 'lr', num(u.lr));
    row(upd, 'grad norm', num(u.grad_norm));
    row(upd, 'update norm', num(u.update_norm));
    out.appendChild(upd);
    const after = idx.doc.steps.find(s => s.kind === 'optimizer_update' && s.update === u.id);
    if (after && after.states[0]) out.appendChild(stateView(idx, 'value after the update', after.states[0]));
  }
}

/** Fill `out` with the inspector for view node `node` at doc step `step`. */
export function renderInspector(idx: TraceIndex, node: VNode | null, step: number, out: HTMLElement): void {
  out.replaceChildren();
  if (node === null) {
    out.appendChild(el('div', 'mp-muted', 'Click a node, or step, to inspect it.'));
    return;
  }
  out.appendChild(el('div', 'mp-inspector-title', `${node.label} · ${node.id}`));
  const op = idx.nodes.get(node.id);
  const g = idx.gradNodes.get(node.id);
  if (op) opInspector(idx, op, out);
  else if (g) gradInspector(idx, g, out);
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
