import { describe, expect, it } from 'vitest';
import { ProgramView } from '../src/program_view';
import { attrValue } from '../src/inspector';
import { diffMarks, firstMarkedOp, programGraph, programNode, sourceLinks, summaryAt } from '../src/program_graph';
import { StepModel, blockPath, declaringBlock, programRunSteps } from '../src/steps';
import { TraceView } from '../src/trace_view';
import { fixture } from './helpers';
import { passDiffs, programDocument, programs, runs, summary } from './program_helpers';

const [P0, P1, P2] = programs();

describe('the program graph (DOT)', () => {
  it('draws ops as boxes, variables as ellipses, parameters double-ringed, sub-blocks as clusters', () => {
    const g = programGraph(P0);
    expect(g.compact).toBe(false);
    expect([...g.nodes.keys()]).toEqual(expect.arrayContaining(['P0:b0:op0', 'P0:b0:op5', 'P0:b1:op0', 'P0:b2:op0', 'P0:b0:v:x', 'P0:b0:v:fc_0.w_0', 'P0:b1:v:t1_0']));
    expect(g.dot).toMatch(/"P0:b0:op0" \[label="matmul\\n→ tmp_0", shape=box/);
    expect(g.dot).toMatch(/"P0:b0:v:fc_0.w_0" \[label="fc_0.w_0\\n\[4, 3\]", shape=ellipse, style=filled, peripheries=2, class="mp-kind-parameter"\]/);
    expect(g.dot).toMatch(/"P0:b0:v:x" \[label="x\\n\[\?, 4\]".*class="mp-kind-data"/);
    expect(g.dot).toContain('subgraph "cluster_P0:b1" {');
    expect(g.dot).toContain('label="block 2 · cond (op 5) #1"');
    // a sub-block reads its parent's variable: the edge starts at block 0's node, no copy inside
    expect(g.dot).toContain('"P0:b0:v:tmp_2" -> "P0:b1:op0"');
    expect(g.nodes.has('P0:b1:v:tmp_2')).toBe(false);
    expect(g.dot).toContain('"P0:b0:op5" -> "P0:b1:op0" [lhead="cluster_P0:b1", style=dashed');
    expect(g.dot).toContain('class="mp-kind-op mp-role-backward"');
  });

  it('over budget draws only parameters and data, ops linked op to op', () => {
    const g = programGraph(P0, 10);
    expect(g.compact).toBe(true);
    expect(g.nodes.has('P0:b0:v:tmp_0')).toBe(false);
    expect(g.nodes.has('P0:b0:v:fc_0.w_0')).toBe(true);
    expect(g.dot).toContain('"P0:b0:op0" -> "P0:b0:op1" [class="mp-edge-input", label="tmp_0"]');
  });

  it('escapes names for DOT and finds nodes by id', () => {
    const odd = { ...P2, blocks: [{ ...P2.blocks[0], ops: [{ ...P2.blocks[0].ops[0], type: 'say "hi"\\' }] }] };
    expect(programGraph(odd).dot).toContain('label="say \\"hi\\"\\\\');
    expect(programNode(P0, 'P0:b0:op5')).toMatchObject({ kind: 'op', block: 0, op: { type: 'cond' } });
    expect(programNode(P0, 'P0:b1:v:t1_0')).toMatchObject({ kind: 'var', name: 't1_0', v: { shape: [-1, 3] } });
    expect(programNode(P0, 'P1:b0:op0')).toBeNull();
    expect(programNode(P0, 'P0:b0:op99')).toBeNull();
  });
});

describe('op attributes in the inspector', () => {
  it('shows short values as JSON and folds long text (a generated kernel) under its first line', () => {
    expect(attrValue({ a: [1, 2] }).outerHTML).toBe('<code>{"a":[1,2]}</code>');
    expect(attrValue(false).textContent).toBe('false');
    const src = 'def fused_k(x0, out0):\n    for i in range(out0.size):\n        out0[i] = x0[i] * 2\n';
    const long = attrValue(src);
    expect(long.tagName).toBe('DETAILS');
    expect(long.querySelector('summary')?.textContent).toBe('def fused_k(x0, out0):');
    expect(long.querySelector('pre')?.textContent).toBe(src);
  });
});

describe('pass diffs', () => {
  it('marks removed and fused-away ops in BEFORE, the fused op in AFTER, and what it replaced', () => {
    const m = diffMarks(passDiffs()[0], P0, P1);
    expect(m.before.get('P0:b0:op1')).toEqual(['mp-removed', 'mp-fused-away']);
    expect(m.before.get('P0:b0:op2')).toEqual(['mp-removed', 'mp-fused-away']);
    expect(m.before.get('P0:b0:v:tmp_1')).toEqual(['mp-removed']); // gone with the ops
    expect(m.before.has('P0:b0:op0')).toBe(false);
    expect(m.after.get('P1:b0:op1')).toEqual(['mp-added', 'mp-fused']);
    expect(m.replaced.get('P1:b0:op1')?.map(r => r.type)).toEqual(['elementwise_add', 'tanh']);
    const none = diffMarks(passDiffs()[1], P0, P0);
    expect(none.before.size + none.after.size).toBe(0);
  });

  it('opens each side on the first op the pass changed, never on a variable', () => {
    const m = diffMarks(passDiffs()[0], P0, P1);
    expect(firstMarkedOp(m.before, ['mp-removed', 'mp-fused-away'])).toBe('P0:b0:op1');
    expect(firstMarkedOp(m.after, ['mp-fused', 'mp-added'])).toBe('P1:b0:op1');
    const marks = new Map([['P0:b0:v:op7', ['mp-removed']], ['P0:b0:op12', ['mp-removed']]]);
    expect(firstMarkedOp(marks, ['mp-removed'])).toBe('P0:b0:op12');   // a variable named op7 is no op
    expect(firstMarkedOp(new Map(), ['mp-removed'])).toBeNull();
  });
});

describe('stepping an Executor run', () => {
  it('turns run steps into StepInfo: graph ids, block path as the layer, phase from the role', () => {
    const steps = programRunSteps(P0, runs()[0]);
    expect(steps.length).toBe(11);
    expect(steps[0]).toMatchObject({ node: 'P0:b0:op0', phase: 'forward', layer: null, label: 'matmul (op 0)', reads: ['P0:b0:v:x', 'P0:b0:v:fc_0.w_0'], writes: ['P0:b0:v:tmp_0'] });
    expect(steps[6]).toMatchObject({ node: 'P0:b1:op0', layer: 'b1', label: 'relu (block 1, op 0)', reads: ['P0:b0:v:tmp_2'], writes: ['P0:b1:v:t1_0'] });
    expect(steps[7].writes).toEqual(['P0:b0:v:cond_0']); // declared in the parent block
    expect(steps[9].phase).toBe('backward');
    expect(steps[10].phase).toBe('optimizer');
    const m = new StepModel(steps, 6);
    m.out(); // out of the cond's sub-block: the first op after it
    expect(m.index).toBe(8);
    expect(m.label()).toBe('step 9 / 11 · forward · mean (op 6)');
    m.out(); // at the top level: to the next phase
    expect(m.current?.phase).toBe('backward');
  });

  it('says when the recording kept only the first ops of a run', async () => {
    const doc = programDocument();
    doc.program_runs![0].steps_dropped = 40;
    const v = new ProgramView(doc);
    await v.ready;
    expect(v.node.querySelector('[data-testid="mp-run-label"]')?.textContent).toBe('step 1 / 11 · forward · matmul (op 0) (40 later ops not kept)');
  });

  it('flags a step whose outputs hold NaN/Inf, so continue stops there', () => {
    const run = runs()[0];
    run.steps[3].outputs.m = summary(0, { nan_count: 2 });
    const steps = programRunSteps(P0, run);
    expect(steps.map(s => s.nanInf).indexOf(true)).toBe(3);
  });

  it('block paths, declaring blocks, summaries over the run', () => {
    const nested = { ...P0, blocks: [...P0.blocks, { idx: 3, parent: 1, vars: [], ops: [] }] };
    expect(blockPath(nested, 3)).toBe('b1.b3');
    expect(blockPath(nested, 0)).toBeNull();
    expect(declaringBlock(P0, 1, 'tmp_2')).toBe(0);
    expect(declaringBlock(P0, 1, 't1_0')).toBe(1);
    const run = runs()[0];
    expect(summaryAt(run, 'x', 3)?.summary.mean).toBe(0.5); // the feed
    expect(summaryAt(run, 'cond_0', 6)?.summary.mean).toBe(5); // the cond op's
    expect(summaryAt(run, 'cond_0', 7)?.summary.mean).toBe(7);
    expect(summaryAt(run, 'loss', 2)).toBeNull();
  });
});

describe('a real document (Executor runs and the default passes, written by minipaddle)', () => {
  const doc = fixture('programs.json');
  const byId = new Map((doc.programs ?? []).map(p => [p.id, p]));

  it('draws each program with its cond and while bodies as clusters, ids as the spec says', () => {
    for (const p of doc.programs ?? []) {
      const g = programGraph(p);
      const ops = p.blocks.reduce((n, b) => n + b.ops.length, 0);
      expect([...g.nodes.values()].filter(n => n.kind === 'op').length).toBe(ops);
      for (const b of p.blocks.slice(1)) expect(g.dot).toContain(`subgraph "cluster_${p.id}:b${b.idx}"`);
      expect(g.dot).not.toContain(':v:"'); // an absent optional slot ('') is no variable
    }
    const optimized = byId.get('P5')!;
    expect(programGraph(optimized).dot).toMatch(/label="block 4 · while \(op \d+\) #1"/);
  });

  it('marks every diff\'s ops on the right programs', () => {
    for (const d of doc.pass_diffs ?? []) {
      const m = diffMarks(d, byId.get(d.before), byId.get(d.after));
      const before = programGraph(byId.get(d.before)!).nodes;
      const after = programGraph(byId.get(d.after)!).nodes;
      for (const id of m.before.keys()) expect(before.has(id), `${d.pass}: ${id}`).toBe(true);
      for (const id of m.after.keys()) expect(after.has(id), `${d.pass}: ${id}`).toBe(true);
      for (const r of d.removed) expect(m.before.get(`${d.before}:b${r.block}:op${r.index}`)).toContain('mp-removed');
      for (const r of d.added) expect(m.after.get(`${d.after}:b${r.block}:op${r.index}`)).toContain('mp-added');
      if (!d.changed) expect(m.before.size + m.after.size).toBe(0);
    }
    const fuse = (doc.pass_diffs ?? []).find(d => d.pass === 'fuse_elementwise')!;
    expect(diffMarks(fuse).replaced.size).toBe(fuse.fused.length);
  });

  it('steps a run with a while body repeated, every step on a drawn op', () => {
    const run = (doc.program_runs ?? []).find(r => r.program === 'P5')!;
    const program = byId.get('P5')!;
    const steps = programRunSteps(program, run);
    const nodes = programGraph(program).nodes;
    for (const s of steps) {
      expect(nodes.has(s.node!), s.node!).toBe(true);
      for (const v of [...s.reads, ...s.writes]) expect(nodes.has(v), v).toBe(true);
    }
    const body = steps.filter(s => s.layer === 'b4');
    expect(new Set(body.map(s => s.node)).size).toBeLessThan(body.length); // iterations repeat the same ops
    const first = body[0];
    const again = body.filter(s => s.node === first.node);
    expect(again.map(s => / · iteration (\d+)\/(\d+)$/.exec(s.label)?.slice(1).join('/'))).toEqual(again.map((_, i) => `${i + 1}/${again.length}`));
    expect(steps[0].label).not.toContain('iteration');
    expect(new Set(steps.map(s => s.phase))).toEqual(new Set(['forward', 'backward', 'optimizer']));
  });
});

describe('dy2static source links', () => {
  it('maps each op to its line of the original source and back', () => {
    const { opsOfLine, lineOfOp } = sourceLinks(P2);
    expect(opsOfLine.get(12)).toEqual(['P2:b0:op1', 'P2:b0:op2', 'P2:b0:op3']);
    expect(lineOfOp.get('P2:b1:op0')).toBe(13);
    expect(sourceLinks(P0).lineOfOp.size).toBe(0);
  });
});

const q = (root: HTMLElement, sel: string) => root.querySelector(sel) as HTMLElement;
const marked = (root: HTMLElement, side: string, cls: string) =>
  Array.from(root.querySelectorAll(`[data-testid="mp-program-graph"][data-side="${side}"] g.node.${cls}`)).map(g => g.getAttribute('data-node-id')).sort();
const clickNode = (root: HTMLElement, side: string, id: string) =>
  (root.querySelector(`[data-testid="mp-program-graph"][data-side="${side}"] g.node[data-node-id="${id}"]`) as unknown as HTMLElement).dispatchEvent(new MouseEvent('click', { bubbles: true }));

describe('the Program view DOM', () => {
  async function mounted() {
    const v = new ProgramView(programDocument());
    document.body.replaceChildren(v.node);
    await v.ready;
    return v;
  }

  it('selects among the programs and draws the chosen one with the real Graphviz', async () => {
    const v = await mounted();
    const select = q(v.node, '[data-testid="mp-program-select"]') as HTMLSelectElement;
    expect(Array.from(select.options).map(o => o.value)).toEqual(['P0', 'P1', 'P2']);
    expect(select.value).toBe('P0'); // the program with a run
    expect(Array.from(v.node.querySelectorAll('[data-side="main"] g.node')).map(g => g.getAttribute('data-node-id')))
      .toEqual(expect.arrayContaining(['P0:b0:op0', 'P0:b1:op0', 'P0:b0:v:fc_0.w_0']));
    expect(v.node.querySelector('[data-side="main"] g.cluster')).not.toBeNull();
    expect(q(v.node, '[data-testid="mp-program-text"]').textContent).toContain('matmul ...');
    const svg = q(v.node, '[data-side="main"] svg');
    const whole = svg.getAttribute('viewBox')!.split(' ').map(Number);
    q(v.node, '[data-testid="mp-program-zoom-in"]').click();
    expect(Number(svg.getAttribute('viewBox')!.split(' ')[2])).toBeCloseTo(whole[2] * 0.8, 0);
    q(v.node, '[data-testid="mp-program-fit"]').click();
    expect(svg.getAttribute('viewBox')!.split(' ').map(Number)).toEqual(whole.map(x => Number(x.toFixed(1))));
    clickNode(v.node, 'main', 'P0:b0:op5');
    const text = q(v.node, '[data-testid="mp-program-inspector"]').textContent ?? '';
    expect(text).toMatch(/cond · P0:b0:op5.*Cond: pred \[\] bool.*sub-blocksblock 1, block 2/s);
    expect(marked(v.node, 'main', 'mp-selected')).toEqual(['P0:b0:op5']);
    clickNode(v.node, 'main', 'P0:b0:op0');
    expect(q(v.node, '[data-testid="mp-program-inspector"]').textContent).toMatch(/transpose_xfalse/);
    select.value = 'P1';
    select.dispatchEvent(new Event('change'));
    await v.ready;
    expect(v.node.querySelector('[data-side="main"] g.node[data-node-id="P1:b0:op1"]')).not.toBeNull();
    expect(q(v.node, '.mp-run-bar').hidden).toBe(true); // P1 never ran
  });

  it('steps the run: the current op lit, done ops, read and written variables, outputs in the inspector', async () => {
    const v = await mounted();
    expect(q(v.node, '[data-testid="mp-run-label"]').textContent).toBe('step 1 / 11 · forward · matmul (op 0)');
    expect(marked(v.node, 'main', 'mp-current')).toEqual(['P0:b0:op0']);
    expect(marked(v.node, 'main', 'mp-read')).toEqual(['P0:b0:v:fc_0.w_0', 'P0:b0:v:x']);
    const slider = q(v.node, '[data-testid="mp-run-step"]') as HTMLInputElement;
    expect(slider.max).toBe('10');
    slider.value = '6';
    slider.dispatchEvent(new Event('input'));
    expect(marked(v.node, 'main', 'mp-current')).toEqual(['P0:b1:op0']);
    expect(marked(v.node, 'main', 'mp-done')).toEqual(['P0:b0:op0', 'P0:b0:op1', 'P0:b0:op2', 'P0:b0:op3', 'P0:b0:op4', 'P0:b0:op5']);
    expect(marked(v.node, 'main', 'mp-written')).toEqual(['P0:b1:v:t1_0']);
    const inspector = q(v.node, '[data-testid="mp-program-inspector"]');
    expect(inspector.textContent).toMatch(/relu · P0:b1:op0.*run step7 \/ 11.*out t1_0.*\[2, 3\] · min 5 · max 7 · mean 6/s);
    expect(inspector.querySelector('[data-testid="mp-heatmap"]')).not.toBeNull();
    expect(inspector.querySelector('[data-testid="mp-histogram"]')).not.toBeNull();
    q(v.node, '[data-testid="mp-run-forward"]').click();
    expect(marked(v.node, 'main', 'mp-current')).toEqual(['P0:b1:op1']);
    expect(v.onKey(new KeyboardEvent('keydown', { key: 'ArrowLeft' }))).toBe(true);
    expect(v.model?.index).toBe(6);
    clickNode(v.node, 'main', 'P0:b0:v:x');
    expect(inspector.textContent).toMatch(/x · P0:b0:v:x.*\[\?, 4\].*data.*fed/s);
  });

  it('shows a pass diff side by side: removed ops in before, the fused op (and what it replaced) in after', async () => {
    const v = await mounted();
    v.model?.seek(2);
    const items = Array.from(v.node.querySelectorAll<HTMLElement>('[data-testid="mp-pass-list"] [data-testid="mp-pass-item"]'));
    expect(items.map(i => i.dataset.pass)).toEqual(['constant_folding', 'fuse_elementwise']);
    expect(items[1].textContent).toContain('12→11 ops · 0.41 ms');
    expect(items[0].classList.contains('mp-unchanged')).toBe(true);
    items[1].click();
    await v.ready;
    expect(q(v.node, '[data-side="main"]').closest('.mp-program-pane')?.hasAttribute('hidden')).toBe(true);
    expect(marked(v.node, 'before', 'mp-removed')).toEqual(['P0:b0:op1', 'P0:b0:op2', 'P0:b0:v:tmp_1']);
    expect(marked(v.node, 'after', 'mp-fused')).toEqual(['P1:b0:op1']);
    clickNode(v.node, 'after', 'P1:b0:op1');
    expect(q(v.node, '[data-testid="mp-program-inspector"]').textContent).toMatch(/fused_elementwise.*replaceselementwise_add \(op 1\), tanh \(op 2\).*added by fuse_elementwise/s);
    clickNode(v.node, 'before', 'P0:b0:op2');
    expect(q(v.node, '[data-testid="mp-program-inspector"]').textContent).toMatch(/tanh · P0:b0:op2.*removed by fuse_elementwise/s);
    expect(items[1].classList.contains('mp-active')).toBe(true);
    items[1].click(); // again: back to the program alone
    await v.ready;
    expect(v.diff).toBeNull();
    expect(marked(v.node, 'main', 'mp-current')).toEqual(['P0:b0:op2']); // the run where it was
    expect(marked(v.node, 'main', 'mp-removed')).toEqual([]);
  });

  it('dy2static: original and transformed source beside the program, linked both ways', async () => {
    const v = await mounted();
    expect(q(v.node, '.mp-sources').hidden).toBe(true);
    v.showProgram('P2');
    await v.ready;
    expect(q(v.node, '.mp-sources').hidden).toBe(false);
    const original = q(v.node, '[data-testid="mp-source-original"]');
    expect(original.textContent).toContain('if y.mean() > 0:');
    expect(q(v.node, '[data-testid="mp-source-transformed"]').textContent).toContain('convert_ifelse');
    clickNode(v.node, 'main', 'P2:b1:op0');
    expect(Array.from(original.querySelectorAll('.mp-source-current')).map(e => (e as HTMLElement).dataset.line)).toEqual(['13']);
    (original.querySelector('[data-line="12"]') as HTMLElement).click();
    expect(marked(v.node, 'main', 'mp-source-match')).toEqual(['P2:b0:op1', 'P2:b0:op2', 'P2:b0:op3']);
    expect(Array.from(original.querySelectorAll('.mp-source-current')).map(e => (e as HTMLElement).dataset.line)).toEqual(['12']);
  });
});

describe('the document tabs', () => {
  it('a trace without programs or profile has no tab bar (the DOM stays as before)', async () => {
    const v = new TraceView(fixture('mlp.json'));
    await v.ready;
    expect(v.tabs).toEqual(['graph']);
    expect(v.node.querySelector('.mp-tabs')).toBeNull();
    expect(v.node.querySelector('[data-testid="mp-program-view"]')).toBeNull();
  });

  it('adds a Program tab; keys step the run there and the graph in the Graph tab', async () => {
    const v = new TraceView(programDocument());
    document.body.replaceChildren(v.node);
    await v.ready;
    expect(v.tabs).toEqual(['graph', 'program']);
    expect(v.tab).toBe('graph');
    expect(q(v.node, '[data-testid="mp-tab-profile"]')).toBeNull();
    q(v.node, '[data-testid="mp-tab-program"]').click();
    await v.programView!.ready;
    expect(q(v.node, '.mp-pane-graph').hidden).toBe(true);
    expect(q(v.node, '[data-testid="mp-program-view"]')).not.toBeNull();
    const key = (k: string) => v.node.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }));
    key('ArrowRight');
    expect(v.programView!.model?.index).toBe(1);
    expect(v.model.index).toBe(0);
    q(v.node, '[data-testid="mp-tab-graph"]').click();
    key('ArrowRight');
    expect(v.model.index).toBe(1);
    expect(v.programView!.model?.index).toBe(1);
  });

  it('opens on the Program tab when the document holds programs and no eager ops', async () => {
    const v = new TraceView(programDocument(false));
    document.body.replaceChildren(v.node);
    await v.ready;
    expect(v.tab).toBe('program');
    expect(v.node.querySelector('[data-side="main"] g.node[data-node-id="P0:b0:op0"]')).not.toBeNull();
  });

  it('adds a Profile tab that mounts the profile view; selecting a node there selects it in the graph', async () => {
    const profile = { generator: 'minipaddle.profiler', settings: {}, duration_ns: 10, steps: [], phases: [], ops: [], spans: [], spans_dropped: 0, memory: null, errors: [] };
    const v = new TraceView({ ...fixture('mlp.json'), profile } as never);
    document.body.replaceChildren(v.node);
    await v.ready;
    expect(v.tabs).toEqual(['graph', 'profile']);
    q(v.node, '[data-testid="mp-tab-profile"]').click();
    const host = q(v.node, '.mp-pane-profile');
    expect(host.hidden).toBe(false);
    expect(host.querySelector('[data-testid="mp-profile-view"]')).not.toBeNull();
    v.selectNode('n3');
    expect(v.tab).toBe('graph');
    expect(Array.from(v.node.querySelectorAll('[data-testid="mp-graph"] g.node.mp-selected')).map(g => g.getAttribute('data-node-id'))).toEqual(['n3']);
    expect(q(v.node, '[data-testid="mp-inspector"]').textContent).toMatch(/linear.*MLP\.fc2/s);
  });
});
