"""nn.Layer: registration by attribute, hooks, tree walking, state dicts, modes, dtype, layer paths."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import nn
from minipaddle.framework import instrument
from minipaddle.framework.errors import InvalidArgument, PreconditionNotMet
from minipaddle.framework.thread_modes import modes
from minipaddle.nn import initializer as init


class Affine(nn.Layer):
    """A tiny layer built only on the base class, so these tests do not depend on nn.Linear."""

    def __init__(self, n_in: int, n_out: int) -> None:
        super().__init__()
        self.weight = self.create_parameter([n_in, n_out])
        self.bias = self.create_parameter([n_out], is_bias=True)

    def forward(self, x):
        return paddle.matmul(x, self.weight) + self.bias


class Net(nn.Layer):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = Affine(4, 3)
        self.fc2 = Affine(3, 2)
        self.register_buffer("steps", paddle.zeros([1]))
        self.register_buffer("scratch", paddle.zeros([2]), persistable=False)

    def forward(self, x):
        return self.fc2(paddle.tanh(self.fc1(x)))


def test_attributes_register_parameters_sublayers_and_buffers():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert [n for n, _ in net.named_sublayers()] == ["fc1", "fc2"]
    assert list(net.children()) == [net.fc1, net.fc2]
    assert [n for n, _ in net.named_buffers()] == ["steps", "scratch"]
    assert all(not p.stop_gradient and p.trainable for p in net.parameters())
    assert net.fc1.weight.name.endswith(".w_0") and net.fc1.bias.name.endswith(".b_0")


def test_state_dict_has_structured_names_and_only_persistable_buffers():
    net = Net()
    # Paddle's order: a layer's own parameters and buffers, then its sublayers'
    assert list(net.state_dict()) == ["steps", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


def test_shared_sublayer_and_parameter_are_listed_once():
    net = nn.Layer()
    shared = Affine(2, 2)
    net.a = shared
    net.b = shared
    assert len(net.sublayers()) == 1
    assert len(net.parameters()) == 2


def test_forward_pre_hook_replaces_inputs_and_post_hook_replaces_outputs():
    layer = Affine(2, 2)
    x = paddle.ones([1, 2])
    plain = layer(x).numpy().copy()
    pre = layer.register_forward_pre_hook(lambda lyr, inputs: inputs[0] * 2)   # a bare tensor is wrapped
    doubled = layer(x).numpy()
    np.testing.assert_allclose(doubled, 2 * plain - layer.bias.numpy(), rtol=1e-6)
    post = layer.register_forward_post_hook(lambda lyr, inputs, out: out * 0)
    assert np.all(layer(x).numpy() == 0)
    pre.remove()
    post.remove()
    np.testing.assert_allclose(layer(x).numpy(), plain)


def test_hooks_that_return_none_leave_values_alone_and_see_the_layer():
    layer = Affine(2, 2)
    seen = []
    layer.register_forward_pre_hook(lambda lyr, inputs: seen.append((lyr, len(inputs))))
    layer.register_forward_post_hook(lambda lyr, inputs, out: seen.append(out.shape))
    layer(paddle.ones([3, 2]))
    assert seen == [(layer, 1), [3, 2]]


def test_layer_stack_records_the_path_each_op_runs_under():
    paths = []

    class Probe(nn.Layer):
        def forward(self, x):
            paths.append(instrument.current_layer())
            return x

    class Block(nn.Layer):
        def __init__(self):
            super().__init__()
            self.probe = Probe()

        def forward(self, x):
            return self.probe(x)

    class Model(nn.Layer):
        def __init__(self):
            super().__init__()
            self.encoder = Block()
            self.layers = nn.LayerList([Probe()])

        def forward(self, x):
            return self.layers[0](self.encoder(x))

    Model()(paddle.ones([1]))
    assert paths == ["Model.encoder.probe", "Model.layers.0"]
    assert modes.layer_stack == []


def test_layer_stack_is_popped_when_forward_raises():
    class Boom(nn.Layer):
        def forward(self, x):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        Boom()(1)
    assert modes.layer_stack == []


def test_set_state_dict_round_trip_and_reports_missing_and_unexpected_keys():
    a, b = Net(), Net()
    state = {k: v.numpy().copy() for k, v in a.state_dict().items()}
    missing, unexpected = b.set_state_dict(state)
    assert missing == [] and unexpected == []
    for k, v in b.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), state[k])
    del state["fc2.bias"]
    state["extra"] = np.zeros(1)
    with pytest.warns(UserWarning) as record:
        missing, unexpected = b.set_state_dict(state)
    messages = [str(w.message) for w in record]
    assert any("fc2.bias" in m for m in messages) and any("extra" in m for m in messages)
    assert missing == ["fc2.bias"] and unexpected == ["extra"]


def test_set_state_dict_with_a_wrong_shape_names_every_problem_and_loads_nothing():
    net = Net()
    before = net.fc1.weight.numpy().copy()
    bad = {"fc1.weight": np.ones((4, 3)), "fc1.bias": np.ones(5), "fc2.weight": np.ones((2, 3))}
    with pytest.raises(InvalidArgument, match=r"fc1.bias.*\[5\].*\[3\].*fc2.weight.*\[2, 3\].*\[3, 2\]"):
        net.set_state_dict(bad)
    np.testing.assert_array_equal(net.fc1.weight.numpy(), before)


def test_train_and_eval_switch_every_sublayer():
    net = Net()
    net.eval()
    assert not net.training and not net.fc1.training
    net.train()
    assert net.training and net.fc2.training


def test_clear_gradients_zeroes_parameter_grads():
    net = Net()
    net(paddle.ones([2, 4])).sum().backward()
    assert np.any(net.fc1.weight.grad.numpy() != 0)
    net.clear_gradients()
    assert np.all(net.fc1.weight.grad.numpy() == 0)


def test_to_dtype_casts_parameters_and_buffers():
    net = Net().to(dtype="float64")
    assert all(p.dtype == paddle.float64 for p in net.parameters())
    assert net.steps.dtype == paddle.float64
    assert net(paddle.ones([1, 4], dtype="float64")).dtype == paddle.float64
    with pytest.raises(InvalidArgument, match="float"):
        net.to(dtype="int32")


def test_apply_visits_children_before_self():
    order = []
    Net().apply(lambda layer: order.append(type(layer).__name__))
    assert order == ["Affine", "Affine", "Net"]


def test_repr_nests_sublayers():
    text = repr(nn.Sequential(("a", Affine(1, 1)), ("b", nn.Sequential(Affine(1, 1)))))
    assert text.splitlines() == ["Sequential(", "  (a): Affine()", "  (b): Sequential(", "    (0): Affine()",
                                 "  )", ")"]


def test_forgetting_super_init_gives_a_clear_error():
    class Broken(nn.Layer):
        def __init__(self):
            self.fc = Affine(1, 1)

    with pytest.raises(PreconditionNotMet, match="super\\(\\).__init__"):
        Broken()


def test_assigning_a_non_parameter_to_a_parameter_slot_is_rejected():
    layer = Affine(1, 1)
    with pytest.raises(InvalidArgument, match="'weight' is a parameter"):
        layer.weight = paddle.ones([1, 1])
    layer.bias = None
    assert [n for n, _ in layer.named_parameters()] == ["weight"]


def test_parameter_attr_controls_initializer_learning_rate_and_trainable():
    layer = nn.Layer()
    attr = paddle.ParamAttr(name="my_w", initializer=init.Constant(0.5), learning_rate=0.1, trainable=False)
    p = layer.create_parameter([2, 2], attr=attr)
    assert p.name == "my_w" and p.optimize_attr["learning_rate"] == 0.1 and p.stop_gradient
    assert np.all(p.numpy() == 0.5)
    assert layer.create_parameter([2], attr=False) is None


def test_sequential_indexing_slicing_and_names():
    seq = nn.Sequential(Affine(2, 3), Affine(3, 1))
    assert len(seq) == 2 and isinstance(seq[-1], Affine)
    assert len(seq[:1]) == 1
    assert list(seq.state_dict())[:2] == ["0.weight", "0.bias"]
    assert seq(paddle.ones([5, 2])).shape == [5, 1]
    with pytest.raises(InvalidArgument, match="argument 1"):
        nn.Sequential(Affine(1, 1), "relu")


def test_layer_list_and_layer_dict_and_parameter_list():
    ll = nn.LayerList([Affine(1, 1)])
    ll.append(Affine(1, 1))
    ll.insert(0, Affine(1, 1))
    assert len(ll) == 3 and len(ll.parameters()) == 6
    del ll[0]
    assert [n for n, _ in ll.named_sublayers()] == ["0", "1"]
    ld = nn.LayerDict({"a": Affine(1, 1)})
    ld["b"] = Affine(1, 2)
    assert list(ld.keys()) == ["a", "b"] and "b" in ld
    pl = nn.ParameterList([paddle.create_parameter([2], "float32")])
    assert len(pl) == 1 and len(pl.parameters()) == 1


def test_slicing_a_container_leaves_its_layers_paths_alone():
    paths = []

    class Probe(nn.Layer):
        def forward(self, x):
            paths.append(instrument.current_layer())
            return x

    class M(nn.Layer):
        def __init__(self):
            super().__init__()
            self.blocks = nn.LayerList([Probe(), Probe()])
            self.seq = nn.Sequential(Probe(), Probe())

        def forward(self, x):
            return self.seq(self.blocks[0](x))

    m = M()
    assert len(m.blocks[:1]) == 1 and len(m.seq[1:]) == 1
    m(1)
    assert paths == ["M.blocks.0", "M.seq.0", "M.seq.1"]
