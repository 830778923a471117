"""The summary tables of a profile, as Paddle prints them: Overview, Model, Operator, Kernel, Memory, UserDefined.

    prof.summary(sorted_by=SortedKeys.CPUTotal, op_detail=True, time_unit="ms")

Each table is built once as data (`Table`: title, header, rows with a depth) and rendered as text
(Paddle's dashed layout) or as script-free HTML (every name escaped) for notebooks.
Ratios are shares of the time of all ProfileSteps in the window. When ops ran on the GPU, the
Operator table adds a GPU Total column: their kernels' time on the device (CUDA events), "-" for ops
that ran on the CPU; the CPU columns of a GPU op count the host's wait for its kernels too.
"""
from __future__ import annotations

import html
from bisect import bisect_right
from dataclasses import dataclass, field
from enum import Enum

from ..framework.errors import invalid_argument
from .collector import B_END, B_INNER, B_NAME, B_START, END, EXTRA, KERNEL, NAME, PHASE, START, host_reuse

__all__ = ["SortedKeys", "SummaryView"]

_UNITS = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1.0}


class SortedKeys(Enum):
    """How the Operator and Kernel tables are ordered (GPU keys sort by the CPU time of the same kind)."""
    CPUTotal = 0
    CPUAvg = 1
    CPUMax = 2
    CPUMin = 3
    GPUTotal = 4
    GPUAvg = 5
    GPUMax = 6
    GPUMin = 7


class SummaryView(Enum):
    """The tables `summary(views=...)` can print."""
    DeviceView = 0
    OverView = 1
    ModelView = 2
    DistributedView = 3
    KernelView = 4
    OperatorView = 5
    MemoryView = 6
    MemoryManipulationView = 7
    UDFView = 8


@dataclass
class Stat:
    """Calls and total / max / min time (ns) of one row."""
    calls: int = 0
    total: int = 0
    max: int = 0
    min: int = 0
    flops: int = 0
    nbytes: int = 0
    gpu: int | None = None  # ns on the device (CUDA events); None: no GPU op in this row
    children: dict = field(default_factory=dict)

    def add(self, duration: int, extra: dict | None = None) -> None:
        if self.calls == 0 or duration < self.min:
            self.min = duration
        self.max = max(self.max, duration)
        self.calls += 1
        self.total += duration
        if extra:
            self.flops += extra.get("flops", 0)
            self.nbytes += extra.get("bytes", 0)
            if extra.get("gpu_ns") is not None:
                self.gpu = (self.gpu or 0) + extra["gpu_ns"]

    @property
    def avg(self) -> float:
        return self.total / self.calls if self.calls else 0.0

    def child(self, name: str) -> "Stat":
        stat = self.children.get(name)
        if stat is None:
            stat = self.children[name] = Stat()
        return stat


@dataclass
class Table:
    title: str
    header: list
    rows: list        # (depth, [cells])
    note: str = ""


# ---- statistics ---------------------------------------------------------------------------------

def step_total(c) -> int:
    """The time the ratios are shares of: all ProfileSteps (or the whole window if none ended)."""
    total = sum(end - start for _, start, end, _ in c.steps)
    return total or max(1, c.t_end - c.t0)


def forward_segments(c) -> list:
    """(start, end) of each run of forward ops with no other phase or step boundary in between:
    the Forward phase (the bus reports ops, not the model call around them)."""
    bounds = sorted([s for _, _, s, _ in c.phase_spans] + [start for _, start, _, _ in c.steps])
    segments: dict = {}
    for op in c.ops:
        if op[PHASE] != "forward":
            continue
        key = bisect_right(bounds, op[START])
        seg = segments.get(key)
        if seg is None:
            segments[key] = [op[START], op[END]]
        else:
            seg[1] = max(seg[1], op[END])
    return [tuple(s) for s in segments.values()]


def model_stats(c) -> dict:
    """Paddle's Model table: ProfileStep and its phases; Others is what the phases leave."""
    stats = {name: Stat() for name in ("ProfileStep", "Dataloader", "Forward", "Backward", "Optimization", "Others")}
    for _, start, end, _ in c.steps:
        stats["ProfileStep"].add(end - start)
    names = {"dataloader": "Dataloader", "backward": "Backward", "optimization": "Optimization"}
    for phase, _, start, end in c.phase_spans:
        stats[names[phase]].add(end - start)
    for start, end in forward_segments(c):
        stats["Forward"].add(end - start)
    others = stats["ProfileStep"].total - sum(stats[n].total for n in ("Dataloader", "Forward", "Backward",
                                                                         "Optimization"))
    stats["Others"].add(max(0, others))
    return stats


def operator_stats(c, record_shapes: bool) -> dict:
    """One row per op outside backward and per grad node ("matmul_grad"); children: the kernels
    (forward ops, and input shapes when recorded) or the ops a backward rule ran."""
    stats: dict = {}
    for op in c.ops:
        stat = stats.setdefault(op[NAME], Stat())
        duration = op[END] - op[START]
        stat.add(duration, op[EXTRA])
        stat.child(f"kernel {op[KERNEL]}").add(duration, op[EXTRA])
        if record_shapes and op[EXTRA] and "shapes" in op[EXTRA]:
            stat.child("shapes " + ", ".join(str(s) for s in op[EXTRA]["shapes"])).add(duration)
        for inner in (op[EXTRA] or {}).get("program_ops", ()):  # a run_program's Program, op by op
            stat.child(f"{inner[NAME]} ({inner[KERNEL]})").add(inner[END] - inner[START])
    for b in c.backward:
        stat = stats.setdefault(b[B_NAME], Stat())
        extra = {"flops": sum((i[EXTRA] or {}).get("flops", 0) for i in b[B_INNER]),
                 "bytes": sum((i[EXTRA] or {}).get("bytes", 0) for i in b[B_INNER])}
        gpu = [i[EXTRA]["gpu_ns"] for i in b[B_INNER] if i[EXTRA] and "gpu_ns" in i[EXTRA]]
        if gpu:
            extra["gpu_ns"] = sum(gpu)
        stat.add(b[B_END] - b[B_START], extra)
        for inner in b[B_INNER]:
            stat.child(f"{inner[NAME]} ({inner[KERNEL]})").add(inner[END] - inner[START], inner[EXTRA])
    return stats


def all_ops(c):
    """Every op that ran, backward rules' ops included."""
    yield from c.ops
    for b in c.backward:
        yield from b[B_INNER]


def gpu_span_name(op: list) -> str:
    """A GPU op's span on the gpu lane: the CUDA kernels it launched ("matmul_tiled_kernel"), else the op."""
    return " + ".join(op[EXTRA].get("kernels") or ()) or op[NAME]


def kernel_stats(c) -> dict:
    stats: dict = {}
    for op in all_ops(c):
        stats.setdefault(f"{op[NAME]} ({op[KERNEL]})", Stat()).add(op[END] - op[START], op[EXTRA])
    return stats


def user_stats(c) -> dict:
    stats: dict = {}
    for name, _, start, end in c.user_events:
        stats.setdefault(name, Stat()).add(end - start)
    return stats


# ---- tables -------------------------------------------------------------------------------------

_SORT = {SortedKeys.CPUTotal: lambda s: s.total, SortedKeys.CPUAvg: lambda s: s.avg,
         SortedKeys.CPUMax: lambda s: s.max, SortedKeys.CPUMin: lambda s: s.min}


def _sort_key(sorted_by):
    if not isinstance(sorted_by, SortedKeys):
        raise invalid_argument("Profiler.summary", f"sorted_by={sorted_by!r}, expected a SortedKeys member.",
                               hint="e.g. paddle.profiler.SortedKeys.CPUTotal")
    return _SORT[SortedKeys(sorted_by.value % 4)]  # GPU keys: the CPU time of the same kind


def _times(stat: Stat, unit: float, denominator: int) -> str:
    return (f"{stat.total / unit:.2f} / {stat.avg / unit:.2f} / {stat.max / unit:.2f} / {stat.min / unit:.2f} / "
            f"{100.0 * stat.total / denominator:.2f}")


def _gpu(stat: Stat, unit: float) -> str:
    return "-" if stat.gpu is None else f"{stat.gpu / unit:.2f}"


def _flops(n: int) -> str:
    for scale, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "K")):
        if n >= scale:
            return f"{n / scale:.2f}{suffix}"
    return str(n)


def _bytes(n: float) -> str:
    for scale, suffix in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if abs(n) >= scale:
            return f"{n / scale:.2f} {suffix}"
    return f"{int(n)} B"


def _stat_rows(stats: dict, key, unit: float, denominator: int, flops: bool, detail: bool,
               max_rows: int | None, gpu: bool = False) -> tuple[list, int]:
    rows = []
    ordered = sorted(stats.items(), key=lambda kv: -key(kv[1]))
    left = 0
    if max_rows is not None and len(ordered) > max_rows:
        ordered, left = ordered[:max_rows], len(ordered) - max_rows
    for name, stat in ordered:
        cells = [name, str(stat.calls), _times(stat, unit, denominator)]
        if gpu:
            cells.append(_gpu(stat, unit))
        if flops:
            cells.append(_flops(stat.flops) if stat.flops else "-")
        rows.append((0, cells))
        if detail:
            for child_name, child in sorted(stat.children.items(), key=lambda kv: -key(kv[1])):
                cells = [child_name, str(child.calls), _times(child, unit, denominator)]
                if gpu:
                    cells.append(_gpu(child, unit))
                if flops:
                    cells.append(_flops(child.flops) if child.flops else "-")
                rows.append((1, cells))
    return rows, left


def build_tables(result, sorted_by=SortedKeys.CPUTotal, op_detail: bool = True, time_unit: str = "ms",
                 views=None, max_rows: int | None = None) -> list[Table]:
    """The tables `summary()` prints, as data."""
    if time_unit not in _UNITS:
        raise invalid_argument("Profiler.summary", f"time_unit={time_unit!r}, expected one of 's', 'ms', 'us', 'ns'.")
    key = _sort_key(sorted_by)
    if views is None:
        views = set(SummaryView)
    elif isinstance(views, SummaryView):
        views = {views}
    else:
        views = set(views)
        if not all(isinstance(v, SummaryView) for v in views):
            raise invalid_argument("Profiler.summary", f"views={views!r}, expected SummaryView members.")
    c, unit = result.collector, _UNITS[time_unit]
    denominator = step_total(c)
    times = f"CPU Total / Avg / Max / Min / Ratio(%) ({time_unit})"
    tables: list[Table] = []
    if SummaryView.OverView in views:
        tables.append(_overview(result, unit, denominator, time_unit))
    if SummaryView.ModelView in views:
        stats = model_stats(c)
        rows = [(0 if n == "ProfileStep" else 1, [n, str(s.calls), _times(s, unit, denominator)])
                for n, s in stats.items()]
        tables.append(Table("Model Summary", ["Name", "Calls", times], rows,
                            note="Forward: from the first to the last op of each run of forward ops."))
    if SummaryView.OperatorView in views:
        stats = operator_stats(c, result.record_shapes)
        gpu = any(s.gpu is not None for s in stats.values())  # the column only when something ran on the GPU
        header = (["Name", "Calls", times] + ([f"GPU Total ({time_unit})"] if gpu else [])
                  + (["FLOPs"] if result.with_flops else []))
        rows, left = _stat_rows(stats, key, unit, denominator, result.with_flops, op_detail, max_rows, gpu)
        tables.append(Table("Operator Summary", header, rows, note=f"{left} more operators not shown." if left else ""))
    if SummaryView.KernelView in views:
        rows, left = _stat_rows(kernel_stats(c), key, unit, denominator, False, False, max_rows)
        tables.append(Table("Kernel Summary", ["Name", "Calls", times], rows,
                            note=f"{left} more kernels not shown." if left else ""))
    if SummaryView.MemoryView in views and result.profile_memory:
        tables.append(_memory(c, max_rows))
    if SummaryView.UDFView in views and c.user_events:
        rows, _ = _stat_rows(user_stats(c), key, unit, denominator, False, False, None)
        tables.append(Table("UserDefined Summary", ["Name", "Calls", times], rows))
    return tables


def _overview(result, unit: float, denominator: int, time_unit: str) -> Table:
    c = result.collector
    rows = [(0, ["ProfileStep", str(len(c.steps)), f"{denominator / unit:.2f}", "100.00"])]

    def add(name: str, calls: int, total: int) -> None:
        if calls:
            rows.append((1, [name, str(calls), f"{total / unit:.2f}", f"{100.0 * total / denominator:.2f}"]))
    add("Operator", len(c.ops) + len(c.backward), sum(o[END] - o[START] for o in c.ops)
        + sum(b[B_END] - b[B_START] for b in c.backward))
    add("Kernel", sum(1 for _ in all_ops(c)), sum(o[END] - o[START] for o in all_ops(c)))
    for phase, label in (("dataloader", "Dataloader"), ("backward", "Backward"), ("optimization", "Optimization")):
        spans = [e - s for p, _, s, e in c.phase_spans if p == phase]
        add(label, len(spans), sum(spans))
    add("NumbaJIT", len(c.compiles), sum(e - s for _, _, s, e in c.compiles))
    add("UserDefined", len(c.user_events), sum(e - s for _, _, s, e in c.user_events))
    note = ""
    if c.compiles:
        note = f"{len(c.compiles)} numba compilations (first-run cost; a warm cache skips them)."
    return Table("Overview Summary", ["Event Type", "Calls", f"CPU Time ({time_unit})", "Ratio (%)"], rows, note)


def _memory(c, max_rows: int | None) -> Table:
    stats: dict = {}
    for op in all_ops(c):
        nbytes = (op[EXTRA] or {}).get("bytes", 0)
        stat = stats.setdefault(op[NAME] + (" (in backward)" if op[PHASE] == "backward" else ""), Stat())
        stat.add(nbytes, None)
    allocated = sum(s.total for s in stats.values())
    rows = [(0, ["Peak live (op outputs)", "", _bytes(c.peak_bytes), ""]),
            (0, ["Total allocated", "", _bytes(allocated), ""]),
            (0, ["Total freed", "", _bytes(c.freed_bytes), ""])]
    ordered = sorted(stats.items(), key=lambda kv: -kv[1].total)[:max_rows]
    rows += [(1, [name, str(s.calls), _bytes(s.total), _bytes(s.max)]) for name, s in ordered if s.total]
    note = "Bytes of the new arrays ops returned (views own none); freed when they were released."
    host = c.host_memory
    if host is not None:
        kept = "" if host["heap_free_bytes"] is None else _bytes(host["heap_free_bytes"])
        reuse = host_reuse(host, allocated)
        rows += [(0, ["CPU memory (malloc)", "", "", ""]),
                 (1, ["fresh pages from the OS (page faults)", str(host["page_faults"]),
                      _bytes(host["fresh_bytes"]), ""]),
                 (1, ["allocated bytes served by reused memory", "",
                      "-" if reuse is None else f"{reuse:.1%}", ""]),
                 (1, ["free memory malloc keeps for reuse", "", kept, ""])]
        note += (" CPU memory: a page fault is a page the OS had to zero because malloc had no freed memory to "
                 "reuse (every first touch in the process counts, so the reuse share is a floor); freed pages "
                 f"are {'kept' if host['keeps_freed_pages'] else 'not kept'} (thread_modes.keep_freed_pages).")
    for device, pool in sorted(c.device_memory.items()):
        requests = pool["hits"] + pool["misses"]
        rows += [(0, [f"GPU {device} memory (pool)", "", "", ""]),
                 (1, ["allocated at the end / peak", "", _bytes(pool["allocated"]), _bytes(pool["peak_allocated"])]),
                 (1, ["reserved from the driver / peak", "", _bytes(pool["reserved"]), _bytes(pool["peak_reserved"])]),
                 (1, ["pool hits / requests", str(requests), f"{pool['hits']} ({pool['hit_rate']:.0%})", ""])]
    if c.device_memory:
        note += " GPU rows: the device memory pool (paddle.device.cuda.memory_stats())."
    return Table("Memory Summary", ["Name", "Calls", "Allocated", "Max per call"], rows, note=note)


# ---- rendering ----------------------------------------------------------------------------------

def table_text(table: Table) -> str:
    cells = [table.header] + [["  " * depth + row[0]] + row[1:] for depth, row in table.rows]
    widths = [max(len(r[i]) for r in cells) + 2 for i in range(len(table.header))]
    rule = "  ".join("-" * w for w in widths)
    line = "".join(c.ljust(w + 2) for c, w in zip(table.header, widths)).rstrip()
    out = [f" {table.title} ".center(len(rule), "-"), line, rule]
    for row in cells[1:]:
        out.append("".join(c.ljust(w + 2) for c, w in zip(row, widths)).rstrip())
    out.append(rule)
    if table.note:
        out.append(table.note)
    return "\n".join(out)


def tables_text(tables: list[Table]) -> str:
    return "\n\n".join(table_text(t) for t in tables)


def table_html(table: Table) -> str:
    esc = html.escape
    head = "".join(f"<th>{esc(h)}</th>" for h in table.header)
    body = []
    for depth, row in table.rows:
        first = f'<td style="padding-left:{0.4 + 1.2 * depth:.1f}em">{esc(row[0])}</td>'
        body.append("<tr>" + first + "".join(f"<td>{esc(c)}</td>" for c in row[1:]) + "</tr>")
    note = f"<p><small>{esc(table.note)}</small></p>" if table.note else ""
    return (f'<h4>{esc(table.title)}</h4><table class="minipaddle-profile"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>{note}")


def tables_html(tables: list[Table]) -> str:
    return '<div class="minipaddle-profile">' + "".join(table_html(t) for t in tables) + "</div>"
