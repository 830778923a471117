"""Pooling and convolution kernels at LeNet's shapes: each fast kernel against the kernel it replaced,
and max_pool2d against a plain copy of its input (the memory-speed floor).

    python benchmarks/pool_conv_kernels.py [--rounds 5] [--json out.json]

Kernels are called directly (no dispatch), float32, batch 64: LeNet's pools (64x6x28x28 and
64x16x10x10) and convolutions (1->6 3x3 pad 1 on 28x28, 6->16 5x5 on 14x14) with both gradients.
Every round times every kernel (best of 20 calls after a warm-up) and the table shows the median
over rounds and the spread (min..max of the rounds): the machine is shared, so a single round can
be several times slower than the next. Target: max_pool2d forward within 2x of x.copy() -- the
forward F.max_pool2d runs, pool2d (no mask); max_pool2d with its mask (return_mask=True) is shown
too, and each backward: max_pool2d_grad scatters at the mask, pool2d_grad finds the maxima in x.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from minipaddle.framework.kernels.cpu import conv_fast, im2col, pooling, pooling_fast  # noqa: E402

POOL = ((2, 2), (2, 2), (0, 0, 0, 0), False)


def cases() -> dict:
    """name -> (callable, args); pairs share a prefix: '<what>: <kernel>'."""
    rng = np.random.default_rng(0)
    out: dict = {}
    for shape in ((64, 6, 28, 28), (64, 16, 10, 10)):
        x = rng.standard_normal(shape).astype(np.float32)
        label = "x".join(map(str, shape))
        _, mask = pooling.max_pool2d_kernel(x, *POOL)
        dout = rng.standard_normal(mask.shape).astype(np.float32)
        out[f"copy {label}: x.copy()"] = (x.copy, ())
        out[f"max_pool2d {label}: general"] = (pooling.max_pool2d_kernel, (x, *POOL))
        out[f"max_pool2d {label}: rows"] = (pooling_fast.max_pool2d_rows, (x, *POOL))
        out[f"max_pool2d {label}: rows_parallel"] = (pooling_fast.max_pool2d_rows_parallel, (x, *POOL))
        out[f"pool2d {label}: rows"] = (pooling_fast.pool2d_rows, (x, *POOL))
        out[f"pool2d_grad {label}: rows"] = (pooling_fast.pool2d_grad_rows, (x, dout, *POOL))
        out[f"max_pool2d_grad {label}: general"] = (pooling.max_pool2d_grad_kernel, (dout, mask, shape[2:]))
        out[f"max_pool2d_grad {label}: rows"] = (pooling_fast.max_pool2d_grad_rows, (dout, mask, shape[2:]))
    for x_shape, w_shape, pad in (((64, 1, 28, 28), (6, 1, 3, 3), 1), ((64, 6, 14, 14), (16, 6, 5, 5), 0)):
        x = rng.standard_normal(x_shape).astype(np.float32)
        w = rng.standard_normal(w_shape).astype(np.float32)
        geometry = ((1, 1), (pad,) * 4, (1, 1), 1)
        dout = im2col.conv2d_im2col(x, w, *geometry)
        label = f"{x_shape[1]}->{w_shape[0]} {w_shape[2]}x{w_shape[3]}"
        out[f"conv2d {label}: im2col"] = (im2col.conv2d_im2col, (x, w, *geometry))
        out[f"conv2d {label}: images"] = (conv_fast.conv2d_images, (x, w, *geometry))
        out[f"conv2d {label}: images_parallel"] = (conv_fast.conv2d_images_parallel, (x, w, *geometry))
        dx_args = (dout, w, *geometry, x_shape[2:])
        out[f"conv2d_transpose {label}: col2im"] = (im2col.conv2d_transpose_col2im, dx_args)
        out[f"conv2d_transpose {label}: images"] = (conv_fast.conv2d_transpose_images, dx_args)
        dw_args = (x, dout, *geometry, w_shape[2:])
        out[f"conv2d_grad_filter {label}: im2col"] = (im2col.conv2d_grad_filter_im2col, dw_args)
        out[f"conv2d_grad_filter {label}: images"] = (conv_fast.conv2d_grad_filter_images, dw_args)
    return out


def best_of(fn, args, calls: int = 20) -> float:
    fn(*args)  # warm-up (and numba's compile or cache load)
    best = float("inf")
    for _ in range(calls):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    table = cases()
    times: dict = {name: [] for name in table}
    for _ in range(args.rounds):
        for name, (fn, fn_args) in table.items():
            times[name].append(best_of(fn, fn_args))
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    print(f"{'kernel':52}{'median us':>11}{'spread us':>20}")
    for name, ts in times.items():
        print(f"{name:52}{medians[name]:>11.1f}{f'{min(ts):.1f}..{max(ts):.1f}':>20}")
    for label in ("64x6x28x28", "64x16x10x10"):  # F.max_pool2d runs pool2d (no mask) unless return_mask=True
        ratio = medians[f"pool2d {label}: rows"] / medians[f"copy {label}: x.copy()"]
        print(f"target max_pool2d {label} fwd (pool2d rows) <= 2x x.copy(): {ratio:.2f}x "
              f"{'ok' if ratio <= 2 else 'MISSED'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"median_us": medians, "rounds_us": times}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
