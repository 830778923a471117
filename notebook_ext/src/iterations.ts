/**
 * Iterations: a training run is a sequence of iterations (forward, backward, update) that almost
 * always share one structure. The recorder lists them (`doc.iterations`, schema 1.2): each with its
 * first and last step and a structure id; iterations of equal structure run the same steps in the
 * same order, so the i-th step of one is the i-th step of the other.
 *
 * The graph shows ONE iteration: for each structure, its first iteration (the representative) is
 * cut out of the document as a sub-document and indexed on its own, so the views, the layout and
 * the highlighting work on it unchanged. Stepping through iteration k highlights the
 * representative's nodes through `toRep(k)` (ids of iteration k -> ids of its representative), so
 * going from iteration 7 to 8 moves nothing on screen; the inspector shows iteration k's own values
 * through `fromRep(k)`.
 *
 * A document without iterations (one forward pass, a static program) is one iteration holding every
 * step, whose sub-document is the document itself.
 */
import { Iteration, Step, TraceDocument } from './schema';
import { TraceIndex } from './trace_index';

export interface IterationInfo {
  index: number;
  /** positions in doc.steps (0-based, inclusive) */
  first: number;
  last: number;
  structure: number;
  loss: number | null;
  gradNorm: number | null;
  updateRatio: number | null;
}

export class Iterations {
  readonly list: IterationInfo[];
  /** whether the document really has several iterations (else one holds everything) */
  readonly several: boolean;
  /** where structures change: iterations whose structure differs from the one before */
  readonly changes: number[];
  private reps = new Map<number, number>();
  private subs = new Map<number, TraceIndex>();
  private maps = new Map<number, { to: Map<string, string>; from: Map<string, string> }>();

  constructor(readonly idx: TraceIndex) {
    const doc = idx.doc;
    const steps = doc.steps;
    const position = idx.positionOf;
    const list: IterationInfo[] = [];
    for (const it of (doc.iterations ?? []) as Iteration[]) {
      const first = nearestPosition(steps, it.first_step, position, 'up');
      const last = nearestPosition(steps, it.last_step, position, 'down');
      if (first === null || last === null || last < first) continue; // dropped by the ring buffer
      list.push({ index: it.index, first, last, structure: it.structure, loss: finite(it.loss),
        gradNorm: finite(it.grad_norm), updateRatio: finite(it.update_ratio) });
    }
    this.several = list.length > 1;
    this.changes = [];
    if (!this.several) {
      const only = list[0];
      this.list = [{ index: only?.index ?? 0, first: 0, last: Math.max(0, steps.length - 1), structure: 0,
        loss: only?.loss ?? null, gradNorm: only?.gradNorm ?? null, updateRatio: only?.updateRatio ?? null }];
      this.reps.set(0, 0);
      this.subs.set(0, idx);
      return;
    }
    // steps before the first or between listed iterations (rare) belong to the iteration before them
    list[0].first = 0;
    for (let k = 1; k < list.length; k++) list[k - 1].last = list[k].first - 1;
    list[list.length - 1].last = steps.length - 1;
    this.list = list;
    list.forEach((it, k) => {
      if (!this.reps.has(it.structure)) this.reps.set(it.structure, k);
      if (k > 0 && it.structure !== list[k - 1].structure) this.changes.push(k);
    });
  }

  get length(): number {
    return this.list.length;
  }

  /** The iteration (its place in `list`) holding step position `pos`. */
  at(pos: number): number {
    let lo = 0;
    let hi = this.list.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.list[mid].first <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The representative iteration of iteration `k`'s structure. */
  rep(k: number): number {
    return this.reps.get(this.list[k].structure) ?? k;
  }

  /** The index of the sub-document the graph draws for iteration `k` (its representative's). */
  subIndex(k: number): TraceIndex {
    const structure = this.list[k].structure;
    let sub = this.subs.get(structure);
    if (!sub) {
      const r = this.list[this.rep(k)];
      sub = new TraceIndex(sliceDocument(this.idx, r.first, r.last));
      this.subs.set(structure, sub);
    }
    return sub;
  }

  /** Ids (op nodes, grad nodes, tensors, updates) of iteration k -> those of its representative. */
  toRep(k: number): Map<string, string> {
    return this.pairs(k).to;
  }

  /** The reverse: ids of the representative -> those of iteration k. */
  fromRep(k: number): Map<string, string> {
    return this.pairs(k).from;
  }

  private pairs(k: number): { to: Map<string, string>; from: Map<string, string> } {
    let m = this.maps.get(k);
    if (m) return m;
    const to = new Map<string, string>();
    const r = this.rep(k);
    if (r !== k) pairIterations(this.idx, this.list[k], this.list[r], to);
    const from = new Map<string, string>();
    for (const [x, y] of to) if (!from.has(y)) from.set(y, x);
    m = { to, from };
    this.maps.set(k, m);
    return m;
  }
}

function finite(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function nearestPosition(steps: Step[], index: number, position: Map<number, number>, dir: 'up' | 'down'): number | null {
  const exact = position.get(index);
  if (exact !== undefined) return exact;
  if (dir === 'up') {
    const i = steps.findIndex(s => s.index >= index);
    return i < 0 ? null : i;
  }
  for (let i = steps.length - 1; i >= 0; i--) if (steps[i].index <= index) return i;
  return null;
}

function pair(to: Map<string, string>, a: string | null | undefined, b: string | null | undefined): void {
  if (a && b && a !== b) to.set(a, b);
}

function pairLists(to: Map<string, string>, a: (string | null)[] | undefined, b: (string | null)[] | undefined): void {
  if (!a || !b) return;
  a.forEach((x, i) => pair(to, x, b[i]));
}

/** Pair iteration `a` with its representative `b`: the i-th forward op of one with the i-th of the
 * other (their tensors and grad nodes with them), the i-th optimizer update likewise. Backward steps
 * follow from their grad nodes, not their order: a weight's accumulate node is one object for the
 * whole run (the same id in every iteration), so the engine runs it later from the second iteration
 * on, while the graph is the same. */
function pairIterations(idx: TraceIndex, a: IterationInfo, b: IterationInfo, to: Map<string, string>): void {
  const steps = idx.doc.steps;
  const of = (it: IterationInfo, kind: Step['kind']) => steps.slice(it.first, it.last + 1).filter(s => s.kind === kind);
  const opsA = of(a, 'op');
  const opsB = of(b, 'op');
  opsA.forEach((sa, i) => {
    const sb = opsB[i];
    if (sa.kind !== 'op' || !sb || sb.kind !== 'op') return;
    pair(to, sa.node, sb.node);
    const na = idx.nodes.get(sa.node);
    const nb = idx.nodes.get(sb.node);
    if (!na || !nb) return;
    pairLists(to, na.inputs, nb.inputs);
    pairLists(to, na.outputs, nb.outputs);
    pair(to, na.grad_node, nb.grad_node);
  });
  const upA = of(a, 'optimizer_update');
  const upB = of(b, 'optimizer_update');
  upA.forEach((sa, i) => {
    const sb = upB[i];
    if (sa.kind !== 'optimizer_update' || !sb || sb.kind !== 'optimizer_update') return;
    pair(to, sa.update, sb.update);
    pair(to, idx.updates.get(sa.update)?.param, idx.updates.get(sb.update)?.param);
  });
  for (const s of of(a, 'hook')) {  // a hook's tensor is the forward output its grad node belongs to
    if (s.kind !== 'hook' || !s.tensor) continue;
    const g = idx.gradNodes.get(s.node);
    const rep = g?.forward_node ? idx.nodes.get(to.get(g.forward_node) ?? '') : undefined;
    const mine = g?.forward_node ? idx.nodes.get(g.forward_node) : undefined;
    const k = mine ? mine.outputs.indexOf(s.tensor) : -1;
    if (rep && k >= 0) pair(to, s.tensor, rep.outputs[k]);
  }
}

/** The document cut down to steps [first, last]: their op nodes, grad nodes, edges and updates (tensors,
 * states and layers are kept whole: they are only looked up). */
export function sliceDocument(idx: TraceIndex, first: number, last: number): TraceDocument {
  const doc = idx.doc;
  const steps = doc.steps.slice(first, last + 1);
  const stepSet = new Set(steps.map(s => s.index));
  const nodes = doc.graph.forward.nodes.filter(n => stepSet.has(n.step));
  const nodeSet = new Set(nodes.map(n => n.id));
  const grads = new Set<string>();
  const updates = new Set<string>();
  for (const s of steps) {
    if (s.kind === 'backward_step' || s.kind === 'hook') grads.add(s.node);
    if (s.kind === 'optimizer_update') updates.add(s.update);
  }
  for (const n of nodes) if (n.grad_node) grads.add(n.grad_node);
  const edges = doc.graph.forward.edges
    .filter(e => nodeSet.has(e.target))
    .map(e => (e.source !== null && !nodeSet.has(e.source) ? { ...e, source: null } : e));
  return {
    ...doc,
    steps,
    graph: {
      forward: { ...doc.graph.forward, nodes, edges },
      backward: {
        ...doc.graph.backward,
        nodes: doc.graph.backward.nodes.filter(g => grads.has(g.id)),
        edges: doc.graph.backward.edges.filter(e => grads.has(e.source) && grads.has(e.target))
      }
    },
    optimizer_updates: doc.optimizer_updates.filter(u => updates.has(u.id))
  };
}
