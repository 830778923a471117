"""Autograd semantics: accumulation, retain_graph, paddle.grad, hooks, no_grad, reuse, in-place."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, PreconditionNotMet


def leaf(values, dtype="float64"):
    return paddle.to_tensor(values, dtype=dtype, stop_gradient=False)


def test_created_tensors_stop_gradient_and_results_follow_inputs():
    a = paddle.to_tensor([1.0])
    b = leaf([2.0])
    assert a.stop_gradient and not b.stop_gradient
    assert (a * 2).stop_gradient
    assert not (a * b).stop_gradient
    assert (a * b).grad_fn is not None and b.is_leaf and not (a * b).is_leaf


def test_leaf_grads_accumulate_across_backward_calls_until_clear_grad():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2 + 3, 4 + 3])
    x.clear_grad()
    np.testing.assert_allclose(x.grad.numpy(), [0, 0])
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2, 4])
    x.clear_grad(set_to_zero=False)
    assert x.grad is None


def test_reused_intermediate_gets_the_summed_gradient():
    x = leaf([3.0])
    h = x * x          # used twice below
    y = h * 2 + h * h  # dy/dh = 2 + 2h; dh/dx = 2x
    y.backward()
    h_val = 9.0
    np.testing.assert_allclose(x.grad.numpy(), [(2 + 2 * h_val) * 2 * 3.0])


def test_same_leaf_used_twice_in_one_op():
    x = leaf([2.0, 5.0])
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 10.0])


def test_second_backward_through_freed_graph_raises_clear_error():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(PreconditionNotMet, match="retain_graph=True"):
        y.backward()


def test_retained_graph_backward_twice_accumulates():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])


def test_backward_with_explicit_grad_tensor():
    x = leaf([1.0, 2.0])
    y = x * 3
    y.backward(paddle.to_tensor([1.0, 10.0], dtype="float64"))
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 30.0])


def test_backward_on_tensor_without_graph_is_an_error():
    with pytest.raises(InvalidArgument, match="stop_gradient=True"):
        paddle.to_tensor([1.0]).backward()


def test_paddle_grad_returns_grads_without_touching_dot_grad():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    y = (x * w).sum()
    gx, gw = paddle.grad(y, [x, w])
    np.testing.assert_allclose(gx.numpy(), [3.0, 4.0])
    np.testing.assert_allclose(gw.numpy(), [1.0, 2.0])
    assert x.grad is None and w.grad is None
    assert gx.stop_gradient


def test_paddle_grad_with_respect_to_an_intermediate():
    x = leaf([2.0])
    h = x * x
    y = h * 3
    (gh,) = paddle.grad(y, h)
    np.testing.assert_allclose(gh.numpy(), [3.0])


def test_paddle_grad_unused_input_needs_allow_unused():
    x = leaf([1.0])
    z = leaf([1.0])
    y = x * 2
    with pytest.raises(InvalidArgument, match="allow_unused=True"):
        paddle.grad(y, [x, z], retain_graph=True)
    gx, gz = paddle.grad(y, [x, z], allow_unused=True)
    assert gz is None
    np.testing.assert_allclose(gx.numpy(), [2.0])


def test_paddle_grad_grad_outputs_and_bad_arguments():
    x = leaf([1.0, 2.0])
    y = x * x
    (g,) = paddle.grad(y, x, grad_outputs=paddle.to_tensor([1.0, 0.5], dtype="float64"), retain_graph=True)
    np.testing.assert_allclose(g.numpy(), [2.0, 2.0])
    with pytest.raises(InvalidArgument, match="grad_outputs"):
        paddle.grad(y, x, grad_outputs=[None, None])
    with pytest.raises(InvalidArgument, match="expected a Tensor"):
        paddle.grad(y, [1.0])
    with pytest.raises(InvalidArgument, match="shape"):
        paddle.grad(y, x, grad_outputs=paddle.to_tensor([1.0], dtype="float64"))


def test_double_grad_example_from_the_tutorial():
    x = paddle.to_tensor(1.0, stop_gradient=False)
    y = x * x
    (dx,) = paddle.grad(y, x, create_graph=True)
    assert not dx.stop_gradient
    (y + dx).backward()
    assert x.grad.item() == pytest.approx(4.0)


def test_third_derivative_through_create_graph():
    x = leaf([0.7])
    y = paddle.sin(x)
    (d1,) = paddle.grad(y, x, create_graph=True)
    (d2,) = paddle.grad(d1, x, create_graph=True)
    (d3,) = paddle.grad(d2, x)
    np.testing.assert_allclose([d1.item(), d2.item(), d3.item()],
                               [np.cos(0.7), -np.sin(0.7), -np.cos(0.7)], rtol=1e-12)


def test_hook_can_replace_the_gradient_and_be_removed():
    x = leaf([1.0, 2.0])
    seen = []

    def double(g):
        seen.append(g.numpy().copy())
        return g * 2

    handle = x.register_hook(double)
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])
    np.testing.assert_allclose(seen[0], [3.0, 3.0])
    assert handle.remove()
    x.clear_grad()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    assert len(seen) == 1


def test_hook_on_intermediate_sees_the_summed_gradient_once():
    x = leaf([1.0])
    h = x * 2
    calls = []
    h.register_hook(lambda g: calls.append(g.item()))
    (h * 3 + h * 4).backward()
    assert calls == [7.0]
    np.testing.assert_allclose(x.grad.numpy(), [14.0])


def test_hook_returning_none_keeps_gradient_and_hooks_fire_for_paddle_grad():
    x = leaf([1.0])
    calls = []
    x.register_hook(lambda g: calls.append(g.item()))
    (g,) = paddle.grad(x * 5, x)
    assert calls == [5.0] and g.item() == 5.0


def test_register_hook_errors():
    with pytest.raises(InvalidArgument, match="stop_gradient=True"):
        paddle.to_tensor([1.0]).register_hook(lambda g: g)
    with pytest.raises(InvalidArgument, match="expected a callable"):
        leaf([1.0]).register_hook(3)


def test_no_grad_context_and_decorator():
    x = leaf([1.0])
    with paddle.no_grad():
        assert not paddle.is_grad_enabled()
        y = x * 2
        with paddle.enable_grad():
            z = x * 2
    assert paddle.is_grad_enabled()
    assert y.stop_gradient and y.grad_fn is None
    assert not z.stop_gradient

    @paddle.no_grad()
    def f(t):
        return t * 2

    assert f(x).stop_gradient


def test_set_grad_enabled_as_call_and_context():
    x = leaf([1.0])
    with paddle.set_grad_enabled(False):
        assert (x * 2).stop_gradient
    assert paddle.is_grad_enabled()
    paddle.set_grad_enabled(False)
    try:
        assert (x * 2).stop_gradient
    finally:
        paddle.set_grad_enabled(True)
    assert not (x * 2).stop_gradient


def test_detach_cuts_the_graph_and_shares_storage():
    x = leaf([1.0, 2.0])
    d = (x * 2).detach()
    assert d.stop_gradient and d.grad_fn is None
    y = x * 1
    dy = y.detach()
    dy.numpy()[0] = 42.0
    assert y.numpy()[0] == 42.0


def test_clone_stays_in_the_graph():
    x = leaf([1.0, 2.0])
    c = x.clone()
    (c * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    c2 = x.clone()
    c2.numpy()[0] = 99
    assert x.numpy()[0] == 1.0


def test_gradient_reduces_over_broadcast_axes():
    w = leaf(np.ones((3,)))
    x = paddle.to_tensor(np.arange(6.0).reshape(2, 3))
    (x * w).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [3.0, 5.0, 7.0])


def test_integer_outputs_carry_no_gradient():
    x = leaf([1.0, -2.0])
    assert (x > 0).stop_gradient


def test_leaf_grad_dtype_and_shape_match_leaf():
    x = paddle.to_tensor([[1.0, 2.0]], dtype="float32", stop_gradient=False)
    (x.astype("float64") * 2).sum().backward()
    assert x.grad.dtype == paddle.float32 and x.grad.shape == [1, 2]


def test_grads_of_two_leaves_fed_the_same_gradient_do_not_alias():
    a = leaf([1.0])
    b = leaf([1.0])
    (a + b).sum().backward()
    with paddle.no_grad():   # a .grad is a leaf that needs grad (as in Paddle): in place only under no_grad
        a.grad.zero_()
    assert b.grad.item() == 1.0


# ---- in-place ops and version counters ------------------------------------------------
def test_inplace_change_of_a_saved_tensor_raises_naming_the_op():
    x = leaf([1.0, 2.0])
    y = x * 1
    z = y * y           # multiply saves y
    y.add_(paddle.to_tensor([1.0, 1.0], dtype="float64"))
    with pytest.raises(PreconditionNotMet, match="multiply.*modified by an in-place op"):
        z.sum().backward()


def test_inplace_change_through_a_view_is_detected():
    x = leaf([1.0, 2.0, 3.0, 4.0])
    y = x * 1
    z = paddle.exp(y)     # exp saves its output; multiply below saves y
    w = y * y
    view = y.reshape([2, 2])
    view.scale_(2.0)
    with pytest.raises(PreconditionNotMet, match="multiply"):
        w.sum().backward()
    z.sum().backward()    # exp's saved output was not touched
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0, 3.0, 4.0]))


def test_inplace_on_unsaved_tensor_keeps_gradients_right():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.add_(paddle.to_tensor([10.0, 10.0], dtype="float64"))   # add saves nothing
    y.exp_()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([12.0, 14.0]))
    assert y.inplace_version == 2


def test_inplace_on_leaf_needing_grad_is_refused_unless_no_grad():
    x = leaf([1.0])
    with pytest.raises(InvalidArgument, match="leaf tensor"):   # Paddle's InvalidArgument (a ValueError)
        x.add_(paddle.to_tensor([1.0], dtype="float64"))
    with paddle.no_grad():
        x.add_(paddle.to_tensor([1.0], dtype="float64"))
    assert x.item() == 2.0


def test_inplace_result_must_keep_the_shape():
    x = paddle.to_tensor([1.0, 2.0])
    with pytest.raises(InvalidArgument, match="add_.*in-place ops cannot broadcast"):
        x.add_(paddle.to_tensor([[1.0], [2.0]]))


def test_zero_fill_and_set_value():
    x = paddle.to_tensor([1.0, 2.0])
    x.fill_(3.0)
    assert x.numpy().tolist() == [3.0, 3.0]
    x.zero_()
    assert x.numpy().tolist() == [0.0, 0.0]
    x.set_value(np.array([5.0, 6.0]))
    assert x.numpy().tolist() == [5.0, 6.0] and x.dtype == paddle.float32
    with pytest.raises(InvalidArgument, match="set_value"):
        x.set_value([1.0, 2.0, 3.0])


def test_shape_changing_inplace_ops_keep_storage_and_gradients():
    x = leaf([[1.0, 2.0, 3.0]])
    y = x * 2
    y.squeeze_(0)
    assert y.shape == [3]
    y.unsqueeze_(1)
    assert y.shape == [3, 1]
    y.reshape_([1, 3])
    y.flatten_()
    assert y.shape == [3] and y.inplace_version == 4
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[8.0, 16.0, 24.0]])


def test_inplace_on_a_view_of_a_leaf_needing_grad_is_refused():
    x = leaf([1.0, 2.0])
    with pytest.raises(PreconditionNotMet, match="view of a leaf tensor"):
        x.reshape([2, 1]).scale_(2.0)
    assert x.numpy().tolist() == [1.0, 2.0]


def test_paddle_grad_no_grad_vars_block_their_paths():
    x = leaf([2.0])
    h = x * 3          # blocked below
    y = h * x + x * x  # via h: 3x*... ; direct: x*h' + 2x
    (g,) = paddle.grad(y, x, no_grad_vars=[h])
    # with h held constant: dy/dx = h + 2x = 6 + 4
    np.testing.assert_allclose(g.numpy(), [10.0])
    with pytest.raises(InvalidArgument, match="no_grad_vars"):
        paddle.grad(x * 2, x, no_grad_vars=[3.0])
