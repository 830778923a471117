"""A RunPlan calls a fused op through `prepare_fused(attrs)`: the kernel bound to the op's attrs, which
fits the inputs once per input shapes. Its answers must be the general kernel's, call after call,
whatever shapes, dtypes or input kinds come."""
from __future__ import annotations

import re

import numpy as np
import pytest

from minipaddle.framework.errors import MinipaddleError
from minipaddle.framework.kernels.cpu import fused
from minipaddle.framework.static.passes import fuse_elementwise

from .programs import CASES


def _fused_ops(case_name: str):
    case = CASES[case_name]()
    out, _ = fuse_elementwise(case.main, case.fetch)
    return [op for op in out.global_block().ops if op.type == "fused_elementwise"]


def _inputs(op, batch: int, rng, dtype=np.float32) -> list[np.ndarray]:
    block = op.block
    arrays = []
    for name in op.inputs["X"]:
        shape = tuple(batch if d == -1 else d for d in block._find_var_recursive(name)._data.shape)
        arrays.append(rng.standard_normal(shape).astype(dtype))
    return arrays


def _same(a, b) -> None:
    a, b = (a,) if not isinstance(a, tuple) else a, (b,) if not isinstance(b, tuple) else b
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.shape == y.shape and x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("case_name", ["mlp_train", "gelu_mlp_train"])
def test_the_prepared_call_equals_the_kernel_as_batch_sizes_change(case_name):
    ops = _fused_ops(case_name)
    assert ops
    rng = np.random.default_rng(0)
    for op in ops:
        call = fused.prepare_fused(op.attrs)
        for batch in (6, 3, 6, 1, 9):   # a shape seen before is only flattened: it must still be right
            arrays = _inputs(op, batch, rng)
            _same(call(*arrays), fused.fused_elementwise_kernel(*arrays, **op.attrs))


def test_inputs_of_another_dtype_take_the_general_path():
    (op, *_) = _fused_ops("gelu_mlp_train")
    call = fused.prepare_fused(op.attrs)
    rng = np.random.default_rng(1)
    call(*_inputs(op, 4, rng))                       # these shapes are fitted now
    arrays = _inputs(op, 4, rng, dtype=np.float64)   # same shapes, another dtype: unfused, as the kernel does
    with pytest.raises(MinipaddleError) as general:   # (its float32 literals meet float64 inputs)
        fused.fused_elementwise_kernel(*arrays, **op.attrs)
    with pytest.raises(type(general.value), match=re.escape(str(general.value).split(": ", 1)[1][:40])):
        call(*arrays)


def test_row_sums_of_no_rows_are_zeros():
    op = next(op for op in _fused_ops("mlp_train") if op.attrs.get("row_sums"))
    arrays = _inputs(op, 0, np.random.default_rng(2))
    result = fused.prepare_fused(op.attrs)(*arrays)
    _same(result, fused.fused_elementwise_kernel(*arrays, **op.attrs))
    assert not result[-1].any()
