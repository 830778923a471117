/**
 * The Profile view's tables (profile_view.ts mounts them): the Operator table, sortable by any column (a
 * click on its header; again to reverse), each op expandable to the kernels it ran, a row click selecting
 * the op (the timeline highlights its spans); and the Model table of phases, in Paddle's order. Ratios are
 * shares of the time of all ProfileSteps, as in the Python summary.
 */
import { duration, el } from './format';
import { ProfileSection, ProfileStat, SORT_KEYS, SortKey, ratioBase, sortStats } from './profile_types';

/** FLOPs with an SI prefix (7680 -> '7.68 K'); '–' where an op has none. */
export function flopsText(n: number | null | undefined): string {
  if (n === null || n === undefined) return '–';
  const units: [number, string][] = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'K']];
  const unit = units.find(([v]) => n >= v);
  return unit ? `${(n / unit[0]).toPrecision(3)} ${unit[1]}` : String(n);
}

interface Column {
  key: SortKey;
  label: string;
  title: string;
}

const COLUMNS: Column[] = [
  { key: 'name', label: 'Name', title: 'operator (expand: the kernels it ran)' },
  { key: 'calls', label: 'Calls', title: 'times it ran in the window' },
  { key: 'total', label: 'Total', title: 'CPU time over all calls' },
  { key: 'avg', label: 'Avg', title: 'CPU time per call' },
  { key: 'max', label: 'Max', title: 'slowest call' },
  { key: 'min', label: 'Min', title: 'fastest call' },
  { key: 'ratio', label: 'Ratio', title: 'share of the time of all ProfileSteps' },
  { key: 'flops', label: 'FLOPs', title: 'floating-point operations (matmul/conv, with_flops)' }
];

function statCells(tr: HTMLTableRowElement, s: ProfileStat, base: number, withFlops: boolean): void {
  tr.appendChild(el('td', 'mp-num', String(s.calls)));
  for (const v of [s.total_ns, s.avg_ns, s.max_ns, s.min_ns]) tr.appendChild(el('td', 'mp-num', duration(v)));
  const pct = (100 * s.total_ns) / base;
  const ratio = el('td', 'mp-num mp-ratio', `${pct.toFixed(2)} %`);
  ratio.style.setProperty('--mp-pct', `${Math.min(100, pct).toFixed(1)}%`);
  tr.appendChild(ratio);
  if (withFlops) {
    const f = el('td', 'mp-num', flopsText(s.flops));
    if (s.flops !== null && s.flops !== undefined) f.title = `${s.flops} FLOPs`;
    tr.appendChild(f);
  }
}

/** The Operator table: click a header to sort (again to reverse), ▸ to show the kernels, a row to highlight
 * the op's spans in the timeline. */
export class OpTable {
  readonly node: HTMLTableElement;
  key: SortKey = 'total';
  descending = true;
  selected: string | null = null;
  /** the op of the span selected in the timeline (its row is marked) */
  spanOp: string | null = null;
  private expanded = new Set<string>();
  private body: HTMLTableSectionElement;
  private heads = new Map<SortKey, HTMLTableCellElement>();
  private columns: Column[];
  private base: number;

  constructor(readonly profile: ProfileSection, private onSelect: (name: string | null) => void) {
    const withFlops = profile.ops.some(op => op.flops !== null && op.flops !== undefined);
    this.columns = COLUMNS.filter(c => c.key !== 'flops' || withFlops);
    this.base = ratioBase(profile);
    this.node = el('table', 'mp-profile-table');
    this.node.dataset.testid = 'mp-profile-table';
    const row = el('tr');
    for (const c of this.columns) {
      const th = el('th', c.key === 'name' ? undefined : 'mp-num', c.label);
      th.dataset.testid = `mp-profile-sort-${c.key}`;
      th.title = `${c.title}; click to sort`;
      th.tabIndex = 0;
      th.addEventListener('click', () => this.sortBy(c.key));
      th.addEventListener('keydown', e => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          this.sortBy(c.key);
        }
      });
      this.heads.set(c.key, th);
      row.appendChild(th);
    }
    this.node.appendChild(el('thead')).appendChild(row);
    this.body = this.node.appendChild(el('tbody'));
    this.render();
  }

  /** Sort by `key`: a new column starts descending (names ascending), the same column flips. */
  sortBy(key: SortKey): void {
    if (!SORT_KEYS.includes(key)) return;
    this.descending = key === this.key ? !this.descending : key !== 'name';
    this.key = key;
    this.render();
  }

  /** The op names in the order shown. */
  order(): string[] {
    return sortStats(this.profile.ops, this.key, this.descending).map(s => s.name);
  }

  private render(): void {
    for (const [key, th] of this.heads) {
      const active = key === this.key;
      th.setAttribute('aria-sort', active ? (this.descending ? 'descending' : 'ascending') : 'none');
      th.classList.toggle('mp-sorted', active);
      th.dataset.arrow = active ? (this.descending ? '▾' : '▴') : '';
    }
    this.body.textContent = '';
    const withFlops = this.columns.some(c => c.key === 'flops');
    if (!this.profile.ops.length) {
      const td = this.body.appendChild(el('tr')).appendChild(el('td', 'mp-profile-note', 'no operator ran'));
      td.colSpan = this.columns.length;
    }
    for (const op of sortStats(this.profile.ops, this.key, this.descending)) {
      const tr = el('tr', 'mp-profile-row');
      tr.dataset.testid = 'mp-profile-row';
      tr.dataset.op = op.name;
      tr.classList.toggle('mp-selected', op.name === this.selected);
      tr.classList.toggle('mp-span-op', op.name === this.spanOp);
      tr.title = 'click: highlight its spans in the timeline';
      tr.appendChild(this.nameCell(op));
      statCells(tr, op, this.base, withFlops);
      tr.addEventListener('click', () => this.select(op.name === this.selected ? null : op.name));
      this.body.appendChild(tr);
      if (!this.expanded.has(op.name)) continue;
      for (const child of op.children ?? []) {
        const sub = el('tr', 'mp-profile-kernel');
        sub.dataset.testid = 'mp-profile-kernel-row';
        sub.appendChild(el('td', 'mp-profile-name', child.name));
        statCells(sub, child, this.base, withFlops);
        this.body.appendChild(sub);
      }
    }
  }

  private nameCell(op: ProfileStat): HTMLTableCellElement {
    const td = el('td', 'mp-profile-name');
    if (op.children?.length) {
      const open = this.expanded.has(op.name);
      const b = el('button', 'mp-profile-expand', open ? '▾' : '▸');
      b.type = 'button';
      b.dataset.testid = 'mp-profile-expand';
      b.title = open ? 'hide the kernels' : `show the kernels ${op.name} ran`;
      b.setAttribute('aria-expanded', String(open));
      b.addEventListener('click', e => {
        e.stopPropagation(); // expanding is not selecting
        if (open) this.expanded.delete(op.name);
        else this.expanded.add(op.name);
        this.render();
      });
      td.appendChild(b);
    }
    td.appendChild(document.createTextNode(op.name));
    return td;
  }

  /** Select op `name` (null: none): its row marked, the timeline told. */
  select(name: string | null): void {
    this.selected = name;
    for (const tr of this.body.querySelectorAll<HTMLTableRowElement>('tr.mp-profile-row')) {
      tr.classList.toggle('mp-selected', tr.dataset.op === name);
    }
    this.onSelect(name);
  }

  /** Mark the row of op `name` (a span of it was selected in the timeline); null: none. */
  markSpanOp(name: string | null): void {
    this.spanOp = name;
    for (const tr of this.body.querySelectorAll<HTMLTableRowElement>('tr.mp-profile-row')) {
      tr.classList.toggle('mp-span-op', tr.dataset.op === name);
    }
  }
}

/** The Model table, in Paddle's order (not sortable: the order is the story of a step). */
export function phasesTable(profile: ProfileSection): HTMLTableElement {
  const table = el('table', 'mp-profile-table mp-profile-phases');
  table.dataset.testid = 'mp-profile-phases';
  const head = el('tr');
  for (const c of COLUMNS.slice(0, 7)) head.appendChild(el('th', c.key === 'name' ? undefined : 'mp-num', c.label));
  table.appendChild(el('thead')).appendChild(head);
  const body = table.appendChild(el('tbody'));
  const base = ratioBase(profile);
  for (const phase of profile.phases) {
    const tr = el('tr', 'mp-profile-phase');
    tr.appendChild(el('td', 'mp-profile-name', phase.name));
    statCells(tr, phase, base, false);
    body.appendChild(tr);
  }
  return table;
}
