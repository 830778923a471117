"""Learning-rate schedulers: their sequences against torch.optim.lr_scheduler or the formulas,
state_dict round trips, step(epoch), and argument errors."""
from __future__ import annotations

import math

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, PreconditionNotMet
from tests.ops.opcheck import torch_or_skip

lr = paddle.optimizer.lr


def paddle_lrs(sched, n: int) -> list[float]:
    """The rate at epochs 0..n-1."""
    out = []
    for _ in range(n):
        out.append(sched())
        sched.step()
    return out


def torch_lrs(torch, make, n: int, base_lr: float) -> list[float]:
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=base_lr)
    sched = make(opt)
    out = []
    for _ in range(n):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return out


TORCH_CASES = {
    "step": (lambda: lr.StepDecay(0.5, step_size=3, gamma=0.2),
             lambda t, o: t.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.2), 0.5),
    "multistep": (lambda: lr.MultiStepDecay(0.5, milestones=[2, 5, 6], gamma=0.5),
                  lambda t, o: t.optim.lr_scheduler.MultiStepLR(o, milestones=[2, 5, 6], gamma=0.5), 0.5),
    "exponential": (lambda: lr.ExponentialDecay(0.5, gamma=0.8),
                    lambda t, o: t.optim.lr_scheduler.ExponentialLR(o, gamma=0.8), 0.5),
    "cosine": (lambda: lr.CosineAnnealingDecay(0.5, T_max=4, eta_min=0.01),
               lambda t, o: t.optim.lr_scheduler.CosineAnnealingLR(o, T_max=4, eta_min=0.01), 0.5),
    "lambda": (lambda: lr.LambdaDecay(0.5, lr_lambda=lambda e: 0.9 ** e + 0.1 * e),
               lambda t, o: t.optim.lr_scheduler.LambdaLR(o, lr_lambda=lambda e: 0.9 ** e + 0.1 * e), 0.5),
    "multiplicative": (lambda: lr.MultiplicativeDecay(0.5, lr_lambda=lambda e: 0.9),
                       lambda t, o: t.optim.lr_scheduler.MultiplicativeLR(o, lr_lambda=lambda e: 0.9), 0.5),
    "one_cycle": (lambda: lr.OneCycleLR(1.0, total_steps=20, divide_factor=10.0, end_learning_rate=1e-3,
                                        phase_pct=0.3),
                  lambda t, o: t.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=20, div_factor=10.0,
                                                               final_div_factor=100.0, pct_start=0.3,
                                                               cycle_momentum=False), 0.1),
    "one_cycle_linear_three_phase": (
        lambda: lr.OneCycleLR(1.0, total_steps=20, divide_factor=10.0, end_learning_rate=1e-3, phase_pct=0.25,
                              anneal_strategy="linear", three_phase=True),
        lambda t, o: t.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=20, div_factor=10.0,
                                                     final_div_factor=100.0, pct_start=0.25,
                                                     anneal_strategy="linear", three_phase=True,
                                                     cycle_momentum=False), 0.1),
    "warm_restarts": (lambda: lr.CosineAnnealingWarmRestarts(0.5, T_0=3, T_mult=2, eta_min=0.01),
                      lambda t, o: t.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2,
                                                                                    eta_min=0.01), 0.5),
    "linear": (lambda: lr.LinearLR(0.5, total_steps=5, start_factor=0.2, end_factor=0.9),
               lambda t, o: t.optim.lr_scheduler.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=5), 0.5),
    "polynomial": (lambda: lr.PolynomialDecay(0.5, decay_steps=6, end_lr=0.0, power=2.0),
                   lambda t, o: t.optim.lr_scheduler.PolynomialLR(o, total_iters=6, power=2.0), 0.5),
}


@pytest.mark.parametrize("case", sorted(TORCH_CASES))
def test_sequence_matches_torch(case):
    torch = torch_or_skip()
    make_paddle, make_torch, base = TORCH_CASES[case]
    n = 20 if case.startswith("one_cycle") else 14
    got = paddle_lrs(make_paddle(), n)
    want = torch_lrs(torch, lambda o: make_torch(torch, o), n, base)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_formula_schedulers():
    e = np.arange(8)
    np.testing.assert_allclose(paddle_lrs(lr.NaturalExpDecay(0.5, gamma=0.3), 8), 0.5 * np.exp(-0.3 * e))
    np.testing.assert_allclose(paddle_lrs(lr.InverseTimeDecay(0.5, gamma=0.3), 8), 0.5 / (1 + 0.3 * e))
    noam = [2.0 * 16 ** -0.5 * min(1.0 if k == 0 else k ** -0.5, k * 4 ** -1.5) for k in e]
    np.testing.assert_allclose(paddle_lrs(lr.NoamDecay(d_model=16, warmup_steps=4, learning_rate=2.0), 8), noam)
    assert paddle_lrs(lr.PiecewiseDecay(boundaries=[2, 5], values=[1.0, 0.5, 0.1]), 7) == [1.0, 1.0, 0.5, 0.5,
                                                                                             0.5, 0.1, 0.1]


def test_polynomial_decay_end_lr_and_cycle():
    held = paddle_lrs(lr.PolynomialDecay(1.0, decay_steps=4, end_lr=0.1), 7)
    np.testing.assert_allclose(held, [0.9 * (1 - min(k, 4) / 4) + 0.1 for k in range(7)])
    cyc = paddle_lrs(lr.PolynomialDecay(1.0, decay_steps=4, end_lr=0.1, cycle=True), 10)
    want = [0.9 * (1 - k / (4 * max(1, math.ceil(k / 4)))) + 0.1 for k in range(10)]
    np.testing.assert_allclose(cyc, want)


def test_linear_warmup_over_a_float_and_over_a_scheduler():
    plain = paddle_lrs(lr.LinearWarmup(0.5, warmup_steps=4, start_lr=0.1, end_lr=0.5), 6)
    np.testing.assert_allclose(plain, [0.1, 0.2, 0.3, 0.4, 0.5, 0.5])
    inner = lr.StepDecay(0.5, step_size=2, gamma=0.1)
    wrapped = paddle_lrs(lr.LinearWarmup(inner, warmup_steps=2, start_lr=0.0, end_lr=0.5), 7)
    np.testing.assert_allclose(wrapped, [0.0, 0.25, 0.5, 0.5, 0.05, 0.05, 0.005])


def test_reduce_on_plateau_reduces_after_patience_then_cools_down():
    sched = lr.ReduceOnPlateau(1.0, factor=0.5, patience=2, cooldown=1, min_lr=0.2)
    seen = []
    for loss in [5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]:
        sched.step(paddle.to_tensor([float(loss)]))
        seen.append(sched())
    # bad epochs 1,2,3 (> patience) -> halve; 1 cooldown epoch; 3 more bad -> halve; ... floor at min_lr
    assert seen == [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25]
    for _ in range(3):
        sched.step(0.0)
    assert sched() == 0.25  # improving: no reduction
    for _ in range(3):
        sched.step(4.0)
    assert sched() == 0.2  # halving would give 0.125: held at min_lr


def test_reduce_on_plateau_max_mode_with_abs_threshold():
    sched = lr.ReduceOnPlateau(1.0, mode="max", factor=0.1, patience=0, threshold=0.5, threshold_mode="abs")
    sched.step(1.0)
    sched.step(1.4)  # not better than 1.0 + 0.5
    assert sched() == pytest.approx(0.1)


def test_step_with_an_epoch_uses_the_closed_form():
    sched = lr.CosineAnnealingDecay(1.0, T_max=10)
    sched.step(7)
    assert sched.last_epoch == 7
    assert sched() == pytest.approx(0.5 * (1 + math.cos(math.pi * 7 / 10)))
    step = lr.StepDecay(1.0, step_size=2)
    step.step(5)
    assert step() == pytest.approx(0.01)


@pytest.mark.parametrize("make", [
    lambda: lr.StepDecay(0.5, step_size=2),
    lambda: lr.CosineAnnealingWarmRestarts(0.5, T_0=2, T_mult=2),
    lambda: lr.LinearWarmup(lr.CosineAnnealingDecay(0.5, T_max=5), warmup_steps=2, start_lr=0.0, end_lr=0.5),
    lambda: lr.ReduceOnPlateau(0.5, patience=0),
])
def test_state_dict_round_trip_resumes_identically(make):
    def advance(s, n):
        out = []
        for k in range(n):
            s.step(float(10 - k % 3)) if isinstance(s, lr.ReduceOnPlateau) else s.step()
            out.append(s())
        return out

    a = make()
    advance(a, 4)
    state = a.state_dict()
    expected = advance(a, 6)
    b = make()
    b.set_state_dict(state)
    assert advance(b, 6) == expected


def test_set_state_dict_missing_key_raises():
    with pytest.raises(PreconditionNotMet, match="no 'last_lr'"):
        lr.StepDecay(0.5, step_size=2).set_state_dict({"last_epoch": 3})


def test_verbose_prints_each_step(capsys):
    sched = lr.ExponentialDecay(1.0, gamma=0.5, verbose=True)
    sched.step()
    assert capsys.readouterr().out.splitlines() == ["Epoch 0: ExponentialDecay set learning rate to 1.0.",
                                                    "Epoch 1: ExponentialDecay set learning rate to 0.5."]


def test_custom_scheduler_subclass():
    class Halving(lr.LRScheduler):
        def get_lr(self):
            return self.base_lr / 2 ** self.last_epoch

    assert paddle_lrs(Halving(1.0), 3) == [1.0, 0.5, 0.25]
    with pytest.raises(NotImplementedError):
        lr.LRScheduler(0.1)


@pytest.mark.parametrize("make, message", [
    (lambda: lr.StepDecay("0.1", step_size=2), "learning_rate must be a number"),
    (lambda: lr.StepDecay(-0.1, step_size=2), "learning_rate must be >= 0"),
    (lambda: lr.StepDecay(0.1, step_size=0), "step_size must be a positive int"),
    (lambda: lr.StepDecay(0.1, step_size=2, gamma=1.5), "gamma must be < 1.0"),
    (lambda: lr.MultiStepDecay(0.1, milestones=[5, 2]), "milestones must increase"),
    (lambda: lr.ExponentialDecay(0.1, gamma=1.0), "gamma must be in \\(0, 1\\)"),
    (lambda: lr.PiecewiseDecay([1, 2], [0.1, 0.2]), "one more entry than boundaries"),
    (lambda: lr.LambdaDecay(0.1, lr_lambda=0.5), "lr_lambda must be a function"),
    (lambda: lr.LinearWarmup(0.1, warmup_steps=2, start_lr=0.5, end_lr=0.1), "must be greater than start_lr"),
    (lambda: lr.CosineAnnealingDecay(0.1, T_max=0), "T_max must be a positive int"),
    (lambda: lr.OneCycleLR(1.0, total_steps=10, anneal_strategy="exp"), "anneal_strategy must be 'cos' or"),
    (lambda: lr.OneCycleLR(1.0, total_steps=10, phase_pct=1.5), "phase_pct must be in \\[0, 1\\]"),
    (lambda: lr.ReduceOnPlateau(0.1, mode="lowest"), "mode must be 'min' or 'max'"),
    (lambda: lr.ReduceOnPlateau(0.1, factor=2.0), "factor must be < 1.0"),
    (lambda: lr.ReduceOnPlateau(0.1).step(paddle.to_tensor([1.0, 2.0])), "metrics must hold one value"),
    (lambda: lr.ReduceOnPlateau(0.1).step("low"), "metrics must be a number"),
    (lambda: paddle_lrs(lr.OneCycleLR(1.0, total_steps=3), 5), "total_steps is 3"),
])
def test_bad_arguments_raise_clear_errors(make, message):
    with pytest.raises(InvalidArgument, match=message):
        make()
