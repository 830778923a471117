"""conv3d and its two gradients on the GPU (kernels/cuda/conv3d.py) against the CPU kernels, and nn.Conv3D /
nn.Conv3DTranspose training on the GPU as on the CPU. Shapes are tiny: the simulator runs every GPU thread
as a Python thread."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn as nn

from .kernel_check import check, gpu_and_cpu

RNG = np.random.default_rng(7)

# (x shape, weight shape, strides, paddings (front, back, top, bottom, left, right), dilations, groups)
CASES = [
    ((1, 2, 3, 4, 3), (2, 2, 2, 2, 1), (1, 1, 1), (0,) * 6, (1, 1, 1), 1),                # plain (float32)
    ((1, 2, 4, 3, 5), (2, 2, 2, 1, 2), (2, 1, 2), (1, 0, 0, 1, 1, 1), (1, 1, 2), 1),      # strides, pads, dilation
    ((2, 4, 2, 3, 3), (4, 2, 1, 2, 2), (1, 2, 1), (0, 1, 1, 0, 0, 1), (1, 1, 1), 2),      # groups
]


@pytest.mark.parametrize("x_shape, w_shape, strides, paddings, dilations, groups", CASES)
def test_conv3d_and_its_gradients_match_the_cpu(x_shape, w_shape, strides, paddings, dilations, groups):
    # float32 runs the registry's tiled matmuls, slow under the simulator: the plain case only
    dtype = np.float32 if groups == 1 and not any(paddings) else np.float64
    x, w = RNG.standard_normal(x_shape).astype(dtype), RNG.standard_normal(w_shape).astype(dtype)
    geometry = {"strides": strides, "paddings": paddings, "dilations": dilations, "groups": groups}
    tol = 1e-5 if dtype == np.float32 else 1e-12
    check("conv3d", [x, w], geometry, rtol=tol, atol=tol)
    from minipaddle.framework.kernels.cpu.conv3d import conv3d_taps
    dout = RNG.standard_normal(conv3d_taps(x, w, **geometry).shape).astype(dtype)
    check("conv3d_transpose", [dout, w], {**geometry, "output_size": x_shape[2:]}, rtol=tol, atol=tol)
    check("conv3d_grad_filter", [x, dout], {**geometry, "filter_size": w_shape[2:]}, rtol=tol, atol=tol)


def test_conv3d_transpose_with_groups_to_a_larger_output():
    x, w = RNG.standard_normal((1, 4, 2, 2, 2)), RNG.standard_normal((4, 1, 2, 3, 2))
    check("conv3d_transpose", [x, w], {"strides": (2, 2, 1), "paddings": (0, 1, 1, 1, 0, 0), "dilations": (1, 1, 1),
                                       "groups": 2, "output_size": (4, 3, 3)}, rtol=1e-12, atol=1e-12)


def test_conv3d_layers_train_on_the_gpu_as_on_the_cpu():
    volume = RNG.standard_normal((1, 2, 3, 2, 3))

    def run():
        paddle.seed(3)
        down = nn.Conv3D(2, 4, kernel_size=(2, 2, 3), stride=(2, 1, 1), padding=1, groups=2)
        up = nn.Conv3DTranspose(4, 2, kernel_size=2, stride=2)
        down.to(dtype="float64")
        up.to(dtype="float64")
        x = paddle.to_tensor(volume, stop_gradient=False)
        y = up(down(x))
        loss = (y * y).mean()
        loss.backward()
        return (str(y.place), y.numpy(), x.grad.numpy(), down.weight.grad.numpy(), down.bias.grad.numpy(),
                up.weight.grad.numpy())
    gpu, cpu = gpu_and_cpu(run)
    assert gpu[0] == "Place(gpu:0)"
    for g, c in zip(gpu[1:], cpu[1:]):
        np.testing.assert_allclose(g, c, rtol=1e-10, atol=1e-12)
