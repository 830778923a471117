"""Would NHWC as the whole network's internal layout win on this CPU? conv2d forward at ResNet-18's shapes
for 32x32 inputs (batch 32, 3x3, float32): the default NCHW kernel against the channels-last kernel as it
runs today (a transposed, padded copy of the input and of the weight, the output transposed back) and
against its ceiling, "ideal": the input already NHWC and padded, the output left NHWC -- what a network
kept channels-last throughout would pay per convolution.

    python benchmarks/conv_layout.py [--rounds 15] [--json out.json]

Kernels are called directly, alternating, each timed over 5 calls per round; the table shows medians
over rounds. Layers where "ideal / default" exceeds 1 are where a whole-network layout could win.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

sys.path.insert(0, str(harness.REPO_ROOT))
from minipaddle.framework.kernels.cpu.conv_channels_last import channels_last_patches, conv2d_channels_last  # noqa: E402,E501
from minipaddle.framework.kernels.cpu.conv_fast import conv2d_images  # noqa: E402
from minipaddle.framework.kernels.cpu.im2col import conv2d_im2col  # noqa: E402

BATCH = 32
# (in channels, out channels, map size, stride): the 3x3 convolutions of ResNet-18's stages on 32x32 inputs
SHAPES = [(64, 64, 8, 1), (64, 128, 8, 2), (128, 128, 4, 1), (128, 256, 4, 2), (256, 256, 2, 1),
          (256, 512, 2, 2), (512, 512, 1, 1)]


def _kernels(c: int, oc: int, h: int, s: int) -> dict:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, c, h, h)).astype(np.float32)
    w = rng.standard_normal((oc, c, 3, 3)).astype(np.float32)
    pads, oh = (1, 1, 1, 1), (h + 2 - 3) // s + 1
    padded = np.zeros((BATCH, h + 2, h + 2, c), np.float32)   # what the previous NHWC layer would hand over
    padded[:, 1:-1, 1:-1] = x.transpose(0, 2, 3, 1)
    w_rows_t = np.ascontiguousarray(np.ascontiguousarray(w.transpose(0, 2, 3, 1)).reshape(oc, -1).T)
    cols = np.empty((BATCH * oh * oh, 9 * c), np.float32)

    def ideal():
        channels_last_patches(padded, cols, 3, 3, s, s, 1, 1, oh, oh)
        return cols @ w_rows_t   # (N*OH*OW, OC): NHWC, read as is by the next layer

    kernels = {"default": lambda: conv2d_images(x, w, (s, s), pads, (1, 1), 1),
               "im2col": lambda: conv2d_im2col(x, w, (s, s), pads, (1, 1), 1),
               "channels_last": lambda: conv2d_channels_last(x, w, (s, s), pads, (1, 1), 1),
               "ideal": ideal}
    got = ideal().reshape(BATCH, oh, oh, oc).transpose(0, 3, 1, 2)
    np.testing.assert_allclose(got, kernels["default"](), rtol=1e-3, atol=1e-3)   # all compute the same
    return kernels


def measure(rounds: int) -> dict:
    table = {}
    for shape in SHAPES:
        kernels = _kernels(*shape)
        for fn in kernels.values():
            fn()
        times: dict = {k: [] for k in kernels}
        for _ in range(rounds):
            for name, fn in kernels.items():
                start = time.perf_counter()
                for _ in range(5):
                    fn()
                times[name].append((time.perf_counter() - start) / 5 * 1e6)
        table[str(shape)] = {k: statistics.median(v) for k, v in times.items()}
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    table = measure(args.rounds)
    print(f"conv2d forward, us (medians of {args.rounds} rounds); {harness.machine()}")
    print(f"{'(C, OC, H, stride)':22}{'default':>10}{'im2col':>10}{'channels_last':>15}{'ideal':>10}"
          f"{'ideal / default':>17}")
    for shape, m in table.items():
        print(f"{shape:22}{m['default']:>10.0f}{m['im2col']:>10.0f}{m['channels_last']:>15.0f}{m['ideal']:>10.0f}"
              f"{m['default'] / m['ideal']:>16.2f}x")
    total = {k: sum(m[k] for m in table.values()) for k in ("default", "ideal")}
    print(f"all seven layers: default {total['default']:.0f} us, ideal NHWC {total['ideal']:.0f} us "
          f"({total['default'] / total['ideal']:.2f}x)")
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": harness.machine(), "us": table}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
