"""interpolate (every mode, both layouts, its gradient) and prelu on the GPU (kernels/cuda/resize.py),
against the CPU kernels on the same inputs, and through the public API with autograd."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F

from .kernel_check import check

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("mode, shape, out_size, channel_last, align_corners", [
    ("nearest", (1, 2, 3, 4), (5, 7), False, False),
    ("bilinear", (2, 1, 4, 3), (3, 6), False, True),
    ("bilinear", (1, 3, 4, 2), (6, 3), True, False),      # NHWC
    ("bicubic", (1, 1, 4, 4), (7, 5), False, False),
    ("area", (1, 2, 6, 5), (3, 2), False, False),
    ("linear", (2, 3, 5), (8,), False, False),
    ("trilinear", (1, 1, 2, 3, 2), (3, 4, 3), False, False),
])
def test_interpolate_and_its_gradient_equal_the_cpu(mode, shape, out_size, channel_last, align_corners):
    x = RNG.standard_normal(shape)
    attrs = {"out_size": out_size, "scales": (), "mode": mode, "align_corners": align_corners, "align_mode": 0,
             "channel_last": channel_last}
    check("interpolate", [x], attrs)
    spatial = range(1, len(shape) - 1) if channel_last else range(2, len(shape))
    in_size = tuple(shape[a] for a in spatial)
    dout_shape = list(shape)
    for axis, n in zip(spatial, out_size):
        dout_shape[axis] = n
    check("interpolate_grad", [RNG.standard_normal(dout_shape)], {**attrs, "in_size": in_size})


def test_interpolate_keeps_float32_and_copies_when_no_size_changes():
    x = RNG.standard_normal((1, 2, 3, 3)).astype(np.float32)
    check("interpolate", [x], {"out_size": (4, 5), "mode": "bilinear"}, rtol=1e-5)
    check("interpolate", [x], {"out_size": (3, 3), "mode": "nearest"})


@pytest.mark.parametrize("weight_shape, channel_axis", [((1,), 1), ((3,), 1), ((3,), 3)])
def test_prelu_equals_the_cpu(weight_shape, channel_axis):
    x = RNG.standard_normal((2, 3, 2, 3))
    check("prelu", [x, np.abs(RNG.standard_normal(weight_shape)) * 0.3], {"channel_axis": channel_axis})


def test_upsample_and_prelu_train_on_the_gpu_as_on_the_cpu():
    x_values = RNG.standard_normal((1, 2, 3, 3)).astype(np.float32)

    def run():
        paddle.seed(1)
        act = paddle.nn.PReLU(num_parameters=2, init=0.2)
        x = paddle.to_tensor(x_values)
        x.stop_gradient = False
        y = act(F.interpolate(x, scale_factor=2, mode="bilinear"))
        (y * y).sum().backward()
        return y.numpy(), x.grad.numpy(), act.weight.grad.numpy(), str(y.place)

    paddle.set_device("gpu")
    try:
        gpu = run()
    finally:
        paddle.set_device("cpu")
    cpu = run()
    assert gpu[3] == "Place(gpu:0)" and cpu[3] == "Place(cpu)"
    for g, c in zip(gpu[:3], cpu[:3]):
        np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op_name, shape, attrs", [
    ("pixel_shuffle", (2, 8, 2, 3), {"upscale_factor": 2, "data_format": "NCHW"}),
    ("pixel_shuffle", (1, 2, 3, 9), {"upscale_factor": 3, "data_format": "NHWC"}),
    ("pixel_unshuffle", (1, 2, 4, 6), {"downscale_factor": 2, "data_format": "NCHW"}),
    ("pixel_unshuffle", (1, 4, 2, 3), {"downscale_factor": 2, "data_format": "NHWC"}),
    ("channel_shuffle", (2, 6, 2, 2), {"groups": 3, "data_format": "NCHW"}),
    ("channel_shuffle", (1, 2, 2, 4), {"groups": 2, "data_format": "NHWC"}),
])
def test_pixel_and_channel_shuffles_move_elements_as_the_cpu(op_name, shape, attrs):
    check(op_name, [np.arange(np.prod(shape), dtype=np.float32).reshape(shape)], attrs, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bce_loss_equals_the_cpu_with_its_clamped_logs(dtype):
    x = np.array([0.0, 1e-30, 0.2, 0.5, 0.9, 1.0], dtype)
    label = np.array([0.0, 1.0, 1.0, 0.3, 0.0, 1.0], dtype)
    check("bce_loss", [x, label], {}, rtol=1e-6)
