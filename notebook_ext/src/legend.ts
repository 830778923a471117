/**
 * The graph's legend, in plain words: what each shape and each highlight means. Swatches are small
 * styled spans whose colours come from the same theme variables as the graph's (base.css).
 */
import { el } from './format';

const ITEMS: [string, string][] = [
  ['op', 'op (forward)'],
  ['grad', 'gradient op (backward)'],
  ['param', 'weight (parameter)'],
  ['input', 'input data'],
  ['current', 'running now'],
  ['done', 'already ran'],
  ['read', 'read by this step'],
  ['written', 'written by this step'],
  ['nan', 'first NaN/Inf'],
  ['nanafter', 'NaN/Inf passed on'],
  ['gradient', 'gradient flowing back']
];

export function legend(): HTMLDivElement {
  const box = el('div', 'mp-legend');
  box.dataset.testid = 'mp-legend';
  for (const [kind, text] of ITEMS) {
    const item = el('span', 'mp-legend-item');
    item.append(el('span', `mp-swatch mp-sw-${kind}`), el('span', undefined, text));
    box.appendChild(item);
  }
  return box;
}
