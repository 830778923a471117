"""BackwardContext: every grad node a backward rule receives keeps the one contract (autograd/context.py).

One probe op, `x * w * scale`, whose rule reads everything the contract names and writes down what it
saw, runs through the three places a rule runs: eager autograd (GradNode), append_backward writing grad
ops (the static node) and a Program's `backward_rule` op at run time (the run-time node).
"""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import static
from minipaddle.framework.autograd.context import BackwardContext
from minipaddle.framework.dispatch import dispatch
from minipaddle.framework.registry import OPS, add_kernel, get_op, new_meta, register_op

PROBE = "backward_context_probe"
SEEN: list = []  # per rule call: what the rule read from its ctx


def _probe_meta(x, w, scale=1.0):
    return new_meta(x.shape, x.dtype)


def _probe_kernel(x, w, scale=1.0):
    return x * w * scale


def _probe_grad(ctx, dout):
    SEEN.append({"ctx": type(ctx).__name__, "is_contract": isinstance(ctx, BackwardContext),
                 "needs_grad": [ctx.needs_grad(0), ctx.needs_grad(1)], "scale": ctx.scale,
                 "attrs": dict(ctx.attrs), "x_shape": tuple(ctx.input_metas[0][0]),
                 "out_dtype": ctx.out_metas[0][1]})
    dx = dout * ctx.w * ctx.scale if ctx.needs_grad(0) else None
    dw = dout * ctx.x * ctx.scale if ctx.needs_grad(1) else None
    return dx, dw


if PROBE not in OPS:
    register_op(PROBE, inputs=("x", "w"), infer_meta=_probe_meta, backward=_probe_grad, save=("x", "w"),
                attrs={"scale": (float, 1.0)})
    add_kernel(PROBE, "cpu", ("float32",), _probe_kernel, name="numpy")


def probe(x, w, scale=2.0):
    return dispatch(OPS[PROBE], (x, w), {"scale": scale})


X = np.arange(6, dtype="float32").reshape(2, 3)
W = np.full((2, 3), 0.5, dtype="float32")


@pytest.fixture(autouse=True)
def seen():
    SEEN.clear()
    yield SEEN
    SEEN.clear()


def _static_grad_of_x(shape) -> np.ndarray:
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", shape, "float32")
            w = static.data("w", shape, "float32")
            x.stop_gradient = False   # w keeps stop_gradient=True: no gradient is wanted for it
            out = probe(x, w)
            (dx,) = static.gradients([out], [x])
        exe = static.Executor()
        exe.run(startup)
        (got,) = exe.run(main, feed={"x": X, "w": W}, fetch_list=[dx])
    finally:
        paddle.disable_static()
    return got


def test_eager_grad_node_keeps_the_contract(seen):
    x = paddle.to_tensor(X, stop_gradient=False)
    w = paddle.to_tensor(W)   # stop_gradient=True
    (dx,) = paddle.grad(probe(x, w), [x])
    np.testing.assert_allclose(dx.numpy(), W * 2.0)
    assert seen == [{"ctx": "GradNode", "is_contract": True, "needs_grad": [True, False], "scale": 2.0,
                     "attrs": {"scale": 2.0}, "x_shape": (2, 3), "out_dtype": np.dtype("float32")}]


def test_an_attr_left_out_reads_its_default(seen):
    x = paddle.to_tensor(X, stop_gradient=False)
    dispatch(OPS[PROBE], (x, paddle.to_tensor(W)), {}).sum().backward()
    assert seen[0]["scale"] == 1.0 and seen[0]["attrs"] == {}


def test_static_grad_ops_are_written_through_the_same_contract(seen):
    np.testing.assert_allclose(_static_grad_of_x([2, 3]), W * 2.0)
    assert [s["ctx"] for s in seen] == ["_StaticNode"]   # the rule ran once, while the program was built
    assert seen[0]["is_contract"] and seen[0]["needs_grad"] == [True, False]


def test_a_rule_that_needs_an_unknown_shape_runs_at_run_time_through_the_same_contract(seen):
    np.testing.assert_allclose(_static_grad_of_x([-1, 3]), W * 2.0)
    # it read input_metas with a -1 dim while building: the op became a `backward_rule` op, run by the Executor
    assert [s["ctx"] for s in seen] == ["_StaticNode", "_RuntimeNode"]
    assert all(s["is_contract"] and s["needs_grad"] == [True, False] for s in seen)
    assert seen[1]["x_shape"] == (2, 3)


def test_needs_grad_is_false_for_stop_gradient_and_non_differentiable_inputs():
    x = paddle.to_tensor(X, stop_gradient=False)
    node = paddle.matmul(x, paddle.to_tensor(W.T))._node
    assert isinstance(node, BackwardContext)
    assert node.needs_grad(0) and not node.needs_grad(1)
    index = paddle.to_tensor([1, 0])
    node = paddle.gather(x, index)._node   # the index is an integer input: never a gradient
    assert node.needs_grad(0) and not node.needs_grad(1)


def test_an_attr_may_not_shadow_needs_grad():
    with pytest.raises(ValueError, match="needs_grad"):
        register_op("backward_context_bad", inputs=("x",), infer_meta=_probe_meta, attrs={"needs_grad": (bool, False)})


def test_saved_values_name_the_input_or_output_they_come_from():
    assert get_op(PROBE)._save_index == {"x": ("input", 0), "w": ("input", 1)}
    assert get_op("exp")._save_index == {"out": ("output", 0)}
