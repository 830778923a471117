"""im2col.py's shape-dependent paths. im2col and col2im on small feature maps: output rows shorter than
GATHER_MAX_WIDTH take one gather (scatter) per row of cols through a padded channels-first copy of x.
Both must give exactly what the row loops give, on every geometry, NaN included. The weight grad's
product either way round (TALL_MIN_COLUMNS) gives the same dw."""
from __future__ import annotations

import itertools

import numpy as np

from minipaddle.framework.kernels.cpu import im2col as conv_general

from .test_pool_conv_kernels import _layout


def _geometries():
    rng = np.random.default_rng(0)
    for h, w, kh, kw, s, pads, d in itertools.product((1, 2, 4, 5), (1, 3, 6), (1, 2, 3), (1, 3), (1, 2),
                                                       ((0, 0, 0, 0), (1, 1, 1, 1), (2, 0, 1, 2)), (1, 2)):
        oh = conv_general.conv_out_size(h, kh, s, pads[0], pads[1], d)
        ow = conv_general.conv_out_size(w, kw, s, pads[2], pads[3], d)
        if oh < 1 or ow < 1:
            continue
        yield rng.standard_normal((2, 3, h, w)), (kh, kw), ((s, s), pads, (d, d)), (oh, ow)


def _row_loops_im2col(x, kh, kw, strides, paddings, dilations, oh, ow):
    cols = np.empty((x.shape[1] * kh * kw, x.shape[0] * oh * ow), x.dtype)
    conv_general.im2col(np.ascontiguousarray(x), cols, kh, kw, *conv_general._geometry(strides, paddings, dilations),
                        oh, ow)
    return cols


def test_gather_im2col_equals_the_row_loops_on_every_geometry():
    count = 0
    for x, (kh, kw), geometry, (oh, ow) in _geometries():
        x = _layout(x, "t")
        x[0, 1, 0, 0] = np.nan
        got = conv_general._im2col_by_gather(x, kh, kw, *geometry, oh, ow)
        np.testing.assert_array_equal(got, _row_loops_im2col(x, kh, kw, *geometry, oh, ow))
        count += 1
    assert count > 100


def test_scatter_col2im_equals_the_row_loops_on_every_geometry():
    rng = np.random.default_rng(1)
    for x, (kh, kw), geometry, (oh, ow) in _geometries():
        n, c, h, w = x.shape
        cols = rng.standard_normal((c * kh * kw, n * oh * ow))
        want = np.zeros_like(x)
        conv_general.col2im(cols, want, kh, kw, *conv_general._geometry(*geometry), oh, ow)
        got = conv_general._col2im_by_scatter(cols, n, c, (h, w), kh, kw, *geometry, (oh, ow))
        assert got.shape == x.shape and got.flags.c_contiguous
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_small_maps_take_the_gather_and_wide_ones_the_row_loops(monkeypatch):
    calls = []
    real = conv_general._im2col_by_gather
    monkeypatch.setattr(conv_general, "_im2col_by_gather", lambda *a: calls.append(a[0].shape) or real(*a))
    rng = np.random.default_rng(2)
    weight = rng.standard_normal((4, 3, 3, 3))
    for size in (4, conv_general.GATHER_MAX_WIDTH + 2):
        x = rng.standard_normal((2, 3, size, size))
        conv_general.conv2d_im2col(x, weight, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    assert calls == [(2, 3, 4, 4)]


def test_weight_grad_is_the_same_product_either_way_round(monkeypatch):
    # TALL_MIN_COLUMNS picks cols @ dout^T (then a transposed copy) or dout @ cols^T: same dw
    rng = np.random.default_rng(3)
    for x, (kh, kw), geometry, (oh, ow) in itertools.islice(_geometries(), 0, None, 7):
        for groups in (1, 3):
            dout = _layout(rng.standard_normal((x.shape[0], 6, oh, ow)), "t")
            results = []
            for threshold in (0, 10**9):
                monkeypatch.setattr(conv_general, "TALL_MIN_COLUMNS", threshold)
                dw = conv_general.conv2d_grad_filter_im2col(x, dout, *geometry, groups, (kh, kw))
                assert dw.shape == (6, 3 // groups, kh, kw) and dw.flags.c_contiguous
                results.append(dw)
            np.testing.assert_allclose(results[0], results[1], rtol=1e-12, atol=1e-12)
