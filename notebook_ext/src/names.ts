/**
 * The learner's names for things: a weight is `fc1.weight` (its state_dict key, schema 1.2's
 * `structured_name`) as well as Paddle's `linear_0.w_0`; search finds nodes by either, by op name and
 * by layer path; a source location in a notebook cell reads "cell [11], line 4".
 */
import type { SourceRef, TensorRec } from './schema';
import type { TraceIndex } from './trace_index';
import type { GraphView } from './views';

/** "fc1.weight (linear_0.w_0)", or the one name there is. */
export function tensorName(t: TensorRec | undefined, fallback = ''): string {
  if (!t) return fallback;
  const structured = t.structured_name ?? null;
  if (structured && t.name && structured !== t.name) return `${structured} (${t.name})`;
  return structured ?? t.name ?? fallback;
}

/** The words a node can be found by: op names, layer paths, tensor names of both kinds. */
function words(idx: TraceIndex, ref: string): string[] {
  const op = idx.nodes.get(ref);
  if (op) return [op.op, op.layer ?? ''];
  const g = idx.gradNodes.get(ref);
  if (g) {
    const t = g.tensor ? idx.tensors.get(g.tensor) : undefined;
    return [g.name, t?.name ?? '', t?.structured_name ?? ''];
  }
  const t = idx.tensors.get(ref);
  if (t) return [t.name ?? '', t.structured_name ?? ''];
  return [];
}

/** View nodes matching `query` (case-insensitive substring of any of their words, or their id). */
export function searchMatches(idx: TraceIndex, view: GraphView, query: string): string[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  return view.nodes.filter(n => {
    if (n.label.toLowerCase().includes(q) || n.id.toLowerCase() === q) return true;
    return n.refs.some(r => words(idx, r).some(w => w.toLowerCase().includes(q)));
  }).map(n => n.id);
}

/** "cell [11], line 4" for a notebook cell, else "file.py:4". */
export function sourceText(src: SourceRef): string {
  if (typeof src.cell === 'number') return `cell [${src.cell}], line ${src.line}`;
  const file = src.file.split('/').pop() ?? src.file;
  return `${file}:${src.line}`;
}
