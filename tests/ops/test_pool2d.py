"""pool2d and pool2d_grad (framework/ops/pooling.py): max pooling without a mask, Paddle's op for
F.max_pool2d(return_mask=False) and nn.MaxPool2D, its gradient found again from x. Pinned against
max_pool2d (with the mask) and numpy on every geometry, NaN, ties as Paddle breaks them, non-contiguous
inputs; gradients and grads of grads by central differences in float64."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.kernels.cpu import pooling as pool_general
from minipaddle.framework.kernels.cpu import pooling_fast
from minipaddle.framework.ops import describe

from .opcheck import check_double_grad, check_grad
from .test_pool_conv_kernels import SETTINGS, _layout, _numpy_max_pool, _pool_input, pool_cases

POOL2D_KERNELS = (pooling_fast.pool2d_rows, pooling_fast.pool2d_rows_parallel, pool_general.pool2d_kernel)
POOL2D_GRAD_KERNELS = (pooling_fast.pool2d_grad_rows, pooling_fast.pool2d_grad_rows_parallel,
                       pool_general.pool2d_grad_kernel)


@SETTINGS
@given(pool_cases())
def test_pool2d_kernels_match_max_pool2d_values_and_numpy(case):
    shape, kernel, stride, pads, ceil_mode, dtype, layout, seed = case
    x = _pool_input(shape, dtype, layout, seed, nans=seed % 3)
    try:
        want, _mask = pool_general.max_pool2d_kernel(x, kernel, stride, pads, ceil_mode)
    except InvalidArgument:
        return  # a geometry Paddle rejects; the op reports it
    for kernel_fn in POOL2D_KERNELS:
        out = kernel_fn(x, kernel, stride, pads, ceil_mode)
        assert out.dtype == x.dtype and out.shape == want.shape
        np.testing.assert_array_equal(out, want)  # NaN where a NaN was
    np.testing.assert_array_equal(want, _numpy_max_pool(np.ascontiguousarray(x), kernel, stride, pads,
                                                        want.shape[2:]))


@SETTINGS
@given(pool_cases())
def test_pool2d_grad_kernels_send_dout_where_the_mask_would(case):
    shape, kernel, stride, pads, ceil_mode, dtype, layout, seed = case
    x = _pool_input(shape, dtype, layout, seed, nans=seed % 2)  # small integers: many ties
    try:
        _, mask = pool_general.max_pool2d_kernel(x, kernel, stride, pads, ceil_mode)
    except InvalidArgument:
        return
    dout = _layout(np.random.default_rng(seed).standard_normal(mask.shape).astype(dtype), "t")
    want = pool_general.max_pool2d_grad_kernel(dout, mask, shape[2:])
    for kernel_fn in POOL2D_GRAD_KERNELS:
        got = kernel_fn(x, dout, kernel, stride, pads, ceil_mode)
        assert got.dtype == dout.dtype and got.shape == x.shape
        np.testing.assert_array_equal(got, want)


def test_odd_sizes_leave_zero_gradient_outside_every_2x2_window():
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 7)).astype("float32")
    dout = np.ones((2, 3, 2, 3), "float32")
    for kernel_fn in POOL2D_GRAD_KERNELS:
        dx = kernel_fn(x, dout, (2, 2), (2, 2), (0, 0, 0, 0), False)
        assert not dx[:, :, 4, :].any() and not dx[:, :, :, 6].any()
        assert dx.sum() == dout.sum()


def test_ties_send_the_gradient_to_the_first_maximum_like_paddle():
    # Paddle 3.3.1, F.max_pool2d(x, 3, 1, padding=1) with or without return_mask: this exact gradient
    x = np.zeros((1, 1, 4, 4), "float32")
    x[0, 0, 2:, 2:] = 1
    for pool in (lambda t: _pool2d(t, kernel_size=3, stride=1, padding=1), lambda t: F.max_pool2d(t, 3, 1, 1)):
        t = paddle.to_tensor(x, stop_gradient=False)
        pool(t).sum().backward()
        np.testing.assert_array_equal(t.grad.numpy().ravel(), [3, 1, 1, 0, 1, 0, 0, 0, 1, 0, 9, 0, 0, 0, 0, 0])


def _ops_run(monkeypatch) -> list[str]:
    """The names of the ops framework/ops/pooling.py dispatches from now on."""
    from minipaddle.framework.ops import pooling as pooling_ops
    names, real = [], pooling_ops.dispatch
    monkeypatch.setattr(pooling_ops, "dispatch", lambda op, *a, **k: names.append(op.name) or real(op, *a, **k))
    return names


def test_max_pool_without_mask_runs_pool2d_when_no_gradient_is_needed(monkeypatch):
    names = _ops_run(monkeypatch)
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((2, 3, 8, 8)))
    F.max_pool2d(x, 2)                                 # x stops gradients
    paddle.nn.MaxPool2D(3, 2, 1)(x)
    F.max_pool1d(x[:, :, 0], 2)
    with paddle.no_grad():
        F.max_pool2d(paddle.to_tensor(x.numpy(), stop_gradient=False), 2)
    assert names == ["pool2d"] * 4
    F.max_pool2d(paddle.to_tensor(x.numpy(), stop_gradient=False), 2)  # training: the mask is kept
    F.max_pool2d(x, 2, return_mask=True)
    assert names[4:] == ["max_pool2d"] * 2


def test_pool2d_values_and_gradient_equal_the_mask_paths():
    rng = np.random.default_rng(5)
    x_np = rng.integers(-3, 4, (2, 3, 9, 8)).astype("float64")
    for args in (dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=2, ceil_mode=True)):
        a = paddle.to_tensor(x_np, stop_gradient=False)
        b = paddle.to_tensor(x_np, stop_gradient=False)
        out = _pool2d(a, **args)
        ref = F.max_pool2d(b, **args)
        np.testing.assert_array_equal(out.numpy(), ref.numpy())
        cot = paddle.to_tensor(rng.standard_normal(out.shape))
        (out * cot).sum().backward()
        (ref * cot).sum().backward()
        np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())


def _pool2d(t, **args):
    """pool2d itself, as F.max_pool2d's geometry gives it (F.max_pool2d runs max_pool2d while training)."""
    from minipaddle.framework.dispatch import dispatch
    from minipaddle.framework.ops.pooling import POOL2D
    k = args["kernel_size"] if isinstance(args["kernel_size"], tuple) else (args["kernel_size"],) * 2
    s = args.get("stride", k)
    s = s if isinstance(s, tuple) else (s, s)
    return dispatch(POOL2D, (t,), {"kernel_size": k, "strides": s, "paddings": (args.get("padding", 0),) * 4,
                                   "ceil_mode": args.get("ceil_mode", False)})


@pytest.mark.parametrize("args", [dict(kernel_size=2, stride=2), dict(kernel_size=3, stride=2, padding=1),
                                  dict(kernel_size=(2, 3), stride=(1, 2), ceil_mode=True)])
def test_pool2d_gradient_and_double_gradient_by_central_differences(args):
    rng = np.random.default_rng(3)
    x = rng.permutation(2 * 3 * 7 * 7).reshape(2, 3, 7, 7) / 10.0  # distinct values: a clear max
    check_grad(lambda t: _pool2d(t, **args), [x])
    # the first grad of pool(x)**2 is 2 * pool(x) sent back by pool2d_grad: its own grad is needed
    check_double_grad(lambda t: _pool2d(t, **args) ** 2, [x])


def test_pool2d_grad_gradient_gathers_at_the_maxima():
    rng = np.random.default_rng(4)
    x = paddle.to_tensor(rng.permutation(48).reshape(1, 3, 4, 4).astype("float64"), stop_gradient=False)
    v = paddle.to_tensor(rng.standard_normal((1, 3, 2, 2)), stop_gradient=False)
    (dx,) = paddle.grad([_pool2d(x, kernel_size=2)], [x], grad_outputs=[v], create_graph=True)
    w = rng.standard_normal((1, 3, 4, 4))
    (dv,) = paddle.grad([(dx * paddle.to_tensor(w)).sum()], [v])
    _, mask = F.max_pool2d(x, 2, return_mask=True)
    np.testing.assert_array_equal(dv.numpy(), np.take_along_axis(w.reshape(1, 3, 16), mask.numpy().reshape(1, 3, 4),
                                                                 axis=2).reshape(1, 3, 2, 2))


def test_pool2d_grad_rejects_a_dout_of_the_wrong_shape():
    from minipaddle.framework.dispatch import dispatch
    from minipaddle.framework.ops.pooling import POOL2D_GRAD
    x = paddle.ones([1, 1, 4, 4])
    with pytest.raises(InvalidArgument, match=r"pool2d_grad: dout has shape \[1, 1, 3, 3\], expected \[1, 1, 2, 2\]"):
        dispatch(POOL2D_GRAD, (x, paddle.ones([1, 1, 3, 3])), {"kernel_size": (2, 2), "strides": (2, 2),
                                                                "paddings": (0, 0, 0, 0), "ceil_mode": False})


def test_a_window_in_the_padding_is_a_clear_error_naming_max_pool2d():
    with pytest.raises(InvalidArgument, match="max_pool2d"):
        F.max_pool2d(paddle.ones([1, 1, 4, 4]), kernel_size=2, stride=2, padding=2)


@pytest.mark.parametrize("op", ["pool2d", "pool2d_grad", "max_pool2d", "max_pool2d_grad"])
def test_describe_lists_the_fast_default_and_the_other_candidates(op):
    kernels = [k for k in describe(op)["kernels"] if k["backend"] == "cpu" and k["dtype"] == "float32"]
    assert next(k["name"] for k in kernels if k["default"]) == "rows"
    assert {"rows", "rows_parallel", "numba"} <= {k["name"] for k in kernels}


def test_a_dtype_without_a_pool2d_kernel_gets_max_pool2d_and_its_error():
    # bfloat16: pool2d has no kernel, so max_pool2d runs (and says what it takes), as before pool2d
    x = paddle.to_tensor(np.arange(16, dtype="float32").reshape(1, 1, 4, 4)).astype("bfloat16")
    for return_mask in (False, True):
        with pytest.raises(InvalidArgument, match="max_pool2d: x has dtype bfloat16, expected float32 or float64"):
            F.max_pool2d(x, 2, return_mask=return_mask)
