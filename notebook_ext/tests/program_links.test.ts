import { describe, expect, it, vi } from 'vitest';
import { renderInspector } from '../src/inspector';
import { programCaller, programLinks } from '../src/program_links';
import { ProgramView } from '../src/program_view';
import { TraceIndex } from '../src/trace_index';
import { TraceView } from '../src/trace_view';
import type { ProgramRun, TraceDocument } from '../src/schema';
import { VNode } from '../src/views';
import { fixture } from './helpers';
import { programs, runs } from './program_helpers';

const FORWARD = 'run_program 0 forward: Net.forward';
const BACKWARD = 'run_program 0 backward: Net.forward';

/** The MLP trace with its two linear ops (n1, n3) made calls of one @to_static Layer: run_program ops naming
 * its forward (P3) and backward (P4) Programs, each run twice by the Executor. The backward pass reaches n3's
 * grad node (g5, step 5) before n1's (g1, step 9), so n3's backward made the backward Program's run 0. */
function toStaticDoc(): TraceDocument {
  const doc = fixture('mlp.json');
  for (const n of doc.graph.forward.nodes.filter(m => m.id === 'n1' || m.id === 'n3')) {
    n.op = 'run_program';
    n.attrs = { program: 'PartialProgram(0: forward 5 ops, backward 1 ops, saves 4 values)', program_id: 0,
      forward_program: FORWARD, backward_program: BACKWARD };
  }
  const [main, , dy2static] = programs();
  const run = (program: string, k: number): ProgramRun => ({ ...runs()[0], program, run: k });
  return {
    ...doc,
    programs: [...programs(), { ...main, id: 'P3', name: FORWARD, role: 'dy2static' }, { ...dy2static, id: 'P4', name: BACKWARD }],
    program_runs: [run('P3', 0), run('P4', 0), run('P3', 1), run('P4', 1)]
  };
}

const opNode = (idx: TraceIndex, id: string): VNode => ({ id, kind: 'op', label: idx.nodes.get(id)!.op, detail: [], cluster: null,
  order: 0, refs: [id], nanInf: null } as VNode);

/** The inspector's rows as [title, text] pairs. */
const rows = (out: HTMLElement) => Array.from(out.querySelectorAll('table.mp-props > tr')).map(tr =>
  [tr.children[0].textContent, tr.children[1].textContent] as [string, string]);

describe('a run_program node links to its Programs', () => {
  it('finds both Programs by name, and the run each call made', () => {
    const idx = new TraceIndex(toStaticDoc());
    const links = (id: string) => programLinks(idx, idx.nodes.get(id)!).map(l => [l.label, l.program?.id, l.run]);
    expect(links('n1')).toEqual([['forward Program', 'P3', 0], ['backward Program', 'P4', 1]]);
    expect(links('n3')).toEqual([['forward Program', 'P3', 1], ['backward Program', 'P4', 0]]);
    expect(programLinks(idx, idx.nodes.get('n2')!)).toEqual([]); // relu names no Program
  });

  it('shows a row per Program whose button opens it with its run; the other attrs stay JSON', () => {
    const idx = new TraceIndex(toStaticDoc());
    const out = document.createElement('div');
    const open = vi.fn();
    renderInspector(idx, opNode(idx, 'n1'), 0, out, open);
    const table = Object.fromEntries(rows(out));
    expect(table['forward Program']).toBe('P3 · 12 ops · run 0 ↗');
    expect(table['backward Program']).toBe('P4 · 5 ops · run 1 ↗');
    expect(JSON.parse(table.attrs)).toEqual({ program: 'PartialProgram(0: forward 5 ops, backward 1 ops, saves 4 values)', program_id: 0 });
    const buttons = Array.from(out.querySelectorAll<HTMLButtonElement>('[data-testid="mp-program-link"]'));
    expect(buttons.map(b => b.dataset.programId)).toEqual(['P3', 'P4']);
    expect(buttons[1].title).toBe(`Open ${BACKWARD} in the Program tab, its run 1 ready to step`);
    buttons[1].click();
    expect(open).toHaveBeenCalledTimes(1);
    expect(open).toHaveBeenCalledWith('P4', 1);
    buttons[0].click();
    expect(open).toHaveBeenLastCalledWith('P3', 0);
  });

  it("says so where the document lacks the Program or its run", () => {
    const doc = toStaticDoc();
    doc.programs = doc.programs!.filter(p => p.id !== 'P3');
    doc.program_runs = doc.program_runs!.filter(r => !(r.program === 'P4' && r.run === 1));
    const idx = new TraceIndex(doc);
    const out = document.createElement('div');
    const open = vi.fn();
    renderInspector(idx, opNode(idx, 'n1'), 0, out, open);
    const table = Object.fromEntries(rows(out));
    expect(table['forward Program']).toBe(`${FORWARD} (not in this trace)`);
    expect(table['backward Program']).toBe('P4 · 5 ops ↗'); // no run 1 kept: the Program alone
    out.querySelector<HTMLButtonElement>('[data-testid="mp-program-link"]')!.click();
    expect(open).toHaveBeenCalledWith('P4', null);
  });

  it('shows the backward Program on the run_program grad node too', () => {
    const idx = new TraceIndex(toStaticDoc());
    const out = document.createElement('div');
    const open = vi.fn();
    renderInspector(idx, { id: 'g5', kind: 'grad', label: 'g5', detail: [], refs: ['g5'] } as never, 5, out, open);
    const table = Object.fromEntries(rows(out));
    expect(table['backward Program']).toBe('P4 · 5 ops · run 0 ↗');
    expect(table['forward Program']).toBeUndefined();
    out.querySelector<HTMLButtonElement>('[data-testid="mp-program-link"]')!.click();
    expect(open).toHaveBeenCalledWith('P4', 0);
  });

  it('without an opener the button is there but disabled', () => {
    const idx = new TraceIndex(toStaticDoc());
    const out = document.createElement('div');
    renderInspector(idx, opNode(idx, 'n3'), 2, out);
    const buttons = Array.from(out.querySelectorAll<HTMLButtonElement>('[data-testid="mp-program-link"]'));
    expect(buttons.map(b => b.disabled)).toEqual([true, true]);
  });
});

describe('the debugger follows the link into the Program tab', () => {
  it('switches to the Program tab, opens the Program and selects the run the call made', async () => {
    const v = new TraceView(toStaticDoc());
    document.body.replaceChildren(v.node);
    await v.ready;
    expect(v.tab).toBe('graph');
    v.selectNode('n3');
    const link = Array.from(v.node.querySelectorAll<HTMLButtonElement>('[data-testid="mp-inspector"] [data-testid="mp-program-link"]'))
      .find(b => b.dataset.programId === 'P4')!;
    expect(link.textContent).toBe('P4 · 5 ops · run 0 ↗');
    link.click();
    await v.ready;
    expect(v.tab).toBe('program');
    const pane = (name: string) => v.node.querySelector<HTMLElement>(`.mp-tab-pane[data-tab="${name}"]`)!;
    expect(pane('program').hidden).toBe(false);
    expect(pane('graph').hidden).toBe(true);
    expect(v.node.querySelector('[data-testid="mp-tab-program"]')!.getAttribute('aria-selected')).toBe('true');
    expect(v.programView!.program.id).toBe('P4');
    expect(v.programView!.run).toMatchObject({ program: 'P4', run: 0 });
    expect((v.node.querySelector('[data-testid="mp-program-select"]') as HTMLSelectElement).value).toBe('P4');
    const graph = v.node.querySelector<HTMLElement>('[data-testid="mp-program-graph"][data-side="main"]')!;
    expect(graph.dataset.programId).toBe('P4');
    expect(graph.querySelectorAll('g.node').length).toBeGreaterThan(0);

    // back in the Graph tab, n1's forward link opens P3 at its run 0; its backward, P4 at run 1
    v.selectNode('n1');
    expect(v.tab).toBe('graph');
    const links = () => Array.from(v.node.querySelectorAll<HTMLButtonElement>('[data-testid="mp-inspector"] [data-testid="mp-program-link"]'));
    links()[1].click();
    await v.ready;
    expect(v.programView!.run).toMatchObject({ program: 'P4', run: 1 });
    expect((v.node.querySelector('[data-testid="mp-run-select"]') as HTMLSelectElement).value).toBe('1');
    v.selectNode('n1');
    links()[0].click();
    await v.ready;
    expect(v.programView!.program.id).toBe('P3');
    expect(v.programView!.run).toMatchObject({ program: 'P3', run: 0 });
  });
});

describe('the way back: a Program run names the run_program call that made it', () => {
  const layout = () => Promise.resolve('<svg xmlns="http://www.w3.org/2000/svg"></svg>');

  it('finds the node of each run: the forward by op step, the backward by backward step', () => {
    const doc = toStaticDoc();
    const idx = new TraceIndex(doc);
    const prog = (id: string) => doc.programs!.find(p => p.id === id)!;
    expect(programCaller(idx, prog('P3'), 0)).toEqual({ node: 'n1', call: 0, label: 'forward Program' });
    expect(programCaller(idx, prog('P3'), 1)).toEqual({ node: 'n3', call: 1, label: 'forward Program' });
    expect(programCaller(idx, prog('P4'), 0)).toEqual({ node: 'n3', call: 0, label: 'backward Program' });
    expect(programCaller(idx, prog('P4'), 1)).toEqual({ node: 'n1', call: 1, label: 'backward Program' });
    expect(programCaller(idx, prog('P4'), 2)).toBeNull(); // no third call in the trace
    expect(programCaller(idx, prog('P4'), null)).toBeNull();
    expect(programCaller(idx, prog('P0'), 0)).toBeNull(); // a hand-built Program: no run_program ran it
  });

  it('the Program tab shows "run by: run_program #n" for the chosen run, and a click selects its node', () => {
    const doc = toStaticDoc();
    const select = vi.fn();
    const view = new ProgramView(doc, { layout, graph: { index: new TraceIndex(doc), select } });
    const runBy = view.node.querySelector<HTMLButtonElement>('[data-testid="mp-run-by"]')!;
    view.showProgram('P4', 1);
    expect(runBy.hidden).toBe(false);
    expect(runBy.textContent).toBe('run by: run_program #1 ↖');
    expect(runBy.title).toBe('Select the run_program node n1 (its call 1 made this run of its backward Program) in the Graph tab');
    runBy.click();
    expect(select).toHaveBeenCalledWith('n1');
    const runSelect = view.node.querySelector<HTMLSelectElement>('[data-testid="mp-run-select"]')!;
    runSelect.value = '0';
    runSelect.dispatchEvent(new Event('change'));
    expect(view.run).toMatchObject({ program: 'P4', run: 0 });
    expect(runBy.textContent).toBe('run by: run_program #0 ↖');
    runBy.click();
    expect(select).toHaveBeenLastCalledWith('n3');
    view.showProgram('P3', 1);
    runBy.click();
    expect(select).toHaveBeenLastCalledWith('n3');
    view.showProgram('P0');   // not run by a run_program op: no link
    expect(runBy.hidden).toBe(true);
    expect(runBy.dataset.node).toBeUndefined();
  });

  it('without the eager graph the Program tab shows no link', () => {
    const view = new ProgramView(toStaticDoc(), { layout });
    view.showProgram('P4', 1);
    expect(view.node.querySelector<HTMLButtonElement>('[data-testid="mp-run-by"]')!.hidden).toBe(true);
  });
});
