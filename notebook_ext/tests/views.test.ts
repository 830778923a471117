import { describe, expect, it } from 'vitest';
import { TraceIndex } from '../src/trace_index';
import { buildView, defaultOpen, locate } from '../src/views';
import { quote, toDot } from '../src/dot';
import { chainTrace, fixture } from './helpers';

const ids = (v: { nodes: { id: string }[] }) => v.nodes.map(n => n.id).sort();

describe('graph views', () => {
  const idx = new TraceIndex(fixture('mlp.json'));

  it('forward: ops in layer clusters, parameters and inputs as sources, the loss as output', () => {
    const v = buildView(idx, 'forward');
    expect(ids(v)).toEqual(['n1', 'n2', 'n3', 'n4', 't1', 't10', 't2', 't3', 't6', 't7', 't9', 't11'].sort());
    expect(v.nodes.find(n => n.id === 'n1')!.cluster).toBe('L1'); // MLP.fc1
    expect(v.nodes.find(n => n.id === 't2')!).toMatchObject({ kind: 'parameter', label: 'linear_0.w_0', cluster: 'L1' });
    expect(v.nodes.find(n => n.id === 't10')!.kind).toBe('output');
    expect(v.edges).toContainEqual(expect.objectContaining({ source: 'n1', target: 'n2', kind: 'activation', label: '[16, 8]' }));
    expect(v.clusters.map(c => c.id)).toEqual(['L0', 'L1', 'L2']);
  });

  it('backward: grad nodes and gradient edges; combined links each op to its grad node', () => {
    const b = buildView(idx, 'backward');
    expect(ids(b)).toEqual(['g1', 'g2', 'g3', 'g4', 'g5', 'g6', 'g7', 'g8']);
    expect(b.edges.every(e => e.kind === 'gradient')).toBe(true);
    expect(b.nodes.find(n => n.id === 'g2')!.kind).toBe('accumulate');
    const c = buildView(idx, 'combined');
    expect(c.nodes.length).toBe(20);
    expect(c.edges.filter(e => e.kind === 'link').map(e => `${e.source}-${e.target}`)).toEqual(['n1-g1', 'n2-g4', 'n3-g5', 'n4-g8']);
  });

  it('locates a step\'s node in every view', () => {
    const f = buildView(idx, 'forward');
    const b = buildView(idx, 'backward');
    expect(locate(idx, f, 'g1')).toBe('n1'); // a grad node shows as its op in the forward view
    expect(locate(idx, f, 'g2')).toBe('t2'); // an accumulate node as its parameter
    expect(locate(idx, b, 'n3')).toBe('g5');
    expect(locate(idx, b, 't2')).toBe('g2');
    const l = buildView(idx, 'layers');
    expect(locate(idx, l, 'n1')).toBe('L1'); // fc1 is a box
    expect(locate(idx, l, 'n4')).toBe('n4');
  });

  it('layers: sibling layers of the same structure fold into one "Block ×N"; opening unfolds', () => {
    const deep = new TraceIndex(fixture('blocks.json'));
    const v = buildView(deep, 'layers', { open: new Set(['Deep', 'Deep.blocks']) });
    const block = v.nodes.find(n => n.kind === 'block')!;
    expect(block.detail[0]).toBe('Block ×4');
    expect(block.label).toBe('blocks.0 … blocks.3');
    expect(v.notes.join(' ')).toMatch(/4 layers of the same structure/);
    const ops = deep.doc.layers.find(l => l.path === 'Deep.blocks.2')!;
    expect(locate(deep, v, ops.nodes[0] ?? deep.doc.graph.forward.nodes.find(n => n.layer?.startsWith('Deep.blocks.2'))!.id)).toBe(block.id);
    const unfolded = buildView(deep, 'layers', { open: new Set(['Deep', 'Deep.blocks']), unfolded: new Set([block.id]) });
    expect(unfolded.nodes.filter(n => n.kind === 'layer' && n.label.startsWith('blocks.')).length).toBe(4);
    const open = buildView(deep, 'layers', { open: new Set(['Deep', 'Deep.blocks', 'Deep.blocks.0']) });
    const cluster = open.clusters.find(c => c.kind === 'block')!;
    expect(cluster.label).toMatch(/Block ×4/);
    expect(open.nodes.some(n => n.kind === 'op' && n.detail.includes('×4'))).toBe(true); // op k of each block
  });

  it('opens layers by default as deep as the view stays small', () => {
    expect([...defaultOpen(new TraceIndex(fixture('blocks.json')))]).toEqual(['Deep', 'Deep.blocks', 'Deep.blocks.0', 'Deep.blocks.1', 'Deep.blocks.2', 'Deep.blocks.3']);
    expect([...defaultOpen(new TraceIndex(fixture('blocks.json')), 5)]).toEqual(['Deep']);
    expect([...defaultOpen(idx)]).toEqual(['MLP']);
  });

  it('keeps a 1,000-op trace within its node budget', () => {
    const big = new TraceIndex(chainTrace(500, true));
    const v = buildView(big, 'forward', { budget: 200 });
    expect(v.nodes.length).toBeLessThanOrEqual(200);
    expect(v.nodes.filter(n => n.kind === 'collapsed').length).toBe(1);
    expect(locate(big, v, 'n500')).toMatch(/^X/);
    expect(locate(big, v, 'n1')).toBe('n1');
    expect(v.notes.join(' ')).toMatch(/drawn as 1 "collapsed" box to keep the drawing small/);
    const folded = buildView(new TraceIndex(chainTrace(500)), 'layers');
    expect(folded.nodes.find(n => n.kind === 'block')!.detail[0]).toBe('Block ×500');
  });
});

describe('DOT', () => {
  it('escapes user names', () => {
    expect(quote('a "b" \\ c\nd')).toBe('"a \\"b\\" \\\\ c\\nd"');
  });

  it('writes nodes by trace id, clusters by layer, classes by kind', () => {
    const dot = toDot(buildView(new TraceIndex(fixture('mlp.json')), 'combined'));
    expect(dot).toMatch(/^digraph trace \{/);
    expect(dot).toContain('subgraph "cluster_L1"');
    expect(dot).toMatch(/"n1" \[label="linear", shape=box, style="rounded,filled", class="mp-kind-op"\]/);
    expect(dot).toMatch(/"n1" -> "g1" \[id="e\d+", class="mp-edge-link", style=dashed/);
  });
});
