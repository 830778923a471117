"""The direct numba convolution kernels (kernels/cpu/conv_direct.py), the autotuner's second conv candidate.

They must compute what the im2col kernels compute for every geometry (stride 1 takes the wide-rows loops,
other strides the plain ones), carry gradients and grads of grads when pinned, propagate NaN, and be timed
against im2col when kernel tuning is on.
"""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle.framework import autotune, instrument, registry
from minipaddle.framework.kernels.cpu import conv_direct, im2col
from minipaddle.framework.registry import OPS, KernelKey
from ..ops.opcheck import check_grad, torch_or_skip

CONV_OPS = ("conv2d", "conv2d_transpose", "conv2d_grad_filter")

# (x shape, weight shape, strides, paddings (t, b, l, r), dilations, groups)
GEOMETRIES = [
    ((2, 3, 7, 8), (4, 3, 3, 2), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((2, 4, 9, 7), (6, 2, 3, 3), (1, 1), (1, 2, 0, 1), (1, 2), 2),      # groups, uneven padding, dilation
    ((2, 8, 9, 7), (10, 8, 3, 3), (1, 1), (1, 1, 2, 0), (2, 1), 1),     # 4-channel blocks plus a remainder
    ((1, 1, 6, 6), (3, 1, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),      # 1x1 kernel: no junk columns
    ((2, 3, 9, 11), (4, 3, 2, 5), (1, 1), (1, 0, 2, 1), (1, 2), 1),     # 5 taps a row: a block of 4 plus one
    ((2, 4, 9, 7), (6, 2, 3, 3), (2, 1), (1, 2, 0, 1), (1, 2), 2),      # strided: the plain loops
    ((1, 6, 10, 10), (6, 1, 3, 3), (2, 3), (2, 1, 1, 2), (2, 1), 6),    # depthwise, strided both ways
]


def _arrays(geometry, dtype, seed=0):
    xs, ws = geometry[0], geometry[1]
    rng = np.random.default_rng(seed)
    return rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("geometry", GEOMETRIES, ids=[f"g{i}" for i in range(len(GEOMETRIES))])
def test_direct_kernels_match_the_im2col_kernels(geometry, dtype):
    x, w = _arrays(geometry, dtype)
    _, _, strides, paddings, dilations, groups = geometry
    tol = {"rtol": 1e-4, "atol": 1e-4} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}
    out = conv_direct.conv2d_direct(x, w, strides, paddings, dilations, groups)
    np.testing.assert_allclose(out, im2col.conv2d_im2col(x, w, strides, paddings, dilations, groups), **tol)
    assert out.dtype == dtype and out.flags.c_contiguous
    dout = np.random.default_rng(1).standard_normal(out.shape).astype(dtype)
    dx = conv_direct.conv2d_transpose_direct(dout, w, strides, paddings, dilations, groups, x.shape[2:])
    np.testing.assert_allclose(dx, im2col.conv2d_transpose_col2im(dout, w, strides, paddings, dilations, groups,
                                                                  x.shape[2:]), **tol)
    assert dx.shape == x.shape
    dw = conv_direct.conv2d_grad_filter_direct(x, dout, strides, paddings, dilations, groups, w.shape[2:])
    np.testing.assert_allclose(dw, im2col.conv2d_grad_filter_im2col(x, dout, strides, paddings, dilations, groups,
                                                                    w.shape[2:]), **tol)
    assert dw.shape == w.shape


@pytest.fixture
def direct_pinned():
    """Run every conv op with its direct kernel, as a user pins one (the autotuner leaves pinned ops alone)."""
    keys = [KernelKey("cpu", np.dtype(d)) for d in ("float32", "float64")]
    for op in CONV_OPS:
        for key in keys:
            registry.set_preferred_kernel(op, key, "direct")
    yield
    for op in CONV_OPS:
        for key in keys:
            registry.set_preferred_kernel(op, key, None)


def test_pinned_direct_kernels_run_and_match_pytorch(direct_pinned):
    torch = torch_or_skip()
    x, w = _arrays(GEOMETRIES[1], np.float32)
    out = F.conv2d(paddle.to_tensor(x), paddle.to_tensor(w), padding=[[0, 0], [0, 0], [1, 2], [0, 1]],
                   dilation=(1, 2), groups=2)
    xt = torch.nn.functional.pad(torch.from_numpy(x), (0, 1, 1, 2))
    ref = torch.nn.functional.conv2d(xt, torch.from_numpy(w), dilation=(1, 2), groups=2).numpy()
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-4)
    chosen = registry.kernel_fn(OPS["conv2d"], KernelKey("cpu", np.dtype("float32")))
    assert inspect.unwrap(chosen) is conv_direct.conv2d_direct


@pytest.mark.parametrize("stride,padding,dilation", [(1, 1, 1), (2, (1, 0), (1, 2))])
def test_gradients_through_the_direct_kernels_match_central_differences(direct_pinned, stride, padding, dilation):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 4, 6, 5))
    w = rng.standard_normal((2, 2, 3, 2))
    check_grad(lambda a, b: F.conv2d(a, b, stride=stride, padding=padding, dilation=dilation, groups=2), [x, w])


def test_double_grad_through_the_direct_kernels(direct_pinned):
    """d/dx of <grad_w L, v> runs conv2d_grad_filter's backward: conv2d_transpose and conv2d, all direct."""
    rng = np.random.default_rng(3)
    w_np = rng.standard_normal((3, 2, 2, 2))
    v = paddle.to_tensor(rng.standard_normal((3, 2, 2, 2)))

    def grad_of_weight_grad(x):
        w = paddle.to_tensor(w_np, stop_gradient=False)
        y = F.conv2d(x, w, padding=1)
        (gw,) = paddle.grad([(y * y).sum()], [w], create_graph=True)
        return (gw * v).sum()

    check_grad(grad_of_weight_grad, [rng.standard_normal((1, 2, 4, 3))])


def test_nan_and_inf_propagate_through_the_direct_kernels():
    """fastmath is limited to reassociation, so NaN/Inf still reach the output (the NaN checker needs that)."""
    x, w = _arrays(GEOMETRIES[0], np.float32)
    x[0, 1, 2, 3] = np.nan
    x[1, 0, 0, 0] = np.inf
    out = conv_direct.conv2d_direct(x, w)
    ref = im2col.conv2d_im2col(x, w)
    assert np.isnan(out).any() and np.array_equal(np.isnan(out), np.isnan(ref))  # the windows holding the NaN
    assert np.array_equal(np.isfinite(out), np.isfinite(ref))
    dout = np.ones(out.shape, np.float32)
    dw = conv_direct.conv2d_grad_filter_direct(x, dout, filter_size=w.shape[2:])
    ref = im2col.conv2d_grad_filter_im2col(x, dout, filter_size=w.shape[2:])
    assert np.isnan(dw).any() and np.array_equal(np.isnan(dw), np.isnan(ref))  # reassociation keeps NaN
    assert np.array_equal(np.isfinite(dw), np.isfinite(ref))


@pytest.fixture
def tuning(tmp_path):
    autotune.reset()
    events = []
    unsubscribe = instrument.subscribe(events.append, kinds=("autotune",))
    paddle.incubate.autotune.set_config({"kernel": {"enable": True, "tuning_range": [0, 10],
                                                    "cache_dir": str(tmp_path / "cache")}})
    yield events
    unsubscribe()
    autotune.reset()


def test_autotune_times_im2col_against_direct_for_each_conv_op(tuning):
    x_np, w_np = _arrays(((4, 1, 12, 12), (6, 1, 3, 3)), np.float32)
    x = paddle.to_tensor(x_np, stop_gradient=False)
    w = paddle.to_tensor(w_np, stop_gradient=False)
    out = F.conv2d(x, w, padding=1)
    out.sum().backward()
    np.testing.assert_allclose(out.numpy(), im2col.conv2d_im2col(x_np, w_np, paddings=(1, 1, 1, 1)),
                               rtol=1e-4, atol=1e-4)
    decided = {e.op: e for e in tuning}
    assert set(decided) == set(CONV_OPS)
    for e in decided.values():
        # conv2d has a fifth candidate: channels-last patches
        assert {c["name"] for c in e.candidates} >= {"images", "images_parallel", "direct"}
        assert len(e.candidates) == (5 if e.op == "conv2d" else 4)
        assert all(c["time_ns"] > 0 for c in e.candidates)
        assert e.winner in {c["name"] for c in e.candidates} and e.default == "images"
    assert any(k.startswith("conv2d|float32|4x1x8x8,4x1x2x2|") for k in autotune.cache_entries())
    np.testing.assert_allclose(w.grad.numpy(), im2col.conv2d_grad_filter_im2col(
        x_np, np.ones((4, 6, 12, 12), np.float32), paddings=(1, 1, 1, 1), filter_size=(3, 3)), rtol=1e-4, atol=1e-3)


def test_direct_kernels_are_registered_below_im2col():
    for op in CONV_OPS:
        names = [k.name for k in OPS[op].kernels[KernelKey("cpu", np.dtype("float32"))]]
        # image by image first (the untuned default), then its threaded twin, im2col / col2im, direct; conv2d
        # has channels-last patches last
        extra = ["channels_last"] if op == "conv2d" else []
        assert names[0] == "images" and names[len(names) - 1 - len(extra)] == "direct" and names[4:] == extra
        assert len(names) == 4 + len(extra)
