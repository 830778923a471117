"""A bias gradient's sum fused into the elementwise loop that produces what it sums: the fusion pass
gives the fused op extra outputs (`row_sums`) instead of keeping a `sum` op that reads the result again."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static
from minipaddle.framework.kernels.cpu import fused, fused_codegen
from minipaddle.framework.static.passes import apply_passes, fuse_elementwise

from .programs import CASES, Case, run_case


def _ops(program):
    return [op.type for op in program.global_block().ops]


def _fused_with_sums(program):
    return [op for op in program.global_block().ops
            if op.type == "fused_elementwise" and op.attrs.get("row_sums")]


def test_relu_grad_and_the_bias_sum_become_one_loop():
    case = CASES["mlp_train"]()
    out, report = fuse_elementwise(case.main, case.fetch)
    (op,) = [op for op in _fused_with_sums(out) if "relu_grad" in op.attrs["expression"]]
    assert "row_sum(" in op.attrs["expression"] and "relu_grad" not in _ops(out)
    assert _ops(out).count("sum") <= _ops(case.main).count("sum") - 1   # the hidden layer's bias sum is gone
    bias_grad = op.outputs["Out"][-1]
    assert bias_grad.endswith("@GRAD") and op.attrs["row_dims"] == 1
    entry = next(f for f in report.fused if f["kernel"] == op.attrs["kernel_name"])
    assert {"relu_grad", "sum"} <= {ref["type"] for ref in entry["from"]}
    source = op.attrs["source"]
    assert "acc0 = np.zeros(row, np.float64)" in source and "acc0[j] +=" in source
    for a, b in zip(run_case(case, case.main), run_case(case, out)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_a_training_program_with_the_default_passes_equals_the_unoptimized_one():
    case = CASES["gelu_mlp_train"]()
    out, _ = apply_passes(case.main, fetch_list=case.fetch)
    assert _fused_with_sums(out)
    for a, b in zip(run_case(case, case.main), run_case(case, out)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _sequence_case(keepdim: bool = False, axis=None) -> Case:
    """A linear layer on [batch, 5, 4] inputs: its bias gradient sums over two leading axes; and, given
    `axis`, a sum of an elementwise result the pass must leave alone (keepdim, an inner axis)."""
    paddle.seed(3)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 5, 4], "float32")
        h = F.relu(paddle.nn.Linear(4, 6)(x))
        loss = paddle.mean(h * h)
        if axis is not None:
            loss = loss + paddle.mean(paddle.sum(h * 3.0 + 1.0, axis=axis, keepdim=keepdim))
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)

    def feed(rng):
        return {"x": rng.standard_normal((3, 5, 4)).astype(np.float32)}
    return Case(main, startup, [loss], feed, steps=2)


def test_a_bias_over_two_leading_axes_sums_both_in_the_loop():
    case = _sequence_case()
    out, _ = fuse_elementwise(case.main, case.fetch)
    sums = _fused_with_sums(out)
    assert sums and all(op.attrs["row_dims"] == 1 for op in sums)
    for a, b in zip(run_case(case, case.main), run_case(case, out)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("axis, keepdim", [(1, False), (-1, False), ([1, 2], True), ([0, 1, 2], False)])
def test_sums_that_keep_the_leading_axis_or_no_axis_stay_sum_ops(axis, keepdim):
    case = _sequence_case(keepdim=keepdim, axis=axis)
    out, _ = fuse_elementwise(case.main, case.fetch)
    forward_sums = [op for op in out.global_block().ops if op.type == "sum" and op.role == "forward"]
    assert forward_sums   # no leading dim to accumulate over in the loop, or no row to keep: it stays
    for a, b in zip(run_case(case, case.main), run_case(case, out)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("axis, keepdim, row_axes", [(0, True, []), ([0, 1], True, []), ([0, 2], False, [1]),
                                                      ([0, 2], True, [1])])
def test_sums_over_the_leading_axis_and_inner_ones_join_the_loop(axis, keepdim, row_axes):
    case = _sequence_case(keepdim=keepdim, axis=axis)
    out, _ = fuse_elementwise(case.main, case.fetch)
    assert not [op for op in out.global_block().ops if op.type == "sum" and op.role == "forward"]
    (op,) = [op for op in _fused_with_sums(out) if op.role == "forward"]
    assert op.attrs["row_axes"] == row_axes and op.attrs["row_keepdim"] == keepdim
    for a, b in zip(run_case(case, case.main), run_case(case, out)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


_STEPS = [{"type": "relu_grad", "attrs": {}, "args": ["x0", "x1"], "out": "t0"},
          {"type": "multiply", "attrs": {}, "args": ["t0", "=0.5"], "out": "t1"}]


def _run(arrays, row_dims: int, dtype=np.float32, steps=_STEPS, kinds=("a", "a")):
    name, source = fused_codegen.generate_source(steps, list(kinds), ["t0", "t1"], dtype, [0, 1])
    return fused.fused_elementwise_kernel(*arrays, kernel_name=name, source=source, input_kinds=list(kinds),
                                          steps=steps, outputs=["t0", "t1"], dtype=dtype, row_sums=[0, 1],
                                          row_dims=row_dims)


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(0, 7), min_size=2, max_size=4), row_dims=st.integers(1, 3),
       dtype=st.sampled_from([np.float32, np.float64]))
def test_the_loop_and_numpy_agree_on_any_shape(shape, row_dims, dtype):
    row_dims = min(row_dims, len(shape) - 1)
    rng = np.random.default_rng(len(shape))
    y, dout = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
    t0, t1, s0, s1 = _run([y, dout], row_dims, dtype)
    want = np.where(y > 0, dout, 0).astype(dtype)
    axes = tuple(range(len(shape) - row_dims))
    np.testing.assert_array_equal(t0, want)
    np.testing.assert_allclose(s0, want.sum(axis=axes), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(s1, (want * dtype(0.5)).sum(axis=axes), rtol=1e-5, atol=1e-5)
    assert s0.shape == tuple(shape[len(shape) - row_dims:]) and s0.dtype == dtype


def test_inputs_the_loop_cannot_take_run_the_ops_and_sum_them():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)        # declared one element: the loop does not take it
    steps = [{"type": "add", "attrs": {}, "args": ["x0", "x1"], "out": "t0"},
             {"type": "relu", "attrs": {}, "args": ["t0"], "out": "t1"}]
    t0, t1, s0, s1 = _run([x, b], 1, steps=steps, kinds=("a", "s"))
    np.testing.assert_allclose(s0, (x + b).sum(axis=0), rtol=1e-5)
    np.testing.assert_allclose(s1, np.maximum(x + b, 0).sum(axis=0), rtol=1e-5)
    assert s0.shape == (3,) and t1.shape == (4, 3)


def test_a_float32_row_sum_accumulates_in_float64():
    n = 1 << 16
    y = np.ones((n, 2), np.float32)
    dout = np.full((n, 2), 0.1, np.float32)
    _, _, s0, _ = _run([y, dout], 1)
    exact = np.float64(np.float32(0.1)) * n
    assert abs(float(s0[0]) - exact) <= abs(exact) * 1e-7   # a float32 running sum would drift ~1e-4


def _conv_case() -> Case:
    """conv2d + bias + relu, trained: the bias is one value per channel (a 'p' input of the fused loop) and
    its gradient sums over N, H and W (the loop accumulates over N, then H and W are summed)."""
    paddle.seed(3)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 2, 5, 5], "float32")
        h = F.relu(paddle.nn.Conv2D(2, 3, 3, padding=1)(x))
        loss = paddle.mean(h * h)
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)

    def feed(rng):
        return {"x": rng.standard_normal((4, 2, 5, 5)).astype(np.float32)}
    return Case(main, startup, [loss], feed, steps=3)


def test_a_conv_bias_is_read_per_channel_and_its_gradient_summed_in_the_loop():
    case = _conv_case()
    out, _ = fuse_elementwise(case.main, case.fetch)
    ops = out.global_block().ops
    forward = next(op for op in ops if op.type == "fused_elementwise" and op.role == "forward")
    assert forward.attrs["input_kinds"] == ["a", "p"]          # no full-size copy of the bias
    (grad,) = [op for op in _fused_with_sums(out) if "relu_grad" in op.attrs["expression"]]
    assert (grad.attrs["row_dims"], grad.attrs["row_axes"], grad.attrs["row_keepdim"]) == (3, [1, 2], True)
    assert "relu_grad" not in _ops(out)
    for a, b in zip(run_case(case, case.main), run_case(case, out)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 3), c=st.integers(1, 4), hw=st.tuples(st.integers(1, 5), st.integers(1, 5)),
       keepdim=st.booleans())
def test_a_plane_input_and_a_channel_sum_agree_with_numpy(n, c, hw, keepdim):
    rng = np.random.default_rng(c)
    x = rng.standard_normal((n, c) + hw).astype(np.float32)
    b = rng.standard_normal((1, c, 1, 1)).astype(np.float32)
    steps = [{"type": "add", "attrs": {}, "args": ["x0", "x1"], "out": "t0"},
             {"type": "relu", "attrs": {}, "args": ["t0"], "out": "t1"}]
    name, source = fused_codegen.generate_source(steps, ["a", "p"], ["t0", "t1"], np.float32, [1])
    t0, t1, s1 = fused.fused_elementwise_kernel(
        x, b, kernel_name=name, source=source, input_kinds=["a", "p"], steps=steps, outputs=["t0", "t1"],
        dtype=np.float32, row_sums=[1], row_dims=3, row_axes=[1, 2], row_keepdim=keepdim)
    want = np.maximum(x + b, 0)
    np.testing.assert_allclose(t1, want, rtol=1e-6)
    np.testing.assert_allclose(s1, want.sum(axis=(0, 2, 3), keepdims=keepdim), rtol=1e-5, atol=1e-5)
    assert s1.shape == ((1, c, 1, 1) if keepdim else (c,))


def test_a_plane_input_of_the_wrong_length_runs_the_ops_instead():
    x = np.ones((2, 3, 4, 4), np.float32)
    b = np.ones((1, 2, 1, 1), np.float32)        # 2 channels against 3: the ops' own broadcast error
    steps = [{"type": "add", "attrs": {}, "args": ["x0", "x1"], "out": "t0"}]
    name, source = fused_codegen.generate_source(steps, ["a", "p"], ["t0"], np.float32)
    assert fused.fit_inputs((x, b), ["a", "p"], np.dtype(np.float32), fused._expand_host) is None
    with pytest.raises(Exception, match="add"):
        fused.fused_elementwise_kernel(x, b, kernel_name=name, source=source, input_kinds=["a", "p"], steps=steps,
                                       outputs=["t0"], dtype=np.float32)
