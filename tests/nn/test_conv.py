"""Convolution: conv1d / conv2d / conv2d_transpose against a numpy reference over a grid of strides,
paddings, dilations and groups, and against PyTorch; Paddle's padding spellings ("SAME", pairs,
NHWC); gradients and grads of grads checked numerically; the layers' weight layouts, default init
and repr; the im2col kernels in the registry; and every error."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn
from minipaddle.framework.dispatch import dispatch
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.ops import conv as conv_ops
from minipaddle.framework.ops import describe

from ..ops.opcheck import check_double_grad, check_grad, torch_or_skip

RNG = np.random.default_rng(11)


def _data(*shape, dtype="float64"):
    return RNG.uniform(-1, 1, shape).astype(dtype)


def conv2d_reference(x, w, stride=(1, 1), pads=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    """Direct convolution in float64: pad, then sum kernel taps over strided slices."""
    n, c, h, width = x.shape
    oc, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    oh = (h + pads[0] + pads[1] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (width + pads[2] + pads[3] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, oc, oh, ow))
    ocg = oc // groups
    for o in range(oc):
        g = o // ocg
        for i in range(kh):
            for j in range(kw):
                y0, x0 = i * dilation[0], j * dilation[1]
                patch = xp[:, g * cg:(g + 1) * cg, y0:y0 + stride[0] * (oh - 1) + 1:stride[0],
                           x0:x0 + stride[1] * (ow - 1) + 1:stride[1]]
                out[:, o] += np.einsum("nchw,c->nhw", patch, w[o, :, i, j])
    return out


def conv2d_transpose_reference(x, w, stride, pads, dilation, groups, out_hw):
    """The adjoint of conv2d_reference, built from it: scatter each input value over its window."""
    n, c, h, width = x.shape
    _, ocg, kh, kw = w.shape
    out = np.zeros((n, ocg * groups, out_hw[0] + pads[0] + pads[1] + kh * dilation[0],
                    out_hw[1] + pads[2] + pads[3] + kw * dilation[1]))
    cg = c // groups
    for ci in range(c):
        g = ci // cg
        for i in range(kh):
            for j in range(kw):
                y0, x0 = i * dilation[0], j * dilation[1]
                region = out[:, g * ocg:(g + 1) * ocg, y0:y0 + stride[0] * (h - 1) + 1:stride[0],
                             x0:x0 + stride[1] * (width - 1) + 1:stride[1]]
                region += np.einsum("nhw,o->nohw", x[:, ci], w[ci, :, i, j])
    return out[:, :, pads[0]:pads[0] + out_hw[0], pads[2]:pads[2] + out_hw[1]]


def _torch():
    """PyTorch on one thread: its OpenMP pool fights numba's and OpenBLAS's threads in one process
    (measured: 0.7 s per small conv with the default threads, 0.4 ms with one)."""
    torch = torch_or_skip()
    torch.set_num_threads(1)
    return torch


def _t(a, stop_gradient=True):
    return paddle.to_tensor(a, stop_gradient=stop_gradient)


# ---- forward against numpy --------------------------------------------------------------------
GRID = list(itertools.product([(1, 1), (2, 1), (2, 3)], [(0, 0, 0, 0), (1, 1, 1, 1), (2, 0, 1, 2)],
                              [(1, 1), (2, 1)], [1, 2]))


@pytest.mark.parametrize("stride,pads,dilation,groups", GRID)
def test_conv2d_matches_numpy_over_strides_paddings_dilations_groups(stride, pads, dilation, groups):
    x, w, b = _data(2, 4, 7, 8), _data(6, 4 // groups, 3, 2), _data(6)
    out = F.conv2d(_t(x), _t(w), _t(b), stride=stride, padding=list(pads), dilation=dilation, groups=groups)
    np.testing.assert_allclose(out.numpy(), conv2d_reference(x, w, stride, pads, dilation, groups)
                               + b[None, :, None, None], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("stride,pads,dilation,groups", GRID[::3])
def test_conv2d_transpose_matches_numpy(stride, pads, dilation, groups):
    x, w = _data(2, 4, 4, 5), _data(4, 3, 3, 2)
    out = F.conv2d_transpose(_t(x), _t(w), stride=stride, padding=list(pads), dilation=dilation, groups=groups)
    h = (4 - 1) * stride[0] - pads[0] - pads[1] + dilation[0] * 2 + 1
    width = (5 - 1) * stride[1] - pads[2] - pads[3] + dilation[1] * 1 + 1
    assert out.shape == [2, 3 * groups, h, width]
    np.testing.assert_allclose(out.numpy(), conv2d_transpose_reference(x, w, stride, pads, dilation, groups,
                                                                       (h, width)), rtol=1e-10, atol=1e-12)


def test_depthwise_conv2d_is_one_filter_per_channel():
    x, w = _data(2, 3, 6, 6), _data(6, 1, 3, 3)  # channel multiplier 2
    out = F.conv2d(_t(x), _t(w), padding=1, groups=3).numpy()
    for o in range(6):
        single = conv2d_reference(x[:, o // 2:o // 2 + 1], w[o:o + 1], pads=(1, 1, 1, 1))
        np.testing.assert_allclose(out[:, o:o + 1], single, rtol=1e-10, atol=1e-12)


def test_float32_stays_float32_and_matches_float64():
    x, w = _data(2, 3, 9, 9), _data(4, 3, 3, 3)
    out = F.conv2d(_t(x.astype("float32")), _t(w.astype("float32")), stride=2, padding=1)
    assert out.dtype == paddle.float32
    np.testing.assert_allclose(out.numpy(), conv2d_reference(x, w, (2, 2), (1, 1, 1, 1)), rtol=1e-5, atol=1e-5)


def test_non_contiguous_input_is_read_correctly():
    base = _data(2, 9, 9, 3)
    x = paddle.Tensor._wrap(base.transpose(0, 3, 1, 2))  # an NCHW view of NHWC memory
    w = _data(4, 3, 3, 3)
    np.testing.assert_allclose(F.conv2d(x, _t(w)).numpy(), conv2d_reference(base.transpose(0, 3, 1, 2), w),
                               rtol=1e-10, atol=1e-12)


# ---- Paddle's argument spellings --------------------------------------------------------------
@pytest.mark.parametrize("padding,pads", [
    (1, (1, 1, 1, 1)), ([1, 2], (1, 1, 2, 2)), ([0, 1, 2, 1], (0, 1, 2, 1)),
    ([[0, 0], [0, 0], [2, 1], [0, 1]], (2, 1, 0, 1)), ("VALID", (0, 0, 0, 0)), ("valid", (0, 0, 0, 0)),
])
def test_padding_forms(padding, pads):
    x, w = _data(1, 2, 6, 7), _data(3, 2, 3, 3)
    np.testing.assert_allclose(F.conv2d(_t(x), _t(w), padding=padding).numpy(), conv2d_reference(x, w, pads=pads),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("size,stride", [(7, 1), (7, 2), (8, 2), (9, 3)])
def test_same_padding_gives_ceil_of_input_over_stride_and_ignores_dilation(size, stride):
    x, w = _data(1, 2, size, size), _data(3, 2, 3, 3)
    out = F.conv2d(_t(x), _t(w), stride=stride, padding="SAME", dilation=2)
    expect = -(-size // stride)
    assert out.shape == [1, 3, expect, expect]
    total = max((expect - 1) * stride + 3 - size, 0)  # Paddle: pad for the undilated kernel, extra after
    pads = (total // 2, total - total // 2) * 2
    np.testing.assert_allclose(out.numpy(), conv2d_reference(x, w, (stride, stride), pads), rtol=1e-10, atol=1e-12)


def test_nhwc_is_nchw_transposed_padding_pairs_included():
    x, w, b = _data(2, 3, 6, 5), _data(4, 3, 3, 3), _data(4)
    nchw = F.conv2d(_t(x), _t(w), _t(b), stride=(2, 1), padding=[[0, 0], [0, 0], [1, 0], [2, 1]])
    nhwc = F.conv2d(_t(x.transpose(0, 2, 3, 1)), _t(w), _t(b), stride=(2, 1),
                    padding=[[0, 0], [1, 0], [2, 1], [0, 0]], data_format="NHWC")
    np.testing.assert_allclose(nhwc.numpy(), nchw.numpy().transpose(0, 2, 3, 1), rtol=1e-12)


def test_conv1d_is_conv2d_over_a_height_of_one_and_takes_nlc():
    x, w, b = _data(2, 4, 11), _data(6, 2, 3), _data(6)
    out = F.conv1d(_t(x), _t(w), _t(b), stride=2, padding=[1, 2], dilation=2, groups=2)
    ref = conv2d_reference(x[:, :, None], w[:, :, None], (1, 2), (0, 0, 1, 2), (1, 2), 2)[:, :, 0]
    np.testing.assert_allclose(out.numpy(), ref + b[None, :, None], rtol=1e-10, atol=1e-12)
    nlc = F.conv1d(_t(x.transpose(0, 2, 1)), _t(w), _t(b), stride=2, padding=[1, 2], dilation=2, groups=2,
                   data_format="NLC")
    np.testing.assert_allclose(nlc.numpy(), out.numpy().transpose(0, 2, 1), rtol=1e-12)
    assert F.conv1d(_t(x), _t(w[:, :, :]), groups=2, padding="SAME").shape == [2, 6, 11]


def test_conv2d_transpose_output_size_and_output_padding_pick_among_valid_sizes():
    x, w = _data(1, 2, 4, 4), _data(2, 3, 3, 3)
    assert F.conv2d_transpose(_t(x), _t(w), stride=2).shape == [1, 3, 9, 9]
    a = F.conv2d_transpose(_t(x), _t(w), stride=2, output_padding=1)
    b = F.conv2d_transpose(_t(x), _t(w), stride=2, output_size=[10, 10])
    assert a.shape == b.shape == [1, 3, 10, 10]
    np.testing.assert_allclose(a.numpy(), b.numpy())
    np.testing.assert_allclose(a.numpy()[:, :, :9, :9], F.conv2d_transpose(_t(x), _t(w), stride=2).numpy())
    assert F.conv2d_transpose(_t(x), _t(w), stride=2, padding="SAME").shape == [1, 3, 8, 8]


def test_conv2d_transpose_is_the_adjoint_of_conv2d():
    x, w = _data(2, 4, 7, 6), _data(6, 2, 3, 3)
    out = F.conv2d(_t(x), _t(w), stride=2, padding=[1, 0], dilation=(1, 2), groups=2)
    y = _data(*out.shape)
    back = F.conv2d_transpose(_t(y), _t(w), stride=2, padding=[1, 0], dilation=(1, 2), groups=2,
                              output_size=[7, 6])
    assert math.isclose(float(np.sum(out.numpy() * y)), float(np.sum(x * back.numpy())), rel_tol=1e-10)


# ---- against PyTorch --------------------------------------------------------------------------
@pytest.mark.parametrize("stride,padding,dilation,groups", [(1, 0, 1, 1), (2, 1, 1, 2), ((1, 2), (2, 1), 2, 1),
                                                            (3, 2, (2, 1), 4)])
def test_conv2d_and_its_grads_match_torch(stride, padding, dilation, groups):
    torch = _torch()
    x, w, b = _data(2, 4, 9, 8), _data(8, 4 // groups, 3, 3), _data(8)
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    ref = torch.nn.functional.conv2d(tx, tw, tb, stride, padding, dilation, groups)
    px, pw, pb = _t(x, False), _t(w, False), _t(b, False)
    out = F.conv2d(px, pw, pb, stride, padding, dilation, groups)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = _data(*out.shape)
    ref.backward(torch.tensor(g))
    grads = paddle.grad([out], [px, pw, pb], grad_outputs=[_t(g)])
    for got, want in zip(grads, (tx.grad, tw.grad, tb.grad)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("stride,padding,output_padding,dilation,groups", [(1, 0, 0, 1, 1), (2, 1, 1, 1, 2),
                                                                           (3, (1, 2), (2, 0), (1, 2), 1)])
def test_conv2d_transpose_matches_torch(stride, padding, output_padding, dilation, groups):
    torch = _torch()
    x, w, b = _data(2, 4, 5, 4), _data(4, 3, 3, 2), _data(3 * groups)
    ref = torch.nn.functional.conv_transpose2d(torch.tensor(x), torch.tensor(w), torch.tensor(b), stride, padding,
                                               output_padding, groups, dilation)
    out = F.conv2d_transpose(_t(x), _t(w), _t(b), stride, padding, output_padding, dilation, groups)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-10, atol=1e-12)


def test_conv1d_matches_torch():
    torch = _torch()
    x, w = _data(3, 4, 12), _data(4, 2, 4)
    ref = torch.nn.functional.conv1d(torch.tensor(x), torch.tensor(w), None, 3, 2, 2, 2)
    np.testing.assert_allclose(F.conv1d(_t(x), _t(w), None, 3, 2, 2, 2).numpy(), ref.numpy(), rtol=1e-10)


# ---- gradients ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"stride": 2, "padding": 1}, {"padding": [1, 0, 0, 2], "dilation": (2, 1)},
                                    {"groups": 2, "stride": (1, 2)}])
def test_conv2d_gradients_match_central_differences(kwargs):
    check_grad(F.conv2d, [_data(2, 2, 5, 5), _data(2, 2 // kwargs.get("groups", 1), 3, 2), _data(2)], kwargs=kwargs)


@pytest.mark.parametrize("kwargs", [{}, {"stride": 2, "padding": 1, "output_padding": 1}, {"dilation": 2, "groups": 2}])
def test_conv2d_transpose_gradients_match_central_differences(kwargs):
    check_grad(F.conv2d_transpose, [_data(1, 2, 3, 3), _data(2, 2, 2, 3), _data(2 * kwargs.get("groups", 1))],
               kwargs=kwargs)


def test_conv1d_gradients_match_central_differences():
    check_grad(F.conv1d, [_data(2, 2, 7), _data(3, 2, 3), _data(3)], kwargs={"stride": 2, "padding": 1})


@pytest.mark.parametrize("kwargs", [{"padding": 1}, {"stride": 2, "dilation": (1, 2), "groups": 2}])
def test_conv2d_double_grad_matches_differences_of_the_grad(kwargs):
    """Grad of (dL/dx, dL/dw) wrt (x, w): runs conv2d_transpose's and conv2d_grad_filter's backward rules."""
    check_double_grad(F.conv2d, [_data(1, 2, 5, 5), _data(2, 2 // kwargs.get("groups", 1), 2, 2)], kwargs=kwargs)


def test_conv2d_transpose_double_grad_matches_differences_of_the_grad():
    check_double_grad(F.conv2d_transpose, [_data(1, 2, 3, 3), _data(2, 1, 2, 2)], kwargs={"stride": 2})


def test_backward_runs_only_the_grad_ops_that_are_needed():
    from minipaddle.framework import instrument
    ran = []
    unsubscribe = instrument.subscribe(lambda e: ran.append(e.op), kinds=("op",))
    try:
        x, w = _t(_data(1, 2, 5, 5)), _t(_data(3, 2, 3, 3), False)  # the image batch needs no gradient
        F.conv2d(x, w).sum().backward()
        x.stop_gradient = True
        x2 = _t(_data(1, 2, 5, 5), False)
        F.conv2d(x2, _t(_data(3, 2, 3, 3))).sum().backward()
    finally:
        unsubscribe()
    assert ran.count("conv2d_grad_filter") == 1 and ran.count("conv2d_transpose") == 1
    assert w.grad.shape == [3, 2, 3, 3] and x2.grad.shape == [1, 2, 5, 5]


# ---- layers ------------------------------------------------------------------------------------
def test_conv2d_layer_weight_layout_default_init_and_repr():
    paddle.seed(0)
    conv = nn.Conv2D(16, 32, 3, stride=2, padding=1, groups=2)
    assert conv.weight.shape == [32, 8, 3, 3] and conv.bias.shape == [32]
    assert not conv.bias.numpy().any()
    std = math.sqrt(2.0 / (9 * 16))  # Paddle: Normal(0, sqrt(2 / (prod(kernel) * in_channels)))
    assert abs(float(conv.weight.numpy().std()) / std - 1) < 0.1
    assert repr(conv) == "Conv2D(16, 32, kernel_size=[3, 3], stride=[2, 2], padding=1, groups=2, data_format=NCHW)"
    assert repr(nn.Conv2D(1, 6, 5)) == "Conv2D(1, 6, kernel_size=[5, 5], data_format=NCHW)"
    x = paddle.randn([2, 16, 8, 8])
    np.testing.assert_allclose(conv(x).numpy(), F.conv2d(x, conv.weight, conv.bias, 2, 1, 1, 2).numpy())


def test_conv_layers_bias_attr_false_and_weight_attr_initializer():
    conv = nn.Conv2D(2, 3, 2, bias_attr=False, weight_attr=nn.initializer.Constant(0.5))
    assert conv.bias is None and len(conv.parameters()) == 1
    x = paddle.ones([1, 2, 3, 3])
    np.testing.assert_allclose(conv(x).numpy(), np.full((1, 3, 2, 2), 4.0))
    with pytest.raises(InvalidArgument, match="weight_attr cannot be False"):
        nn.Conv2D(2, 3, 2, weight_attr=False)


def test_conv1d_layer_and_padding_modes():
    conv = nn.Conv1D(2, 4, 3, padding=1, padding_mode="reflect")
    assert conv.weight.shape == [4, 2, 3]
    assert repr(conv) == "Conv1D(2, 4, kernel_size=[3], padding=1, padding_mode=reflect, data_format=NCL)"
    x = _data(1, 2, 6).astype("float32")
    ref = conv2d_reference(np.pad(x, ((0, 0), (0, 0), (1, 1)), mode="reflect")[:, :, None],
                           conv.weight.numpy()[:, :, None])[:, :, 0]
    np.testing.assert_allclose(conv(_t(x)).numpy(), ref, rtol=1e-5, atol=1e-6)
    circ = nn.Conv2D(1, 1, 3, padding=1, padding_mode="circular", bias_attr=False)
    img = _data(1, 1, 4, 4).astype("float32")
    ref = conv2d_reference(np.pad(img, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="wrap"), circ.weight.numpy())
    np.testing.assert_allclose(circ(_t(img)).numpy(), ref, rtol=1e-5, atol=1e-6)


def test_conv2d_transpose_layer_layout_init_and_output_size():
    layer = nn.Conv2DTranspose(4, 6, 3, stride=2, groups=2)
    assert layer.weight.shape == [4, 3, 3, 3]
    limit = math.sqrt(6.0 / (3 * 9 + 4 * 9))  # XavierUniform over fan_in = 3*9, fan_out = 4*9
    assert np.abs(layer.weight.numpy()).max() <= limit
    assert repr(layer) == "Conv2DTranspose(4, 6, kernel_size=[3, 3], stride=[2, 2], groups=2, data_format=NCHW)"
    x = paddle.randn([1, 4, 5, 5])
    assert layer(x).shape == [1, 6, 11, 11] and layer(x, output_size=[12, 12]).shape == [1, 6, 12, 12]


def test_a_small_conv_net_trains():
    paddle.seed(1)
    net = nn.Sequential(nn.Conv2D(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2), nn.Conv2D(4, 2, 3),
                        nn.AdaptiveAvgPool2D(1))
    x, target = paddle.randn([8, 1, 8, 8]), paddle.randn([8, 2, 1, 1])
    losses = []
    for _ in range(30):
        loss = ((net(x) - target) ** 2).mean()
        losses.append(float(loss))
        loss.backward()
        for p in net.parameters():
            p.set_value(p.numpy() - 0.1 * p.grad.numpy())
            p.clear_grad()
    assert losses[-1] < 0.5 * losses[0]


# ---- the registry ------------------------------------------------------------------------------
def test_describe_shows_both_kernels_im2col_default_and_backward_rules():
    d = describe("conv2d")
    kernels = {(k["dtype"], k["name"]): k for k in d["kernels"] if k["backend"] == "cpu"}
    names = ("images", "images_parallel", "im2col", "direct", "channels_last")
    assert set(kernels) == {(dt, name) for dt in ("float32", "float64") for name in names} | {
        ("bfloat16", "images")}   # bfloat16: the float32 default kernel on widened inputs (ops/bfloat16.py)
    files = {"images": "conv_fast.py", "images_parallel": "conv_fast.py", "im2col": "im2col.py",
             "direct": "conv_direct.py", "channels_last": "conv_channels_last.py"}
    for (_, name), k in kernels.items():   # image by image by default; the autotuner may pick another
        assert k["default"] == (name == "images")
        assert files[name] in k["location"]
    assert "CONV2D_TRANSPOSE" in d["backward_source"] and "CONV2D_GRAD_FILTER" in d["backward_source"]
    assert describe("conv2d_grad_filter")["backward_name"] == "conv2d_grad_filter_grad"


# ---- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("call,message", [
    (lambda: F.conv2d(_t(_data(1, 3, 5, 5)), _t(_data(4, 2, 3, 3))), r"x has 3 channels but weight .* expects 2"),
    (lambda: F.conv2d(_t(_data(3, 5, 5)), _t(_data(4, 3, 3, 3))), r"x must be 4-D .*got shape \[3, 5, 5\]"),
    (lambda: F.conv2d(_t(_data(1, 3, 5, 5)), _t(_data(4, 3, 3))), r"weight must be 4-D"),
    (lambda: F.conv2d(_t(_data(1, 3, 4, 4)), _t(_data(4, 3, 6, 3))), r"kernel spans 6 along height .* only 4"),
    (lambda: F.conv2d(_t(_data(1, 3, 4, 4)), _t(_data(4, 3, 3, 3)), dilation=2), r"kernel spans 5 .*dilation 2"),
    (lambda: F.conv2d(_t(_data(1, 3, 5, 5)), _t(_data(4, 3, 3, 3)), padding="FULL"), r"'FULL' is not a padding"),
    (lambda: F.conv2d(_t(_data(1, 3, 5, 5)), _t(_data(4, 3, 3, 3)), padding=[1, 2, 3]), r"form this 2-D op"),
    (lambda: F.conv2d(_t(_data(1, 3, 5, 5)), _t(_data(4, 3, 3, 3)), padding=-1), r"ints >= 0"),
    (lambda: F.conv2d(_t(_data(1, 4, 5, 5)), _t(_data(3, 2, 3, 3)), groups=2), r"groups=2 must divide .*output"),
    (lambda: F.conv2d(_t(_data(1, 3, 5, 5)), _t(_data(4, 1, 3, 3)), groups=2), r"groups=2 must divide .*input"),
    (lambda: F.conv2d(_t(_data(1, 3, 5, 5)), _t(_data(4, 3, 3, 3)), groups=0), r"groups must be an int >= 1"),
    (lambda: F.conv2d(_t(_data(1, 3, 5, 5)), _t(_data(4, 3, 3, 3)), data_format="CHWN"), r"data_format 'CHWN'"),
    (lambda: F.conv2d(_t(_data(1, 3, 5, 5)), _t(_data(4, 3, 3, 3)), _t(_data(3))), r"bias has shape \[3\]"),
    (lambda: F.conv2d(_t(_data(1, 3, 5, 5)), _t(_data(4, 3, 3, 3)), stride=0), r"stride \[0, 0\] must be >= 1"),
    (lambda: F.conv2d(_t(_data(1, 3, 5, 5).astype("float32")), _t(_data(4, 3, 3, 3))), r"dtype float32 but weight"),
    (lambda: F.conv1d(_t(_data(1, 3, 5, 5)), _t(_data(4, 3, 3))), r"x must be 3-D"),
    (lambda: F.conv2d_transpose(_t(_data(1, 3, 4, 4)), _t(_data(2, 3, 3, 3))), r"x has 3 channels .* expects 2"),
    (lambda: F.conv2d_transpose(_t(_data(1, 2, 4, 4)), _t(_data(2, 3, 3, 3)), stride=2, output_size=[11, 9]),
     r"output_size \[11, 9\] is out of range.*\[9, 11\)"),
    (lambda: F.conv2d_transpose(_t(_data(1, 2, 4, 4)), _t(_data(2, 3, 3, 3)), stride=2, output_padding=2),
     r"output_padding \[2, 2\] must be smaller than the stride"),
    (lambda: F.conv2d_transpose(_t(_data(1, 2, 4, 4)), _t(_data(2, 3, 3, 3)), stride=2, output_padding=1,
                                output_size=10), r"mutually exclusive"),
    (lambda: conv_ops.conv2d_transpose_nchw(_t(_data(1, 2, 4, 4)), _t(_data(2, 3, 3, 3)), (2, 2), (0, 0, 0, 0),
                                            (1, 1), 1, (5, 5)), r"output_size \[5, 5\] does not fit.*\[2, 2\]"),
    (lambda: dispatch(conv_ops.CONV2D_GRAD_FILTER, (_t(_data(1, 2, 5, 5)), _t(_data(1, 3, 2, 3))),
                      {"filter_size": (3, 3)}), r"dout has shape \[1, 3, 2, 3\], expected \[1, 3, 3, 3\]"),
    (lambda: nn.Conv2D(3, 4, 3, groups=2), r"in_channels \(3\) must be divisible by groups \(2\)"),
    (lambda: nn.Conv2D(2, 4, 3, padding=[1, 1], padding_mode="reflect"), r"takes an int padding"),
    (lambda: nn.Conv2D(2, 4, 3, padding_mode="mirror"), r"padding_mode 'mirror'"),
])
def test_bad_arguments_raise_clear_errors(call, message):
    with pytest.raises(InvalidArgument, match=message):
        call()
