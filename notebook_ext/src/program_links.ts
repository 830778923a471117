/**
 * A run_program node's way into the Program tab. A `@paddle.jit.to_static` Layer that trains runs as one
 * run_program op of the eager graph; its attrs `forward_program` and `backward_program` name the two
 * Programs the document holds (`programs[].name`), and `program_runs` holds the Executor's runs of them.
 * The inspector shows each as a button; the TraceView opens it (TraceView.openProgram) with this call's
 * run selected, so its Executor steps can be stepped. The way back: `programCaller` finds the run_program
 * node whose call made a run of a Program, which the Program tab shows as "run by: run_program #n".
 */
import { OpNode, ProgramDoc } from './schema';
import { TraceIndex } from './trace_index';
import { el } from './format';

/** Opens program `id` in the Program tab with its run numbered `run` selected (TraceView.openProgram). */
export type ProgramOpener = (id: string, run: number | null) => void;

/** The attrs by which a run_program op names its two Programs, and the row each gets. */
export const PROGRAM_ATTRS: [string, string][] = [['forward_program', 'forward Program'], ['backward_program', 'backward Program']];

/** One Program a run_program node stands for: as the document holds it, and the run of it this call made. */
export interface ProgramLink {
  /** the inspector row's title ("forward Program") */
  label: string;
  /** the name the op's attr gives */
  name: string;
  /** the document's program of that name, null where the document has none */
  program: ProgramDoc | null;
  /** the Executor run's number (program_runs[].run), null where the document has none */
  run: number | null;
}

/** The Programs op `n` names (attrs forward_program / backward_program, matched by name). The k-th
 * call of a Program made its k-th run: calls counted in the order they ran (the forward's by the op's
 * step, the backward's by its grad node's backward steps). */
export function programLinks(idx: TraceIndex, n: OpNode, attrs: [string, string][] = PROGRAM_ATTRS): ProgramLink[] {
  const links: ProgramLink[] = [];
  for (const [key, label] of attrs) {
    const name = n.attrs[key];
    if (typeof name !== 'string') continue;
    const program = idx.doc.programs?.find(p => p.name === name) ?? null;
    const k = callsOf(idx, key, name).indexOf(n.id);
    const ran = program !== null && (idx.doc.program_runs ?? []).some(r => r.program === program.id && r.run === k);
    links.push({ label, name, program, run: ran ? k : null });
  }
  return links;
}

/** The ids of the op nodes whose attr `key` names Program `name`, in the order their calls ran it: the
 * forward's by the op's step, the backward's by its grad node's backward steps. Call k made run k. */
function callsOf(idx: TraceIndex, key: string, name: string): string[] {
  const calls = [...idx.nodes.values()].filter(m => m.attrs[key] === name);
  const when: [number, string][] = key === 'forward_program'
    ? calls.map(m => [m.step, m.id])
    : calls.flatMap(m => (idx.backwardStepsOf.get(m.grad_node ?? '') ?? []).map(s => [s.index, m.id] as [number, string]));
  return when.sort((a, b) => a[0] - b[0]).map(([, id]) => id);
}

/** The run_program call that made one run of a Program: the way back from the Program tab to the graph. */
export interface ProgramCaller {
  /** the run_program op node */
  node: string;
  /** its call's number among the calls of this Program (call k made run k) */
  call: number;
  /** which of the node's Programs this one is ("forward Program") */
  label: string;
}

/** The run_program node whose call made run `run` of `program`; null where no run_program op names the
 * Program (an Executor.run of a Program built by hand) or the trace lacks that call. */
export function programCaller(idx: TraceIndex, program: ProgramDoc, run: number | null,
  attrs: [string, string][] = PROGRAM_ATTRS): ProgramCaller | null {
  if (run === null) return null;
  for (const [key, label] of attrs) {
    const calls = callsOf(idx, key, program.name);
    if (calls.length === 0) continue;
    return run < calls.length ? { node: calls[run], call: run, label } : null;
  }
  return null;
}

/** A link as a button that opens its Program (plain text where the document lacks it). */
export function programLinkView(link: ProgramLink, open: ProgramOpener | undefined): HTMLElement {
  const { name, program, run } = link;
  if (!program) return el('span', 'mp-muted', `${name} (not in this trace)`);
  const ops = program.blocks.reduce((a, b) => a + b.ops.length, 0);
  const b = el('button', 'mp-program-link', `${program.id} · ${ops} ops${run === null ? '' : ` · run ${run}`} ↗`);
  b.type = 'button';
  b.dataset.testid = 'mp-program-link';
  b.dataset.programId = program.id;
  b.title = `Open ${program.name} in the Program tab${run === null ? '' : `, its run ${run} ready to step`}`;
  b.disabled = open === undefined;
  b.addEventListener('click', () => open?.(program.id, run));
  return b;
}
