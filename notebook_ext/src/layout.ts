/**
 * Graph layout: DOT -> SVG text with Graphviz compiled to WebAssembly (@hpcc-js/wasm-graphviz).
 *
 * The Graphviz module (~800 kB, the wasm inlined) is loaded lazily on the first graph, as its own
 * webpack chunk, so JupyterLab starts as fast as without the extension. Layouts are cached by their
 * DOT text: stepping only changes CSS classes on the drawn SVG, never the layout, so a step costs no
 * Graphviz call; switching views or expanding a layer lays out once.
 */
import type { Graphviz } from '@hpcc-js/wasm-graphviz';

let graphviz: Promise<Graphviz> | null = null;
const cache = new Map<string, string>();
const CACHE_SIZE = 24;

export function loadGraphviz(): Promise<Graphviz> {
  if (graphviz === null) {
    graphviz = import('@hpcc-js/wasm-graphviz').then(m => m.Graphviz.load());
    graphviz.catch(() => {
      graphviz = null; // let a later call try again
    });
  }
  return graphviz;
}

/** The SVG text of `dot` laid out by Graphviz's dot engine. */
export async function layoutSvg(dot: string): Promise<string> {
  const hit = cache.get(dot);
  if (hit !== undefined) return hit;
  const gv = await loadGraphviz();
  const svg = gv.dot(dot, 'svg');
  cache.set(dot, svg);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return svg;
}
