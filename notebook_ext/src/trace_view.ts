/**
 * The debugger itself, as plain DOM (no Lumino, so it is unit-testable and shared by the output
 * renderer and the sidebar panel): tabs, toolbar, run strip, graph, legend, inspector, over one
 * trace document.
 *
 * State lives in this object and comes only from the document, so a saved notebook reopens fully
 * navigable. The graph shows one iteration of a training run (iterations.ts): each structure is laid
 * out once, and stepping -- within an iteration or from iteration 7 to 8 -- only moves CSS classes on
 * the drawn SVG (mp-current, mp-read, mp-written, mp-done, mp-flowing), never the layout. The
 * viewport keeps text readable and follows the current node (viewport.ts). The DOM follows the
 * contract the browser tests use (data-testid mp-trace, mp-graph, mp-continue, ..., node
 * `g.node[data-node-id]`).
 *
 * Tabs appear only when they have content: Graph for recorded eager steps, Program for static
 * programs, Profile for a profiler window, Health for a run of several iterations. The first tab
 * shown is the Profile for a profile, the Program for programs alone, else the Graph.
 */
import { TraceDocument } from './schema';
import { StepInfo, TraceIndex, within } from './trace_index';
import { StepModel } from './steps';
import { GraphView, VIEW_KINDS, VNode, ViewKind, buildView, defaultOpen, locate, DEFAULT_BUDGET } from './views';
import { toDot } from './dot';
import { layoutSvg } from './layout';
import { renderInspector } from './inspector';
import { el } from './format';
import { ProgramView } from './program_view';
import { renderProfileView } from './profile_view';
import { Iterations } from './iterations';
import { RunStrip } from './run_strip';
import { renderHealth } from './health_view';
import { Viewport } from './viewport';
import { legend } from './legend';
import { searchMatches } from './names';

const PLAY_MS = 450;
const HIGHLIGHTS = ['mp-current', 'mp-read', 'mp-written', 'mp-done', 'mp-flowing', 'mp-selected'];

export type TabName = 'graph' | 'program' | 'profile' | 'health';
const TAB_TITLES: Record<TabName, string> = { graph: 'Graph', program: 'Program', profile: 'Profile', health: 'Health' };
const TAB_TIPS: Record<TabName, string> = {
  graph: 'The recorded ops, step by step: forward, backward and the optimizer update',
  program: 'Static programs, compiler passes and Executor runs',
  profile: 'Where the time went: operators, phases and a timeline',
  health: 'Training health over the iterations: activations, gradients and updates per layer'
};

export interface TraceViewOptions {
  view?: ViewKind;
  /** the tab shown first (default: profile for a profile, program for programs alone, else graph) */
  tab?: TabName;
  budget?: number;
  /** layout function (tests pass a fake); default Graphviz wasm */
  layout?: (dot: string) => Promise<string>;
  /** the step shown first: the first (default) or the last (a live update of a running loop) */
  start?: 'first' | 'last';
  /** a live update: says the loop is still running */
  live?: boolean;
}

export class TraceView {
  readonly node: HTMLDivElement;
  readonly idx: TraceIndex;
  readonly model: StepModel;
  readonly iterations: Iterations;
  /** the sub-document the graph draws: the current iteration's structure */
  sub: TraceIndex;
  /** the iteration of the current step (its place in iterations.list) */
  iteration = 0;
  view: GraphView;
  viewKind: ViewKind;
  private drawnStructure = -1;
  private live: boolean;
  private open: Set<string>;
  private unfolded = new Set<string>();
  /** the selected node, as a view node id of the drawn graph */
  private selected: string | null = null;
  private timer: number | null = null;
  private graphEl: HTMLDivElement;
  private inspectorEl: HTMLDivElement;
  private notesEl: HTMLDivElement;
  private buttons: Record<string, HTMLButtonElement> = {};
  private scrubber: HTMLInputElement;
  private labelEl: HTMLSpanElement;
  private viewSelect: HTMLSelectElement;
  private search: HTMLInputElement;
  private strip: RunStrip | null = null;
  private nodeEls = new Map<string, SVGGElement>();
  private edgeEls: SVGGElement[] = [];
  readonly viewport: Viewport;
  private budget: number;
  private layout: (dot: string) => Promise<string>;
  private renderToken = 0;
  readonly tabs: TabName[];
  tab: TabName = 'graph';
  programView: ProgramView | null = null;
  private panes = new Map<TabName, HTMLDivElement>();
  private tabButtons = new Map<TabName, HTMLButtonElement>();
  private profileDrawn = false;
  private healthIteration = -1;
  /** resolves when the current graph is drawn (tests and the panel wait on it) */
  ready: Promise<void> = Promise.resolve();
  disposed = false;

  constructor(doc: TraceDocument, options: TraceViewOptions = {}) {
    this.idx = new TraceIndex(doc);
    this.model = new StepModel(this.idx.steps, options.start === 'last' ? this.idx.steps.length - 1 : 0);
    this.iterations = new Iterations(this.idx);
    this.iteration = this.iterations.at(this.model.index);
    this.sub = this.iterations.subIndex(this.iteration);
    this.live = options.live ?? false;
    this.budget = options.budget ?? DEFAULT_BUDGET;
    this.layout = options.layout ?? layoutSvg;
    this.open = defaultOpen(this.sub);
    this.viewKind = options.view ?? this.defaultView();
    this.view = buildView(this.sub, this.viewKind, this.viewOptions());

    this.node = el('div', 'mp-trace');
    this.node.dataset.testid = 'mp-trace';
    this.node.dataset.schemaVersion = doc.schema_version;
    this.node.tabIndex = 0;
    this.node.setAttribute('data-lm-suppress-shortcuts', 'true');
    const eager = doc.graph.forward.nodes.length + doc.steps.length > 0;
    this.tabs = [];
    if (eager) this.tabs.push('graph');
    if (this.iterations.several && doc.health && (doc.health.layers.length || doc.health.params.length)) this.tabs.push('health');
    if (doc.programs?.length) this.tabs.push('program');
    if (doc.profile) this.tabs.push('profile');
    if (!this.tabs.length) this.tabs.push('graph'); // an empty recording still says so

    const graphPane = this.pane('graph');
    const bar = el('div', 'mp-toolbar');
    const add = (id: string, text: string, title: string, action: () => void) => {
      const b = el('button', 'mp-button', text);
      b.type = 'button';
      b.dataset.testid = id;
      b.title = title;
      b.setAttribute('aria-label', title);
      b.addEventListener('click', () => {
        action();
        this.node.focus({ preventScroll: true });
      });
      bar.appendChild(b);
      this.buttons[id] = b;
    };
    add('mp-reset', '↺', 'Back to the first step (Home)', () => this.model.reset());
    add('mp-step-back', '◀', 'Step back (←)', () => this.stepBack());
    add('mp-continue', '▶', 'Continue: play until the end or a NaN/Inf (F8)', () => this.toggle());
    add('mp-step-forward', '▶|', 'Step (F10, →)', () => this.stepForward());
    add('mp-step-into', '↘', 'Step into the layer (F11)', () => this.stepInto());
    add('mp-step-out', '↗', 'Step out of the layer (Shift+F11)', () => this.model.out());
    this.scrubber = el('input', 'mp-scrubber');
    this.scrubber.type = 'range';
    this.scrubber.min = '0';
    this.scrubber.max = String(Math.max(0, this.model.length - 1));
    this.scrubber.dataset.testid = 'mp-scrubber';
    this.scrubber.title = 'Timeline of the whole run: drag to any step';
    this.scrubber.addEventListener('input', () => this.model.seek(Number(this.scrubber.value)));
    bar.appendChild(this.scrubber);
    this.viewSelect = el('select', 'mp-view');
    this.viewSelect.dataset.testid = 'mp-view';
    this.viewSelect.title = 'Which graph to draw: forward ops, backward (gradient) ops, both, or grouped by layer';
    for (const k of VIEW_KINDS) {
      const o = el('option', undefined, k);
      o.value = k;
      this.viewSelect.appendChild(o);
    }
    this.viewSelect.value = this.viewKind;
    this.viewSelect.addEventListener('change', () => this.setView(this.viewSelect.value as ViewKind));
    bar.appendChild(this.viewSelect);
    this.search = el('input', 'mp-search');
    this.search.type = 'search';
    this.search.placeholder = 'search op, layer or weight (0.weight)';
    this.search.title = 'Find ops by name or layer, and weights by their state_dict name (fc1.weight) or Paddle name (linear_0.w_0); Enter selects the first';
    this.search.dataset.testid = 'mp-search';
    this.search.addEventListener('input', () => this.applySearch());
    this.search.addEventListener('keydown', e => {
      e.stopPropagation(); // typing here is not a debugger shortcut nor a notebook one
      if (e.key === 'Enter') this.selectFirstMatch();
    });
    bar.appendChild(this.search);
    add('mp-fit', '⤢', 'Reset the view: the whole graph when it is readable so, else around the current node', () => this.fit());
    add('mp-zoom-in', '+', 'Zoom in (Ctrl+wheel)', () => this.viewport.zoom(0.8));
    add('mp-zoom-out', '−', 'Zoom out (down to the smallest readable size; the minimap shows the whole graph)', () => this.viewport.zoom(1.25));
    graphPane.appendChild(bar);
    this.labelEl = el('div', 'mp-step-label');
    this.labelEl.dataset.testid = 'mp-step-label';
    this.labelEl.setAttribute('aria-live', 'polite');
    graphPane.appendChild(this.labelEl);
    if (this.iterations.several) {
      this.strip = new RunStrip(this.iterations, (k, keep) => this.goToIteration(k, keep));
      graphPane.appendChild(this.strip.node);
    }
    this.notesEl = el('div', 'mp-notes');
    graphPane.appendChild(this.notesEl);
    const main = el('div', 'mp-main');
    const left = el('div', 'mp-graph-column');
    this.graphEl = el('div', 'mp-graph');
    this.graphEl.dataset.testid = 'mp-graph';
    left.append(this.graphEl, legend());
    this.inspectorEl = el('div', 'mp-inspector');
    this.inspectorEl.dataset.testid = 'mp-inspector';
    main.append(left, this.inspectorEl);
    graphPane.appendChild(main);
    this.viewport = new Viewport(this.graphEl, { minimap: true });
    this.viewport.focus = () => {
      const s = this.model.current;
      return this.nodeEls.get(this.selected ?? (s ? this.viewNodeOf(s) : null) ?? '') ?? null;
    };
    this.buildTabs();
    this.node.addEventListener('keydown', e => this.onKey(e));
    this.model.onChange(() => this.update());
    this.drawnStructure = this.iterations.list[this.iteration].structure;
    this.ready = this.draw();
    this.update();
    const preferred: TabName = doc.profile ? 'profile' : !eager && this.tabs.includes('program') ? 'program' : 'graph';
    const first = options.tab && this.tabs.includes(options.tab) ? options.tab : this.tabs.includes(preferred) ? preferred : this.tabs[0];
    if (first !== this.tab || !this.tabs.includes('graph')) {
      const graphReady = this.ready;
      this.showTab(first);
      const tabReady = this.ready;
      this.ready = Promise.all([graphReady, tabReady]).then(() => undefined);
    }
  }

  // ---- tabs ------------------------------------------------------------------------------------
  private pane(name: TabName): HTMLDivElement {
    const pane = el('div', `mp-tab-pane mp-pane-${name}`);
    pane.dataset.tab = name;
    pane.hidden = name !== 'graph';
    this.panes.set(name, pane);
    return pane;
  }

  private buildTabs(): void {
    // a plain eager trace has no tab bar; anything else names what it shows, even with one tab
    if (this.tabs.length > 1 || this.tabs[0] !== 'graph') {
      const bar = el('div', 'mp-tabs');
      bar.setAttribute('role', 'tablist');
      for (const name of this.tabs) {
        const b = el('button', 'mp-tab', TAB_TITLES[name]);
        b.type = 'button';
        b.dataset.testid = `mp-tab-${name}`;
        b.title = TAB_TIPS[name];
        b.setAttribute('role', 'tab');
        b.setAttribute('aria-selected', String(name === 'graph'));
        b.classList.toggle('mp-active', name === 'graph');
        b.addEventListener('click', () => this.showTab(name));
        this.tabButtons.set(name, b);
        bar.appendChild(b);
      }
      this.node.appendChild(bar);
    }
    this.node.appendChild(this.panes.get('graph')!);
    this.panes.get('graph')!.hidden = !this.tabs.includes('graph');
    for (const name of this.tabs.filter(t => t !== 'graph')) this.node.appendChild(this.pane(name));
  }

  /** Show tab `name`, building the Program / Profile / Health view on first use. */
  showTab(name: TabName): void {
    if (!this.tabs.includes(name)) return;
    this.tab = name;
    for (const [t, pane] of this.panes) pane.hidden = t !== name;
    for (const [t, b] of this.tabButtons) {
      b.classList.toggle('mp-active', t === name);
      b.setAttribute('aria-selected', String(t === name));
    }
    const doc = this.idx.doc;
    if (name === 'program' && this.programView === null) {
      const graph = this.tabs.includes('graph') ? { index: this.idx, select: (id: string) => this.selectNode(id) } : undefined;
      this.programView = new ProgramView(doc, { layout: this.layout, graph });
      this.panes.get('program')!.appendChild(this.programView.node);
      this.ready = this.programView.ready;
    } else if (name === 'program' && this.programView) this.ready = this.programView.ready;
    if (name === 'profile' && !this.profileDrawn && doc.profile) {
      this.profileDrawn = true;
      // a timeline span selects its node in the Graph tab only when a graph was recorded beside the profile
      const pick = this.tabs.includes('graph') ? (id: string) => this.selectNode(id) : null;
      renderProfileView(this.panes.get('profile')!, doc.profile, pick);
    }
    if (name === 'health') this.drawHealth();
    if (name === 'graph') this.update();
  }

  private drawHealth(): void {
    const health = this.idx.doc.health;
    if (!health || this.tab !== 'health' || this.healthIteration === this.iteration) return;
    this.healthIteration = this.iteration;
    renderHealth(this.panes.get('health')!, health, this.iterations.length, this.iteration, this.iterations.changes,
      (node, k) => this.pickFromHealth(node, k));
  }

  /** A click on a health chart: that layer's node (or that weight) at iteration k, in the Graph tab. */
  private pickFromHealth(node: string | null, k: number): void {
    const it = this.iterations.list[Math.max(0, Math.min(k, this.iterations.length - 1))];
    let pos = it.first;
    if (node !== null) {
      for (let i = it.first; i <= it.last; i++) {
        const s = this.idx.steps[i];
        if (s.node === node || (s.phase === 'forward' && s.writes.includes(node))) {
          pos = i;
          break;
        }
      }
    }
    this.showTab('graph');
    this.model.seek(pos);
    if (node !== null) this.selectNode(node);
  }

  /** Open program `id` in the Program tab, with its run numbered `run` selected (a run_program node's link). */
  openProgram(id: string, run: number | null = null): void {
    this.showTab('program');
    this.programView?.showProgram(id, run);
    if (this.programView) this.ready = this.programView.ready;
  }

  /** Select trace node `id` (an op, grad node or tensor, of any iteration) in the graph, as a click would. */
  selectNode(id: string): void {
    this.showTab('graph');
    const s = this.idx.steps.findIndex(st => st.node === id);
    if (s >= 0 && this.iterations.at(s) !== this.iteration) this.model.seek(s);
    const rep = this.iterations.toRep(this.iteration).get(id) ?? id;
    this.selected = locate(this.sub, this.view, rep) ?? rep;
    this.update();
    const g = this.nodeEls.get(this.selected);
    if (g) this.viewport.centerOn(g);
  }

  dispose(): void {
    this.disposed = true;
    this.stopTimer();
    this.viewport.dispose();
  }

  private defaultView(): ViewKind {
    const combined = buildView(this.sub, 'combined', { budget: Number.MAX_SAFE_INTEGER });
    return combined.nodes.length <= Math.min(this.budget, 160) ? 'combined' : 'layers';
  }

  private viewOptions() {
    return { open: this.open, unfolded: this.unfolded, budget: this.budget };
  }

  // ---- moving ----------------------------------------------------------------------------------
  /** The view node a step shows as (through its iteration's representative). */
  private viewNodeOf(s: StepInfo): string | null {
    const k = this.iterations.at(s.position);
    if (this.iterations.list[k].structure !== this.drawnStructure) return null;
    const id = s.node === null ? null : this.iterations.toRep(k).get(s.node) ?? s.node;
    return locate(this.sub, this.view, id);
  }

  /** In the layers view a step moves box to box; elsewhere op to op. */
  private boxKey = (s: StepInfo): string | null => (this.viewKind === 'layers' ? this.viewNodeOf(s) : null);

  stepForward(): void {
    this.selected = null;
    this.model.forward(this.viewKind === 'layers' ? this.boxKey : undefined);
  }

  stepBack(): void {
    this.selected = null;
    this.model.back(this.viewKind === 'layers' ? this.boxKey : undefined);
  }

  /** Whether "step into" means more than "step": the next step runs inside a layer the current one is not in. */
  canStepInto(): boolean {
    const s = this.model.current;
    const next = this.model.steps[this.model.index + 1];
    if (!s || !next || next.layer === null) return false;
    return next.layer !== s.layer && !within(s.layer, next.layer);
  }

  stepInto(): void {
    this.selected = null;
    const layer = this.model.into();
    if (this.viewKind === 'layers' && layer !== null) {
      let changed = false;
      for (let p: string | null = layer; p !== null; p = this.sub.layers.get(p)?.parent ?? null) {
        if (!this.open.has(p)) {
          this.open.add(p);
          changed = true;
        }
      }
      if (changed) this.redraw();
    }
  }

  /** Go to iteration k: at the same step within it (keep), else to its first step. */
  goToIteration(k: number, keep: boolean): void {
    const its = this.iterations;
    if (k < 0 || k >= its.length) return;
    const here = its.list[this.iteration];
    const there = its.list[k];
    const offset = keep ? this.model.index - here.first : 0;
    this.model.seek(Math.min(there.last, there.first + Math.max(0, offset)));
  }

  toggle(): void {
    this.model.toggle();
    if (this.model.playing) this.startTimer();
    else this.stopTimer();
  }

  private startTimer(): void {
    this.clearTimer();
    this.timer = window.setInterval(() => {
      if (this.disposed || !this.model.tick()) this.stopTimer();
    }, PLAY_MS);
  }

  private stopTimer(): void {
    this.clearTimer();
    this.model.pause();
  }

  private clearTimer(): void {
    if (this.timer !== null) window.clearInterval(this.timer);
    this.timer = null;
  }

  private onKey(e: KeyboardEvent): void {
    if (e.target instanceof HTMLInputElement && e.target.type !== 'range') return;
    if (this.tab !== 'graph') {  // the Program tab steps its run; the Profile and Health tabs have no keys
      if (this.tab === 'program' && this.programView?.onKey(e)) {
        e.preventDefault();
        e.stopPropagation();
      }
      return;
    }
    const actions: Record<string, () => void> = {
      F8: () => this.toggle(),
      F10: () => this.stepForward(),
      F11: () => (e.shiftKey ? this.model.out() : this.stepInto()),
      ArrowRight: () => this.stepForward(),
      ArrowLeft: () => this.stepBack(),
      PageUp: () => this.goToIteration(this.iteration - 1, true),
      PageDown: () => this.goToIteration(this.iteration + 1, true),
      Home: () => this.model.reset(),
      End: () => this.model.seek(this.model.length - 1)
    };
    const action = actions[e.key];
    if (!action) return;
    e.preventDefault();
    e.stopPropagation();
    action();
  }

  setView(kind: ViewKind): void {
    this.viewKind = kind;
    this.viewSelect.value = kind;
    this.redraw();
  }

  private redraw(): void {
    this.view = buildView(this.sub, this.viewKind, this.viewOptions());
    this.ready = this.draw();
  }

  /** The current step is in an iteration of another structure: draw that structure (laid out once, cached). */
  private switchStructure(k: number): void {
    const structure = this.iterations.list[k].structure;
    this.sub = this.iterations.subIndex(k);
    this.drawnStructure = structure;
    this.open = defaultOpen(this.sub);
    this.unfolded = new Set();
    this.selected = null;
    this.redraw();
  }

  // ---- drawing -------------------------------------------------------------------------------
  private async draw(): Promise<void> {
    const token = ++this.renderToken;
    const live = this.live ? ['Live: the cell is still running; this view follows its newest step.'] : [];
    this.notesEl.textContent = [...live, ...this.nanNote(), ...this.view.notes].join(' ');
    this.graphEl.classList.add('mp-busy');
    let text: string;
    try {
      text = await this.layout(toDot(this.view));
    } catch (err) {
      if (token !== this.renderToken) return;
      this.graphEl.replaceChildren(el('div', 'mp-error', `The graph could not be laid out: ${String(err)}`));
      this.graphEl.classList.remove('mp-busy');
      return;
    }
    if (token !== this.renderToken || this.disposed) return;
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const svg = doc.documentElement as unknown as SVGSVGElement;
    if (svg.nodeName !== 'svg') return;
    this.graphEl.replaceChildren(document.importNode(svg, true));
    this.graphEl.classList.remove('mp-busy');
    const drawn = this.graphEl.querySelector('svg');
    this.indexSvg(drawn);
    this.viewport.attach(drawn);
    this.update();
  }

  /** Where the first NaN/Inf came from, and how to get there. */
  private nanNote(): string[] {
    const first = this.idx.doc.nan_inf.first as { op?: string; layer?: string | null; step?: number } | null;
    if (!first || typeof first.step !== 'number') return [];
    const where = first.layer ? ` in ${first.layer}` : '';
    const pos = this.idx.positionOf.get(first.step);
    const at = pos === undefined ? '' : ` at step ${pos + 1}`;
    return [`The first NaN/Inf comes from ${first.op ?? 'an op'}${where}${at} (red border); Continue (F8) runs to it.`];
  }

  get svg(): SVGSVGElement | null {
    return this.viewport.svg;
  }

  get box(): number[] {
    return this.viewport.box;
  }

  /** Ids from the SVG's <title>s onto data attributes; Graphviz's own ids removed (several
   * outputs of the same trace share a page). */
  private indexSvg(svg: SVGSVGElement | null): void {
    this.nodeEls.clear();
    this.edgeEls = [];
    if (!svg) return;
    svg.querySelectorAll('title').forEach(t => {
      if (t.parentElement?.tagName.toLowerCase() === 'svg') t.remove(); // the graph's own tooltip
    });
    for (const g of Array.from(svg.querySelectorAll<SVGGElement>('g.node'))) {
      const id = g.querySelector('title')?.textContent ?? '';
      g.setAttribute('data-node-id', id);
      g.removeAttribute('id');
      this.nodeEls.set(id, g);
      g.addEventListener('click', e => {
        e.stopPropagation();
        this.selected = id;
        this.update();
      });
      g.addEventListener('dblclick', e => {
        e.stopPropagation();
        this.toggleBox(id);
      });
    }
    for (const g of Array.from(svg.querySelectorAll<SVGGElement>('g.edge'))) {
      const i = Number((g.getAttribute('id') ?? '').replace(/^e/, ''));
      g.removeAttribute('id');
      if (Number.isInteger(i) && this.view.edges[i]) {
        g.setAttribute('data-edge-index', String(i));
        this.edgeEls[i] = g;
      }
    }
    for (const g of Array.from(svg.querySelectorAll<SVGGElement>('g.cluster'))) {
      const id = (g.querySelector('title')?.textContent ?? '').replace(/^cluster_/, '');
      g.removeAttribute('id');
      g.setAttribute('data-cluster-id', id);
      g.addEventListener('dblclick', e => {
        e.stopPropagation();
        this.closeCluster(id);
      });
    }
    this.applySearch();
  }

  /** Double-click: open a layer box into its ops, unfold a Block ×N into its layers. */
  private toggleBox(id: string): void {
    if (this.viewKind !== 'layers') return;
    const node = this.view.nodes.find(n => n.id === id);
    if (!node) return;
    if (node.kind === 'block') this.unfolded.add(id);
    else if (node.kind === 'layer') {
      const path = this.sub.doc.layers[Number(id.slice(1))]?.path;
      if (path) this.open.add(path);
    } else return;
    this.redraw();
  }

  private closeCluster(id: string): void {
    const c = this.view.clusters.find(x => x.id === id);
    if (!c || this.viewKind !== 'layers') return;
    for (const p of [...this.open]) if (within(p, c.path)) this.open.delete(p);
    if (c.kind === 'block') this.unfolded.delete('F' + c.id.slice(1));
    this.redraw();
  }

  // ---- highlighting ------------------------------------------------------------------------------
  /** The step label, scrubber, buttons, run strip, highlights and inspector for the current step. */
  update(): void {
    const m = this.model;
    const s = m.current;
    const k = s ? this.iterations.at(s.position) : 0;
    if (k !== this.iteration) {
      this.iteration = k;
      if (this.tab === 'health') this.drawHealth();
    }
    if (this.iterations.list[k].structure !== this.drawnStructure) {
      this.switchStructure(k); // draws, then comes back here
      return;
    }
    this.labelEl.textContent = this.stepLabel();
    this.scrubber.value = String(m.index);
    this.strip?.setCurrent(k);
    this.buttons['mp-continue'].textContent = m.playing ? '⏸' : '▶';
    this.buttons['mp-continue'].title = m.playing ? 'Pause (F8)' : 'Continue: play until the end or a NaN/Inf (F8)';
    this.buttons['mp-step-back'].disabled = m.index <= 0;
    this.buttons['mp-step-forward'].disabled = m.atEnd;
    const into = this.canStepInto();
    this.buttons['mp-step-into'].disabled = !into;
    this.buttons['mp-step-into'].title = into ? 'Step into the layer (F11)' : 'Step into: the next step enters no new layer, so there is nothing to step into (use Step)';
    this.buttons['mp-step-out'].disabled = m.atEnd || !s || s.layer === null;
    for (const g of this.nodeEls.values()) g.classList.remove(...HIGHLIGHTS);
    for (const g of this.edgeEls) g?.classList.remove(...HIGHLIGHTS);
    const current = s ? this.viewNodeOf(s) : null;
    if (s) this.highlight(s, current);
    if (this.selected) this.nodeEls.get(this.selected)?.classList.add('mp-selected');
    const follow = this.nodeEls.get(this.selected ?? current ?? '');
    if (follow && this.tab === 'graph') this.viewport.ensureVisible(follow);
    const shown = this.selected ?? current;
    const vnode: VNode | null = this.view.nodes.find(n => n.id === shown) ?? null;
    const docStep = s ? (this.idx.doc.steps[s.position]?.index ?? 0) : 0;
    renderInspector(this.idx, this.inspectorNode(vnode, s), docStep, this.inspectorEl, (id, run) => this.openProgram(id, run));
  }

  /** "step 120 of 2,800 · iteration 3 of 50 · backward · linear_grad (Sequential.0)" */
  private stepLabel(): string {
    const m = this.model;
    const s = m.current;
    if (s === null) return 'No steps were recorded in this cell.';
    const it = this.iterations.several ? ` · iteration ${this.iteration + 1} of ${this.iterations.length}` : '';
    return `step ${m.index + 1} / ${m.length}${it} · ${s.phase} · ${s.label}`;
  }

  /** What the inspector shows: the selected node or the step's own node (a grad node, say, even where
   * the view draws its op), as iteration k's own object (not the representative's the graph draws). */
  private inspectorNode(vnode: VNode | null, s: StepInfo | null): VNode | null {
    if (vnode === null) return null;
    const from = this.iterations.fromRep(this.iteration);
    const own = (id: string) => from.get(id) ?? id;
    if (this.selected !== null || s === null || s.node === null) {
      return { ...vnode, id: own(vnode.id), refs: vnode.refs.map(own) };
    }
    if (this.idx.nodes.has(s.node) || this.idx.gradNodes.has(s.node) || this.idx.tensors.has(s.node)) {
      const g = this.idx.gradNodes.get(s.node);
      const label = g?.name ?? this.idx.nodes.get(s.node)?.op ?? this.idx.tensors.get(s.node)?.name ?? s.node;
      return { ...vnode, id: s.node, label, refs: vnode.refs.map(own) };
    }
    return { ...vnode, id: own(vnode.id), refs: vnode.refs.map(own) };
  }

  private highlight(s: StepInfo, current: string | null): void {
    const to = this.iterations.toRep(this.iteration);
    const rep = (ids: string[]) => ids.map(t => to.get(t) ?? t);
    const done = new Set<string>();
    const first = this.iterations.list[this.iteration].first;
    for (let i = first; i <= this.model.index; i++) {
      const id = this.viewNodeOf(this.idx.steps[i]);
      if (id !== null) done.add(id);
    }
    for (const id of done) this.nodeEls.get(id)?.classList.add('mp-done');
    if (current !== null) this.nodeEls.get(current)?.classList.add('mp-current');
    const backward = s.phase === 'backward';
    const mark = (tids: string[], cls: string) => {
      for (const t of tids) {
        const id = this.view.viewOf.get(t);
        if (id !== undefined && id !== current) this.nodeEls.get(id)?.classList.add(cls);
      }
      this.view.edges.forEach((e, i) => {
        if ((e.kind === 'gradient') !== backward || !e.tensors.some(t => tids.includes(t))) return;
        if (backward && current !== null && (cls === 'mp-read' ? e.target : e.source) !== current) return;
        this.edgeEls[i]?.classList.add(cls);
      });
    };
    mark(rep(s.reads), 'mp-read');
    mark(rep(s.writes), 'mp-written');
    this.view.edges.forEach((e, i) => {
      if (done.has(e.source) && done.has(e.target) && e.kind !== 'link') this.edgeEls[i]?.classList.add('mp-done');
      if (backward && e.kind === 'gradient' && e.source === current) this.edgeEls[i]?.classList.add('mp-flowing');
    });
  }

  // ---- search ---------------------------------------------------------------------------------
  private matches(): string[] {
    return searchMatches(this.sub, this.view, this.search.value);
  }

  private applySearch(): void {
    const hits = new Set(this.matches());
    const active = this.search.value.trim() !== '';
    for (const [id, g] of this.nodeEls) {
      g.classList.toggle('mp-match', hits.has(id));
      g.classList.toggle('mp-dim', active && !hits.has(id));
    }
  }

  private selectFirstMatch(): void {
    const [first] = this.matches();
    if (first === undefined) return;
    this.selected = first;
    this.update();
    const g = this.nodeEls.get(first);
    if (g) this.viewport.centerOn(g);
  }

  // ---- the view ---------------------------------------------------------------------------------
  /** The default view: the whole graph when readable so, else around the current node. */
  fit(): void {
    this.viewport.reset();
    const s = this.model.current;
    const id = this.selected ?? (s ? this.viewNodeOf(s) : null);
    const g = id ? this.nodeEls.get(id) : undefined;
    if (g) this.viewport.ensureVisible(g);
  }

  zoom(factor: number, cx?: number, cy?: number): void {
    this.viewport.zoom(factor, cx, cy);
  }
}
