"""TracedLayer: trace a Layer once, run the recorded Program, save it in the static format."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn, static
from minipaddle.jit import io as jit_io
from minipaddle.jit.traced_layer import TracedLayer


class TwoHeads(nn.Layer):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 6), nn.Tanh())
        self.head = nn.Linear(6, 2)

    def forward(self, x, scale):
        h = self.body(x)
        return self.head(h) * scale, F.softmax(h, axis=-1)


def inputs():
    rng = np.random.default_rng(0)
    return [paddle.to_tensor(rng.standard_normal((3, 4)).astype("float32")),
            paddle.to_tensor(np.float32([[2.0]]))]


def test_trace_returns_eager_outputs_and_a_program_that_reproduces_them():
    paddle.seed(0)
    model = TwoHeads()
    xs = inputs()
    outs, traced = TracedLayer.trace(model, inputs=xs)
    np.testing.assert_allclose(outs[0].numpy(), model(*xs)[0].numpy())
    types = [op.type for op in traced.program.global_block().ops]
    assert "softmax" in types and "tanh" in types
    got = traced(xs)
    assert isinstance(got, list) and len(got) == 2
    for a, b in zip(got, outs):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_the_traced_program_follows_the_layers_parameters_and_passes_gradients():
    model = TwoHeads()
    xs = inputs()
    _, traced = TracedLayer.trace(model, xs)
    with paddle.no_grad():
        model.head.bias.set_value(model.head.bias.numpy() + 1.0)
    np.testing.assert_allclose(traced(xs)[0].numpy(), model(*xs)[0].numpy(), rtol=1e-6)
    traced(xs)[0].sum().backward()
    np.testing.assert_allclose(model.head.bias.grad.numpy(), [6.0, 6.0])  # 3 rows x scale 2


def test_save_inference_model_with_feed_and_fetch_indices(tmp_path):
    model = TwoHeads()
    xs = inputs()
    outs, traced = TracedLayer.trace(model, xs)
    path = str(tmp_path / "traced")
    traced.save_inference_model(path, fetch=[1])
    loaded = jit_io.load(path)
    np.testing.assert_allclose(loaded(*xs).numpy(), outs[1].numpy(), rtol=1e-6)
    assert list(loaded.state_dict()) == ["body.0.weight", "body.0.bias"]  # pruned: the head is not needed
    exe = static.Executor()
    with static.scope_guard(static.Scope()):
        program, feeds, fetches = static.load_inference_model(path, exe)
        assert feeds == ["x", "scale"]
        out, = exe.run(program, feed={"x": xs[0].numpy(), "scale": xs[1].numpy()}, fetch_list=fetches)
    np.testing.assert_allclose(out, outs[1].numpy(), rtol=1e-6)


def test_bad_arguments_raise_clearly(tmp_path):
    model = TwoHeads()
    with pytest.raises(ValueError, match="layer must be an nn.Layer"):
        TracedLayer.trace(lambda x: x, [paddle.ones([2])])
    with pytest.raises(ValueError, match=r"inputs\[1\] is a float"):
        TracedLayer.trace(model, [paddle.ones([3, 4]), 2.0])
    _, traced = TracedLayer.trace(model, inputs())
    with pytest.raises(ValueError, match="got 1 inputs, the traced program takes 2"):
        traced([paddle.ones([3, 4])])
    with pytest.raises(ValueError, match=r"input 'x' has shape \[5, 4\], expected \[3, 4\]"):
        traced([paddle.ones([5, 4]), inputs()[1]])
    with pytest.raises(ValueError, match=r"fetch holds 2; expected indices in \[0, 2\)"):
        traced.save_inference_model(str(tmp_path / "t"), fetch=[2])
