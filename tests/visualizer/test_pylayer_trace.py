"""A PyLayer in a recorded trace: one node named after its class, carrying the user's forward and
backward source and where forward is written; its grad node "<Class>_grad", whose backward step lists
the ops the user's backward ran; the ops inside its forward are listed on the node, not drawn."""
from __future__ import annotations

import inspect
import types

import numpy as np

import minipaddle as paddle
from minipaddle.autograd import PyLayer
from minipaddle.framework import instrument

from .conftest import validated


class CustomSigmoid(PyLayer):
    @staticmethod
    def forward(ctx, x):
        y = 1 / (1 + paddle.exp(-x))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensor()
        return dy * y * (1 - y)


def _record_step():
    w = paddle.to_tensor(np.array([[0.5, -1.0], [2.0, 0.25]], "float32"), stop_gradient=False)
    x = paddle.to_tensor(np.array([[1.0, 2.0]], "float32"))
    with paddle.debug.record() as rec:
        h = paddle.matmul(x, w)
        y = CustomSigmoid.apply(h)
        loss = y.sum()
        loss.backward()
    return validated(rec.trace), w


def test_a_pylayer_call_is_one_forward_node_named_after_its_class():
    doc, _ = _record_step()
    ops = [n["op"] for n in doc["graph"]["forward"]["nodes"]]
    assert ops == ["matmul", "CustomSigmoid", "sum"]  # exp, add, divide ... ran inside: not nodes


def test_the_node_carries_the_users_source_and_where_forward_is_written():
    doc, _ = _record_step()
    node = next(n for n in doc["graph"]["forward"]["nodes"] if n["op"] == "CustomSigmoid")
    attrs = node["attrs"]
    assert attrs["pylayer"] == f"{__name__}.CustomSigmoid"
    assert attrs["forward_source"].startswith("@staticmethod\ndef forward(ctx, x):\n")
    assert "ctx.save_for_backward(y)" in attrs["forward_source"]
    assert attrs["backward_source"].startswith("@staticmethod\ndef backward(ctx, dy):\n")
    assert "return dy * y * (1 - y)" in attrs["backward_source"]
    lines, first = inspect.getsourcelines(CustomSigmoid.forward)
    assert attrs["source"] == {"file": __file__, "line": first + 1}  # the `def` line, under @staticmethod
    assert "cell" not in attrs["source"]  # not a notebook cell
    assert attrs["forward_ops"] == ["neg", "exp", "add", "divide"]
    assert node["kernel"]["name"] == "CustomSigmoid.forward"


def test_its_grad_node_is_named_class_grad_and_its_step_lists_the_backward_ops():
    doc, w = _record_step()
    node = next(n for n in doc["graph"]["forward"]["nodes"] if n["op"] == "CustomSigmoid")
    grad = next(g for g in doc["graph"]["backward"]["nodes"] if g["id"] == node["grad_node"])
    assert grad["name"] == "CustomSigmoid_grad" and grad["op"] == "CustomSigmoid"
    assert grad["forward_node"] == node["id"]
    step = next(s for s in doc["steps"] if s.get("node") == grad["id"])
    assert step["kind"] == "backward_step"
    backward_ops = [op["op"] for op in step["ops"]]
    assert "multiply" in backward_ops and step["ops_count"] == len(step["ops"])
    assert all(s is not None for s in step["grads_in"] + step["grads_out"])
    y = 1 / (1 + np.exp(-np.array([[4.5, -0.5]])))
    np.testing.assert_allclose(w.grad.numpy(), np.array([[1.0], [2.0]]) * (y * (1 - y)), rtol=1e-5)


def test_the_cell_of_a_pylayer_written_in_a_notebook_cell_is_named(monkeypatch):
    shell = types.SimpleNamespace(compile=types.SimpleNamespace(_filename_map={__file__: 7}))
    monkeypatch.setitem(__import__("sys").modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))

    class InCell(PyLayer):  # a new class: its source is read afresh
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, d):
            return d * 2
    x = paddle.to_tensor([1.0], stop_gradient=False)
    with paddle.debug.record() as rec:
        InCell.apply(x)
    node = validated(rec.trace)["graph"]["forward"]["nodes"][0]
    assert node["attrs"]["source"]["cell"] == 7
    assert node["attrs"]["pylayer"].endswith("InCell")


def test_a_pylayer_inside_a_layer_is_under_that_layer_and_nested_pylayers_are_one_node():
    class Outer(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return CustomSigmoid.apply(x) * 2

        @staticmethod
        def backward(ctx, d):
            return d

    class Net(paddle.nn.Layer):
        def forward(self, x):
            return Outer.apply(x)
    x = paddle.to_tensor([1.0, -1.0], stop_gradient=False)
    with paddle.debug.record() as rec:
        Net()(x).sum().backward()
    doc = validated(rec.trace)
    nodes = doc["graph"]["forward"]["nodes"]
    assert [(n["op"], n["layer"]) for n in nodes] == [("Outer", "Net"), ("sum", None)]
    assert "CustomSigmoid" in nodes[0]["attrs"]["forward_ops"]
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])


def test_nobody_listening_costs_no_events_and_forward_ops_still_time_in_the_profile():
    assert not instrument.subscribers
    x = paddle.to_tensor([1.0], stop_gradient=False)
    CustomSigmoid.apply(x).sum().backward()  # no recorder: runs without emitting
    with paddle.debug.record() as rec:
        CustomSigmoid.apply(x)
    timed = {(t["op"], t["phase"]) for t in validated(rec.trace)["timings"]["ops"]}
    assert ("exp", "forward") in timed and ("CustomSigmoid", "forward") in timed


def test_a_forward_that_raises_leaves_the_recorder_ready_for_the_next_op():
    class Broken(PyLayer):
        @staticmethod
        def forward(ctx, x):
            paddle.exp(x)
            raise RuntimeError("boom")

        @staticmethod
        def backward(ctx, d):
            return d
    x = paddle.to_tensor([1.0], stop_gradient=False)
    with paddle.debug.record() as rec:
        try:
            Broken.apply(x)
        except RuntimeError:
            pass
        paddle.exp(x)
    assert [n["op"] for n in validated(rec.trace)["graph"]["forward"]["nodes"]] == ["exp"]
