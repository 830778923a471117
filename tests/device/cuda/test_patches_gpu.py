"""unfold and fold on the GPU (kernels/cuda/patches.py) against the CPU kernels, and nn.Unfold / nn.Fold
computing and differentiating on the GPU as on the CPU."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn as nn

from .kernel_check import check, gpu_and_cpu

RNG = np.random.default_rng(5)

# (x shape, kernel_sizes, strides, paddings (top, left, bottom, right), dilations)
CASES = [
    ((1, 2, 5, 4), (2, 3), (1, 1), (0, 0, 0, 0), (1, 1)),     # plain, non-square kernel
    ((2, 1, 6, 5), (3, 2), (2, 1), (1, 2, 0, 1), (1, 1)),     # strides, uneven padding in Paddle's order
    ((1, 2, 5, 6), (2, 2), (1, 2), (1, 0, 1, 1), (2, 1)),     # dilation; overlapping windows
]


@pytest.mark.parametrize("x_shape, kernel_sizes, strides, paddings, dilations", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unfold_and_fold_match_the_cpu(x_shape, kernel_sizes, strides, paddings, dilations, dtype):
    x = RNG.standard_normal(x_shape).astype(dtype)
    geometry = {"kernel_sizes": kernel_sizes, "strides": strides, "paddings": paddings, "dilations": dilations}
    check("unfold", [x], geometry, rtol=1e-6, atol=1e-6)
    from minipaddle.framework.kernels.cpu.patches import unfold_im2col
    cols = RNG.standard_normal(unfold_im2col(x, **geometry).shape).astype(dtype)
    check("fold", [cols], {**geometry, "output_sizes": x_shape[2:]}, rtol=1e-6, atol=1e-6)


def test_fold_adds_overlapping_windows():
    # 3 windows of width 2 with stride 1 over a row of 4: the middle pixels are covered twice
    cols = np.ones((1, 2, 3))
    check("fold", [cols], {"output_sizes": (1, 4), "kernel_sizes": (1, 2), "strides": (1, 1),
                           "paddings": (0, 0, 0, 0), "dilations": (1, 1)})
    from minipaddle.framework.kernels.cuda.patches import fold
    from numba import cuda
    got = fold(cuda.to_device(cols), (1, 4), (1, 2), (1, 1), (0, 0, 0, 0), (1, 1)).copy_to_host()
    np.testing.assert_array_equal(got.ravel(), [1.0, 2.0, 2.0, 1.0])


def test_unfold_then_fold_layers_differentiate_on_the_gpu_as_on_the_cpu():
    images = RNG.standard_normal((2, 2, 5, 5))

    def run():
        x = paddle.to_tensor(images, stop_gradient=False)
        cols = nn.Unfold(kernel_sizes=[2, 3], strides=[1, 2], paddings=[1, 0, 0, 1], dilations=[2, 1])(x)
        back = nn.Fold(output_sizes=[5, 5], kernel_sizes=[2, 3], strides=[1, 2], paddings=[1, 0, 0, 1],
                       dilations=[2, 1])(cols * cols)
        loss = (back * back).sum()
        loss.backward()
        return str(back.place), back.numpy(), x.grad.numpy()
    gpu, cpu = gpu_and_cpu(run)
    assert gpu[0] == "Place(gpu:0)"
    np.testing.assert_allclose(gpu[1], cpu[1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gpu[2], cpu[2], rtol=1e-12, atol=1e-12)
