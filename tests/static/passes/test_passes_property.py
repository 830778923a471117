"""The default passes on random small training programs: whatever fusion, the GEMM epilogue, bias-gradient
sums, recomputation and buffer reuse make of them, training gives the unoptimized program's losses and
parameters."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static
from minipaddle.framework.static.passes import apply_passes

from .programs import Case, run_case

ACTIVATIONS = {
    "relu": F.relu,
    "gelu_tanh": lambda h: 0.5 * h * (1.0 + paddle.tanh(0.7978845608 * (h + 0.044715 * h * h * h))),
    "sigmoid_gate": lambda h: h * F.sigmoid(h),
    "leaky_relu": lambda h: F.leaky_relu(h, 0.1) * 2.0 + 0.5,
    "none": lambda h: h,
}


def _case(conv: bool, widths: list[int], activations: list[str], batch: int) -> Case:
    paddle.seed(7)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        if conv:
            x = static.data("x", [None, 2, 6, 6], "float32")
            h = ACTIVATIONS[activations[0]](paddle.nn.Conv2D(2, 3, 3, padding=1)(x))
            h = paddle.flatten(h, 1)
            n_in = 3 * 6 * 6
        else:
            x = static.data("x", [None, 5], "float32")
            h, n_in = x, 5
        for width, act in zip(widths, activations[1:]):
            h = ACTIVATIONS[act](paddle.nn.Linear(n_in, width)(h))
            n_in = width
        y = static.data("y", [None], "int64")
        loss = F.cross_entropy(paddle.nn.Linear(n_in, 3)(h), y)
        paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9).minimize(loss)
    shape = (batch, 2, 6, 6) if conv else (batch, 5)

    def feed(rng):
        return {"x": rng.standard_normal(shape).astype(np.float32), "y": rng.integers(0, 3, batch)}
    return Case(main, startup, [loss], feed, steps=3)


@settings(max_examples=12, deadline=None)
@given(conv=st.booleans(), widths=st.lists(st.integers(1, 9), min_size=0, max_size=3),
       activations=st.lists(st.sampled_from(sorted(ACTIVATIONS)), min_size=4, max_size=4),
       batch=st.integers(1, 5))
def test_optimized_training_equals_the_program_it_came_from(conv, widths, activations, batch):
    case = _case(conv, widths, activations, batch)
    optimized, _ = apply_passes(case.main, fetch_list=case.fetch)
    for a, b in zip(run_case(case, case.main), run_case(case, optimized)):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)
