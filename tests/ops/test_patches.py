"""unfold, fold, pixel_shuffle, pixel_unshuffle: forward against loops in numpy (and torch), gradients
by central differences (each op's gradient is the other op of its pair), clear errors."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, InvalidType

from .opcheck import assert_forward, check_double_grad, check_grad, torch_or_skip

F = paddle.nn.functional
RNG = np.random.default_rng(3)


def unfold_reference(x, k, s, p, d):
    """Loops straight from the definition; p = (top, left, bottom, right)."""
    n, c, h, w = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
    oh = (h + p[0] + p[2] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + p[1] + p[3] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c * k[0] * k[1], oh * ow), x.dtype)
    for ci in range(c):
        for i in range(k[0]):
            for j in range(k[1]):
                row = (ci * k[0] + i) * k[1] + j
                for y in range(oh):
                    for xx in range(ow):
                        out[:, row, y * ow + xx] = padded[:, ci, y * s[0] + i * d[0], xx * s[1] + j * d[1]]
    return out


GEOMETRIES = [((2, 2), (1, 1), (0, 0, 0, 0), (1, 1)), ((3, 2), (2, 1), (1, 0, 2, 1), (1, 2)),
              ((2, 3), (1, 2), (1, 1, 1, 1), (2, 1))]


@pytest.mark.parametrize("k, s, p, d", GEOMETRIES)
def test_unfold_matches_the_definition_and_fold_is_its_adjoint(k, s, p, d):
    x = RNG.standard_normal((2, 3, 5, 6))
    cols = F.unfold(paddle.to_tensor(x), k, s, list(p), d)
    want = unfold_reference(x, k, s, p, d)
    assert_forward(cols, want)
    y = RNG.standard_normal(want.shape)     # <unfold(x), y> == <x, fold(y)>
    back = F.fold(paddle.to_tensor(y), [5, 6], k, s, list(p), d).numpy()
    assert np.sum(want * y) == pytest.approx(np.sum(x * back), rel=1e-10)
    check_grad(lambda t: F.unfold(t, k, s, list(p), d), [x])
    check_grad(lambda t: F.fold(t, [5, 6], k, s, list(p), d), [y])
    check_double_grad(lambda t: F.unfold(t, k, s, list(p), d) ** 2, [x])


def test_fold_and_unfold_match_torch():
    torch = torch_or_skip()
    x = RNG.standard_normal((2, 2, 7, 6)).astype("float32")
    got = F.unfold(paddle.to_tensor(x), [3, 2], strides=[2, 1], paddings=[1, 1], dilations=[1, 2])
    want = torch.nn.functional.unfold(torch.tensor(x), (3, 2), dilation=(1, 2), padding=(1, 1), stride=(2, 1))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    cols = want.numpy()
    got = F.fold(paddle.to_tensor(cols), [7, 6], [3, 2], strides=[2, 1], paddings=1, dilations=[1, 2])
    want = torch.nn.functional.fold(torch.tensor(cols), (7, 6), (3, 2), dilation=(1, 2), padding=1, stride=(2, 1))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_unfold_and_fold_layers():
    x = paddle.rand([1, 2, 4, 4])
    cols = paddle.nn.Unfold(kernel_sizes=2, strides=2)(x)
    assert cols.shape == [1, 8, 4]
    np.testing.assert_array_equal(paddle.nn.Fold([4, 4], 2, strides=2)(cols).numpy(), x.numpy())


def test_unfold_and_fold_errors_say_what_was_expected():
    with pytest.raises(InvalidArgument, match=r"unfold: x must be 4-D \[N, C, H, W\], got shape \[2, 3\]"):
        F.unfold(paddle.ones([2, 3]), 2)
    with pytest.raises(InvalidArgument, match="unfold: the kernel spans 5 along height"):
        F.unfold(paddle.ones([1, 1, 3, 3]), 5)
    with pytest.raises(InvalidArgument, match="paddings got"):
        F.unfold(paddle.ones([1, 1, 3, 3]), 2, paddings=[1, 1, 1])
    with pytest.raises(InvalidArgument, match=r"fold: x's dim 1 \(6\) must be divisible by kh\*kw = 4"):
        F.fold(paddle.ones([1, 6, 4]), [3, 3], 2)
    with pytest.raises(InvalidArgument, match=r"fold: x has 5 windows \(dim 2\) but output_sizes \[3, 3\]"):
        F.fold(paddle.ones([1, 4, 5]), [3, 3], 2)
    with pytest.raises(InvalidArgument, match="unfold: x has dtype int64"):
        F.unfold(paddle.ones([1, 1, 3, 3], dtype="int64"), 2)


@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_pixel_shuffle_matches_torch_and_unshuffle_inverts_it(data_format):
    torch = torch_or_skip()
    x = RNG.standard_normal((2, 12, 2, 3))
    want = torch.nn.functional.pixel_shuffle(torch.tensor(x), 2).numpy()
    if data_format == "NHWC":
        x, want = x.transpose(0, 2, 3, 1), want.transpose(0, 2, 3, 1)
    out = F.pixel_shuffle(paddle.to_tensor(x), 2, data_format)
    assert_forward(out, want)
    assert_forward(F.pixel_unshuffle(out, 2, data_format), x)
    check_grad(lambda t: F.pixel_shuffle(t, 2, data_format), [x])
    check_grad(lambda t: F.pixel_unshuffle(t, 2, data_format), [want])
    check_double_grad(lambda t: F.pixel_shuffle(t, 2, data_format) ** 2, [x])


def test_pixel_shuffle_layers_and_errors():
    assert paddle.nn.PixelShuffle(3)(paddle.rand([1, 18, 2, 2])).shape == [1, 2, 6, 6]
    assert paddle.nn.PixelUnshuffle(2)(paddle.rand([1, 2, 4, 6])).shape == [1, 8, 2, 3]
    with pytest.raises(InvalidArgument, match="x has 8 channels, which upscale_factor 3 cannot split"):
        F.pixel_shuffle(paddle.rand([1, 8, 2, 2]), 3)
    with pytest.raises(InvalidType, match="upscale_factor must be an int, got float"):
        paddle.nn.PixelShuffle(2.0)
    with pytest.raises(InvalidArgument, match=r"height and width \(3, 4\) must be divisible by downscale_factor 2"):
        F.pixel_unshuffle(paddle.rand([1, 1, 3, 4]), 2)
    with pytest.raises(InvalidArgument, match="data_format got 'NCWH'"):
        F.pixel_shuffle(paddle.rand([1, 4, 2, 2]), 2, "NCWH")


@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_channel_shuffle_matches_torch_and_its_gradient_is_the_inverse_shuffle(data_format):
    torch = torch_or_skip()
    x = RNG.standard_normal((2, 6, 2, 3))
    want = torch.nn.functional.channel_shuffle(torch.tensor(x), 3).numpy()
    if data_format == "NHWC":
        x, want = x.transpose(0, 2, 3, 1), want.transpose(0, 2, 3, 1)
    assert_forward(F.channel_shuffle(paddle.to_tensor(x), 3, data_format), want)
    check_grad(lambda t: F.channel_shuffle(t, 3, data_format), [x])
    check_double_grad(lambda t: F.channel_shuffle(t, 3, data_format) ** 2, [x])
    assert paddle.nn.ChannelShuffle(2)(paddle.rand([1, 4, 2, 2])).shape == [1, 4, 2, 2]
    with pytest.raises(InvalidArgument, match="x has 6 channels, which 4 groups cannot split evenly"):
        F.channel_shuffle(paddle.rand([1, 6, 2, 2]), 4)
