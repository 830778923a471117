/**
 * One output of a trace: the debugger when the document is one we can read, else a clear message
 * with the bundle's own text/html (sanitized by the caller) below it. Pure DOM, shared by the MIME
 * renderer and the sidebar panel.
 *
 * The bundle carries the document as text: compact JSON, or -- for a training run, to keep the saved
 * notebook small -- base64 of its gzip'ed JSON (minipaddle.notebook.display.compressed). The browser
 * unpacks that with DecompressionStream, never past MAX_DOCUMENT_BYTES (a damaged or hostile output
 * cannot exhaust memory); older outputs carry the document as an object.
 */
import { checkDocument, TraceDocument } from './schema';
import { TraceView, TraceViewOptions } from './trace_view';
import { el } from './format';

export interface Rendered {
  node: HTMLElement;
  view: TraceView | null;
  /** resolves when the document is unpacked and its first view drawn */
  ready: Promise<void>;
}

/** The most a compressed document may unpack to. */
export const MAX_DOCUMENT_BYTES = 512 * 1024 * 1024;

export function renderTrace(data: unknown, fallbackHtml: string | null, options: TraceViewOptions = {}): Rendered {
  if (!isCompressed(data)) return renderDocument(parseDocument(data), fallbackHtml, options);
  const holder = el('div', 'mp-trace-holder');
  holder.appendChild(el('div', 'mp-muted', 'unpacking the trace…'));
  const rendered: Rendered = { node: holder, view: null, ready: Promise.resolve() };
  rendered.ready = unpack(data as string)
    .then(doc => renderDocument(doc, fallbackHtml, options), err => renderDocument({ schema_version: null }, fallbackHtml, options,
      `This trace could not be unpacked: ${String(err instanceof Error ? err.message : err)}`))
    .then(r => {
      holder.replaceChildren(r.node);
      rendered.view = r.view;
      return r.ready;
    });
  return rendered;
}

function renderDocument(data: unknown, fallbackHtml: string | null, options: TraceViewOptions, error?: string): Rendered {
  if (error) return { node: errorNode(data, error, fallbackHtml), view: null, ready: Promise.resolve() };
  const check = checkDocument(data);
  if (check.ok) {
    try {
      const view = new TraceView(data as TraceDocument, options);
      return { node: view.node, view, ready: view.ready };
    } catch (err) {
      return { node: errorNode(data, `This trace could not be shown: ${String(err)}`, fallbackHtml), view: null, ready: Promise.resolve() };
    }
  }
  return { node: errorNode(data, check.message, fallbackHtml), view: null, ready: Promise.resolve() };
}

/** Whether `data` is a compressed document: text that is not JSON (JSON text starts with "{"). */
export function isCompressed(data: unknown): boolean {
  return typeof data === 'string' && !/^\s*\{/.test(data);
}

/** base64 of gzip'ed JSON -> the document, refusing more than `limit` bytes of JSON. */
export async function unpack(text: string, limit = MAX_DOCUMENT_BYTES): Promise<unknown> {
  let binary: string;
  try {
    binary = atob(text.replace(/\s+/g, ''));
  } catch {
    throw new Error('it is neither JSON nor base64 text');
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    }
  });
  const reader = source.pipeThrough(new DecompressionStream('gzip') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel();
      throw new Error(`it unpacks to more than ${limit} bytes`);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return JSON.parse(new TextDecoder().decode(all));
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
