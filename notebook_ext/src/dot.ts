/**
 * A graph view written as Graphviz DOT. Each node's DOT name is its view id (n4, g9, t2, L3), so
 * the SVG's <title> gives back the id; `class` carries its kind for the theme-aware CSS (colours come
 * from JupyterLab's CSS variables, not from the DOT). User text is escaped for DOT quoted strings.
 */
import { GraphView, VCluster, VNode } from './views';

/** Above this many nodes edge labels (shapes) are left out: they cost layout time and clutter. */
export const EDGE_LABEL_LIMIT = 150;

const SHAPES: Record<string, string> = {
  op: 'box, style="rounded,filled"',
  grad: 'box, style="rounded,filled"',
  accumulate: 'ellipse, style=filled',
  parameter: 'ellipse, style=filled',
  input: 'ellipse, style=filled',
  leaf: 'ellipse, style=filled',
  tensor: 'ellipse, style="dashed,filled"',
  output: 'doubleoctagon, style=filled',
  layer: 'box3d, style=filled',
  block: 'box3d, style="filled,bold"',
  collapsed: 'note, style="dashed,filled"'
};

export function quote(text: string): string {
  return '"' + text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r?\n/g, '\\n') + '"';
}

function nodeLine(n: VNode): string {
  const lines = [n.label, ...n.detail.filter(d => d)].map(l => (l.length > 60 ? l.slice(0, 59) + '…' : l));
  const cls = `mp-kind-${n.kind}` + (n.nanInf ? ` mp-nan-${n.nanInf}` : '');
  return `${quote(n.id)} [label=${quote(lines.join('\n'))}, shape=${SHAPES[n.kind] ?? 'box'}, class=${quote(cls)}];`;
}

export function toDot(view: GraphView): string {
  const out: string[] = [
    'digraph trace {',
    '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, nodesep=0.25, ranksep=0.35, bgcolor=transparent];',
    '  node [fontname="Helvetica", fontsize=11, height=0.3, margin="0.08,0.03", fillcolor=white];',
    '  edge [fontname="Helvetica", fontsize=10, arrowsize=0.6];'
  ];
  const byCluster = new Map<string | null, VNode[]>();
  for (const n of view.nodes) {
    const list = byCluster.get(n.cluster) ?? [];
    list.push(n);
    byCluster.set(n.cluster, list);
  }
  const kids = new Map<string | null, VCluster[]>();
  const known = new Set(view.clusters.map(c => c.id));
  for (const c of view.clusters) {
    const parent = c.parent !== null && known.has(c.parent) ? c.parent : null;
    const list = kids.get(parent) ?? [];
    list.push(c);
    kids.set(parent, list);
  }
  const emit = (cluster: string | null, indent: string) => {
    for (const c of kids.get(cluster) ?? []) {
      out.push(`${indent}subgraph ${quote('cluster_' + c.id)} {`);
      out.push(`${indent}  label=${quote(c.label)}; class=${quote('mp-cluster-' + c.kind)}; style="rounded,dashed"; fontsize=11;`);
      emit(c.id, indent + '  ');
      out.push(`${indent}}`);
    }
    for (const n of byCluster.get(cluster) ?? []) out.push(indent + nodeLine(n));
  };
  emit(null, '  ');
  for (const c of view.nodes.filter(n => n.cluster !== null && !known.has(n.cluster))) out.push('  ' + nodeLine(c));
  const labels = view.nodes.length <= EDGE_LABEL_LIMIT;
  view.edges.forEach((e, i) => {
    const attrs = [`id=${quote('e' + i)}`, `class=${quote('mp-edge-' + e.kind)}`];
    if (labels && e.label) attrs.push(`label=${quote(e.label)}`);
    if (e.kind === 'link') attrs.push('style=dashed', 'constraint=false', 'arrowhead=none');
    if (e.kind === 'gradient') attrs.push('color="#c2410c"');
    if (e.kind === 'gradient' && view.kind === 'combined') {
      // ranked upward: each grad node sits beside its op, gradients flow back up the forward graph
      attrs.push('dir=back');
      out.push(`  ${quote(e.target)} -> ${quote(e.source)} [${attrs.join(', ')}];`);
    } else out.push(`  ${quote(e.source)} -> ${quote(e.target)} [${attrs.join(', ')}];`);
  });
  out.push('}');
  return out.join('\n');
}
