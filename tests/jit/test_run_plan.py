"""RunPlan (framework/static/run_plan.py): a Program compiled once into the loop a converted call runs --
the same values as the Executor, temporaries dropped after their last reader, infer_meta's checks on the
first run of each feed shape and not after -- and the optimized forward a converted call runs when no
gradient is wanted (eval, no_grad), equal to eager."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.registry import get_op
from minipaddle.framework.static.executor import Executor
from minipaddle.framework.static.passes import apply_passes
from minipaddle.framework.static.run_plan import RunPlan

RTOL, ATOL = 3e-5, 1e-6   # fused float32 kernels differ from numpy's in the last bits


@pytest.fixture
def gelu_program():
    """x[-1, 24] -> linear -> GELU (tanh formula) -> mean, optimized by the default passes (fusion); 24
    inputs: wider than a product computed in the fused loop (fused_product.SMALL_K), so the GEMM stays."""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [-1, 24], "float32")
            h = nn.Linear(24, 8)(x)
            g = 0.5 * h * (1.0 + paddle.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))
            out = g.mean()
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        params = {p.name: np.asarray(paddle.static.global_scope().find_var(p.name).get_tensor())
                  for p in main.all_parameters()}
    finally:
        paddle.disable_static()
    main, _ = apply_passes(main, fetch_list=[out])
    return main, params, out.name, g.name


def _feed(params, batch, seed=0):
    env = dict(params)
    env["x"] = np.random.default_rng(seed).standard_normal((batch, 24)).astype("float32")
    return env


def test_the_plan_computes_what_the_executor_computes_and_drops_temporaries(gelu_program):
    main, params, out, g = gelu_program
    assert "fused_elementwise" in [op.type for op in main.global_block().ops]
    want = _feed(params, 5)
    Executor().run_global_block(main, want, want, [out])
    plan = RunPlan(main, [out], Executor())
    for _ in range(3):   # the first run is the checked one, the others the plan's own loop
        env = _feed(params, 5)
        plan.run(env)
        np.testing.assert_array_equal(env[out], want[out])
        assert set(env) == set(params) | {"x", out}   # every temporary was dropped after its last reader
    env = _feed(params, 5)
    RunPlan(main, [out, g], Executor()).run(env)
    assert g in env   # what the caller keeps stays


def test_infer_meta_runs_on_the_first_run_of_each_feed_shape_only(gelu_program, monkeypatch):
    main, params, out, _ = gelu_program
    first = get_op(main.global_block().ops[0].type)   # the product (fusion moved the bias add into the GELU loop)
    assert first.name == "matmul"
    calls = []
    real = first.infer_meta
    monkeypatch.setattr(first, "infer_meta", lambda *a, **k: calls.append(a[0].shape) or real(*a, **k))
    plan = RunPlan(main, [out], Executor())
    plan.run(_feed(params, 5))
    assert calls == [(5, 24)]
    plan.run(_feed(params, 5, seed=1))
    assert calls == [(5, 24)]                 # checked before: straight to the kernels
    plan.run(_feed(params, 3))
    assert calls == [(5, 24), (3, 24)]       # a new batch size is checked once
    plan.run(_feed(params, 3))
    assert len(calls) == 2


def test_a_bad_feed_shape_raises_the_ops_own_error(gelu_program):
    main, params, out, _ = gelu_program
    plan = RunPlan(main, [out], Executor())
    plan.run(_feed(params, 4))
    env = dict(params, x=np.ones((4, 6), "float32"))
    # (the linear's product: fusion moved its bias add into the GELU loop; the error names the user's line)
    with pytest.raises(InvalidArgument, match="matmul: x's last dim \\(6\\) must equal y's first dim \\(24\\).*"
                                              "built at .*test_run_plan.py"):
        plan.run(env)


def test_a_changed_program_runs_through_the_executor_as_changed(gelu_program):
    main, params, out, _ = gelu_program
    plan = RunPlan(main, [out], Executor())
    env = _feed(params, 4)
    plan.run(env)
    first = env[out].copy()
    gb = main.global_block()
    gb.ops = [op for op in gb.ops if op.type != "mean"] + [op for op in gb.ops if op.type == "mean"]
    main._bump()   # the plan was compiled for the old version
    env = _feed(params, 4)
    plan.run(env)
    np.testing.assert_array_equal(env[out], first)


# ---- the optimized forward of a call that needs no gradient -------------------------------------------
class GeluNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc, self.bn, self.out = nn.Linear(8, 8), nn.BatchNorm1D(8), nn.Linear(8, 3)

    def forward(self, x):
        h = self.bn(self.fc(x))
        return self.out(0.5 * h * (1.0 + paddle.tanh(0.7978845608 * (h + 0.044715 * h * h * h))))


def _pair():
    paddle.seed(7)
    eager = GeluNet()
    paddle.seed(7)
    return eager, paddle.jit.to_static(GeluNet())


def _forward_of(net):
    (cp,) = net.forward.program_cache.values()
    return cp._forward


@pytest.mark.parametrize("training", [True, False], ids=["train_mode", "eval_mode"])
def test_a_no_grad_call_runs_the_optimized_forward_and_matches_eager(training):
    eager, conv = _pair()
    for net in (eager, conv):
        net.train() if training else net.eval()
    xs = [paddle.to_tensor(np.random.default_rng(i).standard_normal((6, 8)).astype("float32")) for i in range(3)]
    with paddle.no_grad():
        for x in xs:
            np.testing.assert_allclose(conv(x).numpy(), eager(x).numpy(), rtol=RTOL, atol=ATOL)
    forward = _forward_of(conv)
    types = [op.type for op in forward.program.global_block().ops]
    assert "fused_elementwise" in types and "tanh" not in types   # the passes ran
    for got, want in zip(conv.state_dict().values(), eager.state_dict().values()):  # batch norm's statistics
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=RTOL, atol=ATOL)
    assert conv.forward.program_cache and all(not cp._partials for cp in conv.forward.program_cache.values())


def test_a_call_that_needs_a_gradient_still_trains_through_run_program():
    _, conv = _pair()
    x = paddle.ones([6, 8])
    with paddle.no_grad():
        conv(x)
    F.cross_entropy(conv(x), paddle.zeros([6], "int64")).backward()
    assert all(p.grad is not None for p in conv.parameters() if not p.stop_gradient)
    (cp,) = conv.forward.program_cache.values()
    assert any(p is not None for p in cp._partials.values()) and cp._forward is not None


def test_op_by_op_strategy_keeps_the_unoptimized_program_under_no_grad():
    paddle.seed(7)
    conv = paddle.jit.to_static(GeluNet(), build_strategy=paddle.static.BuildStrategy(to_static_op_by_op=True))
    with paddle.no_grad():
        conv(paddle.ones([6, 8]))
    assert _forward_of(conv) is None


def test_a_wrongly_typed_input_under_an_input_spec_raises_before_running():
    paddle.seed(7)
    conv = paddle.jit.to_static(GeluNet(), input_spec=[paddle.static.InputSpec([None, 8], "float32", "x")])
    with paddle.no_grad():
        conv(paddle.ones([2, 8]))
        with pytest.raises(InvalidArgument, match="input 'x' has dtype float64, expected float32"):
            conv(paddle.ones([2, 8], "float64"))


def test_dropout_under_no_grad_draws_the_masks_eager_draws():
    class Drop(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc, self.drop = nn.Linear(8, 8), nn.Dropout(0.5)

        def forward(self, x):
            return self.drop(paddle.tanh(self.fc(x))) * 2.0

    outs = []
    for convert in (False, True):
        paddle.seed(1)
        net = paddle.jit.to_static(Drop()) if convert else Drop()
        with paddle.no_grad():
            net(paddle.ones([4, 8]))   # (converted: built and run once before the seed)
            paddle.seed(5)
            outs.append([net(paddle.ones([4, 8])).numpy() for _ in range(3)])
    for got, want in zip(outs[1], outs[0]):
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
    assert (outs[0][0] == 0).any() and not np.array_equal(outs[0][0], outs[0][1])   # masks were drawn
