/**
 * The Health tab: training health over time, as small multiples (one small chart per layer and per
 * parameter, all over the same iterations), the view teachers draw by hand to explain vanishing or
 * exploding gradients and the choice of a learning rate:
 *
 *   activations   mean and spread (std) of each layer's output; for tanh / sigmoid the share of
 *                 saturated outputs (near ±1 or 0/1: their gradient vanishes), for ReLU the share
 *                 of dead ones (exactly 0)
 *   gradients     the spread of the gradient that reaches each layer's output
 *   updates       per parameter, |update| / |weight| for one optimizer step (about 1e-3 is typical)
 *
 * A click on a chart selects that layer's node at that iteration in the Graph tab.
 */
import { Health, HealthLayer, HealthParam } from './schema';
import { lineChart, short, yRange } from './charts';
import { el } from './format';

const W = 220;
const H = 56;

export type HealthPick = (node: string | null, iteration: number, layer: string | null) => void;

function last(values: (number | null)[] | null | undefined, k: number): number | null {
  if (!values) return null;
  return values[Math.min(k, values.length - 1)] ?? null;
}

function card(title: string, subtitle: string, testid: string): HTMLDivElement {
  const c = el('div', 'mp-health-card');
  c.dataset.testid = testid;
  c.appendChild(el('div', 'mp-health-title', title));
  if (subtitle) c.appendChild(el('div', 'mp-health-sub', subtitle));
  return c;
}

function caption(parts: [string, string][]): HTMLDivElement {
  const row = el('div', 'mp-health-caption');
  for (const [cls, text] of parts) row.appendChild(el('span', cls, text));
  return row;
}

/** One y range (in data units) for a quantity over every layer or weight: charts side by side then compare
 * at a glance (a gradient that shrinks layer by layer is visibly lower in each next chart). */
function sharedRange(lists: (number | null)[][], log: boolean): [number, number] | undefined {
  const [lo, hi] = yRange(lists.map(values => ({ values, cls: '', label: '' })), log);
  if (!lists.some(l => l.some(v => v !== null))) return undefined;
  return log ? [10 ** lo, 10 ** hi] : [lo, hi];
}

interface Shared {
  grad?: [number, number];
  ratio?: [number, number];
  gradNorm?: [number, number];
}

function layerCard(l: HealthLayer, current: number, changes: number[], pick: HealthPick, shared: Shared): HTMLDivElement {
  const c = card(l.name || l.path, `${l.kind ?? 'layer'} · ${l.path}`, 'mp-health-layer');
  c.dataset.layer = l.path;
  const at = (k: number) => pick(l.node[k] ?? null, k, l.path);
  c.appendChild(caption([['mp-key mp-line-mean', `mean ${short(last(l.act_mean, current))}`], ['mp-key mp-line-std', `std ${short(last(l.act_std, current))}`]]));
  c.appendChild(lineChart([
    { values: l.act_mean, cls: 'mp-line-mean', label: 'mean' },
    { values: l.act_std, cls: 'mp-line-std', label: 'std' }
  ], { width: W, height: H, current, changes, title: `${l.path}: output mean and std per iteration`, onPick: at }));
  if (l.saturated) {
    const word = l.activation === 'relu' ? 'dead (= 0)' : 'saturated';
    c.appendChild(caption([['mp-key mp-line-sat', `${word} ${pct(last(l.saturated, current))}`]]));
    c.appendChild(lineChart([{ values: l.saturated, cls: 'mp-line-sat', label: word }],
      { width: W, height: H * 0.7, range: [0, 1], current, changes, title: `${l.path}: share of ${word} outputs`, onPick: at }));
  }
  if (l.grad_std.some(v => v !== null)) {
    c.appendChild(caption([['mp-key mp-line-grad', `gradient std ${short(last(l.grad_std, current))}`]]));
    c.appendChild(lineChart([{ values: l.grad_std, cls: 'mp-line-grad', label: 'gradient std' }],
      { width: W, height: H * 0.7, log: true, range: shared.grad, current, changes, title: `${l.path}: std of the gradient reaching its output (log scale, the same for every layer)`, onPick: at }));
  }
  return c;
}

function paramCard(p: HealthParam, current: number, changes: number[], pick: HealthPick, shared: Shared): HTMLDivElement {
  const title = p.name ?? p.paddle_name ?? p.tensor ?? '?';
  const c = card(title, p.paddle_name && p.paddle_name !== title ? p.paddle_name : (p.layer ?? ''), 'mp-health-param');
  c.dataset.param = title;
  const at = (k: number) => pick(p.tensor, k, p.layer);
  c.appendChild(caption([['mp-key mp-line-ratio', `update / weight ${short(last(p.update_ratio, current))}`]]));
  c.appendChild(lineChart([{ values: p.update_ratio, cls: 'mp-line-ratio', label: 'update / weight' }],
    { width: W, height: H, log: true, range: shared.ratio, current, changes, refs: [{ y: 1e-3, label: 'about 1e-3 is typical' }],
      title: `${title}: |update| / |weight| per step (log scale; the line is 1e-3)`, onPick: at }));
  c.appendChild(caption([['mp-key mp-line-grad', `gradient norm ${short(last(p.grad_norm, current))}`]]));
  c.appendChild(lineChart([{ values: p.grad_norm, cls: 'mp-line-grad', label: 'gradient norm' }],
    { width: W, height: H * 0.7, log: true, range: shared.gradNorm, current, changes, title: `${title}: gradient norm (log scale)`, onPick: at }));
  return c;
}

function pct(v: number | null): string {
  return v === null ? '–' : `${(v * 100).toFixed(v < 0.1 ? 1 : 0)}%`;
}

/** Fill `out` with the health view at iteration `current`. */
export function renderHealth(out: HTMLElement, health: Health, iterations: number, current: number, changes: number[], pick: HealthPick): void {
  out.replaceChildren();
  const head = el('div', 'mp-health-head');
  head.appendChild(el('p', undefined,
    `Each small chart is one layer or one weight over the ${iterations} iterations; the vertical line is the current ` +
    'iteration, and a click on a chart opens that layer at that iteration in the Graph tab. Gradient and update charts ' +
    'share one log scale across layers, so they compare at a glance. Saturated tanh/sigmoid ' +
    'outputs and dead ReLUs pass (almost) no gradient; a gradient spread that shrinks layer by layer towards the input ' +
    'is vanishing, one that grows is exploding; an update / weight ratio far above 1e-3 means the learning rate is ' +
    'too high, far below means too low.'));
  out.appendChild(head);
  const shared: Shared = {
    grad: sharedRange(health.layers.map(l => l.grad_std), true),
    ratio: sharedRange(health.params.map(p => [...p.update_ratio, 1e-3]), true),
    gradNorm: sharedRange(health.params.map(p => p.grad_norm), true)
  };
  const acts = el('div', 'mp-health-grid');
  acts.dataset.testid = 'mp-health-layers';
  for (const l of health.layers) acts.appendChild(layerCard(l, current, changes, pick, shared));
  if (health.layers.length) {
    out.appendChild(el('h4', 'mp-health-section', 'Activations and gradients, per layer'));
    out.appendChild(acts);
  }
  const params = el('div', 'mp-health-grid');
  params.dataset.testid = 'mp-health-params';
  for (const p of health.params) params.appendChild(paramCard(p, current, changes, pick, shared));
  if (health.params.length) {
    out.appendChild(el('h4', 'mp-health-section', 'Updates, per weight'));
    out.appendChild(params);
  }
}
