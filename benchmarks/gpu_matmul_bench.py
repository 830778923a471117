"""GPU matmul: each numba.cuda kernel of the progression against PyTorch's cuBLAS, on one GPU.

    python benchmarks/gpu_matmul_bench.py benchmarks/results/gpu_matmul.json          # 4096^2 float32
    NUMBA_ENABLE_CUDASIM=1 python benchmarks/gpu_matmul_bench.py out.json --size 64 --repeats 1

For every candidate in kernels/cuda/matmul.py: a warm-up call (compiles, or loads numba's cache),
then `--repeats` calls timed with CUDA events around each; the table shows the median, GFLOP/s
(2 n^3 flops per product), the share of cuBLAS's speed (torch.matmul on the same GPU in the same
run, TF32 off so both compute true float32), the largest error against cuBLAS's (or numpy's)
result, and the registers and local memory each thread of the kernel uses (local memory > 0 means
an accumulator array spilled out of registers). The JSON file holds the same rows and the machine;
tutorials/08_gpu_kernels.ipynb shows it. Without a GPU the script says so and exits with status 0.
Under numba's CUDA simulator it checks the kernels and writes `"simulator": true` (timings there
mean nothing and are left out; torch is skipped).
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))


def _time_ms(fn, args: tuple, repeats: int) -> list[float]:
    """Per-call times in ms, measured with CUDA events around each call."""
    from numba import cuda
    times = []
    for _ in range(repeats):
        begin, end = cuda.event(), cuda.event()
        begin.record()
        fn(*args)
        end.record()
        end.synchronize()
        times.append(begin.elapsed_time(end))
    return times


def _kernel_resources(kernel) -> dict:
    """Registers and local memory per thread of the compiled kernel (numba-cuda; None elsewhere)."""
    info = {}
    for key, method in (("registers", "get_regs_per_thread"), ("local_bytes", "get_local_mem_per_thread"),
                        ("shared_bytes", "get_shared_mem_per_block")):
        try:
            value = getattr(kernel, method)()
            info[key] = int(next(iter(value.values()))) if isinstance(value, dict) else int(value)
        except Exception:  # noqa: BLE001 - a diagnostic: absent in the simulator and in old numba
            info[key] = None
    return info


def _torch_matmul(x_host: np.ndarray, y_host: np.ndarray, repeats: int, warmup: int):
    """cuBLAS through torch.matmul, true float32; (times in ms, result on the host) or None."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    x, y = torch.from_numpy(x_host).cuda(), torch.from_numpy(y_host).cuda()
    for _ in range(warmup):
        out = torch.matmul(x, y)
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        out = torch.matmul(x, y)
        end.record()
        end.synchronize()
        times.append(begin.elapsed_time(end))
    return times, out.cpu().numpy(), torch.__version__


def run(size: int, repeats: int, warmup: int) -> dict:
    import numba
    from numba import config, cuda
    from minipaddle.framework.kernels.cuda import matmul as kernels

    simulator = bool(config.ENABLE_CUDASIM)
    rng = np.random.default_rng(0)
    x_host = rng.standard_normal((size, size), dtype=np.float32)
    y_host = rng.standard_normal((size, size), dtype=np.float32)
    flops = 2.0 * size ** 3

    torch_result = None if simulator else _torch_matmul(x_host, y_host, repeats, warmup)
    if torch_result is not None:
        torch_times, reference, torch_version = torch_result
    else:
        reference, torch_version = x_host.astype(np.float64) @ y_host.astype(np.float64), None
    scale = float(np.abs(reference).max()) or 1.0

    x, y = cuda.to_device(x_host), cuda.to_device(y_host)
    rows = []
    for name, wrapper in kernels.CANDIDATES.items():
        for _ in range(1 if simulator else max(warmup, 1)):
            out = wrapper(x, y)
        cuda.synchronize()
        error = float(np.abs(out.copy_to_host() - reference).max()) / scale
        row = {"kernel": name, "relative_error": error, **_kernel_resources(kernels.KERNELS[name])}
        if not simulator:  # simulated timings mean nothing: the simulator only checks the results
            ms = statistics.median(_time_ms(wrapper, (x, y), repeats))
            row.update(ms=ms, gflops=flops / ms / 1e6)
        rows.append(row)
    result = {"size": size, "dtype": "float32", "repeats": repeats, "simulator": simulator,
              "numba": numba.__version__, "python": platform.python_version(), "rows": rows}
    if simulator:
        result["device"] = "numba CUDA simulator"
        return result
    device = cuda.get_current_device()
    result["device"] = device.name.decode() if isinstance(device.name, bytes) else str(device.name)
    result["compute_capability"] = list(device.compute_capability)
    if torch_result is not None:
        ms = statistics.median(torch_times)
        result["cublas"] = {"ms": ms, "gflops": flops / ms / 1e6, "torch": torch_version, "tf32": False}
        for row in rows:
            row["vs_cublas"] = result["cublas"]["ms"] / row["ms"]
    return result


def table(result: dict) -> str:
    lines = [f"matmul {result['size']}x{result['size']} float32 on {result['device']}"]
    if result["simulator"]:
        lines.append("(simulator: correctness only, no timings)")
    lines.append(f"{'kernel':<15} {'ms':>9} {'GFLOP/s':>9} {'vs cuBLAS':>9} {'rel.err':>9} {'regs':>5} {'local B':>7}")
    entries = list(result["rows"])
    if "cublas" in result:
        entries.append({"kernel": "cuBLAS (torch)", **result["cublas"], "vs_cublas": 1.0})
    for r in entries:
        ms = f"{r['ms']:.3f}" if "ms" in r else "-"
        gf = f"{r['gflops']:.0f}" if "gflops" in r else "-"
        vs = f"{r['vs_cublas']:.1%}" if "vs_cublas" in r else "-"
        err = f"{r['relative_error']:.1e}" if "relative_error" in r else "-"
        regs = r.get("registers")
        local = r.get("local_bytes")
        lines.append(f"{r['kernel']:<15} {ms:>9} {gf:>9} {vs:>9} {err:>9} "
                     f"{'-' if regs is None else regs:>5} {'-' if local is None else local:>7}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="where to write the JSON result")
    parser.add_argument("--size", type=int, default=4096, help="n of the n x n @ n x n product")
    parser.add_argument("--repeats", type=int, default=10, help="timed calls per kernel (median shown)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed calls first (compile, clocks up)")
    args = parser.parse_args(argv)
    from minipaddle.framework import gpu
    if not gpu.available():  # no numba.cuda, no driver, no device: nothing to measure
        print("gpu_matmul_bench: no CUDA GPU here (set NUMBA_ENABLE_CUDASIM=1 to check the kernels "
              "under numba's simulator); nothing measured.")
        return 0
    result = run(args.size, args.repeats, args.warmup)
    print(table(result))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
