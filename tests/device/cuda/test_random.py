"""Philox4x32-10 on the GPU: the published answers, results independent of the launch shape,
reproducible under paddle.seed, and the right distributions for uniform, normal and the random ops."""
from __future__ import annotations

import numpy as np
import pytest
from numba import cuda

import minipaddle as paddle
from minipaddle.framework.kernels.cuda import random as R

from .kernel_check import on_device

U = np.uint64


@pytest.mark.parametrize("counter, key, expected", [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
])
def test_philox_matches_the_random123_known_answers(counter, key, expected):
    @cuda.jit
    def draw(out):
        w = R.philox4x32(U(counter[0]), U(counter[1]), U(counter[2]), U(counter[3]), U(key[0]), U(key[1]))
        out[0], out[1], out[2], out[3] = w[0], w[1], w[2], w[3]

    out = cuda.device_array(4, np.uint64)
    draw[1, 1](out)
    assert tuple(int(w) for w in out.copy_to_host()) == expected


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numbers_do_not_depend_on_the_launch_shape(dtype):
    key = (U(7), U(9))
    one_block = R.uniform((203,), dtype, key=key, blocks=1).copy_to_host()
    many_blocks = R.uniform((203,), dtype, key=key, blocks=4).copy_to_host()
    np.testing.assert_array_equal(one_block, many_blocks)
    np.testing.assert_array_equal(R.normal((9,), dtype, key=key, blocks=1).copy_to_host(),
                                  R.normal((9,), dtype, key=key, blocks=3).copy_to_host())


def test_paddle_seed_makes_draws_reproducible():
    paddle.seed(123)
    first = R.uniform((50,), np.float32).copy_to_host()
    paddle.seed(123)
    again = R.uniform((50,), np.float32).copy_to_host()
    later = R.uniform((50,), np.float32).copy_to_host()
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, later)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_and_normal_have_the_right_moments(dtype):
    u = R.uniform((4000,), dtype, low=-1.0, high=3.0, key=(U(1), U(2))).copy_to_host()
    assert u.dtype == dtype and u.min() >= -1 and u.max() < 3
    assert abs(u.mean() - 1.0) < 0.1 and abs(u.var() - 16 / 12) < 0.1
    z = R.normal((4000,), dtype, mean=2.0, std=0.5, key=(U(3), U(4))).copy_to_host()
    assert abs(z.mean() - 2.0) < 0.05 and abs(z.std() - 0.5) < 0.05


def test_dropout_keeps_about_one_minus_p_and_scales_the_kept():
    x = cuda.to_device(np.full((40, 25), 2.0, np.float32))
    out, mask = R.dropout(x, p=0.3)
    out, mask = out.copy_to_host(), mask.copy_to_host()
    kept = mask > 0
    assert abs(kept.mean() - 0.7) < 0.05
    np.testing.assert_allclose(mask[kept], 1 / 0.7, rtol=1e-6)
    np.testing.assert_allclose(out, 2.0 * mask)
    out, mask = R.dropout(x, p=0.5, axis=(0,), mode="downscale_in_infer")
    assert mask.shape == (40, 1) and set(np.unique(mask.copy_to_host())) <= {0.0, 1.0}
    np.testing.assert_allclose(out.copy_to_host(), 2.0 * np.broadcast_to(mask.copy_to_host(), (40, 25)))


def test_alpha_dropout_keeps_mean_zero_and_variance_one():
    x = cuda.to_device(np.random.default_rng(0).standard_normal(4000).astype(np.float64))
    out, mask = R.alpha_dropout(x, p=0.2)
    out = out.copy_to_host()
    assert abs(out.mean()) < 0.1 and abs(out.var() - 1) < 0.1
    assert mask.copy_to_host().max() > 0


def test_rrelu_draws_slopes_for_negative_inputs_only():
    x = np.linspace(-2, 2, 81).astype(np.float32)
    out, noise = R.rrelu(cuda.to_device(x), lower=0.1, upper=0.3)
    noise = noise.copy_to_host()
    assert np.all(noise[x >= 0] == 1) and np.all((noise[x < 0] >= 0.1) & (noise[x < 0] < 0.3))
    np.testing.assert_allclose(out.copy_to_host(), x * noise, rtol=1e-6)
    _, noise = R.rrelu(cuda.to_device(x), lower=0.1, upper=0.3, training=False)
    np.testing.assert_allclose(noise.copy_to_host()[x < 0], 0.2)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("axis", [None, [1]])
def test_dropout_drops_the_same_units_on_the_cpu_and_the_gpu_under_one_seed(dtype, axis):
    x = np.random.default_rng(0).standard_normal((6, 7)).astype(dtype)

    def draw():
        paddle.seed(11)
        t = paddle.to_tensor(x)
        t.stop_gradient = False
        out = paddle.nn.functional.dropout(t, p=0.4, axis=axis)
        out.sum().backward()
        return out.numpy(), t.grad.numpy()
    (gpu, gpu_grad), (cpu, cpu_grad) = on_device("gpu", draw), on_device("cpu", draw)
    np.testing.assert_array_equal(gpu == 0, cpu == 0)
    assert 0 < (cpu == 0).mean() < 1
    np.testing.assert_allclose(gpu, cpu, rtol=1e-6)
    np.testing.assert_allclose(gpu_grad, cpu_grad, rtol=1e-6)


def test_alpha_dropout_and_rrelu_draw_the_same_numbers_on_the_cpu_and_the_gpu():
    x = np.random.default_rng(1).standard_normal((5, 9)).astype("float32")

    def draw():
        paddle.seed(5)
        t = paddle.to_tensor(x)
        return (paddle.nn.functional.alpha_dropout(t, p=0.3).numpy(),
                paddle.nn.functional.rrelu(t, training=True).numpy())
    (gpu_alpha, gpu_rrelu), (cpu_alpha, cpu_rrelu) = on_device("gpu", draw), on_device("cpu", draw)
    np.testing.assert_allclose(gpu_alpha, cpu_alpha, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gpu_rrelu, cpu_rrelu, rtol=1e-6)
    assert not np.allclose(cpu_rrelu[x < 0] / x[x < 0], cpu_rrelu[x < 0][0] / x[x < 0][0])  # slopes vary
