"""lr.CyclicLR: the rates of each mode against torch's CyclicLR (the same formula), state, errors.
Paddle's own numbers are in tests/compat/cases_optim.py."""
from __future__ import annotations

import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, InvalidType
from tests.ops.opcheck import torch_or_skip

CyclicLR = paddle.optimizer.lr.CyclicLR


def _rates(sched, steps: int = 15) -> list:
    out = []
    for _ in range(steps):
        out.append(sched())
        sched.step()
    return out


@pytest.mark.parametrize("kwargs", [
    {"step_size_up": 2}, {"step_size_up": 3, "step_size_down": 1}, {"step_size_up": 2, "mode": "triangular2"},
    {"step_size_up": 2, "mode": "exp_range", "exp_gamma": 0.9},
])
def test_rates_match_torch(kwargs):
    torch = torch_or_skip()
    w = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    torch_kwargs = {k: v for k, v in kwargs.items() if k != "exp_gamma"}
    if "exp_gamma" in kwargs:
        torch_kwargs["gamma"] = kwargs["exp_gamma"]
    sched = torch.optim.lr_scheduler.CyclicLR(opt, 0.1, 0.9, cycle_momentum=False, **torch_kwargs)
    want = []
    for _ in range(15):
        want.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert _rates(CyclicLR(0.1, 0.9, **kwargs)) == pytest.approx(want, rel=1e-12)


def test_a_triangle_goes_up_and_down_between_base_and_max():
    assert _rates(CyclicLR(0.1, 0.5, step_size_up=2), 6) == pytest.approx([0.1, 0.3, 0.5, 0.3, 0.1, 0.3])


def test_a_custom_scale_fn_overrides_mode():
    halves = _rates(CyclicLR(0.0, 1.0, step_size_up=1, mode="not a mode", scale_fn=lambda c: 1.0 / c), 6)
    assert halves == pytest.approx([0.0, 1.0, 0.0, 0.5, 0.0, 1 / 3])


def test_state_dict_restores_the_position_in_the_cycle():
    a = CyclicLR(0.1, 0.5, step_size_up=2)
    a.step()
    b = CyclicLR(0.1, 0.5, step_size_up=2)
    b.set_state_dict(a.state_dict())
    assert b() == a() == pytest.approx(0.3)
    assert _rates(a, 4) == _rates(b, 4)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"step_size_up": 0}, InvalidArgument, "step_size_up must be a positive int"),
    ({"step_size_up": 2.5}, InvalidType, "step_size_up must be int"),
    ({"step_size_up": 2, "exp_gamma": 1}, InvalidType, "exp_gamma must be float"),
    ({"step_size_up": 2, "mode": "sine"}, InvalidArgument, "mode got 'sine'"),
    ({"step_size_up": 2, "scale_fn": abs, "scale_mode": "epochs"}, InvalidArgument, "scale_mode got 'epochs'"),
])
def test_bad_arguments_say_which(kwargs, error, message):
    with pytest.raises(error, match=message):
        CyclicLR(0.1, 0.5, **kwargs)
