/**
 * The "Graph Debugger" panel in the right sidebar (JupyterLab's `jupyterlab.extension`): it follows
 * the active notebook and shows its latest trace output -- the one with the highest execution count
 * -- with the same controls as the output, so a long notebook needs no scrolling back.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookTracker, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';
import { MIME_TYPE } from './schema';
import { renderTrace } from './render';
import { TraceView } from './trace_view';

export const PANEL_ID = 'minipaddle-graph-debugger';

/** The latest trace in a notebook: {data, html} of the output with the highest execution count. */
export function latestTrace(panel: NotebookPanel | null): { data: unknown; html: string | null; key: string } | null {
  const cells = panel?.content.model?.cells;
  if (!cells) return null;
  let best: { data: unknown; html: string | null; key: string } | null = null;
  let bestCount = -1;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type !== 'code') continue;
    const outputs = (cell as unknown as { outputs: { length: number; get(j: number): { data: Record<string, unknown> } } }).outputs;
    const count = Number((cell as unknown as { executionCount: number | null }).executionCount ?? 0);
    for (let j = 0; j < outputs.length; j++) {
      const data = outputs.get(j).data;
      if (!(MIME_TYPE in data) || count < bestCount) continue;
      const raw = data[MIME_TYPE];
      const html = data['text/html'];
      bestCount = count;
      // the key says whether the output changed: a text document by its length and head, an object by its fields
      const doc = typeof raw === 'string' ? null : (raw as Record<string, unknown>);
      const key = typeof raw === 'string' ? `${raw.length}:${raw.slice(0, 200)}`
        : `${String(doc?.['created_at'])}:${String((doc?.['steps'] as unknown[] | undefined)?.length)}`;
      best = { data: raw, html: typeof html === 'string' ? html : null, key: `${cell.id}:${j}:${key}` };
    }
  }
  return best;
}

export class DebuggerPanel extends Widget {
  private view: TraceView | null = null;
  private key: string | null = null;
  private pending: number | null = null;

  constructor(private tracker: INotebookTracker, private sanitize: (html: string) => string) {
    super();
    this.id = PANEL_ID;
    this.title.label = 'Graph Debugger';
    this.title.caption = 'minipaddle: step through the latest trace of the active notebook';
    this.addClass('mp-panel');
    tracker.currentChanged.connect(() => this.schedule());
    NotebookActions.executed.connect((_, args) => {
      if (args.notebook === tracker.currentWidget?.content) this.schedule();
    });
    this.schedule();
  }

  /** Outputs arrive in bursts: look again a little later, once. */
  schedule(): void {
    if (this.pending !== null) window.clearTimeout(this.pending);
    this.pending = window.setTimeout(() => {
      this.pending = null;
      this.refresh();
    }, 200);
  }

  refresh(): void {
    if (this.isDisposed) return;
    const found = latestTrace(this.tracker.currentWidget);
    if (found !== null && found.key === this.key) return;
    this.view?.dispose();
    this.view = null;
    this.key = found?.key ?? null;
    if (found === null) {
      const empty = document.createElement('div');
      empty.className = 'mp-panel-empty';
      empty.textContent = 'Run a %%paddle_trace cell in the active notebook: its trace shows here.';
      this.node.replaceChildren(empty);
      return;
    }
    const rendered = renderTrace(found.data, found.html === null ? null : this.sanitize(found.html));
    this.node.replaceChildren(rendered.node);
    const key = this.key;
    void rendered.ready.then(() => {
      if (this.key === key && !this.isDisposed) this.view = rendered.view;
      else rendered.view?.dispose();
    });
  }

  protected onAfterShow(): void {
    this.refresh();
  }

  dispose(): void {
    this.view?.dispose();
    super.dispose();
  }
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'minipaddle:graph-debugger',
  description: 'A right-sidebar panel with the active notebook\'s latest minipaddle trace.',
  autoStart: true,
  requires: [INotebookTracker],
  activate: (app: JupyterFrontEnd, tracker: INotebookTracker) => {
    const sanitizer = (app as unknown as { rendermime?: { sanitizer?: { sanitize(h: string): string } } }).rendermime?.sanitizer;
    const panel = new DebuggerPanel(tracker, html => (sanitizer ? sanitizer.sanitize(html) : ''));
    app.shell.add(panel, 'right', { rank: 700 });
    tracker.widgetUpdated.connect(() => panel.schedule());
  }
};

export default plugin;
