"""Pooling: max / avg / adaptive pools against a numpy reference of Paddle's semantics (windows,
ceil_mode, exclusive, divisor_override, adaptive bins) and against PyTorch; the argmax mask;
NHWC; gradients checked numerically (and grads of grads); the layers and their repr; the numba
kernels in the registry; and every error."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.ops import describe

from ..ops.opcheck import check_double_grad, check_grad, torch_or_skip

RNG = np.random.default_rng(5)


def _data(*shape, dtype="float64"):
    """Distinct values (a shuffled range plus noise), so every window has one clear maximum."""
    size = math.prod(shape)
    values = RNG.permutation(size) / size + RNG.uniform(0, 0.1 / size, size)
    return (values.reshape(shape) * 2 - 1).astype(dtype)


def _t(a, stop_gradient=True):
    return paddle.to_tensor(a, stop_gradient=stop_gradient)


def _torch():
    torch = torch_or_skip()
    torch.set_num_threads(1)  # its OpenMP pool fights numba's and OpenBLAS's threads in one process
    return torch


def _bounds(size, out, k, s, before, adaptive):
    for i in range(out):
        if adaptive:
            yield math.floor(i * size / out), math.ceil((i + 1) * size / out)
        else:
            start = i * s - before
            yield max(start, 0), min(start + k, size)


def pool_reference(x, kind, kernel=(1, 1), stride=(1, 1), pads=(0, 0, 0, 0), ceil_mode=False, exclusive=True,
                   divisor=None, output_size=None):
    """Paddle's pooling, window by window: max (value, flat argmax) or avg."""
    n, c, h, w = x.shape
    adaptive = output_size is not None
    if adaptive:
        oh, ow = output_size
    else:
        extra = [s - 1 if ceil_mode else 0 for s in stride]
        oh = (h + pads[0] + pads[1] - kernel[0] + extra[0]) // stride[0] + 1
        ow = (w + pads[2] + pads[3] - kernel[1] + extra[1]) // stride[1] + 1
    out, mask = np.zeros((n, c, oh, ow)), np.zeros((n, c, oh, ow), np.int64)
    rows = list(_bounds(h, oh, kernel[0], stride[0], pads[0], adaptive))
    cols = list(_bounds(w, ow, kernel[1], stride[1], pads[2], adaptive))
    for (y, (h0, h1)), (xo, (w0, w1)) in itertools.product(enumerate(rows), enumerate(cols)):
        window = x[:, :, h0:h1, w0:w1].reshape(n, c, -1)
        if kind == "max":
            arg = window.argmax(-1)
            out[:, :, y, xo] = window.max(-1)
            mask[:, :, y, xo] = (h0 + arg // (w1 - w0)) * w + w0 + arg % (w1 - w0)
        else:
            count = divisor or ((h1 - h0) * (w1 - w0) if exclusive or adaptive else kernel[0] * kernel[1])
            out[:, :, y, xo] = window.sum(-1) / count
    return out, mask


# ---- forward against numpy --------------------------------------------------------------------
GRID = list(itertools.product([(2, 2), (3, 2)], [None, (1, 2)], [(0, 0, 0, 0), (1, 1, 0, 1)], [False, True]))


def _empty_window(shape, kernel, stride, pads, ceil_mode) -> bool:
    """Paddle's ceil_mode can place a last window wholly in the padding; minipaddle refuses that."""
    for size, k, s, before, after in zip(shape, kernel, stride, pads[::2], pads[1::2]):
        out = (size + before + after - k + (s - 1 if ceil_mode else 0)) // s + 1
        if (out - 1) * s - before >= size:
            return True
    return False


@pytest.mark.parametrize("kernel,stride,pads,ceil_mode", GRID)
def test_max_pool2d_and_mask_match_numpy(kernel, stride, pads, ceil_mode):
    x = _data(2, 3, 7, 8)
    if _empty_window((7, 8), kernel, stride or kernel, pads, ceil_mode):
        with pytest.raises(InvalidArgument, match="entirely in the padding"):
            F.max_pool2d(_t(x), kernel, stride, list(pads), ceil_mode=ceil_mode)
        return
    out, mask = F.max_pool2d(_t(x), kernel, stride, list(pads), return_mask=True, ceil_mode=ceil_mode)
    ref, ref_mask = pool_reference(x, "max", kernel, stride or kernel, pads, ceil_mode)
    np.testing.assert_array_equal(out.numpy(), ref)
    np.testing.assert_array_equal(mask.numpy(), ref_mask)
    assert mask.dtype == paddle.int32


@pytest.mark.parametrize("kernel,stride,pads,ceil_mode", GRID)
@pytest.mark.parametrize("exclusive", [True, False])
def test_avg_pool2d_matches_numpy(kernel, stride, pads, ceil_mode, exclusive):
    x = _data(2, 3, 8, 9)
    if _empty_window((8, 9), kernel, stride or kernel, pads, ceil_mode):
        with pytest.raises(InvalidArgument, match="entirely in the padding"):
            F.avg_pool2d(_t(x), kernel, stride, list(pads), ceil_mode=ceil_mode)
        return
    out = F.avg_pool2d(_t(x), kernel, stride, list(pads), ceil_mode=ceil_mode, exclusive=exclusive)
    ref, _ = pool_reference(x, "avg", kernel, stride or kernel, pads, ceil_mode, exclusive)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12)


def test_avg_pool2d_divisor_override_replaces_the_count():
    x = _data(1, 2, 6, 6)
    out = F.avg_pool2d(_t(x), 3, 2, 1, divisor_override=4)
    np.testing.assert_allclose(out.numpy(), pool_reference(x, "avg", (3, 3), (2, 2), (1, 1, 1, 1), divisor=4)[0])


@pytest.mark.parametrize("size", [(1, 1), (3, 5), (7, 8), (10, 11)])
def test_adaptive_pools_use_paddles_bins_even_when_the_output_is_larger(size):
    x = _data(2, 3, 7, 8)
    np.testing.assert_allclose(F.adaptive_avg_pool2d(_t(x), size).numpy(),
                               pool_reference(x, "avg", output_size=size)[0], rtol=1e-12)
    out, mask = F.adaptive_max_pool2d(_t(x), size, return_mask=True)
    ref, ref_mask = pool_reference(x, "max", output_size=size)
    np.testing.assert_array_equal(out.numpy(), ref)
    np.testing.assert_array_equal(mask.numpy(), ref_mask)


def test_adaptive_output_size_none_keeps_that_dim():
    x = _data(1, 2, 6, 5)
    assert F.adaptive_avg_pool2d(_t(x), [None, 2]).shape == [1, 2, 6, 2]
    assert F.adaptive_avg_pool2d(_t(x), 3).shape == [1, 2, 3, 3]


def test_one_d_pools_are_two_d_pools_over_a_height_of_one():
    x = _data(2, 3, 11)
    img = x[:, :, None]
    out, mask = F.max_pool1d(_t(x), 3, 2, 1, return_mask=True, ceil_mode=True)
    ref, ref_mask = pool_reference(img, "max", (1, 3), (1, 2), (0, 0, 1, 1), True)
    np.testing.assert_array_equal(out.numpy(), ref[:, :, 0])
    np.testing.assert_array_equal(mask.numpy(), ref_mask[:, :, 0])
    np.testing.assert_allclose(F.avg_pool1d(_t(x), 4, 3, [1, 2], exclusive=False).numpy(),
                               pool_reference(img, "avg", (1, 4), (1, 3), (0, 0, 1, 2), exclusive=False)[0][:, :, 0])
    np.testing.assert_allclose(F.adaptive_avg_pool1d(_t(x), 4).numpy(),
                               pool_reference(img, "avg", output_size=(1, 4))[0][:, :, 0])
    out, mask = F.adaptive_max_pool1d(_t(x), 5, return_mask=True)
    np.testing.assert_array_equal(mask.numpy(), pool_reference(img, "max", output_size=(1, 5))[1][:, :, 0])


def test_nhwc_is_nchw_transposed():
    x = _data(2, 3, 6, 7)
    nhwc = _t(x.transpose(0, 2, 3, 1))
    for fn, kwargs in ((F.max_pool2d, {"kernel_size": 3, "stride": 2, "padding": [[0, 0], [1, 1], [0, 1], [0, 0]]}),
                       (F.avg_pool2d, {"kernel_size": 2, "ceil_mode": True}),
                       (F.adaptive_avg_pool2d, {"output_size": (2, 3)})):
        nchw_kwargs = dict(kwargs)
        if "padding" in kwargs:
            nchw_kwargs["padding"] = [1, 1, 0, 1]
        np.testing.assert_allclose(fn(nhwc, data_format="NHWC", **kwargs).numpy(),
                                   fn(_t(x), **nchw_kwargs).numpy().transpose(0, 2, 3, 1))


def test_same_padding_gives_ceil_of_input_over_stride():
    x = _data(1, 2, 7, 8)
    assert F.max_pool2d(_t(x), 3, 2, "SAME").shape == [1, 2, 4, 4]
    out = F.avg_pool2d(_t(x), 3, 2, "same")
    np.testing.assert_allclose(out.numpy(), pool_reference(x, "avg", (3, 3), (2, 2), (1, 1, 0, 1))[0])


def test_nan_propagates_through_max_pool():
    x = _data(1, 1, 4, 4)
    x[0, 0, 1, 1] = np.nan
    out = F.max_pool2d(_t(x), 2).numpy()
    assert np.isnan(out[0, 0, 0, 0]) and not np.isnan(out[0, 0, 1, 1])


# ---- against PyTorch --------------------------------------------------------------------------
@pytest.mark.parametrize("kernel,stride,padding,ceil_mode", [(2, None, 0, False), (3, 2, 1, False), (3, 2, 1, True),
                                                             ((2, 3), (1, 2), (1, 0), False)])
def test_max_and_avg_pool2d_match_torch(kernel, stride, padding, ceil_mode):
    torch = _torch()
    x = _data(2, 3, 9, 8)
    tx = torch.tensor(x)
    out, mask = F.max_pool2d(_t(x), kernel, stride, padding, return_mask=True, ceil_mode=ceil_mode)
    ref, ref_idx = torch.nn.functional.max_pool2d(tx, kernel, stride, padding, ceil_mode=ceil_mode,
                                                  return_indices=True)
    np.testing.assert_array_equal(out.numpy(), ref.numpy())
    np.testing.assert_array_equal(mask.numpy(), ref_idx.numpy())
    # With ceil_mode a last window can hang past the padding; there Paddle divides by kh*kw and
    # PyTorch by the part inside the padded input, so only exclusive=True is compared (numpy covers the rest).
    for exclusive in (True, False) if not ceil_mode else (True,):
        out = F.avg_pool2d(_t(x), kernel, stride, padding, ceil_mode=ceil_mode, exclusive=exclusive)
        ref = torch.nn.functional.avg_pool2d(tx, kernel, stride, padding, ceil_mode=ceil_mode,
                                             count_include_pad=not exclusive)
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-12)


def test_adaptive_pools_match_torch():
    torch = _torch()
    x = _data(2, 3, 9, 7)
    tx = torch.tensor(x)
    np.testing.assert_allclose(F.adaptive_avg_pool2d(_t(x), (4, 3)).numpy(),
                               torch.nn.functional.adaptive_avg_pool2d(tx, (4, 3)).numpy(), rtol=1e-12)
    out, mask = F.adaptive_max_pool2d(_t(x), (4, 3), return_mask=True)
    ref, idx = torch.nn.functional.adaptive_max_pool2d(tx, (4, 3), return_indices=True)
    np.testing.assert_array_equal(out.numpy(), ref.numpy())
    np.testing.assert_array_equal(mask.numpy(), idx.numpy())
    x1 = _data(2, 3, 10)
    np.testing.assert_allclose(F.adaptive_avg_pool1d(_t(x1), 4).numpy(),
                               torch.nn.functional.adaptive_avg_pool1d(torch.tensor(x1), 4).numpy(), rtol=1e-12)


# ---- gradients ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                    {"kernel_size": (2, 3), "stride": 1, "ceil_mode": True}])
def test_max_pool2d_gradient_goes_to_the_max(kwargs):
    check_grad(F.max_pool2d, [_data(2, 2, 5, 6)], kwargs=kwargs)


@pytest.mark.parametrize("kwargs", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                    {"kernel_size": 3, "stride": 2, "padding": 1, "exclusive": False,
                                     "ceil_mode": True},
                                    {"kernel_size": 2, "divisor_override": 3.0}])
def test_avg_pool2d_gradients_match_central_differences(kwargs):
    check_grad(F.avg_pool2d, [_data(2, 2, 5, 6)], kwargs=kwargs)


@pytest.mark.parametrize("fn,kwargs", [(F.adaptive_avg_pool2d, {"output_size": (2, 4)}),
                                       (F.adaptive_max_pool2d, {"output_size": (3, 2)}),
                                       (F.max_pool1d, {"kernel_size": 3, "stride": 2, "padding": 1}),
                                       (F.avg_pool1d, {"kernel_size": 3, "exclusive": False}),
                                       (F.adaptive_avg_pool1d, {"output_size": 3}),
                                       (F.adaptive_max_pool1d, {"output_size": 4})])
def test_other_pool_gradients_match_central_differences(fn, kwargs):
    x = _data(2, 2, 7) if "1d" in fn.__name__ else _data(2, 2, 5, 6)
    check_grad(fn, [x], kwargs=kwargs)


def test_grads_of_grads_through_max_and_avg_pool():
    """max_pool2d_grad's gradient gathers at the mask; avg_pool2d_grad's is avg_pool2d again."""
    check_double_grad(lambda x: F.max_pool2d(x * x, 2, padding=1), [_data(1, 2, 4, 5)])
    check_double_grad(lambda x: F.avg_pool2d(x * x, 3, 2, 1, exclusive=False), [_data(1, 2, 5, 5)])
    check_double_grad(lambda x: F.adaptive_avg_pool2d(x * x, (2, 3)), [_data(1, 1, 5, 5)])


def test_the_mask_output_carries_no_gradient():
    x = _t(_data(1, 1, 4, 4), stop_gradient=False)
    out, mask = F.max_pool2d(x, 2, return_mask=True)
    assert mask.stop_gradient
    out.sum().backward()
    assert x.grad.numpy().sum() == 4


# ---- layers ------------------------------------------------------------------------------------
def test_pool_layers_call_the_functional_api_and_print_like_paddle():
    x = _t(_data(2, 3, 8, 8))
    cases = [
        (nn.MaxPool2D(2), F.max_pool2d(x, 2), "MaxPool2D(kernel_size=2, stride=None, padding=0)"),
        (nn.AvgPool2D(3, 2, 1, exclusive=False), F.avg_pool2d(x, 3, 2, 1, exclusive=False),
         "AvgPool2D(kernel_size=3, stride=2, padding=1)"),
        (nn.AdaptiveAvgPool2D((2, 3)), F.adaptive_avg_pool2d(x, (2, 3)), "AdaptiveAvgPool2D(output_size=(2, 3))"),
        (nn.AdaptiveMaxPool2D(2), F.adaptive_max_pool2d(x, 2), "AdaptiveMaxPool2D(output_size=2, return_mask=False)"),
    ]
    for layer, expected, text in cases:
        np.testing.assert_array_equal(layer(x).numpy(), expected.numpy())
        assert repr(layer) == text and layer.parameters() == []
    x1 = _t(_data(2, 3, 9))
    out, mask = nn.MaxPool1D(3, return_mask=True)(x1)
    assert out.shape == mask.shape == [2, 3, 3]
    assert repr(nn.AvgPool1D(2)) == "AvgPool1D(kernel_size=2, stride=None, padding=0)"
    np.testing.assert_array_equal(nn.AvgPool1D(2)(x1).numpy(), F.avg_pool1d(x1, 2).numpy())
    assert repr(nn.AdaptiveAvgPool1D(4)) == "AdaptiveAvgPool1D(output_size=4)"
    assert nn.AdaptiveMaxPool1D(4, return_mask=True)(x1)[1].shape == [2, 3, 4]


def test_describe_shows_numba_kernels():
    for name in ("max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "max_pool2d_grad", "avg_pool2d_grad"):
        cpu = [k for k in describe(name)["kernels"] if k["backend"] == "cpu"]
        fast = name in ("max_pool2d", "max_pool2d_grad")  # the select loops of kernels/cpu/pooling_fast.py
        assert {k["name"] for k in cpu} == ({"rows", "rows_parallel", "numba"} if fast else {"numba"})
        for k in cpu:
            assert k["default"] == (k["name"] == ("rows" if fast else "numba"))
            assert ("pooling_fast.py" if k["name"].startswith("rows") else "kernels/cpu/pooling.py") in k["location"]


# ---- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("call,message", [
    (lambda: F.max_pool2d(_t(_data(3, 5, 5)), 2), r"x must be 4-D .*got shape \[3, 5, 5\]"),
    (lambda: F.max_pool1d(_t(_data(1, 3, 5, 5)), 2), r"x must be 3-D"),
    (lambda: F.max_pool2d(_t(_data(1, 1, 3, 3)), 5), r"pool window \(5\) is larger than the padded input"),
    (lambda: F.avg_pool2d(_t(_data(1, 1, 6, 6)), 2, padding=2), r"padding 2 before .* smaller than the window"),
    (lambda: F.max_pool2d(_t(_data(1, 1, 5, 5)), 1, 3, ceil_mode=True), r"last window .* starts at 6"),
    (lambda: F.max_pool2d(_t(_data(1, 1, 5, 5)), 2, padding="FULL"), r"'FULL' is not a padding"),
    (lambda: F.max_pool2d(_t(_data(1, 1, 5, 5)), 2, padding="VALID", ceil_mode=True), r"'VALID' takes ceil_mode"),
    (lambda: F.avg_pool2d(_t(_data(1, 1, 5, 5)), 2, data_format="NCWH"), r"data_format 'NCWH'"),
    (lambda: F.avg_pool2d(_t(_data(1, 1, 5, 5)), 2, divisor_override=0), r"divisor_override must be a number > 0"),
    (lambda: F.max_pool2d(_t(_data(1, 1, 5, 5)), [2, 2, 2]), r"kernel_size got \[2, 2, 2\]"),
    (lambda: F.max_pool2d(_t(_data(1, 1, 5, 5)), 2, stride=0), r"stride \[0, 0\] must be >= 1"),
    (lambda: F.adaptive_avg_pool2d(_t(_data(1, 1, 5, 5)), 0), r"output_size \[0, 0\] must be ints >= 1"),
    (lambda: F.adaptive_max_pool2d(_t(_data(1, 1, 5, 5)), [2, 2, 2]), r"output_size got \[2, 2, 2\]"),
    (lambda: F.max_pool2d(_t(_data(1, 1, 5, 5).astype("int64")), 2), r"dtype int64, expected float"),
])
def test_bad_arguments_raise_clear_errors(call, message):
    with pytest.raises(InvalidArgument, match=message):
        call()
