"""conv3d (+ transpose and filter gradient) and max/avg pool3d: forward against torch, gradients by central
differences, double grads through the op trios, layers, clear errors."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument

from .opcheck import check_double_grad, check_grad, torch_or_skip

F = paddle.nn.functional
RNG = np.random.default_rng(11)

CONV_CASES = [  # stride, padding, dilation, groups
    (1, 0, 1, 1), ([1, 2, 1], 1, 1, 1), (2, [1, 0, 1], [1, 1, 2], 2), (1, "SAME", 1, 1),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("stride, padding, dilation, groups", CONV_CASES)
def test_conv3d_matches_torch(stride, padding, dilation, groups):
    torch = torch_or_skip()
    x = RNG.standard_normal((2, 4, 5, 6, 5))
    w = RNG.standard_normal((6, 4 // groups, 2, 3, 2))
    b = RNG.standard_normal(6)
    got = F.conv3d(paddle.to_tensor(x), paddle.to_tensor(w), paddle.to_tensor(b), stride=stride, padding=padding,
                   dilation=dilation, groups=groups)
    tpad = padding.lower() if isinstance(padding, str) else padding
    want = torch.nn.functional.conv3d(torch.tensor(x), torch.tensor(w), torch.tensor(b), stride=stride,
                                      padding=tpad, dilation=dilation, groups=groups)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("stride, padding, dilation, groups", CONV_CASES[:3])
def test_conv3d_gradients_and_double_gradients(stride, padding, dilation, groups):
    x = RNG.standard_normal((1, 2, 4, 3, 4))
    w = RNG.standard_normal((2, 2 // groups, 2, 2, 2))
    kw = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    check_grad(lambda a, b: F.conv3d(a, b, **kw), [x, w])
    check_double_grad(lambda a, b: F.conv3d(a, b, **kw), [x, w])


def test_conv3d_transpose_matches_torch_and_differentiates():
    torch = torch_or_skip()
    x = RNG.standard_normal((1, 4, 3, 2, 3))
    w = RNG.standard_normal((4, 3, 2, 3, 2))
    got = F.conv3d_transpose(paddle.to_tensor(x), paddle.to_tensor(w), stride=2, padding=1, output_padding=1,
                             groups=2)
    want = torch.nn.functional.conv_transpose3d(torch.tensor(x), torch.tensor(w), stride=2, padding=1,
                                                output_padding=1, groups=2)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-10)
    check_grad(lambda a, b: F.conv3d_transpose(a, b, stride=2, padding=1, groups=2), [x[:, :, :2], w])


def test_conv3d_layers_channels_last_and_errors():
    conv = paddle.nn.Conv3D(3, 4, [1, 3, 3], padding=[0, 1, 1])
    x = paddle.rand([2, 3, 4, 5, 5])
    assert conv(x).shape == [2, 4, 4, 5, 5]
    last = F.conv3d(x.transpose([0, 2, 3, 4, 1]), conv.weight, conv.bias, padding=[0, 1, 1], data_format="NDHWC")
    np.testing.assert_allclose(last.transpose([0, 4, 1, 2, 3]).numpy(), conv(x).numpy(), rtol=1e-5, atol=1e-6)
    assert paddle.nn.Conv3DTranspose(4, 2, 2, stride=2)(paddle.rand([1, 4, 2, 2, 2])).shape == [1, 2, 4, 4, 4]
    with pytest.raises(InvalidArgument, match=r"conv3d: x must be 5-D \(N/C/D/H/W\), got shape \[2, 3, 4, 5\]"):
        F.conv3d(paddle.rand([2, 3, 4, 5]), conv.weight)
    with pytest.raises(InvalidArgument, match="conv3d: x has 2 channels but weight of shape"):
        F.conv3d(paddle.rand([1, 2, 3, 3, 3]), conv.weight)
    with pytest.raises(InvalidArgument, match="conv3d: the kernel spans 3 along height"):
        F.conv3d(paddle.rand([1, 3, 2, 2, 2]), conv.weight)


POOL_CASES = [([2, 2, 2], None, 0, False), ([2, 3, 2], [2, 1, 2], 1, True), (3, 1, [1, 0, 1], False)]


@pytest.mark.parametrize("kernel, stride, padding, ceil_mode", POOL_CASES)
def test_max_pool3d_matches_torch_with_its_mask(kernel, stride, padding, ceil_mode):
    torch = torch_or_skip()
    x = RNG.standard_normal((2, 3, 6, 5, 8))
    out, mask = F.max_pool3d(paddle.to_tensor(x), kernel, stride, padding, ceil_mode=ceil_mode, return_mask=True)
    want, index = torch.nn.functional.max_pool3d(torch.tensor(x), kernel, stride, padding, ceil_mode=ceil_mode,
                                                 return_indices=True)
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    np.testing.assert_array_equal(mask.numpy(), index.numpy())
    assert mask.dtype == paddle.int32


@pytest.mark.parametrize("kernel, stride, padding, ceil_mode", POOL_CASES)
@pytest.mark.parametrize("exclusive", [True, False])
def test_avg_pool3d_matches_torch(kernel, stride, padding, ceil_mode, exclusive):
    torch = torch_or_skip()
    x = RNG.standard_normal((2, 3, 6, 5, 8))
    out = F.avg_pool3d(paddle.to_tensor(x), kernel, stride, padding, ceil_mode=ceil_mode, exclusive=exclusive)
    want = torch.nn.functional.avg_pool3d(torch.tensor(x), kernel, stride, padding, ceil_mode=ceil_mode,
                                          count_include_pad=not exclusive)
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("kernel, stride, padding, ceil_mode", POOL_CASES[:2])
def test_pool3d_gradients(kernel, stride, padding, ceil_mode):
    x = RNG.permutation(2 * 2 * 4 * 3 * 6).reshape(2, 2, 4, 3, 6) * 0.1   # distinct values: a clear argmax
    check_grad(lambda t: F.max_pool3d(t, kernel, stride, padding, ceil_mode=ceil_mode), [x])
    check_double_grad(lambda t: F.max_pool3d(t, kernel, stride, padding, ceil_mode=ceil_mode) ** 2, [x])
    check_grad(lambda t: F.avg_pool3d(t, kernel, stride, padding, ceil_mode=ceil_mode, exclusive=False), [x])
    check_double_grad(lambda t: F.avg_pool3d(t, kernel, stride, padding, ceil_mode=ceil_mode) ** 2, [x])
    check_grad(lambda t: F.avg_pool3d(t, kernel, stride, padding, divisor_override=3), [x])


def test_pool3d_layers_and_errors():
    x = paddle.rand([1, 2, 4, 4, 4])
    assert paddle.nn.MaxPool3D(2)(x).shape == [1, 2, 2, 2, 2]
    out, mask = paddle.nn.MaxPool3D(2, return_mask=True)(x)
    assert mask.shape == [1, 2, 2, 2, 2]
    assert paddle.nn.AvgPool3D(2, stride=1, data_format="NDHWC")(x.transpose([0, 2, 3, 4, 1])).shape == [1, 3, 3, 3, 2]
    with pytest.raises(InvalidArgument, match=r"max_pool3d: x must be 5-D"):
        F.max_pool3d(paddle.rand([1, 2, 4, 4]), 2)
    with pytest.raises(InvalidArgument, match="avg_pool3d: the pool window"):
        F.avg_pool3d(x, 5)
