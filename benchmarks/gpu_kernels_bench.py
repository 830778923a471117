"""GPU elementwise and reduction kernels against the memory system's speed, and PyTorch, on one GPU.

    python benchmarks/gpu_kernels_bench.py benchmarks/results/gpu_kernels.json          # 64M float32
    NUMBA_ENABLE_CUDASIM=1 python benchmarks/gpu_kernels_bench.py out.json --size 1024 --repeats 1

What it measures (float32, `--size` elements, default 64M = 256 MB per array):
- copy: a device-to-device copy (`dst.copy_to_device(src)`): the bandwidth to compare against,
  counting bytes read and written;
- add (x + y) and GELU (erf form) from kernels/cuda/elementwise.py and activation.py, a sum of every
  element from kernels/cuda/reduction.py, and a broadcasting add (a matrix plus a 1024-wide row):
  GB/s (bytes each must move at least) and the share of the copy's bandwidth. Targets: elementwise
  >= 70%, the sum >= 60%. Each is timed twice: the kernel alone on a preallocated output ("kernel"),
  and the op's kernel function as dispatch calls it, output allocation included ("call");
- launch overhead: microseconds per add of two 16-float arrays, back to back, wall clock, and a
  profile of where that host time goes.
The same operations through PyTorch CUDA run beside them when torch.cuda is available.

Timing: `--warmup` untimed calls first (compile or load numba's cache, clocks up), then `--repeats`
calls queued behind a kernel that keeps the GPU asleep long enough for all of them to be queued, between
two CUDA events, three times: the median per call is the GPU's time alone (numba's launch overhead,
~0.1 ms a launch, would otherwise hide it). For the op's function the median of single calls between
events is reported too: that one includes the host's overhead. The JSON file holds every row and the
machine. `run()` and `table()` can be called from another benchmark script. Without a GPU the script
says so and exits with status 0; under numba's CUDA simulator it runs every path on a tiny size and
checks the results (its timings mean nothing and are left out).
"""
from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

COPY_TARGET = {"add": 0.70, "gelu": 0.70, "sum": 0.60, "add_row": 0.70}


def _median_ms(fn, repeats: int) -> float:
    """One call's time: the median of `repeats` calls of fn(), each between two CUDA events. The GPU
    waits for the launch, so this includes the host's overhead when it is longer than the kernel."""
    from numba import cuda
    times = []
    for _ in range(repeats):
        begin, end = cuda.event(), cuda.event()
        begin.record()
        fn()
        end.record()
        end.synchronize()
        times.append(begin.elapsed_time(end))
    return statistics.median(times)


_busy_kernel = None


def _keep_gpu_busy(microseconds: int) -> None:
    """Queue a kernel that sleeps on the GPU, so the calls queued after it are all waiting when it ends:
    their events then time the GPU's work alone, not the host's launch overhead."""
    global _busy_kernel
    from numba import cuda
    if _busy_kernel is None:
        def busy(microseconds):
            for _ in range(microseconds):
                cuda.nanosleep(1000)
        _busy_kernel = cuda.jit(busy)
    if _busy_kernel is False:
        return
    try:
        _busy_kernel[1, 1](microseconds)
    except Exception as error:  # noqa: BLE001 - then the times include the host's overhead; say so
        print(f"gpu_kernels_bench: no sleeping kernel ({error}); times include the launch overhead")
        _busy_kernel = False


def _gpu_ms(fn, repeats: int, batches: int = 3) -> float:
    """The GPU's time per call: `repeats` calls queued behind a sleeping kernel, between two events;
    the median over `batches` such runs (host overhead does not count, as long as the sleep outlasts
    the queueing)."""
    from numba import cuda
    times = []
    for _ in range(batches):
        _keep_gpu_busy(2000 * repeats)  # 2 ms per call queued: far more than numba's launch overhead
        begin, end = cuda.event(), cuda.event()
        begin.record()
        for _ in range(repeats):
            fn()
        end.record()
        end.synchronize()
        times.append(begin.elapsed_time(end) / repeats)
    return statistics.median(times)


def _launch_profile(fn, calls: int, top: int = 12) -> list:
    """Where the host's time goes in `calls` calls of fn(): cProfile's top functions by own time."""
    import cProfile
    import pstats
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(calls):
        fn()
    profile.disable()
    stats = pstats.Stats(profile).stats
    rows = sorted(stats.items(), key=lambda item: -item[1][2])[:top]
    return [{"function": f"{Path(file).name}:{line}:{name}", "calls": n, "own_us_per_call": own / calls * 1e6,
             "cumulative_us_per_call": cumulative / calls * 1e6}
            for (file, line, name), (_, n, own, cumulative, _) in rows]


def _torch_rows(x_host: np.ndarray, y_host: np.ndarray, repeats: int, warmup: int, tiny_calls: int):
    """The same operations through PyTorch CUDA: {name: ms}, us per tiny add, version; None without it."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    x, y = torch.from_numpy(x_host).cuda(), torch.from_numpy(y_host).cuda()
    dst = torch.empty_like(x)
    cols = math.gcd(x.numel(), 1024)
    x_matrix, row = x.reshape(-1, cols), y[:cols]
    ops = {"copy": lambda: dst.copy_(x), "add": lambda: torch.add(x, y),
           "gelu": lambda: torch.nn.functional.gelu(x), "sum": lambda: torch.sum(x),
           "add_row": lambda: torch.add(x_matrix, row)}
    result = {}
    for name, fn in ops.items():
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(3):  # calls back to back (PyTorch's launches are short), the median of three runs
            begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            begin.record()
            for _ in range(repeats):
                fn()
            end.record()
            end.synchronize()
            times.append(begin.elapsed_time(end) / repeats)
        result[name] = statistics.median(times)
    a, b = torch.ones(16, device="cuda"), torch.ones(16, device="cuda")
    for _ in range(100):
        torch.add(a, b)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(tiny_calls):
        torch.add(a, b)
    torch.cuda.synchronize()
    tiny_us = (time.perf_counter() - start) / tiny_calls * 1e6
    return result, tiny_us, torch.__version__


def _check(name: str, got, want: np.ndarray, rtol: float, scale: float | None = None) -> float:
    """The largest error relative to `scale` (the reference's largest magnitude); raises over `rtol`."""
    got = np.asarray(got.copy_to_host(), dtype=np.float64)
    scale = scale or float(np.abs(want).max()) or 1.0
    error = float(np.abs(got - want).max()) / scale
    if not error <= rtol:
        raise AssertionError(f"gpu_kernels_bench: {name} is off by {error:.2e} (relative), more than {rtol:.0e}")
    return error


def _sum_kernels_alone(x, size: int):
    """reduction.sum(x)'s launches on preallocated arrays: the chunks' partial sums, then their sum
    (the plan reduction.reduce_rows makes for one long row)."""
    from numba import cuda

    from minipaddle.framework.kernels.cuda import reduction
    from minipaddle.framework.kernels.cuda.launch import THREADS

    f32 = np.dtype(np.float32)
    chunks = reduction.chunks_for(1, size)
    partial, total, center = (cuda.device_array(n, f32) for n in (chunks, 1, 1))
    first = reduction.SUM.kernel(reduction._rows_by_block, f32, final=False)
    small = chunks <= reduction.SMALL_ROW
    second = reduction.SUM.second_pass().kernel(reduction._rows_by_thread if small else reduction._rows_by_block, f32)
    one = np.float32(1)
    grid = min(chunks, reduction.max_blocks())

    def launch():
        first[grid, THREADS](x, partial, 1, size, chunks, center, one)
        if small:
            second[1, THREADS](partial, total, 1, chunks, center, one)
        else:
            second[1, THREADS](partial, total, 1, chunks, 1, center, one)
    return launch


def run(size: int = 1 << 26, repeats: int = 20, warmup: int = 3, tiny_calls: int = 2000) -> dict:
    """Measure; returns the result as a dict (see the module's docstring)."""
    import numba
    from numba import config, cuda

    from minipaddle.framework.kernels.cuda import activation, elementwise, reduction
    from minipaddle.framework.kernels.cuda.elementwise import _map_x, _map_xy
    from minipaddle.framework.kernels.cuda.launch import THREADS, blocks_for

    simulator = bool(config.ENABLE_CUDASIM)
    rng = np.random.default_rng(0)
    x_host = rng.standard_normal(size, dtype=np.float32)
    y_host = rng.standard_normal(size, dtype=np.float32)
    x, y = cuda.to_device(x_host), cuda.to_device(y_host)
    out, dst = cuda.device_array_like(x), cuda.device_array_like(x)
    cols = math.gcd(size, 1024)
    x_matrix, bias_row = x.reshape(size // cols, cols), cuda.to_device(y_host[:cols])
    f32 = np.dtype(np.float32)
    add_kernel = elementwise.add._kernel(_map_xy, f32)
    gelu_kernel = activation._GELU_ERF._kernel(_map_x, f32)
    blocks = blocks_for(size)
    word = 4
    cases = {  # name: (kernel alone, the op's kernel function, bytes moved at least)
        "copy": (lambda: dst.copy_to_device(x), None, 2 * size * word),
        "add": (lambda: add_kernel[blocks, THREADS](x, y, out), lambda: elementwise.add(x, y), 3 * size * word),
        "gelu": (lambda: gelu_kernel[blocks, THREADS](x, out), lambda: activation.gelu(x), 2 * size * word),
        "sum": (_sum_kernels_alone(x, size), lambda: reduction.sum(x), size * word),
        # broadcasting: a (size / 1024, 1024) matrix plus one row, through the shared index helper
        "add_row": (None, lambda: elementwise.add(x_matrix, bias_row), 2 * size * word),
    }
    gelu_ref = 0.5 * x_host * (1.0 + np.vectorize(math.erf)(x_host.astype(np.float64) / math.sqrt(2.0))) \
        if size <= 1 << 16 else None
    errors = {"add": _check("add", elementwise.add(x, y), x_host.astype(np.float64) + y_host, 1e-6),
              "add_row": _check("add_row", elementwise.add(x_matrix, bias_row),
                                x_host.reshape(-1, cols).astype(np.float64) + y_host[:cols], 1e-6),
              "sum": _check("sum", reduction.sum(x).reshape(1), np.array([x_host.astype(np.float64).sum()]),
                            1e-6, scale=float(np.abs(x_host).astype(np.float64).sum()))}  # vs the sum of |x|
    if gelu_ref is not None:
        errors["gelu"] = _check("gelu", activation.gelu(x), gelu_ref, 1e-6)

    rows = []
    for name, (alone, call, nbytes) in cases.items():
        for fn in (alone, call):
            for _ in range(1 if simulator or fn is None else warmup):
                if fn is not None:
                    fn()
        cuda.synchronize()
        row = {"op": name, "bytes": nbytes, "relative_error": errors.get(name)}
        if not simulator:
            if alone is not None:
                row["kernel_ms"] = _gpu_ms(alone, repeats)
            if call is not None:
                row["call_ms"] = _gpu_ms(call, repeats)
                row["single_call_ms"] = _median_ms(call, repeats)
            row["gb_per_s"] = nbytes / row.get("kernel_ms", row.get("call_ms")) / 1e6
        rows.append(row)

    result = {"size": size, "dtype": "float32", "repeats": repeats, "simulator": simulator,
              "numba": numba.__version__, "python": platform.python_version(), "rows": rows}
    a, b = cuda.to_device(np.ones(16, np.float32)), cuda.to_device(np.ones(16, np.float32))
    calls = 3 if simulator else tiny_calls
    for _ in range(3 if simulator else 100):
        elementwise.add(a, b)
    cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        elementwise.add(a, b)
    cuda.synchronize()
    if simulator:
        result["device"] = "numba CUDA simulator"
        return result
    result["tiny_add_us"] = (time.perf_counter() - start) / calls * 1e6
    result["tiny_add_profile"] = _launch_profile(lambda: elementwise.add(a, b), 200)
    cuda.synchronize()
    device = cuda.get_current_device()
    result["device"] = device.name.decode() if isinstance(device.name, bytes) else str(device.name)
    result["multiprocessors"] = device.MULTIPROCESSOR_COUNT
    copy_bw = rows[0]["gb_per_s"]
    torch_result = _torch_rows(x_host, y_host, repeats, warmup, tiny_calls)
    if torch_result is not None:
        torch_ms, torch_tiny_us, version = torch_result
        result["torch"] = {"version": version, "tiny_add_us": torch_tiny_us, "ms": torch_ms}
        for row in rows:
            row["torch_ms"] = torch_ms[row["op"]]
            row["torch_gb_per_s"] = row["bytes"] / torch_ms[row["op"]] / 1e6
        copy_bw = max(copy_bw, rows[0]["torch_gb_per_s"])  # the faster copy is the memory system's speed
    result["copy_gb_per_s"] = copy_bw
    for row in rows:
        row["of_copy"] = row["gb_per_s"] / copy_bw
        row["target"] = COPY_TARGET.get(row["op"])
    return result


def table(result: dict) -> str:
    lines = [f"GPU kernels, {result['size']:,} float32 elements, on {result['device']}"]
    if result["simulator"]:
        lines.append("(simulator: the paths ran and the results were checked; no timings)")
        return "\n".join(lines)
    lines.append("GPU time per call -- kernel: the kernel(s) alone; call: the op's kernel function (output "
                 "allocated); 1 call: one call between events, the host's overhead included")
    lines.append(f"{'op':<6} {'kernel ms':>9} {'call ms':>8} {'1 call ms':>9} {'GB/s':>6} {'of copy':>7} "
                 f"{'target':>6} {'torch ms':>8} {'torch GB/s':>10}")
    for r in result["rows"]:
        def cell(key, fmt, r=r):
            return format(r[key], fmt) if r.get(key) is not None else "-"
        lines.append(f"{r['op']:<6} {cell('kernel_ms', '.3f'):>9} {cell('call_ms', '.3f'):>8} "
                     f"{cell('single_call_ms', '.3f'):>9} {cell('gb_per_s', '.0f'):>6} {cell('of_copy', '.0%'):>7} "
                     f"{cell('target', '.0%'):>6} {cell('torch_ms', '.3f'):>8} {cell('torch_gb_per_s', '.0f'):>10}")
    lines.append(f"copy bandwidth (the faster copy): {result['copy_gb_per_s']:.0f} GB/s")
    tiny = f"launch overhead: {result['tiny_add_us']:.1f} us per add of 16 floats"
    if "torch" in result:
        tiny += f" (PyTorch {result['torch']['version']}: {result['torch']['tiny_add_us']:.1f} us)"
    lines.append(tiny)
    lines.append("where a tiny add's host time goes (us per call, own / cumulative):")
    for p in result["tiny_add_profile"][:8]:
        lines.append(f"  {p['own_us_per_call']:7.1f} {p['cumulative_us_per_call']:7.1f}  {p['function']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="where to write the JSON result")
    parser.add_argument("--size", type=int, default=1 << 26, help="elements per array (default 64M)")
    parser.add_argument("--repeats", type=int, default=20, help="timed calls per measurement (median shown)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed calls first (compile, clocks up)")
    parser.add_argument("--tiny-calls", type=int, default=2000, help="adds of 16 floats timed for the overhead")
    args = parser.parse_args(argv)
    from minipaddle.framework import gpu
    if not gpu.available():  # no numba.cuda, no driver, no device: nothing to measure
        print("gpu_kernels_bench: no CUDA GPU here (set NUMBA_ENABLE_CUDASIM=1 to run the kernels under "
              "numba's simulator); nothing measured.")
        return 0
    result = run(args.size, args.repeats, args.warmup, args.tiny_calls)
    print(table(result))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
