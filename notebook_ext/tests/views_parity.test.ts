// Parity with Python: graph.py and views.ts build the same views (node ids, kinds, clusters; edges).
// views.golden.json is written by make_view_goldens.py from Python's views of the fixtures; pytest checks
// it is current, this test checks the TypeScript side against it.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TraceIndex } from '../src/trace_index';
import { buildView, ViewKind } from '../src/views';
import { fixture } from './helpers';

interface Structure {
  nodes: [string, string, string | null][];
  edges: [string, string][];
}

const goldens = JSON.parse(readFileSync(join(__dirname, 'views.golden.json'), 'utf-8')) as Record<string, Structure>;

function structure(name: string, kind: ViewKind, depth?: number): Structure {
  const idx = new TraceIndex(fixture(name));
  // graph.py's layers view at depth d: a layer is open when depth(layer) + 1 < d, else a box (graph.py is_box)
  // (a layer without sublayers is always a box there; the extension can also open one into its ops on a click)
  const parents = new Set(idx.doc.layers.map(l => l.parent));
  const open = depth === undefined ? undefined
    : new Set(idx.doc.layers.filter(l => l.depth + 1 < depth && parents.has(l.path)).map(l => l.path));
  const v = buildView(idx, kind, { budget: Number.MAX_SAFE_INTEGER, open });
  const nodes = v.nodes.map(n => [n.id, n.kind, n.cluster] as [string, string, string | null]);
  nodes.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const edges = [...new Set(v.edges.map(e => `${e.source}\u0000${e.target}`))].map(k => k.split('\u0000') as [string, string]);
  edges.sort((a, b) => (a.join(' ') < b.join(' ') ? -1 : a.join(' ') > b.join(' ') ? 1 : 0));
  return { nodes, edges };
}

describe('views.ts draws what graph.py draws', () => {
  for (const key of Object.keys(goldens)) {
    const [name, kind, depth] = key.split(':') as [string, ViewKind, string | undefined];
    it(`${name}, ${kind} view${depth ? ` at depth ${depth}` : ''}`, () => {
      expect(structure(name, kind, depth === undefined ? undefined : Number(depth))).toEqual(goldens[key]);
    });
  }
});
