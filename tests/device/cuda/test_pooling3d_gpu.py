"""3-D pooling on the GPU (kernels/cuda/pooling3d.py) against the CPU kernels, and nn.MaxPool3D / nn.AvgPool3D
differentiating on the GPU as on the CPU."""
from __future__ import annotations

import functools

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn as nn

from . import kernel_check
from .kernel_check import gpu_and_cpu

check = functools.partial(kernel_check.check, rtol=1e-12, atol=1e-12)  # float64 windows: the CPU's values to rounding

RNG = np.random.default_rng(13)


# (x shape, kernel_size, strides, paddings (front, back, top, bottom, left, right), ceil_mode)
CASES = [
    ((1, 2, 4, 4, 4), (2, 2, 2), (2, 2, 2), (0,) * 6, False),                 # plain 2x2x2
    ((2, 1, 5, 4, 3), (3, 2, 2), (1, 2, 1), (1, 1, 0, 1, 1, 0), False),       # overlapping windows, padding
    ((1, 1, 5, 5, 4), (2, 3, 2), (2, 2, 3), (0, 1, 1, 0, 0, 0), True),        # ceil_mode: partial last windows
]


@pytest.mark.parametrize("x_shape, kernel_size, strides, paddings, ceil_mode", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool3d_and_its_gradient_match_the_cpu(x_shape, kernel_size, strides, paddings, ceil_mode, dtype):
    x = RNG.standard_normal(x_shape).astype(dtype)
    geometry = {"kernel_size": kernel_size, "strides": strides, "paddings": paddings, "ceil_mode": ceil_mode}
    check("max_pool3d", [x], geometry)
    from minipaddle.framework.kernels.cpu.pooling3d import max_pool3d_kernel
    out, mask = max_pool3d_kernel(x, **geometry)
    dout = RNG.standard_normal(out.shape).astype(dtype)
    check("max_pool3d_grad", [dout, mask], {"input_size": x_shape[2:]}, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("x_shape, kernel_size, strides, paddings, ceil_mode", CASES)
@pytest.mark.parametrize("exclusive, divisor", [(True, 0.0), (False, 0.0), (True, 2.5)])
def test_avg_pool3d_and_its_gradient_match_the_cpu(x_shape, kernel_size, strides, paddings, ceil_mode, exclusive,
                                                   divisor):
    x = RNG.standard_normal(x_shape)
    geometry = {"kernel_size": kernel_size, "strides": strides, "paddings": paddings, "ceil_mode": ceil_mode,
                "exclusive": exclusive, "divisor": divisor}
    check("avg_pool3d", [x], geometry)
    from minipaddle.framework.kernels.cpu.pooling3d import avg_pool3d_kernel
    dout = RNG.standard_normal(avg_pool3d_kernel(x, **geometry).shape)
    check("avg_pool3d_grad", [dout], {**geometry, "input_size": x_shape[2:]})


def test_max_pool3d_keeps_the_first_of_tied_maxima_and_skips_nans_as_the_cpu():
    x = np.zeros((1, 1, 2, 2, 2))
    x[0, 0, 1, 0, 1] = np.nan
    check("max_pool3d", [x], {"kernel_size": (2, 2, 2), "strides": (2, 2, 2), "paddings": (0,) * 6,
                              "ceil_mode": False})
    from minipaddle.framework.kernels.cuda.pooling3d import max_pool3d
    from numba import cuda
    out, mask = max_pool3d(cuda.to_device(x), (2, 2, 2), (2, 2, 2), (0,) * 6, False)
    assert out.copy_to_host().item() == 0.0 and mask.copy_to_host().item() == 0


def test_pool3d_layers_differentiate_on_the_gpu_as_on_the_cpu():
    volume = RNG.standard_normal((1, 2, 4, 5, 4))

    def run():
        x = paddle.to_tensor(volume, stop_gradient=False)
        peaks, mask = nn.MaxPool3D(kernel_size=2, stride=1, padding=1, return_mask=True)(x)
        means = nn.AvgPool3D(kernel_size=(2, 3, 2), stride=2, padding=(0, 1, 1), ceil_mode=True, exclusive=False)(x)
        loss = (peaks * peaks).sum() + (means * means).sum()
        loss.backward()
        return str(peaks.place), peaks.numpy(), mask.numpy(), means.numpy(), x.grad.numpy()
    gpu, cpu = gpu_and_cpu(run)
    assert gpu[0] == "Place(gpu:0)"
    np.testing.assert_array_equal(gpu[2], cpu[2])
    for g, c in zip(gpu[1:], cpu[1:]):
        np.testing.assert_allclose(g, c, rtol=1e-12, atol=1e-12)
