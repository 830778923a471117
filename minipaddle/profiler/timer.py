"""timer_only=True: Paddle's Perf Summary of reader_cost, batch_cost and ips per step."""
from __future__ import annotations

__all__: list[str] = []


def perf_summary(timings: list) -> str:
    """timings: per step (reader_ns, batch_ns, num_samples or None)."""
    if not timings:
        return "Perf Summary: no steps were timed (call prof.step() once per training step)."
    reader = [r / 1e9 for r, _, _ in timings]
    batch = [b / 1e9 for _, b, _ in timings]
    with_samples = all(n is not None for _, _, n in timings)
    ips = [(n if with_samples else 1) / b if b else 0.0 for b, (_, _, n) in zip(batch, timings)]
    unit = "samples/s" if with_samples else "steps/s"
    ratio = 100.0 * sum(reader) / sum(batch) if sum(batch) else 0.0
    lines = [" Perf Summary ".center(100, "="), f"Reader Ratio: {ratio:.3f}%", f"Time Unit: s, IPS Unit: {unit}",
             f"|{'':^17}|{'avg':^17}|{'max':^17}|{'min':^17}|"]
    for name, values in (("reader_cost", reader), ("batch_cost", batch), ("ips", ips)):
        avg = sum(values) / len(values)
        lines.append(f"|{name:^17}|{avg:^17.5f}|{max(values):^17.5f}|{min(values):^17.5f}|")
    return "\n".join(lines)
