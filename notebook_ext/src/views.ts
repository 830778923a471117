/**
 * Graph views built from the document alone, as minipaddle/visualizer/graph.py builds them in Python:
 *
 *   forward    one node per op; parameters/inputs as source nodes; outputs; layers as clusters
 *   backward   one node per grad node (accumulate nodes for leaves), gradient edges
 *   combined   both, each op linked to its grad node (dashed)
 *   layers     ops grouped by layer: a closed layer is one box, an open one a cluster; runs of
 *              sibling layers with the same structure fold into one "Block ×N"
 *
 * Ids are the trace's ids where a node is one object (n4, g9, t2) and derived ones otherwise
 * (L3: layer 3 of doc.layers, F3: the fold starting there, X1: a run collapsed to keep the view
 * within its node budget), so the same op keeps its id in every view. `viewOf` maps every trace
 * id to the node that shows it. Labels hold raw user names: the DOT writer escapes them.
 */
import { GradNode, OpNode } from './schema';
import { TraceIndex, commonLayer } from './trace_index';
import { tensorName } from './names';

export type ViewKind = 'forward' | 'backward' | 'combined' | 'layers';
export const VIEW_KINDS: ViewKind[] = ['forward', 'backward', 'combined', 'layers'];
export const DEFAULT_BUDGET = 300; // nodes: Graphviz lays out 300 in ~0.2 s (see tests/layout.test.ts)

export interface VNode {
  id: string;
  kind: string; // op, parameter, input, leaf, tensor, output, grad, accumulate, layer, block, collapsed
  label: string;
  detail: string[];
  cluster: string | null;
  order: number;
  refs: string[];
  nanInf: string | null;
}

export interface VEdge {
  source: string;
  target: string;
  kind: string; // activation, parameter, input, gradient, link
  label: string;
  tensors: string[];
}

export interface VCluster {
  id: string;
  label: string;
  parent: string | null;
  path: string;
  kind: 'layer' | 'block';
}

export interface GraphView {
  kind: ViewKind;
  nodes: VNode[];
  edges: VEdge[];
  clusters: VCluster[];
  notes: string[];
  viewOf: Map<string, string>;
}

export interface ViewOptions {
  open?: Set<string>; // layers view: layer paths drawn as clusters (the others are boxes)
  unfolded?: Set<string>; // layers view: fold ids (F3) shown as their separate layers
  budget?: number;
}

export function shapeText(idx: TraceIndex, tid: string | null | undefined): string {
  const t = tid ? idx.tensors.get(tid) : undefined;
  if (!t) return '';
  const text = `[${t.shape.join(', ')}]`;
  return t.dtype === 'float32' ? text : `${text} ${t.dtype}`;
}

/** Layers drawn open by default: level by level, the deepest grouping whose view stays within
 * `limit` nodes (Python's graph_view "auto" picks its depth the same way). */
export function defaultOpen(idx: TraceIndex, limit = 60): Set<string> {
  const parents = new Set(idx.doc.layers.map(l => l.parent).filter((p): p is string => p !== null));
  const maxDepth = Math.max(-1, ...idx.doc.layers.map(l => l.depth));
  let open = new Set<string>();
  for (let depth = 0; depth <= maxDepth; depth++) {
    const level = idx.doc.layers.filter(l => l.depth === depth && parents.has(l.path)).map(l => l.path);
    if (!level.length) break;
    const next = new Set([...open, ...level]);
    if (depth > 0 && new LayerViewBuilder(idx, next, new Set()).build().nodes.length > limit) break;
    open = next;
  }
  return open;
}

export function buildView(idx: TraceIndex, kind: ViewKind, options: ViewOptions = {}): GraphView {
  let view: GraphView;
  if (kind === 'forward') view = forwardView(idx);
  else if (kind === 'backward') view = backwardView(idx);
  else if (kind === 'combined') view = combinedView(idx);
  else view = new LayerViewBuilder(idx, options.open ?? defaultOpen(idx), options.unfolded ?? new Set()).build();
  return applyBudget(view, options.budget ?? DEFAULT_BUDGET);
}

function emptyView(kind: ViewKind): GraphView {
  return { kind, nodes: [], edges: [], clusters: [], notes: [], viewOf: new Map() };
}

/** Clusters for `paths` and all their ancestors, parents first (document order). */
function layerClusters(idx: TraceIndex, paths: Iterable<string | null>): VCluster[] {
  const wanted = new Set<string>();
  for (let p of paths) {
    while (p !== null && p !== undefined && !wanted.has(p)) {
      wanted.add(p);
      p = idx.layers.get(p)?.parent ?? null;
    }
  }
  return idx.doc.layers
    .map((l, i) => ({ l, i }))
    .filter(({ l }) => wanted.has(l.path))
    .map(({ l }) => ({ id: layerId(idx, l.path), label: l.name, parent: l.parent === null ? null : layerId(idx, l.parent), path: l.path, kind: 'layer' as const }));
}

const layerIds = new WeakMap<TraceIndex, Map<string, string>>();
export function layerId(idx: TraceIndex, path: string): string {
  let ids = layerIds.get(idx);
  if (!ids) {
    ids = new Map(idx.doc.layers.map((l, i) => [l.path, `L${i}`]));
    layerIds.set(idx, ids);
  }
  return ids.get(path) ?? path;
}

function opNode(n: OpNode, cluster: string | null): VNode {
  return { id: n.id, kind: 'op', label: n.op, detail: [], cluster, order: n.step, refs: [n.id], nanInf: n.nan_inf };
}

/** Edges for the forward edges through `viewOf` (op id -> view node); tensors no recorded op made
 * become source nodes (parameters inside the layer that uses them), unless `absorb` takes them. */
function addForwardEdges(idx: TraceIndex, view: GraphView, viewOf: (op: string) => string,
  clusterOf: (path: string | null) => string | null, absorb?: (tid: string) => string | null,
  alias?: Map<string, string>): void {
  const sources = new Map<string, VNode>();
  const seen = new Map<string, VEdge>();
  for (const e of idx.doc.graph.forward.edges) {
    const target = viewOf(e.target);
    let source: string;
    let kind = 'activation';
    if (e.source !== null) {
      source = viewOf(e.source);
      if (source === target) continue;
    } else {
      const box = absorb ? absorb(e.tensor) : null;
      if (box !== null) {
        view.viewOf.set(e.tensor, box);
        continue;
      }
      source = alias?.get(e.tensor) ?? e.tensor;
      let node = sources.get(source);
      if (!node) {
        node = sourceNode(idx, source, clusterOf);
        sources.set(source, node);
      }
      node.order = Math.min(node.order, (idx.nodes.get(e.target)?.step ?? 0) - 0.5);
      if (!node.refs.includes(e.tensor)) node.refs.push(e.tensor);
      view.viewOf.set(e.tensor, source);
      kind = idx.tensors.get(e.tensor)?.role === 'parameter' ? 'parameter' : 'input';
    }
    const label = shapeText(idx, e.tensor);
    const key = `${source}\u0000${target}\u0000${view.kind === 'forward' ? e.tensor : label}`;
    const old = seen.get(key);
    if (old) {
      if (!old.tensors.includes(e.tensor)) old.tensors.push(e.tensor);
      continue;
    }
    seen.set(key, { source, target, kind, label, tensors: [e.tensor] });
  }
  view.nodes.push(...[...sources.values()].sort((a, b) => a.order - b.order));
  view.edges.push(...seen.values());
}

function sourceNode(idx: TraceIndex, tid: string, clusterOf: (path: string | null) => string | null): VNode {
  const t = idx.tensors.get(tid);
  const role = t?.role ?? 'tensor';
  const kind = role === 'parameter' || role === 'input' || role === 'leaf' ? role : 'tensor';
  const detail = [shapeText(idx, tid)];
  if (kind === 'parameter' && t?.structured_name && t.name && t.structured_name !== t.name) detail.unshift(t.name);
  if (kind === 'tensor') detail.push('made before the trace');
  const cluster = kind === 'parameter' ? clusterOf(idx.consumerLayer(tid)) : null;
  const label = t?.structured_name ?? t?.name ?? (kind === 'tensor' ? 'tensor' : kind === 'input' ? 'input data' : kind);
  return { id: tid, kind, label, detail, cluster, order: 1e12, refs: [], nanInf: null };
}

/** Op outputs no recorded op consumed (a loss, a prediction) as output nodes. */
function addOutputs(idx: TraceIndex, view: GraphView, viewOf: (op: string) => string): void {
  for (const n of idx.doc.graph.forward.nodes) {
    for (const tid of n.outputs) {
      const t = idx.tensors.get(tid);
      if (idx.consumers.has(tid) || !t) continue;
      view.nodes.push({ id: tid, kind: 'output', label: t.name ?? 'output', detail: [shapeText(idx, tid)], cluster: null, order: n.step + 0.5, refs: [tid], nanInf: null });
      view.viewOf.set(tid, tid);
      view.edges.push({ source: viewOf(n.id), target: tid, kind: 'activation', label: shapeText(idx, tid), tensors: [tid] });
    }
  }
}

export function forwardView(idx: TraceIndex): GraphView {
  const view = emptyView('forward');
  const nodes = idx.doc.graph.forward.nodes;
  view.clusters = layerClusters(idx, nodes.map(n => n.layer));
  const clusterOf = (p: string | null) => (p === null ? null : layerId(idx, p));
  for (const n of nodes) {
    view.nodes.push(opNode(n, clusterOf(n.layer)));
    view.viewOf.set(n.id, n.id);
  }
  addForwardEdges(idx, view, id => id, clusterOf);
  addOutputs(idx, view, id => id);
  return view;
}

export function backwardView(idx: TraceIndex): GraphView {
  const view = emptyView('backward');
  const layers: (string | null)[] = [];
  idx.doc.graph.backward.nodes.forEach((g: GradNode, i: number) => {
    const fwd = g.forward_node ? idx.nodes.get(g.forward_node) : undefined;
    const layer = fwd ? fwd.layer : idx.consumerLayer(g.tensor);
    layers.push(layer);
    const step = idx.backwardStepOf.get(g.id);
    const detail: string[] = [];
    const t = g.tensor ? idx.tensors.get(g.tensor) : undefined;
    if (g.kind === 'accumulate' && t) detail.push(tensorName(t, t.id), shapeText(idx, t.id));
    if (g.outside) detail.push('made before the trace');
    const bad = step && step.kind === 'backward_step' && step.grads_out.some(s => idx.stateBad(s));
    view.nodes.push({
      id: g.id, kind: g.kind, label: g.name, detail, cluster: layer === null ? null : layerId(idx, layer),
      order: step ? step.index : 1e12 + i, refs: [g.id], nanInf: bad ? 'propagated' : null
    });
    view.viewOf.set(g.id, g.id);
    if (g.kind === 'accumulate' && g.tensor) view.viewOf.set(g.tensor, g.id);
  });
  view.clusters = layerClusters(idx, layers);
  for (const e of idx.doc.graph.backward.edges) {
    view.edges.push({ source: e.source, target: e.target, kind: 'gradient', label: shapeText(idx, e.tensor), tensors: e.tensor ? [e.tensor] : [] });
  }
  return view;
}

export function combinedView(idx: TraceIndex): GraphView {
  const fwd = forwardView(idx);
  const bwd = backwardView(idx);
  const clusters = new Map<string, VCluster>();
  for (const c of [...fwd.clusters, ...bwd.clusters]) clusters.set(c.id, c);
  const view: GraphView = {
    kind: 'combined', nodes: [...fwd.nodes, ...bwd.nodes], edges: [...fwd.edges, ...bwd.edges],
    clusters: [...clusters.values()].sort((a, b) => Number(a.id.slice(1)) - Number(b.id.slice(1))),
    notes: [], viewOf: new Map([...bwd.viewOf, ...fwd.viewOf]) // a parameter shows as its forward node
  };
  for (const n of idx.doc.graph.forward.nodes) {
    if (n.grad_node && idx.gradNodes.has(n.grad_node)) view.edges.push({ source: n.id, target: n.grad_node, kind: 'link', label: '', tensors: [] });
  }
  return view;
}

/** The view node showing trace object `id` (an op, grad node, tensor), following n <-> g links
 * when the view shows only the other direction. */
export function locate(idx: TraceIndex, view: GraphView, id: string | null): string | null {
  if (id === null) return null;
  const direct = view.viewOf.get(id);
  if (direct !== undefined) return direct;
  const g = idx.gradNodes.get(id);
  if (g) return (g.forward_node && view.viewOf.get(g.forward_node)) || (g.tensor && view.viewOf.get(g.tensor)) || null;
  const n = idx.nodes.get(id);
  if (n && n.grad_node) return view.viewOf.get(n.grad_node) ?? null;
  return null;
}

class LayerViewBuilder {
  private view = emptyView('layers');
  private children = new Map<string | null, string[]>();
  private direct = new Map<string | null, OpNode[]>();
  private underCache = new Map<string, OpNode[]>();
  private alias = new Map<string, string>();
  private boxes = new Set<string>();

  constructor(private idx: TraceIndex, private open: Set<string>, private unfolded: Set<string>) {
    for (const l of idx.doc.layers) {
      const list = this.children.get(l.parent) ?? [];
      list.push(l.path);
      this.children.set(l.parent, list);
    }
    for (const n of idx.doc.graph.forward.nodes) {
      const list = this.direct.get(n.layer) ?? [];
      list.push(n);
      this.direct.set(n.layer, list);
    }
  }

  build(): GraphView {
    this.place(null, null);
    const clusterIds = new Set(this.view.clusters.map(c => c.id));
    const clusterOf = (path: string | null): string | null => {
      while (path !== null && !clusterIds.has(layerId(this.idx, path))) path = this.idx.layers.get(path)?.parent ?? null;
      return path === null ? null : layerId(this.idx, path);
    };
    const viewOf = (op: string) => this.view.viewOf.get(op) ?? op;
    const absorb = (tid: string): string | null => {  // a parameter used inside one box only is part of it
      if (this.idx.tensors.get(tid)?.role !== 'parameter') return null;
      const targets = new Set((this.idx.consumers.get(tid) ?? []).map(viewOf));
      const [only] = [...targets];
      return targets.size === 1 && this.boxes.has(only) ? only : null;
    };
    addForwardEdges(this.idx, this.view, viewOf, clusterOf, absorb, this.alias);
    addOutputs(this.idx, this.view, viewOf);
    const byId = new Map(this.view.nodes.map(n => [n.id, n]));
    for (const [ref, id] of this.view.viewOf) {
      const node = byId.get(id);
      if (node && !node.refs.includes(ref)) node.refs.push(ref);
      const op = this.idx.nodes.get(ref);
      if (node && op?.nan_inf && node.nanInf !== 'produced') node.nanInf = op.nan_inf;
    }
    for (const n of this.view.nodes) if (n.kind === 'op' && n.refs.length > 1) n.detail.push(`×${n.refs.length}`);
    return this.view;
  }

  private under(path: string): OpNode[] {
    let ops = this.underCache.get(path);
    if (!ops) {
      ops = [...(this.direct.get(path) ?? [])];
      for (const child of this.children.get(path) ?? []) ops.push(...this.under(child));
      ops.sort((a, b) => a.step - b.step);
      this.underCache.set(path, ops);
    }
    return ops;
  }

  private signature(path: string): string {
    const cut = path.length + 1;
    return JSON.stringify(this.under(path).map(n => [(n.layer ?? '').slice(cut), n.op, n.outputs.map(t => this.idx.tensors.get(t)?.shape ?? null)]));
  }

  private place(path: string | null, cluster: string | null): void {
    type Item = { step: number; layer?: string; op?: OpNode };
    const items: Item[] = [];
    for (const c of this.children.get(path) ?? []) {
      const ops = this.under(c);
      if (ops.length) items.push({ step: ops[0].step, layer: c });
    }
    for (const n of this.direct.get(path) ?? []) items.push({ step: n.step, op: n });
    items.sort((a, b) => a.step - b.step);
    for (let i = 0; i < items.length;) {
      const item = items[i];
      let j = i + 1;
      if (item.op) {
        this.view.nodes.push(opNode(item.op, cluster));
        this.view.viewOf.set(item.op.id, item.op.id);
      } else {
        const first = item.layer!;
        const fid = 'F' + layerId(this.idx, first).slice(1);
        const sig = this.signature(first);
        while (j < items.length && items[j].layer !== undefined && this.signature(items[j].layer!) === sig) j++;
        const run = items.slice(i, j).map(it => it.layer!);
        if (run.length > 1 && !this.unfolded.has(fid)) this.addFold(fid, run, cluster);
        else for (const layer of run) this.addLayer(layer, cluster);
      }
      i = j;
    }
  }

  private addLayer(path: string, cluster: string | null): void {
    const id = layerId(this.idx, path);
    if (!this.open.has(path)) this.addBox(id, path, cluster, [path]);
    else {
      this.view.clusters.push(this.cluster(id, this.name(path), cluster, path, 'layer'));
      this.place(path, id);
    }
  }

  private cluster(id: string, label: string, parent: string | null, path: string, kind: 'layer' | 'block'): VCluster {
    return { id, label, parent, path, kind };
  }

  private addBox(id: string, path: string, cluster: string | null, members: string[]): void {
    const ops = this.under(path);
    const kind = members.length > 1 ? 'block' : 'layer';
    const label = members.length > 1 ? `${this.name(members[0])} … ${this.name(members[members.length - 1])}` : this.name(path);
    const detail = members.length > 1 ? [`Block ×${members.length}`, 'each: ' + opSummary(ops.map(n => n.op))] : [opSummary(ops.map(n => n.op))];
    this.view.nodes.push({ id, kind, label, detail, cluster, order: ops[0].step, refs: [], nanInf: null });
    this.boxes.add(id);
    for (const m of members) for (const n of this.under(m)) this.view.viewOf.set(n.id, id);
  }

  private addFold(fid: string, run: string[], cluster: string | null): void {
    const first = run[0];
    const count = run.length;
    this.view.notes.push(`${count} layers of the same structure (${first} … ${run[count - 1]}) folded into one "Block ×${count}".`);
    if (!run.some(m => this.open.has(m))) {
      this.addBox(fid, first, cluster, run);
      return;
    }
    this.view.clusters.push(this.cluster(fid, `${this.name(first)} … ${this.name(run[count - 1])}  (Block ×${count})`, cluster, first, 'block'));
    this.place(first, fid);
    const reps = this.under(first);
    for (const member of run.slice(1)) {  // the same structure: op k of each maps onto op k of the first
      this.under(member).forEach((n, k) => {
        const rep = reps[k];
        if (!rep) return;
        this.view.viewOf.set(n.id, this.view.viewOf.get(rep.id) ?? rep.id);
        n.inputs.forEach((t, m) => {
          const tr = rep.inputs[m];
          if (tr && this.isSource(t) && this.isSource(tr)) this.alias.set(t, this.alias.get(tr) ?? tr);
        });
      });
    }
  }

  private isSource(tid: string): boolean {
    const t = this.idx.tensors.get(tid);
    return t !== undefined && t.producer === null;
  }

  /** A layer's name; "blocks.3" for the items of a LayerList, whose names are only numbers. */
  private name(path: string): string {
    const l = this.idx.layers.get(path);
    if (!l) return path;
    if (/^\d+$/.test(l.name) && l.parent !== null) return `${this.idx.layers.get(l.parent)?.name ?? l.parent}.${l.name}`;
    return l.name;
  }
}

export function opSummary(names: string[]): string {
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  return [...counts].map(([n, c]) => (c > 1 ? `${n} ×${c}` : n)).join(', ');
}

/** Keep at most `budget` nodes: the first and last to run stay; each run of nodes between them
 * becomes one "collapsed N nodes" marker (X1, X2, ...) so a huge trace never stalls the layout. */
export function applyBudget(view: GraphView, budget: number): GraphView {
  if (view.nodes.length <= budget) return view;
  const sorted = [...view.nodes].sort((a, b) => a.order - b.order);
  const slots = budget - 1;
  const head = slots - Math.floor(slots / 2);
  const tail = Math.floor(slots / 2);
  const keep = new Set([...sorted.slice(0, head), ...sorted.slice(sorted.length - tail)].map(n => n.id));
  const markerOf = new Map<string, string>();
  const markers: VNode[] = [];
  let run: VNode[] = [];
  const flush = () => {
    if (!run.length) return;
    const id = `X${markers.length + 1}`;
    const clusters = new Set(run.map(n => n.cluster));
    const steps = run.map(n => n.order).filter(o => o < 1e12);
    markers.push({
      id, kind: 'collapsed', label: `collapsed ${run.length} nodes`,
      detail: [opSummary(run.map(n => n.label)).slice(0, 80), steps.length ? `steps ${Math.floor(Math.min(...steps))}–${Math.floor(Math.max(...steps))}` : ''],
      cluster: clusters.size === 1 ? run[0].cluster : null, order: run[0].order, refs: run.flatMap(n => n.refs),
      nanInf: run.find(n => n.nanInf)?.nanInf ?? null
    });
    for (const n of run) markerOf.set(n.id, id);
    run = [];
  };
  for (const n of sorted) {
    if (keep.has(n.id)) flush();
    else run.push(n);
  }
  flush();
  const total = markers.reduce((s, m) => s + m.refs.length, 0);
  view.nodes = [...view.nodes.filter(n => keep.has(n.id)), ...markers];
  const edges = new Map<string, VEdge>();
  for (const e of view.edges) {
    const source = markerOf.get(e.source) ?? e.source;
    const target = markerOf.get(e.target) ?? e.target;
    if (source === target) continue;
    const key = `${source}\u0000${target}\u0000${e.kind}`;
    const old = edges.get(key);
    if (old) {
      old.tensors.push(...e.tensors);
      if (old.label !== e.label) old.label = '';
    } else edges.set(key, { ...e, source, target, tensors: [...e.tensors] });
  }
  view.edges = [...edges.values()];
  for (const [ref, id] of view.viewOf) view.viewOf.set(ref, markerOf.get(id) ?? id);
  const used = new Set(view.nodes.map(n => n.cluster));
  const parents = new Map(view.clusters.map(c => [c.id, c.parent]));
  for (const c of [...used]) for (let p = c ? parents.get(c) : null; p; p = parents.get(p)) used.add(p);
  view.clusters = view.clusters.filter(c => used.has(c.id));
  view.notes.push(`${total} nodes are drawn as ${markers.length} "collapsed" box${markers.length === 1 ? '' : 'es'} to keep the drawing small; choose the "layers" view to see them grouped by layer instead.`);
  return view;
}

export { commonLayer };
