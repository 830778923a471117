"""Shared machinery for op tests: numeric gradients, double-grad checks, hypothesis strategies.

Every op test follows one recipe (after MyGrad's and MiniTorch's test suites):
  - forward against numpy on hypothesis-drawn shapes (broadcast, 0-d, empty, non-contiguous);
  - `check_grad`: the analytic gradient against central differences, in float64;
  - `check_double_grad`: grads of grads (create_graph=True) against differences of the grad;
  - against PyTorch CPU when it is installed (`torch_or_skip`).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minipaddle as paddle

try:
    import torch
except ImportError:  # PyTorch is an optional oracle
    torch = None


def torch_or_skip():
    if torch is None:
        pytest.skip("PyTorch is not installed")
    return torch


# ---- strategies ---------------------------------------------------------------------
def shapes(min_dims: int = 0, max_dims: int = 4, min_side: int = 0, max_side: int = 4):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def broadcast_pair(min_dims: int = 0, max_dims: int = 4, min_side: int = 0, max_side: int = 4):
    """Two shapes that broadcast together (either side may have fewer dims or 1s)."""
    return hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=min_dims, max_dims=max_dims,
                                             min_side=min_side, max_side=max_side).map(
        lambda b: b.input_shapes)


@st.composite
def arrays(draw, shape, dtype="float32", low=-3.0, high=3.0, layout=True):
    """A numpy array of `shape`; sometimes non-contiguous (a transposed or strided view)."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    kind = draw(st.sampled_from(["c", "t", "s"])) if layout else "c"
    if kind == "t" and len(shape) >= 2:
        base = _fill(rng, shape[::-1], dtype, low, high)
        return base.T
    if kind == "s" and len(shape) >= 1:
        big = (shape[0] * 2,) + tuple(shape[1:])
        return _fill(rng, big, dtype, low, high)[::2]
    return _fill(rng, tuple(shape), dtype, low, high)


def _fill(rng, shape, dtype, low, high):
    if dtype.kind == "f":
        return rng.uniform(low, high, shape).astype(dtype)
    if dtype.kind == "b":
        return np.asarray(rng.random(shape) < 0.5)
    return rng.integers(int(low), int(high) + 1, shape).astype(dtype)


# ---- gradient checks ----------------------------------------------------------------
def numeric_grad(fn, arrays_: list[np.ndarray], cotangent: np.ndarray, eps: float = 1e-6) -> list[np.ndarray]:
    """d(sum(fn(*arrays) * cotangent))/d(arrays) by central differences (float64)."""
    grads = []
    for a in arrays_:
        g = np.zeros_like(a)
        flat = a.reshape(-1)
        gflat = g.reshape(-1)
        for j in range(flat.size):
            old = flat[j]
            flat[j] = old + eps
            plus = np.sum(fn(*arrays_) * cotangent)
            flat[j] = old - eps
            minus = np.sum(fn(*arrays_) * cotangent)
            flat[j] = old
            gflat[j] = (plus - minus) / (2 * eps)
        grads.append(g)
    return grads


def _forward_np(api, kwargs, n_out_index=None):
    def f(*arrs):
        ts = [paddle.to_tensor(a) for a in arrs]
        out = api(*ts, **kwargs)
        if n_out_index is not None:
            out = out[n_out_index]
        return out.numpy().astype(np.float64)
    return f


def check_grad(api, inputs: list[np.ndarray], *, kwargs=None, wrt=None, out_index=None,
               rtol: float = 1e-4, atol: float = 1e-6, seed: int = 0) -> None:
    """Assert paddle.grad of api(*inputs, **kwargs) matches central differences, in float64."""
    kwargs = kwargs or {}
    arrs = [np.array(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else np.array(a) for a in inputs]
    wrt = list(range(len(arrs))) if wrt is None else wrt
    ts = [paddle.to_tensor(a, stop_gradient=(i not in wrt)) for i, a in enumerate(arrs)]
    out = api(*ts, **kwargs)
    if out_index is not None:
        out = out[out_index]
    rng = np.random.default_rng(seed)
    cot = rng.uniform(-1, 1, out.shape).astype(np.float64)
    analytic = paddle.grad([out], [ts[i] for i in wrt], grad_outputs=[paddle.to_tensor(cot)],
                           allow_unused=True)
    fwd = _forward_np(api, kwargs, out_index)

    def partial(*wrt_arrays):
        full = list(arrs)
        for k, i in enumerate(wrt):
            full[i] = wrt_arrays[k]
        return fwd(*full)

    numeric = numeric_grad(partial, [arrs[i].copy() for i in wrt], cot)
    for k, i in enumerate(wrt):
        got = np.zeros_like(numeric[k]) if analytic[k] is None else analytic[k].numpy()
        np.testing.assert_allclose(got, numeric[k], rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {i} differs from central differences")


def check_double_grad(api, inputs: list[np.ndarray], *, kwargs=None, wrt=None, out_index=None,
                      rtol: float = 1e-4, atol: float = 1e-6, seed: int = 1) -> None:
    """Assert the grad of (grad · w) matches central differences of the first grad (float64)."""
    kwargs = kwargs or {}
    arrs = [np.array(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else np.array(a) for a in inputs]
    wrt = list(range(len(arrs))) if wrt is None else wrt
    rng = np.random.default_rng(seed)

    def first_grads(*wrt_arrays, keep_graph=False):
        full = list(arrs)
        for k, i in enumerate(wrt):
            full[i] = wrt_arrays[k]
        ts = [paddle.to_tensor(a, stop_gradient=(i not in wrt)) for i, a in enumerate(full)]
        out = api(*ts, **kwargs)
        if out_index is not None:
            out = out[out_index]
        cot = paddle.to_tensor(np.random.default_rng(seed).uniform(-1, 1, out.shape))
        gs = paddle.grad([out], [ts[i] for i in wrt], grad_outputs=[cot], create_graph=True, allow_unused=True)
        return ts, gs

    ts, gs = first_grads(*[arrs[i] for i in wrt])
    weights = [rng.uniform(-1, 1, arrs[i].shape) for i in wrt]
    total = None
    for g, w in zip(gs, weights):
        if g is None or g.stop_gradient:
            continue
        term = (g * paddle.to_tensor(w)).sum()
        total = term if total is None else total + term
    if total is None:
        return  # the first gradient does not depend on the inputs (a linear op): nothing to check
    analytic = paddle.grad([total], [ts[i] for i in wrt], allow_unused=True)

    def scalar_of(*wrt_arrays):
        _, g2 = first_grads(*wrt_arrays)
        return np.array(sum(float(np.sum(g.numpy() * w)) for g, w in zip(g2, weights) if g is not None))

    numeric = numeric_grad(scalar_of, [arrs[i].copy() for i in wrt], np.array(1.0))
    for k, i in enumerate(wrt):
        got = np.zeros_like(numeric[k]) if analytic[k] is None else analytic[k].numpy()
        np.testing.assert_allclose(got, numeric[k], rtol=rtol, atol=atol,
                                   err_msg=f"second derivative for input {i} differs from differences")


def assert_forward(out: paddle.Tensor, expected: np.ndarray, rtol: float = 1e-6, atol: float = 1e-6) -> None:
    """Output matches numpy in shape, dtype and values (NaNs must sit in the same places)."""
    expected = np.asarray(expected)
    assert out.shape == list(expected.shape), f"shape {out.shape} != {list(expected.shape)}"
    assert out.numpy().dtype == expected.dtype, f"dtype {out.numpy().dtype} != {expected.dtype}"
    np.testing.assert_allclose(out.numpy(), expected, rtol=rtol, atol=atol, equal_nan=True)
