"""A leaf's .grad after clear_grad(): zeros to every reader, replaced whole by the next backward when
nothing else holds the new gradient, and never sharing storage with a tensor someone else can see."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minipaddle as paddle
from minipaddle.framework.errors import MinipaddleError
from minipaddle.framework.tensor import ClearedGrad, ZeroedGrad


def _linear_with_grad():
    paddle.seed(0)
    lin = paddle.nn.Linear(4, 3)
    x = paddle.to_tensor(np.arange(8, dtype=np.float32).reshape(2, 4))
    return lin, x


def _expected_weight_grad(x):
    return x.numpy().T @ np.ones((2, 3), np.float32)   # d sum(x @ W + b) / dW


def test_a_held_grad_reads_zeros_after_clear_grad():
    lin, x = _linear_with_grad()
    lin(x).sum().backward()
    held = lin.weight.grad
    lin.clear_gradients()
    assert lin.weight.grad is held                     # the same Tensor object, as in Paddle
    np.testing.assert_array_equal(held.numpy(), np.zeros((4, 3), np.float32))
    assert type(held) is ClearedGrad                    # reading it filled the zeros


def test_every_reader_sees_zeros_between_clear_and_backward():
    lin, x = _linear_with_grad()
    lin(x).sum().backward()
    lin.clear_gradients()
    assert float(lin.weight.grad.sum()) == 0.0          # an op on it
    lin.clear_gradients()
    np.testing.assert_array_equal(np.asarray(lin.bias.grad), np.zeros(3, np.float32))
    lin.clear_gradients()
    assert str(lin.weight.grad).count("0.") >= 12       # printing


def test_the_next_backward_replaces_the_zeros_with_the_gradient():
    lin, x = _linear_with_grad()
    for _ in range(3):
        lin(x).sum().backward()
        g = lin.weight.grad
        np.testing.assert_allclose(g.numpy(), _expected_weight_grad(x), rtol=1e-6)
        np.testing.assert_allclose(lin.bias.grad.numpy(), np.full(3, 2.0, np.float32))
        lin.clear_gradients()
        assert type(lin.weight.grad) is ZeroedGrad and lin.weight.grad is g   # until the next backward


def test_gradients_still_accumulate_without_clear_grad():
    lin, x = _linear_with_grad()
    lin(x).sum().backward()
    lin.clear_gradients()
    for _ in range(3):
        lin(x).sum().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), 3 * _expected_weight_grad(x), rtol=1e-6)


def test_a_gradient_a_hook_kept_is_not_the_leafs_storage():
    w = paddle.to_tensor(np.ones(3, np.float32), stop_gradient=False)
    kept = []
    w.register_hook(lambda g: kept.append(g))
    (w * 2.0).sum().backward()
    w.clear_grad()
    (w * 5.0).sum().backward()
    (w * 1.0).sum().backward()      # adds into w.grad in place
    np.testing.assert_array_equal(w.grad.numpy(), np.full(3, 6.0, np.float32))
    np.testing.assert_array_equal(kept[0].numpy(), np.full(3, 2.0, np.float32))
    np.testing.assert_array_equal(kept[1].numpy(), np.full(3, 5.0, np.float32))


def test_two_leaves_given_one_gradient_do_not_share_it():
    # add's backward hands the same gradient to both inputs
    a = paddle.to_tensor(np.ones(3, np.float32), stop_gradient=False)
    b = paddle.to_tensor(np.ones(3, np.float32), stop_gradient=False)
    for _ in range(2):
        (a + b).sum().backward()
        assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())
        a.clear_grad()
        b.clear_grad()
    (a + b).sum().backward()
    (a * 3.0).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.full(3, 4.0, np.float32))
    np.testing.assert_array_equal(b.grad.numpy(), np.ones(3, np.float32))


def test_a_leaf_grad_never_shares_a_gradient_a_hook_on_the_path_kept():
    x = paddle.to_tensor(np.ones(3, np.float32), stop_gradient=False)
    kept = []
    for _ in range(2):
        y = x + 0.0                     # add's backward passes its gradient on unchanged
        y.register_hook(kept.append)
        (y * 2.0).sum().backward()
        assert not np.shares_memory(x.grad.numpy(), kept[-1].numpy())
        x.clear_grad()
    np.testing.assert_array_equal(kept[0].numpy(), np.full(3, 2.0, np.float32))


def test_an_optimizer_step_on_a_cleared_grad_sees_zeros():
    paddle.seed(0)
    lin = paddle.nn.Linear(2, 2)
    opt = paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters=lin.parameters())
    x = paddle.ones([1, 2])
    lin(x).sum().backward()
    opt.step()
    opt.clear_grad()
    before = lin.weight.numpy().copy()
    opt.step()                          # the zero grads still carry the momentum, as in Paddle
    moved = lin.weight.numpy() - before
    np.testing.assert_allclose(moved, np.full((2, 2), -0.1 * 0.9), rtol=1e-5)


def test_a_tensor_saved_for_backward_notices_clear_grad():
    w = paddle.to_tensor(np.ones(3, np.float32), stop_gradient=False)
    (w * 2.0).sum().backward()
    g = w.grad
    g.stop_gradient = False
    out = (g * g).sum()
    w.clear_grad()
    with pytest.raises(MinipaddleError, match="modified by an in-place op"):
        out.backward()


def test_clear_grad_without_zeroing_drops_the_grad():
    lin, x = _linear_with_grad()
    lin(x).sum().backward()
    lin.clear_gradients(set_to_zero=False)
    assert lin.weight.grad is None
    lin(x).sum().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), _expected_weight_grad(x), rtol=1e-6)


def test_a_gradient_nothing_else_holds_is_taken_not_copied(monkeypatch):
    from minipaddle.framework import arrays
    copies = []
    copy = arrays.copy
    monkeypatch.setattr(arrays, "copy", lambda a: copies.append(a.shape) or copy(a))
    lin, x = _linear_with_grad()
    for _ in range(2):
        lin(x).sum().backward()
        lin.clear_gradients()
    assert copies == []                 # weight (a matmul's output) and bias (a sum's): taken, twice


def test_a_grad_held_across_the_next_backward_keeps_its_zeros_as_in_paddle():
    lin, x = _linear_with_grad()
    lin(x).sum().backward()
    held = lin.weight.grad
    lin.clear_gradients()
    lin(x).sum().backward()
    assert lin.weight.grad is not held
    np.testing.assert_array_equal(held.numpy(), np.zeros((4, 3), np.float32))
    np.testing.assert_allclose(lin.weight.grad.numpy(), _expected_weight_grad(x), rtol=1e-6)


# ---- any sequence of backward / clear / read / write-by-hand / hold, against Paddle's model ----------------
# Paddle's model (its goldens in tests/compat/cases_autograd.py): a grad is a storage; backward adds into
# it, except right after clear_grad(), when it starts a new storage; clear_grad() zeroes the storage in
# place; clear_grad(False) drops it; a held grad keeps reading the storage it held.
ACTIONS = ("backward", "clear", "drop", "read", "add_by_hand", "hold")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(ACTIONS), max_size=12), st.integers(1, 3))
def test_any_sequence_matches_paddles_model(actions, scale):
    w = paddle.to_tensor(np.ones(3, np.float32), stop_gradient=False)
    storage, cleared, held = None, False, []    # the model: the grad's storage (a 1-element list), held ones
    for i, action in enumerate(actions):
        if action == "backward":
            g = float(scale * (i + 1))
            (w * g).sum().backward()
            if storage is None or cleared:
                storage = [g]
            else:
                storage[0] += g
            cleared = False
        elif action == "clear" and storage is not None:
            w.clear_grad()
            storage[0], cleared = 0.0, True
        elif action == "drop":
            w.clear_grad(set_to_zero=False)
            storage, cleared = None, False
        elif action == "read" and storage is not None:
            np.testing.assert_array_equal(w.grad.numpy(), np.full(3, storage[0], np.float32))
        elif action == "add_by_hand" and storage is not None:
            with paddle.no_grad():
                w.grad.add_(paddle.ones([3]))
            storage[0] += 1.0
        elif action == "hold" and storage is not None:
            held.append((w.grad, storage))
    if storage is None:
        assert w.grad is None
    else:
        np.testing.assert_array_equal(w.grad.numpy(), np.full(3, storage[0], np.float32))
    for tensor, model in held:
        np.testing.assert_array_equal(tensor.numpy(), np.full(3, model[0], np.float32))
