"""SGD's CPU update is one numba loop (kernels/cpu/optimizer_updates.py): the same numbers as numpy's
`param -= lr * grad`, in place, for every float dtype and layout it takes, and numpy's path for the rest."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_sgd_step_equals_numpy_in_place(dtype):
    rng = np.random.default_rng(0)
    start = rng.standard_normal((5, 7)).astype(dtype)
    w = paddle.create_parameter([5, 7], dtype, default_initializer=paddle.nn.initializer.Assign(start))
    storage = w._data
    (w * paddle.to_tensor(rng.standard_normal((5, 7)).astype(dtype))).sum().backward()
    grad = w.grad.numpy()
    paddle.optimizer.SGD(learning_rate=0.3, parameters=[w]).step()
    expected = start.copy()
    expected -= np.dtype(dtype).type(0.3) * grad
    assert w._data is storage  # updated in place: views and optimizer state stay valid
    np.testing.assert_array_equal(w.numpy(), expected)
