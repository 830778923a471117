"""GPU kernels made of other GPU kernels (kernels/cuda/composed.py) against the CPU kernels."""
from __future__ import annotations

import numpy as np
import pytest
from numba import cuda

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument

from .kernel_check import check, run_both

RNG = np.random.default_rng(5)
X = RNG.standard_normal((3, 4, 5)).astype(np.float32)


@pytest.mark.parametrize("op_name", ["any", "all"])
@pytest.mark.parametrize("axis, keepdim", [(None, False), ((1,), False), ((0, 2), True)])
def test_any_and_all_over_axes(op_name, axis, keepdim):
    data = (RNG.random((3, 4, 5)) > 0.8).astype(np.float32) * 0.5   # 0.5 is non-zero: truth is not a cast to int
    check(op_name, [data], {"axis": axis, "keepdim": keepdim})
    check(op_name, [data > 0], {"axis": axis, "keepdim": keepdim})
    check(op_name, [np.ones((3, 4, 5), np.int64)], {"axis": axis, "keepdim": keepdim})


def test_isclose_with_infinities_and_nans():
    x = np.array([1.0, 1.0 + 1e-6, np.inf, -np.inf, np.nan, 2.0, np.nan], np.float32)
    y = np.array([1.0, 1.0, np.inf, np.inf, np.nan, 2.1, 1.0], np.float32)
    for equal_nan in (False, True):
        check("isclose", [x, y], {"rtol": 1e-5, "atol": 1e-8, "equal_nan": equal_nan})
    check("isclose", [X, X[:1] + 1e-7], {"rtol": 1e-5, "atol": 1e-6, "equal_nan": False})   # broadcast


@pytest.mark.parametrize("axis, keepdim", [(None, False), ((2,), False), ((0, 1), True)])
def test_logsumexp_stays_finite_and_matches(axis, keepdim):
    big = X * 100.0
    big[0, 0, :] = -np.inf   # an all -inf row
    check("logsumexp", [big], {"axis": axis, "keepdim": keepdim}, rtol=1e-5)


@pytest.mark.parametrize("porder", [2.0, 1.0, 3.0, 0.0, np.inf, -np.inf])
def test_p_norm_for_every_order(porder):
    check("p_norm", [X], {"porder": porder, "axis": (1,), "keepdim": False}, rtol=1e-5)
    check("p_norm", [X], {"porder": porder, "axis": None, "keepdim": True}, rtol=1e-5)


def test_bmm_mv_dot_and_t_through_the_gpu_matmul():
    a, b = RNG.standard_normal((2, 3, 4)).astype(np.float32), RNG.standard_normal((2, 4, 5)).astype(np.float32)
    check("bmm", [a, b], rtol=1e-5, atol=1e-5)
    check("mv", [a[0].copy(), b[0, :, 0].copy()], rtol=1e-5, atol=1e-5)
    check("dot", [a[0].copy(), a[1].copy()], rtol=1e-5)
    check("dot", [np.arange(5, dtype=np.int64), np.arange(5, dtype=np.int64)])
    gpu, cpu = run_both("t", [a[0].copy()], {})
    np.testing.assert_array_equal(gpu.copy_to_host(), cpu)


@pytest.mark.parametrize("shifts, axis", [((2,), None), ((1, -3), (0, 2)), ((7,), (1,)), ((0,), (1,))])
def test_roll(shifts, axis):
    check("roll", [X], {"shifts": shifts, "axis": axis})


@pytest.mark.parametrize("diagonal", [-1, 0, 2])
def test_tril_and_triu_on_a_batch_of_matrices(diagonal):
    check("tril", [X], {"diagonal": diagonal})
    check("triu", [X], {"diagonal": diagonal})
    check("triu", [X > 0], {"diagonal": diagonal})


def test_masked_select_its_gradient_and_nonzero():
    mask = X[0] > 0                                       # broadcast against X
    check("masked_select", [X, mask])
    count = int(np.broadcast_to(mask, X.shape).sum())
    dout = RNG.standard_normal(count).astype(np.float32)
    check("masked_select_grad", [dout, mask], {"shape": X.shape})
    check("nonzero", [X > 0.5])
    check("nonzero", [np.zeros((2, 3), np.float32)])


def test_integer_floor_divide_and_remainder_follow_pythons_signs_and_refuse_zero():
    x = np.array([7, -7, 7, -7, 0], np.int64)
    y = np.array([2, 2, -2, -2, 3], np.int64)
    check("floor_divide", [x, y])
    check("remainder", [x, y])
    check("remainder", [x.astype(np.int32), y[:1].astype(np.int32)])
    from minipaddle.framework.kernels.cuda import composed
    with pytest.raises(InvalidArgument, match="integer division by zero"):
        composed.floor_divide_int(cuda.to_device(x), cuda.to_device(np.array([1, 0, 1, 1, 1], np.int64)))


def test_the_public_functions_run_on_the_device_with_gradients():
    x = paddle.to_tensor(X, place="gpu", stop_gradient=False)
    loss = paddle.logsumexp(x, axis=1).sum() + paddle.masked_select(x, x > 0).sum() + paddle.tril(x).sum()
    loss.backward()
    xc = paddle.to_tensor(X, stop_gradient=False)
    (paddle.logsumexp(xc, axis=1).sum() + paddle.masked_select(xc, xc > 0).sum() + paddle.tril(xc).sum()).backward()
    assert str(x.grad.place) == "Place(gpu:0)"
    np.testing.assert_allclose(x.grad.numpy(), xc.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert bool(paddle.all(paddle.isclose(x, x)))
