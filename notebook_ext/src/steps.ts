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
 */
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
