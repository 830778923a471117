"""The fast pooling and convolution kernels (kernels/cpu/pooling_fast.py, conv_fast.py) against the
kernels they sped up and against numpy: every geometry (padding, stride, dilation, groups,
ceil_mode), NaN, non-contiguous inputs; gradients by central differences in float64."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle.framework.kernels.cpu import conv_channels_last
from minipaddle.framework.kernels.cpu import conv_fast
from minipaddle.framework.kernels.cpu import im2col as conv_general
from minipaddle.framework.kernels.cpu import pooling as pool_general
from minipaddle.framework.kernels.cpu import pooling_fast
from minipaddle.framework.ops import describe

from .opcheck import check_grad

SETTINGS = settings(max_examples=25, deadline=None)
FAST_MAX_POOLS = (pooling_fast.max_pool2d_rows, pooling_fast.max_pool2d_rows_parallel)
FAST_MAX_POOL_GRADS = (pooling_fast.max_pool2d_grad_rows, pooling_fast.max_pool2d_grad_rows_parallel)


def _layout(a: np.ndarray, kind: str) -> np.ndarray:
    """The same values as a non-contiguous view (kind "t": transposed storage, "s": strided)."""
    if kind == "t":
        return np.ascontiguousarray(a.transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    if kind == "s":
        wide = np.zeros(a.shape[:3] + (a.shape[3] * 2,), a.dtype)
        wide[..., ::2] = a
        return wide[..., ::2]
    return a


def _numpy_max_pool(x, kernel, stride, pads, out_hw):
    """Reference: pad with -inf, take each window's max with np.max (NaN propagates)."""
    padded = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1] + stride[0]), (pads[2], pads[3] + stride[1])),
                    constant_values=-np.inf)
    out = np.empty(x.shape[:2] + tuple(out_hw), x.dtype)
    for y in range(out_hw[0]):
        for k in range(out_hw[1]):
            window = padded[:, :, y * stride[0]:y * stride[0] + kernel[0], k * stride[1]:k * stride[1] + kernel[1]]
            out[:, :, y, k] = window.max(axis=(2, 3))
    return out


@st.composite
def pool_cases(draw):
    kernel = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    two = draw(st.booleans())  # the written-out 2x2/2 case, half the time
    kernel = (2, 2) if two else kernel
    stride = kernel if two or draw(st.booleans()) else (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    pads = (0, 0, 0, 0) if two else tuple(draw(st.integers(0, (kernel[i // 2] - 1))) for i in range(4))
    h = draw(st.integers(kernel[0], 9))
    w = draw(st.integers(kernel[1], 9))
    shape = (draw(st.integers(1, 3)), draw(st.integers(1, 3)), h, w)
    ceil_mode = draw(st.booleans())
    dtype = draw(st.sampled_from(["float32", "float64"]))
    layout = draw(st.sampled_from(["c", "t", "s"]))
    seed = draw(st.integers(0, 2**31))
    return shape, kernel, stride, pads, ceil_mode, dtype, layout, seed


def _pool_input(shape, dtype, layout, seed, nans=0):
    rng = np.random.default_rng(seed)
    x = rng.integers(-4, 5, shape).astype(dtype)  # small integers: ties, so "first maximum" matters
    if nans:
        x.reshape(-1)[rng.integers(0, x.size, nans)] = np.nan
    return _layout(x, layout)


@SETTINGS
@given(pool_cases(), st.integers(0, 3))
def test_fast_max_pool_matches_general_kernel_and_numpy(case, nans):
    shape, kernel, stride, pads, ceil_mode, dtype, layout, seed = case
    x = _pool_input(shape, dtype, layout, seed, nans)
    try:
        want, want_mask = pool_general.max_pool2d_kernel(x, kernel, stride, pads, ceil_mode)
    except paddle.framework.errors.InvalidArgument:
        return  # a geometry Paddle rejects (a window wholly in the padding); the op reports it
    for kernel_fn in FAST_MAX_POOLS:
        out, mask = kernel_fn(x, kernel, stride, pads, ceil_mode)
        np.testing.assert_array_equal(out, want)          # same values, NaN where a NaN was
        np.testing.assert_array_equal(mask, want_mask)    # same (first) argmax, flat h*W + w
        assert out.dtype == x.dtype and mask.dtype == np.int32
    reference = _numpy_max_pool(np.ascontiguousarray(x), kernel, stride, pads, want.shape[2:])
    np.testing.assert_array_equal(want, reference)


@SETTINGS
@given(pool_cases())
def test_fast_max_pool_grad_matches_general_kernel(case):
    shape, kernel, stride, pads, ceil_mode, dtype, layout, seed = case
    x = _pool_input(shape, dtype, "c", seed)
    try:
        _, mask = pool_general.max_pool2d_kernel(x, kernel, stride, pads, ceil_mode)
    except paddle.framework.errors.InvalidArgument:
        return
    dout = _layout(np.random.default_rng(seed).standard_normal(mask.shape).astype(dtype), layout)
    want = pool_general.max_pool2d_grad_kernel(dout, mask, shape[2:])
    for kernel_fn in FAST_MAX_POOL_GRADS:
        np.testing.assert_array_equal(kernel_fn(dout, mask, shape[2:]), want)


def test_nan_in_a_window_makes_its_max_nan_like_paddle():
    # Paddle 3.3.1: a window whose last element is NaN pools to NaN (max_pool2d(x, 2, 2)[0,0,0,0]).
    x = np.arange(16, dtype="float32").reshape(1, 1, 4, 4)
    x[0, 0, 1, 1] = np.nan
    for kernel_fn in FAST_MAX_POOLS:
        out, mask = kernel_fn(x, (2, 2), (2, 2), (0, 0, 0, 0), False)
        assert np.isnan(out[0, 0, 0, 0]) and mask[0, 0, 0, 0] == 5
        np.testing.assert_array_equal(out[0, 0].reshape(-1)[1:], [7.0, 13.0, 15.0])


def test_whole_3x3_windows_keep_the_first_maximum_and_nan():
    # ResNet's stem pool (3x3, stride 2, pad 1): interior windows take the row-parallel 3x3 path
    rng = np.random.default_rng(9)
    x = rng.integers(-2, 3, (2, 4, 9, 11)).astype("float32")  # many ties
    x.reshape(-1)[rng.integers(0, x.size, 6)] = np.nan
    want = pool_general.max_pool2d_kernel(x, (3, 3), (2, 2), (1, 1, 1, 1), False)
    for kernel_fn in FAST_MAX_POOLS:
        got = kernel_fn(x, (3, 3), (2, 2), (1, 1, 1, 1), False)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(pooling_fast.pool2d_rows(x, (3, 3), (2, 2), (1, 1, 1, 1), False), want[0])


def test_big_input_runs_the_threaded_loops_and_agrees():
    # above thread_modes.PARALLEL_MIN_BYTES the _parallel kernels split planes over numba's threads
    x = np.random.default_rng(1).standard_normal((8, 16, 40, 40)).astype("float32")
    assert x.nbytes >= paddle.framework.thread_modes.PARALLEL_MIN_BYTES
    for args in (((2, 2), (2, 2), (0, 0, 0, 0), False), ((3, 3), (2, 2), (1, 1, 1, 1), True)):
        want = pool_general.max_pool2d_kernel(x, *args)
        got = pooling_fast.max_pool2d_rows_parallel(x, *args)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
        dout = np.ones_like(want[0])
        np.testing.assert_array_equal(pooling_fast.max_pool2d_grad_rows_parallel(dout, want[1], (40, 40)),
                                      pool_general.max_pool2d_grad_kernel(dout, want[1], (40, 40)))


def _cpu_kernels(op: str, dtype: str = "float32") -> tuple[str, list[str]]:
    """(the default kernel's name, every candidate's name) for op on the CPU, from describe()."""
    kernels = [k for k in describe(op)["kernels"] if k["backend"] == "cpu" and k["dtype"] == dtype]
    return next(k["name"] for k in kernels if k["default"]), [k["name"] for k in kernels]


@pytest.mark.parametrize("op", ["max_pool2d", "max_pool2d_grad"])
def test_pooling_runs_the_fast_kernels_and_keeps_the_others_as_candidates(op):
    default, names = _cpu_kernels(op)
    assert default == "rows" and {"rows", "rows_parallel", "numba"} <= set(names)


@pytest.mark.parametrize("args", [dict(kernel_size=2, stride=2), dict(kernel_size=3, stride=2, padding=1),
                                  dict(kernel_size=2, stride=2, ceil_mode=True)])
def test_max_pool_gradient_by_central_differences(args):
    rng = np.random.default_rng(3)
    x = rng.permutation(2 * 3 * 7 * 7).reshape(2, 3, 7, 7) / 10.0  # distinct values: a clear max
    check_grad(lambda t: F.max_pool2d(t, **args), [x.astype("float64")])


# ---- convolution -------------------------------------------------------------------------------
@pytest.fixture(scope="module", autouse=True)
def _per_image_path_for_every_shape():
    """The cases here are small images, which the kernels hand to the batch-wide ones: lift the
    threshold so they test the per-image code (test_small_images_go_to_the_batch_wide_kernels puts
    it back)."""
    saved = conv_fast.SMALL_IMAGE_POSITIONS
    conv_fast.SMALL_IMAGE_POSITIONS = 0
    yield
    conv_fast.SMALL_IMAGE_POSITIONS = saved


def test_small_images_go_to_the_batch_wide_kernels(monkeypatch):
    monkeypatch.setattr(conv_fast, "SMALL_IMAGE_POSITIONS", 100)
    calls = []
    for name in ("conv2d_im2col", "conv2d_transpose_col2im", "conv2d_grad_filter_im2col"):
        real = getattr(conv_fast, name)
        monkeypatch.setattr(conv_fast, name,
                            lambda *a, _real=real, _name=name, **k: calls.append(_name) or _real(*a, **k))
    rng = np.random.default_rng(1)
    small, big = rng.standard_normal((2, 3, 8, 8)), rng.standard_normal((2, 3, 12, 12))   # 64 / 144 positions
    weight = rng.standard_normal((4, 3, 3, 3))
    geometry = dict(strides=(1, 1), paddings=(1, 1, 1, 1), dilations=(1, 1), groups=1)
    for x in (small, big):
        out = conv_fast.conv2d_images(x, weight, **geometry)
        np.testing.assert_allclose(out, _numpy_conv2d(x, weight, (1, 1), (1, 1, 1, 1), (1, 1), 1), rtol=1e-10)
        conv_fast.conv2d_transpose_images(out, weight, output_size=x.shape[2:], **geometry)  # the input grad
        conv_fast.conv2d_grad_filter_images(x, out, filter_size=(3, 3), **geometry)
    assert calls == ["conv2d_im2col", "conv2d_transpose_col2im", "conv2d_grad_filter_im2col"]  # the small one only


def test_products_big_enough_for_blas_threads_go_batch_wide(monkeypatch):
    monkeypatch.setattr(conv_fast, "SMALL_IMAGE_POSITIONS", 100)
    calls = []
    for name in ("conv2d_im2col", "conv2d_transpose_col2im"):
        real = getattr(conv_fast, name)
        monkeypatch.setattr(conv_fast, name,
                            lambda *a, _real=real, _name=name, **k: calls.append(_name) or _real(*a, **k))
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 32, 32))
    stem = rng.standard_normal((64, 3, 7, 7))   # ResNet's stem: 64 x 147 x 256 per image, threaded by BLAS
    small = rng.standard_normal((6, 3, 3, 3))   # 6 x 27 x 1024: one thread
    for weight, geometry in ((stem, ((2, 2), (3, 3, 3, 3), (1, 1), 1)), (small, ((1, 1), (1, 1, 1, 1), (1, 1), 1))):
        out = conv_fast.conv2d_images(x, weight, *geometry)
        np.testing.assert_allclose(out, _numpy_conv2d(x, weight, *geometry), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(conv_fast.conv2d_transpose_images(out, weight, *geometry, (32, 32)),
                                   conv_general.conv2d_transpose_col2im(out, weight, *geometry, (32, 32)),
                                   rtol=1e-10, atol=1e-10)
    assert calls == ["conv2d_im2col", "conv2d_transpose_col2im"]  # the stem only


FAST_CONV2D = (conv_fast.conv2d_images, conv_fast.conv2d_images_parallel, conv_channels_last.conv2d_channels_last)
FAST_CONV2D_TRANSPOSE = (conv_fast.conv2d_transpose_images, conv_fast.conv2d_transpose_images_parallel)
FAST_CONV2D_GRAD_FILTER = (conv_fast.conv2d_grad_filter_images, conv_fast.conv2d_grad_filter_images_parallel)


def _numpy_conv2d(x, weight, strides, paddings, dilations, groups):
    """Reference: zero-pad, then sum over taps of weight[:, :, i, j] times the strided input slice."""
    n, c, h, w = x.shape
    oc, cg, kh, kw = weight.shape
    padded = np.pad(x, ((0, 0), (0, 0), paddings[:2], paddings[2:]))
    oh = (padded.shape[2] - dilations[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (padded.shape[3] - dilations[1] * (kw - 1) - 1) // strides[1] + 1
    out = np.zeros((n, oc, oh, ow))
    ocg = oc // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                y0, x0 = i * dilations[0], j * dilations[1]
                part = padded[:, g * cg:(g + 1) * cg, y0:y0 + strides[0] * (oh - 1) + 1:strides[0],
                              x0:x0 + strides[1] * (ow - 1) + 1:strides[1]]
                taps = weight[g * ocg:(g + 1) * ocg, :, i, j]
                out[:, g * ocg:(g + 1) * ocg] += np.einsum("ncyx,oc->noyx", part, taps)
    return out


@st.composite
def conv_cases(draw):
    groups = draw(st.sampled_from([1, 1, 2, 3]))
    c, oc = groups * draw(st.integers(1, 3)), groups * draw(st.integers(1, 3))
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    strides = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilations = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    paddings = tuple(draw(st.integers(0, 2)) for _ in range(4))
    h = draw(st.integers(max(1, dilations[0] * (kh - 1) + 1 - paddings[0] - paddings[1]), 9))
    w = draw(st.integers(max(1, dilations[1] * (kw - 1) + 1 - paddings[2] - paddings[3]), 9))
    n = draw(st.integers(1, 3))
    dtype = draw(st.sampled_from(["float32", "float64"]))
    layout = draw(st.sampled_from(["c", "t", "s"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    x = _layout(rng.standard_normal((n, c, h, w)).astype(dtype), layout)
    weight = _layout(rng.standard_normal((oc, c // groups, kh, kw)).astype(dtype), layout)
    return x, weight, strides, paddings, dilations, groups


def _close(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)


@SETTINGS
@given(conv_cases())
def test_fast_conv2d_matches_im2col_kernel_and_numpy(case):
    x, weight, strides, paddings, dilations, groups = case
    want = conv_general.conv2d_im2col(x, weight, strides, paddings, dilations, groups)
    np.testing.assert_allclose(want, _numpy_conv2d(x, weight, strides, paddings, dilations, groups),
                               **_close(x.dtype))
    for kernel_fn in FAST_CONV2D:
        got = kernel_fn(x, weight, strides, paddings, dilations, groups)
        assert got.dtype == x.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, **_close(x.dtype))


@SETTINGS
@given(conv_cases())
def test_fast_conv2d_gradients_match_col2im_and_im2col_kernels(case):
    x, weight, strides, paddings, dilations, groups = case
    out_shape = conv_general.conv2d_im2col(x, weight, strides, paddings, dilations, groups).shape
    dout = _layout(np.random.default_rng(7).standard_normal(out_shape).astype(x.dtype), "t")
    geometry = (strides, paddings, dilations, groups)
    want_dx = conv_general.conv2d_transpose_col2im(dout, weight, *geometry, x.shape[2:])
    want_dw = conv_general.conv2d_grad_filter_im2col(x, dout, *geometry, weight.shape[2:])
    for kernel_fn in FAST_CONV2D_TRANSPOSE:
        np.testing.assert_allclose(kernel_fn(dout, weight, *geometry, x.shape[2:]), want_dx, **_close(x.dtype))
    saved = conv_fast.BATCH_WIDE_MIN_WEIGHTS
    try:
        for threshold in (0, 10**9):  # the batch-wide GEMM, then the per-image products summed
            conv_fast.BATCH_WIDE_MIN_WEIGHTS = threshold
            for kernel_fn in FAST_CONV2D_GRAD_FILTER:
                np.testing.assert_allclose(kernel_fn(x, dout, *geometry, weight.shape[2:]), want_dw,
                                           **_close(x.dtype))
    finally:
        conv_fast.BATCH_WIDE_MIN_WEIGHTS = saved


def test_big_conv_runs_the_threaded_loops_and_agrees(monkeypatch):
    monkeypatch.setattr(conv_fast, "ONE_THREAD_PRODUCT", 10**12)  # keep its per-image products per image
    rng = np.random.default_rng(2)
    x = rng.standard_normal((16, 8, 24, 24)).astype("float32")
    weight = rng.standard_normal((8, 8, 3, 3)).astype("float32")
    geometry = ((1, 1), (1, 1, 1, 1), (1, 1), 1)
    want = conv_general.conv2d_im2col(x, weight, *geometry)
    np.testing.assert_allclose(conv_fast.conv2d_images_parallel(x, weight, *geometry), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(conv_fast.conv2d_transpose_images_parallel(want, weight, *geometry, (24, 24)),
                               conv_general.conv2d_transpose_col2im(want, weight, *geometry, (24, 24)),
                               rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(conv_fast.conv2d_grad_filter_images_parallel(x, want, *geometry, (3, 3)),
                               conv_general.conv2d_grad_filter_im2col(x, want, *geometry, (3, 3)),
                               rtol=1e-4, atol=1e-2)


@pytest.mark.parametrize("op", ["conv2d", "conv2d_transpose", "conv2d_grad_filter"])
def test_conv_runs_the_image_kernels_and_keeps_the_others_as_candidates(op):
    default, names = _cpu_kernels(op, "float64")
    assert default == "images" and {"images", "images_parallel", "direct"} <= set(names)


@pytest.mark.parametrize("args", [dict(stride=1, padding=1), dict(stride=2, padding=(1, 0), dilation=(1, 2)),
                                  dict(stride=1, padding=0, groups=2)])
def test_conv2d_gradients_by_central_differences(args):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 4, 6, 5))
    weight = rng.standard_normal((4, 4 // args.get("groups", 1), 3, 2))
    check_grad(lambda t, w: F.conv2d(t, w, **args), [x, weight])
    # conv2d_transpose's own gradients run the same three kernels the other way round
    check_grad(lambda t, w: F.conv2d_transpose(t, w, stride=args["stride"], groups=args.get("groups", 1)),
               [x, weight])


def test_nan_and_inf_in_x_reach_the_same_outputs_as_the_im2col_kernels():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 3, 7, 7))
    x[0, 1, 3, 3], x[1, 2, 0, 6] = np.nan, np.inf
    weight = rng.standard_normal((4, 3, 3, 3))
    geometry = ((1, 1), (1, 1, 1, 1), (1, 1), 1)
    want = conv_general.conv2d_im2col(x, weight, *geometry)
    got = conv_fast.conv2d_images(x, weight, *geometry)
    assert np.isnan(got).any() and np.array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-12)  # NaN where NaN, inf where inf
    dout = np.ones_like(want)
    np.testing.assert_allclose(conv_fast.conv2d_grad_filter_images(x, dout, *geometry, (3, 3)),
                               conv_general.conv2d_grad_filter_im2col(x, dout, *geometry, (3, 3)), rtol=1e-12)
    dout[0, 0, 2, 2] = np.nan
    np.testing.assert_allclose(conv_fast.conv2d_transpose_images(dout, weight, *geometry, (7, 7)),
                               conv_general.conv2d_transpose_col2im(dout, weight, *geometry, (7, 7)), rtol=1e-12)
