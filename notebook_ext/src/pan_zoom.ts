/** Zoom and pan of a drawn graph by its SVG viewBox: shared by the Graph tab and the Program tab. */

/** What a view exposes so `installPanZoom` can move its viewBox. */
export interface Zoomable {
  /** The drawn graph, or null before the first layout. */
  readonly svg: SVGSVGElement | null;
  /** The current viewBox [x, y, width, height]. */
  box: number[];
  applyBox(): void;
  zoom(factor: number, cx?: number, cy?: number): void;
}

/** `box` zoomed by `factor` (< 1 zooms in) about (cx, cy), the centre by default; the width stays
 * between 10 units and 4x the whole graph's `baseWidth`. */
export function zoomedBox(box: number[], baseWidth: number, factor: number, cx?: number, cy?: number): number[] {
  const [x, y, w, h] = box;
  const px = cx ?? x + w / 2;
  const py = cy ?? y + h / 2;
  const nw = Math.min(Math.max(w * factor, 10), baseWidth * 4);
  const nh = (h * nw) / w;
  return [px - ((px - x) * nw) / w, py - ((py - y) * nh) / h, nw, nh];
}

/** Ctrl+wheel zooms about the pointer (a plain wheel scrolls the notebook); a drag pans. */
export function installPanZoom(host: HTMLElement, view: Zoomable): void {
  let drag: { x: number; y: number; box: number[] } | null = null;
  host.addEventListener('wheel', e => {
    const svg = view.svg;
    if (!(e.ctrlKey || e.metaKey) || !svg) return;
    e.preventDefault();
    const r = svg.getBoundingClientRect();
    const [x, y, w, h] = view.box;
    const fx = r.width ? (e.clientX - r.left) / r.width : 0.5;
    const fy = r.height ? (e.clientY - r.top) / r.height : 0.5;
    view.zoom(e.deltaY > 0 ? 1.15 : 1 / 1.15, x + fx * w, y + fy * h);
  }, { passive: false });
  host.addEventListener('pointerdown', e => {
    if (e.button === 0 && view.svg) drag = { x: e.clientX, y: e.clientY, box: [...view.box] };
  });
  host.addEventListener('pointermove', e => {
    const svg = view.svg;
    if (!drag || !svg) return;
    const r = svg.getBoundingClientRect();
    const scale = r.width ? drag.box[2] / r.width : 1;
    const dx = (e.clientX - drag.x) * scale;
    const dy = (e.clientY - drag.y) * scale;
    if (Math.abs(dx) + Math.abs(dy) < 2 * scale) return;
    view.box = [drag.box[0] - dx, drag.box[1] - dy, drag.box[2], drag.box[3]];
    view.applyBox();
  });
  const end = (): void => {
    drag = null;
  };
  host.addEventListener('pointerup', end);
  host.addEventListener('pointerleave', end);
}
