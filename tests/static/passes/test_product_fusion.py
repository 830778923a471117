"""A skinny matmul (contracted dim K <= fused_product.SMALL_K) whose product only a fused group reads is
computed inside that group's loop: `relu_grad(h, dout @ W^T)` behind a narrow output layer, or the
first layer of a model with few inputs, is one loop instead of a GEMM call and a loop."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.kernels.cpu import fused, fused_codegen, fused_product
from minipaddle.framework.static.passes import apply_passes, fuse_elementwise

from .programs import Case, run_case


def _classifier(n_in: int, n_classes: int = 10, fetch_hidden: bool = False) -> Case:
    paddle.seed(3)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, n_in], "float32")
        y = static.data("y", [None], "int64")
        h = F.relu(paddle.nn.Linear(n_in, 24)(x))
        loss = F.cross_entropy(paddle.nn.Linear(24, n_classes)(h), y)
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    fetch = [loss, h] if fetch_hidden else [loss]

    def feed(rng):
        return {"x": rng.standard_normal((9, n_in)).astype(np.float32), "y": rng.integers(0, n_classes, 9)}
    return Case(main, startup, fetch, feed, steps=3)


def _products(program) -> list:
    return [op for op in program.global_block().ops if op.attrs.get("product")]


def _same_training(case: Case, optimized) -> None:
    for a, b in zip(run_case(case, case.main), run_case(case, optimized)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_the_input_gradient_of_a_narrow_layer_is_computed_in_the_relu_grad_loop():
    case = _classifier(n_in=32)
    out, _ = apply_passes(case.main, fetch_list=case.fetch)
    (op,) = _products(out)
    assert op.attrs["product"] == [10, False, True]            # dout @ W^T: K = the 10 classes
    assert op.attrs["input_kinds"][:2] == ["L", "R"] and op.attrs.get("row_sums") == [0]  # and the bias sum
    assert "matmul(x0, x1.T, k=10)" in op.attrs["source"] and "relu_grad" in op.attrs["expression"]
    w2 = case.main.global_block().all_parameters()[2].name
    assert not [o for o in out.global_block().ops if o.type == "matmul" and w2 in o.input_names()]
    assert "pa9 * rt[9 * row + j]" in op.attrs["source"]      # K multiply-adds written out in the loop
    _same_training(case, out)
    _, fusion = fuse_elementwise(case.main, case.fetch)
    assert len(fusion.details["products_in_loop"]) == 1
    assert "1 kernel(s) compute a matmul with K <= 16 in the loop" in fusion.summary


def test_a_skinny_first_layer_is_one_loop_with_no_full_size_input():
    case = _classifier(n_in=3)
    out, _ = fuse_elementwise(case.main, case.fetch)
    first = out.global_block().ops[0]
    assert first.type == "fused_elementwise" and first.attrs["product"] == [3, False, False]
    assert first.attrs["input_kinds"] == ["L", "R", "r"]       # x, W, the bias row: the shape is the product's
    _same_training(case, out)


@pytest.mark.parametrize("case", [
    _classifier(n_in=32, n_classes=fused_product.SMALL_K + 1),     # K too wide: the GEMM is faster
    _classifier(n_in=32, fetch_hidden=True),                        # (the product itself is no fetch: still fused)
])
def test_which_products_stay_gemms(case):
    out, _ = apply_passes(case.main, fetch_list=case.fetch)
    n_classes = case.main.global_block().all_parameters()[2]._data.shape[1]
    assert bool(_products(out)) == (n_classes <= fused_product.SMALL_K)
    _same_training(case, out)


def test_a_product_read_outside_the_group_stays_a_matmul():
    paddle.seed(3)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        p = paddle.matmul(x, paddle.ones([4, 6]))
        loss = paddle.mean(F.relu(p) * 2.0) + paddle.mean(paddle.matmul(p, paddle.ones([6, 2])))
    out, _ = fuse_elementwise(main, [loss])
    assert not _products(out) and "matmul" in [op.type for op in out.global_block().ops]


def _kernel_attrs(m_kind, k, tx, ty, dtype, with_sum):
    steps = [{"type": "matmul", "attrs": {"transpose_x": tx, "transpose_y": ty}, "args": ["x0", "x1"], "out": "t0"},
             {"type": "relu_grad", "attrs": {}, "args": ["x2", "t0"], "out": "t1"},
             {"type": "add", "attrs": {}, "args": ["t1", "x3"], "out": "t2"}]
    kinds, product, sums = ["L", "R", m_kind, "r"], [k, tx, ty], [0] if with_sum else []
    name, source = fused_codegen.generate_source(steps, kinds, ["t2"], dtype, sums, product)
    attrs = {"kernel_name": name, "source": source, "input_kinds": kinds, "steps": steps, "outputs": ["t2"],
             "dtype": np.dtype(dtype), "product": product}
    if with_sum:
        attrs.update(row_sums=sums, row_dims=1)
    return attrs


@settings(max_examples=25, deadline=None)
@given(m=st.integers(0, 9), n=st.integers(1, 11), k=st.integers(1, fused_product.SMALL_K), tx=st.booleans(),
       ty=st.booleans(), dtype=st.sampled_from([np.float32, np.float64]), with_sum=st.booleans(),
       seed=st.integers(0, 2 ** 16))
def test_the_loop_computes_the_product_as_numpy_does(m, n, k, tx, ty, dtype, with_sum, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((k, m) if tx else (m, k)).astype(dtype)
    b = rng.standard_normal((n, k) if ty else (k, n)).astype(dtype)
    h, bias = rng.standard_normal((m, n)).astype(dtype), rng.standard_normal(n).astype(dtype)
    attrs = _kernel_attrs("a", k, tx, ty, dtype, with_sum)
    product = (a.T if tx else a) @ (b.T if ty else b)
    want = np.where(h > 0, product, 0).astype(dtype) + bias
    got = fused.fused_elementwise_kernel(a, b, h, bias, **attrs)
    prepared = fused.prepare_fused(attrs)(a, b, h, bias)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for result in (got, prepared):
        first = result[0] if with_sum else result
        np.testing.assert_allclose(first, want, rtol=tol, atol=tol)
        if with_sum:
            np.testing.assert_allclose(result[1], want.sum(axis=0), rtol=tol, atol=tol * max(m, 1))


def test_operands_that_do_not_fit_run_the_ops_and_their_errors():
    attrs = _kernel_attrs("a", 3, False, False, np.float32, False)
    rng = np.random.default_rng(0)
    h, bias = rng.standard_normal((4, 5)).astype(np.float32), np.zeros(5, np.float32)
    a, b = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((3, 5)).astype(np.float32)
    a_wide = rng.standard_normal((4, 6)).astype(np.float32)       # K = 6: not the loop's 3
    with pytest.raises(InvalidArgument, match="matmul: x's last dim \\(6\\) must equal y's first dim \\(3\\)"):
        fused.fused_elementwise_kernel(a_wide, b, h, bias, **attrs)
    call = fused.prepare_fused(attrs)
    call(a, b, h, bias)
    with pytest.raises(InvalidArgument, match="matmul"):
        call(a_wide, b, h, bias)


def test_a_product_of_another_loops_result_reads_what_that_loop_stores():
    """t = relu(x * 2) is read by the product, so its loop stores t; the product's loop (with p * s) reads it."""
    paddle.seed(3)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 6], "float32")
        s = x * 2.0
        t = F.relu(s)
        p = paddle.matmul(t, paddle.full([6, 6], 0.5))
        loss = paddle.mean(p * s)
    out, _ = fuse_elementwise(main, [loss])
    first, second = [op for op in out.global_block().ops if op.type == "fused_elementwise"]
    assert t.name in first.output_names() and second.attrs["product"] == [6, False, False]
    assert second.inputs["X"][0] == t.name and second.attrs["input_kinds"][0] == "L"
    case = Case(main, startup, [loss], lambda rng: {"x": rng.standard_normal((5, 6)).astype(np.float32)})
    for a, b in zip(run_case(case, main), run_case(case, out)):
        np.testing.assert_allclose(a, b, rtol=1e-6)
