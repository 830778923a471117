/**
 * The viewport of a drawn graph: which part of the SVG the pane shows, at what scale.
 *
 * Legible by construction: the scale (screen pixels per Graphviz point) never drops below
 * MIN_SCALE, at which the 11 pt node labels are at least 11 px tall. A graph that fits the pane at a
 * readable scale is shown whole; a bigger one is shown through a window that follows the current
 * node (`ensureVisible`), with a minimap of the whole graph in the corner (click or drag it to move
 * the window). Ctrl+wheel zooms about the pointer, a drag pans (pan_zoom.ts).
 */
import { Zoomable, installPanZoom } from './pan_zoom';

/** Least screen pixels per graph point: node labels are 11 pt and edge labels 10 pt (dot.ts), so at least 11 px on screen. */
export const MIN_SCALE = 1.1;
/** A small graph is not blown up beyond this. */
export const MAX_FIT_SCALE = 1.5;
const MAX_SCALE = 4;
const MINIMAP_MAX = 120; // px: the minimap's longer side
const FALLBACK_SIZE = [800, 460]; // a pane not laid out yet (tests under happy-dom)

export type Box = [number, number, number, number];

export class Viewport implements Zoomable {
  svg: SVGSVGElement | null = null;
  box: number[] = [0, 0, 100, 100];
  /** the whole graph, in graph units */
  base: Box = [0, 0, 100, 100];
  scale = 1;
  private translate: [number, number] = [0, 0];
  private boxes = new WeakMap<SVGGElement, Box | null>();
  private minimap: HTMLDivElement | null = null;
  private miniRect: SVGRectElement | null = null;
  private miniDot: SVGCircleElement | null = null;
  private observer: ResizeObserver | null = null;
  /** the pane size the window was last sized for ([0, 0]: not laid out then, e.g. in a hidden tab) */
  private lastSize = [0, 0];
  /** the node to keep in view after the pane is first laid out (the owner's current node) */
  focus: (() => SVGGElement | null) | null = null;

  constructor(private host: HTMLElement, private options: { minimap?: boolean } = {}) {
    installPanZoom(host, this);
    if (typeof ResizeObserver !== 'undefined') {
      this.observer = new ResizeObserver(() => this.onResize());
      this.observer.observe(host);
    }
  }

  dispose(): void {
    this.observer?.disconnect();
  }

  /** Take over a freshly drawn SVG (already in the host). */
  attach(svg: SVGSVGElement | null): void {
    this.svg = svg;
    this.boxes = new WeakMap();
    this.minimap = null;
    if (!svg) return;
    const vb = (svg.getAttribute('viewBox') ?? '0 0 100 100').split(/[\s,]+/).map(Number);
    this.base = vb.length === 4 && vb.every(Number.isFinite) ? (vb as Box) : [0, 0, 100, 100];
    const t = /translate\(([-\d.]+)[ ,]([-\d.]+)\)/.exec(svg.querySelector('g.graph')?.getAttribute('transform') ?? '');
    this.translate = t ? [Number(t[1]), Number(t[2])] : [0, 0];
    svg.removeAttribute('width');
    svg.removeAttribute('height');
    svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');
    if (this.options.minimap) this.buildMinimap(svg);
    this.reset();
  }

  /** The pane's size in pixels. */
  size(): [number, number] {
    const w = this.host.clientWidth;
    const h = this.host.clientHeight;
    return w > 0 && h > 0 ? [w, h] : [FALLBACK_SIZE[0], FALLBACK_SIZE[1]];
  }

  /** The scale at which the whole graph fits the pane. */
  fitScale(): number {
    const [w, h] = this.size();
    return Math.min(w / Math.max(1, this.base[2]), h / Math.max(1, this.base[3]));
  }

  /** Whether the whole graph is readable in the pane at once. */
  fits(): boolean {
    return this.fitScale() >= MIN_SCALE;
  }

  /** The default view: the whole graph when it is readable so, else its top at the least readable scale. */
  reset(): void {
    this.lastSize = this.host.clientWidth > 0 && this.host.clientHeight > 0 ? this.size() : [0, 0];
    const fit = this.fitScale();
    this.scale = fit >= MIN_SCALE ? Math.min(fit, MAX_FIT_SCALE) : MIN_SCALE;
    const [w, h] = this.size();
    const vw = w / this.scale;
    const vh = h / this.scale;
    const [bx, by, bw, bh] = this.base;
    const y = bh <= vh ? by + bh / 2 - vh / 2 : by;
    this.box = [bx + bw / 2 - vw / 2, y, vw, vh];
    this.applyBox();
  }

  zoom(factor: number, cx?: number, cy?: number): void {
    const [x, y, w, h] = this.box;
    const px = cx ?? x + w / 2;
    const py = cy ?? y + h / 2;
    const next = Math.min(MAX_SCALE, Math.max(Math.min(MIN_SCALE, this.fitScale()), this.scale / factor));
    const k = this.scale / next;
    this.scale = next;
    this.box = [px - (px - x) * k, py - (py - y) * k, w * k, h * k];
    this.applyBox();
  }

  applyBox(): void {
    if (!this.svg) return;
    this.svg.setAttribute('viewBox', this.box.map(v => v.toFixed(1)).join(' '));
    this.host.classList.toggle('mp-overflows', !this.fits());
    this.drawMiniRect();
  }

  /** Node `g`'s box in graph units (the viewBox's), or null when it cannot be measured. */
  nodeBox(g: SVGGElement): Box | null {
    const known = this.boxes.get(g);
    if (known) return known;
    let box: Box | null = null;
    try {
      if (typeof g.getBBox === 'function') {
        const b = g.getBBox();
        if (b.width > 0 || b.height > 0) box = [b.x + this.translate[0], b.y + this.translate[1], b.width, b.height];
      }
    } catch {
      box = null; // getBBox throws on an SVG that is not rendered
    }
    if (box) this.boxes.set(g, box); // not measurable while hidden: try again later
    return box;
  }

  /** Centre the window on `g`. */
  centerOn(g: SVGGElement): void {
    const b = this.nodeBox(g);
    if (!b) return;
    const [, , w, h] = this.box;
    this.box = [b[0] + b[2] / 2 - w / 2, b[1] + b[3] / 2 - h / 2, w, h];
    this.applyBox();
  }

  /** Move the window (only if needed, and only as far as needed) so `g` is inside it with a margin: stepping
   * keeps the current node in view, and as much of what was in view as can stay (a node at the graph's left
   * edge shifts the window left until it is in, not until it is the centre). */
  ensureVisible(g: SVGGElement): void {
    const b = this.nodeBox(g);
    if (!b) return;
    this.markMini(b);
    const [x, y, w, h] = this.box;
    const m = Math.min(24 / this.scale, w / 4, h / 4);  // 24 px on screen
    const inside = b[0] >= x + m && b[1] >= y + m && b[0] + b[2] <= x + w - m && b[1] + b[3] <= y + h - m;
    if (inside) return;
    if (b[2] + 2 * m > w || b[3] + 2 * m > h) {  // a node wider or taller than the window: its centre
      this.centerOn(g);
      return;
    }
    const nx = b[0] < x + m ? b[0] - m : b[0] + b[2] > x + w - m ? b[0] + b[2] + m - w : x;
    const ny = b[1] < y + m ? b[1] - m : b[1] + b[3] > y + h - m ? b[1] + b[3] + m - h : y;
    this.box = [nx, ny, w, h];
    this.applyBox();
  }

  private onResize(): void {
    const size = this.size();
    if (!this.svg || this.host.clientWidth === 0 || (size[0] === this.lastSize[0] && size[1] === this.lastSize[1])) return;
    if (this.lastSize[0] === 0) {  // drawn while hidden: size the window now, around the owner's node
      this.reset();
      const g = this.focus?.();
      if (g) this.ensureVisible(g);
      return;
    }
    this.lastSize = size;
    const [x, y, w, h] = this.box;
    const cx = x + w / 2;
    const cy = y + h / 2;
    const vw = size[0] / this.scale;
    const vh = size[1] / this.scale;
    this.box = [cx - vw / 2, cy - vh / 2, vw, vh];
    this.applyBox();
  }

  // ---- the minimap --------------------------------------------------------------------------
  private buildMinimap(svg: SVGSVGElement): void {
    const [, , bw, bh] = this.base;
    const k = MINIMAP_MAX / Math.max(bw, bh, 1);
    const box = document.createElement('div');
    box.className = 'mp-minimap';
    box.dataset.testid = 'mp-minimap';
    box.title = 'The whole graph: click or drag to move the view';
    box.style.width = `${Math.max(24, Math.round(bw * k))}px`;
    box.style.height = `${Math.max(24, Math.round(bh * k))}px`;
    const clone = svg.cloneNode(true) as SVGSVGElement;
    clone.querySelectorAll('text, title').forEach(t => t.remove());
    clone.querySelectorAll('g').forEach(g => {  // shapes only: not nodes the debugger or a test would find
      g.removeAttribute('data-node-id');
      g.removeAttribute('data-edge-index');
      g.removeAttribute('data-cluster-id');
      g.classList.replace('node', 'mp-mini-node');
      g.classList.replace('edge', 'mp-mini-edge');
      g.classList.replace('cluster', 'mp-mini-cluster');
    });
    clone.setAttribute('viewBox', this.base.join(' '));
    clone.setAttribute('preserveAspectRatio', 'none');
    clone.removeAttribute('data-testid');
    const ns = 'http://www.w3.org/2000/svg';
    this.miniRect = document.createElementNS(ns, 'rect');
    this.miniRect.setAttribute('class', 'mp-minimap-window');
    this.miniDot = document.createElementNS(ns, 'circle');
    this.miniDot.setAttribute('class', 'mp-minimap-current');
    this.miniDot.setAttribute('r', String(Math.max(bw, bh) / 40));
    this.miniDot.style.display = 'none';
    clone.append(this.miniRect, this.miniDot);
    box.appendChild(clone);
    const move = (e: PointerEvent) => {
      const r = box.getBoundingClientRect();
      if (!r.width || !r.height) return;
      const gx = this.base[0] + ((e.clientX - r.left) / r.width) * this.base[2];
      const gy = this.base[1] + ((e.clientY - r.top) / r.height) * this.base[3];
      const [, , w, h] = this.box;
      this.box = [gx - w / 2, gy - h / 2, w, h];
      this.applyBox();
    };
    let dragging = false;
    box.addEventListener('pointerdown', e => {
      e.stopPropagation(); // not a pan of the main graph
      dragging = true;
      move(e);
    });
    box.addEventListener('pointermove', e => {
      e.stopPropagation();
      if (dragging) move(e);
    });
    box.addEventListener('pointerup', () => (dragging = false));
    box.addEventListener('pointerleave', () => (dragging = false));
    this.minimap = box;
    this.host.appendChild(box);
  }

  private drawMiniRect(): void {
    if (!this.minimap || !this.miniRect) return;
    this.minimap.hidden = this.fits();
    const [x, y, w, h] = this.box;
    this.miniRect.setAttribute('x', x.toFixed(1));
    this.miniRect.setAttribute('y', y.toFixed(1));
    this.miniRect.setAttribute('width', w.toFixed(1));
    this.miniRect.setAttribute('height', h.toFixed(1));
  }

  private markMini(b: Box): void {
    if (!this.miniDot) return;
    this.miniDot.style.display = '';
    this.miniDot.setAttribute('cx', (b[0] + b[2] / 2).toFixed(1));
    this.miniDot.setAttribute('cy', (b[1] + b[3] / 2).toFixed(1));
  }
}
