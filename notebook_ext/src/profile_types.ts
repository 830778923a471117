/**
 * The trace document's `profile` section (`$defs/profile` in minipaddle/visualizer/schema/trace.schema.json),
 * written by minipaddle/profiler/section.py: the op table, the Model phases, the ProfileSteps and a bounded
 * list of timeline spans. Times are ns from the profiler window's start.
 */

export type ProfileLane = 'python' | 'forward' | 'backward' | 'optimizer' | 'numba-jit' | 'dataloader';

export const PROFILE_LANES: readonly ProfileLane[] = [
  'python', 'forward', 'backward', 'optimizer', 'numba-jit', 'dataloader'
];

export interface ProfileStat {
  name: string;
  calls: number;
  total_ns: number;
  avg_ns: number;
  max_ns: number;
  min_ns: number;
  flops?: number | null;
  children?: ProfileStat[];
}

export interface ProfileSpan {
  lane: ProfileLane;
  name: string;
  cat: string;
  start_ns: number;
  end_ns: number;
  node: string | null;
  forward_node: string | null;
  layer: string | null;
  kernel: string | null;
}

export interface ProfileStep {
  index: number;
  start_ns: number;
  end_ns: number;
  num_samples: number | null;
}

export interface ProfileMemory {
  peak_bytes: number;
  freed_bytes: number;
  allocated_bytes: number;
  /** [time ns, live bytes of op outputs] */
  samples: [number, number][];
}

export interface ProfileSection {
  generator: 'minipaddle.profiler';
  settings: Record<string, boolean>;
  duration_ns: number;
  steps: ProfileStep[];
  phases: ProfileStat[];
  ops: ProfileStat[];
  spans: ProfileSpan[];
  spans_dropped: number;
  memory: ProfileMemory | null;
  errors: string[];
}
