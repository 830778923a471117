"""The instrument bus: which events dispatch and autograd send, with what, and nothing when nobody listens."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework import instrument
from minipaddle.framework.autograd.node import AccumulateGrad, GradNode

from .conftest import MLP


@pytest.fixture
def events():
    heard: list[instrument.Event] = []
    unsubscribe = instrument.subscribe(heard.append)
    yield heard
    unsubscribe()


def test_an_op_event_carries_the_call(events):
    x = paddle.to_tensor([1.0, 2.0])
    out = paddle.clip(x, min=0.0, max=1.5)
    (e,) = events
    assert (e.kind, e.op, e.opdef.name, e.layer, e.grad_node) == ("op", "clip", "clip", None, None)
    assert e.inputs[0] is x and e.outputs[0] is out and e.attrs == {"min": 0.0, "max": 1.5}
    assert e.kernel(x.numpy(), min=0.0, max=1.5).tolist() == out.numpy().tolist() == [1.0, 1.5]
    assert 0 <= e.end_ns - e.start_ns < 10**9


def test_grad_node_is_announced_before_its_op_and_ops_know_their_layer(events):
    model = MLP()
    model(paddle.ones([2, 4]))
    kinds = [(e.kind, getattr(e, "op", None), getattr(e, "layer", None)) for e in events]
    assert kinds == [("grad_node", "linear", None), ("op", "linear", "MLP.fc1"), ("grad_node", "relu", None),
                     ("op", "relu", "MLP"), ("grad_node", "linear", None), ("op", "linear", "MLP.fc2")]
    node_event, op_event = events[0], events[1]
    assert isinstance(node_event.node, GradNode) and op_event.grad_node is node_event.node
    assert op_event.outputs[0].grad_fn is node_event.node


def test_backward_reports_each_node_with_the_gradients_it_sent(events):
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    b = paddle.to_tensor([3.0, 4.0], stop_gradient=False)
    loss = (a * b).sum()
    events.clear()
    loss.backward()
    kinds = [e.kind for e in events]
    assert kinds[0] == "backward_begin" and kinds[-1] == "backward_end"
    assert events[0].outputs == [loss] and events[0].api == "backward"
    steps = [e for e in events if e.kind == "backward_step"]
    assert [s.node.name for s in steps][:2] == ["sum_grad", "multiply_grad"]
    mul = steps[1]
    assert [g.numpy().tolist() for g in mul.grads_out] == [[3.0, 4.0], [1.0, 2.0]]
    assert mul.grads_in[0].numpy().tolist() == [1.0, 1.0] and mul.tensor is None
    leaves = [s for s in steps if isinstance(s.node, AccumulateGrad)]
    assert {id(s.tensor) for s in leaves} == {id(a), id(b)} and all(s.grads_out == [] for s in leaves)
    assert all(s.start_ns <= s.end_ns for s in steps)
    ops_inside = kinds[kinds.index("backward_begin"):kinds.index("backward_end")].count("op")
    assert ops_inside >= 2  # the multiply rule's own ops are reported too


def test_paddle_grad_reports_the_leaf_step_without_a_tensor(events):
    a = paddle.to_tensor([2.0], stop_gradient=False)
    out = a * a
    events.clear()
    (g,) = paddle.grad([out], [a])
    assert events[0].api == "grad" and g.numpy().tolist() == [4.0]
    assert all(e.tensor is None for e in events if e.kind == "backward_step")


def test_a_hook_event_shows_what_the_hook_saw_and_returned(events):
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 2.0

    def double(g):
        return g * 2.0
    y.register_hook(double)
    y.sum().backward()
    (hook,) = [e for e in events if e.kind == "hook"]
    assert hook.hook is double and hook.index == 0 and hook.node is y.grad_fn
    assert hook.grad.numpy().tolist() == [1.0, 1.0] and hook.result.numpy().tolist() == [2.0, 2.0]
    assert x.grad.numpy().tolist() == [4.0, 4.0]


def test_nobody_listening_means_no_events_and_the_same_results():
    assert instrument.subscribers == []
    heard: list = []
    x = paddle.to_tensor(np.arange(4.0, dtype=np.float32), stop_gradient=False)
    plain = (x * x).sum()
    plain.backward()
    plain_grad = x.grad.numpy().copy()
    x.clear_grad(set_to_zero=False)
    unsubscribe = instrument.subscribe(heard.append)
    traced = (x * x).sum()
    traced.backward()
    unsubscribe()
    assert instrument.subscribers == [] and len(heard) > 0
    assert float(traced) == float(plain) and x.grad.numpy().tolist() == plain_grad.tolist()
    unsubscribe()  # a second call is harmless
    count = len(heard)
    paddle.add(x, x).sum().backward()
    assert len(heard) == count  # unsubscribed: nothing more arrives


def test_optimizer_updates_are_measured_only_for_subscribers_that_want_them():
    """The profiler and the autotuner subscribe to other kinds: with only such a listener the optimizer
    sends no OptimizerUpdate events (and computes no norms); a recorder-like one gets them."""
    w = paddle.create_parameter([3], "float32")
    opt = paddle.optimizer.SGD(0.1, parameters=[w])

    def step(kinds) -> list:
        heard: list = []
        unsubscribe = instrument.subscribe(lambda e: heard.append(e.kind), kinds=kinds)
        try:
            (w * w).sum().backward()
            opt.step()
            opt.clear_grad()
        finally:
            unsubscribe()
        return heard

    assert "optimizer_update" not in step(("op", "backward_end"))
    assert step(None).count("optimizer_update") == 1
    assert instrument.subscribers == [] and not any(instrument.listeners.values())


def test_a_subscriber_hears_only_the_kinds_it_asked_for():
    heard: list = []
    unsubscribe = instrument.subscribe(heard.append, kinds=("backward_begin", "backward_end"))
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    unsubscribe()
    assert [type(e) for e in heard] == [instrument.BackwardBegin, instrument.BackwardEnd]
    assert heard[0].api == "backward" and heard[0].kind == "backward_begin"


def test_an_unknown_kind_is_refused_with_the_known_ones():
    with pytest.raises(paddle.errors.InvalidArgument, match="unknown event kind"):
        instrument.subscribe(print, kinds=("opp",))
    assert instrument.subscribers == []


def test_every_kind_has_one_dataclass_named_by_its_kind():
    assert set(instrument.EVENT_TYPES) == set(instrument.listeners)
    for kind, cls in instrument.EVENT_TYPES.items():
        assert issubclass(cls, instrument.Event) and cls.kind == kind and cls.__doc__


def test_optimizer_step_is_reported_begin_and_end():
    w = paddle.create_parameter([3], "float32")
    opt = paddle.optimizer.SGD(0.1, parameters=[w])
    (w * w).sum().backward()
    heard: list = []
    unsubscribe = instrument.subscribe(heard.append, kinds=("optimizer_step_begin", "optimizer_step_end"))
    assert instrument.subscribers == []  # the training loop's kinds leave every op on its fast path
    opt.step()
    unsubscribe()
    begin, end = heard
    assert (begin.kind, end.kind) == ("optimizer_step_begin", "optimizer_step_end")
    assert begin.optimizer is opt is end.optimizer and begin.start_ns == end.start_ns <= end.end_ns


@pytest.mark.parametrize("workers", [0, 2])
def test_each_batch_is_reported_begin_and_end_and_the_epoch_end_says_so(workers):
    loader = paddle.io.DataLoader(paddle.io.TensorDataset([paddle.arange(6, dtype="float32")]), batch_size=4,
                                  num_workers=workers, worker_mode="thread")
    heard: list = []
    unsubscribe = instrument.subscribe(heard.append, kinds=("dataloader_next_begin", "dataloader_next_end"))
    batches = list(loader)
    unsubscribe()
    assert len(batches) == 2
    assert [e.kind for e in heard] == ["dataloader_next_begin", "dataloader_next_end"] * 3
    ends = heard[1::2]
    assert [e.exhausted for e in ends] == [False, False, True] and all(e.loader is loader for e in heard)
    assert all(e.start_ns <= e.end_ns for e in ends)
