/**
 * The trace document's types (minipaddle/visualizer/schema/trace.schema.json) and the version check.
 *
 * Only the fields the debugger reads are typed; readers ignore fields they do not know, so a newer
 * minor version renders as well as the one it was written against. A major version we do not know
 * is refused with a message, and the renderer falls back to the bundle's text/html.
 */
import type { ProfileSection } from './profile_types';

export const MIME_TYPE = 'application/vnd.minipaddle.trace+json';
export const SUPPORTED_MAJOR = 1;

export type Num = number | 'NaN' | 'Infinity' | '-Infinity';

export interface Histogram {
  min: number;
  max: number;
  counts: number[];
  stride: number;
}

export interface Summary {
  numel: number;
  min: number | null;
  max: number | null;
  mean: Num | null;
  std: Num | null;
  nan_count: number;
  inf_count: number;
  histogram: Histogram | null;
}

export interface Layer {
  path: string;
  name: string;
  parent: string | null;
  depth: number;
  nodes: string[];
}

export interface TensorRec {
  id: string;
  name: string | null;
  shape: number[];
  dtype: string;
  role: 'parameter' | 'input' | 'leaf' | 'activation' | 'gradient';
  stop_gradient: boolean;
  producer: string | null;
  grad_of: string | null;
  grad: string | null;
  states: string[];
  /** schema 1.2: a parameter's state_dict key in the model ("0.weight", "fc1.bias") */
  structured_name?: string | null;
}

export interface State {
  id: string;
  tensor: string;
  step: number;
  version: number;
  summary: Summary;
  values: Num[] | null;
  values_omitted: null | 'mode' | 'size' | 'budget';
}

/** One kernel the autotuner timed: its best time, or why it was left out. */
export interface TuningCandidate {
  name: string;
  time_ns: number | null;
  error: string | null;
}

/** The autotuner's decision for an op call's shape class (schema 1.1, optional). */
export interface KernelTuning {
  shape_class: string | null;
  source: 'tuned' | 'cache';
  candidates: TuningCandidate[];
  winner: string;
  default: string | null;
  step: number | null;
}

/** One entry of the document's top-level `autotune` list. */
export interface AutotuneDecision extends KernelTuning {
  op: string;
  key: string;
  dtype: string | null;
  shapes: number[][];
}

/** CUDA launch dimensions (x, y, z). */
export type Dim3 = [number, number, number];

/** One CUDA kernel launch of a GPU op (schema 1.3). */
export interface KernelLaunch {
  /** the CUDA kernel's name (matmul_tiled_kernel) */
  kernel: string;
  grid: Dim3;
  block: Dim3;
}

export interface Kernel {
  name: string;
  backend: string;
  dtype: string;
  reason: string;
  candidates: string[];
  /** absent in older documents; null when the kernel was not chosen by the autotuner */
  tuning?: KernelTuning | null;
  /** schema 1.3, GPU ops only: the op ran on the GPU (device_time_ns and launches are present) */
  device?: 'gpu';
  /** schema 1.3: the time between two CUDA events around the op's kernels */
  device_time_ns?: number;
  /** schema 1.3: every CUDA kernel the op launched, in order */
  launches?: KernelLaunch[];
  /** schema 1.3: the last launch's grid and block (absent when the op launched no kernel) */
  grid?: Dim3;
  block?: Dim3;
}

export interface OpNode {
  id: string;
  op: string;
  layer: string | null;
  inputs: string[];
  input_states: string[];
  outputs: string[];
  output_states: string[];
  attrs: Record<string, unknown>;
  kernel: Kernel;
  start_ns: number;
  end_ns: number;
  grad_node: string | null;
  nan_inf: null | 'produced' | 'propagated';
  first_nan_inf: boolean;
  step: number;
  /** schema 1.2: tanh/sigmoid saturated or relu dead fraction of the output */
  saturation?: number | null;
  /** schema 1.4, ops registered with node_info only: what the op shows of this call beyond its inputs */
  info?: NodeInfo;
}

/** An op's own picture of one call (schema 1.4), such as a sparse matrix's nnz and pattern. */
export interface NodeInfo {
  /** what the rows and the grid describe ("sparse operand x") */
  title: string;
  /** [label, text] pairs, shown as a small table */
  rows: [string, string][];
  /** numbers drawn as a heat map, row-major, at most 32 x 32 (a sparse pattern: the stored fraction per block) */
  grid: { shape: [number, number]; values: Num[] } | null;
}

export interface ForwardEdge {
  source: string | null;
  target: string;
  tensor: string;
  index: number;
}

export interface GradNode {
  id: string;
  name: string;
  kind: 'grad' | 'accumulate';
  op: string | null;
  forward_node: string | null;
  tensor: string | null;
  next: ({ node: string | null; output_index: number } | null)[];
  outside: boolean;
}

export interface BackwardEdge {
  source: string;
  target: string;
  tensor: string | null;
  index: number;
  output_index: number;
}

export interface InnerOp {
  op: string;
  kernel: string;
  duration_ns: number;
  /** present when the autotuner chose this kernel */
  tuning?: KernelTuning;
  /** schema 1.3, GPU ops only: the op's time on the device (CUDA events) */
  device_time_ns?: number;
}

export interface OpStep {
  index: number;
  kind: 'op';
  phase: 'forward';
  node: string;
  states: string[];
  t_ns: number;
}

export interface BackwardStep {
  index: number;
  kind: 'backward_step';
  phase: 'backward';
  node: string;
  pass: number;
  grads_in: (string | null)[];
  grads_out: (string | null)[];
  ops: InnerOp[];
  ops_count: number;
  states: string[];
  start_ns: number;
  end_ns: number;
}

export interface HookStep {
  index: number;
  kind: 'hook';
  phase: 'backward';
  node: string;
  output_index: number;
  tensor: string | null;
  hook: string;
  grad: string;
  result: string | null;
  states: string[];
}

export interface OptimizerStep {
  index: number;
  kind: 'optimizer_update';
  phase: 'optimizer';
  update: string;
  states: string[];
}

export type Step = OpStep | BackwardStep | HookStep | OptimizerStep;

export interface OptimizerUpdate {
  id: string;
  step: number;
  optimizer: string;
  param: string | null;
  param_name: string | null;
  lr: Num | null;
  grad_norm: Num | null;
  update_norm: Num | null;
  structured_name?: string | null;
}

// ---- static Programs (the programs / pass_diffs / program_runs sections; /tmp spec "program_doc") ----

export interface ProgramVar {
  name: string;
  shape: number[]; // -1: unknown dim
  dtype: string;
  persistable: boolean;
  stop_gradient: boolean;
  is_parameter: boolean;
  is_data: boolean;
}

export interface SourceRef {
  file: string;
  line: number;
  code: string;
  /** schema 1.2: the notebook cell's execution count when the file is an IPython cell */
  cell?: number | null;
}

export interface ProgramOp {
  index: number;
  type: string;
  inputs: Record<string, string[]>; // '' for an absent optional input
  outputs: Record<string, string[]>;
  attrs: Record<string, unknown>;
  sub_blocks: number[];
  role: string; // forward | backward | optimize | other
  source: SourceRef | null;
}

export interface ProgramBlock {
  idx: number;
  parent: number;
  vars: ProgramVar[];
  ops: ProgramOp[];
}

export interface ProgramOrigin {
  kind: string; // "dy2static"
  function: string;
  file: string;
  first_line: number;
  original_source: string;
  transformed_source: string;
  /** schema 1.2: the notebook cell's execution count when the function was written in a cell */
  cell?: number | null;
}

export interface ProgramDoc {
  id: string;
  name: string;
  role: string; // main | startup | pass | inference | dy2static
  text: string;
  blocks: ProgramBlock[];
  origin: ProgramOrigin | null;
}

/** An op of a pass diff: `index` is in the BEFORE program for removed ops, in AFTER for added ones. */
export interface OpRef {
  block: number;
  index: number;
  type: string;
  outputs: string[];
}

export interface PassDiff {
  pass: string;
  step: number;
  before: string;
  after: string;
  summary: string;
  changed: boolean;
  time_ms: number;
  ops_before: number;
  ops_after: number;
  removed: OpRef[];
  added: OpRef[];
  fused: { into: OpRef; from: OpRef[]; expression?: string; kernel?: string }[];
  details: Record<string, unknown>;
}

/** A value a static run saw (the schema's tensorSummary): shape, dtype, summary, small values. */
export interface TensorSummary {
  shape: number[];
  dtype: string;
  summary: Summary;
  values: Num[] | null;
  values_omitted: null | 'mode' | 'size' | 'budget';
}

export interface RunStep {
  step: number;
  block: number;
  op: number;
  type: string;
  time_ns: number;
  outputs: Record<string, TensorSummary>;
}

export interface ProgramRun {
  program: string;
  run: number;
  feed: Record<string, TensorSummary>;
  steps: RunStep[];
  steps_dropped: number;
  fetch: Record<string, TensorSummary>;
}

/** One training iteration (schema 1.2): steps first_step..last_step (doc step indices, inclusive). */
export interface Iteration {
  index: number;
  first_step: number;
  last_step: number;
  structure: number;
  loss: number | null;
  grad_norm: number | null;
  update_ratio: number | null;
}

/** Per-layer activation statistics across iterations (one entry per iteration, null where unknown). */
export interface HealthLayer {
  path: string;
  name: string;
  kind: string | null;
  activation: string | null;
  node: (string | null)[];
  act_mean: (number | null)[];
  act_std: (number | null)[];
  saturated: (number | null)[] | null;
  grad_std: (number | null)[];
}

/** Per-parameter gradient and update statistics across iterations. */
export interface HealthParam {
  tensor: string | null;
  name: string | null;
  paddle_name: string | null;
  layer: string | null;
  grad_norm: (number | null)[];
  weight_norm: (number | null)[];
  update_ratio: (number | null)[];
}

export interface Health {
  layers: HealthLayer[];
  params: HealthParam[];
}

export interface TraceDocument {
  format: string;
  schema_version: string;
  recording: {
    values: string;
    total_steps: number;
    first_step: number;
    dropped_steps: number;
    notes: string[];
    [key: string]: unknown;
  };
  layers: Layer[];
  tensors: TensorRec[];
  states: State[];
  graph: {
    forward: { nodes: OpNode[]; edges: ForwardEdge[] };
    backward: { nodes: GradNode[]; edges: BackwardEdge[] };
  };
  steps: Step[];
  optimizer_updates: OptimizerUpdate[];
  nan_inf: { first: unknown; count: number; occurrences: unknown[] };
  /** schema 1.2: the run's iterations and per-layer training health (absent without backward/updates) */
  iterations?: Iteration[];
  health?: Health;
  programs?: ProgramDoc[];
  pass_diffs?: PassDiff[];
  program_runs?: ProgramRun[];
  autotune?: AutotuneDecision[];
  profile?: ProfileSection | null;
  [key: string]: unknown;
}

export type VersionCheck =
  | { ok: true; major: number; minor: number }
  | { ok: false; message: string };

/** Whether this reader can show `doc`: a minipaddle trace with a known major schema_version. */
export function checkDocument(doc: unknown): VersionCheck {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    return { ok: false, message: 'This output is not a minipaddle trace document (expected a JSON object).' };
  }
  const d = doc as Record<string, unknown>;
  const version = d['schema_version'];
  const match = typeof version === 'string' ? /^(\d+)\.(\d+)$/.exec(version) : null;
  if (match === null) {
    return {
      ok: false,
      message: `This trace has no readable schema_version (got ${JSON.stringify(version ?? null)}, expected "MAJOR.MINOR").`
    };
  }
  const major = Number(match[1]);
  if (major !== SUPPORTED_MAJOR) {
    return {
      ok: false,
      message:
        `This trace uses schema version ${version}, which this version of the minipaddle extension cannot read ` +
        `(it reads ${SUPPORTED_MAJOR}.x). Update the extension (pip install -U minipaddle) or re-record the trace; ` +
        'the static view of the trace is shown below.'
    };
  }
  const missing = ['graph', 'steps', 'tensors', 'states', 'layers'].filter(k => !(k in d));
  if (missing.length) {
    return { ok: false, message: `This trace document is incomplete: it has no ${missing.join(', ')}.` };
  }
  return { ok: true, major, minor: Number(match[2]) };
}
