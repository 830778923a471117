"""paddle.autograd.PyLayer and paddle.autograd.backward: a user-written op is one node of the graph,
its backward is checked like any op's (central differences, double grad), and what it returns is
checked with errors that name the PyLayer."""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.autograd import PyLayer
from tests.ops.opcheck import check_double_grad, check_grad


class Sigmoid(PyLayer):
    """Saves its output: double grad has to flow back through the PyLayer's own node."""

    @staticmethod
    def forward(ctx, x):
        y = 1 / (1 + paddle.exp(-x))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensor()
        return dy * y * (1 - y)


class MulAdd(PyLayer):
    @staticmethod
    def forward(ctx, a, b, scale=1.0, c=None):
        ctx.save_for_backward(a, b)
        ctx.scale = scale
        return a * b * scale + c

    @staticmethod
    def backward(ctx, d):
        a, b = ctx.saved_tensor()
        return d * b * ctx.scale, d * a * ctx.scale, d


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, shape)


def test_forward_runs_without_recording_and_the_call_is_one_grad_node():
    seen = {}

    class Probe(PyLayer):
        @staticmethod
        def forward(ctx, x):
            inner = x * 2 + 1
            seen["inner_has_node"] = inner._node is not None
            seen["grad_enabled"] = paddle.is_grad_enabled()
            return inner

        @staticmethod
        def backward(ctx, d):
            return d * 2
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = Probe.apply(x)
    assert seen == {"inner_has_node": False, "grad_enabled": False}
    assert not y.stop_gradient and y._node.name == "Probe_grad"
    assert y._node.next_edges[0][0] is x._accum or y._node.next_edges[0][0].name == "accumulate_grad"
    assert paddle.is_grad_enabled()


def test_sigmoid_gradient_matches_central_differences():
    check_grad(Sigmoid.apply, [_rand(3, 4)])


def test_sigmoid_double_grad_through_the_saved_output():
    check_double_grad(Sigmoid.apply, [_rand(2, 3)])


def test_several_tensor_inputs_positional_and_keyword_match_central_differences():
    check_grad(lambda a, b, c: MulAdd.apply(a, b, 0.5, c=c), [_rand(2, 3), _rand(2, 3, seed=1), _rand(2, 3, seed=2)])


def test_matches_autograd_of_the_same_formula():
    x = paddle.to_tensor(_rand(5).astype("float32"), stop_gradient=False)
    (Sigmoid.apply(x) * paddle.arange(5, dtype="float32")).sum().backward()
    custom = x.grad.numpy().copy()
    x.clear_gradient()
    (paddle.nn.functional.sigmoid(x) * paddle.arange(5, dtype="float32")).sum().backward()
    np.testing.assert_allclose(custom, x.grad.numpy(), rtol=1e-6)


def test_several_outputs_each_get_their_gradient_and_non_tensor_outputs_pass_through():
    class Split(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2, "label", x * 3

        @staticmethod
        def backward(ctx, d2, d3):
            return d2 * 2 + d3 * 3
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    a, label, b = Split.apply(x)
    assert label == "label"
    (a + b * 10).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [32.0, 32.0])


def test_materialize_grads_false_passes_none_for_an_unused_output():
    got = []

    class Two(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, d1, d2):
            got.append(d2)
            return d1 * 2
    x = paddle.to_tensor([1.0], stop_gradient=False)
    Two.apply(x)[0].sum().backward()
    assert got == [None]


def test_mark_non_differentiable_output_stops_gradient_and_gets_zeros():
    got = []

    class WithMax(PyLayer):
        @staticmethod
        def forward(ctx, x):
            m = x.max()
            ctx.mark_non_differentiable(m)
            return x * 1, m

        @staticmethod
        def backward(ctx, d, dm):
            got.append(dm.numpy())
            return d
    x = paddle.to_tensor([1.0, 3.0], stop_gradient=False)
    y, m = WithMax.apply(x)
    assert m.stop_gradient and not y.stop_gradient
    y.sum().backward()
    assert got[0] == 0.0


def test_an_input_returned_as_is_comes_back_as_a_new_tensor():
    class Identity(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, d):
            return d * 5
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = Identity.apply(x)
    assert y is not x and x._node is None
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])


def test_all_inputs_stop_gradient_records_nothing():
    y = Sigmoid.apply(paddle.to_tensor([0.0]))
    assert y.stop_gradient and y._node is None


def test_under_no_grad_records_nothing():
    x = paddle.to_tensor([0.0], stop_gradient=False)
    with paddle.no_grad():
        y = Sigmoid.apply(x)
    assert y.stop_gradient


def _returning(result_fn):
    class Returns(PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, d):
            return result_fn(d)
    return Returns


@pytest.mark.parametrize("result_fn, y_needs_grad, message", [
    (lambda d: (d, d, d), True, "Returns.backward: returned 3 gradients, but forward took 2 Tensor input"),
    (lambda d: d, True, "returned None for Tensor input 1, which needs a gradient; expected a Tensor of shape [2]"),
    (lambda d: (d, 1.0), True, "gradient 1 is float, expected a Tensor or None"),
    (lambda d: (d, d), False, "returned a gradient for Tensor input 1, which has stop_gradient=True; expected None"),
    (lambda d: (paddle.ones([3]), None), False, "gradient 0 has shape [3], expected the shape of Tensor input 0, [2]"),
])
def test_wrong_backward_results_raise_errors_naming_the_pylayer(result_fn, y_needs_grad, message):
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = paddle.to_tensor([3.0, 4.0], stop_gradient=not y_needs_grad)
    with pytest.raises(paddle.errors.InvalidArgument, match=message.replace("[", r"\[").replace("]", r"\]")):
        _returning(result_fn).apply(x, y).sum().backward()


def test_fewer_gradients_than_inputs_are_padded_with_none_for_stop_gradient_inputs():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    _returning(lambda d: d).apply(x, paddle.to_tensor([3.0, 4.0])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])


def test_forward_without_a_tensor_output_is_an_error():
    class NoTensor(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return 3.0

        @staticmethod
        def backward(ctx, d):
            return d
    with pytest.raises(paddle.errors.InvalidArgument, match="NoTensor.forward: returned float; expected a Tensor"):
        NoTensor.apply(paddle.to_tensor([1.0], stop_gradient=False))


def test_unwritten_forward_or_backward_is_unimplemented():
    class OnlyForward(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2
    with pytest.raises(NotImplementedError, match="PyLayer.forward"):
        PyLayer.apply(paddle.to_tensor([1.0]))
    with pytest.raises(NotImplementedError, match="PyLayer.backward"):
        OnlyForward.apply(paddle.to_tensor([1.0], stop_gradient=False)).sum().backward()


def test_saved_tensors_are_freed_after_backward_and_a_second_backward_says_so():
    x = paddle.to_tensor([1.0], stop_gradient=False)
    loss = Sigmoid.apply(x).sum()
    loss.backward()
    with pytest.raises(paddle.errors.PreconditionNotMet, match="retain_graph=True"):
        loss.backward()


def test_changing_a_saved_tensor_in_place_before_backward_is_an_error():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    h = x * 1
    loss = MulAdd.apply(h, h, c=paddle.to_tensor([0.0, 0.0])).sum()
    with paddle.no_grad():
        h.add_(paddle.to_tensor([1.0, 1.0]))
    with pytest.raises(paddle.errors.PreconditionNotMet, match="saved tensor 0 was modified by an in-place op"):
        loss.backward()


def test_retain_graph_lets_backward_run_twice():
    x = paddle.to_tensor([0.0], stop_gradient=False)
    loss = Sigmoid.apply(x).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.5])


def test_a_graph_through_a_pylayer_is_collected_when_dropped():
    x = paddle.to_tensor([1.0], stop_gradient=False)
    y = Sigmoid.apply(x)  # the ctx holds y, y holds the node, the node holds the ctx: a cycle
    ref = weakref.ref(y._node)
    del y
    gc.collect()
    assert ref() is None


def test_autograd_backward_several_tensors_with_grad_tensors():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    paddle.autograd.backward([x * 2, x * x], [paddle.to_tensor([1.0, 0.5]), None])
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 5.0])


def test_autograd_backward_frees_the_graph_unless_retained():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    z = (x * x).sum()
    paddle.autograd.backward(z, retain_graph=True)
    paddle.autograd.backward(z)
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])
    with pytest.raises(paddle.errors.PreconditionNotMet):
        paddle.autograd.backward(z)


@pytest.mark.parametrize("call, message", [
    (lambda x: paddle.autograd.backward([x * 2], [None, None]), "got 2 grad_tensors for 1 tensors"),
    (lambda x: paddle.autograd.backward(3.0), r"tensors\[0\] is float, expected a Tensor"),
    (lambda x: paddle.autograd.backward([x * 2], [1.0]), r"grad_tensors\[0\] is float"),
    (lambda x: paddle.autograd.backward(x * 2, paddle.ones([3])),
     r"has shape \[3\], expected the output's shape \[2\]"),
])
def test_autograd_backward_bad_arguments(call, message):
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(paddle.errors.InvalidArgument, match=message):
        call(x)
