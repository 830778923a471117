import { describe, expect, it } from 'vitest';
import { MIN_SCALE, Viewport } from '../src/viewport';

/** A drawn graph 1000 x 200 points wide with two nodes: one at its left edge, one right of the centre. */
function drawn(): { viewport: Viewport; left: SVGGElement; right: SVGGElement } {
  const host = document.createElement('div');
  document.body.appendChild(host);
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg') as SVGSVGElement;
  svg.setAttribute('viewBox', '0 0 1000 200');
  const node = (x: number) => {
    const g = document.createElementNS(ns, 'g') as SVGGElement;
    (g as unknown as { getBBox: () => DOMRect }).getBBox = () => ({ x, y: 80, width: 50, height: 30 }) as DOMRect;
    svg.appendChild(g);
    return g;
  };
  const left = node(0);
  const right = node(600);
  host.appendChild(svg);
  const viewport = new Viewport(host);
  viewport.attach(svg);
  return { viewport, left, right };
}

const inView = (v: Viewport, x0: number, x1: number) => x0 >= v.box[0] && x1 <= v.box[0] + v.box[2];

describe('Viewport.ensureVisible', () => {
  it('moves a window too narrow for the graph only as far as the node needs', () => {
    const { viewport, left } = drawn();
    expect(viewport.scale).toBe(MIN_SCALE); // (the 800 px fallback pane: 1000 points do not fit legibly)
    expect(inView(viewport, 0, 50)).toBe(false);
    viewport.ensureVisible(left);
    expect(inView(viewport, 0, 50)).toBe(true);
    // the node right of the centre was in view before and stays: the window did not centre on the left node
    expect(inView(viewport, 600, 650)).toBe(true);
  });

  it('leaves the window alone when the node is already inside', () => {
    const { viewport, right } = drawn();
    const before = [...viewport.box];
    viewport.ensureVisible(right);
    expect(viewport.box).toEqual(before);
  });
});
