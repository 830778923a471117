"""The run_program op: a converted Layer that trains runs its optimized forward and backward Programs as
ONE op of the eager graph -- and trains exactly as eagerly (losses, gradients, parameters, batch norm
statistics, dropout masks), with parameter hooks, a program per training mode, a warned fallback to
op-by-op running, a clear error for double grad, and one run_program node in a recorded trace."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn
from minipaddle.jit.partial_program import PartialProgram

RTOL, ATOL = 3e-5, 1e-6   # fused float32 kernels (GELU's tanh) differ from numpy's in the last bits


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(8, 16), nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class GeluMLP(nn.Layer):
    """GELU by its tanh formula (a chain fusion turns into one kernel) and a dropout."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.drop = nn.Linear(8, 16), nn.Linear(16, 3), nn.Dropout(0.3)

    def forward(self, x):
        h = self.fc1(x)
        h = 0.5 * h * (1.0 + paddle.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))
        return self.fc2(self.drop(h))


class LeNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(1, 4, 3)
        self.bn = nn.BatchNorm2D(4, momentum=0.8)
        self.pool = nn.MaxPool2D(2, 2)
        self.fc = nn.Linear(4 * 3 * 3, 3)

    def forward(self, x):
        h = self.pool(F.relu(self.bn(self.conv(x))))
        return self.fc(paddle.flatten(h, 1))


class Branchy(nn.Layer):
    """A data-dependent `if` on a tensor: a cond op whose grad block runs the branch taken."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(8, 16), nn.Linear(16, 3)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        if paddle.mean(x) > 0:
            h = h * 0.5 + paddle.tanh(h)
        else:
            h = h * h - 1.0
        return self.fc2(h)


class Loopy(nn.Layer):
    """A data-dependent `while`: the trip count is read off the batch at run time."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(8, 16), nn.Linear(16, 3)

    def forward(self, x):
        h = self.fc1(x)
        i = paddle.zeros([1], "int64")
        n = (paddle.abs(paddle.mean(x)) * 4).astype("int64") + 1
        while i < n:
            h = paddle.tanh(h) + h * 0.5
            i = i + 1
        return self.fc2(h)


def _batches(shape, steps=10, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(steps):
        x = rng.standard_normal(shape).astype("float32") + (0.6 if i % 2 else -0.6)  # both branches
        out.append((paddle.to_tensor(x), paddle.to_tensor(rng.integers(0, 3, shape[0]).astype("int64"))))
    return out


def _train(cls, convert, batches, seed=3):
    """Ten SGD steps; per step the loss and every gradient, then the parameters and buffers."""
    paddle.seed(seed)
    model = cls()
    if convert:
        model = paddle.jit.to_static(model)
    opt = paddle.optimizer.SGD(0.05, parameters=model.parameters())
    paddle.seed(seed + 1)   # the dropout masks: the same draws on both sides
    record = []
    for x, y in batches:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        record.append((float(loss), [p.grad.numpy().copy() for p in model.parameters() if p.grad is not None]))
        opt.step()
        opt.clear_grad()
    state = [v.numpy().copy() for v in model.state_dict().values()]
    return model, record, state


def _assert_same_training(cls, shape):
    batches = _batches(shape)
    _, eager, eager_state = _train(cls, False, batches)
    model, conv, conv_state = _train(cls, True, batches)
    partials = [p for cp in model.forward.program_cache.values() for p in cp._partials.values()]
    assert partials and all(isinstance(p, PartialProgram) for p in partials)  # the run_program op ran
    for (loss_e, grads_e), (loss_c, grads_c) in zip(eager, conv):
        np.testing.assert_allclose(loss_c, loss_e, rtol=RTOL)
        assert len(grads_c) == len(grads_e)
        for gc, ge in zip(grads_c, grads_e):
            np.testing.assert_allclose(gc, ge, rtol=RTOL, atol=ATOL)
    for sc, se in zip(conv_state, eager_state):   # parameters, batch norm's running statistics
        np.testing.assert_allclose(sc, se, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("cls, shape", [(MLP, (6, 8)), (GeluMLP, (6, 8)), (LeNet, (4, 1, 8, 8)),
                                        (Branchy, (6, 8)), (Loopy, (6, 8))],
                         ids=["mlp", "gelu_mlp", "lenet", "cond", "while"])
def test_converted_training_equals_eager_for_ten_steps(cls, shape):
    _assert_same_training(cls, shape)


def test_gradients_reach_inputs_that_need_them_and_integer_outputs_carry_none():
    class TwoOut(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x):
            y = self.fc(x)
            return paddle.tanh(y) * x.sum(), paddle.argmax(y, axis=1)

    def run(convert):
        paddle.seed(2)
        net = TwoOut()
        net = paddle.jit.to_static(net) if convert else net
        x = paddle.to_tensor(np.linspace(-1, 1, 8, dtype="float32").reshape(2, 4), stop_gradient=False)
        out, idx = net(x)
        (out * out).sum().backward()
        return out.numpy(), idx.numpy(), idx.stop_gradient, x.grad.numpy(), net.fc.weight.grad.numpy()
    for got, want in zip(run(True), run(False)):
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


def test_parameter_hooks_fire_once_per_backward_with_the_gradient():
    seen = []
    paddle.seed(0)
    net = paddle.jit.to_static(MLP())
    net.fc1.weight.register_hook(lambda g: seen.append(g.numpy().copy()))
    x, y = _batches((6, 8), steps=1)[0]
    for _ in range(2):
        F.cross_entropy(net(x), y).backward()
    assert len(seen) == 2
    np.testing.assert_allclose(seen[0] * 2, net.fc1.weight.grad.numpy(), rtol=1e-6)  # .grad accumulated


def test_the_program_cache_keys_on_training_mode():
    paddle.seed(0)
    net = paddle.jit.to_static(GeluMLP())
    x, y = _batches((6, 8), steps=1)[0]
    F.cross_entropy(net(x), y).backward()
    net.eval()
    a, b = net(x), net(x)
    np.testing.assert_array_equal(a.numpy(), b.numpy())   # no dropout in eval mode
    a.sum().backward()
    net.train()
    F.cross_entropy(net(x), y).backward()
    assert sorted(key[1] for key in net.forward.program_cache) == [False, True]
    for (_, training), cp in net.forward.program_cache.items():
        (partial,) = cp._partials.values()
        assert ("dropout" in [op.type for op in partial.forward_program.global_block().ops]) == training


def test_a_no_grad_region_stops_gradients_as_eagerly():
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(4, 4), nn.Linear(4, 2)

        def forward(self, x):
            h = self.fc1(x)
            with paddle.no_grad():
                scale = paddle.tanh(self.fc2(h)).mean()
            return self.fc2(h) * scale

    def grads(convert):
        paddle.seed(4)
        net = Net()
        net = paddle.jit.to_static(net) if convert else net
        net(paddle.ones([3, 4])).sum().backward()
        return [p.grad.numpy() for p in net.parameters()]
    for got, want in zip(grads(True), grads(False)):
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


def test_build_strategy_switches_fusion_and_the_op_by_op_fallback():
    x, y = _batches((6, 8), steps=1)[0]

    def forward_types(strategy):
        paddle.seed(0)
        net = paddle.jit.to_static(GeluMLP(), build_strategy=strategy)
        F.cross_entropy(net(x), y).backward()
        (cp,) = net.forward.program_cache.values()
        if not cp._partials:   # op by op: no PartialProgram was built
            return None
        (partial,) = cp._partials.values()
        return [op.type for op in partial.forward_program.global_block().ops]
    assert "fused_elementwise" in forward_types(None)
    strategy = paddle.static.BuildStrategy()
    strategy.fuse_elewise_add_act_ops = False
    assert "fused_elementwise" not in forward_types(strategy) and "tanh" in forward_types(strategy)
    assert forward_types(paddle.static.BuildStrategy(to_static_op_by_op=True)) is None
    with pytest.raises(ValueError, match="build_strategy must be a paddle.static.BuildStrategy, got dict"):
        paddle.jit.to_static(MLP(), build_strategy={"fuse": True})


def test_op_by_op_runs_where_the_backward_cannot_be_built_and_warns_why():
    paddle.seed(0)
    net = paddle.jit.to_static(MLP())
    x, y = _batches((6, 8), steps=1)[0]
    net.fc1.weight.stop_gradient = True     # frozen when the Program is built ...
    F.cross_entropy(net(x), y).backward()
    net.fc1.weight.stop_gradient = False    # ... trainable again: its grad ops were never written
    with pytest.warns(UserWarning, match="runs its Program op by op through eager dispatch .*stop_gradient of "
                                         "'linear_.*' changed"):
        F.cross_entropy(net(x), y).backward()
    assert net.fc1.weight.grad is not None  # the op-by-op path gets it there
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # warned once: the decision is cached
        net(x)


def test_double_grad_through_run_program_is_unimplemented_by_name():
    paddle.seed(0)
    net = paddle.jit.to_static(MLP())
    x = paddle.ones([2, 8])
    x.stop_gradient = False
    out = net(x).sum()
    with pytest.raises(NotImplementedError, match="run_program: double grad .*create_graph=True"):
        paddle.grad(out, x, create_graph=True)
    (g,) = paddle.grad(net(x).sum(), x)     # first-order grad still works
    assert g.shape == [2, 8]


def test_a_recorded_training_step_has_one_run_program_node_and_its_programs():
    paddle.seed(0)
    net = paddle.jit.to_static(MLP())
    x, y = _batches((6, 8), steps=1)[0]
    F.cross_entropy(net(x), y).backward()   # built outside the recording
    with paddle.debug.record() as rec:
        F.cross_entropy(net(x), y).backward()
    doc = rec.trace.to_dict()
    ops = [n["op"] for n in doc["graph"]["forward"]["nodes"]]
    assert ops.count("run_program") == 1 and "linear" not in ops
    node = next(n for n in doc["graph"]["forward"]["nodes"] if n["op"] == "run_program")
    programs = {p["name"]: p["id"] for p in doc["programs"]}
    fwd, bwd = programs[node["attrs"]["forward_program"]], programs[node["attrs"]["backward_program"]]
    runs = {r["program"]: [s["type"] for s in r["steps"]] for r in doc["program_runs"]}
    # relu(x @ W + b) with 8 inputs: one loop computes the product, the bias add and the relu
    assert runs[fwd] == ["fused_elementwise", "linear"]
    # relu's grad of dout @ W^T (3 classes: K = 3, in the loop) and its bias sum: one loop
    assert "fused_elementwise" in runs[bwd] and "relu_grad" not in runs[bwd]
    assert runs[bwd].count("matmul") == 2   # the GEMMs left: the weight gradients (K: the batch)
    assert "run_program" in [g["op"] for g in doc["graph"]["backward"]["nodes"] if "op" in g]


def test_dropout_draws_the_masks_eager_draws_under_the_same_seed():
    class Drop(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc, self.drop = nn.Linear(16, 16), nn.Dropout(0.5)

        def forward(self, x):
            return self.drop(self.fc(x) * 0.0 + 1.0)   # ones through dropout: the output is the mask * 2

    def masks(convert):
        paddle.seed(9)
        net = Drop()
        net = paddle.jit.to_static(net) if convert else net
        out = [net(paddle.ones([8, 16])) for _ in range(3)]
        out[-1].sum().backward()
        return [o.numpy() for o in out]
    got, want = masks(True), masks(False)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert set(np.unique(got[0])) == {0.0, 2.0} and not np.array_equal(got[0], got[1])


def test_an_input_spec_with_a_free_batch_trains_every_batch_size_as_eagerly():
    """A -1 batch dim: batch norm's grad rule needs the batch size, so the backward Program holds run-time
    `backward_rule` ops; one Program serves batches of 6 and 4."""
    spec = [paddle.static.InputSpec([None, 1, 8, 8], "float32")]
    rng = np.random.default_rng(0)
    batches = [(paddle.to_tensor(rng.standard_normal((b, 1, 8, 8)).astype("float32")),
                paddle.to_tensor(rng.integers(0, 3, b).astype("int64"))) for b in (6, 4, 6)]

    def run(convert):
        paddle.seed(0)
        net = paddle.jit.to_static(LeNet(), input_spec=spec) if convert else LeNet()
        grads = []
        for x, y in batches:
            F.cross_entropy(net(x), y).backward()
            grads.append([p.grad.numpy().copy() for p in net.parameters() if p.grad is not None])
            net.clear_gradients()
        return net, grads
    net, got = run(True)
    _, want = run(False)
    (cp,) = net.forward.program_cache.values()
    (partial,) = cp._partials.values()
    assert "backward_rule" in [op.type for op in partial.backward_program.global_block().ops]
    for gs, ws in zip(got, want):
        for g, w in zip(gs, ws):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_outputs_no_gradient_can_reach_run_op_by_op_without_a_warning():
    class ArgMax(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x):
            return paddle.argmax(self.fc(x), axis=1)   # an integer output: nothing to differentiate

    paddle.seed(0)
    net = paddle.jit.to_static(ArgMax())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        idx = net(paddle.ones([2, 4]))
    assert idx.stop_gradient and idx.dtype == paddle.int64
    (cp,) = net.forward.program_cache.values()
    assert list(cp._partials.values()) == [None]
