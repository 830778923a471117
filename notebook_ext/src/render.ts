/**
 * One output of a trace: the debugger when the document is one we can read, else a clear message
 * with the bundle's own text/html (sanitized by the caller) below it. Pure DOM, shared by the MIME
 * renderer and the sidebar panel.
 */
import { checkDocument, TraceDocument } from './schema';
import { TraceView, TraceViewOptions } from './trace_view';
import { el } from './format';

export interface Rendered {
  node: HTMLElement;
  view: TraceView | null;
}

export function renderTrace(data: unknown, fallbackHtml: string | null, options: TraceViewOptions = {}): Rendered {
  data = parseDocument(data);
  const check = checkDocument(data);
  if (check.ok) {
    try {
      const view = new TraceView(data as TraceDocument, options);
      return { node: view.node, view };
    } catch (err) {
      return { node: errorNode(data, `This trace could not be shown: ${String(err)}`, fallbackHtml), view: null };
    }
  }
  return { node: errorNode(data, check.message, fallbackHtml), view: null };
}

/** The document itself: the bundle carries it as compact JSON text (a string keeps a saved notebook
 * small: nbformat would pretty-print an object line by line); older outputs carry the object. */
export function parseDocument(data: unknown): unknown {
  if (typeof data !== 'string') return data;
  try {
    return JSON.parse(data);
  } catch {
    return data; // checkDocument says it is not a trace document
  }
}

function errorNode(data: unknown, message: string, fallbackHtml: string | null): HTMLElement {
  const root = el('div', 'mp-trace mp-trace-error');
  root.dataset.testid = 'mp-trace';
  const version = data !== null && typeof data === 'object' ? (data as Record<string, unknown>)['schema_version'] : undefined;
  root.dataset.schemaVersion = typeof version === 'string' ? version : String(version ?? '');
  const box = el('div', 'mp-schema-error', message);
  box.dataset.testid = 'mp-schema-error';
  box.setAttribute('role', 'alert');
  root.appendChild(box);
  const fallback = el('div', 'mp-fallback');
  if (fallbackHtml) fallback.innerHTML = fallbackHtml; // already sanitized by the caller
  else fallback.textContent = '(the output has no HTML view)';
  root.appendChild(fallback);
  return root;
}
