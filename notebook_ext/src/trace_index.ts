/**
 * Indexes over one trace document, and what each step did: which graph node it ran, in which layer,
 * which tensors it read and wrote. Built once per document; everything else reads these maps.
 */
import {
  GradNode,
  Layer,
  OpNode,
  OptimizerUpdate,
  State,
  Step,
  TensorRec,
  TraceDocument
} from './schema';

/** What one step did, in terms the graph views can highlight. */
export interface StepInfo {
  position: number; // 0-based place in doc.steps
  phase: 'forward' | 'backward' | 'optimizer';
  node: string | null; // n / g node, or the parameter's t id for an optimizer update
  forwardNode: string | null; // the forward op it belongs to (an op itself, or a grad node's op)
  layer: string | null;
  label: string; // "linear (MLP.fc1)"
  reads: string[]; // forward tensor ids (a backward step reads the gradients of these)
  writes: string[];
  states: string[];
  nanInf: boolean;
}

export class TraceIndex {
  readonly doc: TraceDocument;
  readonly tensors = new Map<string, TensorRec>();
  readonly states = new Map<string, State>();
  readonly nodes = new Map<string, OpNode>();
  readonly gradNodes = new Map<string, GradNode>();
  readonly layers = new Map<string, Layer>();
  readonly updates = new Map<string, OptimizerUpdate>();
  /** grad node id -> its first backward step */
  readonly backwardStepOf = new Map<string, Step>();
  /** grad node id -> all its backward steps (an accumulate node of a weight runs once per iteration) */
  readonly backwardStepsOf = new Map<string, Step[]>();
  /** tensor id -> op node ids consuming it */
  readonly consumers = new Map<string, string[]>();
  readonly steps: StepInfo[];
  /** doc step index (steps[*].index) -> place in doc.steps: they differ once the ring buffer dropped steps */
  readonly positionOf = new Map<number, number>();

  constructor(doc: TraceDocument) {
    this.doc = doc;
    doc.steps.forEach((s, i) => this.positionOf.set(s.index, i));
    for (const t of doc.tensors) this.tensors.set(t.id, t);
    for (const s of doc.states) this.states.set(s.id, s);
    for (const n of doc.graph.forward.nodes) this.nodes.set(n.id, n);
    for (const g of doc.graph.backward.nodes) this.gradNodes.set(g.id, g);
    for (const l of doc.layers) this.layers.set(l.path, l);
    for (const u of doc.optimizer_updates) this.updates.set(u.id, u);
    for (const e of doc.graph.forward.edges) {
      const list = this.consumers.get(e.tensor) ?? [];
      list.push(e.target);
      this.consumers.set(e.tensor, list);
    }
    for (const s of doc.steps) {
      if (s.kind !== 'backward_step') continue;
      if (!this.backwardStepOf.has(s.node)) this.backwardStepOf.set(s.node, s);
      const list = this.backwardStepsOf.get(s.node) ?? [];
      list.push(s);
      this.backwardStepsOf.set(s.node, list);
    }
    this.steps = doc.steps.map((s, i) => this.describe(s, i));
  }

  /** The innermost layer holding every op that consumes tensor `tid` (where a parameter lives). */
  consumerLayer(tid: string | null): string | null {
    const ops = tid === null ? [] : (this.consumers.get(tid) ?? []);
    let common: string | null | undefined;
    for (const op of ops) {
      const path = this.nodes.get(op)?.layer ?? null;
      common = common === undefined ? path : commonLayer(common, path);
    }
    return common ?? null;
  }

  stateBad(sid: string | null | undefined): boolean {
    const s = sid ? this.states.get(sid) : undefined;
    return s !== undefined && (s.summary.nan_count > 0 || s.summary.inf_count > 0);
  }

  private describe(s: Step, position: number): StepInfo {
    const nanInf = s.states.some(sid => this.stateBad(sid));
    const base = { position, states: s.states, nanInf };
    if (s.kind === 'op') {
      const n = this.nodes.get(s.node);
      const layer = n?.layer ?? null;
      return {
        ...base, phase: 'forward', node: s.node, forwardNode: s.node, layer,
        label: withLayer(n?.op ?? s.node, layer), reads: n?.inputs ?? [], writes: n?.outputs ?? []
      };
    }
    if (s.kind === 'optimizer_update') {
      const u = this.updates.get(s.update);
      const param = u?.param ?? null;
      return {
        ...base, phase: 'optimizer', node: param, forwardNode: null, layer: null,
        label: `${u?.optimizer ?? 'optimizer'} update ${u?.param_name ?? param ?? ''}`.trim(),
        reads: param ? [param] : [], writes: param ? [param] : []
      };
    }
    const g = this.gradNodes.get(s.node);
    const fwd = g?.forward_node ? this.nodes.get(g.forward_node) : undefined;
    const layer = fwd ? fwd.layer : this.consumerLayer(g?.tensor ?? null);
    const info = {
      ...base, phase: 'backward' as const, node: s.node, forwardNode: fwd?.id ?? null, layer,
      label: withLayer(s.kind === 'hook' ? `hook ${s.hook}` : (g?.name ?? s.node), layer)
    };
    if (s.kind === 'hook') return { ...info, reads: s.tensor ? [s.tensor] : [], writes: s.tensor ? [s.tensor] : [] };
    if (g?.kind === 'accumulate') {
      const t = g.tensor ? [g.tensor] : [];
      return { ...info, reads: t, writes: t };
    }
    // grads_in[k] is the gradient of forward output k; grads_out[k] of forward input k
    const reads = fwd ? fwd.outputs.filter((_, k) => s.grads_in[k] != null) : [];
    const writes = fwd ? fwd.inputs.filter((_, k) => s.grads_out[k] != null) : [];
    return { ...info, reads, writes };
  }
}

function withLayer(name: string, layer: string | null): string {
  return layer ? `${name} (${layer})` : name;
}

/** Whether layer `path` is `scope` or inside it (every path is inside the top level, null). */
export function within(path: string | null, scope: string | null): boolean {
  if (scope === null) return true;
  return path !== null && (path === scope || path.startsWith(scope + '.'));
}

/** The innermost layer containing both (null: the top level). */
export function commonLayer(a: string | null, b: string | null): string | null {
  if (a === null || b === null) return null;
  let common: string | null = a;
  while (common !== null && !within(b, common)) {
    const cut: number = common.lastIndexOf('.');
    common = cut < 0 ? null : common.slice(0, cut);
  }
  return common;
}
