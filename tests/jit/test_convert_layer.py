"""to_static on Layers: branches in forward, gradients to Parameters and inputs equal eager ones
(and central differences), training with an optimizer, sublayers with their own user forward."""
import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn as nn
import minipaddle.nn.functional as F
from minipaddle.static import InputSpec
from tests.ops.opcheck import check_grad


class Block(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, h):
        h2 = self.fc(h)
        if h2.mean() > 0:
            h2 = F.relu(h2)
        else:
            h2 = paddle.tanh(h2)
        return h2


class Net(nn.Layer):
    def __init__(self, scale_loop=True):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.block = Block()
        self.fc2 = nn.Linear(8, 3)
        self.scale_loop = scale_loop

    def forward(self, x):
        h = self.block(self.fc1(x))
        if self.scale_loop:   # a Python flag: plain Python while building
            i = paddle.to_tensor(0)
            while h.abs().sum() < 50 and i < 5:
                h = h * 1.5
                i = i + 1
        return self.fc2(h)


def _grads(layer) -> dict:
    return {n: p.grad.numpy().copy() for n, p in layer.named_parameters()}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_gradients_through_a_converted_layer_match_eager(seed):
    paddle.seed(seed)
    net = Net()
    x = paddle.randn([5, 4]) * (seed - 1.5)
    eager = net(x)
    (eager * eager).sum().backward()
    want = _grads(net)
    net.clear_gradients()
    static = paddle.jit.to_static(net)
    out = static(x)
    np.testing.assert_allclose(out.numpy(), eager.numpy(), rtol=1e-5, atol=1e-6)
    (out * out).sum().backward()
    for name, grad in _grads(net).items():
        np.testing.assert_allclose(grad, want[name], rtol=1e-4, atol=1e-5, err_msg=name)
    types = [op.type for b in static.forward.concrete_program.main_program.blocks for op in b.ops]
    assert "cond" in types and "while" in types


def test_gradient_to_inputs_matches_central_differences():
    def f(x):
        y = x * x
        if y.sum() > 1.0:
            y = paddle.sin(y) * 3
        else:
            y = y * 2 + x
        i = 0
        while i < 3:
            y = y * x
            i += 1
        return y
    sf = paddle.jit.to_static(f)
    check_grad(sf, [np.array([0.3, -0.4, 0.2])])
    check_grad(sf, [np.array([1.3, -0.9, 0.8])])


def test_training_a_converted_layer_lowers_the_loss_like_eager():
    def train(static: bool) -> list[float]:
        paddle.seed(7)
        net = Net()
        model = paddle.jit.to_static(net) if static else net
        opt = paddle.optimizer.Adam(0.01, parameters=net.parameters())
        x, y = paddle.randn([16, 4]), paddle.randn([16, 3])
        losses = []
        for _ in range(5):
            loss = F.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        return losses
    eager, static = train(False), train(True)
    np.testing.assert_allclose(static, eager, rtol=1e-4)
    assert static[-1] < static[0]


def test_decorated_forward_method_and_concrete_program_parameters():
    class Decorated(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)

        @paddle.jit.to_static
        def forward(self, x):
            if x.sum() > 0:
                return self.fc(x)
            return self.fc(-x)

    a, b = Decorated(), Decorated()
    x = paddle.ones([1, 3])
    np.testing.assert_allclose(a(x).numpy(), (x.numpy() @ a.fc.weight.numpy()) + a.fc.bias.numpy(), rtol=1e-6)
    np.testing.assert_allclose(b(-x).numpy(), (x.numpy() @ b.fc.weight.numpy()) + b.fc.bias.numpy(), rtol=1e-6)
    assert {p.name for p in a.forward.concrete_program.parameters} == {a.fc.weight.name, a.fc.bias.name}
    assert a.forward.program_cache is not b.forward.program_cache  # one cache per instance


def test_training_flag_builds_separate_programs():
    class Drop(nn.Layer):
        def forward(self, x):
            if self.training:
                return x * 0
            return x
    layer = paddle.jit.to_static(Drop())
    x = paddle.ones([2])
    assert float(layer(x).sum()) == 0.0
    layer.eval()
    assert float(layer(x).sum()) == 2.0
    assert len(layer.forward.program_cache) == 2


def test_input_spec_with_a_none_dim_serves_every_batch_size():
    net = Net()
    static = paddle.jit.to_static(net, input_spec=[InputSpec([None, 4], "float32", "image")])
    for n in (1, 3, 6):
        x = paddle.randn([n, 4])
        np.testing.assert_allclose(static(x).numpy(), static.forward.dygraph_function(x).numpy(), rtol=1e-5,
                                   atol=1e-6)
    assert len(static.forward.program_cache) == 1
    cp = static.forward.concrete_program
    assert cp.inputs[0].name == "image" and list(cp.inputs[0].shape) == [-1, 4]


def test_rollback_restores_the_python_forward():
    net = Net()
    static = paddle.jit.to_static(net)
    assert type(net.forward).__name__ == "StaticFunction"
    static.forward.rollback()
    assert type(net.forward).__name__ == "method"


def test_layer_list_loop_with_branches_and_a_python_flag_kwarg():
    class Res(nn.Layer):
        def __init__(self):
            super().__init__()
            self.layers = nn.LayerList([nn.Linear(4, 4) for _ in range(3)])

        def forward(self, x, skip=True):
            for layer in self.layers:
                h = layer(x)
                if skip and h.mean() > 0:
                    x = x + h
                else:
                    x = h
            return x
    paddle.seed(3)
    net = Res()
    x = paddle.randn([2, 4])
    want = [net(x).numpy(), net(x, skip=False).numpy()]
    static = paddle.jit.to_static(net)
    np.testing.assert_allclose(static(x).numpy(), want[0], rtol=1e-6)
    np.testing.assert_allclose(static(x, skip=False).numpy(), want[1], rtol=1e-6)
    assert len(static.forward.program_cache) == 2


def test_to_static_on_a_bound_method_of_a_plain_object():
    class Scaler:
        def __init__(self):
            self.k = 3.0

        def run(self, x):
            if x.sum() > 0:
                return x * self.k
            return x
    f = paddle.jit.to_static(Scaler().run)
    np.testing.assert_allclose(f(paddle.ones([2])).numpy(), [3.0, 3.0])
    np.testing.assert_allclose(f(-paddle.ones([2])).numpy(), [-1.0, -1.0])


def test_super_forward_inside_a_converted_forward_is_converted_too():
    class Base(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)

        def forward(self, x):
            if x.sum() > 0:
                return self.fc(x)
            return x

    class Child(Base):
        def forward(self, x):
            return super().forward(x) * 2

    layer = Child()
    x = paddle.ones([1, 2])
    want = [layer(x).numpy(), layer(-x).numpy()]
    static = paddle.jit.to_static(layer)
    np.testing.assert_allclose(static(x).numpy(), want[0], rtol=1e-6)
    np.testing.assert_allclose(static(-x).numpy(), want[1], rtol=1e-6)
    assert "cond" in [op.type for op in static.forward.concrete_program.main_program.global_block().ops]


def test_no_grad_block_stops_gradients_as_it_does_eagerly():
    def f(x):
        with paddle.no_grad():
            y = x * 3
        return x * y
    x = paddle.to_tensor([2.0], stop_gradient=False)
    f(x).backward()
    want = x.grad.numpy().copy()
    x.clear_grad()
    sf = paddle.jit.to_static(f)
    sf(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), want)   # 6, not 12
    assert "jit_stop_gradient" in [op.type for op in sf.concrete_program.main_program.global_block().ops]


def test_a_captured_tensor_that_needs_grad_gets_its_gradient():
    w = paddle.to_tensor([1.0, -2.0], stop_gradient=False)

    def f(x):
        if x.sum() > 0:
            return (x * w).sum()
        return (x * w * w).sum()
    x = paddle.to_tensor([3.0, 4.0])
    for sign in (1.0, -1.0):
        f(x * sign).backward()
        want = w.grad.numpy().copy()
        w.clear_grad()
        paddle.jit.to_static(f)(x * sign).backward()
        np.testing.assert_allclose(w.grad.numpy(), want)
        w.clear_grad()
