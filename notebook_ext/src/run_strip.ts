/**
 * The run strip above the graph of a multi-iteration trace: "iteration 7 of 50" with buttons to the
 * same step of the previous / next iteration, and sparklines of the loss, the gradient norm and the
 * update-to-weight ratio per iteration. A click on a sparkline jumps to that iteration; ticks mark
 * where the structure of an iteration changed (a data-dependent branch).
 */
import { Iterations } from './iterations';
import { Line, lineChart, short } from './charts';
import { el } from './format';

const SPARK_W = 200;
const SPARK_H = 30;

export class RunStrip {
  readonly node: HTMLDivElement;
  private label: HTMLSpanElement;
  private sparks: HTMLDivElement;
  private prev: HTMLButtonElement;
  private next: HTMLButtonElement;
  private current = -1;

  /** `onPick(k, keep)`: go to iteration k (keep: at the same step within it, else its first step). */
  constructor(private its: Iterations, private onPick: (k: number, keep: boolean) => void) {
    this.node = el('div', 'mp-run-strip');
    this.node.dataset.testid = 'mp-run-strip';
    const nav = el('div', 'mp-iteration-nav');
    this.prev = this.button('mp-iter-prev', '◀', 'The same step, one iteration earlier (PageUp)', () => onPick(this.current - 1, true));
    this.label = el('span', 'mp-iteration-label');
    this.label.dataset.testid = 'mp-iteration';
    this.next = this.button('mp-iter-next', '▶', 'The same step, one iteration later (PageDown)', () => onPick(this.current + 1, true));
    nav.append(this.prev, this.label, this.next);
    this.sparks = el('div', 'mp-sparks');
    this.node.append(nav, this.sparks);
  }

  private button(id: string, text: string, title: string, action: () => void): HTMLButtonElement {
    const b = el('button', 'mp-button', text);
    b.type = 'button';
    b.dataset.testid = id;
    b.title = title;
    b.addEventListener('click', action);
    return b;
  }

  /** Show iteration `k` as the current one (redraws the sparklines' markers only when it changed). */
  setCurrent(k: number): void {
    if (k === this.current) return;
    this.current = k;
    const n = this.its.length;
    const it = this.its.list[k];
    const changed = this.its.changes;
    const structures = new Set(this.its.list.map(i => i.structure)).size;
    this.label.textContent = `iteration ${k + 1} of ${n}` + (structures > 1 ? ` · structure ${it.structure + 1} of ${structures}` : '');
    this.prev.disabled = k <= 0;
    this.next.disabled = k >= n - 1;
    const series: { key: string; title: string; line: Line; log: boolean; value: number | null }[] = [
      { key: 'loss', title: 'loss', log: false, value: it.loss,
        line: { values: this.its.list.map(i => i.loss), cls: 'mp-line-loss', label: 'loss' } },
      { key: 'grad', title: 'gradient norm', log: true, value: it.gradNorm,
        line: { values: this.its.list.map(i => i.gradNorm), cls: 'mp-line-grad', label: 'gradient norm' } },
      { key: 'ratio', title: 'update / weight', log: true, value: it.updateRatio,
        line: { values: this.its.list.map(i => i.updateRatio), cls: 'mp-line-ratio', label: 'update / weight' } }
    ];
    this.sparks.replaceChildren();
    for (const s of series) {
      if (!s.line.values.some(v => v !== null)) continue;
      const box = el('div', 'mp-spark');
      box.dataset.testid = `mp-spark-${s.key}`;
      box.appendChild(el('span', 'mp-spark-label', `${s.title} ${short(s.value)}`));
      box.appendChild(lineChart([s.line], {
        width: SPARK_W, height: SPARK_H, log: s.log, current: k, changes: changed,
        title: `${s.title} per iteration${s.log ? ' (log scale)' : ''}: click to go to an iteration`,
        refs: s.key === 'ratio' ? [{ y: 1e-3, label: 'a common rule of thumb: about 1e-3' }] : undefined,
        onPick: i => this.onPick(i, false)
      }));
      this.sparks.appendChild(box);
    }
  }
}
