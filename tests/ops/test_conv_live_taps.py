"""conv_fast's dropped taps (kernels/cpu/conv_fast.py, `live_taps`): on small feature maps the taps
that only ever read padding are cut off; the three conv kernels must give the im2col kernels' results
(and numpy's), NaN and Inf included, and the op's gradients must still match central differences."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import minipaddle.nn.functional as F
from minipaddle.framework.kernels.cpu import conv_fast
from minipaddle.framework.kernels.cpu import im2col as conv_general

from .opcheck import check_grad
from .test_pool_conv_kernels import _numpy_conv2d

KERNELS = ((conv_fast.conv2d_images, conv_fast.conv2d_transpose_images, conv_fast.conv2d_grad_filter_images),
           (conv_fast.conv2d_images_parallel, conv_fast.conv2d_transpose_images_parallel,
            conv_fast.conv2d_grad_filter_images_parallel))


def test_live_taps_of_a_3x3_kernel_on_a_1x1_map_is_its_centre():
    rows, cols, pads = conv_fast.live_taps((1, 1), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1))
    assert (rows, cols, pads) == (slice(1, 2), slice(1, 2), (0, 0, 0, 0))


def test_live_taps_keeps_every_tap_that_reads_the_input():
    # 2x2 map, stride 2, pad 1: taps 1..2 of each dim read it -- 4 of 9, too many to pay for a gather
    assert conv_fast.live_taps((2, 2), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1)) is None
    assert conv_fast.live_taps((8, 8), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)) is None
    # a 5x5 kernel, padding 2, on a 1x1 map: only the centre reads it
    assert conv_fast.live_taps((1, 1), (5, 5), (1, 1), (2, 2, 2, 2), (1, 1))[:2] == (slice(2, 3), slice(2, 3))


def test_live_taps_never_asks_for_negative_padding():
    # dilation 2, pad 1 on a 1x1 map: tap 1 alone reads it, but cutting tap 0 needs padding 1 - 2 < 0
    assert conv_fast.live_taps((1, 1), (3, 3), (1, 1), (1, 1, 1, 1), (2, 2)) is None


def _cases():
    rng = np.random.default_rng(0)
    for h, w, k, s, p, d, groups in itertools.product((1, 2, 3), (1, 2), (1, 3, 5), (1, 2), (0, 1, 2), (1, 2),
                                                      (1, 2)):
        if d * (k - 1) + 1 > min(h, w) + 2 * p:
            continue
        x = rng.standard_normal((2, 4, h, w))
        weight = rng.standard_normal((6, 4 // groups, k, k))
        yield x, weight, ((s, s), (p,) * 4, (d, d), groups)


@pytest.mark.parametrize("share", [1, conv_fast.LIVE_TAPS_MAX_SHARE])
def test_cropped_kernels_match_im2col_kernels_and_numpy(monkeypatch, share):
    monkeypatch.setattr(conv_fast, "LIVE_TAPS_MAX_SHARE", share)  # 1: crop whenever any tap can go
    cropped = 0
    for x, weight, geometry in _cases():
        want = conv_general.conv2d_im2col(x, weight, *geometry)
        np.testing.assert_allclose(want, _numpy_conv2d(x, weight, *geometry), rtol=1e-10, atol=1e-12)
        dout = np.random.default_rng(1).standard_normal(want.shape)
        want_dx = conv_general.conv2d_transpose_col2im(dout, weight, *geometry, x.shape[2:])
        want_dw = conv_general.conv2d_grad_filter_im2col(x, dout, *geometry, weight.shape[2:])
        for conv, transpose, grad_filter in KERNELS:
            np.testing.assert_allclose(conv(x, weight, *geometry), want, rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(transpose(dout, weight, *geometry, x.shape[2:]), want_dx,
                                       rtol=1e-10, atol=1e-12)
            got_dw = grad_filter(x, dout, *geometry, weight.shape[2:])
            assert got_dw.shape == weight.shape and got_dw.flags.c_contiguous
            np.testing.assert_allclose(got_dw, want_dw, rtol=1e-10, atol=1e-12)
        cropped += conv_fast.live_taps(x.shape[2:], weight.shape[2:], *geometry[:3]) is not None
    assert cropped >= 10  # the crop really ran


def test_nan_in_a_dropped_weight_tap_still_reaches_the_output():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 4, 1, 1))
    weight = rng.standard_normal((3, 4, 3, 3))
    weight[1, 2, 0, 0] = np.nan  # a corner tap: it only ever multiplies padding
    geometry = ((1, 1), (1, 1, 1, 1), (1, 1), 1)
    want = conv_general.conv2d_im2col(x, weight, *geometry)
    for conv, transpose, _ in KERNELS:
        got = conv(x, weight, *geometry)
        assert np.isnan(got[:, 1]).all() and not np.isnan(got[:, [0, 2]]).any()
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        # the input gradient never sends a dropped tap's value anywhere: no NaN, as in col2im
        dout = np.ones_like(want)
        np.testing.assert_allclose(transpose(dout, weight, *geometry, (1, 1)),
                                   conv_general.conv2d_transpose_col2im(dout, weight, *geometry, (1, 1)))


def test_inf_in_dout_reaches_the_dropped_taps_weight_grad():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 1, 1))
    dout = rng.standard_normal((2, 3, 1, 1))
    dout[0, 1] = np.inf  # inf * the padding's zeros is NaN in every tap of output channel 1
    geometry = ((1, 1), (1, 1, 1, 1), (1, 1), 1)
    with np.errstate(invalid="ignore"):
        want = conv_general.conv2d_grad_filter_im2col(x, dout, *geometry, (3, 3))
        for _, _, grad_filter in KERNELS:
            got = grad_filter(x, dout, *geometry, (3, 3))
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
            np.testing.assert_array_equal(np.isinf(got), np.isinf(want))


@pytest.mark.parametrize("args", [dict(padding=1), dict(padding=2, stride=2)])
def test_conv2d_on_a_1x1_map_gradients_by_central_differences(args):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 4, 1, 1))
    weight = rng.standard_normal((5, 4, 3, 3))
    check_grad(lambda t, w: F.conv2d(t, w, **args), [x, weight])
