"""Normalization: batch_norm / layer_norm / group_norm / instance_norm against numpy and PyTorch, their
gradients (fused and op-built, numerically checked, double grads), running statistics with Paddle's
momentum, train/eval, the layers' parameters and state dict keys, and every error."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn
from minipaddle.framework.errors import InvalidArgument

from ..ops.opcheck import check_double_grad, check_grad, torch_or_skip

RNG = np.random.default_rng(7)


def _data(*shape, dtype="float32", loc=0.0, scale=1.0):
    return RNG.normal(loc, scale, shape).astype(dtype)


def _stats(dtype, c):
    return paddle.to_tensor(np.zeros(c, dtype)), paddle.to_tensor(np.ones(c, dtype))


def _key():
    return paddle.framework.registry.KernelKey("cpu", np.dtype("float32"))


def _bn_reference(x, w, b, eps, axes, mean=None, var=None):
    """numpy batch norm in float64 over `axes`; channel on the axis not reduced (keepdims shapes)."""
    x64 = x.astype(np.float64)
    if mean is None:
        mean = x64.mean(axis=axes, keepdims=True)
        var = x64.var(axis=axes, keepdims=True)
    return (x64 - mean) / np.sqrt(var + eps) * w + b


# ---- batch_norm forward --------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (3, 3, 4, 5), (2, 3, 2, 3, 4)])
def test_batch_norm_training_matches_torch_forward_and_backward(shape):
    torch = torch_or_skip()
    x, w, b = _data(*shape), _data(3), _data(3)
    cot = _data(*shape)
    rm, rv = _stats("float32", 3)
    xt, wt, bt = (paddle.to_tensor(a, stop_gradient=False) for a in (x, w, b))
    y = F.batch_norm(xt, rm, rv, wt, bt, training=True)
    (y * paddle.to_tensor(cot)).sum().backward()
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    ty = torch.nn.functional.batch_norm(tx, torch.zeros(3), torch.ones(3), tw, tb, training=True)
    (ty * torch.tensor(cot)).sum().backward()
    assert y.numpy().dtype == np.float32 and xt.grad.numpy().dtype == np.float32
    np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), atol=2e-5)
    for ours, theirs in ((xt, tx), (wt, tw), (bt, tb)):
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_batch_norm_channel_last_equals_channel_first():
    x, w, b = _data(2, 3, 4, 5), _data(3), _data(3)
    rm1, rv1 = _stats("float32", 3)
    rm2, rv2 = _stats("float32", 3)
    first = F.batch_norm(paddle.to_tensor(x), rm1, rv1, paddle.to_tensor(w), paddle.to_tensor(b), training=True)
    last = F.batch_norm(paddle.to_tensor(x.transpose(0, 2, 3, 1)), rm2, rv2, paddle.to_tensor(w),
                        paddle.to_tensor(b), training=True, data_format="NHWC")
    np.testing.assert_allclose(last.numpy(), first.numpy().transpose(0, 2, 3, 1), atol=1e-5)
    np.testing.assert_allclose(rm2.numpy(), rm1.numpy(), atol=1e-6)
    x3 = _data(4, 6, 3)  # NLC
    rm3, rv3 = _stats("float32", 3)
    out = F.batch_norm(paddle.to_tensor(x3), rm3, rv3, training=True, data_format="NLC")
    np.testing.assert_allclose(out.numpy(), _bn_reference(x3, 1, 0, 1e-5, (0, 1)), atol=1e-5)


def test_running_stats_follow_paddle_momentum_with_the_biased_variance():
    x = _data(8, 3, 4, 4, loc=2.0, scale=3.0)
    rm, rv = _stats("float32", 3)
    F.batch_norm(paddle.to_tensor(x), rm, rv, training=True, momentum=0.8)
    x64 = x.astype(np.float64)
    mean, var = x64.mean(axis=(0, 2, 3)), x64.var(axis=(0, 2, 3))  # var: divided by n, as Paddle does
    np.testing.assert_allclose(rm.numpy(), 0.2 * mean, rtol=1e-5)
    np.testing.assert_allclose(rv.numpy(), 0.8 * 1.0 + 0.2 * var, rtol=1e-5)
    assert rm.numpy().dtype == np.float32
    version = rm.inplace_version
    F.batch_norm(paddle.to_tensor(x), rm, rv, training=True, momentum=0.8)
    np.testing.assert_allclose(rm.numpy(), 0.8 * 0.2 * mean + 0.2 * mean, rtol=1e-5)
    assert rm.inplace_version == version + 1


def test_eval_normalizes_by_the_running_stats_and_leaves_them_alone():
    x, w, b = _data(4, 3, 5), _data(3), _data(3)
    mean, var = np.array([0.5, -1.0, 2.0], "float32"), np.array([2.0, 0.5, 1.5], "float32")
    rm, rv = paddle.to_tensor(mean), paddle.to_tensor(var)
    y = F.batch_norm(paddle.to_tensor(x), rm, rv, paddle.to_tensor(w), paddle.to_tensor(b), training=False)
    expected = _bn_reference(x, w[:, None], b[:, None], 1e-5, None, mean[:, None], var[:, None])
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(rm.numpy(), mean)
    # use_global_stats=True in training: the running stats normalize, and are not updated either
    y2 = F.batch_norm(paddle.to_tensor(x), rm, rv, paddle.to_tensor(w), paddle.to_tensor(b), training=True,
                      use_global_stats=True)
    np.testing.assert_allclose(y2.numpy(), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(rv.numpy(), var)


def test_batch_norm_with_one_value_per_channel_returns_x_as_paddle_does():
    x = _data(1, 3)
    rm, rv = _stats("float32", 3)
    y = F.batch_norm(paddle.to_tensor(x), rm, rv, training=True)
    np.testing.assert_array_equal(y.numpy(), x)
    np.testing.assert_array_equal(rm.numpy(), np.zeros(3, "float32"))


def test_variance_is_stable_when_the_mean_dwarfs_the_spread():
    # E[x^2] - E[x]^2 would lose every digit in float32 (x^2 ~ 1e6 has a spacing of 0.06, var is 0.01);
    # what remains is the float32 rounding of the mean itself: ~1e3 * 6e-8 / 0.1 of the output's scale
    x = _data(16, 2, 8, 8, loc=1e3, scale=0.1)
    for kernel in ("numba", "numpy"):
        paddle.framework.registry.set_preferred_kernel("batch_norm", _key(), kernel)
        rm, rv = _stats("float32", 2)
        y = F.batch_norm(paddle.to_tensor(x), rm, rv, training=True)
        np.testing.assert_allclose(y.numpy(), _bn_reference(x, 1, 0, 1e-5, (0, 2, 3)), atol=2e-3)
        np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * x.astype(np.float64).var(axis=(0, 2, 3)), rtol=1e-5)
    paddle.framework.registry.set_preferred_kernel("batch_norm", _key(), None)
    ln = F.layer_norm(paddle.to_tensor(x), [8, 8])
    np.testing.assert_allclose(ln.numpy().std(axis=(2, 3)), 1.0, atol=2e-3)


# ---- gradients ---------------------------------------------------------------------------------------
def _bn_fn(training, use_global_stats=None, data_format="NCHW"):
    rm = paddle.to_tensor(np.array([0.3, -0.2, 0.1]))
    rv = paddle.to_tensor(np.array([1.5, 0.7, 2.0]))
    return lambda x, w, b: F.batch_norm(x, rm, rv, w, b, training=training, use_global_stats=use_global_stats,
                                        data_format=data_format)


@pytest.mark.parametrize("training,use_global_stats,shape,fmt", [
    (True, None, (3, 3, 2, 2), "NCHW"), (False, None, (3, 3, 2), "NCL"), (True, None, (4, 2, 3), "NLC"),
    (True, True, (3, 3), "NC")])
def test_batch_norm_gradients_match_differences(training, use_global_stats, shape, fmt):
    inputs = [_data(*shape, dtype="float64"), _data(3, dtype="float64"), _data(3, dtype="float64")]
    check_grad(_bn_fn(training, use_global_stats, fmt), inputs)


def test_layer_norm_and_group_norm_gradients_match_differences():
    check_grad(lambda x, w, b: F.layer_norm(x, [3, 2], w, b), [_data(2, 3, 2, dtype="float64"),
                                                               _data(6, dtype="float64"), _data(6, dtype="float64")])
    check_grad(lambda x, w, b: F.group_norm(x, 2, weight=w, bias=b),
               [_data(2, 4, 3, dtype="float64"), _data(4, dtype="float64"), _data(4, dtype="float64")])
    check_grad(lambda x, w, b: F.group_norm(x, 3, weight=w, bias=b, data_format="NHWC"),
               [_data(2, 2, 2, 3, dtype="float64"), _data(3, dtype="float64"), _data(3, dtype="float64")])


@pytest.mark.parametrize("name", ["layer_norm", "batch_norm", "group_norm", "batch_norm_eval"])
def test_double_grad_matches_differences(name):
    fns = {
        "layer_norm": (lambda x, w, b: F.layer_norm(x, [4], w, b), (3, 4), 4),
        "batch_norm": (_bn_fn(True), (4, 3), 3),
        "batch_norm_eval": (_bn_fn(False), (4, 3, 2), 3),
        "group_norm": (lambda x, w, b: F.group_norm(x, 2, weight=w, bias=b), (2, 4, 2), 4),
    }
    fn, shape, c = fns[name]
    check_double_grad(fn, [_data(*shape, dtype="float64"), _data(c, dtype="float64"), _data(c, dtype="float64")],
                      rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("name", ["batch_norm", "layer_norm", "group_norm"])
def test_fused_backward_equals_the_op_built_one(name):
    x = paddle.to_tensor(_data(4, 6, 3, dtype="float64"), stop_gradient=False)
    w = paddle.to_tensor(_data(6, dtype="float64"), stop_gradient=False)
    b = paddle.to_tensor(_data(6, dtype="float64"), stop_gradient=False)
    rm, rv = _stats("float64", 6)
    fn = {"batch_norm": lambda: F.batch_norm(x, rm, rv, w, b, training=True),
          "layer_norm": lambda: F.layer_norm(x, [6, 3], paddle.reshape(w.tile([3]), [18]), None),
          "group_norm": lambda: F.group_norm(x, 3, weight=w, bias=b)}[name]
    cot = paddle.to_tensor(_data(4, 6, 3, dtype="float64"))
    fused = paddle.grad([fn()], [x, w], [cot], allow_unused=True)
    with_ops = paddle.grad([fn()], [x, w], [cot], create_graph=True, allow_unused=True)
    assert fused[0].grad_fn is None and with_ops[0].grad_fn is not None
    for a, b_ in zip(fused, with_ops):
        np.testing.assert_allclose(a.numpy(), b_.numpy(), rtol=1e-10, atol=1e-12)


# ---- layer_norm, group_norm, instance_norm ------------------------------------------------------------
def test_layer_norm_matches_torch_with_full_or_flat_weights():
    torch = torch_or_skip()
    x, w, b = _data(2, 3, 4, 5), _data(4, 5), _data(4, 5)
    expected = torch.nn.functional.layer_norm(torch.tensor(x), [4, 5], torch.tensor(w), torch.tensor(b)).numpy()
    full = F.layer_norm(paddle.to_tensor(x), [4, 5], paddle.to_tensor(w), paddle.to_tensor(b))
    flat = F.layer_norm(paddle.to_tensor(x), (4, 5), paddle.to_tensor(w.reshape(-1)), paddle.to_tensor(b.reshape(-1)))
    np.testing.assert_allclose(full.numpy(), expected, atol=1e-5)
    np.testing.assert_allclose(flat.numpy(), expected, atol=1e-5)
    plain = F.layer_norm(paddle.to_tensor(x), 5, epsilon=1e-3)
    np.testing.assert_allclose(plain.numpy(), torch.nn.functional.layer_norm(torch.tensor(x), [5], eps=1e-3).numpy(),
                               atol=1e-5)


def test_group_and_instance_norm_match_torch():
    torch = torch_or_skip()
    x, w, b = _data(2, 6, 3, 4), _data(6), _data(6)
    for groups in (1, 2, 6):
        ours = F.group_norm(paddle.to_tensor(x), groups, 1e-5, paddle.to_tensor(w), paddle.to_tensor(b))
        theirs = torch.nn.functional.group_norm(torch.tensor(x), groups, torch.tensor(w), torch.tensor(b))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-5)
    last = F.group_norm(paddle.to_tensor(x.transpose(0, 2, 3, 1)), 3, data_format="NHWC")
    np.testing.assert_allclose(last.numpy().transpose(0, 3, 1, 2),
                               torch.nn.functional.group_norm(torch.tensor(x), 3).numpy(), atol=1e-5)
    inst = F.instance_norm(paddle.to_tensor(x), weight=paddle.to_tensor(w), bias=paddle.to_tensor(b))
    np.testing.assert_allclose(inst.numpy(), torch.nn.functional.instance_norm(
        torch.tensor(x), weight=torch.tensor(w), bias=torch.tensor(b)).numpy(), atol=1e-5)
    rm, rv = paddle.to_tensor(_data(6)), paddle.to_tensor(np.abs(_data(6)) + 0.5)
    by_running = F.instance_norm(paddle.to_tensor(x), rm, rv, use_input_stats=False)
    np.testing.assert_allclose(by_running.numpy(), torch.nn.functional.instance_norm(
        torch.tensor(x), torch.tensor(rm.numpy()), torch.tensor(rv.numpy()), use_input_stats=False).numpy(),
        atol=1e-5)


# ---- layers ------------------------------------------------------------------------------------------
def test_batchnorm2d_parameters_buffers_and_state_dict_keys():
    model = nn.Sequential(nn.LayerNorm(4), nn.BatchNorm2D(4))
    bn = model[1]
    np.testing.assert_array_equal(bn.weight.numpy(), np.ones(4, "float32"))
    np.testing.assert_array_equal(bn.bias.numpy(), np.zeros(4, "float32"))
    np.testing.assert_array_equal(bn._mean.numpy(), np.zeros(4, "float32"))
    np.testing.assert_array_equal(bn._variance.numpy(), np.ones(4, "float32"))
    keys = [k for k in model.state_dict() if k.startswith("1.")]
    assert keys == ["1.weight", "1.bias", "1._mean", "1._variance"]
    # as in Paddle 3.3.1: the running statistics are parameters that are never trained
    assert len(bn.parameters()) == 4 and not bn.weight.stop_gradient and bn.buffers() == []
    assert bn._mean.stop_gradient and bn._variance.stop_gradient and not bn._mean.trainable


def test_train_updates_running_stats_and_eval_uses_them():
    bn = nn.BatchNorm2D(3, momentum=0.5)
    x = _data(4, 3, 2, 2, loc=1.0)
    y_train = bn(paddle.to_tensor(x))
    np.testing.assert_allclose(y_train.numpy(), _bn_reference(x, 1, 0, 1e-5, (0, 2, 3)), atol=1e-5)
    np.testing.assert_allclose(bn._mean.numpy(), 0.5 * x.astype(np.float64).mean(axis=(0, 2, 3)), rtol=1e-5)
    bn.eval()
    before = bn._mean.numpy().copy()
    y_eval = bn(paddle.to_tensor(x))
    np.testing.assert_array_equal(bn._mean.numpy(), before)
    mean, var = bn._mean.numpy()[None, :, None, None], bn._variance.numpy()[None, :, None, None]
    np.testing.assert_allclose(y_eval.numpy(), _bn_reference(x, 1, 0, 1e-5, None, mean, var), atol=1e-5)
    bn.train()
    bn(paddle.to_tensor(x))
    assert not np.array_equal(bn._mean.numpy(), before)


def test_set_state_dict_loads_running_stats():
    src, dst = nn.BatchNorm1D(2), nn.BatchNorm1D(2)
    src(paddle.to_tensor(_data(5, 2, loc=3.0)))
    dst.set_state_dict(src.state_dict())
    np.testing.assert_array_equal(dst._mean.numpy(), src._mean.numpy())
    np.testing.assert_array_equal(dst._variance.numpy(), src._variance.numpy())


def test_batch_norm_layer_variants():
    x3 = _data(4, 2, 5)
    one_d = nn.BatchNorm1D(2)
    np.testing.assert_allclose(one_d(paddle.to_tensor(x3)).numpy(), _bn_reference(x3, 1, 0, 1e-5, (0, 2)), atol=1e-5)
    np.testing.assert_allclose(one_d(paddle.to_tensor(x3[:, :, 0])).numpy(),
                               _bn_reference(x3[:, :, 0], 1, 0, 1e-5, (0,)), atol=1e-5)
    x5 = _data(2, 2, 2, 3, 2)
    np.testing.assert_allclose(nn.BatchNorm3D(2)(paddle.to_tensor(x5)).numpy(),
                               _bn_reference(x5, 1, 0, 1e-5, (0, 2, 3, 4)), atol=1e-5)
    legacy = nn.BatchNorm(2, act="relu")
    np.testing.assert_allclose(legacy(paddle.to_tensor(x3)).numpy(),
                               np.maximum(_bn_reference(x3, 1, 0, 1e-5, (0, 2)), 0), atol=1e-5)
    assert nn.BatchNorm(2, dtype="float64")._variance.numpy().dtype == np.float64
    frozen = nn.BatchNorm(2, is_test=True)
    np.testing.assert_allclose(frozen(paddle.to_tensor(x3)).numpy(), x3 / np.sqrt(1 + 1e-5), atol=1e-6)
    fixed = nn.BatchNorm2D(2, weight_attr=False, bias_attr=False)
    assert fixed.weight.stop_gradient and fixed.bias.stop_gradient
    np.testing.assert_array_equal(fixed.weight.numpy(), np.ones(2, "float32"))


def test_layer_norm_group_norm_instance_norm_layers():
    torch = torch_or_skip()
    x = _data(2, 4, 3, 3)
    ln = nn.LayerNorm([3, 3])
    assert ln.weight.shape == [9] and ln.bias.shape == [9]
    np.testing.assert_allclose(ln(paddle.to_tensor(x)).numpy(),
                               torch.nn.functional.layer_norm(torch.tensor(x), [3, 3]).numpy(), atol=1e-5)
    assert nn.LayerNorm(3, weight_attr=False).weight is None
    gn = nn.GroupNorm(2, 4)
    np.testing.assert_allclose(gn(paddle.to_tensor(x)).numpy(),
                               torch.nn.functional.group_norm(torch.tensor(x), 2).numpy(), atol=1e-5)
    inorm = nn.InstanceNorm2D(4)
    assert sorted(inorm.state_dict()) == ["bias", "scale"]
    np.testing.assert_allclose(inorm(paddle.to_tensor(x)).numpy(),
                               torch.nn.functional.instance_norm(torch.tensor(x)).numpy(), atol=1e-5)
    np.testing.assert_allclose(nn.InstanceNorm1D(4)(paddle.to_tensor(x[..., 0])).numpy(),
                               torch.nn.functional.instance_norm(torch.tensor(x[..., 0])).numpy(), atol=1e-5)


def test_layers_train_end_to_end():
    model = nn.Sequential(nn.BatchNorm1D(3), nn.LayerNorm(3))
    x = paddle.to_tensor(_data(6, 3))
    (model(x) * paddle.to_tensor(_data(6, 3))).sum().backward()
    grads = {name: p.grad for name, p in model.named_parameters() if not p.stop_gradient}
    assert set(grads) == {"0.weight", "0.bias", "1.weight", "1.bias"}
    assert all(g is not None and g.numpy().dtype == np.float32 for g in grads.values())


# ---- errors ------------------------------------------------------------------------------------------
def test_errors_name_what_was_got_and_expected():
    rm, rv = _stats("float32", 3)
    x = paddle.to_tensor(_data(2, 4, 5, 5))
    with pytest.raises(InvalidArgument, match=r"batch_norm: running_mean has shape \[3\], expected \[4\]"):
        F.batch_norm(x, rm, rv, training=True)
    with pytest.raises(InvalidArgument, match=r"expected num_features=3"):
        nn.BatchNorm2D(3)(x)
    with pytest.raises(InvalidArgument, match=r"BatchNorm2D: expected a 4-D input, got shape \[2, 3\]"):
        nn.BatchNorm2D(3)(paddle.to_tensor(_data(2, 3)))
    with pytest.raises(InvalidArgument, match="data_format 'NCWH'"):
        F.batch_norm(x, rm, rv, data_format="NCWH")
    with pytest.raises(InvalidArgument, match="data_format 'NCHW' is not supported"):
        nn.BatchNorm1D(3, data_format="NCHW")
    with pytest.raises(InvalidArgument, match=r"expected a 2-D to 5-D tensor"):
        F.batch_norm(paddle.to_tensor(_data(3)), rm, rv)
    with pytest.raises(InvalidArgument, match="running_var has dtype float64 but x has dtype float32"):
        F.batch_norm(paddle.to_tensor(_data(2, 3)), rm, paddle.to_tensor(np.ones(3)), training=True)
    with pytest.raises(InvalidArgument, match=r"normalized_shape \[4\] must match the trailing dims"):
        F.layer_norm(x, 4)
    with pytest.raises(InvalidArgument, match=r"layer_norm: weight has shape \[4\], expected \[5\]"):
        F.layer_norm(x, 5, paddle.ones([4]))
    with pytest.raises(InvalidArgument, match="x has 4 channels, which num_groups=3 does not divide"):
        F.group_norm(x, 3)
    with pytest.raises(InvalidArgument, match=r"num_channels \(6\) must be divisible by num_groups \(4\)"):
        nn.GroupNorm(4, 6)
    with pytest.raises(InvalidArgument, match="has 4 channels, expected num_channels=2"):
        nn.GroupNorm(1, 2)(x)
    with pytest.raises(InvalidArgument, match="use_input_stats=False needs running_mean and running_var"):
        F.instance_norm(x, use_input_stats=False)
    with pytest.raises(InvalidArgument, match="momentum must be in"):
        F.batch_norm(x, *_stats("float32", 4), momentum=1.5)
    with pytest.raises(InvalidArgument, match="num_features must be a positive int"):
        nn.BatchNorm2D(0)


@pytest.mark.parametrize("op,shape,attrs", [
    ("batch_norm", (4, 3, 5, 2), {"data_format": "NCHW"}), ("batch_norm", (6, 5, 3), {"data_format": "NLC"}),
    ("batch_norm", (6, 3), {"data_format": "NC", "use_global_stats": True}),
    ("layer_norm", (4, 3, 7), {"begin_norm_axis": 2}), ("layer_norm", (5, 12), {"begin_norm_axis": 1})])
def test_numba_and_numpy_kernels_agree(op, shape, attrs):
    from minipaddle.framework.registry import get_op
    forward, backward = get_op(op), get_op(op + "_grad")
    pick = {k.name: k.fn for k in forward.kernels[_key()]}
    pick_grad = {k.name: k.fn for k in backward.kernels[_key()]}
    x, dout = _data(*shape, loc=2.0), _data(*shape)
    c = shape[-1] if attrs.get("data_format") == "NLC" else shape[1] if op == "batch_norm" else \
        int(np.prod(shape[attrs["begin_norm_axis"]:]))
    w, b = _data(c), _data(c)
    stats = (np.abs(_data(c)), np.abs(_data(c)) + 0.5) if op == "batch_norm" else ()
    results = {}
    for name in ("numpy", "numba"):
        out, mean, var = pick[name](x, w, b, *stats, 1e-5, **attrs)
        grads = pick_grad[name](x, w, mean, var, dout, 1e-5, **attrs)
        results[name] = (out, mean, var) + tuple(grads)
    for a, b_ in zip(results["numpy"], results["numba"]):
        assert a.dtype == b_.dtype == np.float32 and a.shape == b_.shape
        np.testing.assert_allclose(a, b_, rtol=1e-4, atol=1e-4)
