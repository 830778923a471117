/**
 * The debugger itself, as plain DOM (no Lumino, so it is unit-testable and shared by the output
 * renderer and the sidebar panel): toolbar, graph, inspector, over one trace document.
 *
 * State lives in this object and comes only from the document, so a saved notebook reopens fully
 * navigable. Stepping never re-lays out the graph: it moves CSS classes on the drawn SVG
 * (mp-current, mp-read, mp-written, mp-done, mp-flowing). The DOM follows the contract the browser
 * tests use (data-testid mp-trace, mp-graph, mp-continue, ..., node `g.node[data-node-id]`).
 *
 * Tabs (mp-tab-graph, mp-tab-program, mp-tab-profile) appear only for the sections the document
 * holds: Graph always, Program when it has `programs`, Profile when `profile` is set; with the
 * Graph tab alone there is no tab bar. The Program and Profile tabs are built when first opened.
 */
import { installPanZoom, zoomedBox } from './pan_zoom';
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

const PLAY_MS = 450;
const HIGHLIGHTS = ['mp-current', 'mp-read', 'mp-written', 'mp-done', 'mp-flowing', 'mp-selected'];

export type TabName = 'graph' | 'program' | 'profile';

export interface TraceViewOptions {
  view?: ViewKind;
  /** the tab shown first (default: graph, or program for a document with programs and no eager ops) */
  tab?: TabName;
  budget?: number;
  /** layout function (tests pass a fake); default Graphviz wasm */
  layout?: (dot: string) => Promise<string>;
}

export class TraceView {
  readonly node: HTMLDivElement;
  readonly idx: TraceIndex;
  readonly model: StepModel;
  view: GraphView;
  viewKind: ViewKind;
  private open: Set<string>;
  private unfolded = new Set<string>();
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
  private nodeEls = new Map<string, SVGGElement>();
  private edgeEls: SVGGElement[] = [];
  svg: SVGSVGElement | null = null;
  private baseBox: number[] = [0, 0, 100, 100];
  box: number[] = [0, 0, 100, 100];
  private budget: number;
  private layout: (dot: string) => Promise<string>;
  private renderToken = 0;
  readonly tabs: TabName[];
  tab: TabName = 'graph';
  programView: ProgramView | null = null;
  private panes = new Map<TabName, HTMLDivElement>();
  private tabButtons = new Map<TabName, HTMLButtonElement>();
  private profileDrawn = false;
  /** resolves when the current graph is drawn (tests and the panel wait on it) */
  ready: Promise<void> = Promise.resolve();
  disposed = false;

  constructor(doc: TraceDocument, options: TraceViewOptions = {}) {
    this.idx = new TraceIndex(doc);
    this.model = new StepModel(this.idx.steps);
    this.budget = options.budget ?? DEFAULT_BUDGET;
    this.layout = options.layout ?? layoutSvg;
    this.open = defaultOpen(this.idx);
    this.viewKind = options.view ?? this.defaultView();
    this.view = buildView(this.idx, this.viewKind, this.viewOptions());

    this.node = el('div', 'mp-trace');
    this.node.dataset.testid = 'mp-trace';
    this.node.dataset.schemaVersion = doc.schema_version;
    this.node.tabIndex = 0;
    this.node.setAttribute('data-lm-suppress-shortcuts', 'true');
    this.tabs = ['graph'];
    if (doc.programs?.length) this.tabs.push('program');
    if (doc.profile) this.tabs.push('profile');
    const graphPane = this.pane('graph');
    const bar = el('div', 'mp-toolbar');
    const add = (id: string, text: string, title: string, action: () => void) => {
      const b = el('button', 'mp-button', text);
      b.type = 'button';
      b.dataset.testid = id;
      b.title = title;
      b.addEventListener('click', () => {
        action();
        this.node.focus({ preventScroll: true });
      });
      bar.appendChild(b);
      this.buttons[id] = b;
    };
    add('mp-reset', '↺', 'Reset to the first step', () => this.model.reset());
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
    this.scrubber.title = 'Timeline: drag to any step';
    this.scrubber.addEventListener('input', () => this.model.seek(Number(this.scrubber.value)));
    bar.appendChild(this.scrubber);
    this.labelEl = el('span', 'mp-step-label');
    this.labelEl.dataset.testid = 'mp-step-label';
    bar.appendChild(this.labelEl);
    this.viewSelect = el('select', 'mp-view');
    this.viewSelect.dataset.testid = 'mp-view';
    this.viewSelect.title = 'Which graph to draw';
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
    this.search.placeholder = 'search op or layer';
    this.search.dataset.testid = 'mp-search';
    this.search.addEventListener('input', () => this.applySearch());
    this.search.addEventListener('keydown', e => {
      e.stopPropagation(); // typing here is not a debugger shortcut nor a notebook one
      if (e.key === 'Enter') this.selectFirstMatch();
    });
    bar.appendChild(this.search);
    add('mp-fit', '⤢', 'Fit the graph', () => this.fit());
    add('mp-zoom-in', '+', 'Zoom in (Ctrl+wheel)', () => this.zoom(0.8));
    add('mp-zoom-out', '−', 'Zoom out', () => this.zoom(1.25));
    graphPane.appendChild(bar);
    this.notesEl = el('div', 'mp-notes');
    graphPane.appendChild(this.notesEl);
    const main = el('div', 'mp-main');
    this.graphEl = el('div', 'mp-graph');
    this.graphEl.dataset.testid = 'mp-graph';
    this.inspectorEl = el('div', 'mp-inspector');
    this.inspectorEl.dataset.testid = 'mp-inspector';
    main.appendChild(this.graphEl);
    main.appendChild(this.inspectorEl);
    graphPane.appendChild(main);
    this.buildTabs();
    this.node.addEventListener('keydown', e => this.onKey(e));
    installPanZoom(this.graphEl, this);
    this.model.onChange(() => this.update());
    this.ready = this.draw();
    this.update();
    const eager = doc.graph.forward.nodes.length + doc.steps.length > 0;
    const first = options.tab ?? (!eager && this.tabs.includes('program') ? 'program' : 'graph');
    if (first !== 'graph' && this.tabs.includes(first)) {
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
    if (this.tabs.length > 1) {
      const bar = el('div', 'mp-tabs');
      bar.setAttribute('role', 'tablist');
      const titles: Record<TabName, string> = { graph: 'Graph', program: 'Program', profile: 'Profile' };
      for (const name of this.tabs) {
        const b = el('button', 'mp-tab', titles[name]);
        b.type = 'button';
        b.dataset.testid = `mp-tab-${name}`;
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
    for (const name of this.tabs.filter(t => t !== 'graph')) this.node.appendChild(this.pane(name));
  }

  /** Show tab `name`, building the Program / Profile view on first use. */
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
      this.programView = new ProgramView(doc, { layout: this.layout });
      this.panes.get('program')!.appendChild(this.programView.node);
      this.ready = this.programView.ready;
    } else if (name === 'program' && this.programView) this.ready = this.programView.ready;
    if (name === 'profile' && !this.profileDrawn && doc.profile) {
      this.profileDrawn = true;
      renderProfileView(this.panes.get('profile')!, doc.profile, id => this.selectNode(id));
    }
  }

  /** Select trace node `id` (an op, grad node or tensor) in the graph view, as a click would. */
  selectNode(id: string): void {
    this.showTab('graph');
    this.selected = locate(this.idx, this.view, id) ?? id;
    this.update();
    this.centerOn(this.selected);
  }

  dispose(): void {
    this.disposed = true;
    this.stopTimer();
  }

  private defaultView(): ViewKind {
    const combined = buildView(this.idx, 'combined', { budget: Number.MAX_SAFE_INTEGER });
    return combined.nodes.length <= Math.min(this.budget, 160) ? 'combined' : 'layers';
  }

  private viewOptions() {
    return { open: this.open, unfolded: this.unfolded, budget: this.budget };
  }

  // ---- moving ----------------------------------------------------------------------------------
  /** In the layers view a step moves box to box; elsewhere op to op. */
  private boxKey = (s: StepInfo): string | null => (this.viewKind === 'layers' ? locate(this.idx, this.view, s.node) : null);

  stepForward(): void {
    this.selected = null;
    this.model.forward(this.viewKind === 'layers' ? this.boxKey : undefined);
  }

  stepBack(): void {
    this.selected = null;
    this.model.back(this.viewKind === 'layers' ? this.boxKey : undefined);
  }

  stepInto(): void {
    this.selected = null;
    const layer = this.model.into();
    if (this.viewKind === 'layers' && layer !== null) {
      let changed = false;
      for (let p: string | null = layer; p !== null; p = this.idx.layers.get(p)?.parent ?? null) {
        if (!this.open.has(p)) {
          this.open.add(p);
          changed = true;
        }
      }
      if (changed) this.redraw();
    }
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
    if (this.tab !== 'graph') {  // the Program tab steps its run; the Profile tab has no keys
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
    this.view = buildView(this.idx, this.viewKind, this.viewOptions());
    this.ready = this.draw();
  }

  // ---- drawing -------------------------------------------------------------------------------
  private async draw(): Promise<void> {
    const token = ++this.renderToken;
    this.notesEl.textContent = this.view.notes.join(' ');
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
    this.svg = this.graphEl.querySelector('svg');
    this.indexSvg();
    this.update();
  }

  /** Ids from the SVG's <title>s onto data attributes; Graphviz's own ids removed (several
   * outputs of the same trace share a page). */
  private indexSvg(): void {
    const svg = this.svg;
    this.nodeEls.clear();
    this.edgeEls = [];
    if (!svg) return;
    const vb = (svg.getAttribute('viewBox') ?? '0 0 100 100').split(/[\s,]+/).map(Number);
    this.baseBox = vb.length === 4 && vb.every(Number.isFinite) ? vb : [0, 0, 100, 100];
    this.box = [...this.baseBox];
    svg.removeAttribute('width');
    svg.removeAttribute('height');
    svg.setAttribute('preserveAspectRatio', 'xMidYMin meet');
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
    this.applyBox();
    this.applySearch();
  }

  /** Double-click: open a layer box into its ops, unfold a Block ×N into its layers. */
  private toggleBox(id: string): void {
    if (this.viewKind !== 'layers') return;
    const node = this.view.nodes.find(n => n.id === id);
    if (!node) return;
    if (node.kind === 'block') this.unfolded.add(id);
    else if (node.kind === 'layer') {
      const path = this.idx.doc.layers[Number(id.slice(1))]?.path;
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
  /** The step label, scrubber, buttons, highlights and inspector for the current step. */
  update(): void {
    const m = this.model;
    const s = m.current;
    this.labelEl.textContent = m.label();
    this.scrubber.value = String(m.index);
    this.buttons['mp-continue'].textContent = m.playing ? '⏸' : '▶';
    this.buttons['mp-continue'].title = m.playing ? 'Pause (F8)' : 'Continue: play until the end or a NaN/Inf (F8)';
    this.buttons['mp-step-back'].disabled = m.index <= 0;
    this.buttons['mp-step-forward'].disabled = m.atEnd;
    this.buttons['mp-step-into'].disabled = m.atEnd;
    this.buttons['mp-step-out'].disabled = m.atEnd;
    for (const g of this.nodeEls.values()) g.classList.remove(...HIGHLIGHTS);
    for (const g of this.edgeEls) g?.classList.remove(...HIGHLIGHTS);
    const current = s ? locate(this.idx, this.view, s.node) : null;
    if (s) this.highlight(s, current);
    if (this.selected) this.nodeEls.get(this.selected)?.classList.add('mp-selected');
    const shown = this.selected ?? current;
    const vnode: VNode | null = this.view.nodes.find(n => n.id === shown) ?? null;
    const docStep = s ? (this.idx.doc.steps[s.position]?.index ?? 0) : 0;
    renderInspector(this.idx, this.inspectorNode(vnode, s), docStep, this.inspectorEl);
  }

  /** The inspector shows the step's own node (a grad node, say) even where the view draws its op. */
  private inspectorNode(vnode: VNode | null, s: StepInfo | null): VNode | null {
    if (this.selected !== null || s === null || s.node === null || vnode === null || vnode.id === s.node) return vnode;
    if (this.idx.nodes.has(s.node) || this.idx.gradNodes.has(s.node) || this.idx.tensors.has(s.node)) {
      const g = this.idx.gradNodes.get(s.node);
      const label = g?.name ?? this.idx.nodes.get(s.node)?.op ?? this.idx.tensors.get(s.node)?.name ?? s.node;
      return { ...vnode, id: s.node, label };
    }
    return vnode;
  }

  private highlight(s: StepInfo, current: string | null): void {
    const done = new Set<string>();
    for (let i = 0; i <= this.model.index; i++) {
      const id = locate(this.idx, this.view, this.idx.steps[i].node);
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
    mark(s.reads, 'mp-read');
    mark(s.writes, 'mp-written');
    this.view.edges.forEach((e, i) => {
      if (done.has(e.source) && done.has(e.target) && e.kind !== 'link') this.edgeEls[i]?.classList.add('mp-done');
      if (backward && e.kind === 'gradient' && e.source === current) this.edgeEls[i]?.classList.add('mp-flowing');
    });
  }

  // ---- search ---------------------------------------------------------------------------------
  private matches(): string[] {
    const q = this.search.value.trim().toLowerCase();
    if (!q) return [];
    return this.view.nodes.filter(n => {
      if (n.label.toLowerCase().includes(q) || n.id.toLowerCase() === q) return true;
      return n.refs.some(r => {
        const op = this.idx.nodes.get(r);
        if (op) return op.op.toLowerCase().includes(q) || (op.layer ?? '').toLowerCase().includes(q);
        return (this.idx.gradNodes.get(r)?.name ?? '').toLowerCase().includes(q);
      });
    }).map(n => n.id);
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
    this.centerOn(first);
  }

  // ---- fit, zoom, pan -----------------------------------------------------------------------------
  fit(): void {
    this.box = [...this.baseBox];
    this.applyBox();
  }

  /** Zoom about (cx, cy), the centre by default (factor < 1 zooms in). */
  zoom(factor: number, cx?: number, cy?: number): void {
    this.box = zoomedBox(this.box, this.baseBox[2], factor, cx, cy);
    this.applyBox();
  }

  private centerOn(id: string): void {
    const g = this.nodeEls.get(id);
    if (!g || typeof g.getBBox !== 'function') return;
    try {
      const b = g.getBBox();
      const [, , w, h] = this.box;
      const m = g.closest('g.graph')?.getAttribute('transform') ?? '';
      const t = /translate\(([-\d.]+)[ ,]([-\d.]+)\)/.exec(m);
      const tx = t ? Number(t[1]) : 0;
      const ty = t ? Number(t[2]) : 0;
      this.box = [b.x + tx + b.width / 2 - w / 2, b.y + ty + b.height / 2 - h / 2, w, h];
      this.applyBox();
    } catch {
      // getBBox throws on a hidden SVG: nothing to centre
    }
  }

  applyBox(): void {
    this.svg?.setAttribute('viewBox', this.box.map(v => v.toFixed(1)).join(' '));
  }
}
