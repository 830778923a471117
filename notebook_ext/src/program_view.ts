/**
 * The Program tab: a static Program (the document's `programs`) drawn as a graph, each pass's diff
 * (`pass_diffs`) as its before and after programs side by side, an Executor run (`program_runs`)
 * stepped op by op, and for a dy2static program its original and transformed source beside it.
 *
 * Ops are boxes, variables ellipses (parameters with a double outline), the sub-blocks of cond /
 * while clusters hung off the op that owns them. Node ids follow the spec: `P0:b0:op3` for an op,
 * `P0:b0:v:x` for a variable (declared in block 0). As in the eager graph, stepping and selecting
 * only move CSS classes on the drawn SVG; Graphviz lays out each program once.
 */
import { OpRef, PassDiff, ProgramDoc, ProgramOp, ProgramRun, ProgramVar, TensorSummary } from './schema';
import { StepModel, blockPath, declaringBlock, programOpId, programRunSteps, programVarId } from './steps';
import { quote } from './dot';
import { layoutSvg } from './layout';
import { duration, el, heatmapSvg, histogramSvg, summaryLine } from './format';

/** Above this many ops + variables only parameters and data variables are drawn (ops link op to op). */
export const PROGRAM_BUDGET = 300;
const MARKS = ['mp-current', 'mp-done', 'mp-read', 'mp-written', 'mp-selected', 'mp-removed', 'mp-added', 'mp-fused',
  'mp-fused-away', 'mp-source-match'];

export type ProgramNode =
  | { kind: 'op'; program: string; block: number; op: ProgramOp }
  | { kind: 'var'; program: string; block: number; v: ProgramVar | null; name: string };

export interface ProgramGraph {
  dot: string;
  nodes: Map<string, ProgramNode>;
  compact: boolean;
}

/** What graph id `id` names in `program` (an op, a variable), or null. */
export function programNode(program: ProgramDoc, id: string): ProgramNode | null {
  const m = /^(P\d+):b(\d+):(?:op(\d+)|v:([\s\S]*))$/.exec(id);
  if (!m || m[1] !== program.id) return null;
  const block = Number(m[2]);
  const b = program.blocks[block];
  if (!b) return null;
  if (m[3] !== undefined) {
    const op = b.ops[Number(m[3])];
    return op ? { kind: 'op', program: program.id, block, op } : null;
  }
  return { kind: 'var', program: program.id, block, name: m[4], v: b.vars.find(v => v.name === m[4]) ?? null };
}

function shapeOf(v: ProgramVar | null | undefined): string {
  if (!v) return '';
  const shape = `[${v.shape.map(d => (d < 0 ? '?' : String(d))).join(', ')}]`;
  return v.dtype === 'float32' ? shape : `${shape} ${v.dtype}`;
}

function clip(text: string, n = 40): string {
  return text.length > n ? text.slice(0, n - 1) + '…' : text;
}

function varKind(v: ProgramVar | null): string {
  if (v?.is_parameter) return 'parameter';
  if (v?.is_data) return 'data';
  return v?.persistable ? 'persistable' : 'var';
}

/** The op owning sub-block `k` (a cond / while op), with its place in that op's sub_blocks. */
function ownerOf(program: ProgramDoc, k: number): { block: number; op: ProgramOp; slot: number } | null {
  for (const b of program.blocks) {
    for (const op of b.ops) {
      const slot = op.sub_blocks.indexOf(k);
      if (slot >= 0) return { block: b.idx, op, slot };
    }
  }
  return null;
}

/** The program as Graphviz DOT: ops as boxes, variables as ellipses, sub-blocks as clusters. */
export function programGraph(program: ProgramDoc, budget = PROGRAM_BUDGET): ProgramGraph {
  const nodes = new Map<string, ProgramNode>();
  const pid = program.id;
  const varRef = (block: number, name: string) => {
    const home = declaringBlock(program, block, name);
    return { id: programVarId(pid, home, name), home, v: program.blocks[home]?.vars.find(v => v.name === name) ?? null };
  };
  let used = 0;
  const seenVars = new Set<string>();
  for (const b of program.blocks) {
    used += b.ops.length;
    for (const op of b.ops) {
      for (const n of [...Object.values(op.inputs), ...Object.values(op.outputs)].flat()) if (n) seenVars.add(varRef(b.idx, n).id);
    }
  }
  const compact = used + seenVars.size > budget;
  const lines: Map<number, string[]> = new Map(program.blocks.map(b => [b.idx, []]));
  const edges: string[] = [];
  const producer = new Map<string, string>();
  const drawVar = (block: number, name: string): string | null => {
    const { id, home, v } = varRef(block, name);
    if (compact && !(v?.is_parameter || v?.is_data)) return null;
    if (!nodes.has(id)) {
      nodes.set(id, { kind: 'var', program: pid, block: home, v, name });
      const kind = varKind(v);
      const extra = kind === 'parameter' ? ', peripheries=2' : kind === 'data' ? ', style="filled,bold"' : '';
      lines.get(home)?.push(`${quote(id)} [label=${quote(clip(name) + '\n' + shapeOf(v))}, shape=ellipse, style=filled${extra}, class=${quote('mp-kind-' + kind)}];`);
    }
    return id;
  };
  const slotEdge = (slot: string) => (nodes.size <= 150 && slot ? `, label=${quote(slot)}` : '');
  for (const b of program.blocks) {
    for (const op of b.ops) {
      const id = programOpId(pid, b.idx, op.index);
      nodes.set(id, { kind: 'op', program: pid, block: b.idx, op });
      const outs = Object.values(op.outputs).flat().filter(n => n);
      const label = op.type + (outs.length ? '\n→ ' + clip(outs.join(', '), 32) : '');
      const cls = `mp-kind-op mp-role-${op.role}` + (op.type.startsWith('fused') ? ' mp-kind-fused' : '');
      lines.get(b.idx)?.push(`${quote(id)} [label=${quote(label)}, shape=box, style="rounded,filled", class=${quote(cls)}];`);
      for (const [slot, names] of Object.entries(op.inputs)) {
        for (const n of names.filter(x => x)) {
          const from = producer.get(varRef(b.idx, n).id);
          const vid = drawVar(b.idx, n);
          if (vid !== null) edges.push(`${quote(vid)} -> ${quote(id)} [class="mp-edge-input"${slotEdge(slot)}];`);
          else if (from !== undefined && from !== id) edges.push(`${quote(from)} -> ${quote(id)} [class="mp-edge-input", label=${quote(clip(n, 20))}];`);
        }
      }
      for (const [slot, names] of Object.entries(op.outputs)) {
        for (const n of names.filter(x => x)) {
          producer.set(varRef(b.idx, n).id, id);
          const vid = drawVar(b.idx, n);
          if (vid !== null) edges.push(`${quote(id)} -> ${quote(vid)} [class="mp-edge-output"${slotEdge(slot)}];`);
        }
      }
    }
  }
  const out = [
    'digraph program {',
    '  graph [rankdir=TB, compound=true, fontname="Helvetica", fontsize=10, nodesep=0.25, ranksep=0.3, bgcolor=transparent];',
    '  node [fontname="Helvetica", fontsize=10, height=0.3, margin="0.08,0.03", fillcolor=white];',
    '  edge [fontname="Helvetica", fontsize=8, arrowsize=0.6];'
  ];
  const kids = new Map<number, number[]>();
  for (const b of program.blocks) if (b.idx > 0) kids.set(b.parent, [...(kids.get(b.parent) ?? []), b.idx]);
  const emit = (k: number, indent: string, seen: Set<number>) => {
    if (seen.has(k)) return;
    seen.add(k);
    for (const line of lines.get(k) ?? []) out.push(indent + line);
    for (const c of kids.get(k) ?? []) {
      const owner = ownerOf(program, c);
      const label = `block ${c}` + (owner ? ` · ${owner.op.type} (op ${owner.op.index})` + (owner.op.sub_blocks.length > 1 ? ` #${owner.slot}` : '') : '');
      out.push(`${indent}subgraph ${quote(`cluster_${pid}:b${c}`)} {`);
      out.push(`${indent}  label=${quote(label)}; class="mp-cluster-block"; style="rounded,dashed"; fontsize=9;`);
      emit(c, indent + '  ', seen);
      out.push(`${indent}}`);
    }
  };
  emit(0, '  ', new Set());
  out.push(...edges.map(e => '  ' + e));
  for (const b of program.blocks) {  // a dashed edge from the owning op into its sub-block's cluster
    const owner = b.idx > 0 ? ownerOf(program, b.idx) : null;
    const first = b.ops[0];
    if (!owner || !first) continue;
    out.push(`  ${quote(programOpId(pid, owner.block, owner.op.index))} -> ${quote(programOpId(pid, b.idx, first.index))} ` +
      `[lhead=${quote(`cluster_${pid}:b${b.idx}`)}, style=dashed, class="mp-edge-subblock"];`);
  }
  out.push('}');
  return { dot: out.join('\n'), nodes, compact };
}

export interface DiffMarks {
  before: Map<string, string[]>;
  after: Map<string, string[]>;
  /** fused op id (in AFTER) -> the ops of BEFORE it replaced */
  replaced: Map<string, OpRef[]>;
}

function addMark(marks: Map<string, string[]>, id: string, cls: string): void {
  const list = marks.get(id) ?? [];
  if (!list.includes(cls)) list.push(cls);
  marks.set(id, list);
}

function varKeys(program: ProgramDoc | undefined): Set<string> {
  return new Set((program?.blocks ?? []).flatMap(b => b.vars.map(v => `${b.idx}:${v.name}`)));
}

/** Which nodes a pass diff highlights: removed ops (and variables gone) in BEFORE, added and fused
 * ops (and new variables) in AFTER, the ops a fused op replaced. */
export function diffMarks(diff: PassDiff, before?: ProgramDoc, after?: ProgramDoc): DiffMarks {
  const marks: DiffMarks = { before: new Map(), after: new Map(), replaced: new Map() };
  for (const r of diff.removed) addMark(marks.before, programOpId(diff.before, r.block, r.index), 'mp-removed');
  for (const r of diff.added) addMark(marks.after, programOpId(diff.after, r.block, r.index), 'mp-added');
  for (const f of diff.fused) {
    const id = programOpId(diff.after, f.into.block, f.into.index);
    addMark(marks.after, id, 'mp-fused');
    marks.replaced.set(id, f.from);
    for (const r of f.from) addMark(marks.before, programOpId(diff.before, r.block, r.index), 'mp-fused-away');
  }
  if (before && after) {
    const [a, b] = [varKeys(before), varKeys(after)];
    for (const key of a) if (!b.has(key)) addMark(marks.before, `${diff.before}:b${key.replace(':', ':v:')}`, 'mp-removed');
    for (const key of b) if (!a.has(key)) addMark(marks.after, `${diff.after}:b${key.replace(':', ':v:')}`, 'mp-added');
  }
  return marks;
}

/** dy2static: which ops each line of the original source produced, and each op's line. */
export function sourceLinks(program: ProgramDoc): { opsOfLine: Map<number, string[]>; lineOfOp: Map<string, number> } {
  const opsOfLine = new Map<number, string[]>();
  const lineOfOp = new Map<string, number>();
  const origin = program.origin;
  for (const b of program.blocks) {
    for (const op of b.ops) {
      const src = op.source;
      if (!src || (origin && src.file && origin.file && src.file !== origin.file)) continue;
      const id = programOpId(program.id, b.idx, op.index);
      lineOfOp.set(id, src.line);
      opsOfLine.set(src.line, [...(opsOfLine.get(src.line) ?? []), id]);
    }
  }
  return { opsOfLine, lineOfOp };
}

/** The programs' runs, feeds included: the last summary of variable `name` at or before run step `upto`. */
export function summaryAt(run: ProgramRun, name: string, upto: number): TensorSummary | null {
  let found: TensorSummary | null = run.feed[name] ?? null;
  for (let i = 0; i <= upto && i < run.steps.length; i++) found = run.steps[i].outputs?.[name] ?? found;
  return found;
}

export interface ProgramViewOptions {
  layout?: (dot: string) => Promise<string>;
}

/** One drawn program graph: the SVG, its nodes by id, clicks, Ctrl+wheel zoom and drag pan. */
class GraphPane {
  readonly node: HTMLDivElement;
  readonly graphEl: HTMLDivElement;
  nodeEls = new Map<string, SVGGElement>();
  program: ProgramDoc | null = null;
  private svg: SVGSVGElement | null = null;
  private box: number[] = [0, 0, 100, 100];
  private baseBox: number[] = [0, 0, 100, 100];
  private token = 0;

  constructor(side: string, private layout: (dot: string) => Promise<string>, private onClick: (id: string) => void) {
    this.node = el('div', 'mp-program-pane');
    this.graphEl = el('div', 'mp-program-graph');
    this.graphEl.dataset.testid = 'mp-program-graph';
    this.graphEl.dataset.side = side;
    this.node.append(el('div', 'mp-pane-title'), this.graphEl);
    this.installPanZoom();
  }

  async draw(program: ProgramDoc, title: string): Promise<void> {
    const token = ++this.token;
    this.program = program;
    (this.node.firstChild as HTMLElement).textContent = title;
    const graph = programGraph(program);
    this.graphEl.dataset.programId = program.id;
    this.graphEl.classList.add('mp-busy');
    let text: string;
    try {
      text = await this.layout(graph.dot);
    } catch (err) {
      if (token === this.token) this.graphEl.replaceChildren(el('div', 'mp-error', `The program could not be laid out: ${String(err)}`));
      return;
    } finally {
      if (token === this.token) this.graphEl.classList.remove('mp-busy');
    }
    if (token !== this.token) return;
    const svg = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement as unknown as SVGSVGElement;
    if (svg.nodeName !== 'svg') return;
    this.graphEl.replaceChildren(document.importNode(svg, true));
    this.svg = this.graphEl.querySelector('svg');
    this.index();
  }

  /** Back to the whole graph. */
  fit(): void {
    this.box = [...this.baseBox];
    this.applyBox();
  }

  /** Zoom about the centre (factor < 1 zooms in). */
  zoom(factor: number): void {
    const [x, y, w, h] = this.box;
    const nw = Math.min(Math.max(w * factor, 10), this.baseBox[2] * 4);
    const nh = (h * nw) / w;
    this.box = [x + (w - nw) / 2, y + (h - nh) / 2, nw, nh];
    this.applyBox();
  }

  private applyBox(): void {
    this.svg?.setAttribute('viewBox', this.box.map(v => v.toFixed(1)).join(' '));
  }

  private index(): void {
    this.nodeEls.clear();
    const svg = this.svg;
    if (!svg) return;
    const vb = (svg.getAttribute('viewBox') ?? '0 0 100 100').split(/[\s,]+/).map(Number);
    this.baseBox = vb.length === 4 && vb.every(Number.isFinite) ? vb : [0, 0, 100, 100];
    this.box = [...this.baseBox];
    svg.removeAttribute('width');
    svg.removeAttribute('height');
    svg.setAttribute('preserveAspectRatio', 'xMidYMin meet');
    svg.querySelectorAll('title').forEach(t => {
      if (t.parentElement?.tagName.toLowerCase() === 'svg') t.remove();
    });
    for (const g of Array.from(svg.querySelectorAll<SVGGElement>('g.node, g.edge, g.cluster'))) {
      g.removeAttribute('id'); // several outputs share a page
      if (!g.classList.contains('node')) continue;
      const id = g.querySelector('title')?.textContent ?? '';
      g.setAttribute('data-node-id', id);
      this.nodeEls.set(id, g);
      g.addEventListener('click', e => {
        e.stopPropagation();
        this.onClick(id);
      });
    }
  }

  /** Set the highlight classes: exactly `marks` (id -> classes), the rest cleared. */
  mark(marks: Map<string, string[]>): void {
    for (const [id, g] of this.nodeEls) {
      g.classList.remove(...MARKS);
      const cls = marks.get(id);
      if (cls) g.classList.add(...cls);
    }
  }

  private installPanZoom(): void {
    let drag: { x: number; y: number; box: number[] } | null = null;
    this.graphEl.addEventListener('wheel', e => {
      if (!(e.ctrlKey || e.metaKey) || !this.svg) return; // a plain wheel scrolls the notebook
      e.preventDefault();
      this.zoom(e.deltaY > 0 ? 1.15 : 1 / 1.15);
    }, { passive: false });
    this.graphEl.addEventListener('pointerdown', e => {
      if (e.button === 0 && this.svg) drag = { x: e.clientX, y: e.clientY, box: [...this.box] };
    });
    this.graphEl.addEventListener('pointermove', e => {
      if (!drag || !this.svg) return;
      const r = this.svg.getBoundingClientRect();
      const scale = r.width ? drag.box[2] / r.width : 1;
      const dx = (e.clientX - drag.x) * scale;
      const dy = (e.clientY - drag.y) * scale;
      if (Math.abs(dx) + Math.abs(dy) < 2 * scale) return;
      this.box = [drag.box[0] - dx, drag.box[1] - dy, drag.box[2], drag.box[3]];
      this.applyBox();
    });
    const end = () => (drag = null);
    this.graphEl.addEventListener('pointerup', end);
    this.graphEl.addEventListener('pointerleave', end);
  }
}

function row(table: HTMLElement, key: string, value: string | Node): void {
  const tr = el('tr');
  tr.appendChild(el('th', undefined, key));
  const td = el('td');
  if (typeof value === 'string') td.textContent = value;
  else td.appendChild(value);
  tr.appendChild(td);
  table.appendChild(tr);
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
  else if (t.values_omitted) box.appendChild(el('div', 'mp-muted', `values not kept (${t.values_omitted})`));
  return box;
}

/** The Program tab (data-testid mp-program-view): program select, pass list, run stepping, graph(s),
 * inspector, dy2static source, the program's text. */
export class ProgramView {
  readonly node: HTMLDivElement;
  readonly programs: Map<string, ProgramDoc>;
  program: ProgramDoc;
  diff: PassDiff | null = null;
  run: ProgramRun | null = null;
  model: StepModel | null = null;
  selected: string | null = null;
  selectedLine: number | null = null;
  /** resolves when the graph(s) for the current choice are drawn */
  ready: Promise<void> = Promise.resolve();
  private layout: (dot: string) => Promise<string>;
  private main: GraphPane;
  private before: GraphPane;
  private after: GraphPane;
  private select: HTMLSelectElement;
  private runBar: HTMLDivElement;
  private runSelect: HTMLSelectElement;
  private slider: HTMLInputElement;
  private runLabel: HTMLSpanElement;
  private runButtons: HTMLButtonElement[] = [];
  private passList: HTMLDivElement;
  private inspector: HTMLDivElement;
  private sources: HTMLDivElement;
  private textEl: HTMLPreElement;
  private marks: DiffMarks | null = null;
  private links = sourceLinks({ id: '', name: '', role: '', text: '', blocks: [], origin: null });

  constructor(private doc: { programs?: ProgramDoc[]; pass_diffs?: PassDiff[]; program_runs?: ProgramRun[] },
    options: ProgramViewOptions = {}) {
    this.layout = options.layout ?? layoutSvg;
    const programs = doc.programs ?? [];
    this.programs = new Map(programs.map(p => [p.id, p]));
    const runs = doc.program_runs ?? [];
    // the program the latest run ran (in a training loop: the optimized program), else the first
    this.program = this.programs.get(runs[runs.length - 1]?.program ?? '') ?? programs[0];
    this.node = el('div', 'mp-program-view');
    this.node.dataset.testid = 'mp-program-view';
    const bar = el('div', 'mp-toolbar');
    bar.appendChild(el('span', 'mp-muted', 'program'));
    this.select = el('select', 'mp-view mp-program-select');
    this.select.dataset.testid = 'mp-program-select';
    for (const p of programs) {
      const o = el('option', undefined, `${p.id} · ${p.name} (${p.role}, ${p.blocks.reduce((n, b) => n + b.ops.length, 0)} ops)`);
      o.value = p.id;
      this.select.appendChild(o);
    }
    this.select.addEventListener('change', () => this.showProgram(this.select.value));
    bar.appendChild(this.select);
    this.runBar = el('div', 'mp-run-bar');
    this.runSelect = el('select', 'mp-view');
    this.runSelect.dataset.testid = 'mp-run-select';
    this.runSelect.addEventListener('change', () => this.showRun(Number(this.runSelect.value)));
    const button = (id: string, text: string, title: string, action: () => void) => {
      const b = el('button', 'mp-button', text);
      b.type = 'button';
      b.dataset.testid = id;
      b.title = title;
      b.addEventListener('click', action);
      this.runButtons.push(b);
      return b;
    };
    this.slider = el('input', 'mp-scrubber');
    this.slider.type = 'range';
    this.slider.min = '0';
    this.slider.dataset.testid = 'mp-run-step';
    this.slider.title = 'Executor run: drag to any executed op';
    this.slider.addEventListener('input', () => this.model?.seek(Number(this.slider.value)));
    this.runLabel = el('span', 'mp-step-label');
    this.runLabel.dataset.testid = 'mp-run-label';
    this.runBar.append(el('span', 'mp-muted', 'run'), this.runSelect,
      button('mp-run-back', '◀', 'Previous op (←)', () => this.model?.back()), this.slider,
      button('mp-run-forward', '▶|', 'Next op (→, F10)', () => this.model?.forward()), this.runLabel);
    bar.appendChild(this.runBar);
    const panes = () => (this.diff ? [this.before, this.after] : [this.main]);
    for (const [id, text, title, act] of [
      ['mp-program-fit', '⤢', 'Fit the graph', (p: GraphPane) => p.fit()],
      ['mp-program-zoom-in', '+', 'Zoom in (Ctrl+wheel)', (p: GraphPane) => p.zoom(0.8)],
      ['mp-program-zoom-out', '−', 'Zoom out', (p: GraphPane) => p.zoom(1.25)]
    ] as [string, string, string, (p: GraphPane) => void][]) {
      const b = el('button', 'mp-button', text);
      b.type = 'button';
      b.dataset.testid = id;
      b.title = title;
      b.addEventListener('click', () => panes().forEach(act));
      bar.appendChild(b);
    }
    this.node.appendChild(bar);
    this.passList = el('div', 'mp-pass-list');
    this.passList.dataset.testid = 'mp-pass-list';
    this.fillPassList();
    this.node.appendChild(this.passList);
    const body = el('div', 'mp-main');
    const graphs = el('div', 'mp-program-graphs');
    const click = (id: string) => this.selectNode(id);
    this.main = new GraphPane('main', this.layout, click);
    this.before = new GraphPane('before', this.layout, click);
    this.after = new GraphPane('after', this.layout, click);
    graphs.append(this.main.node, this.before.node, this.after.node);
    this.inspector = el('div', 'mp-inspector mp-program-inspector');
    this.inspector.dataset.testid = 'mp-program-inspector';
    body.append(graphs, this.inspector);
    this.node.appendChild(body);
    this.sources = el('div', 'mp-sources');
    this.node.appendChild(this.sources);
    const details = el('details', 'mp-program-text');
    details.appendChild(el('summary', undefined, 'program text'));
    this.textEl = el('pre');
    this.textEl.dataset.testid = 'mp-program-text';
    details.appendChild(this.textEl);
    this.node.appendChild(details);
    if (this.program) this.showProgram(this.program.id);
  }

  private fillPassList(): void {
    const diffs = [...(this.doc.pass_diffs ?? [])].sort((a, b) => a.step - b.step);
    this.passList.hidden = diffs.length === 0;
    this.passList.replaceChildren(el('span', 'mp-muted', 'passes'));
    for (const d of diffs) {
      const item = el('button', 'mp-pass-item' + (d.changed ? '' : ' mp-unchanged'));
      item.type = 'button';
      item.dataset.testid = 'mp-pass-item';
      item.dataset.pass = d.pass;
      item.title = d.summary;
      item.append(el('span', 'mp-pass-name', `${d.step}. ${d.pass}`),
        el('span', 'mp-muted', ` ${d.ops_before}→${d.ops_after} ops · ${d.time_ms.toFixed(2)} ms`));
      item.addEventListener('click', () => this.showDiff(this.diff === d ? null : d));
      this.passList.appendChild(item);
    }
  }

  /** Show program `id` alone (leaving a pass diff), with its first run ready to step. */
  showProgram(id: string): void {
    const p = this.programs.get(id);
    if (!p) return;
    this.program = p;
    this.diff = null;
    this.marks = null;
    this.selected = null;
    this.selectedLine = null;
    this.select.value = id;
    this.links = sourceLinks(p);
    this.textEl.textContent = p.text;
    const runs = (this.doc.program_runs ?? []).filter(r => r.program === id);
    this.runSelect.replaceChildren(...runs.map((r, i) => {
      const o = el('option', undefined, `run ${r.run} (${r.steps.length} ops${r.steps_dropped ? `, ${r.steps_dropped} dropped` : ''})`);
      o.value = String(i);
      return o;
    }));
    this.runSelect.hidden = runs.length < 2;
    this.runBar.hidden = runs.length === 0;
    this.showRun(0);
    this.renderSources();
    this.setLayout(false);
    this.ready = this.main.draw(p, `${p.id} · ${p.name}`).then(() => this.update());
    this.update();
  }

  showRun(i: number): void {
    const runs = (this.doc.program_runs ?? []).filter(r => r.program === this.program.id);
    this.run = runs[i] ?? null;
    this.model = this.run ? new StepModel(programRunSteps(this.program, this.run)) : null;
    this.model?.onChange(() => {
      this.selected = null;
      this.update();
    });
    this.slider.max = String(Math.max(0, (this.model?.length ?? 1) - 1));
    this.update();
  }

  /** Show a pass's before and after programs side by side (null: back to the program alone). */
  showDiff(diff: PassDiff | null): void {
    if (diff === null) {  // back to the program as it was: same run, same step, graph already drawn
      this.diff = null;
      this.marks = null;
      this.selected = null;
      this.setLayout(false);
      this.update();
      return;
    }
    const before = this.programs.get(diff.before);
    const after = this.programs.get(diff.after);
    this.diff = diff;
    this.selected = null;
    this.marks = diffMarks(diff, before, after);
    this.setLayout(true);
    const draws: Promise<void>[] = [];
    if (before) draws.push(this.before.draw(before, `before ${diff.pass}: ${before.id} · ${diff.ops_before} ops`));
    if (after) draws.push(this.after.draw(after, `after ${diff.pass}: ${after.id} · ${diff.ops_after} ops`));
    this.ready = Promise.all(draws).then(() => this.update());
    this.update();
  }

  private setLayout(diff: boolean): void {
    this.main.node.hidden = diff;
    this.before.node.hidden = !diff;
    this.after.node.hidden = !diff;
    this.runBar.hidden = diff || !this.run;
    for (const item of Array.from(this.passList.children)) {
      const d = (item as HTMLElement).dataset.pass;
      item.classList.toggle('mp-active', diff && this.diff !== null && d === this.diff.pass);
    }
    this.sources.hidden = diff || this.program.origin?.kind !== 'dy2static';
  }

  selectNode(id: string): void {
    this.selected = id;
    const line = this.links.lineOfOp.get(id);
    this.selectedLine = this.diff === null && line !== undefined ? line : null;
    this.update();
    if (this.selectedLine !== null) this.sources.querySelector(`[data-line="${this.selectedLine}"]`)?.scrollIntoView?.({ block: 'nearest' });
  }

  /** dy2static: a click on a source line highlights the ops it produced. */
  selectLine(line: number): void {
    this.selectedLine = line;
    const ops = this.links.opsOfLine.get(line) ?? [];
    this.selected = ops[0] ?? null;
    this.update();
  }

  onKey(e: KeyboardEvent): boolean {
    const m = this.model;
    if (!m || this.diff !== null) return false;
    const actions: Record<string, () => void> = {
      ArrowRight: () => m.forward(), F10: () => m.forward(), ArrowLeft: () => m.back(), Home: () => m.reset(),
      End: () => m.seek(m.length - 1), F11: () => (e.shiftKey ? m.out() : m.forward())
    };
    const action = actions[e.key];
    if (!action) return false;
    action();
    return true;
  }

  /** The current run step's info, or null when no run is shown. */
  private currentStep() {
    return this.model && this.diff === null ? this.model.current : null;
  }

  update(): void {
    const m = this.model;
    this.runLabel.textContent = m ? m.label() : '';
    if (m) this.slider.value = String(m.index);
    const [back, fwd] = this.runButtons;
    if (back) back.disabled = !m || m.index <= 0;
    if (fwd) fwd.disabled = !m || m.atEnd;
    if (this.diff !== null && this.marks !== null) {
      const sel = (marks: Map<string, string[]>) => {
        const out = new Map(marks);
        if (this.selected) out.set(this.selected, [...(out.get(this.selected) ?? []), 'mp-selected']);
        return out;
      };
      this.before.mark(sel(this.marks.before));
      this.after.mark(sel(this.marks.after));
    } else this.main.mark(this.runMarks());
    this.markSources();
    this.renderInspector();
  }

  private runMarks(): Map<string, string[]> {
    const marks = new Map<string, string[]>();
    const s = this.currentStep();
    if (s && this.model) {
      for (let i = 0; i < this.model.index; i++) addMark(marks, this.model.steps[i].node ?? '', 'mp-done');
      for (const v of s.reads) addMark(marks, v, 'mp-read');
      for (const v of s.writes) addMark(marks, v, 'mp-written');
      if (s.node) addMark(marks, s.node, 'mp-current');
    }
    if (this.selectedLine !== null) for (const id of this.links.opsOfLine.get(this.selectedLine) ?? []) addMark(marks, id, 'mp-source-match');
    if (this.selected) addMark(marks, this.selected, 'mp-selected');
    return marks;
  }

  // ---- dy2static source ------------------------------------------------------------------------
  private renderSources(): void {
    const origin = this.program.origin;
    this.sources.replaceChildren();
    if (!origin || origin.kind !== 'dy2static') return;
    const pane = (testid: string, title: string, text: string, first: number | null) => {
      const box = el('div', 'mp-source-pane');
      box.appendChild(el('div', 'mp-pane-title', title));
      const code = el('div', 'mp-source');
      code.dataset.testid = testid;
      text.replace(/\n$/, '').split('\n').forEach((line, i) => {
        const div = el('div', 'mp-source-line');
        const n = first === null ? i + 1 : first + i;
        div.dataset.line = String(n);
        div.append(el('span', 'mp-line-no', String(n)), el('span', 'mp-line-code', line || ' '));
        if (first !== null) {
          if (this.links.opsOfLine.has(n)) div.classList.add('mp-has-ops');
          div.addEventListener('click', () => this.selectLine(n));
        }
        code.appendChild(div);
      });
      box.appendChild(code);
      return box;
    };
    this.sources.append(
      pane('mp-source-original', `${origin.function} · ${origin.file}:${origin.first_line}`, origin.original_source, origin.first_line),
      pane('mp-source-transformed', 'transformed by to_static', origin.transformed_source, null));
  }

  private markSources(): void {
    const ops = this.selectedLine !== null ? this.links.opsOfLine.get(this.selectedLine) ?? [] : [];
    for (const line of Array.from(this.sources.querySelectorAll<HTMLElement>('[data-testid="mp-source-original"] .mp-source-line'))) {
      line.classList.toggle('mp-source-current', Number(line.dataset.line) === this.selectedLine);
      line.title = Number(line.dataset.line) === this.selectedLine ? `${ops.length} op(s) from this line` : '';
    }
  }

  // ---- inspector ---------------------------------------------------------------------------------
  private renderInspector(): void {
    const out = this.inspector;
    out.replaceChildren();
    const s = this.currentStep();
    const id = this.selected ?? s?.node ?? null;
    const program = this.diff === null ? this.program : this.programs.get(id?.split(':')[0] ?? '') ?? this.program;
    const node = id ? programNode(program, id) : null;
    if (node === null) {
      out.appendChild(el('div', 'mp-muted', this.diff ? `${this.diff.pass}: ${this.diff.summary}` : 'Click an op or a variable, or step the run, to inspect it.'));
      return;
    }
    if (node.kind === 'op') this.opInspector(node.op, node.block, id!, out);
    else this.varInspector(node.name, node.v, id!, out);
  }

  private opInspector(op: ProgramOp, block: number, id: string, out: HTMLElement): void {
    out.appendChild(el('div', 'mp-inspector-title', `${op.type} · ${id}`));
    const table = el('table', 'mp-props');
    row(table, 'type', op.type);
    row(table, 'where', `block ${block}${blockPath(this.programs.get(id.split(':')[0]) ?? this.program, block) ? ' (sub-block)' : ''}, op ${op.index}`);
    row(table, 'role', op.role);
    const program = this.programs.get(id.split(':')[0]) ?? this.program;
    const slot = (slots: Record<string, string[]>) => Object.entries(slots).map(([k, names]) =>
      `${k}: ${names.filter(n => n).map(n => `${n} ${shapeOf(program.blocks[declaringBlock(program, block, n)]?.vars.find(v => v.name === n))}`.trim()).join(', ')}`).join('\n');
    row(table, 'inputs', el('code', 'mp-slots', slot(op.inputs) || '–'));
    row(table, 'outputs', el('code', 'mp-slots', slot(op.outputs) || '–'));
    for (const [k, value] of Object.entries(op.attrs)) row(table, k, attrValue(value));
    if (op.sub_blocks.length) row(table, 'sub-blocks', op.sub_blocks.map(b => `block ${b}`).join(', '));
    if (op.source) row(table, 'source', el('code', undefined, `${op.source.file}:${op.source.line}  ${op.source.code}`));
    const replaced = this.marks?.replaced.get(id);
    if (replaced) row(table, 'replaces', replaced.map(r => `${r.type} (op ${r.index}${r.block ? `, block ${r.block}` : ''})`).join(', '));
    const fused = this.diff?.fused.find(f => programOpId(this.diff!.after, f.into.block, f.into.index) === id);
    if (fused?.expression) row(table, 'expression', el('code', 'mp-slots', fused.expression.replace(/; /g, '\n')));
    if (fused?.kernel) row(table, 'kernel', fused.kernel);
    const cls = (this.diff ? (id.startsWith(this.diff.before + ':') ? this.marks?.before : this.marks?.after) : undefined)?.get(id) ?? [];
    if (cls.includes('mp-removed')) row(table, 'pass', `removed by ${this.diff?.pass}`);
    if (cls.includes('mp-fused-away')) row(table, 'pass', `fused away by ${this.diff?.pass}`);
    if (cls.includes('mp-added')) row(table, 'pass', `added by ${this.diff?.pass}`);
    out.appendChild(table);
    const s = this.currentStep();
    if (!s || s.node !== id || !this.run || !this.model) return;
    const rs = this.run.steps[this.model.index];
    const t2 = el('table', 'mp-props');
    row(t2, 'run step', `${this.model.index + 1} / ${this.model.length} (run ${this.run.run})`);
    row(t2, 'time', duration(rs.time_ns));
    out.appendChild(t2);
    for (const [name, summary] of Object.entries(rs.outputs ?? {})) {
      const box = el('div', 'mp-tensor');
      box.appendChild(el('div', 'mp-tensor-head', `out ${name}`));
      box.appendChild(summaryBox('value', summary));
      out.appendChild(box);
    }
  }

  private varInspector(name: string, v: ProgramVar | null, id: string, out: HTMLElement): void {
    out.appendChild(el('div', 'mp-inspector-title', `${name} · ${id}`));
    const table = el('table', 'mp-props');
    row(table, 'variable', name);
    row(table, 'shape', `${shapeOf(v)} ${v?.dtype ?? ''}`.trim() || '?');
    row(table, 'kind', varKind(v) + (v?.stop_gradient ? ' · stop_gradient' : ''));
    out.appendChild(table);
    if (!this.run || this.diff !== null) return;
    const upto = this.model?.index ?? this.run.steps.length - 1;
    out.appendChild(summaryBox(this.run.feed[name] ? 'fed' : 'value at this step', summaryAt(this.run, name, upto)));
    if (this.run.fetch[name]) out.appendChild(summaryBox('fetched', this.run.fetch[name]));
  }
}
