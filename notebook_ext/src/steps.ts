/**
 * The step model: where the learner is in the recorded steps, and how the debugger's buttons move.
 *
 * Pure logic over `StepInfo[]` (no DOM), so every move is unit-tested:
 *   forward / back     one step (in the layers view: to the next box, `key` says which box a step is in)
 *   into               one step, and the layer it enters is returned so the view can expand it
 *   out                to the first step outside the current step's layer (or, at the top level,
 *                      the first step of the next phase: forward -> backward -> optimizer)
 *   continue (play)    advance one step per tick until the end or a step whose tensors hold NaN/Inf
 *   reset, seek        to step 0 / anywhere (the timeline scrubber)
 *
 * The same model steps a static Executor run (a `program_runs` entry): `programRunSteps` turns its
 * executed ops into StepInfo, a sub-block's path ("b1", "b1.b2") standing in for the layer, so step
 * out of a while body lands on the first op after the loop.
 */
import { ProgramDoc, ProgramRun, TensorSummary } from './schema';
import { StepInfo, within } from './trace_index';

export type Listener = () => void;

export class StepModel {
  readonly steps: StepInfo[];
  private _index = 0;
  private _playing = false;
  private listeners: Listener[] = [];

  constructor(steps: StepInfo[], index = 0) {
    this.steps = steps;
    this._index = this.clamp(index);
  }

  get index(): number {
    return this._index;
  }

  get length(): number {
    return this.steps.length;
  }

  get current(): StepInfo | null {
    return this.steps[this._index] ?? null;
  }

  get playing(): boolean {
    return this._playing;
  }

  get atEnd(): boolean {
    return this._index >= this.steps.length - 1;
  }

  onChange(listener: Listener): void {
    this.listeners.push(listener);
  }

  /** "step 3 / 16 · forward · linear (MLP.fc1)" */
  label(): string {
    const s = this.current;
    if (s === null) return 'no steps recorded';
    return `step ${this._index + 1} / ${this.length} · ${s.phase} · ${s.label}`;
  }

  seek(index: number): void {
    const next = this.clamp(index);
    if (next !== this._index) {
      this._index = next;
      this.emit();
    }
  }

  reset(): void {
    this.pause();
    this.seek(0);
  }

  /** One step on; with `key`, past every following step that shows as the same graph node. */
  forward(key?: (s: StepInfo) => string | null): void {
    let j = this._index + 1;
    if (key && this.current) {
      const here = key(this.current);
      while (j < this.length - 1 && here !== null && key(this.steps[j]) === here) j++;
    }
    this.seek(j);
  }

  back(key?: (s: StepInfo) => string | null): void {
    let j = this._index - 1;
    if (key && j > 0) {
      const there = key(this.steps[j]); // land on the first step of the previous box
      while (j > 0 && there !== null && key(this.steps[j - 1]) === there) j--;
    }
    this.seek(j);
  }

  /** One step on; returns the layer of the step it lands on (the layer to open), or null. */
  into(): string | null {
    this.seek(this._index + 1);
    return this.current?.layer ?? null;
  }

  /** Finish the current layer: the first later step outside it (or in another phase). */
  out(): void {
    const s = this.current;
    if (s === null) return;
    let j = this._index + 1;
    while (j < this.length) {
      const t = this.steps[j];
      if (t.phase !== s.phase) break;
      if (s.layer !== null && !within(t.layer, s.layer)) break;
      j++;
    }
    this.seek(j);
  }

  /** Start playing (from the start again when at the end); the caller calls tick() on a timer. */
  play(): void {
    if (this.atEnd) this._index = 0;
    this._playing = this.length > 1;
    this.emit();
  }

  pause(): void {
    if (this._playing) {
      this._playing = false;
      this.emit();
    }
  }

  toggle(): void {
    if (this._playing) this.pause();
    else this.play();
  }

  /** One step of play; stops at the end or on a step that made NaN/Inf (a breakpoint). */
  tick(): boolean {
    if (!this._playing) return false;
    this._index = this.clamp(this._index + 1);
    if (this.atEnd || this.current?.nanInf) this._playing = false;
    this.emit();
    return this._playing;
  }

  private clamp(i: number): number {
    return Math.max(0, Math.min(this.steps.length - 1, Math.round(i)));
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}

// ---- static Programs: graph ids and Executor runs ---------------------------------------------

/** Graph node id of op `index` of block `block` in program `pid`: "P0:b0:op3". */
export function programOpId(pid: string, block: number, index: number): string {
  return `${pid}:b${block}:op${index}`;
}

/** Graph node id of variable `name` declared in block `block`: "P0:b0:v:x". */
export function programVarId(pid: string, block: number, name: string): string {
  return `${pid}:b${block}:v:${name}`;
}

/** The block that declares `name`, looking from block `block` out through its parents (a sub-block
 * reads its parent's variables); `block` itself when none does. */
export function declaringBlock(program: ProgramDoc, block: number, name: string): number {
  const seen = new Set<number>();
  for (let b = block; b >= 0 && !seen.has(b); b = program.blocks[b]?.parent ?? -1) {
    seen.add(b);
    if (program.blocks[b]?.vars.some(v => v.name === name)) return b;
  }
  return block;
}

/** "b1.b2" for block 2 inside block 1 inside block 0; null for block 0 (the top level). */
export function blockPath(program: ProgramDoc, block: number): string | null {
  const parts: string[] = [];
  const seen = new Set<number>();
  for (let b = block; b > 0 && !seen.has(b); b = program.blocks[b]?.parent ?? 0) {
    seen.add(b);
    parts.unshift(`b${b}`);
  }
  return parts.length ? parts.join('.') : null;
}

function summaryBad(t: TensorSummary | undefined): boolean {
  const s = t?.summary;
  return s !== undefined && (s.nan_count > 0 || s.inf_count > 0);
}

const RUN_PHASES: Record<string, StepInfo['phase']> = { backward: 'backward', optimize: 'optimizer' };

/** One StepInfo per op the Executor ran (ops inside a while body once per iteration): node is the
 * op's graph id, reads/writes its variables' ids, phase from the op's role. */
export function programRunSteps(program: ProgramDoc, run: ProgramRun): StepInfo[] {
  const total = new Map<string, number>();
  for (const s of run.steps) total.set(`${s.block}:${s.op}`, (total.get(`${s.block}:${s.op}`) ?? 0) + 1);
  const seen = new Map<string, number>();
  return run.steps.map((s, position) => {
    const key = `${s.block}:${s.op}`;
    const k = (seen.get(key) ?? 0) + 1;
    seen.set(key, k);
    const n = total.get(key) ?? 1;
    const iteration = n > 1 ? ` · iteration ${k}/${n}` : ''; // a while body's ops run once per iteration
    const op = program.blocks[s.block]?.ops[s.op];
    const names = (slots: Record<string, string[]> | undefined) =>
      Object.values(slots ?? {}).flat().filter(n => n !== '').map(n => programVarId(program.id, declaringBlock(program, s.block, n), n));
    const layer = blockPath(program, s.block);
    const where = s.block === 0 ? `op ${s.op}` : `block ${s.block}, op ${s.op}`;
    return {
      position, phase: RUN_PHASES[op?.role ?? ''] ?? 'forward', node: programOpId(program.id, s.block, s.op),
      forwardNode: null, layer, label: `${s.type} (${where})${iteration}`, reads: names(op?.inputs), writes: names(op?.outputs),
      states: [], nanInf: Object.values(s.outputs ?? {}).some(summaryBad)
    };
  });
}
