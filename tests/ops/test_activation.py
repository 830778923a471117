"""Activation ops: forward vs numpy on drawn shapes and layouts, gradients, double grads,
PyTorch, Paddle's clip gradient rule, kernel choice, numba's on-disk cache, and every error."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.ops import describe

from .opcheck import arrays, assert_forward, check_double_grad, check_grad, torch_or_skip

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _softplus(x, beta=1.0, threshold=20.0):
    bx = beta * x
    return np.where(bx > threshold, x, np.logaddexp(0.0, bx) / beta)


# name -> (numpy reference in float64, kwargs, input range, twice differentiable?)
ACTIVATIONS = {
    "relu": (lambda x: np.maximum(x, 0), {}, (-3, 3), False),
    "relu6": (lambda x: np.clip(x, 0, 6), {}, (-3, 9), False),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), {}, (-8, 8), True),
    "leaky_relu": (lambda x, negative_slope: np.where(x > 0, x, negative_slope * x),
                   {"negative_slope": 0.2}, (-3, 3), False),
    "elu": (lambda x, alpha: np.where(x > 0, x, alpha * np.expm1(x)), {"alpha": 0.7}, (-4, 3), True),
    "softplus": (_softplus, {"beta": 2.0, "threshold": 4.0}, (-4, 4), True),
    "gelu": (lambda x, approximate: 0.5 * x * (1 + _erf(x / math.sqrt(2))), {"approximate": False}, (-4, 4), True),
    "silu": (lambda x: x / (1 + np.exp(-x)), {}, (-8, 8), True),
    "hardtanh": (lambda x, min, max: np.clip(x, min, max), {"min": -0.5, "max": 2.0}, (-3, 3), False),
    "hardsigmoid": (lambda x, slope, offset: np.clip(slope * x + offset, 0, 1),
                    {"slope": 0.2, "offset": 0.5}, (-4, 4), False),
    "hardswish": (lambda x: x * np.clip(x + 3, 0, 6) / 6, {}, (-5, 5), True),
    "mish": (lambda x: x * np.tanh(np.logaddexp(0.0, x)), {}, (-5, 5), True),
    "tanhshrink": (lambda x: x - np.tanh(x), {}, (-3, 3), True),
    "softsign": (lambda x: x / (1 + np.abs(x)), {}, (-3, 3), True),
    "clip": (lambda x, min, max: np.clip(x, min, max), {"min": -1.0, "max": 1.5}, (-3, 3), False),
}


def gelu_tanh_reference(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def wrap(a: np.ndarray) -> paddle.Tensor:
    """A tensor over `a` itself, keeping its (maybe non-contiguous) layout; to_tensor would copy."""
    return paddle.Tensor._wrap(a)


# ---- forward ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_forward_matches_numpy(name, data):
    ref, kwargs, (lo, hi), _ = ACTIVATIONS[name]
    shape = data.draw(st.sampled_from([(), (0,), (5,), (2, 3), (3, 1, 4), (2, 0, 3)]))
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    x = data.draw(arrays(shape, dtype, lo, hi))
    out = getattr(paddle, name)(wrap(x), **kwargs)
    expected = np.asarray(ref(x.astype(np.float64), **kwargs)).astype(dtype)
    assert_forward(out, expected, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-6)


@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_gelu_tanh_approximation_matches_its_formula(data):
    shape = data.draw(st.sampled_from([(), (7,), (2, 3)]))
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    x = data.draw(arrays(shape, dtype, -4, 4))
    out = paddle.gelu(wrap(x), approximate=True)
    assert_forward(out, gelu_tanh_reference(x.astype(np.float64)).astype(dtype), rtol=1e-5, atol=1e-6)
    # the two forms differ, by at most ~1e-3 on this range
    assert np.abs(out.numpy() - paddle.gelu(wrap(x)).numpy()).max(initial=0) < 2e-3


def test_special_values_follow_paddle():
    x = paddle.to_tensor([-np.inf, -1000.0, 0.0, 1000.0, np.inf])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warnings from exp of large inputs
        assert paddle.relu(x).numpy().tolist() == [0, 0, 0, 1000, np.inf]
        assert paddle.sigmoid(x).numpy().tolist() == [0, 0, 0.5, 1, 1]
        assert paddle.softplus(x).numpy().tolist() == [0, 0, np.float32(math.log(2.0)), 1000, np.inf]
    assert paddle.elu(x, alpha=0.5).numpy().tolist() == [-0.5, -0.5, 0, 1000, np.inf]
    assert paddle.relu6(x).numpy().tolist() == [0, 0, 0, 6, 6]
    assert np.isnan(paddle.relu(paddle.to_tensor([np.nan])).numpy()).all()  # NaN stays NaN


def test_float16_runs_through_float32_and_keeps_its_dtype():
    x = np.array([-2.0, -0.5, 0.5, 2.0], np.float16)
    for name, (ref, kwargs, _, _) in ACTIVATIONS.items():
        out = getattr(paddle, name)(paddle.to_tensor(x), **kwargs)
        assert out.dtype == paddle.float16, name
        np.testing.assert_allclose(out.numpy(), ref(x.astype(np.float64), **kwargs), rtol=2e-3, atol=2e-3,
                                   err_msg=name)


# ---- gradients -------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_grad_matches_differences(name):
    _, kwargs, (lo, hi), twice = ACTIVATIONS[name]
    x = np.random.default_rng(1).uniform(lo, hi, (3, 4)) + 0.013  # random points miss the kinks
    check_grad(getattr(paddle, name), [x], kwargs=kwargs)
    if twice:
        check_double_grad(getattr(paddle, name), [x], kwargs=kwargs)


def test_gelu_tanh_grad_and_double_grad():
    x = np.random.default_rng(2).uniform(-4, 4, (3, 4))
    check_grad(paddle.gelu, [x], kwargs={"approximate": True})
    check_double_grad(paddle.gelu, [x], kwargs={"approximate": True})


def test_softplus_grad_on_both_sides_of_threshold():
    x = np.array([-3.0, 0.3, 1.9, 2.1, 5.0])  # beta * x crosses threshold 2 between 1.9 and 2.1
    check_grad(paddle.softplus, [x], kwargs={"beta": 1.0, "threshold": 2.0})
    check_double_grad(paddle.softplus, [x], kwargs={"beta": 1.0, "threshold": 2.0})


def test_piecewise_linear_first_grad_is_not_differentiable_again():
    x = paddle.to_tensor([-1.0, 2.0, 7.0], stop_gradient=False)
    for fn in (paddle.relu, paddle.relu6, lambda t: paddle.clip(t, 0, 5)):
        (g,) = paddle.grad([fn(x).sum()], [x], create_graph=True)
        assert g.stop_gradient  # a mask times dout: nothing to differentiate w.r.t. x
    np.testing.assert_array_equal(paddle.grad([paddle.relu6(x).sum()], [x])[0].numpy(), [0, 1, 0])


def test_relu_gradient_is_zero_at_zero():
    x = paddle.to_tensor([-1.0, 0.0, 1.0], stop_gradient=False)
    paddle.relu(x).sum().backward()
    assert x.grad.numpy().tolist() == [0, 0, 1]


def test_leaky_relu_slope_applies_at_zero_as_in_paddle():
    x = paddle.to_tensor([-1.0, 0.0, 1.0], stop_gradient=False)
    paddle.leaky_relu(x, 0.1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.1, 0.1, 1.0])


# ---- clip ------------------------------------------------------------------------------
def test_clip_gradient_passes_only_strictly_inside_the_bounds():
    # Paddle's ClipGradFunctor: dout where min < x < max, else 0 -- also AT the bounds (PyTorch gives 1 there)
    x = paddle.to_tensor([-2.0, -1.0, 0.0, 1.0, 2.0], stop_gradient=False)
    paddle.clip(x, -1.0, 1.0).sum().backward()
    assert x.grad.numpy().tolist() == [0, 0, 1, 0, 0]
    y = paddle.to_tensor([-2.0, 0.0, 5.0], stop_gradient=False)
    paddle.clip(y, min=-1.0).sum().backward()  # max=None: no upper bound
    assert y.grad.numpy().tolist() == [0, 1, 1]


def test_clip_open_bounds_and_tensor_bounds():
    x = paddle.to_tensor([[1.2, 3.5], [4.5, 6.4]])
    np.testing.assert_allclose(paddle.clip(x, min=3.5, max=5.0).numpy(), [[3.5, 3.5], [4.5, 5.0]])
    np.testing.assert_allclose(paddle.clip(x, min=2.5).numpy(), [[2.5, 3.5], [4.5, 6.4]], rtol=1e-6)
    np.testing.assert_allclose(paddle.clip(x, max=4.0).numpy(), [[1.2, 3.5], [4.0, 4.0]], rtol=1e-6)
    assert paddle.clip(x).numpy().tolist() == x.numpy().tolist()
    low, high = paddle.to_tensor(2.0), paddle.to_tensor([5.0])
    np.testing.assert_allclose(paddle.clip(x, low, high).numpy(), [[2.0, 3.5], [4.5, 5.0]])


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_clip_works_on_int_tensors_and_keeps_their_dtype(dtype):
    x = paddle.to_tensor([-9, 1, 5, 100], dtype=dtype)
    out = paddle.clip(x, 0, 10)
    assert out.dtype == getattr(paddle, dtype)
    assert out.numpy().tolist() == [0, 1, 5, 10]
    assert paddle.clip(x, min=2).numpy().tolist() == [2, 2, 5, 100]
    assert paddle.clip(x, max=-1.5).numpy().tolist() == [-9, -1, -1, -1]  # bounds truncate, as a C cast
    assert paddle.clip(x, -1e30, 1e30).numpy().tolist() == [-9, 1, 5, 100]  # huge bounds saturate


def test_clip_and_relu_and_sigmoid_are_tensor_methods_with_inplace_forms():
    x = paddle.to_tensor([-2.0, 0.5, 3.0])
    assert x.clip(0.0, 1.0).numpy().tolist() == [0.0, 0.5, 1.0]
    assert x.relu().numpy().tolist() == [0.0, 0.5, 3.0]
    np.testing.assert_allclose(x.sigmoid().numpy(), 1 / (1 + np.exp(-x.numpy())), rtol=1e-6)
    y = paddle.to_tensor([-2.0, 0.5, 3.0])
    assert y.clip_(max=1.0) is y
    assert y.numpy().tolist() == [-2.0, 0.5, 1.0]


# ---- PyTorch -----------------------------------------------------------------------------
TORCH = {
    "relu": ("relu", {}), "relu6": ("relu6", {}), "sigmoid": ("sigmoid", {}),
    "leaky_relu": ("leaky_relu", {"negative_slope": 0.2}), "elu": ("elu", {"alpha": 0.7}),
    "softplus": ("softplus", {"beta": 2.0, "threshold": 4.0}), "gelu": ("gelu", {}),
    "silu": ("silu", {}), "hardswish": ("hardswish", {}), "mish": ("mish", {}),
    "tanhshrink": ("tanhshrink", {}), "softsign": ("softsign", {}),
}


@pytest.mark.parametrize("name", sorted(TORCH))
def test_forward_and_grad_match_torch(name):
    torch = torch_or_skip()
    torch_name, kwargs = TORCH[name]
    x = np.random.default_rng(3).uniform(-5, 8, (4, 5)) + 0.013
    cot = np.random.default_rng(4).uniform(-1, 1, (4, 5))
    xt = torch.tensor(x, requires_grad=True)
    tout = getattr(torch.nn.functional, torch_name)(xt, **kwargs)
    tout.backward(torch.tensor(cot))
    xp = paddle.to_tensor(x, stop_gradient=False)
    out = getattr(paddle, name)(xp, **kwargs)
    out.backward(paddle.to_tensor(cot))
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(xp.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_gelu_tanh_matches_torch():
    torch = torch_or_skip()
    x = np.random.default_rng(5).uniform(-4, 4, (16,)).astype(np.float32)
    want = torch.nn.functional.gelu(torch.tensor(x), approximate="tanh").numpy()
    np.testing.assert_allclose(paddle.gelu(paddle.to_tensor(x), approximate=True).numpy(), want, rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(paddle.gelu(paddle.to_tensor(x), approximate="tanh").numpy(), want, rtol=1e-5,
                               atol=1e-6)


# ---- kernels -----------------------------------------------------------------------------
def _kernels(name: str, dtype: str = "float32") -> dict:
    """The serial kernels, in priority order; the autotuner's prange candidates ("numba_parallel",
    never the default) are tested in tests/autotune."""
    from minipaddle.framework.registry import KernelKey, get_op
    return {k.name: k.fn for k in get_op(name).kernels[KernelKey("cpu", np.dtype(dtype))]
            if k.name != "numba_parallel"}


def test_gelu_runs_a_numba_ufunc_built_from_its_primitive():
    d = describe("gelu")
    cpu = [k for k in d["kernels"] if k["backend"] == "cpu"]
    serial = [k for k in cpu if k["name"] != "numba_parallel"]   # (bfloat16: the float32 one, wrapped)
    assert [k["dtype"] for k in serial] == ["bfloat16", "float16", "float32", "float64"]
    for k in serial:
        assert k["name"] == "numba" and k["default"]
        assert k["location"].endswith(os.path.join("ops", "primitives.py") + f":{_line_of('gelu')}")
    parallel = [k for k in cpu if k["name"] == "numba_parallel"]
    assert [k["dtype"] for k in parallel] == ["float32", "float64"] and not any(k["default"] for k in parallel)
    gpu = [k for k in d["kernels"] if k["backend"] == "gpu"]     # one definition, every device
    assert [k["dtype"] for k in gpu] == ["float16", "float32", "float64"]
    assert all(k["location"].endswith(os.path.join("ops", "primitives.py") + f":{_line_of('gelu')}") for k in gpu)


def _line_of(primitive: str) -> int:
    import inspect

    from minipaddle.framework.ops import primitives
    return inspect.getsourcelines(getattr(primitives, primitive))[1]


@pytest.mark.parametrize("name, kwargs, default", [
    ("relu", {}, "numba"), ("sigmoid", {}, "numpy"), ("clip", {"min": -1.0, "max": 2.0}, "numpy"),
    ("hardtanh", {"min": -1.0, "max": 2.0}, "numpy")])
def test_measured_default_kernel_agrees_with_the_other(name, kwargs, default):
    x = np.random.default_rng(6).uniform(-8, 8, (257,)).astype(np.float32)
    kernels = _kernels(name)
    assert sorted(kernels) == ["numba", "numpy"]
    assert next(iter(kernels)) == default  # sorted by priority: the first is the default
    np.testing.assert_allclose(kernels["numpy"](x, **kwargs), kernels["numba"](x, **kwargs), rtol=1e-6, atol=1e-7)


def test_clip_kernels_agree_on_ints_and_open_bounds():
    x = np.arange(-5, 6, dtype=np.int32)
    kernels = _kernels("clip", "int32")
    for kwargs in ({"min": -2, "max": 3}, {"min": None, "max": 1.7}, {"min": -1e30, "max": None}):
        np.testing.assert_array_equal(kernels["numpy"](x, **kwargs), kernels["numba"](x, **kwargs))
        assert kernels["numpy"](x, **kwargs).dtype == kernels["numba"](x, **kwargs).dtype == np.int32


_CACHE_PROBE = """
import json, numba.core.compiler as compiler
compiled, real = [], compiler.compile_extra
def spy(typingctx, targetctx, func, *args, **kwargs):
    compiled.append(func.__name__)
    return real(typingctx, targetctx, func, *args, **kwargs)
compiler.compile_extra = spy
import minipaddle as paddle
x = paddle.to_tensor([-1.0, 0.5])
paddle.gelu(x); paddle.leaky_relu(x, 0.1); paddle.softplus(x, 2.0)
print(json.dumps(compiled))
"""


def test_a_fresh_process_loads_the_kernels_from_numbas_cache(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""),
               NUMBA_CACHE_DIR=str(tmp_path))  # an empty cache: the first process must compile

    def compiled_in_a_new_process() -> list:
        done = subprocess.run([sys.executable, "-c", _CACHE_PROBE], capture_output=True, text=True, env=env,
                              cwd=root, timeout=240, check=False)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    first = compiled_in_a_new_process()
    assert any(name.startswith("gelu") for name in first), first
    assert any(name.startswith("leaky_relu") for name in first), first
    assert compiled_in_a_new_process() == [], "compiled again instead of loading from the cache"


# ---- errors --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(set(ACTIVATIONS) - {"clip"}))
def test_int_input_is_rejected_naming_the_op(name):
    _, kwargs, _, _ = ACTIVATIONS[name]
    with pytest.raises(InvalidArgument, match=f"{name}: argument 'x' has dtype int64, expected a floating"):
        getattr(paddle, name)(paddle.to_tensor([1, 2]), **kwargs)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8"])
def test_clip_rejects_other_dtypes(dtype):
    with pytest.raises(InvalidArgument, match=f"clip: argument 'x' has dtype {dtype}, expected one of float16"):
        paddle.clip(paddle.to_tensor(np.array([1, 0], dtype)), 0, 1)


def test_non_tensor_input_is_rejected():
    with pytest.raises(InvalidArgument, match="relu: argument 'x' got list, expected a Tensor"):
        paddle.relu([1.0, -1.0])


@pytest.mark.parametrize("call, message", [
    (lambda x: paddle.leaky_relu(x, "0.1"), "leaky_relu: 'negative_slope' got str, expected a number"),
    (lambda x: paddle.elu(x, alpha=None), "elu: 'alpha' got NoneType, expected a number"),
    (lambda x: paddle.softplus(x, beta=0), "softplus: 'beta' is 0"),
    (lambda x: paddle.softplus(x, threshold=[20]), "softplus: 'threshold' got list"),
    (lambda x: paddle.gelu(x, approximate=1), "gelu: 'approximate' got 1, expected True or False"),
    (lambda x: paddle.clip(x, 2.0, 1.0), r"clip: min \(2.0\) is greater than max \(1.0\)"),
    (lambda x: paddle.clip(x, min="0"), "clip: 'min' got str, expected a number"),
    (lambda x: paddle.clip(x, max=True), "clip: 'max' got bool, expected a number"),
    (lambda x: paddle.clip(x, paddle.to_tensor([0.0, 1.0])), r"clip: 'min' is a tensor of shape \[2\]"),
    (lambda x: paddle.hardtanh(x, 1.0, -1.0), r"hardtanh: min \(1.0\) is greater than max \(-1.0\)"),
    (lambda x: paddle.hardsigmoid(x, slope="a"), "hardsigmoid: 'slope' got str"),
])
def test_bad_attributes_are_rejected_naming_the_op(call, message):
    with pytest.raises(InvalidArgument, match=message):
        call(paddle.to_tensor([1.0, -1.0]))


def test_relu_grad_is_a_select_differentiable_in_dout():
    x = paddle.to_tensor([-1.0, 2.0, 3.0], stop_gradient=False)
    dout = paddle.to_tensor([np.inf, 5.0, -2.0], stop_gradient=False)
    (g,) = paddle.grad([paddle.relu(x)], [x], grad_outputs=[dout], create_graph=True)
    assert g.numpy().tolist() == [0.0, 5.0, -2.0]  # an inf where x < 0 is dropped, not turned into NaN
    (h,) = paddle.grad([(g * paddle.to_tensor([1.0, 2.0, 3.0])).sum()], [dout])
    assert h.numpy().tolist() == [0.0, 2.0, 3.0]
