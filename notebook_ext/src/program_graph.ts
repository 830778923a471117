/**
 * A static Program (the trace document's `programs`) as a graph, in pure functions the Program tab
 * (program_view.ts) draws and the unit tests check: the Graphviz DOT of a program (ops as boxes,
 * variables as ellipses, parameters double-ringed, the sub-blocks of cond / while as clusters hung off
 * the op that owns them), what a pass diff highlights, which ops each dy2static source line made.
 *
 * Node ids follow the spec: `P0:b0:op3` for an op, `P0:b0:v:x` for a variable (the block that
 * declares it). Names from user code go into DOT through `quote`, which escapes them.
 */
import { OpRef, PassDiff, ProgramDoc, ProgramOp, ProgramRun, ProgramVar, TensorSummary } from './schema';
import { declaringBlock, programOpId, programVarId } from './steps';
import { quote } from './dot';

/** Above this many ops + variables only parameters and data variables are drawn (ops link op to op). */
export const PROGRAM_BUDGET = 300;

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

export function shapeOf(v: ProgramVar | null | undefined): string {
  if (!v) return '';
  const shape = `[${v.shape.map(d => (d < 0 ? '?' : String(d))).join(', ')}]`;
  return v.dtype === 'float32' ? shape : `${shape} ${v.dtype}`;
}

export function clip(text: string, n = 40): string {
  return text.length > n ? text.slice(0, n - 1) + '…' : text;
}

export function varKind(v: ProgramVar | null): string {
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
    '  graph [rankdir=TB, compound=true, fontname="Helvetica", fontsize=11, nodesep=0.25, ranksep=0.3, bgcolor=transparent];',
    '  node [fontname="Helvetica", fontsize=11, height=0.3, margin="0.08,0.03", fillcolor=white];',
    '  edge [fontname="Helvetica", fontsize=10, arrowsize=0.6];'
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
      out.push(`${indent}  label=${quote(label)}; class="mp-cluster-block"; style="rounded,dashed"; fontsize=11;`);
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

export function addMark(marks: Map<string, string[]>, id: string, cls: string): void {
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

/** The first op (not a variable) of `marks` carrying one of `classes`, in the diff's order: where a pane opens. */
export function firstMarkedOp(marks: Map<string, string[]>, classes: string[]): string | null {
  for (const [id, cls] of marks) if (/^[^:]+:b\d+:op\d+$/.test(id) && cls.some(c => classes.includes(c))) return id;
  return null;
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
