/**
 * The Program tab: a static Program (the document's `programs`) drawn as a graph, each pass's diff
 * (`pass_diffs`) as its before and after programs side by side, an Executor run (`program_runs`)
 * stepped op by op, and for a dy2static program its original and transformed source beside it.
 *
 * The graph itself (DOT, diff marks, source links) comes from program_graph.ts. As in the eager
 * graph, stepping and selecting only move CSS classes on the drawn SVG; Graphviz lays out each
 * program once. A run of a `@to_static` Program names the run_program node whose call made it
 * ("run by: run_program #n", program_links.ts); a click selects that node in the Graph tab.
 */
import { Viewport } from './viewport';
import { sourceText } from './names';
import { PassDiff, ProgramDoc, ProgramRun } from './schema';
import { StepModel, programRunSteps } from './steps';
import { layoutSvg } from './layout';
import { el } from './format';
import { renderProgramInspector } from './inspector';
import { DiffMarks, addMark, diffMarks, firstMarkedOp, programGraph, sourceLinks } from './program_graph';
import { ProgramCaller, programCaller } from './program_links';
import { TraceIndex } from './trace_index';

/** The highlight classes the view sets (and clears) on graph nodes. */
const MARKS = ['mp-current', 'mp-done', 'mp-read', 'mp-written', 'mp-selected', 'mp-removed', 'mp-added', 'mp-fused',
  'mp-fused-away', 'mp-source-match'];

export interface ProgramViewOptions {
  layout?: (dot: string) => Promise<string>;
  /** the eager graph's index and its node selection (TraceView.selectNode): a run shows the run_program
   * node that made it, and selects it on a click */
  graph?: { index: TraceIndex; select: (id: string) => void };
}

/** One drawn program graph: the SVG, its nodes by id, clicks, and a readable viewport (viewport.ts:
 * Ctrl+wheel zoom, drag pan, a minimap when the program does not fit). */
class GraphPane {
  readonly node: HTMLDivElement;
  readonly graphEl: HTMLDivElement;
  nodeEls = new Map<string, SVGGElement>();
  program: ProgramDoc | null = null;
  readonly viewport: Viewport;
  private token = 0;

  constructor(side: string, private layout: (dot: string) => Promise<string>, private onClick: (id: string) => void) {
    this.node = el('div', 'mp-program-pane');
    this.graphEl = el('div', 'mp-program-graph');
    this.graphEl.dataset.testid = 'mp-program-graph';
    this.graphEl.dataset.side = side;
    this.node.append(el('div', 'mp-pane-title'), this.graphEl);
    this.viewport = new Viewport(this.graphEl, { minimap: true });
  }

  get svg(): SVGSVGElement | null {
    return this.viewport.svg;
  }

  async draw(program: ProgramDoc, title: string): Promise<void> {
    const token = ++this.token;
    this.program = program;
    (this.node.firstChild as HTMLElement).textContent = title;
    const graph = programGraph(program);
    this.graphEl.dataset.programId = program.id;
    this.graphEl.classList.add('mp-busy');
    let text: string;
    try {
      text = await this.layout(graph.dot);
    } catch (err) {
      if (token === this.token) this.graphEl.replaceChildren(el('div', 'mp-error', `The program could not be laid out: ${String(err)}`));
      return;
    } finally {
      if (token === this.token) this.graphEl.classList.remove('mp-busy');
    }
    if (token !== this.token) return;
    const svg = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement as unknown as SVGSVGElement;
    if (svg.nodeName !== 'svg') return;
    this.graphEl.replaceChildren(document.importNode(svg, true));
    const drawn = this.graphEl.querySelector('svg');
    this.index(drawn);
    this.viewport.attach(drawn);
  }

  /** The default view: the whole program when it is readable so, else its top. */
  fit(): void {
    this.viewport.reset();
  }

  /** Zoom about (cx, cy), the centre by default (factor < 1 zooms in). */
  zoom(factor: number, cx?: number, cy?: number): void {
    this.viewport.zoom(factor, cx, cy);
  }

  /** Keep node `id` in view (the current op of a run, a selected op). */
  follow(id: string | null): void {
    const g = id ? this.nodeEls.get(id) : undefined;
    if (g && !this.node.hidden) this.viewport.ensureVisible(g);
  }

  private index(svg: SVGSVGElement | null): void {
    this.nodeEls.clear();
    if (!svg) return;
    svg.querySelectorAll('title').forEach(t => {
      if (t.parentElement?.tagName.toLowerCase() === 'svg') t.remove();
    });
    for (const g of Array.from(svg.querySelectorAll<SVGGElement>('g.node, g.edge, g.cluster'))) {
      g.removeAttribute('id'); // several outputs share a page
      if (!g.classList.contains('node')) continue;
      const id = g.querySelector('title')?.textContent ?? '';
      g.setAttribute('data-node-id', id);
      this.nodeEls.set(id, g);
      g.addEventListener('click', e => {
        e.stopPropagation();
        this.onClick(id);
      });
    }
  }

  /** Set the highlight classes: exactly `marks` (id -> classes), the rest cleared. */
  mark(marks: Map<string, string[]>): void {
    for (const [id, g] of this.nodeEls) {
      g.classList.remove(...MARKS);
      const cls = marks.get(id);
      if (cls) g.classList.add(...cls);
    }
  }
}

/** The Program tab (data-testid mp-program-view): program select, pass list, run stepping, graph(s),
 * inspector, dy2static source, the program's text. */
export class ProgramView {
  readonly node: HTMLDivElement;
  readonly programs: Map<string, ProgramDoc>;
  program: ProgramDoc;
  diff: PassDiff | null = null;
  run: ProgramRun | null = null;
  model: StepModel | null = null;
  selected: string | null = null;
  selectedLine: number | null = null;
  /** resolves when the graph(s) for the current choice are drawn */
  ready: Promise<void> = Promise.resolve();
  private layout: (dot: string) => Promise<string>;
  private main: GraphPane;
  private before: GraphPane;
  private after: GraphPane;
  private select: HTMLSelectElement;
  private runBar: HTMLDivElement;
  private runSelect: HTMLSelectElement;
  private slider: HTMLInputElement;
  private runLabel: HTMLSpanElement;
  private runBy: HTMLButtonElement;
  private graph: ProgramViewOptions['graph'];
  private runButtons: HTMLButtonElement[] = [];
  private passList: HTMLDivElement;
  private inspector: HTMLDivElement;
  private sources: HTMLDivElement;
  private textEl: HTMLPreElement;
  private marks: DiffMarks | null = null;
  private body!: HTMLDivElement;
  private report!: HTMLDivElement;
  private links = sourceLinks({ id: '', name: '', role: '', text: '', blocks: [], origin: null });

  constructor(private doc: { programs?: ProgramDoc[]; pass_diffs?: PassDiff[]; program_runs?: ProgramRun[] },
    options: ProgramViewOptions = {}) {
    this.layout = options.layout ?? layoutSvg;
    this.graph = options.graph;
    const programs = doc.programs ?? [];
    this.programs = new Map(programs.map(p => [p.id, p]));
    const runs = doc.program_runs ?? [];
    // the program the latest run ran (in a training loop: the optimized program), else the first
    this.program = this.programs.get(runs[runs.length - 1]?.program ?? '') ?? programs[0];
    this.node = el('div', 'mp-program-view');
    this.node.dataset.testid = 'mp-program-view';
    const bar = el('div', 'mp-toolbar');
    bar.appendChild(el('span', 'mp-muted', 'program'));
    this.select = el('select', 'mp-view mp-program-select');
    this.select.dataset.testid = 'mp-program-select';
    for (const p of programs) {
      const o = el('option', undefined, `${p.id} · ${p.name} (${p.role}, ${p.blocks.reduce((n, b) => n + b.ops.length, 0)} ops)`);
      o.value = p.id;
      this.select.appendChild(o);
    }
    this.select.addEventListener('change', () => this.showProgram(this.select.value));
    bar.appendChild(this.select);
    this.runBar = el('div', 'mp-run-bar');
    this.runSelect = el('select', 'mp-view');
    this.runSelect.dataset.testid = 'mp-run-select';
    this.runSelect.addEventListener('change', () => this.showRun(Number(this.runSelect.value)));
    const button = (id: string, text: string, title: string, action: () => void) => {
      const b = el('button', 'mp-button', text);
      b.type = 'button';
      b.dataset.testid = id;
      b.title = title;
      b.addEventListener('click', action);
      this.runButtons.push(b);
      return b;
    };
    this.slider = el('input', 'mp-scrubber');
    this.slider.type = 'range';
    this.slider.min = '0';
    this.slider.dataset.testid = 'mp-run-step';
    this.slider.title = 'Executor run: drag to any executed op';
    this.slider.addEventListener('input', () => this.model?.seek(Number(this.slider.value)));
    this.runLabel = el('span', 'mp-step-label');
    this.runLabel.dataset.testid = 'mp-run-label';
    this.runBy = el('button', 'mp-program-link mp-run-by');
    this.runBy.type = 'button';
    this.runBy.dataset.testid = 'mp-run-by';
    this.runBy.hidden = true;
    this.runBy.addEventListener('click', () => {
      const node = this.runBy.dataset.node;
      if (node && this.graph) this.graph.select(node);
    });
    this.runBar.append(el('span', 'mp-muted', 'run'), this.runSelect,
      button('mp-run-back', '◀', 'Previous op (←)', () => this.model?.back()), this.slider,
      button('mp-run-forward', '▶|', 'Next op (→, F10)', () => this.model?.forward()), this.runLabel, this.runBy);
    bar.appendChild(this.runBar);
    const panes = () => (this.diff ? [this.before, this.after] : [this.main]);
    for (const [id, text, title, act] of [
      ['mp-program-fit', '⤢', 'Fit the graph', (p: GraphPane) => p.fit()],
      ['mp-program-zoom-in', '+', 'Zoom in (Ctrl+wheel)', (p: GraphPane) => p.zoom(0.8)],
      ['mp-program-zoom-out', '−', 'Zoom out', (p: GraphPane) => p.zoom(1.25)]
    ] as [string, string, string, (p: GraphPane) => void][]) {
      const b = el('button', 'mp-button', text);
      b.type = 'button';
      b.dataset.testid = id;
      b.title = title;
      b.addEventListener('click', () => panes().forEach(act));
      bar.appendChild(b);
    }
    this.node.appendChild(bar);
    this.passList = el('div', 'mp-pass-list');
    this.passList.dataset.testid = 'mp-pass-list';
    this.fillPassList();
    this.node.appendChild(this.passList);
    this.report = el('div', 'mp-pass-report');
    this.report.dataset.testid = 'mp-pass-report';
    this.report.hidden = true;
    this.node.appendChild(this.report);
    const body = el('div', 'mp-main');
    this.body = body;
    const graphs = el('div', 'mp-program-graphs');
    const click = (id: string) => this.selectNode(id);
    this.main = new GraphPane('main', this.layout, click);
    this.before = new GraphPane('before', this.layout, click);
    this.after = new GraphPane('after', this.layout, click);
    graphs.append(this.main.node, this.before.node, this.after.node);
    this.inspector = el('div', 'mp-inspector mp-program-inspector');
    this.inspector.dataset.testid = 'mp-program-inspector';
    body.append(graphs, this.inspector);
    this.node.appendChild(body);
    this.sources = el('div', 'mp-sources');
    this.node.appendChild(this.sources);
    const details = el('details', 'mp-program-text');
    details.appendChild(el('summary', undefined, 'program text'));
    this.textEl = el('pre');
    this.textEl.dataset.testid = 'mp-program-text';
    details.appendChild(this.textEl);
    this.node.appendChild(details);
    if (this.program) this.showProgram(this.program.id);
  }

  private fillPassList(): void {
    const diffs = [...(this.doc.pass_diffs ?? [])].sort((a, b) => a.step - b.step);
    this.passList.hidden = diffs.length === 0;
    this.passList.replaceChildren(el('span', 'mp-muted', 'passes'));
    for (const d of diffs) {
      const item = el('button', 'mp-pass-item' + (d.changed ? '' : ' mp-unchanged'));
      item.type = 'button';
      item.dataset.testid = 'mp-pass-item';
      item.dataset.pass = d.pass;
      item.title = d.summary;
      item.append(el('span', 'mp-pass-name', `${d.step}. ${d.pass}`),
        el('span', 'mp-muted', ` ${d.ops_before}→${d.ops_after} ops · ${d.time_ms.toFixed(2)} ms`));
      item.addEventListener('click', () => this.showDiff(this.diff === d ? null : d));
      this.passList.appendChild(item);
    }
  }

  /** Show program `id` alone (leaving a pass diff), with its run numbered `run` (else its first) ready to step. */
  showProgram(id: string, run: number | null = null): void {
    const p = this.programs.get(id);
    if (!p) return;
    this.program = p;
    this.diff = null;
    this.marks = null;
    this.selected = null;
    this.selectedLine = null;
    this.select.value = id;
    this.links = sourceLinks(p);
    this.textEl.textContent = p.text;
    const runs = (this.doc.program_runs ?? []).filter(r => r.program === id);
    this.runSelect.replaceChildren(...runs.map((r, i) => {
      const o = el('option', undefined, `run ${r.run} (${r.steps.length} ops${r.steps_dropped ? `, ${r.steps_dropped} dropped` : ''})`);
      o.value = String(i);
      return o;
    }));
    this.runSelect.hidden = runs.length < 2;
    this.runBar.hidden = runs.length === 0;
    const chosen = Math.max(0, runs.findIndex(r => r.run === run));
    this.runSelect.value = String(chosen);
    this.showRun(chosen);
    this.renderSources();
    this.setLayout(false);
    this.ready = this.main.draw(p, `${p.id} · ${p.name}`).then(() => this.update());
    this.update();
  }

  showRun(i: number): void {
    const runs = (this.doc.program_runs ?? []).filter(r => r.program === this.program.id);
    this.run = runs[i] ?? null;
    this.model = this.run ? new StepModel(programRunSteps(this.program, this.run)) : null;
    this.model?.onChange(() => {
      this.selected = null;
      this.update();
    });
    this.slider.max = String(Math.max(0, (this.model?.length ?? 1) - 1));
    this.showCaller(this.graph && this.run ? programCaller(this.graph.index, this.program, this.run.run) : null);
    this.update();
  }

  /** The run's "run by: run_program #n" link (hidden where no run_program call made the run). */
  private showCaller(caller: ProgramCaller | null): void {
    this.runBy.hidden = caller === null;
    this.runBy.textContent = caller ? `run by: run_program #${caller.call} ↖` : '';
    this.runBy.title = caller ? `Select the run_program node ${caller.node} (its call ${caller.call} made this run of its ${caller.label}) in the Graph tab` : '';
    if (caller) this.runBy.dataset.node = caller.node;
    else delete this.runBy.dataset.node;
  }

  /** Show a pass's before and after programs side by side (null: back to the program alone). */
  showDiff(diff: PassDiff | null): void {
    if (diff === null) {  // back to the program as it was: same run, same step, graph already drawn
      this.diff = null;
      this.marks = null;
      this.selected = null;
      this.setLayout(false);
      this.update();
      return;
    }
    const before = this.programs.get(diff.before);
    const after = this.programs.get(diff.after);
    this.diff = diff;
    this.selected = null;
    this.marks = diffMarks(diff, before, after);
    this.setLayout(true);
    const draws: Promise<void>[] = [];
    if (before) draws.push(this.before.draw(before, `before ${diff.pass}: ${before.id} · ${diff.ops_before} ops`));
    if (after) draws.push(this.after.draw(after, `after ${diff.pass}: ${after.id} · ${diff.ops_after} ops`));
    this.ready = Promise.all(draws).then(() => {
      this.update();
      // open each side on the change: the first op the pass removed, the first it made (else the top)
      if (this.diff === diff && this.marks) {
        this.before.follow(firstMarkedOp(this.marks.before, ['mp-removed', 'mp-fused-away']));
        this.after.follow(firstMarkedOp(this.marks.after, ['mp-fused', 'mp-added']));
      }
    });
    this.update();
  }

  private setLayout(diff: boolean): void {
    this.main.node.hidden = diff;
    this.before.node.hidden = !diff;
    this.after.node.hidden = !diff;
    // a diff uses the full width, before above after, with the pass's own report; the run controls stay
    // where they are (disabled: a run steps the program, not a diff), so nothing jumps
    this.body.classList.toggle('mp-diff-layout', diff);
    this.report.hidden = !diff;
    this.report.replaceChildren();
    if (diff && this.diff) this.report.append(...passReport(this.diff));
    this.runBar.hidden = !this.run;
    this.runBar.classList.toggle('mp-disabled', diff);
    this.runBar.title = diff ? 'Close the pass diff (click the pass again) to step the run' : '';
    for (const item of Array.from(this.passList.children)) {
      const d = (item as HTMLElement).dataset.pass;
      item.classList.toggle('mp-active', diff && this.diff !== null && d === this.diff.pass);
    }
    this.sources.hidden = diff || this.program.origin?.kind !== 'dy2static';
  }

  selectNode(id: string): void {
    this.selected = id;
    const line = this.links.lineOfOp.get(id);
    this.selectedLine = this.diff === null && line !== undefined ? line : null;
    this.update();
    if (this.selectedLine !== null) this.sources.querySelector(`[data-line="${this.selectedLine}"]`)?.scrollIntoView?.({ block: 'nearest' });
  }

  /** dy2static: a click on a source line highlights the ops it produced. */
  selectLine(line: number): void {
    this.selectedLine = line;
    const ops = this.links.opsOfLine.get(line) ?? [];
    this.selected = ops[0] ?? null;
    this.update();
  }

  onKey(e: KeyboardEvent): boolean {
    const m = this.model;
    if (!m || this.diff !== null) return false;
    const actions: Record<string, () => void> = {
      ArrowRight: () => m.forward(), F10: () => m.forward(), ArrowLeft: () => m.back(), Home: () => m.reset(),
      End: () => m.seek(m.length - 1), F11: () => (e.shiftKey ? m.out() : m.forward())
    };
    const action = actions[e.key];
    if (!action) return false;
    action();
    return true;
  }

  /** The current run step's info, or null when no run is shown. */
  private currentStep() {
    return this.model && this.diff === null ? this.model.current : null;
  }

  update(): void {
    const m = this.model;
    const dropped = this.run?.steps_dropped ? ` (${this.run.steps_dropped} later ops not kept)` : '';
    this.runLabel.textContent = m ? m.label() + dropped : '';
    if (m) this.slider.value = String(m.index);
    const [back, fwd] = this.runButtons;
    const inDiff = this.diff !== null;
    if (back) back.disabled = inDiff || !m || m.index <= 0;
    if (fwd) fwd.disabled = inDiff || !m || m.atEnd;
    this.slider.disabled = inDiff;
    if (this.diff !== null && this.marks !== null) {
      const sel = (marks: Map<string, string[]>) => {
        const out = new Map(marks);
        if (this.selected) out.set(this.selected, [...(out.get(this.selected) ?? []), 'mp-selected']);
        return out;
      };
      this.before.mark(sel(this.marks.before));
      this.after.mark(sel(this.marks.after));
    } else {
      this.main.mark(this.runMarks());
      this.main.follow(this.selected ?? this.currentStep()?.node ?? null);
    }
    this.markSources();
    this.renderInspector();
  }

  private runMarks(): Map<string, string[]> {
    const marks = new Map<string, string[]>();
    const s = this.currentStep();
    if (s && this.model) {
      for (let i = 0; i < this.model.index; i++) addMark(marks, this.model.steps[i].node ?? '', 'mp-done');
      for (const v of s.reads) addMark(marks, v, 'mp-read');
      for (const v of s.writes) addMark(marks, v, 'mp-written');
      if (s.node) addMark(marks, s.node, 'mp-current');
    }
    if (this.selectedLine !== null) for (const id of this.links.opsOfLine.get(this.selectedLine) ?? []) addMark(marks, id, 'mp-source-match');
    if (this.selected) addMark(marks, this.selected, 'mp-selected');
    return marks;
  }

  // ---- dy2static source ------------------------------------------------------------------------
  private renderSources(): void {
    const origin = this.program.origin;
    this.sources.replaceChildren();
    if (!origin || origin.kind !== 'dy2static') return;
    const pane = (testid: string, title: string, text: string, first: number | null) => {
      const box = el('div', 'mp-source-pane');
      box.appendChild(el('div', 'mp-pane-title', title));
      const code = el('div', 'mp-source');
      code.dataset.testid = testid;
      text.replace(/\n$/, '').split('\n').forEach((line, i) => {
        const div = el('div', 'mp-source-line');
        const n = first === null ? i + 1 : first + i;
        div.dataset.line = String(n);
        div.append(el('span', 'mp-line-no', String(n)), el('span', 'mp-line-code', line || ' '));
        if (first !== null) {
          if (this.links.opsOfLine.has(n)) div.classList.add('mp-has-ops');
          div.addEventListener('click', () => this.selectLine(n));
        }
        code.appendChild(div);
      });
      box.appendChild(code);
      return box;
    };
    this.sources.append(
      pane('mp-source-original', `${origin.function} · ${sourceText({ file: origin.file, line: origin.first_line, code: '', cell: origin.cell })}`, origin.original_source, origin.first_line),
      pane('mp-source-transformed', 'transformed by to_static', origin.transformed_source, null));
  }

  private markSources(): void {
    const ops = this.selectedLine !== null ? this.links.opsOfLine.get(this.selectedLine) ?? [] : [];
    for (const line of Array.from(this.sources.querySelectorAll<HTMLElement>('[data-testid="mp-source-original"] .mp-source-line'))) {
      line.classList.toggle('mp-source-current', Number(line.dataset.line) === this.selectedLine);
      line.title = Number(line.dataset.line) === this.selectedLine ? `${ops.length} op(s) from this line` : '';
    }
  }

  // ---- inspector ---------------------------------------------------------------------------------
  private renderInspector(): void {
    const s = this.currentStep();
    const id = this.selected ?? s?.node ?? null;
    const program = this.diff === null ? this.program : this.programs.get(id?.split(':')[0] ?? '') ?? this.program;
    renderProgramInspector({
      program, id, diff: this.diff, marks: this.marks, run: this.diff === null ? this.run : null,
      step: this.model && this.diff === null ? this.model.index : null, stepNode: s?.node ?? null
    }, this.inspector);
  }
}

/** A pass's own report as text: what it did, in its words, and the numbers it measured. */
function passReport(d: PassDiff): HTMLElement[] {
  const head = el('div', 'mp-pass-report-head', `${d.pass}: ${d.summary} (${d.ops_before} → ${d.ops_after} ops, ${d.time_ms.toFixed(2)} ms)`);
  const parts: HTMLElement[] = [head];
  const lines: string[] = [];
  if (d.removed.length) lines.push(`removed: ${d.removed.map(r => r.type).join(', ')}`);
  if (d.added.length) lines.push(`added: ${d.added.map(r => r.type).join(', ')}`);
  for (const f of d.fused) lines.push(`fused ${f.from.map(r => r.type).join(' + ')} into ${f.into.type}${f.expression ? `: ${f.expression}` : ''}`);
  for (const [k, v] of Object.entries(d.details ?? {})) lines.push(`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  if (lines.length) parts.push(el('pre', 'mp-pass-report-body', lines.join('\n')));
  return parts;
}
