import { describe, expect, it } from 'vitest';
import { StepModel } from '../src/steps';
import { StepInfo, TraceIndex, commonLayer, within } from '../src/trace_index';
import { fixture } from './helpers';

const mlp = () => new TraceIndex(fixture('mlp.json'));

describe('what each step did', () => {
  it('describes forward, backward and optimizer steps of a training step', () => {
    const steps = mlp().steps;
    expect(steps.map(s => s.phase)).toEqual([...Array(4).fill('forward'), ...Array(8).fill('backward'), ...Array(4).fill('optimizer')]);
    expect(steps[0]).toMatchObject({ node: 'n1', layer: 'MLP.fc1', label: 'linear (MLP.fc1)', reads: ['t1', 't2', 't3'], writes: ['t4'] });
    expect(steps[4]).toMatchObject({ node: 'g8', phase: 'backward', forwardNode: 'n4' }); // cross_entropy_grad first
    const linearGrad = steps.find(s => s.node === 'g1')!;
    expect(linearGrad.label).toBe('linear_grad (MLP.fc1)');
    expect(linearGrad.reads).toEqual(['t4']); // the gradient of the output arrives
    expect(linearGrad.writes).toEqual(['t2', 't3']); // and is sent to the weight and bias (x needs none)
    expect(steps[12]).toMatchObject({ phase: 'optimizer', node: 't2', label: 'SGD update linear_0.w_0' });
  });

  it('knows which layer is inside which', () => {
    expect(within('MLP.fc1', 'MLP')).toBe(true);
    expect(within('MLP.fc10', 'MLP.fc1')).toBe(false);
    expect(within(null, 'MLP')).toBe(false);
    expect(within(null, null)).toBe(true);
    expect(commonLayer('M.a.b', 'M.a.c')).toBe('M.a');
    expect(commonLayer('M.a', 'N')).toBeNull();
  });
});

describe('the step model', () => {
  it('steps forward and back, clamped to the recording', () => {
    const m = new StepModel(mlp().steps);
    expect(m.label()).toBe('step 1 / 16 · forward · linear (MLP.fc1)');
    m.back();
    expect(m.index).toBe(0);
    m.forward();
    m.forward();
    expect(m.label()).toBe('step 3 / 16 · forward · linear (MLP.fc2)');
    m.back();
    expect(m.index).toBe(1);
    m.seek(99);
    expect(m.index).toBe(15);
    expect(m.atEnd).toBe(true);
    m.forward();
    expect(m.index).toBe(15);
    m.reset();
    expect(m.index).toBe(0);
  });

  it('steps out of the current layer, then out of the phase at the top level', () => {
    const m = new StepModel(mlp().steps);
    m.out(); // from MLP.fc1's linear to the first step outside MLP.fc1: relu in MLP
    expect(m.current?.label).toBe('relu (MLP)');
    m.out(); // out of MLP: the loss, at the top level
    expect(m.current?.label).toBe('cross_entropy_with_softmax');
    m.out(); // the top level: to the next phase
    expect(m.current?.phase).toBe('backward');
    m.seek(5); // inside the backward pass, in MLP.fc2
    expect(m.current?.layer).toBe('MLP.fc2');
    m.out();
    expect(m.current?.layer).toBe('MLP');
  });

  it('steps into the next step and says which layer to open', () => {
    const m = new StepModel(mlp().steps);
    expect(m.into()).toBe('MLP');
    expect(m.index).toBe(1);
  });

  it('steps box by box when the view groups steps', () => {
    const steps = mlp().steps;
    const m = new StepModel(steps);
    const key = (s: StepInfo) => (s.layer?.startsWith('MLP') ? 'MLP' : s.node);
    m.forward(key); // past every step drawn in the MLP box
    expect(m.current?.label).toBe('cross_entropy_with_softmax');
    m.back(key); // back to the first step of the previous box
    expect(m.index).toBe(0);
  });

  it('plays to the end, and reports each change', () => {
    const m = new StepModel(mlp().steps);
    let changes = 0;
    m.onChange(() => changes++);
    m.play();
    expect(m.playing).toBe(true);
    let ticks = 0;
    while (m.tick()) ticks++;
    expect(m.atEnd).toBe(true);
    expect(m.playing).toBe(false);
    expect(ticks).toBe(14);
    expect(changes).toBe(16); // play + 15 ticks
    m.play(); // at the end: starts over
    expect(m.index).toBe(0);
    m.toggle();
    expect(m.playing).toBe(false);
  });

  it('stops playing on a step that made NaN/Inf, like a breakpoint', () => {
    const steps = mlp().steps.map((s, i) => ({ ...s, nanInf: i === 6 }));
    const m = new StepModel(steps);
    m.play();
    while (m.tick());
    expect(m.index).toBe(6);
    m.play(); // continue from there
    expect(m.tick()).toBe(true);
    expect(m.index).toBe(7);
  });

  it('handles an empty recording', () => {
    const m = new StepModel([]);
    expect(m.label()).toBe('no steps recorded');
    m.forward();
    m.out();
    m.play();
    expect(m.playing).toBe(false);
  });
});
