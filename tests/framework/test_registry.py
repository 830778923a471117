"""The op registry: declaring ops, kernels per KernelKey, selection, describe(), missing kernels."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework import registry
from minipaddle.framework.errors import NotFound, Unimplemented
from minipaddle.framework.ops import describe, list_ops
from minipaddle.framework.registry import KernelKey

ISSUE_OPS = """add subtract multiply divide floor_divide remainder pow maximum minimum neg abs exp log log1p
sqrt rsqrt square sin cos tanh sigmoid relu leaky_relu gelu elu softplus silu clip sign floor ceil round
isnan isinf equal not_equal less_than less_equal greater_than greater_equal logical_and logical_or
logical_not where cast assign sum mean max min prod argmax argmin cumsum logsumexp var std norm softmax
log_softmax matmul bmm dot reshape transpose squeeze unsqueeze flatten expand broadcast_to concat stack
split chunk slice strided_slice gather gather_nd index_select scatter tile flip roll pad one_hot topk sort
argsort masked_fill tril triu""".split()


@pytest.mark.parametrize("name", ISSUE_OPS)
def test_every_op_of_the_foundation_is_public(name):
    assert callable(getattr(paddle, name)), f"paddle.{name} is missing"


def test_every_registered_op_has_infer_meta_and_a_cpu_kernel():
    for name in list_ops():
        op = registry.get_op(name)
        assert callable(op.infer_meta), name
        assert any(k.backend == "cpu" for k in op.kernels), f"{name} has no CPU kernel"


def test_describe_shows_signature_backward_source_and_kernels():
    d = describe("multiply")
    assert d["name"] == "multiply" and d["inputs"] == ["x", "y"]
    assert "def multiply_grad" in d["backward_source"]
    names = {(k["dtype"], k["name"]) for k in d["kernels"]}
    assert ("float32", "numpy") in names and ("float32", "numba") in names
    numba_kernel = next(k for k in d["kernels"] if k["name"] == "numba")
    assert numba_kernel["location"].endswith(".py:" + numba_kernel["location"].rsplit(":", 1)[1])
    assert "primitives.py" in numba_kernel["location"]
    assert "multiply_grad" in repr(d)


def test_describe_unknown_op_is_not_found():
    with pytest.raises(NotFound, match="no op named 'matmull'"):
        describe("matmull")


def test_missing_kernel_names_op_backend_dtype_and_lists_registered():
    with pytest.raises(Unimplemented) as e:
        paddle.abs(paddle.to_tensor([True, False]))
    msg = str(e.value)
    assert "abs: no kernel registered for backend 'cpu' and dtype bool" in msg
    assert "cpu/float32" in msg and "cpu/int64" in msg


def test_missing_kernel_error_from_select_kernel():
    op = registry.get_op("erf")
    with pytest.raises(Unimplemented, match="erf: no kernel registered for backend 'cuda' and dtype float32"):
        registry.select_kernel(op, KernelKey("cuda", np.dtype("float32")))


def test_preferred_kernel_switches_what_runs():
    op = registry.get_op("exp")
    key = KernelKey("cpu", np.dtype("float32"))
    x = paddle.to_tensor([0.0, 1.0])
    assert registry.select_kernel(op, key).name == "numpy"
    registry.set_preferred_kernel("exp", key, "numba")
    try:
        assert registry.select_kernel(op, key).name == "numba"
        np.testing.assert_allclose(paddle.exp(x).numpy(), [1.0, np.e], rtol=1e-6)
    finally:
        registry.set_preferred_kernel("exp", key, None)
    assert registry.select_kernel(op, key).name == "numpy"
    with pytest.raises(NotFound, match="no kernel 'cuda_magic'"):
        registry.set_preferred_kernel("exp", key, "cuda_magic")


def test_registering_an_op_twice_is_refused():
    with pytest.raises(ValueError, match="already registered"):
        registry.register_op("add", inputs=("x", "y"), infer_meta=lambda x, y: None)
